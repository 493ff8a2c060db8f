"""What the rules brain says when it calls no tool: help, questions back, the RoCE/IB advice.

Every text exists in English and Chinese; :func:`pick` chooses by the
request's language. The fabric advice quotes seed 004's selection rules as the
planner applies them (:mod:`xyclaw.planner.rules`), with the same thresholds.
"""

from __future__ import annotations

from xyclaw.engine.values import MID_MODEL_MIN, SMALL_MODEL_MAX
from xyclaw.wording import reason_in, text_in
from xyclaw.wording.agent import CARDS


def pick(language: str, en: str, zh: str) -> str:
    return zh if language == "zh" else en


HELP_EN = """I am XyClaw's built-in rules brain (no model, no tokens). Things you can ask:
- **Plan**: "plan a LoRA fine-tune of a 13B model on 8 A800, budget 500 CNY", \
"serve a 7B model at 100 QPS", "pretrain 7B on 100B tokens in 2 days"
- **Network**: "RoCE or InfiniBand for 16 GPUs?"
- **Rent** (after a plan, asks you first): "rent option 2"
- **Clusters**: "what's running", "health of a800-x16-1a2b3c", "tune the network", \
"release it", "release everything"
- **Jobs**: "launch jobs/train.yaml on <cluster>", "logs of job 3", "status of job 3", \
"cancel job 3"
- **Money and history**: "how much did I spend today", "this month's cost", \
"the last 5 jobs", "any alerts?"
Nothing that spends, destroys or runs code happens before you approve it."""

HELP_ZH = """我是 XyClaw 内置的规则助手（不用模型，不耗 token）。可以这样问：
- **规划**：“用8张A800做130亿参数模型的LoRA微调，预算五百元”、“部署一个7B模型，QPS 100”、\
“两天内在1000亿token上预训练7B”
- **网络**：“16张卡用RoCE还是IB？”
- **租用**（先有方案，租前会征求你同意）：“租方案2”、“就用第一个”
- **集群**：“集群状态”、“检查集群健康”、“调优网络”、“释放这个集群”、“全部释放”
- **作业**：“在集群上启动 jobs/train.yaml”、“看作业3的日志”、“作业3怎么样了”、“取消作业3”
- **费用和历史**：“今天花了多少钱”、“本月费用”、“最近5个作业”、“有告警吗”
花钱、销毁或执行命令的操作都要你批准后才会进行。"""

UNKNOWN_EN = """I did not understand that. Try for example:
- "plan a 7B fine-tune on 8 GPUs, budget 500 CNY"
- "rent option 1" (after a plan), "what's running", "release it"
- "how much did I spend today", "the last 5 jobs", "help"."""

UNKNOWN_ZH = """没听懂这句话。可以试试：
- “用8张卡微调7B模型，预算500元”
- “租方案1”（先规划）、“集群状态”、“释放这个集群”
- “今天花了多少钱”、“最近5个作业”、“帮助”。"""


def help_text(language: str) -> str:
    return pick(language, HELP_EN, HELP_ZH)


def unknown_text(language: str) -> str:
    return pick(language, UNKNOWN_EN, UNKNOWN_ZH)


# ---- RoCE vs InfiniBand (seed 004) -----------------------------------------------------------

FABRIC_EN = """**RoCE v2 or InfiniBand** (StarVerse's selection rules, as the planner applies them):
- **RoCE is enough** up to 8 cards on 7B/13B training or inference: the two are within 10% \
(8 x H100 on 7B: 3.5 days on RoCE vs 3.2 on IB), and IB costs about 42% more compute money \
for +8.6%. RoCE also fits a tight budget or an existing Ethernet network (30-50% less network \
hardware: a 36-port 200G switch ~30,000 vs ~80,000 CNY, NIC ~5,000 vs ~12,000 CNY), and \
RTX 4090/A10 cards are fine on 100 Gb/s RoCE.
- **InfiniBand matters** from 16 to 32 cards on 13B-70B training (12-38% shorter runs, \
10-30% higher GPU utilization: 32 cards on 70B run 15.2 days on IB vs 24.5 on RoCE), and \
above 32 cards only IB holds up. H100/A100-class cards want >= 200 Gb/s (IB). For \
inference with a 100 ms latency limit, a 70B model on 8 cards needs IB (85 ms vs 132 ms).
- **Latency**: one hop at 200 Gb/s <= 0.8 us (IB) vs <= 1.8 us (RoCE); 32 cards across \
nodes <= 3.5 us vs <= 8 us. RoCE without PFC and ECN on the switches jitters: check both.
- On one 8-GPU machine there is no network between nodes at all (NVLink or PCIe).
Say "plan a 13B training on 16 GPUs" and the planner compares both fabrics with prices."""

