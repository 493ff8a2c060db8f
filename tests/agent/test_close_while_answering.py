"""Closing the agents while a turn still runs (a user quitting while the model answers):
the turn is asked to stop and waited for before the checkpoint file is closed under it (a
checkpoint written into a closed connection crashed the process), and nothing starts after."""

from __future__ import annotations

import threading
import time

from tests.agent import fake_llm as f
from tests.agent.conftest import Events, MakeRuntime
from xyclaw.errors import XyclawError


def test_closing_waits_for_the_running_turn(
    make_runtime: MakeRuntime,
) -> None:
    # 12 pieces a quarter second apart: about 3 s, well inside what closing waits
    with f.FakeLLM([f.slow("y" * 12, every_s=0.25)] * 2) as llm:
        runtime = make_runtime(llm)
        cid = runtime.new_conversation()
        outcome: list[object] = []

        def answer() -> None:
            try:
                outcome.append(runtime.send(cid, "tell me a long story", Events()))
            except XyclawError as exc:
                outcome.append(exc)

        turn = threading.Thread(target=answer)
        turn.start()
        deadline = time.monotonic() + 10
        while not llm.requests and time.monotonic() < deadline:
            time.sleep(0.05)
        assert llm.requests, "the turn never reached the model"

        runtime.close()

        assert not turn.is_alive(), "close returned while the turn still ran"
        assert outcome  # the turn ended (stopped, or answered), and the process is alive
