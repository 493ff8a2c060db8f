"""A hang's replacement from a conversation (issue 34): the card the chat shows is the bound
``replace_and_resume`` action (why, and the checkpoint the job resumes from, in its details
and its digest); only the user's yes to it rents, and the job resumes from that checkpoint."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.agent.conftest import Events
from tests.agent.test_replacement_chat import runtime_for
from tests.jobs_runtime.helpers import finished
from tests.jobs_runtime.test_hang_replacement_card import WATCHED, hang_until_the_ask
from tests.jobs_runtime.test_spot_preemption import Ticker
from tests.lifecycle.conftest import MakeWorld, make_world
from xyclaw.agent.types import Decision
from xyclaw.records.jobs import JobState

__all__ = ["make_world"]


@pytest.mark.timeout(300)
def test_the_chat_card_binds_the_checkpoint_and_a_yes_resumes_from_it(
    make_world: MakeWorld, tmp_path: Path
) -> None:
    world = make_world(job_options=WATCHED, time_scale=0.02)
    runtime = runtime_for(world)
    try:
        cid = runtime.new_conversation()
        with Ticker(world.clock):
            hung = hang_until_the_ask(world, tmp_path, "chatfr")
            (ask,) = world.engine.replacement_asks()
            result = runtime.propose_replacement(cid, Events())
            assert result is not None and result.pending_approval is not None
            card = result.pending_approval
            assert card.tool == "approve_replacement" and card.effect == "spend"
            assert card.details["resume_from"] == ask.resume_from
            assert f"rank 11 on {hung.node1.name} never entered" in card.details["why"]
            assert card.action["operation"] == "replace_and_resume"
            assert card.action["inputs"]["resume_from"] == ask.resume_from
            assert len(world.provider.clusters()) == 1  # nothing rented while the card waits

            runtime.answer(cid, Decision.approve(card, by="user (terminal)"), Events())

            done = finished(world.engine, hung.job.id, timeout=180)
        assert done.state is JobState.SUCCEEDED, done.error
        assert done.attempts[1].resumed_from == ask.resume_from
        assert len(world.provider.clusters()) == 2
    finally:
        runtime.close()
