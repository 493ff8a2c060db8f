"""At the default window size (1280 x 820), in English and Chinese, light and dark, with the
tour banner and the operations panel open and closed: every visible label and button of the
live pages (a chat with a plan and an approval card waiting, the Plan page with a plan, a
live cluster, a job, the Monitor drawing it) fits its width, and every chart is at least
120 px tall (issue 28, "How well"). History and Settings: tests/gui_history/test_label_fit.py.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

pytest.importorskip("PySide6")

from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from tests.gui.conftest import MakeWindow
from tests.gui_history.test_label_fit import COMBOS, look, set_panels
from xyclaw.agent.runtime import AgentRuntime
from xyclaw.engine import Engine
from xyclaw.engine.lifecycle import UpRequest
from xyclaw.gui import i18n
from xyclaw.gui.app import apply_theme, build_runtime
from xyclaw.gui.pages import PAGES
from xyclaw.store import Store

pytestmark = pytest.mark.slow

REQUESTS = {
    "en": ("LoRA fine-tune a 13B model on 8 GPUs, budget 500", "rent option 1"),
    "zh_CN": ("用 8 张卡 LoRA 微调一个 13B 模型，预算 500 元", "租第一个"),
}


@pytest.fixture
def runtime(sim_engine: Engine, history_store: Store) -> Iterator[AgentRuntime]:
    rt = build_runtime(sim_engine, history_store)
    yield rt
    rt.close()


def test_the_live_pages_fit_at_the_default_size(
    qtbot: QtBot, make_window: MakeWindow, sim_engine: Engine, runtime: AgentRuntime
) -> None:
    quote = sim_engine.quote_request(UpRequest(provider="sim", gpu="A800", gpu_count=8))
    cluster = sim_engine.up(quote).result(120)
    job = sim_engine.launch("plain-python", cluster=cluster.name).result(120)
    ctl = make_window(sim_engine, runtime)  # the default size
    chat = ctl.chat
    qtbot.waitUntil(lambda: chat.runtime is not None and chat.composer.isEnabled(), timeout=30000)
    plan_page = ctl.page_widgets["plan"]
    plan_page.set_values(task="finetune-lora", model_size="13B", gpus="8", budget="500")
    plan_page.plan()
    qtbot.waitUntil(lambda: plan_page.view is not None, timeout=30000)
    jobs_page = ctl.page_widgets["jobs"]
    ctl.show_page("jobs")
    qtbot.waitUntil(lambda: bool(jobs_page.records) and not jobs_page.busy, timeout=30000)
    jobs_page.select_job(job.id)
    app = QApplication.instance()
    found: list[str] = []
    try:
        for language, theme, panels in COMBOS:
            i18n.install(language)
            apply_theme(app, theme)  # type: ignore[arg-type]
            if not chat.approval_cards or (language != "en" and theme == "light" and not panels):
                request, rent = REQUESTS[language]
                if chat.current is not None:
                    before = chat.current
                    chat.new_conversation()
                    qtbot.waitUntil(
                        lambda b=before: chat.current not in (None, b) and not chat.busy,
                        timeout=30000,
                    )
                chat.send(request)
                qtbot.waitUntil(lambda: bool(chat.plan_cards) and not chat.busy, timeout=60000)
                chat.send(rent)
                qtbot.waitUntil(lambda: bool(chat.approval_cards) and not chat.busy, timeout=60000)
            set_panels(ctl, qtbot, panels)
            tag = f"{language}/{theme}/{'panels' if panels else 'no panels'}"
            for info in PAGES:
                if info.key in ("history", "settings"):
                    continue  # walked on a finished run: tests/gui_history/test_label_fit.py
                ctl.show_page(info.key)
                qtbot.wait(300)
                found += look(ctl, f"{tag} {info.key}")
                if info.key == "jobs":
                    for tab in range(jobs_page.tabs.count()):
                        jobs_page.tabs.setCurrentIndex(tab)
                        qtbot.wait(100)
                        found += look(ctl, f"{tag} jobs tab {tab}")
                    jobs_page.tabs.setCurrentIndex(0)
    finally:
        i18n.install("en")
        apply_theme(app, "light")  # type: ignore[arg-type]
    assert not found, "\n".join(dict.fromkeys(found))
