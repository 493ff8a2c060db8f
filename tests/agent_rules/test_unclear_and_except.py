"""The rules brain (issue 26, point 3): exclusions ("except", "but not", "all but", "除了",
"以外") never become a card for what was excluded; a request it cannot read with confidence
(negations, hedges, word salads) never becomes a destroy or spend card; "测一下NCCL带宽" and
"measure the NCCL bandwidth" are a tune; a health question with several live clusters shows
each; an impossible plan names the closest option and how far it misses."""

from __future__ import annotations

from datetime import date

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from xyclaw.agent.rules import UNSAFE_TOOLS, RulesContext, understand
from xyclaw.agent.rules.summaries import _plan

TODAY = date(2026, 5, 20)
NAMED = RulesContext(clusters=("alpha", "beta", "gamma"), jobs=("12", "13"), today=TODAY)
LIVE = RulesContext(
    clusters=("a800-x16-3fa2b1", "rtx4090-x8-9c0d1e"), jobs=("12",), last_job="12", today=TODAY
)
FAST = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _targets(text: str, context: RulesContext) -> list[tuple[str, str]]:
    turn = understand(text, context)
    return [(c.name, str(c.args.get("cluster") or c.args.get("job"))) for c in turn.tool_calls]


@pytest.mark.parametrize(
    ("text", "released"),
    [
        ("release everything except alpha", ["beta", "gamma"]),
        ("release all clusters except for alpha", ["beta", "gamma"]),
        ("release everything but not alpha", ["beta", "gamma"]),
        ("release all but alpha", ["beta", "gamma"]),
        ("release all but alpha, beta", ["gamma"]),
        ("shut down everything apart from gamma", ["alpha", "beta"]),
        ("release beta but not alpha", ["beta"]),
        ("除了 alpha 以外全部释放", ["beta", "gamma"]),
        ("除了alpha，其他都释放", ["beta", "gamma"]),
        ("alpha以外的集群都释放", ["beta", "gamma"]),
        ("释放所有集群，保留 alpha", ["beta", "gamma"]),
        # What is kept is not clear, or nothing is left: words, never a card.
        ("release everything except alpha, beta and gamma", []),
        ("release everything except delta", []),
        ("release everything except", []),
        ("release everything except the one I like", []),
        ("除了我最喜欢的那个以外全部释放", []),
    ],
)
def test_an_exclusion_is_never_released(text: str, released: list[str]) -> None:
    turn = understand(text, NAMED)
    assert sorted(str(c.args["cluster"]) for c in turn.tool_calls) == released, turn
    assert all(c.args["cluster"] != "all" for c in turn.tool_calls)
    if not released:
        assert (turn.reply and "nothing" in turn.reply) or "什么都没" in (turn.reply or "")


@pytest.mark.parametrize(
    "text",
    ["cancel all jobs except 12", "cancel every job but not 12", "除了作业12以外都取消"],
)
def test_an_excluded_job_is_never_cancelled(text: str) -> None:
    assert ("cancel_job", "12") not in _targets(text, NAMED)


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("tune everything except alpha", "which to tune"),
        ("rent option 2 but not option 3", "rent anything"),
        ("cancel job 13 except 12", None),
    ],
)
def test_other_actions_with_an_exclusion_word_their_own_answer(text: str, said: str | None) -> None:
    context = RulesContext(
        clusters=NAMED.clusters, jobs=NAMED.jobs, last_plan_id=3, last_plan_options=3, today=TODAY
    )
    turn = understand(text, context)
    if said is None:  # the job named, the one kept left alone
        assert _targets(text, context) == [("cancel_job", "13")]
    else:
        assert not turn.tool_calls and said in (turn.reply or ""), turn


NAMES = ["alpha", "beta", "gamma", "a800-x16-3fa2b1", "12", "it", "everything", "all"]
VERBS = ["release", "shut down", "cancel", "rent", "tune", "delete", "释放", "取消", "租"]
EXCEPT = ["except", "but not", "all but", "apart from", "除了", "以外", "other than"]


@FAST
@given(
    st.sampled_from(VERBS),
    st.lists(st.sampled_from(NAMES), min_size=0, max_size=2),
    st.sampled_from(EXCEPT),
    st.lists(st.sampled_from(["alpha", "beta", "gamma", "12", "13"]), min_size=1, max_size=2),
)
def test_whatever_follows_an_exclusion_is_never_a_target(
    verb: str, before: list[str], word: str, kept: list[str]
) -> None:
    text = f"{verb} {' '.join(before)} {word} {' and '.join(kept)}"
    for tool, target in _targets(text, NAMED):
        if tool in UNSAFE_TOOLS:
            assert target not in kept and target != "all", (text, tool, target)


