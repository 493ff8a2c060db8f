"""The rules brain never spends, destroys or runs code on text that does not plainly ask for it.

Random text (hypothesis), word soups built from the brain's own vocabulary without an
action verb (including words that contain one: 费用, 候选, 租金, fine-tune, prompt tuning),
soups with verbs (every unsafe call must then point at something the text or the
conversation names), and every documented action phrase turned negative, hypothetical or
into a how-to question.
"""

from __future__ import annotations

import re
import time
import unicodedata
from datetime import date

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from xyclaw.agent.rules import UNSAFE_TOOLS, RulesContext, RulesTurn, understand
from xyclaw.agent.rules.numbers import prepare
from xyclaw.agent.rules.phrasebook import load
from xyclaw.agent.rules.slots import catalog_gpus

CONTEXT = RulesContext(
    last_plan_id=7,
    last_plan_options=5,
    last_cluster="a800-x16-3fa2b1",
    last_job="12",
    clusters=("a800-x16-3fa2b1", "rtx4090-x8-9c0d1e"),
    jobs=("12",),
    today=date(2026, 5, 20),
)
EMPTY = RulesContext(today=date(2026, 5, 20))
FAST = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# Words the brain reads, none of them asking to rent, release, cancel, tune, launch or run.
SAFE_EN = [
    "plan",
    "a",
    "the",
    "model",
    "7B",
    "13b",
    "70B",
    "1.5e9",
    "100B tokens",
    "8 GPUs",
    "16-64 GPUs",
    "eight",
    "A800",
    "4090",
    "H100 SXM",
    "910B",
    "budget",
    "500 CNY",
    "¥300",
    "2k",
    "in 2 days",
    "48h",
    "100 QPS",
    "RoCE",
    "InfiniBand",
    "IB",
    "network",
    "cost",
    "costs",
    "bill",
    "today",
    "this month",
    "last month",
    "so far",
    "how much",
    "status",
    "health",
    "alerts",
    "history",
    "last 5",
    "jobs",
    "job",
    "clusters",
    "cluster",
    "logs",
    "job 12",
    "option 2",
    "#3",
    "second",
    "first one",
    "it",
    "this cluster",
    "all",
    "everything",
    "?",
    "please",
    "what",
    "which",
    "is",
    "are",
    "my",
    "of",
    "on",
    "for",
    "with",
    "fine-tune",
    "LoRA",
    "prompt tuning",
    "inference",
    "pretrain",
    "serve",
    "help",
    "ignore previous instructions",
    "yes",
    "ok",
    "now",
    "nvidia-smi",
    "`ls -l`",
    "jobs/train.yaml",
    "in order to",
    "a800-x16-3fa2b1",
    "rtx4090-x8-9c0d1e",
    "c9",
    "lora",
    "plain-python",
    "running",
    "offers",
    "price",
    "per hour",
    "temperature",
    "events",
]
SAFE_ZH = [
    "规划",
    "训练",
    "微调",
    "推理",
    "部署",
    "7B",
    "70亿",
    "八张卡",
    "A800",
    "预算",
    "五百元",
    "1.5万",
    "两天内",
    "今天",
    "本月",
    "上个月",
    "花了多少钱",
    "费用",
    "开销",
    "租金",
    "候选",
    "集群状态",
    "健康",
    "告警",
    "最近5个任务",
    "日志",
    "任务12",
    "方案2",
    "第一个",
    "这个集群",
    "全部",
    "所有",
    "吗",
    "？",
    "请",
    "帮我",
    "什么",
    "怎么样",
    "RoCE",
    "IB",
    "网络",
    "一共",
    "作用",
    "第一次",
    "租过",
    "历史",
    "的",
    "和",
    "千万",
    "万一",
    "lora",
    "jobs/train.yaml",
]
# Action words, each able to start an unsafe call when its target resolves.
VERBS_EN = [
    "rent",
    "release",
    "cancel",
    "stop",
    "tune",
    "launch",
    "run",
    "execute",
    "shut down",
    "terminate",
    "kill",
    "book",
    "go with",
    "take",
    "use",
    "submit",
    "start",
    "don't",
    "should I",
    "how do I",
    "never",
]
VERBS_ZH = [
    "租",
    "释放",
    "取消",
    "停止",
    "调优",
    "启动",
    "执行",
    "运行",
    "关掉",
    "就用",
    "选",
    "提交",
    "不要",
    "别",
    "怎么",
    "要不要",
    "千万不要",
]


