"""Host-key checking: the user's ``~/.ssh/known_hosts`` plus XyClaw's own file.

XyClaw reads both and writes only its own. An unknown host is accepted only if
the caller's trust-on-first-use decision says so; a key that differs from the
record is refused. Entries use OpenSSH's format, including hashed names
(``|1|salt|hash``), wildcards, negation, ``[host]:port`` for ports other than
22 and ``@revoked`` markers.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import logging
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import paramiko

from xyclaw.errors import ConfigError, HostKeyChangedError, HostKeyError, UnknownHostKeyError
from xyclaw.files import locked, write_private
from xyclaw.wording import said

log = logging.getLogger(__name__)

TrustNewHost = Callable[[str, str, str], bool]
"""``trust_new_host(host, key_type, fingerprint_sha256) -> bool``: accept an unknown host?"""

# Host-key algorithms a server may use for a key type recorded in known_hosts.
_ALGORITHMS = {"ssh-rsa": ("rsa-sha2-512", "rsa-sha2-256", "ssh-rsa")}


def fingerprint_sha256(key: paramiko.PKey) -> str:
    """OpenSSH's ``SHA256:...`` fingerprint, as ``ssh-keygen -lf`` prints it."""
    digest = hashlib.sha256(key.asbytes()).digest()
    return "SHA256:" + base64.b64encode(digest).decode("ascii").rstrip("=")


def entry_name(host: str, port: int) -> str:
    """The name a host is recorded under: ``host`` on port 22, ``[host]:port`` otherwise."""
    host = host.lower()
    return host if port == 22 else f"[{host}]:{port}"


@dataclass(frozen=True)
class KnownKey:
    """One key line of a known-hosts file."""

    patterns: str
    key_type: str
    blob: bytes
    marker: str | None
    source: Path | None
    line: int

    @property
    def fingerprint(self) -> str:
        digest = hashlib.sha256(self.blob).digest()
        return "SHA256:" + base64.b64encode(digest).decode("ascii").rstrip("=")

    @property
    def where(self) -> str:
        return f"{self.source}:{self.line}" if self.source else "keys handed over by the caller"

    def matches(self, name: str) -> bool:
        positive = False
        for pattern in self.patterns.split(","):
            negated = pattern.startswith("!")
            if negated:
                pattern = pattern[1:]
            if _pattern_matches(pattern, name):
                if negated:
                    return False
                positive = True
        return positive


def _pattern_matches(pattern: str, name: str) -> bool:
    if pattern.startswith("|1|"):
        try:
            _, _, salt_b64, hash_b64 = pattern.split("|")
            salt = base64.b64decode(salt_b64)
            expected = base64.b64decode(hash_b64)
        except (ValueError, binascii.Error):
            return False
        actual = hmac.new(salt, name.encode("utf-8"), hashlib.sha1).digest()
        return hmac.compare_digest(actual, expected)
    if "*" in pattern or "?" in pattern:
        regex = "".join(
            ".*" if ch == "*" else "." if ch == "?" else re.escape(ch) for ch in pattern.lower()
        )
        return re.fullmatch(regex, name) is not None
    return pattern.lower() == name


def parse_known_hosts(text: str, source: Path | None = None) -> list[KnownKey]:
    """The key lines of a known-hosts file; lines it cannot read are skipped, as ssh does."""
    keys: list[KnownKey] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        fields = line.split()
        marker = None
        if fields[0].startswith("@"):
            marker = fields.pop(0)[1:]
            if marker not in ("revoked", "cert-authority"):
                continue
        if len(fields) < 3:
            continue
        try:
            blob = base64.b64decode(fields[2], validate=True)
        except (ValueError, binascii.Error):
            log.debug("skipping unreadable key at %s:%d", source, number)
            continue
        keys.append(KnownKey(fields[0], fields[1], blob, marker, source, number))
    return keys


def _read_raw(path: Path) -> str:
    """The file's text as it is ("" if missing), undecodable bytes kept (surrogateescape)."""
    try:
        return path.read_text(encoding="utf-8", errors="surrogateescape")
    except FileNotFoundError:
        return ""


