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


class EndpointProblem(AgentError):
    """What is wrong with an endpoint; ``code`` and ``params`` let a GUI say it in the
    user's language (the message is the English wording)."""

    def __init__(self, code: str, message: str, hint: str, **params: Any) -> None:
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
            "no base URL is set for this endpoint",
            hint="enter the API's address, e.g. http://127.0.0.1:8000/v1",
        )
    parts = urlparse(base)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise EndpointProblem(
            "bad_url",
            f"{base} is not a web address",
            hint="it starts with http:// or https://, e.g. https://api.deepseek.com",
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
                f"the name {host} does not resolve",
                hint="check the spelling of the base URL, and that this computer is online",
                host=host,
            ) from exc
        raise EndpointProblem(
            "refused",
            f"nothing answers at {host}:{port} (the connection was refused)",
            hint="start the model server, or correct the port in the base URL",
            host=host,
            port=port,
        ) from exc
    except httpx.TimeoutException as exc:
        raise EndpointProblem(
            "timeout",
            f"{host}:{port} gave no answer within {timeout_s:g} s",
            hint="check that the server is up and reachable (a proxy or firewall may hold it)",
            host=host,
            port=port,
            seconds=timeout_s,
        ) from exc
    except httpx.HTTPError as exc:
        raise EndpointProblem(
            "transport",
            f"talking to {host}:{port} failed: {type(exc).__name__}",
            hint="check the base URL; http and https are not interchangeable",
            host=host,
            port=port,
        ) from exc
    seconds = response.elapsed.total_seconds() if response.is_closed else 0.0
    status = response.status_code
    if status in (401, 403):
        raise EndpointProblem(
            "bad_key" if api_key else "no_key",
            f"{base} refused the API key (HTTP {status})"
            if api_key
            else f"{base} wants an API key (HTTP {status})",
            hint="paste the key the service gave you and press Test again"
            if not api_key
            else "check the key: a copied space or an expired key is the usual cause",
            url=base,
            status=status,
        )
    if status == 404:
        raise EndpointProblem(
            "not_found",
            f"{url} does not exist (HTTP 404): this is not the API's base URL",
            hint="OpenAI-compatible APIs usually end in /v1, e.g. http://127.0.0.1:8000/v1",
            url=url,
        )
    if status >= 400:
        said = _server_message(response)
        raise EndpointProblem(
            "http",
            f"{base} answered HTTP {status}: {said}",
            hint="the server's own words are above; try again later or check the service",
            url=base,
            status=status,
            said=said,
        )
    try:
        data = response.json()
    except (json.JSONDecodeError, ValueError) as exc:
        raise EndpointProblem(
            "not_json",
            f"{url} answered, but not with JSON: it is not an OpenAI-compatible API",
            hint="check the base URL (a web page answered instead of the API)",
            url=url,
        ) from exc
    items = data.get("data") if isinstance(data, dict) else None
    if not isinstance(items, list):
        raise EndpointProblem(
            "no_list",
            f"{url} answered without a model list: it is not an OpenAI-compatible API",
            hint="check the base URL; it should be the API's, ending in /v1 for most servers",
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
