"""Issue 28 item 8: the tour's banner keeps one height across its steps, whatever each
step's words and status say, so the page under it does not jump at each step; and the
tour launches the 7B LoRA fine-tune it plans (a short one-node sample), and says so."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget
from pytestqt.qtbot import QtBot

from xyclaw.gui.tour import STEPS, TourPanel

pytestmark = pytest.mark.gui

STATUSES = [
    ("Starting the tour…", None),
    ("The tour is over.", "Finish"),
    ("The agents are working…", None),
    ("Approve the card in the chat to go on.", None),
    ("Done.", "Next"),
    ("Job 1 is running…", None),
    ("Not done (the agents asked a question); nothing else happens until you go on.", "Try again"),
]


@pytest.mark.parametrize("width", [1280, 900])
def test_the_banner_keeps_its_height_on_every_step(qtbot: QtBot, width: int) -> None:
    host = QWidget()
    qtbot.addWidget(host)
    layout = QVBoxLayout(host)
    panel = TourPanel(host)
    layout.addWidget(panel)
    layout.addWidget(QLabel("the page"), 1)
    host.resize(width, 800)
    host.show()
    qtbot.waitExposed(host)
    heights = set()
    for index, step in enumerate(STEPS):
        for status, next_text in STATUSES:
            panel.show_step(index, step, status, next_text)
            layout.activate()  # the layout settles now, not whenever a loaded machine gets to it
            qtbot.wait(5)
            heights.add(panel.height())
            assert panel.body.height() >= panel.body.heightForWidth(panel.body.width())
    assert len(heights) == 1, sorted(heights)


def test_the_tour_launches_the_lora_fine_tune_it_plans() -> None:
    """The plan step asks for a 7B LoRA fine-tune; the launch step runs a LoRA fine-tune of
    a 7B model (a bundled sample, named in its words), which takes no secret from this
    machine, so it runs on the simulated cloud without HF_TOKEN (lora-2node asks for it)."""
    import re
    from pathlib import Path

    from xyclaw.jobs.spec import load_spec

    steps = {step.key: step for step in STEPS}
    assert steps["plan"].message is not None and "LoRA" in steps["plan"].message
    assert re.search(r"\b7B\b", steps["plan"].message)
    launched = steps["launch"].message
    assert launched is not None
    sample = launched.split()[1]  # "launch <sample> on {cluster}"
    body = steps["launch"].body
    assert sample in body and "7B LoRA" in body and "HF_TOKEN" in body

    examples = Path(__file__).resolve().parents[2] / "resources" / "examples"
    runs = load_spec(examples / f"{sample}.yaml").spec
    assert "torchrun" in runs.run and "--lora" in runs.run
    assert re.search(r"--model \S*7B", runs.run)
    assert not runs.env_from_local  # the sample the tour runs takes no secret from here
    assert "100 steps" in body
    assert "--max_steps 100" in runs.run
    assert "HF_TOKEN" in load_spec(examples / "lora-2node.yaml").spec.env_from_local
