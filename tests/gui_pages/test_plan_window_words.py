"""The Plan page speaks to a window user (issue 28, item 8): an assumed token count is said
with the field to fill in, never a command-line flag."""

from __future__ import annotations

import pytest
from pytestqt.qtbot import QtBot

from tests.gui_pages.conftest import MakeWindow
from tests.gui_pages.test_plan_page import planned
from xyclaw.engine import Engine

pytestmark = pytest.mark.gui


def test_an_assumed_token_count_names_the_field_not_a_flag(
    qtbot: QtBot, make_window: MakeWindow, sim_engine: Engine
) -> None:
    ctl = make_window(sim_engine)
    page = planned(qtbot, ctl, task="finetune-lora", model_size="7B", gpus="8")
    assert page.view is not None and page.view.outcome.result.request.tokens_assumed
    tip = page.table.item(0, 0).toolTip()
    details = page.details.toPlainText()
    for text in (tip, details):
        assert "--tokens" not in text, text
    assert "training tokens assumed; fill in Tokens above" in tip, tip
