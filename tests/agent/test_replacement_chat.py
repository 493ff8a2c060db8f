"""A job's node lost for good, followed from a conversation: the recovery's replacement
node reaches the user as an approval card (the same card as renting: what, where, price
per hour, estimated total, expiry, digest). Only the user's answer to it decides: a yes
rents exactly the quoted node and attempt 2 runs; a no rents nothing. A model's words or
its own call of the tool never approve."""

from __future__ import annotations

import argparse
import io
from pathlib import Path

import pytest

from tests.agent import fake_llm as f
from tests.agent.conftest import Events
from tests.jobs_runtime.conftest import FAST
from tests.jobs_runtime.helpers import finished, wait_for
from tests.jobs_runtime.test_replacement_approval import lose_node, running_job
from tests.lifecycle.conftest import MakeWorld, World, make_world
from xyclaw.agent.presets import key_secret_name
from xyclaw.agent.runtime import AgentRuntime
from xyclaw.agent.types import Decision
from xyclaw.config import load_config
from xyclaw.paths import AppPaths
from xyclaw.records.jobs import JobRecord, JobState

__all__ = ["make_world"]


def runtime_for(world: World, **env: str) -> AgentRuntime:
    paths = AppPaths.from_environment()
    assert world.parts is not None
    return AgentRuntime(
        world.engine,
        store=world.parts.store,
        paths=paths,
        config=load_config(paths.config_file, environ=env),
    )


def asking_job(world: World, tmp_path: Path, name: str) -> JobRecord:
    job = running_job(world, tmp_path, name)
    lose_node(world, job)
    wait_for("the ask", lambda: world.engine.replacement_asks(), timeout=60)
    return job


def test_the_card_shows_the_quote_and_a_yes_rents_exactly_it(
    make_world: MakeWorld, tmp_path: Path
) -> None:
    world = make_world(job_options=FAST)
    runtime = runtime_for(world)
    try:
        cid = runtime.new_conversation()
        assert runtime.propose_replacement(cid, Events()) is None  # nothing asks yet
        job = asking_job(world, tmp_path, "chat-yes")
        (ask,) = world.engine.replacement_asks()

        result = runtime.propose_replacement(cid, Events())

        assert result is not None and result.pending_approval is not None
        card = result.pending_approval
        assert (card.tool, card.effect, card.agent) == ("approve_replacement", "spend", "operator")
        assert card.details["digest"] == ask.quote.digest
        assert card.details["shape"] == "1 node x 8 A800"
        assert card.details["region"] == ask.quote.region
        assert card.details["price_per_hour"] and card.details["estimated_total"]
        assert card.details["expires_at"] == ask.quote.expires_at
        assert card.details["lost_nodes"] == list(ask.nodes)
        assert f"Job {job.name} lost" in card.title and "8 x A800" in card.title
        assert len(world.provider.clusters()) == 1  # nothing rented while the card waits
        assert runtime.propose_replacement(cid, Events()) is None  # one card, not a second

        runtime.answer(cid, Decision.approve(card, by="user (terminal)"), Events())

        done = finished(world.engine, job.id, timeout=120)
        assert done.state is JobState.SUCCEEDED, done.error
        assert done.attempts[0].cause == "node_lost"
        assert len(world.provider.clusters()) == 2
        (replacement,) = [c for c in world.engine.clusters() if c.id != job.cluster_id]
        assert (replacement.gpu, replacement.gpu_count, replacement.region) == (
            ask.quote.gpu,
            ask.quote.gpu_count,
            ask.quote.region,
        )
        lines = [ln.text for ln in world.engine.job_logs(str(job.id), attempt=2)]
        assert lines and lines[0].startswith("attempt 2 on ")
        (row,) = [c for c in runtime.tool_calls(cid) if c.tool == "approve_replacement"]
        assert row.status == "done"
        assert runtime.propose_replacement(cid, Events()) is None
    finally:
        runtime.close()


def test_a_no_on_the_card_rents_nothing(make_world: MakeWorld, tmp_path: Path) -> None:
    world = make_world(job_options=FAST)
    runtime = runtime_for(world)
    try:
        cid = runtime.new_conversation()
        job = asking_job(world, tmp_path, "chat-no")
        assert runtime.propose_replacement(cid, Events()) is not None

        reply = runtime.answer(cid, Decision("reject", by="user (terminal)"), Events())

        assert reply.reply == "Cancelled: you said no to renting a replacement node."
        # The job hears the no (its recovery thread stops waiting) without the quote expiring.
        wait_for("the no is heard", lambda: not world.engine.replacement_asks(), timeout=30)

        def ended() -> JobRecord | None:
            world.clock.advance(1.0)  # the node does not come back
            current = world.engine.job(str(job.id))
            return current if current.state.finished else None

        done = wait_for("the job ends", ended, timeout=120)
        assert done.state is JobState.FAILED
        assert len(world.provider.clusters()) == 1
        events = [e["message"] for e in world.engine.recent_events(50)]
        assert any("no replacement rented" in m and "you declined it" in m for m in events)
    finally:
        runtime.close()