FABRIC_ZH = """**RoCE v2 还是 InfiniBand**（星宇智算的选型规则，规划器按同样的规则打分）：
- **RoCE 够用**：8 卡以内的 7B/13B 训练或推理，两者差距在 10% 以内（8×H100 训练 7B：\
RoCE 3.5 天，IB 3.2 天），IB 要多花约 42% 的算力费用只换来 8.6% 的提升。预算紧或已有以太网\
时也选 RoCE（网络硬件省 30-50%：36 口 200G 交换机约 3 万 vs 8 万元，网卡约 5 千 vs 1.2 万元）；\
RTX 4090/A10 用 100 Gb/s RoCE 就够。
- **IB 更重要**：16-32 卡的 13B-70B 训练（训练时间缩短 12-38%，GPU 利用率高 10-30%：32 卡训练 \
70B，IB 15.2 天，RoCE 24.5 天）；超过 32 卡只有 IB 撑得住。H100/A100 级别的卡需要 ≥200 Gb/s（IB）。\
推理若要求 100 ms 以内，8 卡跑 70B 要用 IB（85 ms 对 132 ms）。
- **延迟**：200 Gb/s 单跳 IB ≤0.8 µs，RoCE ≤1.8 µs；32 卡跨节点 ≤3.5 µs 对 ≤8 µs。\
RoCE 交换机没开 PFC 和 ECN 会抖动，要检查。
- 单台 8 卡机器内部不走节点间网络（NVLink 或 PCIe）。
说“用16张卡训练13B模型，做个规划”，规划器会带价格比较两种网络。"""


