"""The rules brain's "I did not understand" follows the conversation's language (issue 28,
item 6): the window's (``send(language=...)``), or Chinese once the user wrote Chinese in the
conversation; with neither, English as before."""

from __future__ import annotations

from tests.agent.conftest import Events, MakeRuntime, World


def test_nonsense_in_a_chinese_window_is_answered_in_chinese(
    world: World, make_runtime: MakeRuntime
) -> None:
    rt = make_runtime()
    zh = rt.send(rt.new_conversation(), "asdf qwer", Events(), language="zh")
    assert "没听懂" in zh.reply and "did not understand" not in zh.reply
    en = rt.send(rt.new_conversation(), "asdf qwer", Events(), language="en")
    assert "I did not understand" in en.reply
    cli = rt.send(rt.new_conversation(), "asdf qwer", Events())
    assert "I did not understand" in cli.reply


def test_nonsense_after_chinese_in_the_conversation_is_answered_in_chinese(
    world: World, make_runtime: MakeRuntime
) -> None:
    rt = make_runtime()
    cid = rt.new_conversation()
    rt.send(cid, "集群状态", Events())
    reply = rt.send(cid, "zzzz", Events()).reply
    assert "没听懂" in reply, reply
