"""Errors the simulated cloud answers with: an HTTP status, a code and a message."""

from __future__ import annotations

from xyclaw.errors import ProviderError


class CloudApiError(ProviderError):
    """One API error; the HTTP layer turns it into ``{"error": {"code", "message"}}``."""

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        *,
        headers: dict[str, str] | None = None,
        hint: str | None = None,
    ) -> None:
        super().__init__(message, hint=hint)
        self.status = status
        self.code = code
        self.headers = dict(headers or {})

    def body(self) -> dict[str, dict[str, str]]:
        return {"error": {"code": self.code, "message": self.message}}


def bad_request(message: str) -> CloudApiError:
    return CloudApiError(400, "bad_request", message)


def not_found(message: str) -> CloudApiError:
    return CloudApiError(404, "not_found", message)
