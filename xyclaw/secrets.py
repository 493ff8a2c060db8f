"""Secrets (API keys, passwords): the OS keyring, or a file only the user can read.

Secrets never go into config.toml, the database, logs or error messages. Every
value read or written is registered with :mod:`xyclaw.logsetup` so that it is
masked should it ever reach a log line.
"""

from __future__ import annotations

import json
import logging
import stat
import threading
from pathlib import Path
from typing import Protocol

from xyclaw.errors import SecretError
from xyclaw.files import write_private
from xyclaw.logsetup import register_secret

log = logging.getLogger(__name__)

SERVICE = "xyclaw"


class SecretBackend(Protocol):
    name: str

    def get(self, key: str) -> str | None: ...

    def set(self, key: str, value: str) -> None: ...

    def delete(self, key: str) -> None: ...


class FileSecretBackend:
    """A JSON file with mode 0600, for machines with no working keyring (headless Linux)."""

    name = "file"

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()

    def _read(self) -> dict[str, str]:
        try:
            mode = self.path.stat().st_mode
        except FileNotFoundError:
            return {}
        if mode & (stat.S_IRWXG | stat.S_IRWXO):
            raise SecretError(
                f"the secrets file {self.path} can be read by other users",
                hint=f"run: chmod 600 {self.path}",
            )
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise SecretError(
                f"the secrets file {self.path} cannot be read",
                hint="fix or remove it, then enter the secrets again in Settings",
            ) from exc
        if not isinstance(data, dict):
            raise SecretError(f"the secrets file {self.path} is not a JSON object")
        return {str(k): str(v) for k, v in data.items()}

    def _write(self, data: dict[str, str]) -> None:
        write_private(self.path, json.dumps(data))

    def get(self, key: str) -> str | None:
        with self._lock:
            return self._read().get(key)

    def set(self, key: str, value: str) -> None:
        with self._lock:
            data = self._read()
            data[key] = value
            self._write(data)

    def delete(self, key: str) -> None:
        with self._lock:
            data = self._read()
            if data.pop(key, None) is not None:
                self._write(data)

    def names(self) -> list[str]:
        """The names stored (never the values): the file can list them, a keyring cannot."""
        with self._lock:
            return sorted(self._read())


class KeyringSecretBackend:
    """The OS keyring through the keyring package."""

    def __init__(self) -> None:
        import keyring

        self._keyring = keyring
        self.name = f"keyring ({type(keyring.get_keyring()).__name__})"

    def get(self, key: str) -> str | None:
        try:
            value: str | None = self._keyring.get_password(SERVICE, key)
        except Exception as exc:
            raise SecretError(
                "the OS keyring refused to read a secret",
                hint='unlock the keyring, or set [secrets] backend = "file" in config.toml',
            ) from exc
        return value

    def set(self, key: str, value: str) -> None:
        try:
            self._keyring.set_password(SERVICE, key, value)
        except Exception as exc:
            raise SecretError(
                "the OS keyring refused to store a secret",
                hint='unlock the keyring, or set [secrets] backend = "file" in config.toml',
            ) from exc

    def delete(self, key: str) -> None:
        try:
            self._keyring.delete_password(SERVICE, key)
        except Exception as exc:
            log.debug("keyring delete of %s failed: %s", key, type(exc).__name__)


def keyring_usable() -> bool:
    """True when a real keyring backend (not the fail or plaintext ones) is available."""
    try:
        import keyring
        from keyring.backends import fail

        backend = keyring.get_keyring()
    except Exception:
        return False
    if isinstance(backend, fail.Keyring):
        return False
    priority = getattr(backend, "priority", 0)
    module = type(backend).__module__
    return bool(priority >= 1) and not module.startswith("keyrings.alt")


def choose_backend(mode: str, fallback_file: Path) -> SecretBackend:
    """The backend the configuration asks for (``auto``: the OS keyring when one works)."""
    if mode == "file" or (mode == "auto" and not keyring_usable()):
        return FileSecretBackend(fallback_file)
    if mode == "keyring" and not keyring_usable():
        raise SecretError(
            "no working OS keyring was found",
            hint='install and unlock one, or set [secrets] backend = "file"',
        )
    return KeyringSecretBackend()


class SecretStore:
    """The app's secrets, behind one backend chosen from the configuration."""

    def __init__(self, backend: SecretBackend | None = None, *, mode: str = "auto") -> None:
        self._backend = backend
        self._mode = mode
        self._fallback_file: Path | None = None
        self._choosing = threading.Lock()

    @classmethod
    def choose(cls, mode: str, fallback_file: Path) -> SecretStore:
        return cls(choose_backend(mode, fallback_file))

    @classmethod
    def deferred(cls, mode: str, fallback_file: Path) -> SecretStore:
        """Chosen on first use: finding the OS keyring loads its plug-ins (0.1-0.2 s), which a
        command that reads no secret (``xyclaw clusters``) should not pay for."""
        store = cls(None, mode=mode)
        store._fallback_file = fallback_file
        return store

    @property
    def backend(self) -> SecretBackend:
        with self._choosing:
            if self._backend is None:
                assert self._fallback_file is not None
                self._backend = choose_backend(self._mode, self._fallback_file)
            return self._backend

    def get(self, key: str) -> str | None:
        value = self.backend.get(key)
        if value:
            register_secret(value)
        return value

    def set(self, key: str, value: str) -> None:
        if not value:
            raise SecretError(f"refusing to store an empty secret for {key!r}")
        register_secret(value)
        self.backend.set(key, value)

    def delete(self, key: str) -> None:
        self.backend.delete(key)
