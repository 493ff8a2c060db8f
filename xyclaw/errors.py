"""The one error tree of XyClaw.

Every error a user can see derives from :class:`XyclawError`. Third-party
exceptions are translated where they enter (``raise ... from exc``) so the
message says what went wrong *and what to do*. Messages never carry secrets.
"""

from __future__ import annotations

from collections.abc import Callable

from xyclaw.wording import Said

#: Masks every registered secret in a text. :mod:`xyclaw.secrets` (a layer above) installs its
#: registry's mask when it is imported, which it is before any secret can be registered.
_mask: Callable[[str], str] = str


def install_masker(masker: Callable[[str], str]) -> None:
    """Called by :mod:`xyclaw.secrets`: every error's message and hint are masked with it."""
    global _mask
    _mask = masker


class XyclawError(Exception):
    """Base of every XyClaw error; ``hint`` says what the user can do about it.

    Message and hint may be given as :class:`~xyclaw.wording.Said` so a Chinese window words
    them in Chinese (:meth:`in_language`); ``message`` and ``hint`` are always the English text.
    """

    exit_code = 1

    def __init__(self, message: str | Said, *, hint: str | Said | None = None) -> None:
        self.said = message if isinstance(message, Said) else None
        self.hint_said = hint if isinstance(hint, Said) else None
        # A third party's text (an endpoint's error quoting the key) may carry a secret.
        self.message = _mask(str(message))
        self.hint = None if hint is None else _mask(str(hint))
        super().__init__(self.message)

    def in_language(self, language: str) -> tuple[str, str | None]:
        """(message, hint) in ``language``: the Said forms where given, else the English."""
        message = _mask(self.said.in_language(language)) if self.said else self.message
        hint = _mask(self.hint_said.in_language(language)) if self.hint_said else self.hint
        return message, hint

    def __str__(self) -> str:
        if self.hint:
            return f"{self.message}\n  -> {self.hint}"
        return self.message


class UsageError(XyclawError):
    """Bad input on the command line or in a request: which input, what was expected."""

    exit_code = 2


class ConfigError(XyclawError):
    """The configuration file or an environment override is invalid."""

    exit_code = 2


class SecretError(XyclawError):
    """A secret could not be stored or read."""


class StoreError(XyclawError):
    """The local database could not be opened, migrated or written."""


class StoreVersionError(StoreError):
    """The database was written by a newer XyClaw; it is left untouched."""


class StoreCorruptError(StoreError):
    """The database file is damaged; it is kept as it is for the user to inspect."""


class OperationCancelled(XyclawError):
    """A long operation was cancelled by the user."""


class CatalogError(XyclawError):
    """A catalog data file (GPU models, offers) is malformed."""


class PlanningError(XyclawError):
    """A plan request cannot be answered as asked."""


class RemoteError(XyclawError):
    """Something failed on the way to, or on, a remote host."""

    def __init__(
        self, message: str | Said, *, host: str | None = None, hint: str | Said | None = None
    ) -> None:
        super().__init__(message, hint=hint)
        self.host = host


class ConnectError(RemoteError):
    """A host could not be reached or did not answer the SSH handshake."""


class AuthenticationError(RemoteError):
    """The host refused every credential we offered."""


class HostKeyError(RemoteError):
    """A host key is unknown (and not trusted) or has changed."""


class HostKeyChangedError(HostKeyError):
    """The host presented a key that differs from the one on record."""


class UnknownHostKeyError(HostKeyError):
    """The host is not yet known and no trust-on-first-use decision accepted it."""


class RemoteTimeoutError(RemoteError):
    """A remote command or connection took longer than its timeout."""


class RemoteCommandError(RemoteError):
    """A remote command exited non-zero where success was required."""


class ParseError(XyclawError):
    """Command output (nvidia-smi, nccl-tests, ibstat, ...) could not be read."""


class ProviderError(XyclawError):
    """A provider (cloud API, own hosts, this machine) failed."""


class CapacityError(ProviderError):
    """The provider has no capacity for the request in that region."""


class ProviderStateUnknownError(ProviderError):
    """A provider's listing answered in a way XyClaw cannot trust (a deprecated endpoint,
    ``success: false``, a changed shape, a missing page): its instances' state is unknown.

    Never read as "the instance is gone": a cluster stays live (and metered) until the
    provider says otherwise in an answer XyClaw can read (Vast.ai's v0 listing, SkyPilot
    #10517: clusters became invisible while they went on billing).
    """


class BudgetExceededError(XyclawError):
    """An action would break a budget the user set."""


class JobError(XyclawError):
    """A job could not be launched, watched or cancelled."""


class AgentError(XyclawError):
    """The agent runtime or its model failed."""