class _KnownHostsFile:
    """One file, re-read when it changes on disk."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._stamp: tuple[int, int, int] | None = None
        self._keys: list[KnownKey] = []

    def keys(self) -> list[KnownKey]:
        try:
            st = self.path.stat()
        except FileNotFoundError:
            self._stamp, self._keys = None, []
            return []
        except OSError as exc:
            raise ConfigError(
                f"cannot read known-hosts file {self.path}: {exc.strerror}",
                hint="check the file's permissions",
            ) from exc
        stamp = (st.st_ino, st.st_mtime_ns, st.st_size)
        if stamp != self._stamp:
            try:
                text = self.path.read_text(encoding="utf-8", errors="replace")
            except OSError as exc:
                raise ConfigError(
                    f"cannot read known-hosts file {self.path}: {exc.strerror}",
                    hint="check the file's permissions",
                ) from exc
            self._keys = parse_known_hosts(text, self.path)
            self._stamp = stamp
        return self._keys


class KnownHosts:
    """The host keys XyClaw trusts: the user's file, its own file and keys handed over."""

    def __init__(self, app_path: Path, user_path: Path | None = None) -> None:
        self._app = _KnownHostsFile(app_path)
        self._user = _KnownHostsFile(user_path) if user_path is not None else None
        self._memory: list[KnownKey] = []
        self._lock = threading.Lock()

    @property
    def app_path(self) -> Path:
        return self._app.path

    def lookup(self, host: str, port: int) -> list[KnownKey]:
        """Every recorded key line (``@cert-authority`` excluded) that names ``host:port``."""
        name = entry_name(host, port)
        with self._lock:
            candidates = list(self._memory) + self._app.keys()
            if self._user is not None:
                candidates += self._user.keys()
        return [k for k in candidates if k.marker != "cert-authority" and k.matches(name)]

    def preferred_key_types(self, host: str, port: int) -> list[str]:
        """Host-key algorithms to ask for first, so a known host presents the key we hold."""
        types: list[str] = []
        for key in self.lookup(host, port):
            if key.marker is None:
                for algorithm in _ALGORITHMS.get(key.key_type, (key.key_type,)):
                    if algorithm not in types:
                        types.append(algorithm)
        return types

    def add(self, host: str, port: int, key: paramiko.PKey, *, persist: bool = True) -> None:
        """Trust ``key`` for ``host:port``; ``persist=False`` keeps it for this process only.

        The simulated cloud hands its node keys over with ``persist=False``: its
        ports are reused by new nodes with new keys.
        """
        name = entry_name(host, port)
        record = KnownKey(name, key.get_name(), key.asbytes(), None, None, 0)
        with self._lock:
            if not persist:
                self._memory.append(record)
                return
            path = self._app.path
            line = f"{name} {key.get_name()} {key.get_base64()}\n"
            try:  # under the file's lock: another process's change is read, kept, not lost
                with locked(path):
                    raw = _read_raw(path)
                    if line in raw.splitlines(keepends=True):
                        return  # recorded already (another process trusted it meanwhile)
                    if raw and not raw.endswith("\n"):
                        raw += "\n"
                    write_private(path, raw + line, errors="surrogateescape")
            except OSError as exc:
                raise ConfigError(
                    f"cannot write the host key of {name} to {path}: {exc.strerror}",
                    hint="check that XyClaw's data folder is writable",
                ) from exc
        log.info("recorded host key of %s (%s) in %s", name, fingerprint_sha256(key), path)

    def forget(self, host: str, port: int) -> int:
        """Drop ``host:port`` from XyClaw's own file (never the user's); how many lines went."""
        name = entry_name(host, port)
        with self._lock:
            self._memory = [k for k in self._memory if not k.matches(name)]
            path = self._app.path
            try:
                with locked(path):  # other lines are kept byte for byte, whatever their encoding
                    lines = _read_raw(path).splitlines(keepends=True)
                    kept = []
                    for line in lines:
                        parsed = parse_known_hosts(line)
                        if parsed and parsed[0].matches(name):
                            continue
                        kept.append(line)
                    removed = len(lines) - len(kept)
                    if removed:
                        write_private(path, "".join(kept), errors="surrogateescape")
            except OSError as exc:
                raise ConfigError(
                    f"cannot rewrite known-hosts file {path}: {exc.strerror}",
                    hint="check the file's permissions",
                ) from exc
        return removed

    def verify(
        self,
        host: str,
        port: int,
        key: paramiko.PKey,
        *,
        alias: str | None = None,
        trust_new_host: TrustNewHost | None = None,
    ) -> None:
        """Accept ``key`` for ``host:port`` or raise; unknown hosts go to ``trust_new_host``."""
        name = entry_name(host, port)
        shown = name if alias is None or alias.lower() == host.lower() else f"{alias} ({name})"
        presented = fingerprint_sha256(key)
        blob = key.asbytes()
        entries = self.lookup(host, port)
        for entry in entries:
            if entry.marker == "revoked" and entry.blob == blob:
                raise HostKeyError(
                    said("error.ssh.revoked", host=shown, fingerprint=presented, where=entry.where),
                    host=alias or host,
                    hint=said("error.ssh.revoked_hint"),
                )
        recorded = [e for e in entries if e.marker is None]
        if any(e.blob == blob for e in recorded):
            return
        if recorded:
            same_type = [e for e in recorded if e.key_type == key.get_name()] or recorded
            expected = ", ".join(f"{e.key_type} {e.fingerprint} ({e.where})" for e in same_type)
            raise HostKeyChangedError(
                said(
                    "error.ssh.key_changed",
                    host=shown,
                    expected=expected,
                    kind=key.get_name(),
                    fingerprint=presented,
                ),
                host=alias or host,
                hint=said("error.ssh.key_changed_hint", name=name),
            )
        if trust_new_host is not None and trust_new_host(shown, key.get_name(), presented):
            self.add(host, port, key)
            return
        raise UnknownHostKeyError(
            said("error.ssh.key_unknown", host=shown, kind=key.get_name(), fingerprint=presented),
            host=alias or host,
            hint=said("error.ssh.key_unknown_hint"),
        )
