"""What the job runtime says, in the window's language: an attempt's end and the job's events
(stored as a key and figures beside their English), on the Jobs page, in the History's
replay timeline and in the comparison, worded in 简体中文 with no English left in any cell
(names, paths and commands excepted), and in English again after switching back. Rows
stored before the core kept the key and figures still show their English text."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from PySide6.QtWidgets import QTreeWidget, QWidget
from pytestqt.qtbot import QtBot

from tests.gui_history.conftest import FailingProviders
from tests.gui_history.history_run import HistoryFacts
from tests.support.zh_words import WORD, assert_no_english, data_words
from xyclaw.engine import Engine
from xyclaw.engine.compose import Composition
from xyclaw.gui import i18n
from xyclaw.gui.history_page import HistoryPage
from xyclaw.gui.jobs_page import JobsPage
from xyclaw.gui.main_window import MainWindowController
from xyclaw.records.jobs import JobState, JobStore
from xyclaw.store.event_log import said_of

pytestmark = pytest.mark.gui
KEPT_RUNNING_ZH = "late 继续运行。"


def _column(widget: QWidget, column: int) -> list[str]:
    """The texts of one column of a table or a tree, top to bottom."""
    if isinstance(widget, QTreeWidget):
        return [widget.topLevelItem(r).text(column) for r in range(widget.topLevelItemCount())]
    model = widget.model()  # type: ignore[attr-defined]
    return [str(model.index(r, column).data() or "") for r in range(model.rowCount())]


def _shots() -> Path | None:
    """Where the test leaves its pictures to look at (``ZH_WALK_SHOTS``), if anywhere."""
    folder = os.environ.get("ZH_WALK_SHOTS")
    if not folder:
        return None
    path = Path(folder)
    path.mkdir(parents=True, exist_ok=True)
    return path


def test_the_runtime_stores_its_words_beside_the_english(
    offline_engine: Engine, history_facts: HistoryFacts
) -> None:
    """The recovered job's first attempt and its events: the English sentences as before,
    their key and figures beside them, worded in Chinese from those."""
    job = offline_engine.job(str(history_facts.job_a))
    first, second = sorted(job.attempts, key=lambda a: a.attempt)
    lost = history_facts.lost_node
    assert first.message is not None and first.message.startswith(
        f"{lost} stopped answering and came back without the job's processes (stopped: "
    )
    assert first.message_said is not None and str(first.message_said) == first.message
    chinese = first.message_said.in_language("zh")
    assert chinese.startswith(f"{lost} 失去响应，恢复后作业的进程已不在（停止：")
    # what each node said was left when the attempt was stopped
    assert "没有剩下的进程" in chinese or "已经结束" in chinese, chinese
    assert second.message == "every node's process exited with code 0"
    assert second.message_said is not None
    assert second.message_said.in_language("zh") == "所有节点的进程都以退出码 0 结束"

    rows = [e for e in offline_engine.recent_events(200) if e.get("job_id") == job.id]
    worded = {str(e["message"]): said_of(e) for e in rows}
    retry = next(m for m in worded if "starting attempt 2" in m)
    assert retry == f"job lora-a: attempt 1 ended ({first.message}); starting attempt 2"
    said = worded[retry]
    assert said is not None and said.key == "job.attempt_ended_retry"
    assert said.in_language("zh") == (f"作业 lora-a：第 1 次尝试结束（{chinese}）；开始第 2 次尝试")
    ended = worded["job lora-a succeeded"]
    assert ended is not None and ended.in_language("zh") == "作业 lora-a 成功完成"


def test_a_job_error_and_an_old_attempt_keep_their_english(offline_parts: Composition) -> None:
    """A job's error given as a key and figures is stored as its English with them; an
    attempt written with a plain text (as before) reads back with no key and figures."""
    from xyclaw.wording import said

    jobs = JobStore(offline_parts.store, offline_parts.bus)
    job_id = jobs.add(
        name="old", kind="train", spec_json="{}", cluster_id=None, rented_cluster=False
    )
    jobs.save_attempt(job_id, 1, state="failed", message="exit code 1 on node-0")
    why = said("job.no_restarts_left", message=said("job.exit_code_on", code=1, node="n-0"),
               allowed=2)  # fmt: skip
    jobs.set_state(job_id, JobState.FAILED, error=why)
    record = jobs.get(job_id)
    assert record.error == "exit code 1 on n-0; no restarts left (2 allowed)"
    assert record.error_said == why
    chinese = record.error_said.in_language("zh")
    assert chinese == "n-0 上的进程退出码为 1；重启次数已用完（最多 2 次）"
    (attempt,) = record.attempts
    assert attempt.message == "exit code 1 on node-0" and attempt.message_said is None
    assert attempt.said == "exit code 1 on node-0"  # old rows: their English, as stored


def test_in_chinese_the_jobs_page_the_replay_timeline_and_the_comparison_show_no_english(
    offline_engine: Engine,
    offline: FailingProviders,
    history_facts: HistoryFacts,
    qtbot: QtBot,
) -> None:
    ctl = MainWindowController(
        offline_engine, None, tray_available=False, on_quit=lambda: None,
        status_refresh_ms=3_600_000,
    )  # fmt: skip
    shots = _shots()
    try:
        ctl.window.resize(1400, 900)
        ctl.window.show()
        qtbot.waitExposed(ctl.window)
        jobs = ctl.page_widgets["jobs"]
        history = ctl.page_widgets["history"]
        assert isinstance(jobs, JobsPage) and isinstance(history, HistoryPage)
        lost = history_facts.lost_node

        # in English first: the recovered job's attempts and events as the runtime said them
        ctl.show_page("jobs")
        qtbot.waitUntil(lambda: len(jobs.records) == 2 and not jobs.busy, timeout=20_000)
        jobs.select_job(history_facts.job_a)
        qtbot.waitUntil(
            lambda: jobs.detail is not None and jobs.detail.job.id == history_facts.job_a
            and not jobs.busy and jobs.attempts.rowCount() == 2,
            timeout=10_000,
        )  # fmt: skip
        what = _column(jobs.attempts, 6)
        assert what[0].startswith(f"{lost} stopped answering"), what
        assert what[1] == "every node's process exited with code 0"
        events = _column(jobs.events, 2)
        assert any(e.endswith("starting attempt 2") for e in events), events

        # switched at run time: what is shown is worded again
        assert i18n.install("zh_CN") == "zh_CN"
        qtbot.waitUntil(lambda: jobs.tabs.tabText(0) == "图表", timeout=5_000)
        data = data_words(history_facts, offline_engine.history("jobs"))
        for node in offline_engine.cluster(str(history_facts.cluster_id)).nodes:
            data.update(WORD.findall(str(node.hostname)))
        assert_no_english(jobs, data, "the Jobs page's list", strict_cells=True)
        for tab in range(jobs.tabs.count()):
            jobs.tabs.setCurrentIndex(tab)
            qtbot.wait(20)
            assert_no_english(jobs, data, f"the Jobs page, tab {tab}", strict_cells=True)
            if shots is not None and tab in (2, 3):
                jobs.grab().save(str(shots / f"jobs-zh-tab{tab}.png"))
        what = _column(jobs.attempts, 6)
        assert what[0].startswith(f"{lost} 失去响应，恢复后作业的进程已不在"), what
        assert what[1] == "所有节点的进程都以退出码 0 结束"
        events = _column(jobs.events, 2)
        assert "作业 lora-a 成功完成" in events, events
        assert any(e.endswith("；开始第 2 次尝试") for e in events), events

        ctl.show_page("history")
        qtbot.waitUntil(lambda: len(history.jobs) == 2 and not history.busy, timeout=20_000)
        assert_no_english(history, data, "the History page's list", strict_cells=True)
        history.select("job", [history_facts.job_a])
        history.replay_selected()
        qtbot.waitUntil(lambda: history.replay is not None and not history.busy, timeout=10_000)
        view = history.replay_view
        for tab in range(view.tabs.count()):
            view.tabs.setCurrentIndex(tab)
            qtbot.wait(20)
            assert_no_english(history, data, f"replay tab {tab}", strict_cells=True)
        view.tabs.setCurrentIndex(1)
        timeline = view.timeline
        recorded = _column(timeline, 3)
        kinds = _column(timeline, 1)
        assert "恢复" in kinds and "尝试结束" in kinds, kinds
        assert any(r.startswith(f"{lost} 失去响应") for r in recorded), recorded
        assert "所有节点的进程都以退出码 0 结束" in recorded, recorded
        if shots is not None:
            timeline.grab().save(str(shots / "timeline-zh.png"))
            history.grab().save(str(shots / "history-replay-zh.png"))

        # the cluster's own replay: its events (ready, alerts, released) worded too
        history.select("cluster", [history_facts.cluster_id])
        history.replay_selected()
        qtbot.waitUntil(
            lambda: history.replay is not None and history.replay.kind == "cluster"
            and not history.busy,
            timeout=10_000,
        )  # fmt: skip
        for tab in range(view.tabs.count()):
            view.tabs.setCurrentIndex(tab)
            qtbot.wait(20)
            assert_no_english(history, data, f"the cluster's replay, tab {tab}", strict_cells=True)

        history.select("job", [history_facts.job_a, history_facts.job_b])
        history.compare_selected()
        qtbot.waitUntil(lambda: history.comparison is not None and not history.busy, timeout=10_000)
        compare = history.compare_view
        compare.differences.setChecked(False)  # every row: the spec's fields, the NCCL ones
        keys = set(compare.visible_keys())
        assert {"spec.run", "spec.checkpoint_dir", "spec.workdir", "spec.env.NCCL_ALGO"} <= keys
        assert_no_english(history, data, "the comparison, every row", strict_cells=True)
        compare.differences.setChecked(True)
        assert_no_english(history, data, "the comparison's differences", strict_cells=True)

        # and back: English again, from the same rows
        i18n.install("en")
        qtbot.waitUntil(lambda: history.title.text() == "History", timeout=5_000)
        history.select("job", [history_facts.job_a])
        history.replay_selected()  # the comparison made it None
        qtbot.waitUntil(lambda: history.replay is not None and not history.busy, timeout=10_000)
        recorded = _column(timeline, 3)
        assert any(r.startswith(f"{lost} stopped answering") for r in recorded), recorded
        assert "Recovery" in _column(timeline, 1)
        # a replay shown while the language changes is worded again in place
        assert i18n.install("zh_CN") == "zh_CN"
        qtbot.waitUntil(
            lambda: any(r.startswith(f"{lost} 失去响应") for r in _column(timeline, 3)),
            timeout=5_000,
        )
        assert "恢复" in _column(timeline, 1)
        i18n.install("en")
        qtbot.waitUntil(lambda: "Recovery" in _column(timeline, 1), timeout=5_000)
        ctl.show_page("jobs")
        qtbot.waitUntil(lambda: jobs.tabs.tabText(0) == "Charts", timeout=5_000)
        assert _column(jobs.attempts, 6)[1] == "every node's process exited with code 0"
        assert "job lora-a succeeded" in _column(jobs.events, 2)
    finally:
        i18n.install("en")
        ctl.quit_now()
        qtbot.wait(20)


def test_a_failed_job_s_error_is_worded_and_an_old_attempt_keeps_its_english(
    offline_parts: Composition, history_facts: HistoryFacts, qtbot: QtBot
) -> None:
    """A job another process recorded as failed, with its error stored with its key and
    figures and one attempt from before (plain English): in Chinese the Jobs page words the
    error in the detail and the list's tip, and shows the old attempt's text as stored."""
    from xyclaw.wording import said

    jobs = JobStore(offline_parts.store, offline_parts.bus)
    job_id = jobs.add(
        name="late", kind="train", spec_json="{}", cluster_id=history_facts.cluster_id,
        rented_cluster=False, state=JobState.QUEUED,
    )  # fmt: skip
    jobs.save_attempt(job_id, 1, state="failed", cause="exit_nonzero", started_at=1.0,
                      ended_at=2.0, message="exit code 1 on node-0")  # fmt: skip
    ended = said("job.exit_code_on", code=1, node="node-0")
    jobs.save_attempt(job_id, 2, state="failed", cause="exit_nonzero", started_at=3.0,
                      ended_at=4.0, message=ended)  # fmt: skip
    why = said("job.no_restarts_left", message=ended, allowed=1)
    jobs.set_state(job_id, JobState.FAILED, ended_at=5.0, cause="exit_nonzero", error=why)

    engine = offline_parts.engine
    ctl = MainWindowController(
        engine, None, tray_available=False, on_quit=lambda: None, status_refresh_ms=3_600_000,
    )  # fmt: skip
    try:
        ctl.window.resize(1400, 900)
        ctl.window.show()
        qtbot.waitExposed(ctl.window)
        page = ctl.page_widgets["jobs"]
        assert isinstance(page, JobsPage)
        ctl.show_page("jobs")
        qtbot.waitUntil(lambda: any(j.id == job_id for j in page.records), timeout=20_000)
        page.select_job(job_id)
        qtbot.waitUntil(
            lambda: page.detail is not None and page.detail.job.id == job_id
            and page.attempts.rowCount() == 2,
            timeout=10_000,
        )  # fmt: skip
        assert page.detail_facts.text().endswith(
            "exit code 1 on node-0; no restarts left (1 allowed)"
        )
        page._cancel_decided(page.detail.job, "reject")  # a notice: "Kept late running."
        assert page.notice.text() == "Kept late running."
        assert i18n.install("zh_CN") == "zh_CN"
        qtbot.waitUntil(lambda: page.tabs.tabText(0) == "图表", timeout=5_000)
        assert page.notice.text() == KEPT_RUNNING_ZH  # the notice is worded again too
        assert page.detail_facts.text().endswith(
            "node-0 上的进程退出码为 1；重启次数已用完（最多 1 次）"
        )
        row = page.row_of(job_id)
        assert row is not None
        assert page.table.item(row, 3).toolTip().startswith("node-0 上的进程退出码为 1")
        # the old attempt shows what was stored; the new one is worded
        assert _column(page.attempts, 6) == ["exit code 1 on node-0", "node-0 上的进程退出码为 1"]
    finally:
        i18n.install("en")
        ctl.quit_now()
        qtbot.wait(20)
