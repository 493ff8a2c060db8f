"""The guard's own lines in a Chinese setting (issue 35, c35): a pass whose release failed
says so in the ``[gui] language``, and as before in English."""

from __future__ import annotations

from tests.foundation.test_cli_chinese import english_runs
from tests.lifecycle.conftest import MakeWorld, make_world
from tests.lifecycle.test_lifecycle import a800

__all__ = ["make_world"]


def test_a_failed_release_is_said_in_each_language(make_world: MakeWorld) -> None:
    world = make_world(attempts=1, timeout_s=1.0, XYCLAW_GUARD_INTERVAL_S="3600")
    engine = world.engine
    # 8 cards x 3.5 CNY = 28 CNY an hour: a budget of 7 CNY is spent after 15 minutes.
    cluster = engine.up(engine.quote_request(a800(8, budget_micros=7_000_000))).result(60)
    world.clock.advance(16 * 60)
    world.server.stop()  # the provider cannot be reached: the release fails
    report = engine.tick()
    assert report.errors and report.released_for_budget == []
    (english,) = [line for line in report.lines("en") if line.startswith("error: ")]
    assert english.startswith(f"error: {cluster.name}: "), english
    (chinese,) = [line for line in report.lines("zh") if line.startswith("错误：")]
    assert chinese.startswith(f"错误：{cluster.name}："), chinese
    # what follows the name is the provider's own error, worded where it is raised
    assert not english_runs(chinese.split("the sim provider")[0])
