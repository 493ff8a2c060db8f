"""SFTP upload and download against a real sshd, with progress."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.remote.helpers import Keys, spec_for, trust
from tests.remote.sshd import Sshd
from xyclaw.errors import UsageError
from xyclaw.remote import KnownHosts, RemoteFileError, SshPool

pytestmark = pytest.mark.sshd


def test_upload_then_download_round_trips_with_progress(
    tmp_path: Path, sshd: Sshd, keys: Keys, known: KnownHosts, make_pool: Callable[..., SshPool]
) -> None:
    trust(known, sshd)
    pool = make_pool()
    spec = spec_for(sshd, keys.client_path)
    payload = os.urandom(700_000)
    local = tmp_path / "ckpt.bin"
    local.write_bytes(payload)
    remote = str(tmp_path / "remote-side" / "ckpt.bin")
    Path(remote).parent.mkdir()
    sent: list[tuple[int, int]] = []
    got: list[tuple[int, int]] = []

    assert pool.upload(
        spec, local, remote, progress=lambda done, total: sent.append((done, total))
    ) == len(payload)
    assert (
        pool.run(spec, f"sha256sum {remote}").stdout.split()[0]
        == hashlib.sha256(payload).hexdigest()
    )

    back = tmp_path / "back" / "ckpt.bin"
    size = pool.download(spec, remote, back, progress=lambda done, total: got.append((done, total)))

    assert size == len(payload) and back.read_bytes() == payload
    for seen in (sent, got):
        assert len(seen) > 1
        assert [d for d, _ in seen] == sorted(d for d, _ in seen)
        assert seen[-1] == (len(payload), len(payload))


def test_missing_remote_file_names_host_and_path_and_leaves_nothing_local(
    tmp_path: Path, sshd: Sshd, keys: Keys, known: KnownHosts, make_pool: Callable[..., SshPool]
) -> None:
    trust(known, sshd)
    target = tmp_path / "out.bin"
    missing = str(tmp_path / "no-such-file")

    with pytest.raises(RemoteFileError) as caught:
        make_pool().download(spec_for(sshd, keys.client_path, alias="box"), missing, target)

    assert caught.value.host == "box" and missing in str(caught.value)
    assert not target.exists() and not target.with_name("out.bin.part").exists()


def test_upload_into_a_missing_folder_or_from_a_missing_file_fails_clearly(
    tmp_path: Path, sshd: Sshd, keys: Keys, known: KnownHosts, make_pool: Callable[..., SshPool]
) -> None:
    trust(known, sshd)
    pool = make_pool()
    spec = spec_for(sshd, keys.client_path)
    local = tmp_path / "a.txt"
    local.write_text("x")

    with pytest.raises(RemoteFileError, match="no-such-dir"):
        pool.upload(spec, local, str(tmp_path / "no-such-dir" / "a.txt"))
    with pytest.raises(UsageError, match="nothing-here"):
        pool.upload(spec, tmp_path / "nothing-here", str(tmp_path / "b.txt"))
