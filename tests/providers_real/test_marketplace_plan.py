"""Live marketplace offers in the planner: the host's facts and the community mark are
reasons of the option, in English and Chinese; hosts without SSH never reach the plan."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.providers_real.conftest import FAST
from tests.providers_real.fake_runpod import KEY as RUNPOD_KEY
from tests.providers_real.fake_runpod import FakeRunPod
from tests.providers_real.fake_vast import KEY as VAST_KEY
from tests.providers_real.fake_vast import FakeVast
from tests.providers_real.fakehttp import FakeServer
from xyclaw.config import load_config
from xyclaw.engine import Engine
from xyclaw.engine.compose import build_engine
from xyclaw.paths import AppPaths
from xyclaw.planner import PlanRequest
from xyclaw.providers import ProviderRegistry
from xyclaw.providers.runpod import RunPodProvider
from xyclaw.providers.vastai import VastProvider
from xyclaw.wording import reason_in


@pytest.fixture
def engine() -> Iterator[Engine]:
    vast, runpod = FakeVast(), FakeRunPod()
    servers = [FakeServer(vast).start(), FakeServer(runpod).start()]
    registry = ProviderRegistry()
    registry.add(VastProvider(VAST_KEY, base_url=servers[0].url, retry=FAST, timeout_s=5))
    registry.add(
        RunPodProvider(
            RUNPOD_KEY,
            rest_url=f"{servers[1].url}/v1",
            graphql_url=f"{servers[1].url}/graphql",
            retry=FAST,
            timeout_s=5,
        )
    )
    paths = AppPaths.from_environment()
    eng = build_engine(paths, load_config(paths.config_file), providers=registry)
    yield eng
    eng.close()
    for server in servers:
        server.stop()


def test_the_plan_says_which_host_each_option_rents_and_marks_community_hosts(
    engine: Engine,
) -> None:
    request = PlanRequest.parse(
        task="finetune-lora", model_size="7B", gpus="1", gpu="RTX4090", currency="USD"
    )
    outcome = engine.plan(request, providers=["vastai", "runpod"])
    assert outcome.offers_source == "live"
    options = list(outcome.result.options)
    by_offer = {(o.provider, o.offer_id): o for o in options}
    assert ("vastai", "104") not in by_offer  # no direct SSH port: filtered out, with a reason
    notes = [str(n) for n in outcome.notes]
    assert "vastai left out 1 offer(s): no direct port: XyClaw cannot reach SSH on it" in notes
    assert "runpod left out 2 offer(s): out of stock" in notes  # one cluster type
    vast = by_offer[("vastai", "103")]
    [(_, text)] = [r for r in vast.reasons if r[0] == "host"]
    assert text.startswith("vastai: community host, reliability 0.97, DLPerf 25.1")
    assert "send it no secret" in text
    runpod = by_offer[("runpod", "NVIDIA GeForce RTX 4090@SECUREx1")]
    [(_, secure)] = [r for r in runpod.reasons if r[0] == "host"]
    assert secure == "runpod: secure cloud, stock medium"
    [figures] = [
        f for (rule, _), f in zip(vast.reasons, vast.reason_figures, strict=True) if rule == "host"
    ]
    zh = reason_in("zh", "host", text, figures)
    assert zh.startswith("vastai：community host") and "社区主机" in zh


def test_the_rent_card_says_when_the_host_is_a_community_host(engine: Engine) -> None:
    from xyclaw.engine.lifecycle import UpRequest

    community = engine.quote_request(
        UpRequest(provider="vastai", gpu="RTX4090", gpu_count=1, gpus_per_node=1, fabric="none")
    )
    assert community.offer_id == "103" and community.community
    card = community.describe()
    assert "a community host on vastai (community host, reliability 0.97" in card
    assert "XyClaw sends it only the secrets the job names" in card
    assert "社区主机" in community.describe("zh")
    verified = engine.quote_request(
        UpRequest(provider="vastai", gpu="H100", gpu_count=1, gpus_per_node=1, fabric="none")
    )
    assert "vastai host: verified host, reliability 0.97" in verified.describe()
    assert "community host on" not in verified.describe()
    # The host is part of what the user approves: a quote with another host is another card.
    assert community.with_changes(host="verified host").digest != community.digest


def test_a_multi_node_plan_on_runpod_rents_an_instant_cluster_and_says_why(
    engine: Engine,
) -> None:
    request = PlanRequest.parse(
        task="pretrain", model_size="7B", tokens="20B", gpus="16", gpu="H100", currency="USD"
    )
    outcome = engine.plan(request, providers=["vastai", "runpod"])
    options = list(outcome.result.options)
    # 16 GPUs do not fit one pod or one Vast host: only RunPod Instant Clusters remain.
    assert options and {o.provider for o in options} == {"runpod"}
    best = options[0]
    assert best.offer_id.startswith("cluster:") and best.nodes == 2
    assert best.fabric == "eth-100"
    reasons = dict((rule, text) for rule, text in best.reasons)
    assert reasons["host"].startswith("runpod: Instant Cluster: a private network")
    assert "100 to 3200 Gb/s" in reasons["host"] and "EU-RO-1" in reasons["host"]
    assert "tcp-ethernet" in reasons  # the floor RunPod promises is plain Ethernet
    assert "runpod left out 2 offer(s): out of stock" in [str(n) for n in outcome.notes]
