"""The documented requests (``phrases.yaml``): loaded for the tests, rendered for docs/agents.md.

``python -m xyclaw.agent.rules.phrasebook --write docs/agents.md`` puts the
generated section between its markers (adding it when the file has none);
``--check`` exits 1 when the file differs from what ``phrases.yaml`` gives.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, field
from datetime import date, datetime
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

from xyclaw.agent.rules.turn import RulesContext, ToolCall

PHRASES = Path(__file__).with_name("phrases.yaml")
BEGIN = (
    "<!-- BEGIN rules-brain: generated from xyclaw/agent/rules/phrases.yaml by "
    "`python -m xyclaw.agent.rules.phrasebook --write docs/agents.md`; edit that file -->"
)
END = "<!-- END rules-brain -->"
BEGIN_PREFIX = "<!-- BEGIN rules-brain"
DOC_EXAMPLES = 2  # per language, when no phrase of an intent is marked `doc: true`


@dataclass(frozen=True)
class Phrase:
    """One example request and what it must give."""

    intent: str
    agent: str
    language: str
    say: str
    calls: tuple[ToolCall, ...]  # empty: a reply and no tool
    reply: str | None  # a text the reply must contain
    context: str  # "default" or "empty"
    doc: bool


@dataclass(frozen=True)
class Intent:
    name: str
    agent: str
    tool: str | None
    what: dict[str, str]
    phrases: tuple[Phrase, ...]

    def examples(self, language: str) -> list[Phrase]:
        own = [p for p in self.phrases if p.language == language]
        marked = [p for p in own if p.doc]
        return marked or own[:DOC_EXAMPLES]


@dataclass(frozen=True)
class ValueRow:
    """How one kind of value is read: example spellings and the plan argument they give."""

    what: dict[str, str]
    arg: str
    template: dict[str, str]
    examples: dict[str, dict[str, Any]]  # language -> spelling -> value


@dataclass(frozen=True)
class Phrasebook:
    context: RulesContext
    intents: tuple[Intent, ...]
    values: tuple[ValueRow, ...] = field(default=())

    def phrases(self) -> list[Phrase]:
        return [p for intent in self.intents for p in intent.phrases]

    def context_for(self, phrase: Phrase) -> RulesContext:
        if phrase.context == "empty":
            return RulesContext(today=self.context.today)
        return self.context


def _context(data: dict[str, Any]) -> RulesContext:
    today = data.get("today")
    return RulesContext(
        last_plan_id=data.get("last_plan_id"),
        last_plan_options=int(data.get("last_plan_options") or 0),
        last_cluster=data.get("last_cluster"),
        last_job=None if data.get("last_job") is None else str(data["last_job"]),
        clusters=tuple(str(c) for c in data.get("clusters") or ()),
        jobs=tuple(str(j) for j in data.get("jobs") or ()),
        today=today if isinstance(today, date) else date.today(),
    )


def _arg(value: Any) -> Any:
    """``"@2026-04-01"`` -> that day's local midnight in epoch seconds; others unchanged."""
    if isinstance(value, str) and value.startswith("@"):
        day = date.fromisoformat(value[1:])
        return datetime(day.year, day.month, day.day).timestamp()
    return value


def _args(raw: dict[str, Any] | None) -> dict[str, Any]:
    return {k: _arg(v) for k, v in (raw or {}).items()}


def _phrase(entry: dict[str, Any], item: dict[str, Any], language: str) -> Phrase:
    tool = item.get("tool", entry.get("tool"))
    if "calls" in item:
        calls = tuple(ToolCall(c["tool"], _args(c.get("args"))) for c in item["calls"])
    elif tool is None:
        calls = ()
    else:
        calls = (ToolCall(tool, _args(item.get("args"))),)
    return Phrase(
        intent=entry["intent"],
        agent=entry["agent"],
        language=language,
        say=str(item["say"]),
        calls=calls,
        reply=item.get("reply"),
        context=str(item.get("context", "default")),
        doc=bool(item.get("doc", False)),
    )


def parse(data: dict[str, Any]) -> Phrasebook:
    intents = []
    for entry in data["intents"]:
        phrases = tuple(
            _phrase(entry, item, language)
            for language in ("en", "zh")
            for item in entry.get(language) or ()
        )
        intents.append(
            Intent(entry["intent"], entry["agent"], entry.get("tool"), entry["what"], phrases)
        )
    values = tuple(
        ValueRow(
            row["what"],
            row["arg"],
            row["template"],
            {lang: dict(row.get(lang) or {}) for lang in ("en", "zh")},
        )
        for row in data.get("values") or ()
    )
    return Phrasebook(_context(data.get("context") or {}), tuple(intents), values)


@lru_cache(maxsize=1)
def load(path: Path = PHRASES) -> Phrasebook:
    with path.open(encoding="utf-8") as handle:
        return parse(yaml.safe_load(handle))


# ---- Markdown --------------------------------------------------------------------------------


def _quote(text: str) -> str:
    return "“" + text.replace("|", "\\|").replace("`", "'") + "”"


def _examples(phrases: list[Phrase]) -> str:
    return "<br>".join(_quote(p.say) for p in phrases)


