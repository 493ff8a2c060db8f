"""What the real clouds say of a cluster's state, in the user's language (issue 35, c35q):
an unhealthy, preempted, stopped, offline or exited machine, read back through the loopback
fakes, is said (a key and figures) so the records keep it and `xyclaw clusters` words it in
Chinese; the plan's note on the offers a provider left out and a provider's reasons for what
it cannot do are said too. The English of each stays what it was, word for word."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.foundation.test_cli_chinese import english_runs
from tests.providers_real.conftest import MakeAutoDL, MakeLambda, MakeRunPod
from tests.providers_real.fake_lambda import LambdaSettings
from tests.providers_real.fake_vast import KEY as VAST_KEY
from tests.providers_real.fake_vast import FakeVast
from tests.providers_real.fakehttp import FakeServer
from tests.providers_real.test_autodl import order as autodl_order
from tests.providers_real.test_autodl import wait_state
from tests.providers_real.test_marketplace_plan import engine  # noqa: F401 (a fixture)
from tests.providers_real.test_runpod import order as runpod_order
from tests.providers_real.test_state_unknown import ready_cluster
from tests.providers_real.test_vastai import MakeVast, make_vast  # noqa: F401 (a fixture)
from tests.providers_real.test_vastai import order as vast_order
from tests.providers_real.test_zh_errors import _xyclaw, order
from xyclaw.engine import Engine
from xyclaw.paths import AppPaths
from xyclaw.planner import PlanRequest
from xyclaw.providers.autodl import AutoDLProvider
from xyclaw.providers.base import Capabilities, ClusterInfo, Feature
from xyclaw.providers.lambda_cloud import LambdaProvider
from xyclaw.providers.runpod import RunPodProvider
from xyclaw.providers.slurm import SlurmProvider
from xyclaw.providers.vastai import VastProvider
from xyclaw.wording import Said

CJK = re.compile(r"[\u4e00-\u9fff]")


def said_in_both(message: object, english: str) -> str:
    """``message`` is said: its English is ``english`` exactly, its Chinese has Chinese words
    and no run of three English words. Returns the Chinese."""
    assert isinstance(message, Said), f"not said: {message!r}"
    assert message.english == english
    chinese = message.in_language("zh")
    assert CJK.search(chinese) and not english_runs(chinese), (chinese, english_runs(chinese))
    return chinese


def failed(info: ClusterInfo | None, english: str) -> str:
    """The cluster's error and every node's, said alike."""
    assert info is not None and info.error is not None
    chinese = said_in_both(info.error, english)
    for node in info.nodes:
        if node.error is not None:
            assert said_in_both(node.error, english) == chinese
    return chinese


def test_lambda_says_unhealthy_and_preempted_in_chinese(make_lambda: MakeLambda) -> None:
    _, sick = make_lambda(LambdaSettings(unhealthy={"1"}))
    info = sick.create(order("H100", 1))
    seen = sick.get(info.external_id)
    assert seen is not None and seen.nodes[0].error is not None
    assert "不健康" in failed(seen, "Lambda reports the instance unhealthy")

    fake, provider = make_lambda()
    info = provider.create(order("H100", 1))
    with fake.lock:
        fake.instances[info.external_id].status = "preempted"
    assert "抢占" in failed(provider.get(info.external_id), "Lambda preempted the instance")


def test_vast_says_a_stopped_and_an_offline_instance_in_chinese(
    make_vast: MakeVast,  # noqa: F811
) -> None:
    fake, provider = make_vast()
    info = provider.create(vast_order())
    with fake.lock:
        fake.instances[int(info.external_id)].actual_status = "offline"
    seen = provider.get(info.external_id)
    assert seen is not None and seen.nodes[0].error is not None
    assert "离线" in failed(seen, "the Vast.ai host is offline; the instance may still bill")
    with fake.lock:
        fake.instances[int(info.external_id)].intended_status = "stopped"
    chinese = failed(
        provider.get(info.external_id),
        "Vast.ai stopped the instance (outbid, or its host stopped it); its storage "
        "still bills until it is released",
    )
    assert "存储仍在计费" in chinese


def test_runpod_says_an_exited_pod_in_chinese(make_runpod: MakeRunPod) -> None:
    fake, provider = make_runpod()
    info = provider.create(runpod_order())
    with fake.lock:
        fake.pods[info.external_id].status = "EXITED"
    seen = provider.get(info.external_id)
    assert seen is not None and seen.state == "failed" and seen.nodes[0].error is not None
    chinese = failed(seen, "the pod exited; its disk bills until it is released")
    assert "磁盘仍在计费" in chinese


def test_autodl_says_a_container_that_stopped_by_itself_in_chinese(
    make_autodl: MakeAutoDL,
) -> None:
    fake, provider = make_autodl()
    info = provider.create(autodl_order())
    wait_state(provider, info.external_id, "running")
    with fake.lock:
        [container] = fake.deployments[info.external_id].containers
        container.status = "shutdown"
    chinese = failed(
        provider.get(info.external_id),
        "the container stopped by itself (its start command ended)",
    )
    assert "自行停止" in chinese


def test_xyclaw_clusters_words_what_the_provider_said_in_the_settings_language(
    xyclaw_home: Path,
) -> None:
    """The whole path: Vast says its host is offline, the reconcile `xyclaw clusters` runs
    records it (the English in ``error``, the Said beside), and the command shows it in the
    `[gui] language`, after a restart of the process."""
    fake = FakeVast()
    with fake.lock:
        instance_id = fake._rent(fake.offers[0], "xyclaw-c1-key", "img", [])
        fake.instances[instance_id].actual_status = "offline"
    paths = AppPaths.from_environment()
    ready_cluster(paths, str(instance_id), "xyclaw-c1-key")
    server = FakeServer(fake).start()
    env = {"XYCLAW_VASTAI_API_URL": server.url, "XYCLAW_RECONCILE_ORPHAN_POLICY": "alert-only"}
    try:
        assert _xyclaw("secrets", "set", "vastai_api_key", stdin=VAST_KEY + "\n").returncode == 0
        english = _xyclaw("clusters", env=env)
        paths.config_file.parent.mkdir(parents=True, exist_ok=True)
        paths.config_file.write_text('[gui]\nlanguage = "zh_CN"\n', encoding="utf-8")
        chinese = _xyclaw("clusters", env=env)
    finally:
        server.stop()
    assert english.returncode == 0 == chinese.returncode, english.stderr + chinese.stderr
    offline = [line for line in english.stdout.splitlines() if "offline" in line]
    assert offline and offline[0].endswith(
        ": the Vast.ai host is offline; the instance may still bill"
    ), english.stdout
    node = offline[0].split(": ")[0]
    assert f"{node}：Vast.ai 主机离线；该实例可能仍在计费" in chinese.stdout, chinese.stdout
    assert "offline" not in chinese.stdout
    shown = chinese.stdout.replace(node, " ")
    assert not english_runs(shown), english_runs(shown)


def test_the_plans_note_on_left_out_offers_reads_in_chinese(engine: Engine) -> None:  # noqa: F811
    request = PlanRequest.parse(
        task="finetune-lora", model_size="7B", gpus="1", gpu="RTX4090", currency="USD"
    )
    outcome = engine.plan(request, providers=["vastai", "runpod"])
    assert [str(n) for n in outcome.notes_said] == list(outcome.notes)
    notes = {str(n): n for n in outcome.notes_said}
    vast = notes["vastai left out 1 offer(s): no direct port: XyClaw cannot reach SSH on it"]
    runpod = notes["runpod left out 2 offer(s): out of stock"]
    assert (
        said_in_both(vast, str(vast))
        == "vastai 略去了 1 个报价：没有直连端口：XyClaw 连不上它的 SSH"
    )
    assert said_in_both(runpod, str(runpod)) == "runpod 略去了 2 个报价：无库存"


def test_several_reasons_are_joined_in_each_language() -> None:
    from xyclaw.wording import said, semicolon_joined

    joined = semicolon_joined(
        [said("provider.left_out.out_of_stock"), said("provider.left_out.no_cluster_price")]
    )
    assert str(joined) == "out of stock; no cluster price"
    assert said_in_both(joined, "out of stock; no cluster price") == "无库存；没有集群价格"


@pytest.mark.parametrize(
    "capabilities",
    [
        LambdaProvider.capabilities,
        VastProvider.capabilities,
        RunPodProvider.capabilities,
        AutoDLProvider.capabilities,
        SlurmProvider.capabilities,
    ],
    ids=["lambda", "vastai", "runpod", "autodl", "slurm"],
)
def test_every_reason_a_provider_cannot_do_something_reads_in_chinese(
    capabilities: Capabilities,
) -> None:
    lacking = capabilities.lacking(list(Feature))
    assert lacking
    for feature, why in lacking.items():
        assert isinstance(why, Said), (feature, why)
        said_in_both(why, why.english)


def test_the_reason_for_an_undeclared_feature_is_said() -> None:
    why = Capabilities(rents=True, multi_node=True).lacking([Feature.SPOT])[Feature.SPOT]
    assert said_in_both(why, "spot is not supported") == "不支持 spot"
