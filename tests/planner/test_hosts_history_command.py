"""`xyclaw hosts history` and `xyclaw plan --no-memory` over a prepared history (issue 36)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.track_history import write_history
from xyclaw.cli.main import main
from xyclaw.paths import AppPaths

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def history() -> dict[str, int]:
    paths = AppPaths.from_environment()
    paths.database.parent.mkdir(parents=True, exist_ok=True)
    return write_history(paths.database)


def test_hosts_history_shows_each_provider_and_what_happened(
    history: dict[str, int], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["hosts", "history"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    memory = next(line for line in lines if line.startswith("memory "))
    drifty = next(line for line in lines if line.startswith("drifty "))
    assert memory.split()[1:4] == ["4", "3", "1"]  # rentals, failed rentals, XIDs
    assert "61%" in memory and "5 min" in memory
    assert "+12%" in drifty
    assert "bring_up_failed: bootstrap failed on roce-dead-node1" in out
    assert "ib-old-node1: xid: XID 79" in out


def test_hosts_history_by_node_class_and_host_as_json(
    history: dict[str, int], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["hosts", "history", "--by", "node_class", "--days", "30", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    by_key = {s["key"]: s for s in data["standings"]}
    assert by_key["memory / Xiamen / A800 / roce-200"]["counts"]["failed_rentals"] == 2
    assert "memory / Xiamen / A800 / ib-hdr-200" in by_key  # the clean rental is remembered
    assert by_key["memory / Xiamen / A800 / ib-hdr-200"]["counts"] == {"failed_rentals": 0}
    assert main(["hosts", "history", "--host", "ib-old-node1", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [s["key"] for s in data["standings"]] == ["ib-old-node1"]
    assert [m["kind"] for m in data["marks"]] == ["xid"]


def test_plan_says_what_the_history_ranked_down_unless_told_not_to(
    history: dict[str, int], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = (ROOT / "resources" / "catalog" / "offers.csv").read_text(encoding="utf-8")
    lines = source.splitlines()
    header = next(line for line in lines if line.startswith("provider,"))
    rows = [line.replace("sim,", "drifty,", 1) for line in lines if line.startswith("sim,xm-a800")]
    offers = tmp_path / "drifty.csv"
    offers.write_text("\n".join([header, *rows]) + "\n", encoding="utf-8")
    args = ["plan", "--task", "finetune-lora", "--model-size", "13B", "--gpus", "16"]
    args += ["--provider", "drifty", "--offers", str(offers), "--json"]
    assert main(args) == 0
    options = json.loads(capsys.readouterr().out)["options"]
    assert options and all(o["reasons"][0]["rule"] == "memory-price-drift" for o in options)
    assert main([*args, "--no-memory"]) == 0
    plain = json.loads(capsys.readouterr().out)["options"]
    assert not any(r["rule"].startswith("memory-") for o in plain for r in o["reasons"])
    assert [o["offer_id"] for o in plain] == [o["offer_id"] for o in options]
