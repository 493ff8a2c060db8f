"""Issue 30 point 2: command output pasted into the chat goes to Engine.diagnose, the method
behind ``xyclaw diagnose``, and is answered in the chat's language; a question is not."""

from __future__ import annotations

from pathlib import Path

from tests.agent.conftest import Events, MakeRuntime, World

PASTED = Path(__file__).resolve().parents[1] / "telemetry" / "fixtures" / "pasted"


def test_a_pasted_table_is_read_and_answered(world: World, make_runtime: MakeRuntime) -> None:
    rt = make_runtime()
    cid = rt.new_conversation()
    text = (PASTED / "nvsmi_table_470_4x_v100.txt").read_text()
    result = rt.send(cid, text, Events())
    assert result.agent == "monitor" and result.pending_approval is None
    assert result.tool_calls == [] and world.engine.clusters() == []
    assert result.reply == "\n".join(world.engine.diagnose(text).lines("en"))
    assert result.reply.startswith("This is the output of nvidia-smi.")
    assert "GPU 2 has 2 uncorrectable ECC error(s)" in result.reply
    user, answer = rt.messages(cid)
    assert (user.role, user.text, answer.role, answer.text) == (
        "user",
        text.strip(),
        "assistant",
        result.reply,
    )
    assert rt.conversation(cid).title == "ubuntu@ip-172-31-9-20:~$ nvidia-smi"


def test_chinese_conversation_gets_a_chinese_reading(
    world: World, make_runtime: MakeRuntime
) -> None:
    rt = make_runtime()
    cid = rt.new_conversation()
    rt.send(cid, "你好", Events())
    result = rt.send(cid, (PASTED / "dmesg_xid_pci_next_line.txt").read_text(), Events())
    assert result.reply.startswith("这是 dmesg 的输出。")
    assert "上下文切换超时（NVIDIA XID 目录）" in result.reply


def test_a_question_still_goes_to_the_agents(world: World, make_runtime: MakeRuntime) -> None:
    rt = make_runtime()
    cid = rt.new_conversation()
    result = rt.send(cid, "how much did I spend this month?", Events())
    assert result.agent == "historian"
