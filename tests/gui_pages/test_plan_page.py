"""The Plan page on the simulated cloud: the form checked at its fields, the ranked options
and the chart, Rent through the approval dialog, and the selection report."""

from __future__ import annotations

import base64
import gc
import html
import math
import re
from pathlib import Path

import pytest
from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QImage
from pytestqt.qtbot import QtBot

from tests.gui_pages.conftest import (
    LORA_13B,
    PRETRAIN_16,
    LoopWatchdog,
    MakeWindow,
    settle,
    wait_for,
)
from xyclaw.catalog.money import format_amount
from xyclaw.engine import Engine
from xyclaw.gui.main_window import MainWindowController
from xyclaw.gui.plan_page import PlanPage
from xyclaw.planner import PlanRequest

pytestmark = pytest.mark.gui


def plan_page(ctl: MainWindowController) -> PlanPage:
    ctl.show_page("plan")
    page = ctl.page_widgets["plan"]
    assert isinstance(page, PlanPage)
    return page


def planned(qtbot: QtBot, ctl: MainWindowController, **values: str) -> PlanPage:
    page = plan_page(ctl)
    page.set_values(**values)
    assert not page.validate()
    with qtbot.waitSignal(page.planned, timeout=60000):
        qtbot.mouseClick(page.plan_button, Qt.MouseButton.LeftButton)
    return page


def test_form_errors_are_shown_at_their_fields_and_nothing_is_planned(
    qtbot: QtBot, make_window: MakeWindow, local_engine: Engine
) -> None:
    ctl = make_window(local_engine)
    page = plan_page(ctl)
    page.set_values(task="pretrain", model_size="13", gpus="32-8", budget="lots", deadline="soon")

    assert "did you forget the B" in page.error_text("model_size")
    assert "small to large" in page.error_text("gpus")
    assert "not an amount" in page.error_text("budget")
    assert "not a duration" in page.error_text("deadline")
    assert page.error_text("tokens") == ""
    assert page.fields["model_size"].property("invalid") is True
    assert page.plan() is False
    settle(qtbot, ctl)
    assert page.view is None
    assert local_engine.history("plans") == []

    # Inference: the QPS field is the one in use; the training fields are not checked.
    page.set_values(task="inference", model_size="70B", gpus="8", budget="500", rate="-3")
    assert page.fields["rate"].isEnabled() and not page.fields["deadline"].isEnabled()
    assert "positive request rate" in page.error_text("rate")
    assert page.error_text("deadline") == ""
    page.set_values(rate="20")
    assert page.validate() == {}


def test_plan_shows_ranked_options_reasons_and_every_option_on_the_chart(
    qtbot: QtBot, make_window: MakeWindow, sim_engine: Engine, loop_watchdog: LoopWatchdog
) -> None:
    ctl = make_window(sim_engine)
    # The status bar's first read starts the simulated cloud: not the page's work.
    qtbot.waitUntil(lambda: ctl.status.snapshot is not None, timeout=30000)
    gc.collect()  # the windows of earlier tests are garbage: not this test's pause
    plan_page(ctl)  # its first show builds the page once: not the planning watched here
    loop_watchdog.start()
    page = planned(qtbot, ctl, **PRETRAIN_16)
    view = page.view
    assert view is not None
    result = view.outcome.result
    with loop_watchdog.paused():
        saved = sim_engine.saved_plan(view.plan_id)
    assert saved is not None and len(saved["result"]["options"]) == len(view.options)

    # The table: one row per saved option, in the planner's order, each with Rent.
    assert page.table.rowCount() == len(view.options) == min(50, len(result.options))
    first = result.options[0]
    assert page.option_cell(0, "GPU") == first.gpu
    assert page.option_cell(0, "Cost") == format_amount(first.cost_micro, first.currency)
    assert page.option_cell(0, "Cards") == f"{first.nodes} × {first.gpus_per_node}"
    costs = [o.cost_micro for o in view.options]
    assert costs == sorted(costs)
    assert len(page.rent_buttons) == page.table.rowCount()
    assert page.table.item(0, 0).toolTip().count("•") == len(first.reasons)
    # The reasons of the selected option, with the seed's fabric rules.
    assert "seed 004" in page.details.toPlainText()
    assert f"Plan {view.plan_id}" in page.summary.text()

    # The chart: every feasible option, coloured by fabric, and the Pareto front.
    assert page.chart.point_count() == len(result.options)
    assert page.chart.drawn_families() >= {"ib", "roce"}
    front = sorted(result.pareto_front(), key=lambda o: o.seconds)
    drawn = page.chart.front_points()
    assert len(drawn) == len(front) >= 2
    scale = 24 if max(o.hours for o in result.options) > 240 else 1
    thousands = 1000 if max(o.cost_micro for o in result.options) >= 20_000 * 10**6 else 1
    for (x, y), option in zip(drawn, front, strict=True):
        assert x == pytest.approx(option.hours / scale)
        assert y == pytest.approx(option.cost_micro / 1e6 / thousands)
    # Nothing off the front is both cheaper and faster than a front point.
    for option in front:
        assert not any(
            o.cost_micro < option.cost_micro and o.seconds < option.seconds for o in result.options
        )
    # Every point on the front is marked in the table.
    marked = {r for r in range(page.table.rowCount()) if "◆" in page.table.item(r, 0).text()}
    assert marked == {i for i in view.front if i < len(view.options)}

    # Clicking a point on the chart selects its option in the table.
    target = len(view.options) - 1
    plot = page.chart.plot
    x, y = page.chart._x[target], page.chart._y[target]
    log_x, log_y = plot.ctrl.logXCheck.isChecked(), plot.ctrl.logYCheck.isChecked()
    point = QPointF(math.log10(x) if log_x else x, math.log10(y) if log_y else y)
    scene = plot.vb.mapViewToScene(point)
    where = page.chart.view.mapFromScene(scene)
    qtbot.mouseClick(page.chart.view.viewport(), Qt.MouseButton.LeftButton, pos=where)
    wait_for(qtbot, lambda: page.table.currentRow() == target, timeout=5000)
    assert f"Option {target + 1}" in page.details.toPlainText()


