"""Asking an OpenAI-compatible endpoint which models it serves: Settings' "Test".

``GET {base_url}/models`` with the key as a bearer token. Every way it can go wrong
becomes one :class:`~xyclaw.errors.AgentError` that says what is wrong in words (nothing
listens on the port, the name does not resolve, the key is refused, the URL is not the
API's, the answer is not a model list) and what to do; the key never appears in one.
"""

from __future__ import annotations

import json
import socket
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlparse

import httpx

from xyclaw.errors import AgentError
from xyclaw.wording import Said, said


class EndpointProblem(AgentError):
    """What is wrong with an endpoint; ``code`` and ``params`` let a GUI say it in the
    user's language (the message is the English wording)."""

    def __init__(self, code: str, message: str | Said, hint: str | Said, **params: Any) -> None:
        super().__init__(message, hint=hint)
        self.code = code
        self.params = params


@dataclass(frozen=True)
class EndpointReport:
    """What the endpoint answered: its models, and whether the chosen one is among them."""

    base_url: str
    models: tuple[str, ...]
    model: str | None
    seconds: float

    @property
    def model_listed(self) -> bool:
        return not self.model or self.model in self.models


def _where(url: str) -> tuple[str, int]:
    parts = urlparse(url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    return parts.hostname or url, port


def list_models(
    base_url: str, api_key: str | None, *, model: str | None = None, timeout_s: float = 10.0
) -> EndpointReport:
    """The ids of the models the endpoint lists; raises AgentError saying what is wrong."""
    base = (base_url or "").strip().rstrip("/")
    if not base:
        raise EndpointProblem(
            "no_url",
            said("error.endpoint.no_url"),
            hint=said("error.endpoint.no_url_hint"),
        )
    parts = urlparse(base)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise EndpointProblem(
            "bad_url",
            said("error.endpoint.bad_url", url=base),
            hint=said("error.endpoint.bad_url_hint"),
            url=base,
        )
    host, port = _where(base)
    url = base + "/models"
    headers = {"Accept": "application/json"}
    if api_key:
        headers["Authorization"] = f"Bearer {api_key}"
    try:
        response = httpx.get(url, headers=headers, timeout=timeout_s, follow_redirects=True)
    except httpx.ConnectError as exc:
        if (
            isinstance(exc.__cause__, socket.gaierror)
            or "Name or service" in str(exc)
            or ("nodename nor servname" in str(exc))
        ):
            raise EndpointProblem(
                "no_name",
                said("error.endpoint.no_name", host=host),
                hint=said("error.endpoint.no_name_hint"),
                host=host,
            ) from exc
        raise EndpointProblem(
            "refused",
            said("error.endpoint.refused", host=host, port=port),
            hint=said("error.endpoint.refused_hint"),
            host=host,
            port=port,
        ) from exc
    except httpx.TimeoutException as exc:
        raise EndpointProblem(
            "timeout",
            said("error.endpoint.timeout", host=host, port=port, seconds=timeout_s),
            hint=said("error.endpoint.timeout_hint"),
            host=host,
            port=port,
            seconds=timeout_s,
        ) from exc
    except httpx.HTTPError as exc:
        raise EndpointProblem(
            "transport",
            said("error.endpoint.transport", host=host, port=port, kind=type(exc).__name__),
            hint=said("error.endpoint.transport_hint"),
            host=host,
            port=port,
        ) from exc
    seconds = response.elapsed.total_seconds() if response.is_closed else 0.0
    status = response.status_code
    if status in (401, 403):
        raise EndpointProblem(
            "bad_key" if api_key else "no_key",
            said(
                "error.endpoint.bad_key" if api_key else "error.endpoint.no_key",
                url=base,
                status=status,
            ),
            hint=said("error.endpoint.bad_key_hint" if api_key else "error.endpoint.no_key_hint"),
            url=base,
            status=status,
        )
    if status == 404:
        raise EndpointProblem(
            "not_found",
            said("error.endpoint.not_found", url=url),
            hint=said("error.endpoint.not_found_hint"),
            url=url,
        )
    if status >= 400:
        words = _server_message(response)
        raise EndpointProblem(
            "http",
            said("error.endpoint.http", url=base, status=status, said=words),
            hint=said("error.endpoint.http_hint"),
            url=base,
            status=status,
            said=words,
        )
    try:
        data = response.json()
    except (json.JSONDecodeError, ValueError) as exc:
        raise EndpointProblem(
            "not_json",
            said("error.endpoint.not_json", url=url),
            hint=said("error.endpoint.not_json_hint"),
            url=url,
        ) from exc
    items = data.get("data") if isinstance(data, dict) else None
    if not isinstance(items, list):
        raise EndpointProblem(
            "no_list",
            said("error.endpoint.no_list", url=url),
            hint=said("error.endpoint.no_list_hint"),
            url=url,
        )
    models = tuple(
        str(m["id"]) for m in items if isinstance(m, dict) and isinstance(m.get("id"), str)
    )
    return EndpointReport(base, models, model or None, seconds)


def _server_message(response: httpx.Response) -> str:
    try:
        data = response.json()
    except ValueError:
        return response.text.strip()[:200] or response.reason_phrase
    if isinstance(data, dict):
        error = data.get("error")
        if isinstance(error, dict) and error.get("message"):
            return str(error["message"])[:200]
        if isinstance(error, str):
            return error[:200]
        if data.get("message"):
            return str(data["message"])[:200]
    return response.reason_phrase
