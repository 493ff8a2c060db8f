"""Where and as whom to connect: ``~/.ssh/config`` resolved into :class:`HostSpec`.

OpenSSH semantics are kept where users rely on them: first match wins, ``Host``
patterns and aliases, ``HostName``/``User``/``Port``/``IdentityFile``, and
``ProxyJump A,B`` meaning "reach B through A, then the target through B", each
jump host resolved against the same config.
"""

from __future__ import annotations

import getpass
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import paramiko

from xyclaw.errors import ConfigError, UsageError
from xyclaw.wording import said

DEFAULT_PORT = 22

ProcessControl = Literal["auto", "wrap", "plain"]
"""How commands are run: ``wrap`` in a process group XyClaw can stop (POSIX hosts),
``plain`` as given (hosts without a POSIX shell, the simulated node), ``auto`` by
the server's banner."""
_MAX_JUMPS = 8


@dataclass(frozen=True)
class HostSpec:
    """One resolved destination; ``jump`` is the host it is reached through, if any."""

    alias: str
    hostname: str
    port: int = DEFAULT_PORT
    user: str = field(default_factory=getpass.getuser)
    identity_files: tuple[Path, ...] = ()
    identities_only: bool = False
    jump: HostSpec | None = None
    proxy_command: str | None = None
    host_key_alias: str | None = None
    process_control: ProcessControl = "auto"

    @property
    def key_name(self) -> str:
        """The name its host key is recorded under (``HostKeyAlias`` if set)."""
        return self.host_key_alias or self.hostname

    def describe(self) -> str:
        """``alias (user@host:port via jump)`` for messages."""
        target = f"{self.user}@{self.hostname}:{self.port}"
        if self.jump is not None:
            target += f" via {self.jump.alias}"
        elif self.proxy_command:
            target += " via ProxyCommand"
        return target if self.alias == self.hostname else f"{self.alias} ({target})"


def parse_destination(text: str) -> tuple[str | None, str, int | None]:
    """Split ``[ssh://][user@]host[:port]`` (also ``[v6addr]:port``) into its parts."""
    dest = text.strip()
    if dest.startswith("ssh://"):
        dest = dest[len("ssh://") :].rstrip("/")
    if not dest:
        raise UsageError(said("error.host.empty"), hint=said("error.host.empty_hint"))
    user: str | None = None
    if "@" in dest:
        user, _, dest = dest.rpartition("@")
        user = user or None
    port: int | None = None
    if dest.startswith("["):
        host, sep, rest = dest[1:].partition("]")
        if not sep:
            raise UsageError(
                said("error.host.unclosed", host=repr(text)), hint=said("error.host.v6_hint")
            )
        if rest:
            if not rest.startswith(":"):
                raise UsageError(
                    said("error.host.bad", host=repr(text)), hint=said("error.host.v6_hint")
                )
            port = _port(rest[1:], text)
        dest = host
    elif dest.count(":") == 1:
        dest, _, port_text = dest.partition(":")
        port = _port(port_text, text)
    if not dest:
        raise UsageError(
            said("error.host.no_name", host=repr(text)), hint=said("error.host.form_hint")
        )
    return user, dest, port


def _port(text: str, whole: str) -> int:
    if not text.isdigit() or not 0 < int(text) < 65536:
        raise UsageError(
            said("error.host.bad_port", host=repr(whole)), hint=said("error.host.port_hint")
        )
    return int(text)