def test_nothing_fits_lists_the_closest_shapes_and_why(
    qtbot: QtBot, make_window: MakeWindow, sim_engine: Engine
) -> None:
    ctl = make_window(sim_engine)
    page = planned(
        qtbot, ctl, task="pretrain", model_size="13B", tokens="20B", gpus="16", budget="50"
    )
    assert page.view is not None and not page.view.options
    assert "nothing fits" in page.summary.text()
    assert page.table.rowCount() == len(page.view.rejected) > 0
    assert page.table.columnCount() == 8
    assert "budget" in page.table.item(0, 7).text()
    assert page.rent_buttons == []
    assert page.chart.point_count() == 0


def test_rent_approve_starts_renting_exactly_the_quote(
    qtbot: QtBot, make_window: MakeWindow, sim_engine: Engine, loop_watchdog: LoopWatchdog
) -> None:
    ctl = make_window(sim_engine)
    # The status bar's first read starts the simulated cloud: not the page's work.
    qtbot.waitUntil(lambda: ctl.status.snapshot is not None, timeout=30000)
    gc.collect()  # the windows of earlier tests are garbage: not this test's pause
    plan_page(ctl)  # its first show builds the page once: not the planning watched here
    loop_watchdog.start()
    loop_watchdog.phase = "plan"
    page = planned(qtbot, ctl, **LORA_13B)
    option = page.view.options[0]
    loop_watchdog.phase = "quote"
    qtbot.mouseClick(page.rent_buttons[0], Qt.MouseButton.LeftButton)
    wait_for(qtbot, lambda: page.rent_flow.dialog is not None, timeout=30000)
    dialog = page.rent_flow.dialog
    quote = page.rent_flow.quote
    assert dialog.dialog.isVisible()
    facts = {k: v.text() for k, v in dialog.card.facts.items()}
    assert facts["What"].startswith(f"{option.gpus} × {option.gpu}")
    assert format_amount(quote.price_per_hour_micros, "CNY") in facts["Price"]
    assert "CNY/h" in facts["Price"]
    assert facts["Estimated total"].startswith(format_amount(quote.estimated_total_micros, "CNY"))
    assert facts["Budget"].startswith("500.00 CNY")
    assert quote.digest.startswith(facts["Digest"].rstrip("…"))
    assert dialog.card.expiry is not None and dialog.card.expiry.text().startswith("for ")

    loop_watchdog.phase = "approve and rent"
    qtbot.mouseClick(dialog.card.approve_button, Qt.MouseButton.LeftButton)
    wait_for(
        qtbot,
        lambda: any(
            v.title.startswith("rent") and v.state == "succeeded"
            for v in ctl.operations.views.values()
        ),
        timeout=120000,
    )
    assert not dialog.dialog.isVisible()
    assert ctl.operations_dock.isVisible()
    with loop_watchdog.paused():
        [cluster] = sim_engine.clusters()
        saved = sim_engine.saved_plan(page.view.plan_id)
    assert (cluster.gpu, cluster.gpu_count, cluster.region) == (
        quote.gpu,
        quote.gpu_count,
        quote.region,
    )
    assert cluster.price_per_gpu_hour_micros == quote.price_per_gpu_hour_micros
    assert cluster.budget_micros == 500_000_000
    assert saved is not None and saved["chosen_option"] == 1
    settle(qtbot, ctl)
    with loop_watchdog.paused():
        sim_engine.down(cluster.name).result(60)


