"""The historian answers "how has <provider> been for me" from the memory (issue 36).

The scripted model (tests/agent/fake_llm.py) calls the ``track_record`` tool over real HTTP;
the tool reads the prepared history (tests/support/track_history.py) through the Engine.
"""

from __future__ import annotations

import json
from typing import Any

from tests.agent import fake_llm as f
from tests.agent.conftest import Events, MakeRuntime, World
from tests.support.track_history import write_history
from xyclaw.store import conversations as conv


def _tool_result(llm: f.FakeLLM) -> dict[str, Any]:
    """What the model was handed back: the tool message of the request after its call."""
    for body in llm.chat_requests:
        for message in body.get("messages", []):
            if message.get("role") == "tool":
                content = json.loads(message["content"])
                assert content["status"] == "done"
                return dict(content["result"])
    raise AssertionError("the model never got the tool's result")


def test_how_has_a_provider_been_for_me(world: World, make_runtime: MakeRuntime) -> None:
    write_history(world.paths.database)
    script = [
        f.call("track_record", {"provider": "memory"}),
        f.text("memory failed on 3 of 4 rentals."),
    ]
    with f.FakeLLM(script, router=lambda body: "historian") as llm:
        runtime = make_runtime(llm)
        cid = runtime.new_conversation()
        answer = runtime.send(cid, "how has memory been for me?", Events())
        assert answer.reply == "memory failed on 3 of 4 rentals."
        result = _tool_result(llm)
    (standing,) = result["standings"]
    assert standing["key"] == "memory" and standing["rentals"] == 4
    assert standing["counts"]["failed_rentals"] == 3
    assert standing["worst_busbw_ratio"] == 0.61
    assert {m["kind"] for m in result["marks"]} == {"xid", "busbw_low", "bring_up_failed"}
    # what machines said (a bootstrap's error) reaches the model as data, never as instructions
    details = result["mark_details"]
    assert details["kind"] == "remote_output" and "nvidia-smi not found" in details["text"]
    assert all("detail" not in m for m in result["marks"])
    (call,) = conv.list_tool_calls(runtime.store, cid)
    assert call["tool"] == "track_record" and call["effect"] == "read"
