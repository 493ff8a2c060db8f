"""The AutoDL adapter against a fake that implements the documented elastic deployment API."""

from __future__ import annotations

import logging
import time
import uuid
from pathlib import Path

import pytest

from tests.providers_real.conftest import APP_KEY, MakeAutoDL, authorized_keys_from
from tests.providers_real.fake_autodl import AutoDLSettings
from xyclaw.errors import CapacityError, ConfigError, ProviderError, XyclawError
from xyclaw.providers import ClusterOrder, Provider
from xyclaw.providers.autodl import (
    AutoDLProvider,
    key_install_command,
    parse_ssh_command,
)
from xyclaw.providers.autodl import AutoDLSettings as AdapterSettings
from xyclaw.providers.base import Feature
from xyclaw.providers.cloud_api import UnsupportedRequestError
from xyclaw.providers.http_retry import ApiError
from xyclaw.providers.real import load_autodl_settings


def order(
    gpu: str = "RTX4090", count: int = 1, region: str | None = "westDC2", **kw: object
) -> ClusterOrder:
    values: dict[str, object] = {
        "gpu": gpu,
        "gpu_count": count,
        "region": region,
        "fabric": None,
        "idempotency_key": f"xyclaw-{uuid.uuid4()}",
        "ssh_public_key": APP_KEY,
        "gpus_per_node": count,
        "image": "pytorch-2.1",
    }
    values.update(kw)
    return ClusterOrder(**values)  # type: ignore[arg-type]


