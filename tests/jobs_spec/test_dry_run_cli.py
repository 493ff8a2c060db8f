"""`xyclaw launch --dry-run SPEC [--cluster C] [--json]`: what would run where, and the
quote; rents and runs nothing (issue 29 point 3)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from xyclaw.cli.main import main

SHAPES = Path(__file__).parent / "skypilot_shapes"


def test_json_for_a_task_that_rents(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["launch", "--dry-run", str(SHAPES / "gpus_list.yaml"), "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["accepted"]
    assert (data["nodes"], data["gpu"], data["gpus_per_node"]) == (1, "H100", 8)
    assert data["cluster"] is None  # a cluster would be rented first
    quote = data["quote"]
    assert quote is not None, data["quote_problem"]
    assert (quote["gpu"], quote["nodes"], quote["gpus_per_node"]) == ("H100", 1, 8)
    assert data["quote_text"].startswith("8 x H100")
    fields = {w["field"] for w in data["warnings"]}
    assert {"resources.accelerators", "resources.disk_size"} <= fields
    assert "bash -i" in data["run"]
    # nothing was rented: no cluster exists afterwards
    assert main(["clusters", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == []


def test_text_names_the_refusal_and_its_line(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["launch", "--dry-run", str(SHAPES / "mi300.yaml")])
    out = capsys.readouterr().out
    assert code == 1
    assert f"refused: {SHAPES / 'mi300.yaml'}:2: resources.accelerators:" in out
    assert "AMD GPUs are planned" in out


def test_text_lists_what_would_run(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["launch", "--dry-run", str(SHAPES / "setup_rank.yaml")])
    out = capsys.readouterr().out
    assert code == 0
    assert "3 node(s), 4 x V100 per node" in out
    assert "SKYPILOT_SETUP_NODE_RANK=0" in out
    assert "setup (as each node runs it):" in out and "run (as each node runs it):" in out
    assert "quote it would ask you to approve:" in out or "no quote:" in out
    assert out.rstrip().endswith("nothing was rented, uploaded or run")
