"""Calling a provider's HTTP API with retries on 429, 5xx and timeouts.

Only requests that are safe to repeat are retried: reads, deletes, and creates
that carry an idempotency key. Backoff is exponential with full jitter and
honours ``Retry-After``.
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import httpx

from xyclaw.errors import ProviderError
from xyclaw.wording import Said, said

log = logging.getLogger(__name__)

RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})


@dataclass(frozen=True)
class RetryPolicy:
    attempts: int = 6
    base_delay_s: float = 0.25
    max_delay_s: float = 8.0
    deadline_s: float = 60.0


class ApiError(ProviderError):
    """The provider answered with an error that retrying will not fix."""

    def __init__(
        self, message: str | Said, *, status: int, code: str, hint: str | Said | None = None
    ) -> None:
        super().__init__(message, hint=hint)
        self.status = status
        self.code = code


def _retry_after(response: httpx.Response) -> float | None:
    value = response.headers.get("Retry-After")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        return None


def request_with_retries(
    client: httpx.Client,
    method: str,
    url: str,
    *,
    provider: str,
    policy: RetryPolicy,
    sleep: Callable[[float], None] = time.sleep,
    **kwargs: Any,
) -> httpx.Response:
    """Send a request; retry transient failures; translate the rest into ProviderError."""
    started = time.monotonic()
    last_problem: Said | str = ""
    for attempt in range(1, policy.attempts + 1):
        wait: float | None = None
        try:
            response = client.request(method, url, **kwargs)
        except httpx.TimeoutException as exc:
            last_problem = said("provider.problem.timed_out", error=type(exc).__name__)
        except httpx.TransportError as exc:
            last_problem = said(
                "provider.problem.unreachable", error=f"{type(exc).__name__}: {exc}"
            )
        else:
            if response.status_code not in RETRY_STATUSES:
                return response
            last_problem = said("provider.problem.http", status=response.status_code)
            wait = _retry_after(response)
        if attempt == policy.attempts:
            break
        if wait is None:
            ceiling = min(policy.max_delay_s, policy.base_delay_s * 2 ** (attempt - 1))
            wait = random.uniform(0, ceiling)
        if time.monotonic() - started + wait > policy.deadline_s:
            break
        log.info(
            "%s %s %s %s; retry %d in %.2fs", provider, method, url, last_problem, attempt, wait
        )
        sleep(wait)
    raise ProviderError(
        said(
            "provider.retry.gave_up",
            provider=provider,
            problem=last_problem,
            method=method,
            url=url,
            attempts=attempt,
        ),
        hint=said("provider.retry.gave_up_hint"),
    )


def error_from_response(response: httpx.Response, provider: str) -> ApiError:
    try:
        body = response.json()
        error = body.get("error", {}) if isinstance(body, dict) else {}
    except ValueError:
        error = {}
    code = str(error.get("code", "http_error"))
    message = str(error.get("message", response.text[:200] or response.reason_phrase))
    hint = response.status_code in (401, 404, 422)
    return ApiError(
        said("provider.refused", provider=provider, message=message),
        status=response.status_code,
        code=code,
        hint=said(f"provider.hint.http_{response.status_code}") if hint else None,
    )
