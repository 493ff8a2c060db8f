"""Logging in to a real OpenSSH server: ssh config, key files, the agent, refusals."""

from __future__ import annotations

import getpass
import os
import shutil
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.remote.helpers import Keys, spec_for, trust
from tests.remote.sshd import Sshd
from xyclaw.errors import AuthenticationError, ConnectError
from xyclaw.remote import KnownHosts, SshPool

pytestmark = pytest.mark.sshd


def write_config(path: Path, text: str) -> None:
    path.write_text(text)


def test_alias_from_ssh_config_logs_in_with_its_identity_file(
    tmp_path: Path, sshd: Sshd, keys: Keys, known: KnownHosts, make_pool: Callable[..., SshPool]
) -> None:
    trust(known, sshd)
    write_config(
        tmp_path / "ssh_config",
        f"""Host gpu-a
    HostName 127.0.0.1
    Port {sshd.port}
    User {getpass.getuser()}
    IdentityFile {keys.stranger_path}
    IdentityFile {keys.client_path}
""",
    )
    pool = make_pool()

    result = pool.run("gpu-a", 'echo "$USER on $SSH_CONNECTION"; echo oops >&2; exit 4')

    assert result.host == "gpu-a"
    assert result.exit_code == 4
    assert result.stdout.startswith(f"{getpass.getuser()} on 127.0.0.1 ")
    assert result.stdout.rstrip().endswith(f" {sshd.port}")
    assert result.stderr == "oops\n"
    assert not result.stdout_truncated and not result.stderr_truncated


def test_env_values_reach_the_command_quoted(
    sshd: Sshd, keys: Keys, known: KnownHosts, make_pool: Callable[..., SshPool]
) -> None:
    trust(known, sshd)
    pool = make_pool()
    value = 'it\'s $HOME; `id` "quoted"'

    result = pool.run(
        spec_for(sshd, keys.client_path), 'printf %s "$XY_VALUE"', env={"XY_VALUE": value}
    )

    assert result.stdout == value


def test_key_the_server_does_not_know_is_refused_naming_host_and_what_was_tried(
    sshd: Sshd, keys: Keys, known: KnownHosts, make_pool: Callable[..., SshPool]
) -> None:
    trust(known, sshd)
    pool = make_pool()

    with pytest.raises(AuthenticationError) as caught:
        pool.run(spec_for(sshd, keys.stranger_path, alias="gpu-z"), "true")

    assert caught.value.host == "gpu-z"
    assert "gpu-z" in str(caught.value)
    assert str(keys.stranger_path) in str(caught.value)
    assert "authorized_keys" in (caught.value.hint or "")


@pytest.mark.skipif(shutil.which("ssh-agent") is None, reason="ssh-agent is not installed")
def test_ssh_agent_key_logs_in(
    tmp_path: Path,
    sshd: Sshd,
    keys: Keys,
    known: KnownHosts,
    make_pool: Callable[..., SshPool],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    trust(known, sshd)
    socket_path = tmp_path / "agent.sock"
    agent = subprocess.Popen(
        ["ssh-agent", "-D", "-a", str(socket_path)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 5
        while not socket_path.exists() and time.monotonic() < deadline:
            time.sleep(0.01)
        env = dict(os.environ, SSH_AUTH_SOCK=str(socket_path))
        subprocess.run(
            ["ssh-add", "-q", str(keys.client_path)], env=env, check=True, capture_output=True
        )
        monkeypatch.setenv("SSH_AUTH_SOCK", str(socket_path))
        spec = spec_for(sshd, keys.client_path)
        no_files = type(spec)(
            alias=spec.alias, hostname=spec.hostname, port=spec.port, user=spec.user
        )

        with_agent = make_pool(use_agent=True)
        assert with_agent.run(no_files, "echo via-agent").stdout == "via-agent\n"

        without_agent = make_pool(use_agent=False)
        with pytest.raises(AuthenticationError):
            without_agent.run(no_files, "true")
    finally:
        agent.terminate()
        agent.wait(timeout=5)


def test_nobody_listening_is_a_connect_error_naming_the_host(
    tmp_path: Path, dead_port: int, make_pool: Callable[..., SshPool]
) -> None:
    port = dead_port
    write_config(tmp_path / "ssh_config", f"Host gone\n    HostName 127.0.0.1\n    Port {port}\n")

    with pytest.raises(ConnectError) as caught:
        make_pool().run("gone", "true")

    assert caught.value.host == "gone"
    assert f"127.0.0.1:{port}" in str(caught.value)
    assert "refused" in str(caught.value)
