"""A tool call claimed ('running') by a process that then died mid-effect: marked failed
with a note to check what it did, never run again, and never while its process lives."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from tests.agent import fake_llm as f
from tests.agent.conftest import Events, MakeRuntime, World
from xyclaw.agent.types import Decision
from xyclaw.store import Store
from xyclaw.store import conversations as conv
from xyclaw.store.claimant import claimant_gone, this_process

# Claims the card as a yes would (execute's claim), says so, then hangs mid-effect.
CLAIMER = (
    "import sys, time\n"
    "from pathlib import Path\n"
    "from xyclaw.store import Store\n"
    "from xyclaw.store import conversations as conv\n"
    "with Store(Path(sys.argv[1])) as store:\n"
    "    won = conv.claim_tool_call(store, int(sys.argv[2]), sys.argv[3], status='running',"
    " decision='approve', decided_by='user (other window)')\n"
    "    print('CLAIMED' if won else 'LOST', flush=True)\n"
    "    time.sleep(600)\n"
)


def _claim_in_child(db: Path, cid: int, call_id: str) -> subprocess.Popen[str]:
    child = subprocess.Popen(
        [sys.executable, "-c", CLAIMER, str(db), str(cid), call_id],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])},
    )
    assert child.stdout is not None
    assert child.stdout.readline().strip() == "CLAIMED"
    return child


def _row(store: Store, cid: int, call_id: str) -> dict[str, object]:
    row = conv.get_tool_call(store, cid, call_id)
    assert row is not None
    return row


def test_a_call_whose_claiming_process_was_killed_is_failed_with_a_note_and_never_run(
    world: World, make_runtime: MakeRuntime
) -> None:
    script = [f.call("create_cluster", {"gpu": "A10", "gpus": 1}), f.text("Rented.")]
    with f.FakeLLM(script, router=lambda body: "provisioner") as llm:
        rt = make_runtime(llm)
        cid = rt.new_conversation()
        card = rt.send(cid, "rent one A10", Events()).pending_approval
        assert card is not None
        child = _claim_in_child(world.paths.database, cid, card.approval_id)
        try:
            row = _row(rt.store, cid, card.approval_id)
            assert row["status"] == "running" and row["claimant_pid"] == child.pid
            # while the claimant lives, neither a runtime's start nor opening the
            # conversation touches its call
            again = make_runtime(llm)
            again.messages(cid)
            assert _row(rt.store, cid, card.approval_id)["status"] == "running"
        finally:
            child.send_signal(signal.SIGKILL)
            child.wait(timeout=30)
        assert child.returncode == -signal.SIGKILL

        # opened again (the window shows the conversation): failed, and it says why
        shown = [m.tool_call for m in rt.messages(cid) if m.tool_call is not None]
        card_call = next(c for c in shown if c.call_id == card.approval_id)
        assert card_call.status == "failed"
        assert card_call.error is not None and "XyClaw stopped while this ran" in card_call.error
        assert "xyclaw clusters" in card_call.error
        assert card_call.error_said is not None
        assert "运行期间 XyClaw 停止了" in card_call.error_said.in_language("zh")

        # the yes that was claimed is never acted on again: this window's yes does nothing
        result = rt.answer(cid, Decision.approve(card), Events())
    assert world.engine.clusters() == []
    assert "already answered elsewhere" in result.reply
    assert _row(rt.store, cid, card.approval_id)["status"] == "failed"


def test_a_runtime_starting_after_the_kill_marks_the_call(
    world: World, make_runtime: MakeRuntime
) -> None:
    cid = conv.create_conversation(world.store, "t", brain="rules")
    conv.upsert_tool_call(world.store, cid, "call_1", tool="release_cluster", effect="destroy")
    conv.upsert_tool_call(world.store, cid, "call_1", status="pending_approval")
    # a call of before the claimant was kept: nobody can tell whose it is, so it stays
    conv.upsert_tool_call(world.store, cid, "call_old", tool="clusters", effect="read")
    world.store.writer.call(
        lambda db: db.conn.execute(
            "UPDATE tool_calls SET status = 'running', claimant_pid = NULL, claimant = NULL"
            " WHERE call_id = 'call_old'"
        )
    )
    child = _claim_in_child(world.paths.database, cid, "call_1")
    child.send_signal(signal.SIGKILL)
    child.wait(timeout=30)

    make_runtime()  # its start
    row = _row(world.store, cid, "call_1")
    assert row["status"] == "failed" and row["decision"] == "approve"
    assert "check `xyclaw clusters` and `xyclaw jobs`" in str(row["error"])
    assert _row(world.store, cid, "call_old")["status"] == "running"


def test_a_claimant_is_told_apart_from_a_later_process_with_its_pid() -> None:
    pid, identity = this_process()
    assert not claimant_gone(pid, identity)  # this very process
    host, boot, start = identity.split("|")
    assert start, "the start time is read from /proc on Linux"
    # the same pid, started at another time (the pid was reused): not the claimant
    assert claimant_gone(pid, f"{host}|{boot}|{int(start) + 1}")
    # the same pid and start, but before the machine restarted
    assert claimant_gone(pid, f"{host}|another-boot|{start}")
    # another machine's process is never judged from here; nor a row without a record
    assert not claimant_gone(pid, f"not-{host}|{boot}|{int(start) + 1}")
    assert not claimant_gone(None, None) and not claimant_gone(pid, "garbage")