SALAD = [
    "release",
    "cancel",
    "rent",
    "stop",
    "kill",
    "tune",
    "launch",
    "delete",
    "the",
    "a",
    "it",
    "this",
    "my",
    "cluster",
    "job",
    "all",
    "everything",
    "option",
    "1",
    "2",
    "plan",
    "network",
    "banana",
    "quickly",
    "please",
    "now",
    "later",
    "yesterday",
    "cost",
    "money",
    "A800",
    "a800-x16-3fa2b1",
    "12",
    "and",
    "or",
    "but",
    "then",
    "I",
    "we",
    "you",
    "with",
    "on",
    "in",
    "for",
    "because",
    "happy",
    "blue",
    "seven",
    "tokens",
    "model",
    "13B",
    "释放",
    "取消",
    "租",
    "集群",
    "作业",
    "全部",
    "它",
    "这个",
    "香蕉",
    "方案",
    "第一个",
]
DOUBT = ["don't", "should", "not", "never", "maybe", "if", "why", "would", "不要", "应该", "吗"]


@FAST
@given(
    st.lists(st.sampled_from(SALAD), min_size=2, max_size=9),
    st.sampled_from(DOUBT),
    st.integers(min_value=0, max_value=9),
)
def test_a_salad_with_a_negation_or_a_hedge_never_destroys_or_spends(
    words: list[str], doubt: str, at: int
) -> None:
    words.insert(min(at, len(words)), doubt)
    text = " ".join(words)
    turn = understand(text, LIVE)
    assert not turn.unsafe, (text, turn.tool_calls)


@FAST
@given(st.lists(st.sampled_from(SALAD), min_size=3, max_size=9))
def test_an_english_salad_whose_first_word_is_no_verb_never_destroys_or_spends(
    words: list[str],
) -> None:
    english = [w for w in words if w.isascii()]
    leading = {"release", "cancel", "rent", "stop", "kill", "tune", "launch", "delete"}
    # the polite leaders the brain reads past ("and release all" is "release all")
    polite = ("please", "pls", "plz", "kindly", "ok", "okay", "now", "then", "and", "so")
    first = next((w for w in english if w not in polite), None)
    if first is None or first in leading:
        return
    text = " ".join(english)
    turn = understand(text, LIVE)
    assert not turn.unsafe, (text, turn.tool_calls)


@pytest.mark.parametrize(
    "text",
    [
        # Random word salads that gave release or cancel cards before (issue 26).
        "stop but you job release could",
        "should 12 释放 and it would 方案 blue",
        "now delete don't everything plan",
        "yesterday you happy a800-x16-3fa2b1 tokens money release",
        "this 13B banana that why network delete 这个 不要",
        "tune a800-x16-3fa2b1 with release never later",
        "rtx4090 model of model 2 delete tune",
        "of stop in tune yesterday",
        "全部 gpu with 集群 stop 1 香蕉 should 释放",
        "release it if the job is done",
        "I think we should cancel the job",
        "maybe release everything",
        "release everything? not sure",
        "don't worry, release it later when I say so",
    ],
)
def test_fixed_unclear_requests_get_words_not_cards(text: str) -> None:
    turn = understand(text, LIVE)
    assert not turn.unsafe, (text, turn.tool_calls)
    assert turn.reply


@pytest.mark.parametrize(
    "text",
    [
        "测一下NCCL带宽",
        "测一下带宽",
        "测试网络",
        "测NCCL",
        "测试一下通信带宽",
        "measure the NCCL bandwidth",
        "test the network bandwidth",
        "benchmark the interconnect",
        "test NCCL",
    ],
)
def test_measuring_the_network_is_a_tune(text: str) -> None:
    one = RulesContext(clusters=("a800-x16-3fa2b1",), today=TODAY)
    turn = understand(text, one)
    assert [(c.name, c.args) for c in turn.tool_calls] == [
        ("tune", {"cluster": "a800-x16-3fa2b1"})
    ], (text, turn)


@pytest.mark.parametrize("text", ["is my cluster healthy?", "检查一下集群健康", "cluster health"])
def test_a_health_question_with_two_live_clusters_shows_both(text: str) -> None:
    turn = understand(text, LIVE)
    assert [(c.name, c.args["cluster"]) for c in turn.tool_calls] == [
        ("cluster_health", "a800-x16-3fa2b1"),
        ("cluster_health", "rtx4090-x8-9c0d1e"),
    ]


def _missed(**request: object) -> dict[str, object]:
    base = {"task": "pretrain", "model_size": 70e9, "currency": "CNY"}
    rejected = {
        "gpu": "H100",
        "gpus": 32,
        "fabric": "ib-ndr-400",
        "currency": "CNY",
        "hours": 13655.95,
        "cost": 3670718.69,
        "why": "takes 13655.9 h, past the 48 h deadline",
    }
    return {"plan_id": 1, "options": [], "request": {**base, **request}, "rejected": [rejected]}


def test_an_impossible_plan_names_the_fastest_and_how_far_it_misses() -> None:
    said = _plan(_missed(deadline_hours=48.0, budget=None), "en")
    assert "The fastest on 32 cards (H100, ib-ndr-400) takes 569 days: 567 days more" in said
    zh = _plan(_missed(deadline_hours=48.0, budget=None), "zh")
    assert "32 张卡里最快的（H100，ib-ndr-400）需要 569 天" in zh and "多出 567 天" in zh
    cheap = _plan(_missed(deadline_hours=None, budget=500.0), "en")
    assert "costs 3,670,718.69 CNY: 3,670,218.69 CNY over the budget of 500.00 CNY" in cheap