def test_reject_or_closing_the_approval_rents_nothing(
    qtbot: QtBot, make_window: MakeWindow, sim_engine: Engine
) -> None:
    ctl = make_window(sim_engine)
    page = planned(qtbot, ctl, **LORA_13B)
    said: list[str] = []
    page.message.connect(said.append)

    page.rent(1)
    wait_for(qtbot, lambda: page.rent_flow.dialog is not None)
    first = page.rent_flow.dialog
    qtbot.mouseClick(first.card.reject_button, Qt.MouseButton.LeftButton)
    wait_for(qtbot, lambda: not first.dialog.isVisible())
    assert any("nothing was rented" in s for s in said)

    page.rent(2)  # a second quote, dismissed with Escape
    wait_for(qtbot, lambda: page.rent_flow.dialog is not first)
    second = page.rent_flow.dialog
    qtbot.keyClick(second.dialog, Qt.Key.Key_Escape)
    wait_for(qtbot, lambda: not second.dialog.isVisible())
    assert second.decision == "reject"

    settle(qtbot, ctl)
    qtbot.wait(300)
    assert sim_engine.clusters(include_released=True) == []
    assert not [v for v in ctl.operations.views.values() if v.title.startswith("rent")]
    assert sim_engine.saved_plan(page.view.plan_id)["chosen_option"] is None
    assert page.rent_flow.busy is False  # a new rent may be asked for


def test_saved_report_holds_the_options_the_chart_and_the_fabric_reasoning(
    qtbot: QtBot, make_window: MakeWindow, sim_engine: Engine, tmp_path: Path
) -> None:
    ctl = make_window(sim_engine)
    page = planned(qtbot, ctl, **PRETRAIN_16, budget="20000")
    view = page.view
    target = tmp_path / "reports" / "selection.html"
    with qtbot.waitSignal(page.report_saved, timeout=30000) as saved:
        assert page.save_report(target)
    assert saved.args == [str(target)]
    text = target.read_text(encoding="utf-8")

    assert f"GPU selection report: plan {view.plan_id}" in text
    # Every option of the table, with its cost, in the report's options table.
    options_table = text.split("<h2>Options</h2>", 1)[1].split("</table>", 1)[0]
    rows = re.findall(r"<tr>(.*?)</tr>", options_table, re.S)[1:]
    assert len(rows) == len(view.options)
    for row, option in zip(rows, view.options, strict=True):
        assert option.gpu in row and option.fabric in row
        assert format_amount(option.cost_micro, option.currency) in row
        assert html.escape(option.reasons[0][1], quote=True) in row

    # The chart, as an embedded PNG of the plot.
    found = re.search(r'src="data:image/png;base64,([A-Za-z0-9+/=]+)"', text)
    assert found is not None
    png = base64.b64decode(found[1])
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    image = QImage.fromData(png, "PNG")
    assert image.width() == 1000 and image.height() > 300

    # RoCE vs InfiniBand for this request, the seed's rules, and the assumptions.
    fabric = text.split("<h2>RoCE v2 or InfiniBand</h2>", 1)[1].split("<h2>", 1)[0]
    assert "RoCE takes" in fabric and "than InfiniBand" in fabric
    assert "mid-cluster-ib" in fabric  # rule 2 applies to 16 cards of 13B training
    assert "24.5" in fabric and "15.2" in fabric  # the seed's measured days
    assumptions = text.split("<h2>Assumptions</h2>", 1)[1]
    assert "10 minutes to bring the cluster up" in assumptions
    assert "marketing" in assumptions
    request = PlanRequest.parse(**PRETRAIN_16)
    assert not request.tokens_assumed and "assumed (" not in assumptions


def test_a_slurm_partition_says_when_it_starts_beside_a_rental(
    qtbot: QtBot, make_window: MakeWindow, local_engine: Engine
) -> None:
    """Issue 33: a full partition of the lab's Slurm cluster is an option with its wait, in a
    Starts column beside cost and time, and the summary compares it with the best rental."""
    from tests.planner.test_plan_queue import partition, rented
    from xyclaw.gui.plan_page import PlanView

    ctl = make_window(local_engine)
    page = plan_page(ctl)
    request = PlanRequest.parse(
        task="finetune-lora", model_size="7B", tokens="1B", gpus="16", currency="USD"
    )
    outcome = local_engine.plan(
        request,
        providers=[],
        extra_offers=[partition(3, ((1, 0), (2, 2400))), *rented()],
        use_memory=False,
    )
    page.show_plan(PlanView.of(outcome))
    rows = range(page.table.rowCount())
    starts = {page.option_cell(r, "Where"): page.option_cell(r, "Starts") for r in rows}
    assert starts == {"lab · gpu": "~40 min", "lambda · us-east-1": "now"}
    summary = html.unescape(page.summary.text())
    assert "side by side: lab's 16 A800 in about 40 min for 0.00 USD, or lambda's 16 H100 now" in (
        summary
    )