def fabric_advice(
    language: str,
    *,
    gpus: int | str | None,
    params: int | None,
    task: str | None,
    gpu: str | None,
    gpu_wants_gbps: int | None,
    budget: bool,
) -> str:
    """The general advice, or the rules that decide for the cards, model and task asked about."""
    low, high = _bounds(gpus)
    training = task != "inference"
    size = f"{params / 1e9:.3g}B" if params else None
    on_en = f" on a {size} model" if size else ""
    on_zh = f"跑 {size} 模型" if size else ""
    zh_model = f" {size} 模型" if size else ""
    lines: list[tuple[str, str]] = []
    if high is not None and high <= 8 and (params is None or params <= SMALL_MODEL_MAX):
        lines.append(
            (
                f"For {high} cards{on_en}: **RoCE is enough**. Up to 8 cards on 7B/13B jobs "
                "RoCE and IB are within 10%, and IB costs about 42% more compute money for "
                "+8.6% (seed 004 rule 1). On a single 8-GPU machine there is no inter-node "
                "network at all.",
                f"{high} 张卡{on_zh}：**RoCE 够用**。8 卡以内的 7B/13B 作业两者差距在 10% 以内，"
                "IB 多花约 42% 的算力费用只换来 8.6%（规则 1）。单台 8 卡机器内部不走节点间网络。",
            )
        )
    elif training and low is not None and (low > 32 or (high is None and low >= 32)):
        lines.append(
            (
                f"For {gpus} cards of training: **InfiniBand**. Above 32 cards only IB holds "
                "up (seed 004 rule 3; 32 cards on 70B: 15.2 days on IB vs 24.5 on RoCE).",
                f"{gpus} 张卡训练：**用 InfiniBand**。超过 32 卡只有 IB 撑得住（规则 3；32 卡训练 "
                "70B：IB 15.2 天，RoCE 24.5 天）。",
            )
        )
    elif training and low is not None and low > 8 and (params is None or params >= MID_MODEL_MIN):
        lines.append(
            (
                f"For {gpus} cards of training{on_en}: **InfiniBand**. From 16 to 32 cards on "
                "13B-70B models IB runs 12-38% shorter with 10-30% higher GPU utilization "
                "(seed 004 rule 2; 16 cards on 13B: 7.8 days vs 8.9 on RoCE).",
                f"{gpus} 张卡训练{zh_model}：**用 InfiniBand**。16-32 卡训练 13B-70B 模型，"
                "IB 训练时间短 12-38%，GPU 利用率高 10-30%"
                "（规则 2；16 卡训练 13B：IB 7.8 天，RoCE 8.9 天）。",
            )
        )
    elif not training and params is not None and params >= 50_000_000_000:
        lines.append(
            (
                f"For serving a {size} model: **InfiniBand** if answers must come within "
                "100 ms: on 8 cards a 70B model answers in 85 ms on IB vs 132 ms on RoCE "
                "(seed 004).",
                f"部署 {size} 模型：要 100 ms 以内就**用 InfiniBand**：8 卡跑 70B，IB 85 ms，"
                "RoCE 132 ms。",
            )
        )
    elif not training and params is not None:
        lines.append(
            (
                f"For serving a {size} model: **RoCE is enough**: on 8 cards a 7B model answers "
                "in 35 ms on RoCE vs 28 ms on IB, 13B in 58 vs 42 ms (seed 004).",
                f"部署 {size} 模型：**RoCE 够用**：8 卡跑 7B，RoCE 35 ms，IB 28 ms；13B 为 "
                "58 ms 对 42 ms。",
            )
        )
    if gpu is not None and gpu_wants_gbps is not None:
        if gpu_wants_gbps >= 200:
            lines.append(
                (
                    f"{gpu} cards want >= 200 Gb/s between nodes: IB HDR 200 or 200G RoCE, "
                    "not 100G (seed 004 rule 6).",
                    f"{gpu} 需要节点间 ≥200 Gb/s：IB HDR 200 或 200G RoCE，不要 100G（规则 6）。",
                )
            )
        else:
            lines.append(
                (
                    f"{gpu} cards are fine on 100 Gb/s RoCE (seed 004 rule 6).",
                    f"{gpu} 用 100 Gb/s RoCE 就够（规则 6）。",
                )
            )
    if budget:
        lines.append(
            (
                "On a budget RoCE needs 30-50% less network hardware (seed 004 rule 4).",
                "预算有限时 RoCE 网络硬件省 30-50%（规则 4）。",
            )
        )
    if not lines:
        return pick(language, FABRIC_EN, FABRIC_ZH)
    lines.append(
        (
            "RoCE needs PFC and ECN on the switches, else latency jitters (rule 7). Ask for a "
            "plan with these numbers and the planner compares both fabrics with prices.",
            "RoCE 交换机要开 PFC 和 ECN，否则延迟抖动（规则 7）。按这些条件做个规划，"
            "规划器会带价格比较两种网络。",
        )
    )
    index = 1 if language == "zh" else 0
    return "\n".join("- " + line[index] for line in lines)


def _bounds(gpus: int | str | None) -> tuple[int | None, int | None]:
    if gpus is None:
        return None, None
    if isinstance(gpus, int):
        return gpus, gpus
    if gpus.endswith("+"):
        return int(gpus[:-1]), None
    low, high = gpus.split("-")
    return int(low), int(high)


# ---- questions back and refusals -------------------------------------------------------------


