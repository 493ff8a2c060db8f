"""Logging in: key files, handed-over keys, the SSH agent, then a stored password.

The password comes from the caller's lookup (the keyring, in the app) at the
moment it is needed and goes nowhere else: not into messages, not into logs.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from pathlib import Path

import paramiko

from xyclaw.errors import AuthenticationError
from xyclaw.remote.errors import transport_errors
from xyclaw.remote.hostspec import HostSpec
from xyclaw.wording import said

log = logging.getLogger(__name__)

PasswordLookup = Callable[[str], "str | None"]
"""``password_lookup(host_alias) -> password or None``."""

AnswerPrompts = Callable[[str, str, str, "list[tuple[str, bool]]"], "list[str] | None"]
"""``answer_prompts(host, title, instructions, [(prompt, echo), ...]) -> answers or None``:
a keyboard-interactive login's questions (a 2FA code, an OTP) put to the user through the
face's own prompt (the same path as an unknown host key); None: the user declined. The
answers go to the server and nowhere else: not kept, not logged, not in any message."""

DEFAULT_IDENTITY_NAMES = ("id_ed25519", "id_ecdsa", "id_rsa")
#: How long a keyboard-interactive login waits for the user's answers (sshd's own
#: LoginGraceTime, 120 s by default, may end it sooner).
PROMPT_TIMEOUT_S = 300.0


def default_identity_files() -> tuple[Path, ...]:
    """OpenSSH's default key files in ``~/.ssh``."""
    ssh_dir = Path(os.path.expanduser("~")) / ".ssh"
    return tuple(ssh_dir / name for name in DEFAULT_IDENTITY_NAMES)


