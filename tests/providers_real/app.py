"""The app as its own process, renting from a fake cloud, for the kill -9 tests and the
in-process lifecycle tests alike.

    python -m tests.providers_real.app lambda URL SSH_PORT up
    python -m tests.providers_real.app autodl URL 0 down CLUSTER

It uses the real engine with the real adapter pointed at the fake; XYCLAW_HOME says
where its store, key and state live, so a second process sees what the first left.
"""

from __future__ import annotations

import sys
from pathlib import Path

from xyclaw.config import load_config
from xyclaw.engine import Engine
from xyclaw.engine.compose import build_engine
from xyclaw.engine.lifecycle import Timeouts, UpRequest
from xyclaw.paths import AppPaths
from xyclaw.providers import Provider, ProviderRegistry
from xyclaw.providers.autodl import AutoDLProvider, AutoDLSettings
from xyclaw.providers.http_retry import RetryPolicy
from xyclaw.providers.lambda_cloud import LambdaProvider
from xyclaw.providers.runpod import RunPodProvider
from xyclaw.providers.vastai import VastProvider

LAMBDA_KEY = "secret-lambda-key"
AUTODL_TOKEN = "secret-autodl-token"
VAST_KEY = "vast-test-key"  # tests.providers_real.fake_vast.KEY
RUNPOD_KEY = "runpod-test-key"  # tests.providers_real.fake_runpod.KEY
RETRY = RetryPolicy(attempts=6, base_delay_s=0.01, max_delay_s=0.05, deadline_s=20)
TIMEOUTS = Timeouts(provision_s=30, ssh_s=20, release_s=20, poll_s=0.05)

REQUESTS = {
    "lambda": UpRequest(provider="lambda", gpu="H100", gpu_count=8, gpus_per_node=8,
                        region="us-east-1", fabric="none"),
    "autodl": UpRequest(provider="autodl", gpu="RTX4090", gpu_count=2, gpus_per_node=2,
                        region="westDC2", fabric="none"),
    "vastai": UpRequest(provider="vastai", gpu="H100", gpu_count=1, gpus_per_node=1,
                        region="US", fabric="none"),
    "runpod": UpRequest(provider="runpod", gpu="RTX4090", gpu_count=1, gpus_per_node=1,
                        region="community", fabric="none"),
    # two pods of 8 x H100: a RunPod Instant Cluster
    "runpod-cluster": UpRequest(provider="runpod", gpu="H100", gpu_count=16, gpus_per_node=8,
                                region="EU-RO-1", fabric="eth-100"),
}  # fmt: skip


def provider(kind: str, url: str, ssh_port: int, state_dir: Path) -> Provider:
    if kind == "lambda":
        return LambdaProvider(
            LAMBDA_KEY,
            base_url=f"{url}/api/v1",
            state_file=state_dir / "lambda-instances.json",
            retry=RETRY,
            launch_interval_s=0.0,
            ssh_port=ssh_port,
            timeout_s=10,
        )
    if kind == "vastai":
        return VastProvider(
            VAST_KEY,
            base_url=url,
            state_file=state_dir / "vastai-instances.json",
            retry=RETRY,
            timeout_s=10,
        )
    if kind in ("runpod", "runpod-cluster"):
        return RunPodProvider(
            RUNPOD_KEY, rest_url=f"{url}/v1", graphql_url=f"{url}/graphql", retry=RETRY,
            timeout_s=10, state_file=state_dir / "runpod-pods.json",
        )  # fmt: skip
    return AutoDLProvider(
        AUTODL_TOKEN,
        base_url=url,
        settings=AutoDLSettings(regions=("westDC2", "beijingDC1")),
        state_file=state_dir / "autodl-deployments.json",
        retry=RETRY,
        timeout_s=10,
    )


def engine(kind: str, url: str, ssh_port: int, **extra: object) -> Engine:
    paths = AppPaths.from_environment()
    registry = ProviderRegistry()
    registry.add(provider(kind, url, ssh_port, paths.ensure().state_dir))
    return build_engine(
        paths,
        load_config(paths.config_file),
        providers=registry,
        trust_new_host=lambda *_: True,  # the fakes' nodes give no host keys, like the clouds
        timeouts=TIMEOUTS,
        **extra,  # type: ignore[arg-type]
    )


def main(argv: list[str]) -> int:
    kind, url, port, action, *rest = argv
    app = engine(kind, url, int(port))
    try:
        if action == "up":
            cluster = app.up(app.quote_request(REQUESTS[kind])).result(120)
            print(cluster.name, flush=True)
        elif action == "down":
            print(app.down(rest[0]).result(120).state, flush=True)
        elif action == "reconcile":
            print(app.reconcile(), flush=True)
        else:
            raise SystemExit(f"unknown action {action}")
    finally:
        app.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
