"""The real GPU clouds (Lambda Cloud, AutoDL, Vast.ai, RunPod): what each needs, and their
registration.

:func:`register_real_providers` adds ``lambda``, ``autodl``, ``vastai`` and ``runpod`` to
a registry. A
provider is built on first use, from the key in the secret store; without one,
using it says how to set it. Nothing here talks to a cloud.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from xyclaw.catalog import normalise_gpu_name, parse_amount
from xyclaw.config import Config
from xyclaw.errors import ConfigError
from xyclaw.paths import AppPaths
from xyclaw.providers.endpoints import (
    AUTODL_API_URL,
    LAMBDA_API_URL,
    RUNPOD_GRAPHQL_URL,
    RUNPOD_REST_URL,
    VASTAI_API_URL,
)
from xyclaw.providers.registry import ProviderRegistry
from xyclaw.secrets import SecretStore
from xyclaw.wording import SaidValueError, said, said_of

if TYPE_CHECKING:  # their HTTP clients (httpx) are imported when a provider is first used
    from xyclaw.providers.autodl import AutoDLProvider, AutoDLSettings
    from xyclaw.providers.http_retry import RetryPolicy
    from xyclaw.providers.lambda_cloud import LambdaProvider
    from xyclaw.providers.runpod import RunPodProvider
    from xyclaw.providers.vastai import VastProvider


@dataclass(frozen=True)
class RealProvider:
    """A real cloud as the `xyclaw providers` command and the docs describe it."""

    name: str
    title: str
    secret: str  # the secret store key holding its credential
    account: str  # the account it needs
    api_url: str
    currency: str


LAMBDA = RealProvider(
    name="lambda",
    title="Lambda Cloud",
    secret="lambda_api_key",
    account="a Lambda Cloud account (individual or team) with a payment method; "
    "an API key from https://cloud.lambdalabs.com/api-keys",
    api_url=LAMBDA_API_URL,
    currency="USD",
)
AUTODL = RealProvider(
    name="autodl",
    title="AutoDL",
    secret="autodl_token",
    account="an enterprise-verified AutoDL account (企业认证: the elastic deployment API is "
    "closed to personal accounts); the developer token from 控制台 -> 设置 -> 开发者Token",
    api_url=AUTODL_API_URL,
    currency="CNY",
)
VASTAI = RealProvider(
    name="vastai",
    title="Vast.ai",
    secret="vastai_api_key",
    account="a Vast.ai account with credit; an API key from https://cloud.vast.ai/manage-keys/",
    api_url=VASTAI_API_URL,
    currency="USD",
)
RUNPOD = RealProvider(
    name="runpod",
    title="RunPod",
    secret="runpod_api_key",
    account="a RunPod account with credit; an API key (read/write) from "
    "https://www.runpod.io/console/user/settings",
    api_url=RUNPOD_REST_URL,
    currency="USD",
)
REAL_PROVIDERS = (LAMBDA, AUTODL, VASTAI, RUNPOD)
LAMBDA_URL_ENV = "XYCLAW_LAMBDA_API_URL"
AUTODL_URL_ENV = "XYCLAW_AUTODL_API_URL"
VASTAI_URL_ENV = "XYCLAW_VASTAI_API_URL"
RUNPOD_URL_ENV = "XYCLAW_RUNPOD_API_URL"  # REST base; GraphQL at XYCLAW_RUNPOD_GRAPHQL_URL
RUNPOD_GRAPHQL_ENV = "XYCLAW_RUNPOD_GRAPHQL_URL"


def not_configured(provider: RealProvider) -> ConfigError:
    return ConfigError(
        said("provider.real.not_configured", title=provider.title, secret=provider.secret),
        hint=said(
            "provider.real.not_configured_hint",
            secret=provider.secret,
            account=said(f"cli.account_{provider.name}"),  # as `xyclaw providers` says it
        ),
    )


def register_real_providers(
    registry: ProviderRegistry,
    *,
    secrets: SecretStore,
    paths: AppPaths,
    config: Config,
    lambda_url: str | None = None,
    autodl_url: str | None = None,
    retry: RetryPolicy | None = None,
    timeout_s: float = 30.0,
) -> None:
    """Register ``lambda`` and ``autodl``; each is built when first used.

    ``config`` is taken for the settings a ``[providers]`` section will hold; the AutoDL
    deployment settings are read from ``autodl.toml`` in the config folder for now.
    The API addresses default to the clouds' own, or ``XYCLAW_LAMBDA_API_URL`` /
    ``XYCLAW_AUTODL_API_URL`` (a proxy, a mirror, a local fake); ``retry`` and
    ``timeout_s`` are for quick checks (``xyclaw providers``) and tests.
    """
    del config  # no provider settings in config.toml yet
    lambda_url = lambda_url or os.environ.get(LAMBDA_URL_ENV) or LAMBDA_API_URL
    autodl_url = autodl_url or os.environ.get(AUTODL_URL_ENV) or AUTODL_API_URL

    def build_lambda() -> LambdaProvider:
        from xyclaw.providers.lambda_cloud import LambdaProvider

        key = secrets.get(LAMBDA.secret)
        if not key:
            raise not_configured(LAMBDA)
        return LambdaProvider(
            key,
            base_url=lambda_url,
            state_file=paths.state_dir / "lambda-instances.json",
            retry=retry,
            timeout_s=timeout_s,
        )

    def build_autodl() -> AutoDLProvider:
        from xyclaw.providers.autodl import AutoDLProvider

        token = secrets.get(AUTODL.secret)
        if not token:
            raise not_configured(AUTODL)
        return AutoDLProvider(
            token,
            base_url=autodl_url,
            settings=load_autodl_settings(paths.config_dir / "autodl.toml"),
            state_file=paths.state_dir / "autodl-deployments.json",
            retry=retry,
            timeout_s=timeout_s,
        )

    def build_vastai() -> VastProvider:
        from xyclaw.providers.vastai import VastProvider

        key = secrets.get(VASTAI.secret)
        if not key:
            raise not_configured(VASTAI)
        return VastProvider(
            key,
            base_url=os.environ.get(VASTAI_URL_ENV) or VASTAI_API_URL,
            state_file=paths.state_dir / "vastai-instances.json",
            retry=retry,
            timeout_s=timeout_s,
        )

    def build_runpod() -> RunPodProvider:
        from xyclaw.providers.runpod import RunPodProvider

        key = secrets.get(RUNPOD.secret)
        if not key:
            raise not_configured(RUNPOD)
        return RunPodProvider(
            key,
            rest_url=os.environ.get(RUNPOD_URL_ENV) or RUNPOD_REST_URL,
            graphql_url=os.environ.get(RUNPOD_GRAPHQL_ENV) or RUNPOD_GRAPHQL_URL,
            state_file=paths.state_dir / "runpod-pods.json",
            retry=retry,
            timeout_s=timeout_s,
        )

    registry.register(LAMBDA.name, build_lambda)
    registry.register(AUTODL.name, build_autodl)
    registry.register(VASTAI.name, build_vastai)
    registry.register(RUNPOD.name, build_runpod)


def load_autodl_settings(path: Path) -> AutoDLSettings:
    """``autodl.toml`` (optional): regions, image, CUDA range and price ceilings.

    ```toml
    regions = ["westDC2", "beijingDC1"]
    image_uuid = "image-db8346e037"   # one of yours, or a base-image-... id
    cuda_v_from = 118                 # 11.8
    cuda_v_to = 128
    [price_ceilings]                  # CNY per GPU-hour; no container dearer is rented
    "RTX 4090" = 2.4
    ```
    """
    from xyclaw.providers.autodl import PRICE_CEILINGS, REGIONS, AutoDLSettings

    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return AutoDLSettings()
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(
            said("provider.real.unreadable_file", path=str(path), error=str(exc)),
            hint=said("provider.real.unreadable_file_hint"),
        ) from exc
    defaults = AutoDLSettings()
    try:
        regions = tuple(str(r) for r in data.get("regions", defaults.regions))
        unknown = [r for r in regions if r not in REGIONS]
        if unknown:
            raise SaidValueError(
                said(
                    "provider.autodl.unknown_regions",
                    unknown=", ".join(unknown),
                    known=", ".join(REGIONS),
                )
            )
        ceilings = dict(PRICE_CEILINGS)
        configured = set()
        for gpu_text, amount in dict(data.get("price_ceilings", {})).items():
            gpu = normalise_gpu_name(str(gpu_text))
            ceilings[gpu] = parse_amount(str(amount))
            configured.add(gpu)
        cuda_from = int(data.get("cuda_v_from", defaults.cuda_v_from))
        cuda_to = int(data.get("cuda_v_to", defaults.cuda_v_to))
        if cuda_from > cuda_to:
            raise SaidValueError(said("provider.autodl.cuda_order"))
        return AutoDLSettings(
            regions=regions,
            image_uuid=str(data.get("image_uuid", defaults.image_uuid)),
            cuda_v_from=cuda_from,
            cuda_v_to=cuda_to,
            price_ceilings=ceilings,
            configured=frozenset(configured),
        )
    except (TypeError, ValueError) as exc:
        raise ConfigError(
            said("provider.real.bad_file", path=str(path), error=said_of(exc)),
            hint=said("provider.real.bad_file_hint"),
        ) from exc


__all__ = [
    "AUTODL",
    "LAMBDA",
    "REAL_PROVIDERS",
    "RUNPOD",
    "VASTAI",
    "RealProvider",
    "load_autodl_settings",
    "not_configured",
    "register_real_providers",
]