def wait_state(provider: AutoDLProvider, ext: str, state: str, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        info = provider.get(ext)
        if info is not None and info.state == state:
            return
        time.sleep(0.02)
    raise AssertionError(f"{ext} never reached {state}")


def test_it_is_a_provider_with_reasons_for_what_it_lacks(make_autodl: MakeAutoDL) -> None:
    _, provider = make_autodl()
    assert isinstance(provider, Provider)
    lacking = provider.capabilities.lacking([Feature.MULTI_NODE, Feature.BILLING_LEDGER])
    assert "independent hosts" in str(lacking[Feature.MULTI_NODE])
    assert "meters each second" in str(lacking[Feature.BILLING_LEDGER])
    assert provider.capabilities.supports(Feature.CUSTOM_IMAGE)


def test_ssh_commands_as_autodl_prints_them() -> None:
    assert parse_ssh_command("ssh -p 38076 root@region-41.seetacloud.com") == (
        "region-41.seetacloud.com",
        38076,
        "root",
    )
    assert parse_ssh_command("ssh -p38076 root@connect.westb.seetacloud.com") == (
        "connect.westb.seetacloud.com",
        38076,
        "root",
    )
    assert parse_ssh_command("ssh host.example") == ("host.example", 22, "root")
    assert parse_ssh_command("") is None
    assert parse_ssh_command("telnet x") is None
    assert parse_ssh_command("ssh -p port root@x") is None


def test_the_start_command_authorises_the_app_key_in_a_real_shell() -> None:
    tricky = "ssh-ed25519 AAAAC3Nza'quote\"d $(rm -rf /) me@host"
    cmd = key_install_command(tricky)
    assert "&&" not in cmd and "||" not in cmd  # AutoDL: mixing them keeps a container running
    assert cmd.endswith("sleep infinity")
    assert authorized_keys_from(cmd) == [tricky]
    assert authorized_keys_from(key_install_command(APP_KEY)) == [APP_KEY]


def test_offers_are_stock_per_region_at_xyclaw_s_ceiling(make_autodl: MakeAutoDL) -> None:
    settings = AutoDLSettings()
    settings.stock["westDC2"]["RTX 2080 Ti"] = [5, 10, 880]  # no ceiling: not offered
    _, provider = make_autodl(settings)
    offers = provider.offers()
    west = {o.offer_id: o for o in offers if o.region == "westDC2"}
    assert set(west) == {
        "westDC2-RTX4090-x1", "westDC2-RTX4090-x2", "westDC2-RTX4090-x4", "westDC2-RTX4090-x8",
        "westDC2-A800-x1", "westDC2-A800-x2", "westDC2-A800-x4", "westDC2-A800-x8",
    }  # fmt: skip
    x8 = west["westDC2-RTX4090-x8"]
    assert (x8.gpus_per_node, x8.node_counts, x8.fabric, x8.currency) == (8, (1,), "none", "CNY")
    assert (x8.price_micro, x8.price_basis, x8.available_gpus) == (2_600_000, "assumed", 16)
    assert "ceiling" in x8.note and "西北企业区" in x8.note
    empty = [o for o in offers if o.region == "neimengDC1"]
    assert empty and all(o.available_gpus == 0 for o in empty)


def test_create_sends_a_one_container_job_with_the_ceiling_and_the_key(
    make_autodl: MakeAutoDL,
) -> None:
    fake, provider = make_autodl()
    rent = order(count=2)
    info = provider.create(rent)
    [sent] = fake.requests_to("POST", "/api/v1/dev/deployment")
    body = sent.body
    assert body["name"] == rent.idempotency_key
    assert (body["deployment_type"], body["replica_num"], body["parallelism_num"]) == ("Job", 1, 1)
    tpl = body["container_template"]
    assert tpl["dc_list"] == ["westDC2"] and tpl["gpu_name_set"] == ["RTX 4090"]
    assert tpl["gpu_num"] == 2 and tpl["price_to"] == 2600  # 2.60 CNY in AutoDL's 1/1000 CNY
    assert tpl["image_uuid"] == "base-image-l2t43iu6uk"
    assert authorized_keys_from(tpl["cmd"]) == [APP_KEY]
    wait_state(provider, info.external_id, "running")
    running = provider.get(info.external_id)
    assert running is not None and running.idempotency_key == rent.idempotency_key
    [node] = running.nodes
    assert node.ssh_host == "region-41.seetacloud.com" and node.ssh_user == "root"
    assert node.ssh_port is not None and node.ssh_port >= 30000
    # The container's own price (2.18), not the ceiling, is what bills.
    assert running.price_per_gpu_hour_micros == 2_180_000 and running.currency == "CNY"
    assert (running.gpu, running.gpu_count, running.region) == ("RTX4090", 2, "westDC2")
    assert running.running_at is not None and abs(running.running_at - time.time()) < 60
    assert "never-read-this" not in repr(running)  # the root password is not kept


def test_an_autodl_image_id_passes_through(make_autodl: MakeAutoDL) -> None:
    fake, provider = make_autodl()
    assert provider.images() == [{"image_uuid": "image-db8346e037", "image_name": "my torch"}]
    provider.create(order(image="image-db8346e037"))
    [sent] = fake.requests_to("POST", "/api/v1/dev/deployment")
    assert sent.body["container_template"]["image_uuid"] == "image-db8346e037"


def test_a_repeated_create_returns_the_first_deployment(make_autodl: MakeAutoDL) -> None:
    fake, provider = make_autodl()
    once = order()
    first = provider.create(once)
    assert provider.create(once).external_id == first.external_id
    assert len(fake.requests_to("POST", "/api/v1/dev/deployment")) == 1
    assert len(fake.deployments) == 1


def test_no_stock_is_known_before_creating_and_names_the_regions(make_autodl: MakeAutoDL) -> None:
    fake, provider = make_autodl()
    with pytest.raises(CapacityError) as info:
        provider.create(order(region="neimengDC1"))
    assert "neimengDC1 has 0 idle" in str(info.value)
    assert fake.requests_to("POST", "/api/v1/dev/deployment") == []
    with pytest.raises(CapacityError):
        provider.create(order(count=8, region="beijingDC1"))  # 4 idle there
    # No region asked: the first with enough idle GPUs.
    assert provider.create(order(count=8, region=None)).region == "westDC2"


def test_no_container_dearer_than_the_ceiling_is_scheduled(make_autodl: MakeAutoDL) -> None:
    settings = AdapterSettings(
        regions=("westDC2",), price_ceilings={"RTX4090": 2_000_000}
    )  # 2.00 CNY, but westDC2 charges 2.18
    fake, provider = make_autodl(settings=settings)
    info = provider.create(order())
    seen = provider.get(info.external_id)
    assert seen is not None and seen.state == "pending" and seen.nodes == ()
    assert fake.live() == []  # nothing bills


def test_terminate_stops_and_confirms_and_a_repeat_is_harmless(make_autodl: MakeAutoDL) -> None:
    fake, provider = make_autodl(AutoDLSettings(terminate_s=0.2))
    info = provider.create(order())
    wait_state(provider, info.external_id, "running")
    leaving = provider.terminate(info.external_id)
    assert leaving.state == "terminating"
    wait_state(provider, info.external_id, "terminated")
    gone = provider.get(info.external_id)
    assert gone is not None and gone.terminated_at is not None
    assert provider.terminate(info.external_id).state == "terminated"  # refused, then checked
    assert provider.clusters() == [] and fake.live() == []
    assert fake.settings.stock["westDC2"]["RTX 4090"][0] == 16  # the GPU went back


def test_deployments_xyclaw_did_not_name_are_never_listed(make_autodl: MakeAutoDL) -> None:
    fake, provider = make_autodl()
    ours = provider.create(order())
    template = fake.requests_to("POST", "/api/v1/dev/deployment")[0].body["container_template"]
    with fake.lock:  # the user's own service, made in AutoDL's console
        fake._create(
            {
                "name": "my-inference-service",
                "deployment_type": "ReplicaSet",
                "replica_num": 1,
                "container_template": template | {"cmd": "python serve.py"},
            }
        )
    assert [c.external_id for c in provider.clusters()] == [ours.external_id]
    assert len(fake.live()) == 2


def test_a_container_that_stops_by_itself_fails_the_cluster(make_autodl: MakeAutoDL) -> None:
    fake, provider = make_autodl()
    info = provider.create(order())
    wait_state(provider, info.external_id, "running")
    with fake.lock:
        [container] = fake.deployments[info.external_id].containers
        container.status = "shutdown"
    seen = provider.get(info.external_id)
    assert seen is not None and seen.state == "failed"
    assert "stopped by itself" in str(seen.error or "")


def test_a_bad_token_says_what_account_and_command_are_needed(
    make_autodl: MakeAutoDL, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    _, provider = make_autodl(token="not-the-token-987")
    with pytest.raises(ApiError) as info:
        provider.offers()
    text = str(info.value)
    assert "xyclaw secrets set autodl_token" in text and "enterprise-verified" in text
    assert "not-the-token-987" not in text and "not-the-token-987" not in caplog.text
    with pytest.raises(XyclawError, match="autodl_token"):
        AutoDLProvider("")


def test_reads_ride_out_storms_and_a_lost_create_answer_rents_once(
    make_autodl: MakeAutoDL,
) -> None:
    fake, provider = make_autodl(timeout_s=0.5)
    fake.faults.fail_next.extend([429, 503, 502])
    assert provider.offers()
    fake.faults.hang_paths = ("/api/v1/dev/deployment",)
    fake.faults.hang_next, fake.faults.hang_s = 1, 1.5
    info = provider.create(order())
    assert [d.uuid for d in fake.deployments.values()] == [info.external_id]
    fake.faults.fail_next.extend([500] * 10)
    with pytest.raises(ProviderError, match="answered HTTP 500"):
        provider.clusters()


def test_unsupported_shapes_are_definite_refusals(make_autodl: MakeAutoDL) -> None:
    fake, provider = make_autodl()
    with pytest.raises(UnsupportedRequestError, match="several hosts"):
        provider.create(order(count=16, gpus_per_node=8))
    with pytest.raises(UnsupportedRequestError, match="fabric"):
        provider.create(order(fabric="roce-100"))
    with pytest.raises(UnsupportedRequestError, match="price ceiling for H100"):
        provider.create(order(gpu="H100"))
    assert fake.deployments == {}


def test_autodl_toml_sets_regions_image_and_ceilings(tmp_path: Path) -> None:
    path = tmp_path / "autodl.toml"
    assert load_autodl_settings(path) == AdapterSettings()
    path.write_text(
        'regions = ["beijingDC1"]\nimage_uuid = "image-db8346e037"\ncuda_v_from = 121\n'
        '[price_ceilings]\n"RTX 4090" = 2.35\n"H100" = "12"\n',
        encoding="utf-8",
    )
    settings = load_autodl_settings(path)
    assert settings.regions == ("beijingDC1",) and settings.image_uuid == "image-db8346e037"
    assert settings.cuda_v_from == 121 and settings.price_ceilings["RTX4090"] == 2_350_000
    assert settings.price_ceilings["H100"] == 12_000_000
    assert settings.price_basis("H100") == "configured"
    assert settings.price_basis("A800") == "assumed"
    path.write_text('regions = ["marsDC1"]\n', encoding="utf-8")
    with pytest.raises(ConfigError, match="unknown regions marsDC1"):
        load_autodl_settings(path)