def test_a_model_saying_approve_or_calling_the_tool_approves_nothing(
    make_world: MakeWorld, tmp_path: Path
) -> None:
    world = make_world(job_options=FAST)
    job = asking_job(world, tmp_path, "chat-model")
    (ask,) = world.engine.replacement_asks()
    script = [
        f.text("approve. Approved: I approve the replacement, yes."),
        f.call("approve_replacement", {"job": str(job.id), "digest": ask.quote.digest}),
    ]
    world.engine.secrets.set(key_secret_name("custom"), f.API_KEY)
    with f.FakeLLM(script, router=lambda body: "operator") as llm:
        runtime = runtime_for(
            world,
            XYCLAW_LLM_PRESET="custom",
            XYCLAW_LLM_BASE_URL=llm.base_url,
            XYCLAW_LLM_MODEL="fake-model",
            XYCLAW_LLM_MAX_RETRIES="0",
        )
        try:
            cid = runtime.new_conversation()
            said = runtime.send(cid, "how is the job doing?", Events())
            assert "approve" in said.reply.lower() and said.pending_approval is None
            assert world.engine.replacement_asks() == [ask]  # words are not an answer

            called = runtime.send(cid, "and now?", Events())
            assert called.pending_approval is not None  # the model's call only asks
            assert called.pending_approval.details["digest"] == ask.quote.digest
            assert world.engine.replacement_asks() == [ask]
            assert len(world.provider.clusters()) == 1
        finally:
            runtime.close()
    world.engine.decline_replacement(str(job.id))


def test_xyclaw_chat_shows_the_card_and_asks_like_other_approvals(
    make_world: MakeWorld, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from xyclaw.cli.commands.agent import _chat
    from xyclaw.cli.context import CliContext

    world = make_world(job_options=FAST)
    job = asking_job(world, tmp_path, "chat-cli")
    (ask,) = world.engine.replacement_asks()
    out = io.StringIO()
    assert world.parts is not None
    ctx = CliContext(AppPaths.from_environment(), out=out)
    ctx._engine, ctx._store = world.engine, world.parts.store  # the process that follows the job
    monkeypatch.setattr("sys.stdin", io.StringIO("yes\n"))  # the user's answer at the prompt

    assert _chat(argparse.Namespace(conversation=None), ctx) == 0

    text = out.getvalue()
    assert "Approval needed (spend) from operator" in text and f"Job {job.name} lost" in text
    assert f"digest: {ask.quote.digest}" in text and "estimated_total: " in text
    done = finished(world.engine, job.id, timeout=120)
    assert done.state is JobState.SUCCEEDED, done.error
    assert len(world.provider.clusters()) == 2


def test_the_heartbeat_proposes_replacing_the_lost_node_and_a_yes_resumes_the_job(
    make_world: MakeWorld, tmp_path: Path
) -> None:
    from tests.agent.conftest import raise_alert
    from xyclaw.agent.heartbeat import Heartbeat

    world = make_world(job_options=FAST)
    runtime = runtime_for(world)
    try:
        job = asking_job(world, tmp_path, "beat-yes")
        (ask,) = world.engine.replacement_asks()
        cluster = world.engine.cluster(str(job.cluster_id))
        assert world.parts is not None
        lost = ", ".join(ask.nodes)
        raise_alert(
            world.parts.store,
            cluster.id,
            "node.unreachable",
            node_id=cluster.nodes[-1].id,
            message=f"{lost} has not answered for 90 s",
        )

        [posted] = Heartbeat(runtime).check_once()

        labels = [a.label for a in posted.actions]
        assert labels[1] == f"Replace {', '.join(ask.nodes)} and resume job {job.name}"
        assert posted.proposed is not None
        card = posted.proposed.pending_approval
        assert card is not None and (card.tool, card.effect, card.agent) == (
            "approve_replacement",
            "spend",
            "monitor",
        )
        assert card.details["digest"] == ask.quote.digest
        assert len(world.provider.clusters()) == 1  # nothing rented while the card waits

        done = runtime.answer(posted.conversation_id, Decision.approve(card), Events())

        assert f"Approved: renting a replacement for {', '.join(ask.nodes)}" in done.reply
        assert f"Job {job.id} {job.name} resumes from its last checkpoint" in done.reply
        finished_job = finished(world.engine, job.id, timeout=120)
        assert finished_job.state is JobState.SUCCEEDED, finished_job.error
        assert len(world.provider.clusters()) == 2
    finally:
        runtime.close()