ACTIONS: dict[str, tuple[str, str, str, str]] = {
    # intent: (English verb phrase, Chinese verb phrase, English example, Chinese example)
    "rent": ("rent anything", "租用", "rent option 1", "租方案1"),
    "release": ("release a cluster", "释放集群", "release <cluster>", "释放 <集群>"),
    "cancel": ("cancel a job", "取消作业", "cancel job 3", "取消作业3"),
    "tune": ("tune a cluster", "调优集群", "tune <cluster>", "调优 <集群>"),
    "launch": ("launch a job", "启动作业", "launch jobs/train.yaml", "启动 jobs/train.yaml"),
    "run_command": (
        "run a command",
        "执行命令",
        "run `nvidia-smi` on <cluster>",
        "在 <集群> 上执行 `nvidia-smi`",
    ),
    "slurm_launch": (  # issue 33 (a33)
        "submit a job to the lab's Slurm cluster",
        "向实验室的 Slurm 集群提交作业",
        "run jobs/train.yaml on the lab cluster",
        "在实验室集群上运行 jobs/train.yaml",
    ),
}


def say(language: str, key: str, **values: object) -> str:
    """The rules brain's line ``key``: ``agent.rules.<key>`` in the catalogue, or the
    approval card's ``agent.<key>`` that the tools word the same."""
    full = f"agent.{key}" if f"agent.{key}" in CARDS else f"agent.rules.{key}"
    return text_in("zh" if language == "zh" else "en", full, **values)


def refusal(language: str, key: str, intent: str) -> str:
    """The negated / advisory answer for an action intent, with the phrase that would do it."""
    en_action, zh_action, en_example, zh_example = ACTIONS[intent]
    hint = pick(language, f'To do it, say "{en_example}".', f"要执行请说“{zh_example}”。")
    return say(language, key, action=pick(language, en_action, zh_action), hint=hint)


# ---- approval cards (xyclaw.agent.tools words them in the request's language) ----------------


def card_label(language: str, key: str) -> str:
    """An approval card's detail name as the terminal shows it (``agent.label.<key>``); a
    name the catalogue lacks is shown as it is."""
    from xyclaw.wording.catalogue import CATALOGUE

    en, zh = CATALOGUE.get(f"agent.label.{key}", (key, key))
    return pick(language, en, zh)


# ---- the planner's reasons (xyclaw.planner.rules gives each one's rule and figures) -----------


def reason_text(reason: object, language: str) -> str:
    """One planner reason (its JSON: rule, text, figures) in ``language``."""
    if not isinstance(reason, dict):
        return str(reason)
    figures = reason.get("figures")
    return reason_in(
        language,
        str(reason.get("rule") or ""),
        str(reason.get("text") or ""),
        figures if isinstance(figures, dict) else None,
    )


# ---- failures (the engine's own message is quoted as it is, in a code span) -------------------

#: What went wrong, by error class (xyclaw.errors), most specific class first.
ERRORS_ZH: dict[str, str] = {
    "QuoteChanged": "报价在你批准后变了，没有租用任何机器；请重新规划查看新价格",
    "BudgetExceededError": "超出预算，没有执行",
    "CapacityError": "平台暂时没有空余的机器",
    "ProviderError": "云平台返回了错误",
    "AuthenticationError": "登录远程机器失败",
    "ConnectError": "连不上远程机器",
    "RemoteTimeoutError": "远程机器超时",
    "RemoteError": "远程机器出错",
    "JobError": "作业出错",
    "PlanningError": "规划失败",
    "CatalogError": "目录里找不到",
    "ConfigError": "配置有误",
    "SecretError": "读取密钥失败",
    "StoreError": "历史数据库出错",
    "OperationCancelled": "操作已取消",
    "UsageError": "请求无法执行（对象不存在或状态不对）",
    "AgentError": "助手内部出错",
}


def failure_text(language: str, tool: str, error: str, hint: str | None, kinds: object = ()) -> str:
    """A failed tool call, worded for the user; the engine's message is quoted verbatim."""
    if language != "zh":
        return f"{tool} failed: {error}" + (f" ({hint})" if hint else "")
    names = [str(k) for k in kinds] if isinstance(kinds, list | tuple) else []
    lead = next((ERRORS_ZH[k] for k in names if k in ERRORS_ZH), "执行出错")
    detail = _quoted(error) + (f"（{_quoted(hint)}）" if hint else "")
    return f"{tool} 失败：{lead}。原文：{detail}"


def _quoted(text: str) -> str:
    """``text`` as a Markdown code span, whatever backticks it holds."""
    return f"`` {text} ``" if "`" in text else f"`{text}`"
