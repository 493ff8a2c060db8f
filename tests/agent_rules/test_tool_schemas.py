"""Every call the rules brain makes fits the runtime's tool catalogue: names, effects, arguments."""

from __future__ import annotations

from xyclaw.agent.rules import TOOL_EFFECTS, understand
from xyclaw.agent.rules.phrasebook import load
from xyclaw.agent.tools import all_tools, check_args


def test_the_brains_tool_names_and_effects_are_the_catalogues() -> None:
    tools = all_tools()
    assert {name: str(spec.effect) for name, spec in tools.items()} == TOOL_EFFECTS


def test_every_documented_call_has_arguments_the_tool_accepts() -> None:
    tools = all_tools()
    book = load()
    problems = []
    texts = [(p.say, book.context_for(p)) for p in book.phrases()]
    texts += [
        (row.template[lang].format(spelling), book.context)
        for row in book.values
        for lang in ("en", "zh")
        for spelling in row.examples[lang]
    ]
    for text, context in texts:
        for call in understand(text, context).tool_calls:
            for problem in check_args(tools[call.name].parameters, call.args):
                problems.append((text, call.name, problem))
    assert problems == []