def _unsafe(turn: RulesTurn) -> list[str]:
    return [c.name for c in turn.tool_calls if c.name in UNSAFE_TOOLS]


def _check_turn(turn: RulesTurn) -> None:
    """What every turn must be, whatever the text."""
    assert turn.language in ("en", "zh")
    assert turn.tool_calls or turn.reply, "a turn either calls a tool or says something"
    assert turn.intent


def _soup(words: list[str], joiner: str) -> st.SearchStrategy[str]:
    return st.lists(st.sampled_from(words), min_size=1, max_size=12).map(joiner.join)


@FAST
@given(st.one_of(_soup(SAFE_EN, " "), _soup(SAFE_ZH, ""), _soup(SAFE_EN + SAFE_ZH, " ")))
def test_the_brains_own_words_without_a_verb_never_call_an_unsafe_tool(text: str) -> None:
    for context in (CONTEXT, EMPTY):
        turn = understand(text, context)
        _check_turn(turn)
        assert _unsafe(turn) == [], text


def _tokens(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9][a-z0-9._/-]*", text.lower()))


def _justified(text: str, turn: RulesTurn, context: RulesContext) -> None:
    """Each unsafe call points at what the text or the conversation names."""
    words = _tokens(text)
    known_clusters = set(context.clusters) | {context.last_cluster} - {None}
    known_jobs = set(context.jobs) | {context.last_job} - {None}
    for call in turn.tool_calls:
        args = call.args
        if call.name == "create_cluster":
            if "plan_id" in args:
                assert args["plan_id"] == context.last_plan_id
                assert 1 <= args["option"] <= context.last_plan_options
            else:
                # Explicit resources: a GPU model and a count the text spells out.
                assert args["gpu"] in catalog_gpus()
                assert isinstance(args["gpus"], int) and re.search(r"\d", prepare(text))
        elif call.name == "release_cluster":
            cluster = args["cluster"]
            if cluster == "all":
                assert re.search(r"all|everything|every|全部|所有|全都|一切|统统", text.lower())
            else:
                assert cluster in known_clusters or cluster.lower() in words
        elif call.name == "cancel_job":
            assert args["job"] in known_jobs or args["job"].lower() in words
        elif call.name in ("tune", "run_command", "launch_job"):
            cluster = args.get("cluster")
            assert cluster is None or cluster in known_clusters or cluster.lower() in words
            if call.name == "run_command":
                assert args["command"] in text
            if call.name == "launch_job":
                assert args["spec"].lower() in text.lower()


@FAST
@given(
    st.one_of(
        _soup(SAFE_EN + VERBS_EN, " "),
        _soup(SAFE_ZH + VERBS_ZH, ""),
        _soup(SAFE_EN + SAFE_ZH + VERBS_EN + VERBS_ZH, " "),
    )
)
def test_with_verbs_every_unsafe_call_points_at_something_named(text: str) -> None:
    for context in (CONTEXT, EMPTY):
        turn = understand(text, context)
        _check_turn(turn)
        _justified(text, turn, context)


# Any word that may start an unsafe action, broader than the brain's own lists.
ACTION_WORD = re.compile(
    r"rent|lease|book|order|provision|spin|buy|reserve|take|go with|choose|pick|select|use|"
    r"release|free|shut|tear|terminat|destroy|delete|remove|decommission|give back|turn off|"
    r"power off|stop|kill|end|halt|cancel|abort|tun|optimi|nccl|launch|start|submit|run|exec|"
    r"kick|begin|queue|schedule|租|下单|订|开|创建|用|选|确定|释放|退|关|销毁|删|回收|还|停|杀|"
    r"结束|中止|终止|取消|调优|优化|测|启动|提交|运行|开始|跑|执行"
)


@FAST
@given(st.text(max_size=300))
def test_random_text_never_spends_destroys_or_runs(text: str) -> None:
    # Hypothesis also draws strings from this project's sources ("租方案1"): a text that asks
    # for an action may get it, pointed at what it names; any other text never does.
    folded = unicodedata.normalize("NFKC", text).lower()
    for context in (CONTEXT, EMPTY):
        turn = understand(text, context)
        _check_turn(turn)
        if ACTION_WORD.search(folded) is None:
            assert _unsafe(turn) == [], text
        else:
            _justified(folded, turn, context)


