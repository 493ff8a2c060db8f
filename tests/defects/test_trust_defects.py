"""Issue 11, defect 1: a new SSH host can be trusted from the command line: asked at a
terminal, ``--trust-new-host`` in scripts, refused with the exact command otherwise, and
``xyclaw hosts list | add | test | trust | forget`` (a real OpenSSH server)."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.defects.clirun import xyclaw
from tests.defects.owncluster import own_server, write_hosts
from xyclaw.paths import AppPaths
from xyclaw.remote import fingerprint_sha256

pytestmark = pytest.mark.sshd

ROOT = Path(__file__).resolve().parents[2]
UP = ("up", "--provider", "ssh", "--gpu", "A100-80G", "--gpus", "2", "--yes")


def _known(paths: AppPaths) -> str:
    return paths.known_hosts.read_text() if paths.known_hosts.exists() else ""


def test_without_a_terminal_the_refusal_says_the_exact_command(
    tmp_path: Path, xyclaw_home: Path
) -> None:
    paths = AppPaths.from_environment()
    paths.ensure()
    with own_server(tmp_path, paths) as (server, _mode):
        write_hosts(paths, server.port)
        fingerprint = fingerprint_sha256(server.host_key)
        refused = xyclaw(*UP)
        assert refused.code != 0 and "Traceback" not in refused.text
        assert fingerprint in refused.err, refused.err
        pinned = f"xyclaw hosts trust root@127.0.0.1:{server.port} --fingerprint {fingerprint}"
        assert pinned in refused.err, refused.err
        assert "xyclaw --trust-new-host up --provider ssh" in refused.err, refused.err
        assert "try again" not in refused.err  # defect 2: the key's own advice stands
        assert str(server.port) not in _known(paths)  # nothing trusted behind the user's back
        # The command it gives works, and then `up` needs no flag.
        trusted = xyclaw(*pinned.split()[1:])
        assert trusted.code == 0 and fingerprint in trusted.out, trusted
        assert xyclaw(*UP).code == 0
        assert xyclaw("down", "1", "--yes").code == 0


def test_trust_new_host_for_scripts(tmp_path: Path, xyclaw_home: Path) -> None:
    paths = AppPaths.from_environment()
    paths.ensure()
    with own_server(tmp_path, paths) as (server, _mode):
        write_hosts(paths, server.port)
        fingerprint = fingerprint_sha256(server.host_key)
        outcome = xyclaw(*UP, "--trust-new-host")
        assert outcome.code == 0, outcome
        assert f"trusting the new host key of root@127.0.0.1:{server.port}" in outcome.err
        assert fingerprint in outcome.err
        assert f"[127.0.0.1]:{server.port} {server.host_key.get_name()}" in _known(paths)
        assert xyclaw("down", "1", "--yes").code == 0


def _in_a_terminal(args: list[str], answer: str, timeout: float = 90.0) -> tuple[int, str]:
    """Run ``xyclaw ARGS`` on a pseudo-terminal; type ``answer`` when the question comes."""
    leader, follower = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "xyclaw.cli.main", *args],
        stdin=follower,
        stdout=follower,
        stderr=follower,
        cwd=ROOT,
        env={**os.environ, "COLUMNS": "120"},
        close_fds=True,
    )
    os.close(follower)
    seen = b""
    answered = False
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([leader], [], [], 0.2)
            if ready:
                try:
                    chunk = os.read(leader, 4096)
                except OSError:  # the terminal closed: the command ended
                    break
                seen += chunk
                if not answered and b"connect? [y/N]" in seen:
                    os.write(leader, answer.encode() + b"\n")
                    answered = True
            elif proc.poll() is not None:
                break
        code = proc.wait(timeout=30)
    finally:
        os.close(leader)
        if proc.poll() is None:
            proc.kill()
    return code, seen.decode(errors="replace")


def test_at_a_terminal_the_user_is_asked(tmp_path: Path, xyclaw_home: Path) -> None:
    paths = AppPaths.from_environment()
    paths.ensure()
    with own_server(tmp_path, paths) as (server, _mode):
        write_hosts(paths, server.port)
        fingerprint = fingerprint_sha256(server.host_key)
        code, screen = _in_a_terminal(list(UP), "n")
        assert code != 0, screen
        assert "is not known yet" in screen and fingerprint in screen, screen
        assert server.host_key.get_name() in screen
        assert str(server.port) not in _known(paths)
        code, screen = _in_a_terminal(list(UP), "y")
        assert code == 0, screen
        assert "ready" in screen and str(server.port) in _known(paths)
        assert xyclaw("down", "1", "--yes").code == 0


def test_hosts_list_add_test_trust_forget(tmp_path: Path, xyclaw_home: Path) -> None:
    paths = AppPaths.from_environment()
    paths.ensure()
    with own_server(tmp_path, paths) as (server, _mode):
        name = f"root@127.0.0.1:{server.port}"
        fingerprint = fingerprint_sha256(server.host_key)
        assert "no hosts" in xyclaw("hosts", "list").out
        added = xyclaw("hosts", "add", name, "--gpu", "A100 80GB", "--gpus", "2")
        assert added.code == 0, added
        again = xyclaw("hosts", "add", name, "--gpu", "A100-80G")
        assert again.code == 2 and "already" in again.err
        bad = xyclaw("hosts", "add", "box", "--gpu", "A100-80G", "--fabric", "warp-drive")
        assert bad.code == 2 and "warp-drive" in bad.err
        listing = xyclaw("hosts", "list")
        assert "2 x A100-80G" in listing.out and "not known yet" in listing.out, listing
        # Not at a terminal, no flag: refused, with the command that pins the key.
        test = xyclaw("hosts", "test", name)
        assert test.code != 0 and f"--fingerprint {fingerprint}" in test.err, test
        wrong = xyclaw("hosts", "trust", name, "--fingerprint", "SHA256:" + "A" * 43)
        assert wrong.code != 0 and fingerprint in wrong.err, wrong
        assert str(server.port) not in _known(paths)
        right = xyclaw("hosts", "trust", name, "--fingerprint", fingerprint)
        assert right.code == 0 and f"trusted {name}" in right.out, right
        assert "already trusted" in xyclaw("hosts", "trust", name).out
        test = xyclaw("hosts", "test", name)
        assert test.code == 0, test
        assert "GPU 0: NVIDIA A100 80GB PCIe, 81920 MiB" in test.out
        assert "matches hosts.toml (2 x A100-80G)" in test.out
        assert fingerprint in xyclaw("hosts", "list").out
        forgot = xyclaw("hosts", "forget", name)
        assert forgot.code == 0 and "removed 1" in forgot.out, forgot
        assert str(server.port) not in _known(paths)
        assert "not known yet" in xyclaw("hosts", "list").out
