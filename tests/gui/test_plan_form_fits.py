"""The Plan page's form fits its column at the default size (issue 28, seen in the
regenerated screenshots): its history checkbox's long text made the form wider than the
column, which has no horizontal scroll bar, so every field and the intro were cut on the
right in both languages."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QScrollArea, QWidget
from pytestqt.qtbot import QtBot

from tests.gui.conftest import MakeWindow
from xyclaw.engine import Engine
from xyclaw.gui import i18n


@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_the_plan_form_fits_its_column(
    qtbot: QtBot, make_window: MakeWindow, local_engine: Engine, language: str
) -> None:
    i18n.install(language)
    try:
        ctl = make_window(local_engine)
        ctl.show_page("plan")
        page = ctl.page_widgets["plan"]
        scroll = page.findChild(QScrollArea, "planFormScroll")
        form = page.findChild(QWidget, "planForm")
        assert scroll is not None and form is not None
        qtbot.waitUntil(form.isVisible, timeout=3000)
        qtbot.wait(50)
        assert form.minimumSizeHint().width() <= scroll.viewport().width()
        assert form.width() <= scroll.viewport().width()  # nothing cut on the right
        memory = page.use_memory
        assert "over-billed" in memory.toolTip() or language != "en"  # the why, on hover
    finally:
        i18n.install("en")
