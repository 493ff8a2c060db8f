"""Issue 32 on the Plan page: an option whose offer has spot says what it costs as spot and
the risk, and its link quotes it as spot; the approval card shows the saving and the risk,
and the yes rents spot at the spot price (the simulated cloud, offscreen)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt, QUrl
from pytestqt.qtbot import QtBot

from tests.gui_pages.conftest import LORA_13B, MakeWindow, settle, wait_for
from tests.gui_pages.test_plan_page import planned
from xyclaw.catalog.money import format_amount
from xyclaw.engine import Engine

pytestmark = pytest.mark.gui


def test_an_option_rented_as_spot_from_the_plan_page(
    qtbot: QtBot, make_window: MakeWindow, sim_engine: Engine
) -> None:
    ctl = make_window(sim_engine)
    page = planned(qtbot, ctl, **LORA_13B)
    option = page.view.options[0]
    assert option.spot_cost_micro is not None
    page.table.selectRow(0)
    shown = page.details.toPlainText()
    assert f"As spot: {format_amount(option.spot_cost_micro, 'CNY')} (−65%)" in shown
    assert "about 1 time(s) a day" in shown and "Rent option 1 as spot…" in shown
    assert 'href="spot:1"' in page.details.toHtml()

    page.details.anchorClicked.emit(QUrl("spot:1"))  # the link, as a click sends it
    wait_for(qtbot, lambda: page.rent_flow.dialog is not None, timeout=30000)
    dialog, quote = page.rent_flow.dialog, page.rent_flow.quote
    assert quote.spot and quote.plan_id == page.view.plan_id and quote.option == 1
    facts = {k: v.text() for k, v in dialog.card.facts.items()}
    assert "an hour less than on demand (-65%)" in facts["Spot"]  # the saving
    assert "about 1 times a day" in facts["Spot"]  # the risk
    assert format_amount(quote.price_per_hour_micros, "CNY") in facts["Price"]

    qtbot.mouseClick(dialog.card.approve_button, Qt.MouseButton.LeftButton)
    wait_for(
        qtbot,
        lambda: any(
            v.title.startswith("rent") and v.state == "succeeded"
            for v in ctl.operations.views.values()
        ),
        timeout=120000,
    )
    [cluster] = sim_engine.clusters()
    assert cluster.price_per_gpu_hour_micros == quote.price_per_gpu_hour_micros
    assert quote.price_per_gpu_hour_micros < option.price_micro  # spot, not on demand
    settle(qtbot, ctl)
    sim_engine.down(cluster.name).result(60)