INTRO = """## The rules brain

The built-in brain needs no model and spends no tokens: `xyclaw.agent.rules.understand(text,
context)` reads one request in English or Chinese (mixed text too) and returns the language,
the specialist that answers, the tool calls (usually one) or a reply, and the intent;
`summarize(tool, result, language)` words the tool's result (a plan as a table, "Rented ...",
a cost total) in the request's language. Tool calls go through the same graph and the same
approvals as an LLM's. The conversation's context resolves "rent option 2" (the last plan),
"release it" and "this cluster" (the cluster talked about last, else the only live one), "its
logs" (the last job) and "last month" (today's date).

Safety rules, tested on random text: a tool that spends, destroys or runs code
(`create_cluster`, `release_cluster`, `run_command`, `tune`, `launch_job`, `cancel_job`) is only
called when the request names the action plainly and its target resolves. A negated request
("don't release", "千万不要释放"), a hypothetical or how-to question ("should I release?",
"怎么释放集群？") and anything unclear ("rent it" with no plan, "release" with two clusters)
get words back, never a call; anything else gets a short help. So does a request that is not
plainly one action: a negation or a hedge anywhere in it ("release it if the job is done"),
two actions, an English request whose verb does not come first, more than one word it does
not know (a word salad that happens to hold "release" and a name). An exclusion ("release
everything except alpha", "all but", "除了 alpha 以外全部释放") releases every live cluster
but the ones kept, and words come back when what is kept is unclear: no such call ever
targets what was excluded. A health question with several live clusters and none named shows
each. Tested on random salads (hypothesis) and on 10,000 requests from a labelled grammar
(`tests/agent_rules/test_labelled_grammar.py`). Every such call still stops for the user's
approval.

### Requests it understands
"""

VALUES_INTRO = """
### How values are read

Chinese numerals (一 二 两 俩 三 ... 十 百 千 万 亿, 半, 点), full-width digits and punctuation,
English number words (two ... twenty) and the units k, w/万, 亿, B, M, T, 块, 元, ¥, RMB, CNY
are read the same way in any request. Each example below gives that `plan` argument:
"""

OUTRO = """
Model sizes in T count as tokens (models are not sized in trillions); "2 nodes" without a
per-node count means 8 GPUs per node. A budget in another currency is sent as text
(`"20000 USD"` for $20k); a cost period outside today, month, last_month and all is a calendar
month `YYYY-MM` or day `YYYY-MM-DD`, or for weeks and "the last N days" `start`/`end`; a
history period becomes `since`/`until` (local midnight, epoch seconds). GPU models not in the
catalogue (Ascend 910B, V100, RTX 3090 ...) get a reply listing the catalogue's models instead
of a plan. A request longer than 1000 characters gets words, not a call.

`bench/agent_eval.py` runs the scenarios in `bench/agent_scenarios/` (English and Chinese,
each a request, its conversation and the expected tool and arguments, phrased apart from this
table) against the rules brain, and against a model when `XYCLAW_EVAL_BASE_URL`,
`XYCLAW_EVAL_MODEL` and `XYCLAW_EVAL_API_KEY` are set (each scenario as the runtime would send
it: the supervisor's route, then the routed specialist's first step with its own tools; nothing
is run); it prints the success rate, tool calls and tokens per scenario and the rules brain's
time per turn.
"""


def _value(value: Any) -> str:
    if isinstance(value, int) and value >= 10**6:
        return f"{value:.4g}".replace("e+", "e")
    return str(value)


def render(book: Phrasebook | None = None) -> str:
    """The docs section between the markers (markers included)."""
    book = book or load()
    lines = [BEGIN, INTRO]
    lines.append("| intent | agent | tool | what it understands | English | 中文 |")
    lines.append("|---|---|---|---|---|---|")
    for intent in book.intents:
        tool = f"`{intent.tool}`" if intent.tool else "reply"
        what = intent.what["en"] + "<br>" + intent.what["zh"]
        lines.append(
            f"| `{intent.name}` | {intent.agent} | {tool} | {what} | "
            f"{_examples(intent.examples('en'))} | {_examples(intent.examples('zh'))} |"
        )
    lines.append(VALUES_INTRO)
    lines.append("| value | `plan` argument | English | 中文 |")
    lines.append("|---|---|---|---|")
    for row in book.values:
        cells = []
        for language in ("en", "zh"):
            cells.append(
                "<br>".join(
                    f"{_quote(str(spelling))} → `{_value(value)}`"
                    for spelling, value in row.examples[language].items()
                )
            )
        what = f"{row.what['en']} / {row.what['zh']}"
        lines.append(f"| {what} | `{row.arg}` | {cells[0]} | {cells[1]} |")
    lines.append(OUTRO)
    lines.append(END)
    return "\n".join(lines) + "\n"


def updated(text: str, section: str) -> str:
    """``text`` with the generated section replaced (or appended when it has none)."""
    start = text.find(BEGIN_PREFIX)
    end = text.find(END)
    if start == -1 or end == -1 or end < start:
        prefix = text or "# Agents\n"
        if not prefix.endswith("\n"):
            prefix += "\n"
        return prefix + "\n" + section
    after = text[end + len(END) :]
    return text[:start] + section + (after[1:] if after.startswith("\n") else after)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--write", type=Path, metavar="FILE", help="update the section in FILE")
    group.add_argument("--check", type=Path, metavar="FILE", help="exit 1 if FILE is stale")
    group.add_argument("--print", action="store_true", help="print the section")
    args = parser.parse_args(argv)
    section = render()
    if args.print:
        sys.stdout.write(section)
        return 0
    path: Path = args.write or args.check
    current = path.read_text(encoding="utf-8") if path.exists() else ""
    new = updated(current, section)
    if args.check:
        if new != current:
            print(f"{path} is stale; run: python -m xyclaw.agent.rules.phrasebook --write {path}")
            return 1
        return 0
    path.write_text(new, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
