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

from xyclaw.remote.auth import PasswordLookup
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

__all__ = [
    "DEFAULT_OUTPUT_CAP",
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
