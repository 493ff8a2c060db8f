"""Issue 28 item 8: the quote a job launch shows for renting a new cluster says the
estimated total (price x the hours the spec bounds the run to), as the Plan page's rent
card does; a spec with no bound says so instead of leaving the total out."""

from __future__ import annotations

from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from tests.gui_jobs.conftest import MakePage, wait
from tests.gui_jobs.conftest import make_page as make_page  # the Jobs page's fixture, here too
from xyclaw.engine import Engine
from xyclaw.gui.formatting import money
from xyclaw.gui.job_launch import RENT

pytestmark = pytest.mark.gui

SPEC = "resources:\n  accelerators: A100-80GB:8\nrun: echo hi\n"


def _card_facts(
    engine: Engine,
    make_page: MakePage,
    qtbot: QtBot,
    spec: Path,
) -> dict[str, str]:
    page = make_page(engine)
    wait(qtbot, lambda: page._loaded_once)
    page.launch_from_file(spec)
    flow = page.launch_flow
    wait(qtbot, lambda: flow.dialog is not None and flow.dialog.isVisible())
    dialog = flow.dialog
    assert dialog is not None
    dialog.target.setCurrentIndex(dialog.target.findData(RENT))
    failed: list[object] = []
    flow.failed.connect(failed.append)
    dialog.launch_button.click()
    wait(qtbot, lambda: failed or (flow.rent.dialog and flow.rent.dialog.dialog.isVisible()))
    assert not failed, failed
    assert flow.rent.dialog is not None
    facts = {k: v.text() for k, v in flow.rent.dialog.card.facts.items()}
    flow.rent.dialog.dialog.reject()
    return facts


def test_the_quote_for_a_bounded_job_shows_its_estimated_total(
    sim_engine: Engine,
    make_page: MakePage,
    qtbot: QtBot,
    tmp_path: Path,
) -> None:
    spec = tmp_path / "job.yaml"
    spec.write_text(SPEC + "max_runtime: 3h\n")
    engine = sim_engine
    facts = _card_facts(engine, make_page, qtbot, spec)
    total = next(v for k, v in facts.items() if "total" in k.lower())
    quote = engine.launch_quote(spec)
    assert quote.estimated_total_micros == quote.price_per_hour_micros * 3
    assert total == f"{money(quote.estimated_total_micros, quote.currency)} for 3.0 h"


def test_the_quote_for_an_unbounded_job_says_there_is_no_total_and_why(
    sim_engine: Engine,
    make_page: MakePage,
    qtbot: QtBot,
    tmp_path: Path,
) -> None:
    spec = tmp_path / "job.yaml"
    spec.write_text(SPEC)
    engine = sim_engine
    facts = _card_facts(engine, make_page, qtbot, spec)
    total = next((v for k, v in facts.items() if "total" in k.lower()), None)
    assert total is not None, facts
    assert "max_runtime" in total and "/h" in total
