"""ProxyJump (one or more jump hosts) and ProxyCommand through real sshd servers."""

from __future__ import annotations

import getpass
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.remote.helpers import Keys, trust
from tests.remote.sshd import Sshd
from xyclaw.errors import ConnectError
from xyclaw.remote import KnownHosts, SshPool

pytestmark = pytest.mark.sshd


def host_block(alias: str, server: Sshd, keys: Keys, extra: str = "") -> str:
    return (
        f"Host {alias}\n    HostName 127.0.0.1\n    Port {server.port}\n"
        f"    User {getpass.getuser()}\n    IdentityFile {keys.client_path}\n{extra}"
    )


def test_proxyjump_goes_through_the_jump_host(
    tmp_path: Path,
    sshd_factory: Callable[..., Sshd],
    keys: Keys,
    known: KnownHosts,
    make_pool: Callable[..., SshPool],
) -> None:
    jump = sshd_factory(log_level="DEBUG1")
    target = sshd_factory()
    trust(known, jump)
    trust(known, target)
    (tmp_path / "ssh_config").write_text(
        host_block("bastion", jump, keys)
        + host_block("inner", target, keys, "    ProxyJump bastion\n")
    )
    pool = make_pool()

    assert pool.run("inner", "echo from-inner").stdout == "from-inner\n"
    assert f"target 127.0.0.1 port {target.port}" in jump.log_path.read_text()
    assert pool.is_connected("bastion")

    pool.close()
    jump.stop()
    with pytest.raises(ConnectError) as caught:
        pool.run("inner", "true")
    assert "bastion" in str(caught.value) and caught.value.host == "inner"


def test_two_jump_hosts_in_one_proxyjump_line(
    tmp_path: Path,
    sshd_factory: Callable[..., Sshd],
    keys: Keys,
    known: KnownHosts,
    make_pool: Callable[..., SshPool],
) -> None:
    first, second, target = (sshd_factory(log_level="DEBUG1") for _ in range(3))
    for server in (first, second, target):
        trust(known, server)
    (tmp_path / "ssh_config").write_text(
        host_block("hop1", first, keys)
        + host_block("hop2", second, keys)
        + host_block("deep", target, keys, "    ProxyJump hop1,hop2\n")
    )

    assert make_pool().run("deep", "echo deep").stdout == "deep\n"
    assert f"target 127.0.0.1 port {second.port}" in first.log_path.read_text()
    assert f"target 127.0.0.1 port {target.port}" in second.log_path.read_text()
    assert "direct-tcpip" not in target.log_path.read_text()


def test_proxycommand_carries_the_connection(
    tmp_path: Path,
    sshd: Sshd,
    keys: Keys,
    known: KnownHosts,
    make_pool: Callable[..., SshPool],
) -> None:
    trust(known, sshd)
    relay_log = tmp_path / "relay.log"
    relay = Path(__file__).with_name("relay.py")
    (tmp_path / "ssh_config").write_text(
        host_block(
            "proxied", sshd, keys, f"    ProxyCommand {sys.executable} {relay} %h %p {relay_log}\n"
        )
    )

    assert make_pool().run("proxied", "echo through").stdout == "through\n"
    assert relay_log.read_text() == f"relayed to 127.0.0.1:{sshd.port}\n"
