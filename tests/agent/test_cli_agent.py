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
    assert card["card"] == card["digest"][:8] == card["action"]["card"]

    code, done = ask(capsys, "--conversation", cid, "--approve", card["card"])
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
    # It launches the fine-tune it planned (issue 28): the 7B LoRA sample, not plain-python.
    assert "you> LoRA fine-tune a 7B model on 8 GPUs" in out
    assert "you> launch lora7b-1node on " in out
    assert "launch_job: done (launched job qwen7b-lora-1node)" in out
    # Followed on the simulated nodes until it ended, then its real log was read back.
    assert "job_status: done (job qwen7b-lora-1node: succeeded)" in out
    assert "job_logs: done" in out and "training finished" in out
    assert "release_cluster: done" in out and out.rstrip().splitlines()[-1].startswith(
        "demo finished in"
    )


def test_a_heartbeat_proposal_is_answered_from_the_terminal(
    cli: None, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.agent.conftest import raise_alert
    from xyclaw.agent.heartbeat import Heartbeat
    from xyclaw.agent.runtime import AgentRuntime
    from xyclaw.cli.context import CliContext

    code, plan = ask(capsys, "plan a LoRA fine-tune of a 7B model on 8 GPUs")
    cid = str(plan["conversation"])
    code, rent = ask(capsys, "--conversation", cid, "rent option 1")
    assert code == 3
    code, rented = ask(capsys, "--conversation", cid, "--approve", rent["pending_approval"]["card"])
    assert code == 0
    name = rented["tool_calls"][0]["result"]["cluster"]["name"]
    assert f"Rented **{name}**" in rented["reply"]

    # The app's heartbeat (another process) finds the cluster idle and proposes releasing it.
    ctx = CliContext(paths=AppPaths.from_environment())
    try:
        engine = ctx.engine()
        runtime = AgentRuntime(engine, store=ctx.store(), paths=ctx.paths, config=ctx.config)
        ctx.on_close(runtime.close)
        cluster = engine.cluster(name)
        raise_alert(ctx.store(), cluster.id, "gpu.idle_during_job", severity="warning")
        [posted] = Heartbeat(runtime).check_once()
        assert posted.proposed is not None and posted.proposed.pending_approval is not None
        monitor = str(posted.conversation_id)
    finally:
        ctx.close()

    code = main(["ask", "--conversation", monitor, "--reject", "--json"])
    assert code == 0 and [c["tool"] for c in json.loads(capsys.readouterr().out)["tool_calls"]]
    code = main(["clusters", "--json"])
    assert code == 0 and name in capsys.readouterr().out  # a no leaves it running

    # A second alert: a second card, this time approved from the terminal.
    ctx = CliContext(paths=AppPaths.from_environment())
    try:
        runtime = AgentRuntime(ctx.engine(), store=ctx.store(), paths=ctx.paths, config=ctx.config)
        ctx.on_close(runtime.close)
        raise_alert(ctx.store(), cluster.id, "node.unreachable", node_id=cluster.nodes[0].id)
        [posted] = Heartbeat(runtime).check_once()
        assert posted.proposed is not None and posted.proposed.pending_approval is not None
        shown = posted.proposed.pending_approval.card_id
    finally:
        ctx.close()
    code, done = ask(capsys, "--conversation", monitor, "--approve", shown)
    assert code == 0 and done["agent"] == "monitor"
    [call] = done["tool_calls"]
    assert (call["tool"], call["effect"], call["status"]) == ("release_cluster", "destroy", "done")
    assert done["reply"] == f"Released **{name}**: billing stopped."


def test_ask_approve_must_name_the_card_waiting(
    cli: None, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 25, attack 4: card A is shown, another client adds card B; a yes naming A must
    not rent B, and a yes naming no card is refused with the card waiting and how to name it."""
    code, plan = ask(capsys, "plan a LoRA fine-tune of a 7B model on 8 GPUs, budget 2000 CNY")
    cid = str(plan["conversation"])
    code, first = ask(capsys, "--conversation", cid, "rent option 1")
    a = first["pending_approval"]
    assert code == 3
    code, second = ask(capsys, "--conversation", cid, "rent option 2")  # another client
    b = second["pending_approval"]
    assert code == 3 and a["card"] != b["card"]

    assert main(["ask", "--conversation", cid, "--approve", a["card"]]) == 2
    err = capsys.readouterr().err
    assert f"card {a['card']} is not the one waiting" in err and b["card"] in err
    assert main(["ask", "--conversation", cid, "--approve"]) == 2
    err = capsys.readouterr().err
    assert "say which card you approve" in err and f"--approve {b['card']}" in err
    assert main(["clusters", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == []  # nothing rented

    code, done = ask(capsys, "--conversation", cid, "--approve", b["card"])
    assert code == 0 and [c["status"] for c in done["tool_calls"]] == ["done"]
    rented = done["tool_calls"][0]["result"]["cluster"]
    assert rented["gpus"] == b["action"]["quote"]["gpu_count"]
