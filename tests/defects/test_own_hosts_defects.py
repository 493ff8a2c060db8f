"""Issue 11, defects 2 and 10: your own machines (a real OpenSSH server) brought up as a
cluster: what `up` says when it fails, what it prints, and what it runs on them."""

from __future__ import annotations

from pathlib import Path

import paramiko
import pytest

from tests.defects.clirun import xyclaw
from tests.defects.owncluster import own_server, write_hosts
from xyclaw.config import load_config
from xyclaw.engine.compose import build_engine
from xyclaw.engine.lifecycle import UpRequest
from xyclaw.errors import XyclawError
from xyclaw.paths import AppPaths
from xyclaw.remote import KnownHosts
from xyclaw.remote.node_access import parse_public_key

pytestmark = pytest.mark.sshd


def test_a_changed_host_key_keeps_its_own_advice(tmp_path: Path, xyclaw_home: Path) -> None:
    """Defect 2: the generic "try again, or another region" replaced the ssh-keygen advice."""
    paths = AppPaths.from_environment()
    paths.ensure()
    with own_server(tmp_path, paths) as (server, _mode):
        write_hosts(paths, server.port)
        # XyClaw's file holds another key for this host: what an attack looks like.
        KnownHosts(paths.known_hosts).add("127.0.0.1", server.port, paramiko.ECDSAKey.generate())
        engine = build_engine(paths, load_config(paths.config_file))
        try:
            request = UpRequest(provider="ssh", gpu="A100-80G", gpu_count=2, image=None)
            with pytest.raises(XyclawError) as info:
                engine.up(engine.quote_request(request)).result(120)
        finally:
            engine.close()
    error = info.value
    assert "CHANGED" in error.message
    hint = error.hint or ""
    assert "ssh-keygen -R" in hint and "intercepting" in hint, hint
    assert "try again" not in hint and "region" not in hint and "billing" not in hint, hint
    assert "handed back" in hint, hint  # your own hosts: nothing was rented or released


def test_up_on_an_own_host_prints_where_to_ssh(tmp_path: Path, xyclaw_home: Path) -> None:
    """Defect 10: `up` printed `ssh None@p100box:None`; and no image setup ran on the host."""
    paths = AppPaths.from_environment()
    paths.ensure()
    with own_server(tmp_path, paths) as (server, _mode):
        write_hosts(paths, server.port)
        known = KnownHosts(paths.known_hosts)
        known.add(
            "127.0.0.1",
            server.port,
            parse_public_key(f"{server.host_key.get_name()} {server.host_key.get_base64()}"),
        )
        outcome = xyclaw("up", "--provider", "ssh", "--gpu", "A100-80G", "--gpus", "2", "--yes")
        assert outcome.code == 0, outcome
        assert "None" not in outcome.out, outcome.out
        assert f"ssh root@127.0.0.1:{server.port}" in outcome.out, outcome.out
        assert "setup" not in outcome.err or "no setup commands" in outcome.err, outcome.err
        assert xyclaw("exec", "1", "--", "mkdir -p /tmp/xyclaw-exec-probe").code == 0
        made = (tmp_path / "mkdir.log").read_text()
        assert "/tmp/xyclaw-exec-probe" in made  # the log sees what runs on the host ...
        assert "/workspace" not in made, made  # ... and the default image's setup did not run
        assert xyclaw("down", "1", "--yes").code == 0
