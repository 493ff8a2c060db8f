"""The phrase table (xyclaw/agent/rules/phrases.yaml): every documented request, both languages.

The same file renders the table in docs/agents.md; the last tests check that the doc
shows exactly what the file says and that every intent and tool is covered.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from xyclaw.agent.rules import AGENTS, TOOL_EFFECTS, understand
from xyclaw.agent.rules.phrasebook import Phrase, load, render, updated
from xyclaw.agent.rules.turn import PROPOSED_TOOLS

BOOK = load()
DOC = Path(__file__).resolve().parents[2] / "docs" / "agents.md"


def _id(phrase: Phrase) -> str:
    return f"{phrase.intent}-{phrase.language}-{phrase.say[:40]}"


@pytest.mark.parametrize("phrase", BOOK.phrases(), ids=_id)
def test_phrase_gives_its_documented_call(phrase: Phrase) -> None:
    turn = understand(phrase.say, BOOK.context_for(phrase))
    assert (turn.intent, turn.agent, turn.language) == (
        phrase.intent,
        phrase.agent,
        phrase.language,
    )
    assert [(c.name, c.args) for c in turn.tool_calls] == [(c.name, c.args) for c in phrase.calls]
    if not phrase.calls:
        assert turn.reply, "a turn without a tool call must say something"
    else:
        assert turn.reply is None
    if phrase.reply is not None:
        assert turn.reply is not None and phrase.reply in turn.reply


VALUES = [
    (row.arg, language, row.template[language].format(spelling), value)
    for row in BOOK.values
    for language in ("en", "zh")
    for spelling, value in row.examples[language].items()
]


@pytest.mark.parametrize(("arg", "language", "text", "value"), VALUES, ids=lambda v: str(v))
def test_value_spellings_give_the_plan_argument(
    arg: str, language: str, text: str, value: object
) -> None:
    turn = understand(text, BOOK.context)
    assert turn.language == language
    assert [c.name for c in turn.tool_calls] == ["plan"], turn.reply
    assert turn.tool_calls[0].args.get(arg) == value


def test_every_intent_has_phrases_in_both_languages_and_every_tool_is_covered() -> None:
    for intent in BOOK.intents:
        assert intent.agent in AGENTS
        for language in ("en", "zh"):
            own = [p for p in intent.phrases if p.language == language]
            assert own, f"{intent.name} has no {language} phrase"
            if intent.tool is not None:
                assert any(p.calls for p in own), f"{intent.name}/{language} never calls its tool"
    called = {c.name for p in BOOK.phrases() for c in p.calls}
    understood = set(TOOL_EFFECTS) - PROPOSED_TOOLS  # approve_replacement: XyClaw proposes it
    assert called == understood, f"not covered: {understood - called}"


def test_the_doc_shows_the_phrase_table() -> None:
    text = DOC.read_text(encoding="utf-8")
    assert updated(text, render(BOOK)) == text, (
        "docs/agents.md is stale: python -m xyclaw.agent.rules.phrasebook --write docs/agents.md"
    )
    for intent in BOOK.intents:
        assert f"| `{intent.name}` |" in text
        for language in ("en", "zh"):
            for phrase in intent.examples(language):
                assert phrase.say.replace("|", "\\|").replace("`", "'") in text


def test_updating_the_doc_keeps_what_others_wrote() -> None:
    section = render(BOOK)
    before = "# Agents\n\nThe runtime, by its authors.\n"
    first = updated(before, section)
    assert first.startswith(before) and section in first
    after = first + "\n## Approvals\n\nMore text.\n"
    stale = after.replace("Plan a pretraining", "OLD TEXT")
    assert updated(stale, section) == after
