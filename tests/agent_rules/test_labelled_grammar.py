"""Requests generated from a labelled grammar (issue 26, "How well"): English, Chinese and
mixed, plain, negated, hypothetical, with exclusions and with noise. A card (a destroy, spend
or run call) appears only where the label says that action was asked, its targets are the
labelled ones, and nothing crashes. The same generator at 10,000 requests:
``python -m tests.agent_rules.test_labelled_grammar 10000``."""

from __future__ import annotations

import random
import sys
from dataclasses import dataclass
from datetime import date

from xyclaw.agent.rules import UNSAFE_TOOLS, RulesContext, understand

CLUSTERS = ("a800-x16-3fa2b1", "rtx4090-x8-9c0d1e", "h100-x8-77aa01", "alpha", "beta")
JOBS = ("12", "13", "27")
CONTEXT = RulesContext(clusters=CLUSTERS, jobs=JOBS, today=date(2026, 5, 20))


@dataclass(frozen=True)
class Labelled:
    text: str
    tool: str | None  # None: no card may appear
    targets: frozenset[str] = frozenset()


RELEASE_EN = ("release {c}", "shut down {c}", "tear down {c}", "terminate {c}", "release {c} now")
RELEASE_ZH = ("释放 {c}", "把 {c} 释放掉", "释放{c}", "关掉 {c}", "退掉 {c}")
CANCEL_EN = ("cancel job {j}", "abort job {j}", "cancel job {j} now")
CANCEL_ZH = ("取消作业{j}", "取消任务 {j}", "终止作业 {j}")
TUNE_EN = ("tune {c}", "tune NCCL on {c}", "measure the NCCL bandwidth on {c}")
TUNE_ZH = ("调优 {c}", "给 {c} 做 NCCL 调优", "测一下 {c} 的NCCL带宽")
EXCEPT_EN = ("release everything except {c}", "release all but {c}", "release all except {c}")
EXCEPT_ZH = ("除了 {c} 以外全部释放", "{c} 以外的集群都释放", "除了{c}，其他都释放")
NEGATED_EN = (
    "don't release {c}",
    "do not cancel job {j}",
    "never tune {c}",
    "should I release {c}?",
    "what happens if I cancel job {j}?",
    "I don't think we should release {c}",
    "maybe release {c} later, not now",
)
NEGATED_ZH = ("不要释放{c}", "别取消作业{j}", "要不要释放{c}？", "先不释放 {c}", "千万别调优 {c}")
READS = (
    "what's running",
    "how much did I spend today",
    "集群状态",
    "health of {c}",
    "logs of job {j}",
    "今天花了多少钱",
    "any alerts?",
    "the last 5 jobs",
)
POLITE_EN = ("", "please ", "ok, ", "now ", "could you ")
POLITE_ZH = ("", "请", "帮我", "麻烦")
TAIL_EN = ("", ".", " please", " thanks", "!")
TAIL_ZH = ("", "。", "吧", "，谢谢")


def generate(count: int, seed: int = 26) -> list[Labelled]:
    rng = random.Random(seed)
    out: list[Labelled] = []
    for _ in range(count):
        c, j = rng.choice(CLUSTERS), rng.choice(JOBS)
        zh = rng.random() < 0.45
        kind = rng.choice(("release", "cancel", "tune", "except", "negated", "read"))
        polite = rng.choice(POLITE_ZH if zh else POLITE_EN)
        tail = rng.choice(TAIL_ZH if zh else TAIL_EN)
        if rng.random() < 0.15:  # mixed: Chinese politeness around English, or the reverse
            polite = rng.choice(POLITE_EN if zh else POLITE_ZH)
        if kind == "release":
            text, label = rng.choice(RELEASE_ZH if zh else RELEASE_EN), ("release_cluster", {c})
        elif kind == "cancel":
            text, label = rng.choice(CANCEL_ZH if zh else CANCEL_EN), ("cancel_job", {j})
        elif kind == "tune":
            text, label = rng.choice(TUNE_ZH if zh else TUNE_EN), ("tune", {c})
        elif kind == "except":
            text = rng.choice(EXCEPT_ZH if zh else EXCEPT_EN)
            label = ("release_cluster", set(CLUSTERS) - {c})
        elif kind == "negated":
            text, label = rng.choice(NEGATED_ZH if zh else NEGATED_EN), (None, set())
        else:
            text, label = rng.choice(READS), (None, set())
        said = polite + text.format(c=c, j=j) + tail
        out.append(Labelled(said, label[0], frozenset(label[1])))
    return out


def check(requests: list[Labelled]) -> tuple[list[str], int, int]:
    """(wrong cards, actions asked, actions carded)."""
    wrong: list[str] = []
    asked = carded = 0
    for item in requests:
        turn = understand(item.text, CONTEXT)
        cards = [c for c in turn.tool_calls if c.name in UNSAFE_TOOLS]
        if item.tool is not None:
            asked += 1
            carded += bool(cards)
        if not cards:
            continue
        targets = {str(c.args.get("cluster") or c.args.get("job")) for c in cards}
        if item.tool is None or {c.name for c in cards} != {item.tool} or targets != item.targets:
            wrong.append(f"{item.text!r}: {[(c.name, c.args) for c in cards]}")
    return wrong, asked, carded


def test_cards_only_where_the_label_asks_with_the_labelled_targets() -> None:
    wrong, asked, carded = check(generate(2000))
    assert wrong == [], "\n".join(wrong[:20])
    # And what was asked plainly is understood, not merely refused.
    assert carded >= 0.95 * asked, (carded, asked)


if __name__ == "__main__":  # pragma: no cover - the 10,000-request run
    import time

    n = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
    started = time.perf_counter()
    wrong, asked, carded = check(generate(n))
    took = time.perf_counter() - started
    print(f"{n} requests in {took:.1f} s: {len(wrong)} wrong cards, {carded}/{asked} asked carded")
    for line in wrong[:30]:
        print(" ", line)
