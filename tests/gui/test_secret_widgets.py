"""A model that echoes its API key (issue 26): no widget of the window shows it, in the chat
(the streamed answer, its reasoning, the tool card's arguments and error) or on any page."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest

pytest.importorskip("PySide6")

from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QComboBox,
    QGroupBox,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QTabWidget,
    QTextEdit,
    QWidget,
)
from pytestqt.qtbot import QtBot

from tests.agent import fake_llm as f
from tests.gui.conftest import MakeWindow
from tests.gui.test_chat_e2e import ask, shown
from tests.jobs_runtime.conftest import FAST
from tests.jobs_runtime.helpers import finished, train_spec
from tests.support.simcluster import sim_cluster
from xyclaw.agent.presets import key_secret_name
from xyclaw.agent.runtime import AgentRuntime
from xyclaw.config import load_config
from xyclaw.engine import Engine
from xyclaw.engine.compose import build_engine
from xyclaw.gui.chat.blocks import MessageBlock, ToolCard
from xyclaw.gui.history_page import HistoryPage
from xyclaw.gui.jobs_page import JobsPage
from xyclaw.gui.main_window import MainWindowController
from xyclaw.gui.settings_page import SettingsPage
from xyclaw.paths import AppPaths
from xyclaw.providers import ProviderRegistry
from xyclaw.store import Store

pytestmark = pytest.mark.gui
KEY = f.API_KEY


def every_text(root: QWidget) -> Iterator[tuple[str, str]]:
    """Every text under ``root``, shown or not, data or not (item views' cells too)."""
    for w in [root, *root.findChildren(QWidget)]:
        name = f"{type(w).__name__}#{w.objectName()}"
        if isinstance(w, QLabel | QAbstractButton):
            yield name, w.text()
        elif isinstance(w, QGroupBox):
            yield name, w.title()
        elif isinstance(w, QLineEdit):
            yield name, w.text()
        elif isinstance(w, QTextEdit | QPlainTextEdit):
            yield name, w.toPlainText()
        elif isinstance(w, QComboBox):
            for i in range(w.count()):
                yield name, w.itemText(i)
        if isinstance(w, QAbstractItemView) and w.model() is not None:
            model = w.model()
            root_index = QModelIndex()
            try:
                columns = model.columnCount(root_index)
            except TypeError:  # a list model: one column
                columns = 1
            for row in range(min(model.rowCount(root_index), 200)):
                for column in range(columns):
                    value = model.data(model.index(row, column), Qt.ItemDataRole.DisplayRole)
                    yield f"{name}[{row},{column}]", str(value or "")
        yield name + ":tooltip", w.toolTip()


def test_no_widget_shows_a_key_the_model_echoes(
    local_engine: Engine, history_store: Store, make_window: MakeWindow, qtbot: QtBot
) -> None:
    paths = AppPaths.from_environment()
    echo = f.Reply(
        text=f"Planning with {KEY} now.",
        reasoning=f"The user's key is {KEY}.",
        tool_calls=[("plan", json.dumps({"task": "pretrain", "model_params": 7e9, "gpu": KEY}))],
        pieces=6,
    )
    script = [echo, f.text(f"That failed for GPU {KEY}.", reasoning=f"still {KEY}")]
    with f.FakeLLM(script, router=lambda body: "planner") as llm:
        local_engine.secrets.set(key_secret_name("custom"), KEY)
        config = load_config(
            paths.config_file,
            environ={
                "XYCLAW_LLM_PRESET": "custom",
                "XYCLAW_LLM_BASE_URL": llm.base_url,
                "XYCLAW_LLM_MODEL": "fake-model",
                "XYCLAW_LLM_MAX_RETRIES": "0",
            },
        )
        runtime = AgentRuntime(local_engine, store=history_store, paths=paths, config=config)
        try:
            ctl = make_window(local_engine, runtime)
            chat = ctl.chat
            ask(qtbot, chat, "plan a 7B pretraining")
            qtbot.waitUntil(
                lambda: any("That failed for GPU" in b.body.toPlainText()
                            for b in shown(chat, MessageBlock)) and not chat.busy,
                timeout=60_000,
            )  # fmt: skip
            assert shown(chat, ToolCard)
            texts = list(every_text(ctl.window))
            assert any("That failed for GPU ***" in t for _w, t in texts)
            leaks = [(w, t) for w, t in texts if KEY in t]
            assert leaks == []
        finally:
            runtime.close()


TOKEN = "hf_planted_token_for_every_page_5150"


def all_texts(ctl: MainWindowController) -> list[tuple[str, str]]:
    """Every text of the window and of every other top-level window (dialogs), with tab and
    header texts."""
    from PySide6.QtWidgets import QApplication, QHeaderView, QTabWidget

    roots = [ctl.window, *(w for w in QApplication.topLevelWidgets() if w is not ctl.window)]
    out: list[tuple[str, str]] = []
    for root in roots:
        out += every_text(root)
        for w in [root, *root.findChildren(QWidget)]:
            if isinstance(w, QTabWidget):
                out += [(f"tab#{w.objectName()}", w.tabText(i)) for i in range(w.count())]
                out += [(f"tab-tip#{w.objectName()}", w.tabToolTip(i)) for i in range(w.count())]
            if isinstance(w, QHeaderView) and w.model() is not None:
                model = w.model()
                for c in range(model.columnCount(QModelIndex())):
                    out.append(("header", str(model.headerData(c, w.orientation()) or "")))
    return out


def test_no_page_or_dialog_shows_a_planted_secret(
    history_store: Store,
    make_window: MakeWindow,
    qtbot: QtBot,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The key (keyring) and a job's HF_TOKEN (keyring, echoed by the job into its log on a
    simulated node, and by the model): on no page, in no dialog, tooltip, cell or text box, with
    every page built and visited, a replay open (and exported), the launch dialog open, and the
    conversation opened again."""
    monkeypatch.delenv("HF_TOKEN", raising=False)
    paths = AppPaths.from_environment()
    engine = build_engine(
        paths, load_config(paths.config_file), providers=ProviderRegistry(), store=history_store,
        job_options=FAST,
    )  # fmt: skip
    stack = ExitStack()
    try:
        cluster = stack.enter_context(sim_cluster(engine, tmp_path, nodes=1, gpus_per_node=2))
        for node in cluster.nodes:
            node.machine.time_scale = 0.05
        engine.store_job_secret("HF_TOKEN", TOKEN)
        spec = tmp_path / "spec"
        train_spec(spec, "echoes-token", steps=20, save_every=10, extra="env:\n  HF_TOKEN:\n")
        job_file = spec / "job.yaml"
        job_file.write_text(
            job_file.read_text().replace("run: ", 'run: echo "token=$HF_TOKEN" && ', 1)
        )
        job = engine.launch(job_file, cluster=cluster.name).result(60)
        done = finished(engine, job.id)
        log = "\n".join(map(str, engine.job_logs(str(done.id))))
        assert "token=***" in log and TOKEN not in log

        echo = f.Reply(
            text=f"Planning with {KEY} and {TOKEN} now.",
            reasoning=f"The user's key is {KEY}, the token {TOKEN}.",
            tool_calls=[("plan", json.dumps({"task": "pretrain", "model_params": 7e9,
                                             "gpu": KEY, "note": TOKEN}))],
            pieces=6,
        )  # fmt: skip
        script = [echo, f.text(f"That failed for GPU {KEY} ({TOKEN}).", reasoning=f"still {KEY}")]
        llm = stack.enter_context(f.FakeLLM(script, router=lambda body: "planner"))
        engine.secrets.set(key_secret_name("custom"), KEY)
        config = load_config(
            paths.config_file,
            environ={
                "XYCLAW_LLM_PRESET": "custom",
                "XYCLAW_LLM_BASE_URL": llm.base_url,
                "XYCLAW_LLM_MODEL": "fake-model",
                "XYCLAW_LLM_MAX_RETRIES": "0",
            },
        )
        runtime = AgentRuntime(engine, store=history_store, paths=paths, config=config)
        stack.callback(runtime.close)
        ctl = make_window(engine, runtime)
        chat = ctl.chat
        ask(qtbot, chat, "plan a 7B pretraining")
        qtbot.waitUntil(
            lambda: any("That failed for GPU" in b.body.toPlainText()
                        for b in shown(chat, MessageBlock)) and not chat.busy,
            timeout=60_000,
        )  # fmt: skip
        cid = chat.current
        assert cid is not None
        seen: dict[str, list[tuple[str, str]]] = {"chat": all_texts(ctl)}

        def visit(key: str, ready: Callable[[], object], tabs: QTabWidget | None = None) -> None:
            ctl.show_page(key)
            qtbot.waitUntil(lambda: bool(ready()) and ctl.worker.busy == 0, timeout=30_000)
            seen[key] = all_texts(ctl)
            for i in range(tabs.count() if tabs is not None else 0):
                assert tabs is not None
                tabs.setCurrentIndex(i)
                qtbot.wait(50)
                seen[f"{key} tab {i}"] = all_texts(ctl)

        visit("plan", lambda: True)
        visit("clusters", lambda: True)
        jobs = ctl.page_widgets["jobs"]
        assert isinstance(jobs, JobsPage)
        visit("jobs", lambda: jobs.records and not jobs.busy)
        jobs.select_job(done.id)
        visit(
            "jobs",
            lambda: jobs.detail is not None and any("token" in s for s in jobs.shown_log()),
            jobs.tabs,
        )
        assert any("token=***" in line for line in jobs.shown_log())
        jobs.launch_from_file(job_file)  # the launch dialog, for the spec that prints it
        flow = jobs.launch_flow
        qtbot.waitUntil(
            lambda: flow.dialog is not None and flow.dialog.isVisible() and ctl.worker.busy == 0,
            timeout=30_000,
        )
        assert flow.dialog is not None
        seen["launch dialog"] = all_texts(ctl)
        assert any("HF_TOKEN" in t for _w, t in seen["launch dialog"])
        flow.dialog.reject()
        visit("monitor", lambda: True)
        history = ctl.page_widgets["history"]
        assert isinstance(history, HistoryPage)
        visit("history", lambda: history.jobs and not history.busy)
        history.select("job", [done.id])
        history.replay_selected()
        visit("history", lambda: history.replay is not None and not history.busy,
              history.replay_view.tabs)  # fmt: skip
        written: list[Path] = []
        for name in ("replay.json", "replay.csv"):
            history.export_to(tmp_path / name, written.extend)
        qtbot.waitUntil(lambda: len(written) >= 3, timeout=20_000)
        settings = ctl.page_widgets["settings"]
        assert isinstance(settings, SettingsPage)
        visit("settings", lambda: settings._loaded and not settings.busy, settings.tabs)

        ctl.show_page("chat")
        chat.new_conversation()
        qtbot.waitUntil(
            lambda: chat.current not in (None, cid) and not chat.busy and ctl.worker.busy == 0,
            timeout=20_000,
        )  # the new one created, the list read again and the new one opened
        chat.select_conversation(cid)
        qtbot.waitUntil(
            lambda: chat.current == cid and not chat.busy
            and any("That failed for GPU" in b.body.toPlainText()
                    for b in shown(chat, MessageBlock)),
            timeout=20_000,
        )  # fmt: skip
        seen["chat reopened"] = all_texts(ctl)

        assert any("That failed for GPU *** (***)" in t for _w, t in seen["chat reopened"])
        counted = sum(len(texts) for texts in seen.values())
        assert counted > 1000, counted  # every page was read, not an empty window
        leaks = [(page, w, t) for page, texts in seen.items() for w, t in texts
                 if KEY in t or TOKEN in t]  # fmt: skip
        assert leaks == []
        for path in written:
            assert path.stat().st_size > 0
            assert TOKEN not in path.read_text() and KEY not in path.read_text(), path
    finally:
        stack.close()
        engine.close()
