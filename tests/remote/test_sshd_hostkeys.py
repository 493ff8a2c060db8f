"""Host keys against a real sshd: unknown hosts need a decision, changed keys are refused."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.remote.helpers import Keys, spec_for
from tests.remote.sshd import Sshd, keygen, public_line
from xyclaw.errors import HostKeyChangedError, UnknownHostKeyError
from xyclaw.remote import KnownHosts, SshPool

pytestmark = pytest.mark.sshd


def keygen_fingerprint(pub: Path) -> str:
    """The fingerprint as OpenSSH prints it (``256 SHA256:... comment (ED25519)``)."""
    out = subprocess.run(["ssh-keygen", "-lf", str(pub)], capture_output=True, text=True)
    return out.stdout.split()[1]


def test_unknown_host_is_refused_without_a_trust_decision(
    sshd: Sshd, keys: Keys, known: KnownHosts, make_pool: Callable[..., SshPool]
) -> None:
    expected = keygen_fingerprint(sshd.host_key_path.with_suffix(".pub"))
    asked: list[tuple[str, str, str]] = []

    def refuse(host: str, key_type: str, fingerprint: str) -> bool:
        asked.append((host, key_type, fingerprint))
        return False

    for pool in (make_pool(), make_pool(trust_new_host=refuse)):
        with pytest.raises(UnknownHostKeyError) as caught:
            pool.run(spec_for(sshd, keys.client_path, alias="newbox"), "true")
        assert expected in str(caught.value)
        assert "newbox" in str(caught.value)
        assert "--trust-new-host" in (caught.value.hint or "")

    assert asked == [(f"newbox ([127.0.0.1]:{sshd.port})", "ssh-ed25519", expected)]
    assert not known.app_path.exists()


def test_trusted_new_host_is_recorded_in_the_app_file_only(
    tmp_path: Path, sshd: Sshd, keys: Keys, known: KnownHosts, make_pool: Callable[..., SshPool]
) -> None:
    user_file = tmp_path / "user_known_hosts"
    user_file.write_text("# the user's own file\n")
    pool = make_pool(trust_new_host=lambda host, key_type, fp: True)

    assert pool.run(spec_for(sshd, keys.client_path), "echo ok").stdout == "ok\n"

    line = f"[127.0.0.1]:{sshd.port} {public_line(sshd.host_key)}"
    assert known.app_path.read_text().splitlines() == [line]
    assert user_file.read_text() == "# the user's own file\n"
    # A fresh process (new KnownHosts, no trust callback) now knows the host.
    later = make_pool(known_hosts=KnownHosts(app_path=known.app_path))
    assert later.run(spec_for(sshd, keys.client_path), "echo again").stdout == "again\n"


def test_hashed_entry_in_users_known_hosts_is_honoured(
    tmp_path: Path, sshd: Sshd, keys: Keys, known: KnownHosts, make_pool: Callable[..., SshPool]
) -> None:
    user_file = tmp_path / "user_known_hosts"
    user_file.write_text(f"[127.0.0.1]:{sshd.port} {public_line(sshd.host_key)}\n")
    subprocess.run(
        ["ssh-keygen", "-q", "-H", "-f", str(user_file)], check=True, capture_output=True
    )
    assert "127.0.0.1" not in user_file.read_text()

    assert make_pool().run(spec_for(sshd, keys.client_path), "echo ok").stdout == "ok\n"
    assert not known.app_path.exists()


def test_changed_host_key_is_refused_naming_both_fingerprints(
    tmp_path: Path, sshd: Sshd, keys: Keys, known: KnownHosts, make_pool: Callable[..., SshPool]
) -> None:
    old_key = keygen(tmp_path / "old_host_key")
    known.app_path.write_text(f"[127.0.0.1]:{sshd.port} {public_line(old_key)}\n")
    before = known.app_path.read_text()
    expected = keygen_fingerprint(tmp_path / "old_host_key.pub")
    presented = keygen_fingerprint(sshd.host_key_path.with_suffix(".pub"))
    pool = make_pool(trust_new_host=lambda host, key_type, fp: True)  # must not be asked

    with pytest.raises(HostKeyChangedError) as caught:
        pool.run(spec_for(sshd, keys.client_path, alias="gpu-7"), "true")

    message = str(caught.value)
    assert "gpu-7" in message and f"[127.0.0.1]:{sshd.port}" in message
    assert expected in message and presented in message
    assert f"{known.app_path}:1" in message
    assert known.app_path.read_text() == before
