"""A pending approval survives the process being killed; answered later, it rents once."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.agent import fake_llm as f
from tests.agent.conftest import Events, MakeRuntime, World
from xyclaw.agent.types import Decision
from xyclaw.errors import UsageError

ROOT = Path(__file__).resolve().parents[2]


def test_killed_while_waiting_then_approved_after_restart_rents_exactly_once(
    world: World, make_runtime: MakeRuntime
) -> None:
    script = [f.call("create_cluster", {"gpu": "A10", "gpus": 2}), f.text("Rented it.")]
    with f.FakeLLM(script, router=lambda body: "provisioner") as llm:
        child = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "tests.agent.pending_child",
                world.server.url,
                world.server.cloud.token,
                llm.base_url,
            ],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ},
        )
        try:
            line = child.stdout.readline() if child.stdout else ""
            if not line.startswith("PENDING"):
                child.kill()
                pytest.fail(f"child did not reach the approval: {line!r} {child.stderr.read()}")
            cid = int(line.split()[1])
        finally:
            child.send_signal(signal.SIGKILL)
            child.wait(30)
        assert world.engine.clusters() == []

        rt = make_runtime(llm)
        pending = rt.pending_approval(cid)
        assert pending is not None and pending.tool == "create_cluster"
        assert [c.id for c in rt.conversations() if c.pending_approval] == [cid]
        result = rt.answer(cid, Decision.approve(pending), Events())
        assert result.reply == "Rented it."
        assert len(world.engine.clusters()) == 1
        with pytest.raises(UsageError, match="nothing waiting"):
            rt.answer(cid, Decision.approve(pending), Events())
        # A second runtime over the same files sees the same: no approval left, one cluster.
        again = make_runtime(llm)
        assert again.pending_approval(cid) is None
        assert len(world.engine.clusters()) == 1
        assert len(world.server.cloud.list_clusters()[1]["clusters"]) == 1
