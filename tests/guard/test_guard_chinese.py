"""The guard's own lines in a Chinese setting (issue 35, c35): a pass whose release failed
says so in the ``[gui] language``, and as before in English."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.foundation.test_cli_chinese import english_runs
from tests.lifecycle.conftest import MakeWorld, make_world
from tests.lifecycle.test_lifecycle import a800
from xyclaw.cli.main import main
from xyclaw.paths import AppPaths

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


def _chinese() -> None:
    config = AppPaths.from_environment().config_file
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('[gui]\nlanguage = "zh_CN"\n', encoding="utf-8")


def _hold_the_guard_lock() -> Any:
    """A guard that runs as `xyclaw guard` (this process holds its lock, as that one would)."""
    from xyclaw.engine import Engine
    from xyclaw.engine.values import Holder

    lock = Engine.guard_lock(AppPaths.from_environment())
    assert lock.acquire(Holder.FOREGROUND)
    return lock


@pytest.mark.parametrize("language", ["en", "zh"])
def test_once_and_a_second_guard_while_one_runs_are_said_in_each_language(
    xyclaw_home: Path, capsys: pytest.CaptureFixture[str], language: str
) -> None:
    """`xyclaw guard --once` and `xyclaw guard` while a guard runs: where it runs, what it
    did lately, and that the second one exits."""
    if language == "zh":
        _chinese()
    lock = _hold_the_guard_lock()
    try:
        assert main(["guard", "--once"]) == 0
        once = capsys.readouterr().out
        assert main(["guard"]) == 0
        second = capsys.readouterr().err
    finally:
        lock.release()
    if language == "en":
        assert once.startswith("the guard runs as `xyclaw guard` (pid "), once
        assert "; it checks by itself" in once
        assert "it has warned of and released nothing in the last hour" in once
        assert second.startswith("the guard already runs: running as `xyclaw guard` (pid ")
        assert second.rstrip().endswith("; this one exits"), second
        return
    assert once.startswith("守护进程以 `xyclaw guard` 方式运行（进程号 "), once
    assert "；它会自己检查" in once and "过去一小时里它没有发出提醒" in once
    assert second.startswith("守护进程已在运行：以 `xyclaw guard` 方式运行"), second
    assert second.rstrip().endswith("；这个就退出了"), second
    assert not english_runs(once + second), english_runs(once + second)


def test_why_the_next_check_comes_is_said_in_each_language(make_world: MakeWorld) -> None:
    world = make_world(XYCLAW_BILLING_IDLE_RELEASE_MINUTES="0", XYCLAW_GUARD_INTERVAL_S="3600")
    engine = world.engine
    cluster = engine.up(engine.quote_request(a800(8, budget_micros=7_000_000))).result(60)
    report = engine.tick()
    assert report.next_reason == f"{cluster.name} reaches 80% of its budget"
    assert report.next_reason_said is not None
    assert report.next_reason_said.in_language("zh") == f"{cluster.name} 将用到预算的 80%"


def test_guard_status_words_the_running_guard_s_next_reason(
    xyclaw_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """What the running guard wrote after its pass (its heartbeat), as `xyclaw guard status`
    shows it: in Chinese from the reason's Said, in English as before."""
    import time

    from xyclaw.wording import said

    lock = _hold_the_guard_lock()
    reason = said("op.guard.why.reaches_budget", name="c1")
    try:
        lock.heartbeat(
            next_check_at=time.time() + 600,
            next_reason=str(reason),
            next_reason_said=reason,
            live_clusters=1,
        )
        assert main(["guard", "status"]) == 0
        english = capsys.readouterr().out
        _chinese()
        assert main(["guard", "status"]) == 0
        chinese = capsys.readouterr().out
    finally:
        lock.release()
    assert "(c1 reaches its budget)" in english, english
    assert "（c1 将用完预算）" in chinese, chinese
    assert not english_runs(chinese), english_runs(chinese)


@pytest.mark.parametrize("language", ["en", "zh"])
def test_the_foreground_guard_s_first_line_is_said_in_each_language(
    xyclaw_home: Path, language: str
) -> None:
    """`xyclaw guard` at a terminal: what it guards and how it ends (its own process, stopped
    with SIGTERM as a service manager would)."""
    import signal
    import subprocess
    import sys

    if language == "zh":
        _chinese()
    guard = subprocess.Popen(
        [sys.executable, "-m", "xyclaw.cli.main", "guard"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert guard.stdout is not None
        first = guard.stdout.readline()
    finally:
        guard.send_signal(signal.SIGTERM)
        guard.communicate(timeout=30)
    data_dir = AppPaths.from_environment().data_dir
    if language == "en":
        assert f" guarding {data_dir}: budgets and idle release at the moment they are due" in first
        assert first.rstrip().endswith("; Ctrl-C to stop"), first
        return
    assert f" 正在守护 {data_dir}：预算和空闲释放一到时间就执行" in first, first
    assert first.rstrip().endswith("；按 Ctrl-C 停止"), first
    assert not english_runs(first), english_runs(first)
