"""Helpers shared by the SSH-layer tests (the fixtures live in conftest.py)."""

from __future__ import annotations

import getpass
import random
from dataclasses import dataclass
from pathlib import Path

import paramiko

from tests.remote.sshd import Sshd
from xyclaw.config import SshSettings
from xyclaw.remote import HostSpec, KnownHosts

TEST_SETTINGS = SshSettings(
    connect_timeout_s=5.0, command_timeout_s=30.0, keepalive_s=5.0, max_parallel=8
)


@dataclass(frozen=True)
class Keys:
    client_path: Path
    client: paramiko.PKey
    stranger_path: Path
    stranger: paramiko.PKey


def spec_for(server: Sshd, key_path: Path, alias: str = "node") -> HostSpec:
    return HostSpec(
        alias=alias,
        hostname="127.0.0.1",
        port=server.port,
        user=getpass.getuser(),
        identity_files=(key_path,),
        identities_only=True,
    )


def trust(known: KnownHosts, server: Sshd) -> None:
    """Hand the server's key over, as the simulated cloud does for its nodes."""
    known.add("127.0.0.1", server.port, server.host_key, persist=False)


def processes_matching(marker: str) -> list[str]:
    """Command lines of live processes containing ``marker`` (what ``pgrep -af`` shows)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            raw = (entry / "cmdline").read_bytes()
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        cmdline = raw.replace(b"\0", b" ").decode(errors="replace")
        if marker in cmdline and state != "Z":
            found.append(f"{entry.name} {cmdline}")
    return found


def unique_seconds() -> str:
    """A sleep length no other process on this machine is using: our process marker."""
    return f"{random.randint(1000, 9999)}.{random.randint(100, 999)}"
