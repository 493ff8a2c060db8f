"""`xyclaw ask` end to end: the rules brain, the simulated cloud started in the background."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from xyclaw.cli.main import main
from xyclaw.paths import AppPaths
from xyclaw.sim.cloud import launcher

KEYS = {"conversation", "agent", "reply", "tool_calls", "pending_approval", "tokens", "cost"}


@pytest.fixture
def cli(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("XYCLAW_SIM_PROVISION_DELAY_S", "0")
    yield
    launcher.stop(AppPaths.from_environment().data_dir / "sim")


def ask(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict]:
    code = main(["ask", "--json", *args])
    out = capsys.readouterr().out
    return code, json.loads(out)


def test_ask_json_plan_rent_later_approve_and_reject(
    cli: None, capsys: pytest.CaptureFixture[str]
) -> None:
    code, plan = ask(capsys, "plan a LoRA fine-tune of a 7B model on 8 GPUs, budget 2000 CNY")
    assert code == 0 and set(plan) == KEYS
    assert plan["agent"] == "planner" and plan["pending_approval"] is None
    [call] = plan["tool_calls"]
    assert (call["tool"], call["effect"], call["status"]) == ("plan", "read", "done")
    assert call["result"]["options"]
    assert plan["tokens"] == {"in": 0, "out": 0}
    cid = str(plan["conversation"])

    code, rent = ask(capsys, "--conversation", cid, "rent option 1")
    assert code == 3
    [call] = rent["tool_calls"]
    assert (call["tool"], call["effect"], call["status"]) == (
        "create_cluster",
        "spend",
        "pending_approval",
    )
    card = rent["pending_approval"]
    assert card["effect"] == "spend" and card["details"]["digest"]

    code, done = ask(capsys, "--conversation", cid, "--approve")
    assert code == 0 and done["pending_approval"] is None
    assert [c["status"] for c in done["tool_calls"]] == ["done"]
    name = done["tool_calls"][0]["result"]["cluster"]["name"]

    code, release = ask(capsys, "--conversation", cid, f"release {name}")
    assert code == 3 and release["pending_approval"]["effect"] == "destroy"
    code, kept = ask(capsys, "--conversation", cid, "--reject")
    assert code == 0 and [c["status"] for c in kept["tool_calls"]] == ["rejected"]

    code = main(["ask", "--conversation", cid, "--approve"])
    assert code == 2  # nothing is waiting any more
    assert "nothing waiting" in capsys.readouterr().err


@pytest.mark.timeout(360)  # a whole flow with a real job: 47 s at load 8 on 2 cores
def test_demo_fast_runs_every_step_with_the_real_jobs_methods(
    cli: None, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["demo", "--fast"])
    out = capsys.readouterr().out
    assert code == 0, out[-3000:]
    steps = [line.split(":")[0] for line in out.splitlines() if line.startswith("-- ")]
    assert list(dict.fromkeys(steps)) == [
        "-- plan",
        "-- rent",
        "-- tune",
        "-- launch",
        "-- follow",
        "-- release",
        "-- history",
    ]
    assert "skipped" not in out
    for spent in ("spend", "exec", "destroy"):
        assert f"approval ({spent})" in out
    assert "launch_job: done (launched job plain-python)" in out
    # Followed on the simulated nodes until it ended, then its real log was read back.
    assert "job_status: done (job plain-python: succeeded)" in out
    assert "job_logs: done" in out and "training finished" in out
    assert "release_cluster: done" in out and out.rstrip().splitlines()[-1].startswith(
        "demo finished in"
    )
