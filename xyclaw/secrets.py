"""Secrets (API keys, passwords): the OS keyring, or a file only the user can read, and the
one registry of every secret value this process knows, with its masking.

Secrets never go into config.toml, the database, the agents' checkpoints, logs, events or
error messages. Every value read or written here, every key taken from the environment
(``XYCLAW_LLM_API_KEY``, a provider's key) and every value of a job's secret variables
(``HF_TOKEN``) is registered (:func:`register_secret`) before the first call that could echo
it; whatever writes text a user or a file keeps (the history store's conversations and
events, the checkpoint serializer, the log's filter, :class:`~xyclaw.errors.XyclawError`,
the LLM brain's stream) passes it through :func:`mask` first.
"""

from __future__ import annotations

import json
import logging
import stat
import threading
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Protocol

from xyclaw import errors, logsetup
from xyclaw.errors import SecretError
from xyclaw.files import write_private
from xyclaw.wording import said

log = logging.getLogger(__name__)

SERVICE = "xyclaw"

#: What a secret is replaced with in text.
MASK = "***"
#: Shorter values are not registered: masking "abc" or "1234" would rewrite ordinary words and
#: figures in every message and log line (a "secret" that short would not keep anything safe
#: anyway), so the registry would corrupt more than it protects.
MIN_SECRET_LENGTH = 8


class SecretRegistry:
    """Every secret value this process has seen, masked longest first (so a key that contains
    another registered key is masked whole). Process-wide and thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._values: set[str] = set()
        self._ordered: tuple[str, ...] = ()
        self._encoded: tuple[bytes, ...] = ()

    def register(self, value: str | None) -> bool:
        """Remember ``value`` (stripped); False for one too short to mask (see
        :data:`MIN_SECRET_LENGTH`) or already known."""
        if not value:
            return False
        added = False
        with self._lock:
            for candidate in {value, value.strip()}:
                if len(candidate) >= MIN_SECRET_LENGTH and candidate not in self._values:
                    self._values.add(candidate)
                    added = True
            if added:
                self._ordered = tuple(sorted(self._values, key=len, reverse=True))
                self._encoded = tuple(v.encode("utf-8") for v in self._ordered)
        return added

    def forget_all(self) -> None:
        """Only for tests that need a registry with nothing in it."""
        with self._lock:
            self._values.clear()
            self._ordered = ()
            self._encoded = ()

    @property
    def longest(self) -> int:
        ordered = self._ordered
        return len(ordered[0]) if ordered else 0

    def __len__(self) -> int:
        return len(self._ordered)

    def mask(self, text: str) -> str:
        for value in self._ordered:
            if value in text:
                text = text.replace(value, MASK)
        return text

    def mask_bytes(self, data: bytes) -> bytes:
        """``data`` with each secret's bytes replaced by as many ``*``: the length of every
        string stays the same, so a length-prefixed encoding (msgpack) stays valid."""
        for value in self._encoded:
            if value in data:
                data = data.replace(value, b"*" * len(value))
        return data

    def mask_value(self, value: Any) -> Any:
        """A copy of a JSON-like value (dicts, lists, tuples, strings) with every string
        masked; anything else is returned as it is."""
        if not self._ordered:
            return value
        return self._walk(value)

    def _walk(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.mask(value)
        if isinstance(value, dict):
            return {self._walk(k): self._walk(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self._walk(v) for v in value]
        if isinstance(value, tuple) and not hasattr(value, "_fields"):
            return tuple(self._walk(v) for v in value)
        return value


#: The process's one registry.
REGISTRY = SecretRegistry()

#: The environment variable that gives the LLM's API key (instead of the keyring).
LLM_KEY_ENV = "XYCLAW_LLM_API_KEY"
#: Environment variables whose values are secrets wherever XyClaw runs: registered at start,
#: so a job's command, a model or a log line that echoes one is masked.
SECRET_ENV_NAMES = (
    LLM_KEY_ENV,
    "OPENAI_API_KEY",
    "DEEPSEEK_API_KEY",
    "DASHSCOPE_API_KEY",
    "MOONSHOT_API_KEY",
    "HF_TOKEN",
    "HUGGING_FACE_HUB_TOKEN",
    "WANDB_API_KEY",
    "LAMBDA_API_KEY",
    "AUTODL_TOKEN",
    "VAST_API_KEY",
    "RUNPOD_API_KEY",
)


def register_secret(value: str | None) -> bool:
    """Register a secret value with the process's registry (see :class:`SecretRegistry`)."""
    return REGISTRY.register(value)


def mask(text: str) -> str:
    """``text`` with every registered secret replaced by :data:`MASK`."""
    return REGISTRY.mask(text)


def mask_value(value: Any) -> Any:
    """A JSON-like value with every registered secret masked in its strings."""
    return REGISTRY.mask_value(value)


# The layers below (errors, the log) mask with this registry without importing it.
errors.install_masker(mask)
logsetup.install_masker(mask)


def job_secret_name(variable: str) -> str:
    """The keyring entry that holds the value of a job's secret variable (``HF_TOKEN``)."""
    return f"job-env:{variable}"


def register_environment(
    environ: Mapping[str, str], names: Iterable[str] = SECRET_ENV_NAMES
) -> int:
    """Register the values of the environment variables ``names``; how many were new."""
    return sum(register_secret(environ.get(name)) for name in names)


def register_file_values(path: Path) -> int:
    """Register every value of the 0600 secrets file (it can be listed, a keyring cannot);
    a file that cannot be read is left to say so where a secret is first read."""
    try:
        backend = FileSecretBackend(path)
        values = [backend.get(name) for name in backend.names()]
    except SecretError:
        return 0
    return sum(register_secret(v) for v in values)


class StreamMasker:
    """Masks a text that arrives in pieces (a model's streamed answer), where a secret may be
    split across two pieces: it holds back the last ``longest - 1`` characters until the
    next piece (or :meth:`flush`) shows whether they start a secret."""

    def __init__(self, registry: SecretRegistry = REGISTRY) -> None:
        self._registry = registry
        self._pending = ""

    def feed(self, piece: str) -> str:
        keep = self._registry.longest - 1
        text = self._registry.mask(self._pending + piece)
        if keep <= 0 or len(text) <= keep:
            self._pending, out = (text, "") if keep > 0 else ("", text)
            return out
        self._pending = text[-keep:]
        return text[:-keep]

    def flush(self) -> str:
        out, self._pending = self._registry.mask(self._pending), ""
        return out


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
                said("error.secrets.file_open", path=str(self.path)),
                hint=said("error.secrets.chmod_hint", path=str(self.path)),
            )
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise SecretError(
                said("error.secrets.file_unreadable", path=str(self.path)),
                hint=said("error.secrets.file_unreadable_hint"),
            ) from exc
        if not isinstance(data, dict):
            raise SecretError(said("error.secrets.file_not_object", path=str(self.path)))
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
                said("error.secrets.keyring_read"), hint=said("error.secrets.keyring_hint")
            ) from exc
        return value

    def set(self, key: str, value: str) -> None:
        try:
            self._keyring.set_password(SERVICE, key, value)
        except Exception as exc:
            raise SecretError(
                said("error.secrets.keyring_write"), hint=said("error.secrets.keyring_hint")
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
            said("error.secrets.no_keyring"), hint=said("error.secrets.no_keyring_hint")
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
            raise SecretError(said("error.secrets.empty", key=repr(key)))
        register_secret(value)
        self.backend.set(key, value)

    def delete(self, key: str) -> None:
        self.backend.delete(key)
