"""Issue 32: the simulated cloud takes spot clusters back on its own, at a rate per hour of a
cluster's life (configurable, also live through ``/v1/_faults``), always with a notice
first, and with the same draws for the same seed."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.simcloud.conftest import ServerMaker
from tests.simcloud.helpers import Api, FakeClock, FakeFactory, a800_body
from xyclaw.sim.cloud import CloudSettings

ApiMaker = Callable[..., Api]


def _spot_cluster(api: Api, pubkey: str, key: str, *, spot: bool = True) -> str:
    reply = api.create(a800_body(pubkey, spot=spot), key)
    assert reply.status_code == 202, reply.text
    cluster_id: str = reply.json()["cluster"]["id"]
    api.wait_state(cluster_id, "running")
    return cluster_id


def _notice(api: Api, cluster_id: str, clock: FakeClock, step: float, limit: float) -> float:
    """Move the clock by ``step`` until the cloud gives its notice; the notice's time."""
    waited = 0.0
    while api.cluster(cluster_id)["preempt_at"] is None:
        assert waited < limit, f"no notice in {limit:g} s of the cluster's life"
        clock.advance(step)
        waited += step
        time.sleep(0.06)  # the cloud looks at its clock every 50 ms
    return float(api.cluster(cluster_id)["preempt_at"])


def _life_until_notice(
    make_server: ServerMaker,
    api_of: ApiMaker,
    pubkey: str,
    seed: int,
    folder: str,
    tmp_path: Path,
) -> float:
    clock = FakeClock()
    settings = CloudSettings.fast(
        spot_preemptions_per_hour=360.0, spot_notice_s=20.0, spot_seed=seed
    )
    server = make_server(settings, clock=clock, factory=FakeFactory(), folder=tmp_path / folder)
    api = api_of(server)
    cluster_id = _spot_cluster(api, pubkey, "k")
    running_at = api.cluster(cluster_id)["running_at"]
    preempt_at = _notice(api, cluster_id, clock, 1.0, 600.0)
    return preempt_at - 20.0 - running_at


def test_a_spot_cluster_is_taken_back_on_its_own_after_a_notice(
    make_server: ServerMaker, api_of: ApiMaker, clock: FakeClock, pubkey: str
) -> None:
    settings = CloudSettings.fast(spot_preemptions_per_hour=360.0, spot_notice_s=20.0, spot_seed=7)
    api = api_of(make_server(settings, clock=clock, factory=FakeFactory()))
    offers = api.http.get("/offers").json()["offers"]
    assert {o["spot_preemptions_per_day"] for o in offers} == {360.0 * 24}  # the stated risk
    spot = _spot_cluster(api, pubkey, "spot")
    on_demand = _spot_cluster(api, pubkey, "od", spot=False)

    noticed = clock.now
    preempt_at = _notice(api, spot, clock, 1.0, 600.0)
    assert preempt_at > clock.now  # the notice comes first, before the end
    assert api.cluster(spot)["state"] == "running"  # still running during the notice
    clock.advance(preempt_at - clock.now + 0.1)
    gone = api.wait_state(spot, "terminated")
    assert gone["ended_by"] == "preempted" and gone["preempt_at"] == preempt_at
    assert api.cluster(on_demand)["preempt_at"] is None  # on demand is never taken back
    assert api.cluster(on_demand)["state"] == "running"
    assert noticed < preempt_at


def test_the_same_seed_gives_the_same_preemption_and_another_seed_another(
    make_server: ServerMaker, api_of: ApiMaker, pubkey: str, tmp_path: Path
) -> None:
    first = _life_until_notice(make_server, api_of, pubkey, 11, "a", tmp_path)
    again = _life_until_notice(make_server, api_of, pubkey, 11, "b", tmp_path)
    other = _life_until_notice(make_server, api_of, pubkey, 12, "c", tmp_path)
    assert first == again
    assert other != first


def test_a_rate_of_zero_never_takes_it_back_and_the_rate_changes_live(
    make_server: ServerMaker, api_of: ApiMaker, clock: FakeClock, pubkey: str
) -> None:
    settings = CloudSettings.fast(spot_preemptions_per_hour=0.0, spot_seed=3)
    api = api_of(make_server(settings, clock=clock, factory=FakeFactory()))
    cluster_id = _spot_cluster(api, pubkey, "k")
    clock.advance(30 * 24 * 3600)  # a month of life at rate 0
    time.sleep(0.2)
    assert api.cluster(cluster_id)["preempt_at"] is None
    assert api.faults(spot_preemptions_per_hour=3600.0, spot_notice_s=5.0)[
        "spot_preemptions_per_hour"
    ] == pytest.approx(3600.0)
    preempt_at = _notice(api, cluster_id, clock, 1.0, 300.0)
    assert preempt_at - clock.now == pytest.approx(5.0, abs=1.0)


def test_the_default_rate_is_low_but_not_zero() -> None:
    settings = CloudSettings()
    assert 0 < settings.spot_preemptions_per_hour * 24 <= 2  # about once a day
    assert settings.spot_notice_s > 0


def test_sim_serve_takes_the_spot_rate_the_notice_and_the_seed() -> None:
    from xyclaw.cli.commands.sim import _spot_settings
    from xyclaw.cli.main import build_parser
    from xyclaw.errors import UsageError

    argv = ["sim", "serve", "--spot-rate", "12", "--spot-notice", "5", "--seed", "9"]
    args = build_parser(argv).parse_args(argv)
    settings = _spot_settings(args, CloudSettings())
    assert (settings.spot_preemptions_per_hour, settings.spot_notice_s) == (12.0, 5.0)
    assert settings.spot_seed == 9
    plain = build_parser(["sim", "serve"]).parse_args(["sim", "serve"])
    assert _spot_settings(plain, CloudSettings()) == CloudSettings()  # the defaults stay
    bad = build_parser(["sim", "serve"]).parse_args(["sim", "serve", "--spot-rate", "-1"])
    with pytest.raises(UsageError, match="--spot-rate -1 is not valid"):
        _spot_settings(bad, CloudSettings())
