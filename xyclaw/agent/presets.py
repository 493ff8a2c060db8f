"""Model presets: where each OpenAI-compatible service lives, its default model and price.

Prices are per million tokens in the preset's currency, as the services listed them when
this table was written; ``[llm] price_in_per_million`` / ``price_out_per_million``
override them. The API key comes from the keyring (``xyclaw model-key``), never the config.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from urllib.parse import urlparse

from xyclaw.agent.brain import Price
from xyclaw.config import LlmSettings
from xyclaw.errors import ConfigError
from xyclaw.secrets import LLM_KEY_ENV, SecretStore, register_secret

KEY_ENV = LLM_KEY_ENV
#: The key sent to a server that needs none (a local Ollama or vLLM): not a secret.
NO_KEY = "not-needed"


@dataclass(frozen=True)
class Preset:
    name: str
    label: str
    base_url: str
    model: str
    price_in: float  # per million input tokens
    price_out: float  # per million output tokens
    currency: str
    needs_key: bool = True


PRESETS: dict[str, Preset] = {
    p.name: p
    for p in (
        Preset("openai", "OpenAI", "https://api.openai.com/v1", "gpt-4o-mini", 0.15, 0.60, "USD"),
        Preset("deepseek", "DeepSeek", "https://api.deepseek.com", "deepseek-chat", 2, 8, "CNY"),
        Preset(
            "qwen",
            "Qwen (DashScope compatible mode)",
            "https://dashscope.aliyuncs.com/compatible-mode/v1",
            "qwen-plus",
            0.8,
            2,
            "CNY",
        ),
        Preset(
            "moonshot",
            "Moonshot (Kimi)",
            "https://api.moonshot.cn/v1",
            "kimi-k2-0905-preview",
            4,
            16,
            "CNY",
        ),
        Preset(
            "zhipu",
            "Zhipu (GLM)",
            "https://open.bigmodel.cn/api/paas/v4",
            "glm-4-plus",
            5,
            5,
            "CNY",
        ),
        Preset(
            "siliconflow",
            "SiliconFlow",
            "https://api.siliconflow.cn/v1",
            "deepseek-ai/DeepSeek-V3",
            2,
            8,
            "CNY",
        ),
        Preset(
            "ollama",
            "Ollama (local)",
            "http://127.0.0.1:11434/v1",
            "qwen2.5:7b",
            0,
            0,
            "USD",
            needs_key=False,
        ),
        Preset(
            "vllm",
            "vLLM (OpenAI-compatible server)",
            "http://127.0.0.1:8000/v1",
            "",
            0,
            0,
            "USD",
            needs_key=False,
        ),
        Preset(
            "lmstudio",
            "LM Studio (local)",
            "http://127.0.0.1:1234/v1",
            "",
            0,
            0,
            "USD",
            needs_key=False,
        ),
        Preset("custom", "Custom OpenAI-compatible endpoint", "", "", 0, 0, "USD", needs_key=False),
    )
}


def key_secret_name(preset: str) -> str:
    """The keyring entry that holds a preset's API key."""
    return f"llm-api-key:{preset}"


@dataclass(frozen=True)
class Endpoint:
    """Everything the LLM brain needs, resolved from the config, the preset and the keyring."""

    preset: str
    base_url: str
    model: str
    api_key: str
    timeout_s: float
    max_retries: int
    price: Price
    max_tokens: int = 4096

    @property
    def display_name(self) -> str:
        host = urlparse(self.base_url).netloc or self.base_url
        return f"{self.model} @ {host}"


def _micros(value: float) -> int:
    return round(value * 1_000_000)


def resolve_endpoint(settings: LlmSettings, secrets: SecretStore | None) -> Endpoint:
    """The endpoint for ``[llm]``; raises :class:`ConfigError` saying what is missing."""
    preset = PRESETS.get(settings.preset)
    if preset is None:
        raise ConfigError(
            f"llm.preset = {settings.preset!r} is not an LLM preset",
            hint="one of " + ", ".join(PRESETS),
        )
    base_url = (settings.base_url or preset.base_url).rstrip("/")
    model = settings.model or preset.model
    if not base_url:
        raise ConfigError(
            f"the {preset.label} preset needs a base URL",
            hint="set [llm] base_url, e.g. http://127.0.0.1:8000/v1",
        )
    if not model:
        raise ConfigError(
            f"the {preset.label} preset needs a model name",
            hint="set [llm] model to the name the server serves (GET /v1/models lists them)",
        )
    key = os.environ.get(KEY_ENV, "").strip()
    if not key and secrets is not None:
        key = (secrets.get(key_secret_name(preset.name)) or "").strip()
    # Before the first request: an endpoint's error text, or a model, may echo the key.
    register_secret(key)
    if not key and preset.needs_key:
        raise ConfigError(
            f"no API key for {preset.label}",
            hint=f"store one with `xyclaw model-key {preset.name}` (kept in the keyring)",
        )
    price_in = settings.price_in_per_million
    price_out = settings.price_out_per_million
    price = Price(
        in_per_million_micros=_micros(preset.price_in if price_in < 0 else price_in),
        out_per_million_micros=_micros(preset.price_out if price_out < 0 else price_out),
        currency=(settings.price_currency or preset.currency).upper(),
    )
    return Endpoint(
        preset=preset.name,
        base_url=base_url,
        model=model,
        api_key=key or NO_KEY,
        timeout_s=settings.timeout_s,
        max_retries=settings.max_retries,
        price=price,
        max_tokens=settings.max_tokens,
    )
