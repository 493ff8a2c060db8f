"""Resolving host names through an ssh config file, as OpenSSH would."""

from __future__ import annotations

import getpass
from pathlib import Path

import pytest

from xyclaw.errors import ConfigError, UsageError
from xyclaw.remote import HostSpec, SshConfigResolver, parse_destination

CONFIG = """
Host bastion
    HostName 203.0.113.5
    User ops
    Port 2200
    IdentityFile /keys/bastion

Host relay
    HostName relay.internal
    ProxyJump bastion

Host gpu-*
    User root
    IdentityFile /keys/gpu_%h
    IdentitiesOnly yes
    ProxyJump bastion,admin@relay:2022

Host lab-direct
    HostName 10.0.0.9
    ProxyJump none

Host lab-*
    ProxyJump bastion

Host loop-a
    ProxyJump loop-b
Host loop-b
    ProxyJump loop-a

Host self
    ProxyJump self

Host *
    Port 22
"""


@pytest.fixture
def resolver(tmp_path: Path) -> SshConfigResolver:
    path = tmp_path / "config"
    path.write_text(CONFIG)
    return SshConfigResolver(path)


def test_alias_takes_hostname_user_port_and_identity(resolver: SshConfigResolver) -> None:
    spec = resolver.resolve("bastion")
    assert spec == HostSpec(
        alias="bastion",
        hostname="203.0.113.5",
        port=2200,
        user="ops",
        identity_files=(Path("/keys/bastion"),),
    )
    assert spec.describe() == "bastion (ops@203.0.113.5:2200)"


def test_unknown_host_keeps_its_name_and_the_local_user(resolver: SshConfigResolver) -> None:
    spec = resolver.resolve("10.1.2.3")
    assert (spec.hostname, spec.port, spec.user, spec.jump) == (
        "10.1.2.3",
        22,
        getpass.getuser(),
        None,
    )


def test_user_and_port_in_the_name_win_over_the_config(resolver: SshConfigResolver) -> None:
    spec = resolver.resolve("me@bastion:2299")
    assert (spec.hostname, spec.user, spec.port) == ("203.0.113.5", "me", 2299)


def test_proxyjump_chain_is_reached_hop_by_hop(resolver: SshConfigResolver) -> None:
    spec = resolver.resolve("gpu-3")
    assert spec.user == "root" and spec.identities_only
    assert spec.identity_files == (Path("/keys/gpu_gpu-3"),)
    relay = spec.jump
    assert relay is not None
    # The second hop keeps its own settings but is reached through the first hop,
    # with the user and port written in the ProxyJump line.
    assert (relay.alias, relay.hostname, relay.user, relay.port) == (
        "relay",
        "relay.internal",
        "admin",
        2022,
    )
    assert relay.jump is not None and relay.jump.alias == "bastion"
    assert relay.jump.port == 2200 and relay.jump.jump is None
    assert spec.describe() == "root@gpu-3:22 via relay"


def test_jump_host_uses_its_own_proxyjump(resolver: SshConfigResolver) -> None:
    spec = resolver.resolve("relay")
    assert spec.jump is not None and spec.jump.hostname == "203.0.113.5"


def test_proxyjump_none_means_direct(resolver: SshConfigResolver) -> None:
    # First match wins: lab-direct's "none" holds against the lab-* block below it.
    assert resolver.resolve("lab-direct").jump is None
    assert resolver.resolve("lab-other").jump is not None


@pytest.mark.parametrize("host", ["loop-a", "self"])
def test_proxyjump_loops_are_config_errors(resolver: SshConfigResolver, host: str) -> None:
    with pytest.raises(ConfigError, match="ProxyJump"):
        resolver.resolve(host)


def test_config_changes_are_picked_up(tmp_path: Path) -> None:
    path = tmp_path / "config"
    path.write_text("Host a\n    Port 1000\n")
    resolver = SshConfigResolver(path)
    assert resolver.resolve("a").port == 1000
    path.write_text("Host a\n    Port 20000\n")
    assert resolver.resolve("a").port == 20000


def test_missing_config_file_means_no_config(tmp_path: Path) -> None:
    assert SshConfigResolver(tmp_path / "absent").resolve("x:2222").port == 2222
    assert SshConfigResolver(None).resolve("x").port == 22


def test_bad_port_in_config_names_file_and_host(tmp_path: Path) -> None:
    path = tmp_path / "config"
    path.write_text("Host a\n    Port ssh\n")
    with pytest.raises(ConfigError) as caught:
        SshConfigResolver(path).resolve("a")
    assert str(path) in str(caught.value) and "'a'" in str(caught.value)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("host", (None, "host", None)),
        ("u@host:2222", ("u", "host", 2222)),
        ("ssh://u@host:22/", ("u", "host", 22)),
        ("[fe80::1]:2200", (None, "fe80::1", 2200)),
        ("fe80::1", (None, "fe80::1", None)),
    ],
)
def test_destination_forms(text: str, expected: tuple[str | None, str, int | None]) -> None:
    assert parse_destination(text) == expected


@pytest.mark.parametrize("text", ["", "host:0", "host:99999", "host:x", "[::1", "u@"])
def test_bad_destinations_are_usage_errors(text: str) -> None:
    with pytest.raises(UsageError):
        parse_destination(text)
