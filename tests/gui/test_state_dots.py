"""Issue 28 item 8: the status dots have a colour per state (ready/running green, on the
way amber, failed red, over grey), the same in the tables and the status bar, and each
keeps a 3:1 contrast on both themes' backgrounds."""

from __future__ import annotations

import re

import pytest
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QApplication, QStatusBar, QTableWidget
from pytestqt.qtbot import QtBot

from tests.gui.conftest import MakeWindow
from xyclaw.engine import Engine
from xyclaw.gui.app import apply_theme
from xyclaw.gui.state_dots import dot_icon
from xyclaw.gui.status import ProviderState, StatusSnapshot

pytestmark = pytest.mark.gui


def _luminance(color: QColor) -> float:
    def part(c: float) -> float:
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    return (
        0.2126 * part(color.redF()) + 0.7152 * part(color.greenF()) + 0.0722 * part(color.blueF())
    )


def _contrast(a: QColor, b: QColor) -> float:
    hi, lo = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def _dot(state: str) -> QColor:
    image = dot_icon(state).pixmap(10, 10).toImage()
    return image.pixelColor(5, 5)


def _hue_family(color: QColor) -> str:
    if color.hsvSaturation() < 64:
        return "grey"
    hue = color.hsvHue()
    if hue < 15 or hue > 340:
        return "red"
    if hue < 50:
        return "amber"
    return "green" if 90 <= hue <= 170 else f"other ({hue})"


@pytest.mark.parametrize(
    ("state", "family"),
    [
        ("ready", "green"),
        ("running", "green"),
        ("provisioning", "amber"),
        ("bootstrapping", "amber"),
        ("queued", "amber"),
        ("failed", "red"),
        ("released", "grey"),
        ("succeeded", "grey"),
        ("cancelled", "grey"),
    ],
)
def test_each_state_has_its_colour(qtbot: QtBot, state: str, family: str) -> None:
    assert _hue_family(_dot(state)) == family


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_the_dots_are_readable_on_both_themes(qtbot: QtBot, theme: str) -> None:
    """Against what the theme really paints behind them: a table's cells, the status bar."""
    app = QApplication.instance()
    apply_theme(app, theme)  # type: ignore[arg-type]
    try:
        table, bar = QTableWidget(3, 3), QStatusBar()
        backgrounds = []
        for widget in (table, bar):
            qtbot.addWidget(widget)
            widget.resize(200, 120)
            widget.show()
            qtbot.waitExposed(widget)
            image = (widget.viewport() if widget is table else widget).grab().toImage()
            backgrounds.append(image.pixelColor(image.width() - 3, image.height() - 3))
        dark = [_luminance(b) < 0.1 for b in backgrounds]
        assert dark == [theme == "dark"] * 2, backgrounds  # the theme is what was grabbed
        for background in backgrounds:
            for state in ("ready", "provisioning", "failed", "released"):
                assert _contrast(_dot(state), background) >= 3.0, (theme, background, state)
    finally:
        apply_theme(app, "light")  # type: ignore[arg-type]


def test_the_status_bar_colours_each_provider_dot(
    qtbot: QtBot, make_window: MakeWindow, local_engine: Engine
) -> None:
    ctl = make_window(local_engine)
    snapshot = StatusSnapshot(
        taken_at=0.0,
        providers=[ProviderState("sim", "connected"), ProviderState("<vast>", "unreachable")],
    )
    ctl.status._show_snapshot(snapshot)
    label = ctl.status.providers
    colours = re.findall(r"color:(#[0-9a-f]{6})'>(.)</span>", label.text())
    assert [m for _c, m in colours] == ["●", "✕"]
    assert [_hue_family(QColor(c)) for c, _m in colours] == ["green", "red"]
    assert "&lt;vast&gt;" in label.text()  # a name is shown as text, not markup