class Authenticator:
    """Tries each credential in OpenSSH's order until the server lets us in."""

    def __init__(
        self,
        *,
        password_lookup: PasswordLookup | None = None,
        client_keys: Sequence[paramiko.PKey] = (),
        use_agent: bool = True,
        default_identities: Sequence[Path] | None = None,
        answer_prompts: AnswerPrompts | None = None,
    ) -> None:
        self._password_lookup = password_lookup
        self._answer_prompts = answer_prompts
        self._client_keys = tuple(client_keys)
        self._use_agent = use_agent
        self._defaults = (
            tuple(default_identities)
            if default_identities is not None
            else default_identity_files()
        )
        self._key_cache: dict[Path, tuple[tuple[int, int], paramiko.PKey]] = {}
        self._cache_lock = threading.Lock()

    def authenticate(self, transport: paramiko.Transport, spec: HostSpec) -> None:
        tried = _Tried()
        notes: list[str] = []
        if self._first_factor(transport, spec, tried, notes):
            return
        if tried.partial:
            # A key was accepted and the server asks for a second factor (2FA: sshd's
            # AuthenticationMethods publickey,keyboard-interactive): only the user answers it.
            if self._try_prompts(transport, spec, tried):
                return
        elif self._try_password(transport, spec, tried) or self._try_prompts(
            transport, spec, tried
        ):
            return
        if not tried:
            tried.append("nothing (no key file, agent key or stored password was found)")
        raise AuthenticationError(
            said(
                "error.ssh.refused_credentials",
                host=spec.describe(),
                user=repr(spec.user),
                tried="; ".join(tried + notes),
            ),
            host=spec.alias,
            hint=said("error.ssh.refused_credentials_hint"),
        )

    def _first_factor(
        self, transport: paramiko.Transport, spec: HostSpec, tried: _Tried, notes: list[str]
    ) -> bool:
        """Key files, handed-over keys, the agent: True once logged in; stops early when a
        key was accepted as the first of two factors (``tried.partial``)."""
        files = spec.identity_files or (() if spec.identities_only else self._defaults)
        for path in files:
            key = self._load_key(path, notes)
            if key is not None and self._try_key(transport, spec, key, f"key {path}", tried):
                return True
            if tried.partial:
                return False
        for key in self._client_keys:
            if self._try_key(transport, spec, key, f"{key.get_name()} key", tried):
                return True
            if tried.partial:
                return False
        if self._use_agent and not spec.identities_only:
            return self._try_agent(transport, spec, tried)
        return False

    def _load_key(self, path: Path, notes: list[str]) -> paramiko.PKey | None:
        try:
            st = path.stat()
        except FileNotFoundError:
            return None
        except OSError as exc:
            notes.append(f"key {path} unreadable ({exc.strerror})")
            return None
        stamp = (st.st_mtime_ns, st.st_size)
        with self._cache_lock:
            cached = self._key_cache.get(path)
        if cached is not None and cached[0] == stamp:
            return cached[1]
        try:
            key = paramiko.PKey.from_path(path)
        except paramiko.PasswordRequiredException:
            notes.append(f"key {path} is passphrase-protected (add it to ssh-agent)")
            return None
        except (paramiko.SSHException, ValueError, OSError) as exc:
            notes.append(f"key {path} could not be read ({type(exc).__name__})")
            return None
        with self._cache_lock:
            self._key_cache[path] = (stamp, key)
        return key

    def _try_key(
        self,
        transport: paramiko.Transport,
        spec: HostSpec,
        key: paramiko.PKey,
        label: str,
        tried: _Tried,
    ) -> bool:
        with _login_errors(spec):
            try:
                remaining = transport.auth_publickey(spec.user, key)
            except paramiko.BadAuthenticationType as exc:
                tried.append(f"{label} (server takes only {', '.join(exc.allowed_types)})")
                return False
            except paramiko.AuthenticationException:
                tried.append(f"{label} (refused)")
                return False
        if not transport.is_authenticated() and remaining:
            tried.append(f"{label} (accepted; the server asks for {', '.join(remaining)} too)")
            tried.partial = True
        return bool(transport.is_authenticated())

    def _try_agent(self, transport: paramiko.Transport, spec: HostSpec, tried: _Tried) -> bool:
        if not os.environ.get("SSH_AUTH_SOCK"):
            return False
        try:
            agent = paramiko.Agent()
        except paramiko.SSHException as exc:
            log.debug("ssh agent unavailable: %s", exc)
            return False
        try:
            keys = agent.get_keys()
            for key in keys:
                if self._try_key(transport, spec, key, f"agent {key.get_name()} key", tried):
                    return True
                if tried.partial:
                    return False
        finally:
            agent.close()
        return False

    def _try_password(
        self, transport: paramiko.Transport, spec: HostSpec, tried: list[str]
    ) -> bool:
        if self._password_lookup is None:
            return False
        password = self._password_lookup(spec.alias)
        if password is None:
            return False
        with _login_errors(spec):
            try:
                transport.auth_password(spec.user, password)
            except paramiko.BadAuthenticationType as exc:
                if "keyboard-interactive" not in exc.allowed_types:
                    takes = ", ".join(exc.allowed_types)
                    tried.append(f"stored password (server takes only {takes})")
                    return False
                return self._try_interactive(transport, spec, password, tried)
            except paramiko.AuthenticationException:
                tried.append("stored password (refused)")
                return False
        return bool(transport.is_authenticated())

    def _try_interactive(
        self, transport: paramiko.Transport, spec: HostSpec, password: str, tried: list[str]
    ) -> bool:
        def answer(title: str, instructions: str, prompts: list[tuple[str, bool]]) -> list[str]:
            return [password for _prompt, _echo in prompts]

        with _login_errors(spec):
            try:
                transport.auth_interactive(spec.user, answer)
            except paramiko.AuthenticationException:
                tried.append("stored password, keyboard-interactive (refused)")
                return False
        return bool(transport.is_authenticated())

    def _try_prompts(self, transport: paramiko.Transport, spec: HostSpec, tried: list[str]) -> bool:
        """Keyboard-interactive with the user answering (a one-time code, 2FA): each round of
        the server's questions goes to ``answer_prompts``; nothing of the answers is kept."""
        if self._answer_prompts is None:
            return False
        ask = self._answer_prompts
        rounds: list[str] = []  # "answered" / "declined", never the answers

        def answer(title: str, instructions: str, prompts: list[tuple[str, bool]]) -> list[str]:
            if not prompts:  # the server's closing round (OpenSSH's PAM sends an empty one)
                return []
            if rounds and rounds[-1] == "declined":
                return ["" for _ in prompts]
            given = ask(spec.describe(), title, instructions, list(prompts))
            if given is None or len(given) != len(prompts):
                rounds.append("declined")
                return ["" for _ in prompts]
            rounds.append("answered")
            return list(given)

        # the connect timeout bounds a machine's answer, not a person reading a code
        transport.auth_timeout = max(transport.auth_timeout or 0.0, PROMPT_TIMEOUT_S)
        with _login_errors(spec):
            try:
                transport.auth_interactive(spec.user, answer)
            except paramiko.BadAuthenticationType as exc:
                takes = ", ".join(exc.allowed_types)
                tried.append(f"keyboard-interactive (server takes only {takes})")
                return False
            except paramiko.AuthenticationException:
                if "declined" in rounds:
                    tried.append("keyboard-interactive (the login's questions were not answered)")
                else:
                    tried.append("keyboard-interactive (the answers were refused)")
                return False
        return bool(transport.is_authenticated())


class _Tried(list[str]):
    """What one login tried (for the refusal's message), and whether a key was accepted as
    the first of two factors (the server then asks for keyboard-interactive too)."""

    partial: bool = False


def _login_errors(spec: HostSpec) -> AbstractContextManager[None]:
    """A connection lost while logging in, as a ConnectError (or a timeout)."""
    return transport_errors(
        f"{spec.describe()} dropped the connection while we logged in",
        host=spec.alias,
        hint="the server may limit login attempts (MaxAuthTries): name the right "
        "IdentityFile and set IdentitiesOnly yes for this host",
    )
