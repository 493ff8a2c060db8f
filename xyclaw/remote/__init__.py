"""SSH to rented machines over paramiko: pool, ssh_config, host keys, exec, streams, SFTP.

Build one :class:`SshPool` (the engine's composition function does) and pass it
to whatever needs remote access::

    known = KnownHosts(app_path=paths.data / "known_hosts",
                       user_path=Path.home() / ".ssh" / "known_hosts")
    pool = SshPool(config.ssh, known, trust_new_host=ask_user,
                   password_lookup=secrets.ssh_password,
                   ssh_config_path=Path.home() / ".ssh" / "config")
    pool.run("gpu-1", "nvidia-smi -L").check().stdout
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from xyclaw.remote.auth import AnswerPrompts, PasswordLookup
    from xyclaw.remote.errors import CommandTimeoutError, RemoteFileError
    from xyclaw.remote.hostspec import (
        HostSpec,
        ProcessControl,
        SshConfigResolver,
        parse_destination,
    )
    from xyclaw.remote.known_hosts import KnownHosts, TrustNewHost, entry_name, fingerprint_sha256
    from xyclaw.remote.pool import SshPool
    from xyclaw.remote.result import DEFAULT_OUTPUT_CAP, CommandResult
    from xyclaw.remote.stream import LineCallback, StreamHandle
    from xyclaw.remote.transfer import Progress

#: Where each name lives: importing the package costs nothing, and paramiko (a quarter of a
#: second) is loaded only by what reaches SSH, not by ``from xyclaw.remote import CommandResult``.
_HOMES = {
    "AnswerPrompts": "auth",
    "PasswordLookup": "auth",
    "CommandTimeoutError": "errors",
    "RemoteFileError": "errors",
    "HostSpec": "hostspec",
    "ProcessControl": "hostspec",
    "SshConfigResolver": "hostspec",
    "parse_destination": "hostspec",
    "KnownHosts": "known_hosts",
    "TrustNewHost": "known_hosts",
    "entry_name": "known_hosts",
    "fingerprint_sha256": "known_hosts",
    "SshPool": "pool",
    "DEFAULT_OUTPUT_CAP": "result",
    "CommandResult": "result",
    "LineCallback": "stream",
    "StreamHandle": "stream",
    "Progress": "transfer",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value


__all__ = [
    "DEFAULT_OUTPUT_CAP",
    "AnswerPrompts",
    "CommandResult",
    "CommandTimeoutError",
    "HostSpec",
    "KnownHosts",
    "LineCallback",
    "PasswordLookup",
    "ProcessControl",
    "Progress",
    "RemoteFileError",
    "SshConfigResolver",
    "SshPool",
    "StreamHandle",
    "TrustNewHost",
    "entry_name",
    "fingerprint_sha256",
    "parse_destination",
]