class SshConfigResolver:
    """Resolves host names through an ssh config file; re-reads the file when it changes."""

    def __init__(
        self,
        config_path: Path | None,
        *,
        default_user: str | None = None,
    ) -> None:
        self._path = config_path
        self._default_user = default_user or getpass.getuser()
        self._config: paramiko.SSHConfig | None = None
        self._stamp: tuple[int, int] | None = None

    @property
    def path(self) -> Path | None:
        return self._path

    def resolve(self, host: str) -> HostSpec:
        """The :class:`HostSpec` for ``host`` (an alias or ``[user@]host[:port]``)."""
        return self._resolve(host, depth=0, jump_override=None)

    def _resolve(self, host: str, *, depth: int, jump_override: HostSpec | None) -> HostSpec:
        if depth > _MAX_JUMPS:
            raise ConfigError(
                said("error.host.jump_deep", host=repr(host), most=_MAX_JUMPS),
                hint=said("error.host.jump_loop_hint", path=str(self._path)),
            )
        user, name, port = parse_destination(host)
        options = self._lookup(name)
        hostname = _text(options, "hostname") or name
        spec_port = port or self._port_option(options, name) or DEFAULT_PORT
        spec_user = user or _text(options, "user") or self._default_user
        raw_files = options.get("identityfile", [])
        files = tuple(Path(os.path.expanduser(str(p))) for p in raw_files)
        jump = jump_override
        proxy_command = None
        if jump is None:
            jump = self._jump_chain(_text(options, "proxyjump"), depth=depth, of=name)
            command = _text(options, "proxycommand")
            if jump is None and command and command.lower() != "none":
                proxy_command = command
        return HostSpec(
            alias=name,
            hostname=hostname,
            port=spec_port,
            user=spec_user,
            identity_files=files,
            identities_only=_text(options, "identitiesonly").lower() == "yes",
            jump=jump,
            proxy_command=proxy_command,
            host_key_alias=_text(options, "hostkeyalias") or None,
        )

    def _port_option(self, options: dict[str, Any], name: str) -> int | None:
        text = _text(options, "port")
        if not text:
            return None
        if not text.isdigit() or not 0 < int(text) < 65536:
            raise ConfigError(
                said(
                    "error.host.config_port", port=repr(text), host=repr(name), path=str(self._path)
                ),
                hint=said("error.host.port_hint"),
            )
        return int(text)

    def _jump_chain(self, value: str, *, depth: int, of: str) -> HostSpec | None:
        hops = [hop.strip() for hop in value.split(",") if hop.strip()]
        if not hops or hops[0].lower() == "none":
            return None
        previous: HostSpec | None = None
        for index, hop in enumerate(hops):
            if parse_destination(hop)[1] == of:
                raise ConfigError(
                    said("error.host.jump_self", host=repr(of)),
                    hint=said("error.host.jump_self_hint", host=of, path=str(self._path)),
                )
            # The first hop keeps its own config (its ProxyJump too); later hops
            # are reached through the one before, as `ssh -J a,b` does.
            previous = self._resolve(
                hop, depth=depth + 1, jump_override=previous if index else None
            )
        return previous

    def _lookup(self, name: str) -> dict[str, Any]:
        config = self._load()
        if config is None:
            return {}
        try:
            return dict(config.lookup(name))
        except Exception as exc:  # paramiko raises several kinds on odd configs
            raise ConfigError(
                f"cannot evaluate {self._path} for host {name!r}: {exc}",
                hint="fix or simplify that Host/Match block (Match exec is not supported)",
            ) from exc

    def _load(self) -> paramiko.SSHConfig | None:
        if self._path is None:
            return None
        try:
            st = self._path.stat()
        except FileNotFoundError:
            self._config, self._stamp = None, None
            return None
        except OSError as exc:
            raise ConfigError(
                f"cannot read ssh config {self._path}: {exc.strerror}",
                hint="check the file's permissions",
            ) from exc
        stamp = (st.st_mtime_ns, st.st_size)
        if self._config is None or stamp != self._stamp:
            try:
                self._config = paramiko.SSHConfig.from_path(str(self._path))
            except (OSError, UnicodeDecodeError, paramiko.ConfigParseError) as exc:
                raise ConfigError(
                    f"cannot parse ssh config {self._path}: {exc}",
                    hint="check the syntax of that file (ssh -G HOST shows what OpenSSH reads)",
                ) from exc
            self._stamp = stamp
        return self._config


def _text(options: dict[str, Any], key: str) -> str:
    value = options.get(key)
    return value if isinstance(value, str) else ""