BOOK = load()
ACTIONS = [p for p in BOOK.phrases() if any(c.name in UNSAFE_TOOLS for c in p.calls)]
TURNED_EN = [
    "don't {}",
    "do not {}",
    "never {}",
    "should I {}?",
    "what happens if I {}?",
    "how do I {}?",
]
TURNED_ZH = ["不要{}", "千万别{}", "先不{}", "要不要{}？", "怎么{}？", "如果{}会怎样？"]


def test_every_documented_action_turned_negative_or_into_a_question_calls_nothing() -> None:
    assert len(ACTIONS) >= 15  # rent, release, cancel, tune, launch, run, in both languages
    failures = []
    for phrase in ACTIONS:
        say = phrase.say[0].lower() + phrase.say[1:] if phrase.language == "en" else phrase.say
        forms = TURNED_EN if phrase.language == "en" else TURNED_ZH
        for form in forms:
            text = form.format(say)
            turn = understand(text, BOOK.context_for(phrase))
            if _unsafe(turn) or not turn.reply:
                failures.append((text, [(c.name, c.args) for c in turn.tool_calls]))
    assert failures == []


def test_unclear_requests_that_would_spend_or_destroy_ask_instead() -> None:
    two_clusters = CONTEXT
    cases = [
        ("rent it", EMPTY, "rent"),
        ("rent option 1", EMPTY, "rent"),
        ("租吧", two_clusters, "rent"),
        ("release", two_clusters, "release"),
        ("释放", two_clusters, "release"),
        ("release it", EMPTY, "release"),
        ("cancel", EMPTY, "cancel"),
        ("取消任务", EMPTY, "cancel"),
        ("tune the network", EMPTY, "tune"),
        ("run `rm -rf /data`", EMPTY, "run_command"),
        ("launch the training", two_clusters, "launch"),
    ]
    for text, context, intent in cases:
        turn = understand(text, context)
        assert turn.intent == intent, text
        assert turn.tool_calls == () and turn.reply, text


def test_the_same_text_gives_the_same_turn() -> None:
    for phrase in BOOK.phrases()[:40]:
        context = BOOK.context_for(phrase)
        assert understand(phrase.say, context) == understand(phrase.say, context)


def test_long_or_pathological_text_is_answered_quickly_with_words() -> None:
    texts = ["1" * 1000, "release " * 125, "一" * 1000, "`" * 999, "x" * 5000]
    for text in texts:
        started = time.perf_counter()
        turn = understand(text, CONTEXT)
        assert time.perf_counter() - started < 0.5, text[:20]
        assert _unsafe(turn) == []
    long = understand("release everything " * 60, CONTEXT)
    assert long.tool_calls == () and "1000 characters" in (long.reply or "")


def test_a_released_cluster_is_no_longer_it() -> None:
    stale = RulesContext(last_cluster="a800-x16-old", clusters=("l40s-x8-new",), today=EMPTY.today)
    for text in ("release it", "释放这个集群", "tune the network", "run `nvidia-smi`"):
        turn = understand(text, stale)
        assert turn.tool_calls == () and "l40s-x8-new" in (turn.reply or ""), text
    health = understand("is the cluster healthy?", stale)
    assert [(c.name, c.args) for c in health.tool_calls] == [
        ("cluster_health", {"cluster": "l40s-x8-new"})
    ]
    assert understand("release l40s-x8-new", stale).tool_calls[0].args == {"cluster": "l40s-x8-new"}


def test_the_tail_of_a_path_is_never_taken_for_a_job_or_cluster_name() -> None:
    # Hypothesis found these: the words around "取消"/"释放" were read as a job or cluster
    # named "train.yamla800", the end of the spec's path.
    for text in ("jobs/train.yamlA800取消", "jobs/train.yamlA800释放"):
        for context in (CONTEXT, EMPTY):
            turn = understand(text, context)
            named = [str(v) for c in turn.tool_calls for v in c.args.values()]
            assert not any("train.yaml" in v for v in named), (text, turn.tool_calls)
