"""The rules brain: a documented set of requests in English and Chinese, turned into tool calls.

:func:`understand` is deterministic and quick (no model, no tokens). It reads
the request once (see :mod:`xyclaw.agent.rules.slots`), decides the intent in a
fixed order, and builds at most a few tool calls. It never calls a tool that
spends, destroys or executes unless the request names that action plainly and
its target resolves (a plan option, a named or the conversation's cluster or
job); a negated ("don't release"), hypothetical ("should I release?") or
how-to request gets words back, not a call. Anything else is ``unknown``: a
short help in the request's language.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace

from xyclaw.agent.rules import slots
from xyclaw.agent.rules.slots import (
    CLUSTER_PRONOUNS,
    CLUSTER_WORDS,
    JOB_PRONOUNS,
    JOB_WORDS,
    Message,
    Ref,
)
from xyclaw.agent.rules.texts import (
    fabric_advice,
    help_text,
    refusal,
    say,
    unknown_text,
)
from xyclaw.agent.rules.turn import UNSAFE_TOOLS, RulesContext, RulesTurn, ToolCall

# ---- language --------------------------------------------------------------------------------

_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_WORD = re.compile(r"[A-Za-z]{2,}")


def detect_language(text: str) -> str:
    """``zh`` when Chinese characters carry the request (mixed text too), else ``en``."""
    han = len(_HAN.findall(text))
    if han == 0:
        return "en"
    words = len(_WORD.findall(text))
    return "zh" if han * 2 >= words else "en"


# ---- keyword patterns (on Message.keys: folded, quotes and paths taken out) ------------------

_HELP_ONLY = re.compile(
    r"^\s*(?:/?help|/\?|\?|menu|usage|commands|examples?|hi|hello|hey|hi there|"
    r"帮助|菜单|你好|您好|嗨|哈喽|在吗|使用说明|说明)\s*[!.?？！。]*\s*$"
)
_THANKS = re.compile(
    r"^\s*(?:thanks?(?:\s+you)?(?:\s+(?:so|very)\s+much)?|thx|ty|cheers|"
    r"谢谢(?:你|您)?|多谢|感谢|辛苦了?)\s*[!.。！~]*\s*$"
)
_HELP = re.compile(
    r"what can you do|what do you do|what can i (?:ask|say)|how does this work|how do i use "
    r"(?:you|this|xyclaw)|\bhelp\b|你能做什么|你会什么|能做什么|怎么用你|如何使用|有什么功能|"
    r"帮助|使用说明|能干什么|可以做什么"
)
_NEGATION = (
    r"\b(?:don['’]?t|do\s+not|never|no\s+need\s+to|not\s+now|stop\s+asking)\b|不要|别|不用|先不|"
    r"不必|不需要|千万别|勿|暂时不|不想"
)
_ADVISORY = re.compile(
    r"\bshould\s+(?:i|we)\b|\bwhat\s+if\b|\bwhat\s+happens\b|\bwhat\s+does\b|\bwhat\s+would\b|"
    r"\bhow\s+(?:do|can|would|should)\s+(?:i|we|you)\b|\bhow\s+to\b|\bis\s+it\s+safe\b|"
    r"\bwhen\s+should\b|要不要|该不该|是否应该|应不应该|需不需要|会怎样|会怎么样|如果.{0,8}会|"
    r"怎么(?!样)|如何|怎样(?!了)|能不能先|有必要"
)
_QUESTION_WORD = re.compile(
    r"^\s*(?:what|how|which|why|when|where)\b|\b(?:how\s+much|how\s+long)\b|多少|什么|哪个|为什么|多久"
)
_POLITE = re.compile(
    r"^\s*(?:(?:please|pls|plz|kindly|ok(?:ay)?|now|then|and|so|go\s+ahead\s+and|can\s+you|"
    r"could\s+you|would\s+you|i\s+want\s+to|i'?d\s+like\s+to|let'?s|let\s+us)\s*,?\s*)*"
    r"(?:(?:请|帮我|麻烦|给我|帮忙|那就|那|好的?|现在|我要|我想|可以)\s*,?\s*)*"
)
_ALL = (
    r"\ball\b|\beverything\b|\bevery\s+cluster\b|\beach\s+cluster\b|全部|所有|全都|一切|统统|都释放|"
    r"都关|都退"
)

_FABRIC_WORD = (
    slots.IB_WORDS + "|" + slots.ROCE_WORDS + r"|\b(?:network|fabric|interconnect|networking)\b|"
    r"网络|组网|互联|交换机"
)
_FABRIC_QUESTION = (
    r"还是|哪个|哪种|\bwhich\b|\bshould\b|\bneed\b|\benough\b|够|需要|是否|\bwhether\b|"
    r"\bworth\b|\bbetter\b|\bvs\.?\b|\bversus\b|difference|区别|对比|比较|选择|选哪|用什么|\bor\b|"
    r"\bmatters?\b|what\s+(?:network|fabric|interconnect)"
)

_TASK_LORA = r"\b(?:q?lora)\b|q?lora"
_TASK_FINETUNE = (
    r"fine[\s-]?tun(?:e|ing|ed)|finetun(?:e|ing)|\bsft\b|instruction[\s-]tun|微调|精调|全参|全量"
)
_TASK_INFERENCE = (
    r"\binference\b|\bserv(?:e|ing)\b|\bdeploy(?:ment|ing)?\b|\bhost(?:ing)?\s+(?:a|the)?\s*model|"
    r"\bqps\b|\brps\b|推理|部署|上线|服务化|在线服务"
)
_TASK_PRETRAIN = r"pre[\s-]?train(?:ing)?|from\s+scratch|预训练|从头训练|从零训练"
_TASK_TRAIN = r"\btrain(?:ing)?\b|训练"
_PLAN_WORD = (
    r"\bplan\b|\bestimate\b|\bhow\s+many\s+(?:gpus|cards|nodes)\b|\bsize\s+(?:a|the)\b|"
    r"规划|估算|预估|评估|算一下|需要多少|要多少(?:张|卡|台)|(?:做|出|给|推荐)(?:一?个|一下)?方案|"
    r"推荐配置|什么配置"
)
# Chinese verbs inside other words do not count: 费用 (cost), 候选 (candidate), 租金 (rent money).
_ZH_START = r"(?:(?<![\u4e00-\u9fff])|(?<=[就我请那先再还便]))"
_RENT_STRONG = (
    r"\b(?:rent|lease|book|provision|spin\s+up|buy|reserve)\b|(?<!in\s)\border\b|"
    r"租(?![金价过期费户赁期])|下单|订购|(?<![\u4e00-\u9fff])开(?:一|个|台|套)|创建集群|开集群|开通"
)
_RENT_WEAK = (
    r"(?:\b(?:take|go\s+with|choose|pick|select|use|i'?ll\s+take|let'?s\s+go\s+with)\b"
    rf"|就用|就选|{_ZH_START}用|{_ZH_START}选|{_ZH_START}选择|确定|使用)\s*(?:the\s+)?"
    r"(?:option|choice|#|no\.|number|方案|选项|第|"
    + slots.ORDINAL_WORDS.replace("|", r"\b|\b")
    + r"\b)"
)
_RENT_PRONOUN = (
    r"\b(?:rent|book|take|order)\s+(?:it|this|that|this\s+one|that\s+one|them)\b"
    r"|租(?:它|这个|那个|吧|了吧)|就租这个|(?:^|[,，。\s])就(?:这个|它)(?:吧|了)?\s*[。.!！]?\s*$"
)
# issue 32: rent as spot (preemptible) capacity, where the provider has it
_SPOT = r"\bspot\b|\bpreemptible\b|\binterruptible\b|竞价|抢占式|可抢占|可中断"
_CREATE_CLUSTER = (
    r"\b(?:create|start|launch|spin\s+up|bring\s+up)\s+(?:a|an|new|the)?\s*\S*\s*cluster\b"
)
_RELEASE = (
    r"\b(?:release|free\s+up|shut\s*down|shutdown|shut\s+(?:[a-z0-9-]+\s+){1,3}down|"
    r"tear\s+(?:[a-z0-9-]+\s+){0,3}down|teardown|terminate|destroy|"
    r"delete|remove|decommission|give\s+back|turn\s+off|power\s+off)\b|释放|退掉|退租|关掉|关闭|关了|销毁|"
    r"删除|删掉|回收|还掉|归还|停掉集群|停止集群|不要了"
)
_STOP = r"\b(?:stop|kill|end|halt)\b|停止|停掉|停了|杀掉|结束|中止|终止"
_CANCEL = r"\b(?:cancel|abort|kill|stop)\b|取消|终止|中止|停止|停掉|杀掉|结束|停了"
_LAUNCH = (
    r"\b(?:launch|start|submit|run|kick\s+off|begin|queue|schedule)\b|"
    r"启动|提交|运行|开始|跑|执行|开跑"
)
_RUN = r"\b(?:run|execute|exec)\b|执行|运行|跑一下|跑"
_LAUNCH_STRONG = r"\b(?:launch|submit|kick\s+off)\b|启动|提交|开跑"
_TUNE = (
    r"(?<![a-z-])(?<!fine\s)(?<!prompt\s)(?<!instruction\s)(?<!lora\s)(?<!parameter\s)"
    r"tun(?:e|ing)\b|optimi[sz]e\s+(?:the\s+)?(?:nccl|network|"
    r"communication|fabric|all-?reduce|interconnect|bandwidth)|nccl[\s-]*tests?|调优|"
    r"优化\s*(?:一下)?\s*(?:网络|通信|nccl|带宽)|(?:网络|通信|nccl)\s*(?:调优|优化)|测\s*一?下?\s*带宽|"
    r"(?<![预推检观监])测(?:试|量)?\s*(?:一下)?[^，。,.;；?？]{0,32}?(?:nccl|带宽|网络|通信)|"
    r"\b(?:measure|test|benchmark)\s+(?:the\s+|my\s+)?(?:nccl|network|interconnect|all-?reduce|"
    r"fabric|bus)\b|\b(?:measure|test|benchmark)\s+(?:the\s+)?(?:\S+\s+)?bandwidth\b"
)
# issue 34 (b34): "why is it stuck"
_WHY_STUCK = (
    r"\bwhy\b.{0,40}\b(?:stuck|hang(?:s|ing)?|hung|frozen|stall(?:ed|s|ing)?)\b|"
    r"\b(?:stuck|hangs?|hanging|hung|stall(?:s|ed)?)\b.{0,20}\bwhy\b|"
    r"which\s+rank\b.{0,30}\b(?:stuck|hang(?:s|ing)?|hung|waits?|waiting|slow)\b|"
    r"what\s+is\s+(?:it|the\s+job|the\s+training)\s+waiting\s+for|\bexplain\b.{0,20}\bhang\b|"
    r"为什么.{0,10}(?:卡住|卡死|卡着|不动|停住|挂住)|(?:卡住|卡死|卡着|挂住).{0,6}(?:原因|为什么|为啥)|"
    r"卡在哪|哪个(?:进程|rank).{0,6}(?:卡|慢|等)|为啥.{0,10}(?:卡|不动)"
)
_LOGS = r"\blogs?\b|\boutput\b|\bstdout\b|\bstderr\b|\btail\b|\bprinted\b|日志|输出|打印"
_JOB_STATUS = (
    r"status\s+of\s+(?:the\s+|my\s+)?(?:job|run|training)|(?:job|run|training)\s*\S*\s+status|"
    r"how(?:'s|\s+is)\s+(?:the\s+|my\s+)?(?:job|run|training|fine-?tune)|progress|\beta\b|"
    r"is\s+(?:it|the\s+job|the\s+training|job\s*\S+)\s+(?:done|finished|running|over)|"
    r"how\s+far|进度|怎么样了|跑完|跑到|还要多久|完成了吗|训练到|任务状态|作业状态|状态如何|跑得怎么样|结束了吗"
)
_SPENT = (
    r"\bspent\b|\bdid\b.*\bcost\b|\bhave\s+i\s+(?:spent|paid)\b|\bpaid\b|花了|花掉|花费了|用了多少钱|"
    r"消费了|扣了|烧了"
)
_COST = (
    r"\bspen[dt]|\bspending\b|\bcosts?\b|\bbill(?:ing|ed)?\b|\bcharges?\b|\bpaid\b|\bmoney\b|"
    r"\bexpenses?\b|花了|花费|花掉|费用|账单|消费|开销|支出|扣了|多少钱|成本|烧了"
)
_OFFERS = (
    r"\boffers?\b|\bprices?\b|\bpricing\b|\brates?\b|per\s+(?:gpu-?)?hour|an\s+hour|/\s*h\b|"
    r"\bhourly\b|what\s+(?:gpus|cards)\s+(?:can|are|do)|\bavailable\b|\bin\s+stock\b|"
    r"报价|价格|价钱|单价|每小时|一小时|多少钱一|可租|能租什么|有哪些卡|有什么卡|有哪些gpu|库存|有货|"
    r"租金|租价"
)
_HISTORY_STRONG = (
    r"\bhistory\b|\bhistorical\b|\blast\s+\d+|"
    r"\bwhat\s+happened\b|\bevents?\b|\blast\s+(?:month|week)\b|\byesterday\b|历史|"
    r"上次|上个?月|上周|昨天|租过|跑过|记录|发生了什么|事件|跑了哪些|租了哪些"
)
#: Words that point back in time but alone ask for nothing ("ignore previous instructions",
#: "忽略之前的指令"): history only with something to look back at (jobs, clusters, plans...).
_HISTORY_WEAK = r"\brecent\b|\bprevious\b|\bpast\b|\bearlier\b|\bago\b|最近|以前|之前|过去"
_HISTORY = _HISTORY_STRONG + "|" + _HISTORY_WEAK
_ALERTS = (
    r"\balerts?\b|\balarms?\b|\bwarnings?\b|anything\s+wrong|any\s+(?:problems|issues|errors)|"
    r"告警|报警|警报|警告|异常|故障"
)
_HEALTH = (
    r"\bhealth(?:y)?\b|\btemperatures?\b|\btemps?\b|\butili[sz]ation\b|\butil\b|gpu\s+usage|"
    r"memory\s+usage|how\s+(?:are|is)\s+(?:the\s+|my\s+)?(?:gpus|nodes|cluster|machines)|"
    r"\bnvidia-smi\b|\bcheck\b.{0,40}\b(?:cluster|gpus|nodes)\b|健康|温度|利用率|显存|"
    r"正常吗|节点状态|gpu状态|显卡状态|检查一下|体检|巡检"
)
_STATUS = (
    r"\bstatus\b|what'?s\s+running|what\s+is\s+running|\brunning\b|list\s+(?:my\s+|the\s+)?clusters|"
    r"show\s+(?:me\s+)?(?:my\s+|the\s+)?clusters|\bmy\s+clusters\b|which\s+clusters|"
    r"clusters\s+do\s+i\s+have|what\s+do\s+i\s+have|集群状态|有哪些集群|哪些集群|在跑什么|在运行|运行中|"
    r"我的集群|现在有什么|状态|集群列表|列出集群|有什么集群"
)

# issue 36: "how has lambda been for me", "autodl 靠谱吗": the memory of a provider
_TRACK = (
    r"\bhow\s+(?:has|have)\s+(?:\S+\s+){1,3}?been\b|\btrack\s+records?\b|"
    r"\breliab(?:le|ility)\b|靠谱|可靠|口碑|表现(?:如何|怎么样)|(?:以往|历来|一直以来)(?:怎么样|如何)"
)
_TRACK_PROVIDER = (
    r"how\s+(?:has|have)\s+(?:the\s+)?([a-z][\w.-]*)\s+(?:\S+\s+)?been|"
    r"track\s+records?\s+(?:of|for)\s+([a-z][\w.-]*)|"
    r"(?:is|was|are)\s+([a-z][\w.-]*)\s+(?:been\s+)?reliable|"
    r"\b([a-z][\w.-]*)\s*(?:平台|云)?\s*(?:靠谱|可靠|口碑|的?表现|以往|历来|一直以来)"
)
# issue 33, helper a33: a lab's Slurm cluster ("run jobs/train.yaml on the lab cluster", "how
# long is the queue for 8 A100s", "在实验室集群上运行 ...", "8张A100要排队多久")
_SLURM_PLACE = (
    r"\bslurm\b|\blab(?:'s)?\s+(?:slurm\s+)?cluster\b|\bteam(?:'s)?\s+cluster\b|"
    r"实验室(?:的)?(?:slurm\s*)?集群|课题组(?:的)?集群|团队(?:的)?集群|slurm"
)
_SLURM_QUEUE = r"\bqueue\b|排队|队列"
_SLURM_ASKS_HOW_LONG = (
    r"\bhow\s+long\b|\bwait(?:s|ing)?\b|\bwhen\b|\bbusy\b|\bfull\b|多久|多长时间|要等|等多|忙|满"
)

_NOT_PROVIDERS = frozenset(
    {"it", "my", "they", "things", "everything", "providers", "provider", "clouds", "you", "i"}
)

_KIND_PATTERNS = (
    ("jobs", r"\bjobs?\b|\bruns?\b|\btrainings?\b|\bfine-?tunes?\b|任务|训练|作业|微调"),
    ("clusters", r"\bclusters?\b|\brentals?\b|集群|租过|租用|机器"),
    ("plans", r"\bplans?\b|方案|规划"),
    ("events", r"\bevents?\b|what\s+happened|事件|发生|操作|记录"),
    ("conversations", r"\bconversations?\b|\bchats?\b|对话|会话|聊天"),
)


@dataclass
class _Turn:
    """What :func:`understand` is building; frozen into a RulesTurn at the end."""

    language: str
    context: RulesContext

    def reply(self, intent: str, agent: str, text: str) -> RulesTurn:
        return RulesTurn(self.language, agent, (), text, intent)

    def call(self, intent: str, agent: str, *calls: ToolCall) -> RulesTurn:
        return RulesTurn(self.language, agent, tuple(calls), None, intent)

    def say(self, key: str, **values: object) -> str:
        return say(self.language, key, **values)


def _has(msg: Message, pattern: str | re.Pattern[str]) -> bool:
    """Whether a keyword pattern occurs (quoted commands and paths left out)."""
    return msg.has(pattern)


def _has_work(msg: Message, pattern: str | re.Pattern[str]) -> bool:
    """Whether a pattern occurs in the numeral-converted text ("第一个" reads "第 1 个")."""
    return re.search(pattern, msg.work) is not None


def _position(msg: Message, pattern: str) -> int | None:
    match = re.search(pattern, msg.keys)
    return None if match is None else match.start()


_CLAUSE_BREAK = re.compile(
    r"[,.;!?，。；！？]|\b(?:but|then|and\s+then|instead)\b|但是|不过|然后|而是"
)


def _negated(msg: Message, verb: str) -> bool:
    """A negation before the action verb in the same clause ("don't release", "不要给 X 调优")."""
    verb_at = _position(msg, verb)
    if verb_at is None:
        return False
    for match in re.finditer(_NEGATION, msg.keys):
        between = msg.keys[match.end() : verb_at]
        if match.start() <= verb_at and not _CLAUSE_BREAK.search(between) and len(between) < 48:
            return True
    return False


def _leading(msg: Message, verb: str) -> bool:
    """Whether the request starts with the verb (after "please", "请", "帮我" and the like)."""
    rest = msg.keys[_POLITE.match(msg.keys).end() :]  # type: ignore[union-attr]
    return re.match(r"\s*(?:" + verb + ")", rest) is not None


#: "release everything except alpha", "all but", "除了 alpha 以外": what follows (or, for 以外 and
#: 之外, precedes) names what the action must leave alone.
_EXCEPT = (
    r"\bexcept(?:\s+for)?\b|\bbut\s+not\b|\ball\s+but\b|\bapart\s+from\b|\bother\s+than\b|"
    r"\bexcluding\b|\bsave\s+for\b|\bbesides\b|\bnot\s+including\b|\bkeep(?:ing)?\b|"
    r"除了|除去|以外|之外|不包括|不含|保留|留下"
)
_EXCEPT_BEFORE = re.compile(r"以外|之外")
#: Where an exclusion's names end: not at a comma ("except alpha, beta and gamma" keeps three).
_EXCEPT_END = re.compile(r"[.;!?。；！？]|\b(?:and\s+then|then|please)\b|以外|之外|然后|都|全")
#: Words inside an exclusion that name nothing ("except the one on a800-x16-3fa2b1").
_EXCEPT_FILLER = re.compile(
    r"(?:the|a|an|my|one|ones|cluster|clusters|job|jobs|node|nodes|machine|machines|of|on|"
    r"and|or|for|that|this|those|these|it|them|its|running|live|named|called|gpu|gpus|number|"
    r"id|#|no\.?|集群|作业|任务|那个|这个|那台|这台|的|和|与|及|个|台|号|others?|rest|其他|其余|"
    r"别的|please|thanks?|thank\s+you|thx|now|ok|okay|请|帮我|麻烦|把|谢谢|吧|了)"
)
#: Hedges anywhere in a request that would destroy, spend or run something: it is then not a
#: plain request ("could you" and "would you" at the start are politeness, taken off first).
_HEDGE = re.compile(
    r"\b(?:should|would|could|might|maybe|perhaps|if|whether|why|what|when|how|which|who|"
    r"wonder|think|guess|probably|unless)\b|\?|？|吗|呢|应该|为什么|是否|如果|要是|可能|也许|或许|"
    r"什么|怎么|哪|难道"
)
_NEGATION_ANYWHERE = re.compile(
    _NEGATION + r"|\b(?:not|no|nothing|neither|nor|without)\b|不|没|未|无需"
)
#: The families of action verbs: a request naming two (release and tune) is not one request.
_FAMILIES = (
    _RELEASE,
    r"\b(?:cancel|abort)\b|取消",
    _RENT_STRONG + "|" + _RENT_WEAK,
    _TUNE,
    _LAUNCH_STRONG,
)
#: Words a plain action request may hold besides its verb and its targets (English).
_PLAIN_EN = re.compile(
    r"(?:the|a|an|my|our|this|that|these|those|it|its|them|both|each|every|all|everything|"
    r"now|please|pls|plz|right|away|immediately|asap|and|on|of|in|for|to|from|at|with|up|down|"
    r"off|out|back|then|ok|okay|just|too|also|again|go|ahead|i|i'?ll|i'?d|we|you|can|like|"
    r"want|need|let'?s|let|us|me|named|called|one|ones|option|options|choice|number|no\.?|id|"
    r"#\d*|first|second|third|fourth|fifth|last|cluster|clusters|job|jobs|run|runs|training|"
    r"trainings|node|nodes|machine|machines|gpu|gpus|card|cards|network|nccl|nccl-tests?|"
    r"interconnect|communication|fabric|bandwidth|test|tests|spec|sample|example|done|finished|"
    r"anymore|instance|instances|rental|rentals|server|servers|shut|spin|free|kick|tear|give|"
    r"turn|power|bring|take|pick|choose|select|use|book|lease|order|provision|buy|reserve|"
    r"start|launch|submit|queue|schedule|begin|stop|kill|end|halt|abort|cancel|release|"
    r"terminate|destroy|delete|remove|decommission|teardown|shutdown|tune|tuning|optimi[sz]e|"
    r"measure|benchmark|create|rent|execute|exec|ib|infiniband|roce|eth|ethernet|"
    r"command|fine-?tune|lora|model|x|thanks?|thx|cheers|"
    r"as|spot|preemptible|interruptible|capacity)"  # issue 32: rent as spot
)
#: Chinese words a plain action request may hold besides its verb and its targets.
_PLAIN_ZH = re.compile(
    r"集群|作业|任务|训练|全部|所有|全都|统统|都|把|给|帮我|帮忙|请|麻烦|这个|那个|该|此|它|吧|了|掉|"
    r"一下|下|在|上|的|个|张|台|卡|第|方案|选项|网络|通信|带宽|节点|机器|号|和|与|及|再|就|先|现在|"
    r"马上|立刻|示例|样例|做|将|用|选|要|我|那|好|可以|命令|一|二|三|四|五|两|"
    r"竞价|实例|抢占式|可抢占|可中断"  # issue 32: rent as spot
)
_ACTION_ZH = re.compile(
    "|".join(p for p in (_RELEASE, _CANCEL, _RENT_STRONG, _RENT_WEAK, _TUNE, _LAUNCH, _RUN, _STOP))
)
#: More unknown words than this and a destroy, spend or run request is not plain enough.
_MAX_UNKNOWN_WORDS = 1
_MAX_UNKNOWN_HAN = 4


def _except_names(msg: Message, known: tuple[str, ...]) -> tuple[set[str], list[str]] | None:
    """What an exclusion leaves alone: (known names it names, words it names nothing known
    by); None when the request has no exclusion."""
    text = msg.keys
    matches = list(re.finditer(_EXCEPT, text))
    if not matches:
        return None
    segments: list[str] = []
    for match in matches:
        if _EXCEPT_BEFORE.fullmatch(match.group(0)):
            start = 0
            for brk in re.finditer(r"[,.;!?，。；！？]|除了|除去", text[: match.start()]):
                start = brk.end()
            segments.append(text[start : match.start()])
        else:
            end = _EXCEPT_END.search(text, match.end())
            segments.append(text[match.end() : end.start() if end else len(text)])
    kept: set[str] = set()
    unknown: list[str] = []
    for segment in segments:
        for name in known:
            if re.search(slots._token_pattern(name), segment):
                kept.add(name)
                segment = re.sub(slots._token_pattern(name), " ", segment)
        for word in re.findall(r"[a-z0-9][a-z0-9._-]*|[\u4e00-\u9fff]+", segment):
            if _EXCEPT_FILLER.fullmatch(word) or re.fullmatch(_EXCEPT_FILLER.pattern + "+", word):
                continue
            stems = [k for k in known if k.startswith(word + "-") or k.split("-")[0].endswith(word)]
            if len(word) >= 3 and stems:
                kept.update(stems)
            else:
                unknown.append(word)
    return kept, unknown


def _plain(msg: Message, known: tuple[str, ...]) -> bool:
    """Whether a request reads as one plain action: its words are the verb, its targets and
    the few words such requests hold; a word salad that happens to hold a verb and a name is
    not one ("yesterday you happy a800-x16-3fa2b1 tokens money release")."""
    text = msg.keys[_POLITE.match(msg.keys).end() :]  # type: ignore[union-attr]
    text = re.sub(_EXCEPT, " ", text)
    for name in known:
        text = re.sub(slots._token_pattern(name), " ", text)
    families = sum(1 for family in _FAMILIES if re.search(family, text))
    if families > 1 or len(_ACTION_ZH.findall(text)) > 1:  # two actions, or one said twice
        return False
    unknown_words = 0
    for word in re.findall(r"[a-z][a-z0-9'._#-]*|#\d+", text):
        if _PLAIN_EN.fullmatch(word) or re.search(r"[\d-]", word):
            continue
        if slots.canonical_gpu(word) is not None:
            continue
        unknown_words += 1
    han = _ACTION_ZH.sub(" ", text)
    han = _PLAIN_ZH.sub(" ", han)
    unknown_han = len(_HAN.findall(han))
    return unknown_words <= _MAX_UNKNOWN_WORDS and unknown_han <= _MAX_UNKNOWN_HAN


def _starts_in_english(text: str, context: RulesContext) -> bool:
    first = re.match(r"\s*([a-z0-9][a-z0-9._'-]*)", text)
    if first is None:
        return False
    rest = text[first.end() :]
    named = first.group(1) in context.clusters + context.jobs
    return not (named and _HAN.match(rest.lstrip()))


def _unsafe_guard(
    turn: _Turn, msg: Message, intent: str, agent: str, verb: str
) -> RulesTurn | None:
    """Words instead of a call for a negated, hypothetical, how-to or unclear request: a
    destroy, spend or run card comes only from a request that plainly asks for it."""
    if _negated(msg, verb):
        return turn.reply(intent, agent, refusal(turn.language, "negated", intent))
    if _ADVISORY.search(msg.keys) or (
        _QUESTION_WORD.search(msg.keys) and re.search(r"\?|？|吗|呢", msg.keys)
    ):
        return turn.reply(intent, agent, refusal(turn.language, "advisory", intent))
    start = msg.keys[_POLITE.match(msg.keys).end() :]  # type: ignore[union-attr]
    rest = re.sub(_EXCEPT, " ", start)
    rest = re.sub(r"不要了|不用了", " ", rest)  # "这个集群不要了": release it
    if (
        _HEDGE.search(rest)
        or _NEGATION_ANYWHERE.search(rest)
        or not _plain(msg, turn.context.clusters + turn.context.jobs)
        # English puts the verb first ("release it"); Chinese may not ("把所有集群都关掉",
        # "a800-x16-3fa2b1 释放掉"), so the rule holds where the request starts in English.
        or (_starts_in_english(start, turn.context) and not _leading(msg, verb))
    ):
        return turn.reply(intent, agent, refusal(turn.language, "unclear", intent))
    return None


def _respect_exclusions(result: RulesTurn, msg: Message, context: RulesContext) -> RulesTurn:
    """A destroy, spend or run call never targets what the request said to leave alone."""
    found = _except_names(msg, context.clusters + context.jobs)
    if found is None or not result.tool_calls:
        return result
    kept, unknown = found
    for call in result.tool_calls:
        if call.name not in UNSAFE_TOOLS:
            continue
        targets = {str(call.args.get(k)) for k in ("cluster", "job") if call.args.get(k)}
        if targets & kept or "all" in targets or unknown or not kept:
            language = result.language
            example = next((c for c in context.clusters if c not in kept), "<cluster>")
            if call.name == "cancel_job":
                text = say(language, "ask_job", verb=say(language, "verb.cancel"))
            elif call.name in ("release_cluster", "tune"):
                verb = say(language, "verb.release")
                if call.name == "tune":
                    verb = say(language, "verb.tune")
                text = say(language, "except_unclear", verb=verb, example=example)
            else:
                text = refusal(language, "unclear", result.intent)
            return RulesTurn(language, result.agent, (), text, result.intent)
    return result


# ---- references ------------------------------------------------------------------------------


def _clusters(
    msg: Message, context: RulesContext, verbs: str | None = None
) -> tuple[list[Ref], bool]:
    loose = r"\bon\b|在" + (f"|{verbs}" if verbs else "")
    return slots.find_refs(
        msg, context.clusters, CLUSTER_WORDS, CLUSTER_PRONOUNS, loose, by_gpu=True
    )


def _jobs(msg: Message, context: RulesContext, verbs: str | None = None) -> tuple[list[Ref], bool]:
    return slots.find_refs(msg, context.jobs, JOB_WORDS, JOB_PRONOUNS, verbs)


def _implicit(last: str | None, live: tuple[str, ...]) -> str | None:
    """The conversation's job, else the only running one, else None."""
    if last is not None:
        return last
    if len(live) == 1:
        return live[0]
    return None


def _implicit_cluster(context: RulesContext, *, strict: bool = True) -> str | None:
    """The conversation's cluster while it is live, else the only live one, else None.

    A cluster talked about earlier and released since is no longer "it": with ``strict``
    (an action that destroys or runs something) that asks, rather than pick another one.
    """
    last, live = context.last_cluster, context.clusters
    if last is not None and (not live or last in live):
        return last
    if last is not None and strict:
        return None
    if len(live) == 1:
        return live[0]
    return None


def _cluster_choices(turn: _Turn) -> str:
    live = turn.context.clusters
    if not live:
        return say(turn.language, "brain_no_live_cluster")
    names = ", ".join(live[:8])
    return say(turn.language, "brain_live_clusters", names=names)


def _example_cluster(turn: _Turn) -> str:
    if turn.context.clusters:
        return turn.context.clusters[0]
    return say(turn.language, "brain_cluster_placeholder")


def _ask_cluster(turn: _Turn, intent: str, agent: str, verb: str) -> RulesTurn:
    """A question back for the cluster to act on; ``verb`` names ``agent.rules.verb.<verb>``."""
    if not turn.context.clusters and turn.context.last_cluster is None:
        return turn.reply(intent, agent, turn.say("no_clusters"))
    return turn.reply(
        intent,
        agent,
        turn.say(
            "ask_cluster",
            choices=_cluster_choices(turn),
            verb=turn.say(f"verb.{verb}"),
            example=_example_cluster(turn),
        ),
    )


# ---- intents ---------------------------------------------------------------------------------


def _help(turn: _Turn, _msg: Message) -> RulesTurn:
    return turn.reply("help", "supervisor", help_text(turn.language))


def _task(msg: Message) -> str | None:
    if _has(msg, _TASK_LORA):
        return "finetune-lora"
    if _has(msg, _TASK_FINETUNE):
        return "finetune-full"
    if _has(msg, _TASK_INFERENCE):
        return "inference"
    if _has(msg, _TASK_PRETRAIN) or _has(msg, _TASK_TRAIN):
        return "pretrain"
    return None


@dataclass
class _PlanSlots:
    task: str | None
    gpu: slots.GpuMention | None
    params: int | None
    tokens: int | None
    qps: int | float | None
    gpus: int | str | None
    deadline: int | float | None
    budget: tuple[int | float, str] | None
    fabric: str | None
    region: str | None


def _plan_slots(msg: Message) -> _PlanSlots:
    task = _task(msg)
    gpu = slots.take_gpu(msg)
    budget = slots.take_budget(msg)
    tokens = slots.take_tokens(msg)
    params, more_tokens = slots.take_model_size(msg)
    qps = slots.take_qps(msg)
    gpus = slots.take_gpu_count(msg)
    deadline = slots.take_duration_hours(msg)
    budget = budget or slots.take_budget(msg, bare=True)
    fabric = slots.take_fabric(msg)
    region = slots.take_region(msg)
    if qps is not None and task is None:
        task = "inference"
    return _PlanSlots(
        task, gpu, params, tokens or more_tokens, qps, gpus, deadline, budget, fabric, region
    )


def _known_gpus() -> str:
    return ", ".join(slots.catalog_gpus())


def _plan(turn: _Turn, msg: Message, found: _PlanSlots | None = None) -> RulesTurn:
    s = found or _plan_slots(msg)
    if s.gpu is not None and s.gpu.name is None:
        return turn.reply(
            "plan", "planner", turn.say("unknown_gpu", gpu=s.gpu.spoken, known=_known_gpus())
        )
    # A request without a model size refines the conversation's last plan: the figures it
    # leaves out are the ones said then (a new size starts a new plan).
    remembered = dict(turn.context.plan_figures) if s.params is None else {}
    params = s.params if s.params is not None else remembered.get("model_params")
    task = s.task or remembered.get("task")
    if params is None:
        return turn.reply("plan", "planner", turn.say("ask_model_size"))
    if task is None:
        size = f"{params / 1e9:.3g}B"
        return turn.reply("plan", "planner", turn.say("ask_task", size=size))
    args: dict[str, object] = {
        k: v for k, v in remembered.items() if k not in ("task", "model_params")
    }
    args.update({"task": task, "model_params": params})
    if s.tokens is not None:
        args["tokens"] = s.tokens
    if s.gpus is not None:
        args["gpus"] = s.gpus
    if s.gpu is not None:
        args["gpu"] = s.gpu.name
    if s.fabric is not None:
        args["fabric"] = s.fabric
    if s.budget is not None:
        amount, currency = s.budget
        args["budget"] = amount if currency == "CNY" else f"{amount} {currency}"
    if s.region is not None:
        args["region"] = s.region
    if s.deadline is not None:
        args["deadline_hours"] = s.deadline
    if s.qps is not None:
        args["qps"] = s.qps
    if task == "inference":
        args.pop("tokens", None)
        args.pop("deadline_hours", None)
    else:
        args.pop("qps", None)
    return turn.call("plan", "planner", ToolCall("plan", args))


def _fabric(turn: _Turn, msg: Message) -> RulesTurn:
    s = _plan_slots(msg)
    model = slots.catalog_gpus().get(s.gpu.name) if s.gpu and s.gpu.name else None
    text = fabric_advice(
        turn.language,
        gpus=s.gpus,
        params=s.params,
        task=s.task,
        gpu=model.name if model else None,
        gpu_wants_gbps=model.wants_gbps if model else None,
        budget=s.budget is not None or _has(msg, r"cheap|budget|cost|预算|便宜|省钱|成本"),
    )
    return turn.reply("fabric", "planner", text)


def _rent(turn: _Turn, msg: Message) -> RulesTurn:
    context = turn.context
    guard = _unsafe_guard(turn, msg, "rent", "provisioner", _RENT_STRONG + "|" + _RENT_WEAK)
    if guard is not None:
        return guard
    option = slots.take_option(msg)
    if option is None and _has(msg, _RENT_PRONOUN) and context.last_plan_options == 1:
        option = 1
    if option is not None or (_has(msg, _RENT_PRONOUN) and context.last_plan_id is not None):
        if context.last_plan_id is None:
            return turn.reply("rent", "provisioner", turn.say("no_plan"))
        count = context.last_plan_options
        if option is None:
            choices = f"1-{count}" if count > 1 else "1"
            return turn.reply(
                "rent",
                "provisioner",
                turn.say("ask_option", plan=context.last_plan_id, choices=choices),
            )
        if option < 1 or (count and option > count):
            return turn.reply(
                "rent",
                "provisioner",
                turn.say("option_range", plan=context.last_plan_id, count=count, option=option),
            )
        chosen: dict[str, object] = {"plan_id": context.last_plan_id, "option": option}
        if _has(msg, _SPOT):
            chosen["spot"] = True
        return turn.call("rent", "provisioner", ToolCall("create_cluster", chosen))
    # Explicit resources: "rent 8 A800 in Xiamen".
    gpu = slots.take_gpu(msg)
    if gpu is not None and gpu.name is None:
        return turn.reply(
            "rent", "provisioner", turn.say("unknown_gpu", gpu=gpu.spoken, known=_known_gpus())
        )
    count_value = slots.take_gpu_count(msg)
    if gpu is not None and isinstance(count_value, int):
        args: dict[str, object] = {"gpu": gpu.name, "gpus": count_value}
        fabric = slots.take_fabric(msg)
        region = slots.take_region(msg)
        budget = slots.take_budget(msg)
        if fabric is not None:
            args["fabric"] = fabric
        if region is not None:
            args["region"] = region
        if budget is not None and budget[1] == "CNY":
            args["budget"] = budget[0]  # in the offer's currency; the built-in cloud's is CNY
        if _has(msg, _SPOT):
            args["spot"] = True
        return turn.call("rent", "provisioner", ToolCall("create_cluster", args))
    missing = ""
    if gpu is not None:
        missing = say(turn.language, "brain_rent_how_many", name=gpu.name)
    elif count_value is not None:
        missing = say(turn.language, "brain_rent_which_gpu_model")
    if context.last_plan_id is not None and gpu is None and count_value is None:
        count = context.last_plan_options
        choices = f"1-{count}" if count > 1 else "1"
        return turn.reply(
            "rent",
            "provisioner",
            turn.say("ask_option", plan=context.last_plan_id, choices=choices),
        )
    return turn.reply("rent", "provisioner", turn.say("ask_rent_resources", missing=missing))


def _release(turn: _Turn, msg: Message) -> RulesTurn:
    verb = _RELEASE + "|" + _STOP
    guard = _unsafe_guard(turn, msg, "release", "provisioner", verb)
    if guard is not None:
        return guard
    refs, pronoun = _clusters(msg, turn.context, verb)
    excepted = _except_names(msg, turn.context.clusters)
    if excepted is not None:
        return _release_except(turn, msg, refs, *excepted)
    if any(r.how == "gpu-unmatched" for r in refs):  # "release the H100 cluster": there is none
        return _ask_cluster(turn, "release", "provisioner", "release")
    plural = _has(msg, _ALL + r"|\bclusters\b|都")
    if any(r.how == "gpu-many" for r in refs) and not plural:
        return _ask_cluster(turn, "release", "provisioner", "release")
    if _has(msg, _ALL) and not refs:
        return turn.call("release", "provisioner", ToolCall("release_cluster", {"cluster": "all"}))
    if refs:
        calls = [ToolCall("release_cluster", {"cluster": r.value}) for r in refs[:8]]
        return turn.call("release", "provisioner", *calls)
    target = _implicit_cluster(turn.context) if pronoun else None
    if target is not None:
        return turn.call("release", "provisioner", ToolCall("release_cluster", {"cluster": target}))
    return _ask_cluster(turn, "release", "provisioner", "release")


def _release_except(
    turn: _Turn, msg: Message, refs: list[Ref], kept: set[str], unknown: list[str]
) -> RulesTurn:
    """ "release everything except alpha": every live cluster but the ones kept, or words back
    when what is kept is not clear (a name XyClaw does not know, or none at all)."""
    verb = say(turn.language, "verb.release")
    live = turn.context.clusters
    if unknown or not kept:
        example = next((c for c in live if c not in kept), _example_cluster(turn))
        return turn.reply(
            "release", "provisioner", turn.say("except_unclear", verb=verb, example=example)
        )
    named = [r.value for r in refs if r.how == "named" and r.value not in kept]
    if named:
        targets = named
    elif _has(msg, _ALL + r"|\bclusters\b|\bothers?\b|\brest\b|都|其他|其余|别的"):
        targets = [c for c in live if c not in kept]
    else:
        targets = []
    if not targets:
        if named or not _has(msg, _ALL + r"|\bclusters\b|都"):
            return turn.reply(
                "release",
                "provisioner",
                turn.say("except_unclear", verb=verb, example=_example_cluster(turn)),
            )
        shown = ", ".join(sorted(kept))
        return turn.reply(
            "release", "provisioner", turn.say("except_nothing_left", kept=shown, verb=verb)
        )
    calls = [ToolCall("release_cluster", {"cluster": name}) for name in targets[:8]]
    return turn.call("release", "provisioner", *calls)


def _cancel(turn: _Turn, msg: Message) -> RulesTurn:
    guard = _unsafe_guard(turn, msg, "cancel", "operator", _CANCEL)
    if guard is not None:
        return guard
    refs, pronoun = _jobs(msg, turn.context, _CANCEL)
    excepted = _except_names(msg, turn.context.jobs)
    if excepted is not None:
        kept, _unknown = excepted
        refs = [r for r in refs if r.value not in kept and r.how == "named"]
        if not refs:
            return turn.reply(
                "cancel",
                "operator",
                turn.say("ask_job", verb=say(turn.language, "verb.cancel")),
            )
    if refs:
        calls = [ToolCall("cancel_job", {"job": r.value}) for r in refs[:8]]
        return turn.call("cancel", "operator", *calls)
    target = _implicit(turn.context.last_job, turn.context.jobs) if pronoun else None
    if target is not None:
        return turn.call("cancel", "operator", ToolCall("cancel_job", {"job": target}))
    return turn.reply(
        "cancel", "operator", turn.say("ask_job", verb=say(turn.language, "verb.cancel"))
    )


def _resolve_cluster(
    turn: _Turn, msg: Message, *, implicit: bool, verbs: str | None = None, strict: bool = True
) -> tuple[str | None, list[Ref]]:
    """A single cluster: named, else (with a pronoun or ``implicit``) the conversation's one."""
    refs, pronoun = _clusters(msg, turn.context, verbs)
    if any(r.how == "gpu-unmatched" for r in refs):
        return None, refs
    if len(refs) == 1:
        return refs[0].value, refs
    if refs:
        return None, refs
    if pronoun or implicit:
        return _implicit_cluster(turn.context, strict=strict), refs
    return None, refs


def _tune(turn: _Turn, msg: Message) -> RulesTurn:
    guard = _unsafe_guard(turn, msg, "tune", "tuner", _TUNE)
    if guard is not None:
        return guard
    cluster, _ = _resolve_cluster(turn, msg, implicit=True, verbs=_TUNE)
    if cluster is None:
        return _ask_cluster(turn, "tune", "tuner", "tune")
    return turn.call("tune", "tuner", ToolCall("tune", {"cluster": cluster}))


def _launch(turn: _Turn, msg: Message) -> RulesTurn:
    guard = _unsafe_guard(turn, msg, "launch", "operator", _LAUNCH)
    if guard is not None:
        return guard
    spec = msg.paths[0] if msg.paths else slots.take_sample(msg, _LAUNCH)
    if spec is None:
        return turn.reply(
            "launch", "operator", turn.say("ask_spec", example=_example_cluster(turn))
        )
    if not msg.paths:
        msg = slots.without_name(msg, spec)
    return _launch_on(turn, msg, spec)


#: The bundled sample that runs a task ("start the LoRA fine-tune on my cluster"); on one
#: node the LoRA fine-tune is ``lora7b-1node`` (see :func:`_launch_task`).
_TASK_SAMPLES = {"finetune-lora": "lora-2node", "inference": "vllm-service"}


def _is_task_launch(msg: Message, context: RulesContext) -> bool:
    """ "Start the LoRA fine-tune on my cluster": a launch verb first, a task, a cluster named
    or pointed at, and no model size (with one it is a plan: "train a 7B model on 8 GPUs")."""
    verb_first = (
        _leading(msg, _LAUNCH)
        or _negated(msg, _LAUNCH)
        or (detect_language(msg.raw) == "zh" and _has(msg, _LAUNCH_STRONG + "|开始|运行"))
    )
    if not verb_first or _task(msg) is None or _has(msg, _PLAN_WORD):
        return False
    if slots.take_model_size(Message.of(msg.raw))[0] is not None:
        return False
    refs, pronoun = _clusters(_without_task(msg), context)
    return (bool(refs) or pronoun) and all(r.how != "gpu-unmatched" for r in refs)


_TASK_WORDS = "|".join((_TASK_LORA, _TASK_FINETUNE, _TASK_INFERENCE, _TASK_PRETRAIN, _TASK_TRAIN))


def _without_task(msg: Message) -> Message:
    """The request with its task words blanked, so "the LoRA fine-tune" names no cluster."""
    return replace(
        msg, keys=re.sub(_TASK_WORDS, " ", msg.keys), work=re.sub(_TASK_WORDS, " ", msg.work)
    )


def _launch_task(turn: _Turn, msg: Message) -> RulesTurn:
    guard = _unsafe_guard(turn, msg, "launch", "operator", _LAUNCH)
    if guard is not None:
        return guard
    task = _task(msg) or turn.context.plan_figure("task")
    spec = _TASK_SAMPLES.get(str(task))
    if spec == "lora-2node" and _nodes_wanted(turn, msg) <= 1:
        spec = "lora7b-1node"  # the same fine-tune on one node; it needs no HF_TOKEN
    if spec is None or spec not in slots.sample_specs():
        return turn.reply(
            "launch", "operator", turn.say("ask_spec", example=_example_cluster(turn))
        )
    return _launch_on(turn, _without_task(msg), spec)


def _nodes_wanted(turn: _Turn, msg: Message) -> int:
    """How many nodes a task launch means: "on 2 nodes" said, else the nodes of the cluster
    it runs on, else the last plan's GPUs (8 a node); one when nothing says more."""
    said_nodes = slots.nodes_said(msg)
    if said_nodes is not None:
        return said_nodes
    nodes = dict(turn.context.cluster_nodes)
    refs, _pronoun = _clusters(_without_task(msg), turn.context)
    target = refs[0].value if len(refs) == 1 else _implicit_cluster(turn.context)
    if target is not None and target in nodes:
        return int(nodes[target])
    gpus = turn.context.plan_figure("gpus")
    if isinstance(gpus, int) and gpus > slots.GPUS_PER_NODE:
        return -(-gpus // slots.GPUS_PER_NODE)
    return 1


def _launch_on(turn: _Turn, msg: Message, spec: str) -> RulesTurn:
    refs, _pronoun = _clusters(msg, turn.context)
    args: dict[str, object] = {"spec": spec}
    if any(r.how == "gpu-unmatched" for r in refs):
        return _ask_cluster(turn, "launch", "operator", "launch_on")
    if len(refs) == 1:
        args["cluster"] = refs[0].value
    elif len(refs) > 1:
        return _ask_cluster(turn, "launch", "operator", "launch_on")
    else:
        target = _implicit_cluster(turn.context)
        if target is not None:
            args["cluster"] = target
        elif len(turn.context.clusters) > 1:
            return _ask_cluster(turn, "launch", "operator", "launch_on")
    return turn.call("launch", "operator", ToolCall("launch_job", args))


_COLON_COMMAND = re.compile(
    r"(?:^|\s)(?:run|execute|exec|执行|运行)\s*(?:the\s+)?(?:command|命令)?\s*[:：]\s*(?P<cmd>.+)$",
    re.IGNORECASE | re.DOTALL,
)


def _command_text(msg: Message, context: RulesContext) -> str | None:
    if msg.quotes:
        return msg.quotes[0]
    match = _COLON_COMMAND.search(msg.raw)
    if match is None:
        return None
    command = match["cmd"].strip()
    for name in context.clusters:
        command = re.sub(
            r"\s+(?:on|在)\s+(?:cluster\s+)?" + re.escape(name) + r"\s*(?:上)?\s*$",
            "",
            command,
            flags=re.IGNORECASE,
        )
    return command.strip() or None


def _run_command(turn: _Turn, msg: Message) -> RulesTurn:
    guard = _unsafe_guard(turn, msg, "run_command", "operator", _RUN)
    if guard is not None:
        return guard
    command = _command_text(msg, turn.context)
    cluster, _ = _resolve_cluster(turn, msg, implicit=True)
    if command is None or cluster is None:
        return turn.reply(
            "run_command", "operator", turn.say("ask_command", example=_example_cluster(turn))
        )
    return turn.call(
        "run_command", "operator", ToolCall("run_command", {"cluster": cluster, "command": command})
    )


def _job_ref(turn: _Turn, msg: Message) -> str | None:
    refs, _pronoun = _jobs(msg, turn.context)
    if refs:
        return refs[0].value
    return _implicit(turn.context.last_job, turn.context.jobs)


def _logs(turn: _Turn, msg: Message) -> RulesTurn:
    job = _job_ref(turn, msg)
    if job is None:
        return turn.reply(
            "logs", "operator", turn.say("ask_job", verb=say(turn.language, "verb.logs_of"))
        )
    args: dict[str, object] = {"job": job}
    slots.take_rank(msg)  # "rank 3": the tool shows every rank's lines (it takes no rank)
    lines = slots.take_lines(msg)
    if lines is not None:
        args["lines"] = lines
    return turn.call("logs", "operator", ToolCall("job_logs", args))


def _why_stuck(turn: _Turn, msg: Message) -> RulesTurn:
    """Issue 34 (b34): every rank of the job asked for its dump, and the verdict."""
    job = _job_ref(turn, msg)
    if job is None:
        verb = say(turn.language, "verb.explain_hang_of")
        return turn.reply("why_stuck", "operator", turn.say("ask_job", verb=verb))
    return turn.call("why_stuck", "operator", ToolCall("why_stuck", {"job": job}))


def _job_status(turn: _Turn, msg: Message) -> RulesTurn:
    refs, _pronoun = _jobs(msg, turn.context)
    every_job = r"\bjobs\b|\bruns\b|\btrainings\b|(?:所有|哪些|全部)(?:任务|作业)"
    if not refs and _has(msg, every_job):
        return turn.call("job_status", "operator", ToolCall("job_status", {}))
    job = _job_ref(turn, msg)
    if job is None:
        return turn.call("job_status", "operator", ToolCall("job_status", {}))
    return turn.call("job_status", "operator", ToolCall("job_status", {"job": job}))


def _cost(turn: _Turn, msg: Message) -> RulesTurn:
    # "What has this cluster cost": the tool has no cluster filter, so the whole history's
    # spend, whose per-cluster rows the summary lists.
    period = slots.take_period(msg, turn.context.today) or "all"
    if period in ("week", "last_week") or period.startswith("days:"):
        start, end = slots.period_bounds(period, turn.context.today)
        args: dict[str, object] = {"start": start} if end is None else {"start": start, "end": end}
        return turn.call("cost", "historian", ToolCall("cost", args))
    return turn.call("cost", "historian", ToolCall("cost", {"period": period}))


def _history(turn: _Turn, msg: Message) -> RulesTurn:
    kind = "events"
    first_at: int | None = None
    for name, pattern in _KIND_PATTERNS:
        at = _position(msg, pattern)
        if at is not None and (first_at is None or at < first_at):
            kind, first_at = name, at
    args: dict[str, object] = {"kind": kind}
    limit = slots.take_limit(msg)
    if limit is not None:
        args["limit"] = limit
    period = slots.take_period(msg, turn.context.today)
    if period is not None and period != "all":
        since, until = slots.period_bounds(period, turn.context.today)
        args["since"] = since
        if until is not None:
            args["until"] = until
    return turn.call("history", "historian", ToolCall("history", args))


def _track_record(turn: _Turn, msg: Message) -> RulesTurn:
    """How a provider (or every provider) has been for the user, from the memory (issue 36)."""
    args: dict[str, object] = {}
    match = re.search(_TRACK_PROVIDER, msg.keys)
    name = next((g for g in match.groups() if g), None) if match else None
    if name is not None and name not in _NOT_PROVIDERS:
        args["provider"] = name
    return turn.call("track_record", "historian", ToolCall("track_record", args))


def _is_slurm_launch(msg: Message) -> bool:
    """ "run jobs/train.yaml on the lab cluster", "submit lora to slurm": a launch verb and the
    lab's Slurm cluster named (a spec or not: without one the brain asks for it)."""
    return _has(msg, _SLURM_PLACE) and _has(msg, _LAUNCH) and not _has(msg, _SLURM_ASKS_HOW_LONG)


def _slurm_launch(turn: _Turn, msg: Message) -> RulesTurn:
    """A spec submitted to the lab's Slurm cluster: a card first (the tool's gate)."""
    # a how-to, negated or hedged request gets words, never a card (the site is named in
    # words, so the cluster-name checks of the other launches do not apply)
    refused = None
    if _ADVISORY.search(msg.keys) or (
        _QUESTION_WORD.search(msg.keys) and re.search(r"\?|？|吗|呢", msg.keys)
    ):
        refused = "advisory"
    elif _negated(msg, _LAUNCH) or _NEGATION_ANYWHERE.search(msg.keys):
        refused = "negated"
    elif _HEDGE.search(msg.keys):
        refused = "unclear"
    if refused is not None:
        return turn.reply(
            "slurm_launch", "operator", refusal(turn.language, refused, "slurm_launch")
        )
    spec = msg.paths[0] if msg.paths else slots.take_sample(msg, _LAUNCH)
    if spec is None:
        return turn.reply(
            "slurm_launch",
            "operator",
            turn.say("ask_spec", example=say(turn.language, "brain_lab_cluster")),
        )
    return turn.call("slurm_launch", "operator", ToolCall("slurm_launch", {"spec": spec}))


def _is_slurm_queue(msg: Message) -> bool:
    """ "how long is the queue for 8 A100s", "实验室集群排队要多久"."""
    if msg.paths:  # "queue jobs/train.yaml": a launch
        return False
    asks = _has(msg, _SLURM_ASKS_HOW_LONG)
    return (_has(msg, _SLURM_QUEUE) and (asks or _has(msg, _SLURM_PLACE))) or (
        _has(msg, _SLURM_PLACE) and asks
    )


def _slurm_queue(turn: _Turn, msg: Message) -> RulesTurn:
    """The wait per partition for the shape asked (a read: Slurm's own estimate)."""
    args: dict[str, object] = {}
    gpu = slots.take_gpu(msg)
    if gpu is not None and gpu.name is None:
        return turn.reply(
            "slurm_queue", "planner", turn.say("unknown_gpu", gpu=gpu.spoken, known=_known_gpus())
        )
    count = slots.take_gpu_count(msg)
    if isinstance(count, int):
        args["gpus"] = count
    if gpu is not None:
        args["gpu"] = gpu.name
    return turn.call("slurm_queue", "planner", ToolCall("slurm_queue", args))


def _alerts(turn: _Turn, msg: Message) -> RulesTurn:
    refs, pronoun = _clusters(msg, turn.context)
    refs = [r for r in refs if r.how != "gpu-unmatched"]
    args: dict[str, object] = {}
    if len(refs) == 1:
        args["cluster"] = refs[0].value
    elif not refs and pronoun and _has(msg, r"\bcluster\b|集群") and turn.context.last_cluster:
        args["cluster"] = turn.context.last_cluster
    return turn.call("alerts", "monitor", ToolCall("alerts", args))


def _health(turn: _Turn, msg: Message) -> RulesTurn:
    cluster, refs = _resolve_cluster(turn, msg, implicit=True, strict=False)
    live = turn.context.clusters
    if cluster is None and len(live) > 1 and all(r.how == "gpu-many" for r in refs):
        # "is my cluster healthy?" with several live and none named: each one's health (a
        # read), not a question back.
        chosen = [r.value for r in refs] or list(live)
        calls = [ToolCall("cluster_health", {"cluster": name}) for name in chosen[:8]]
        return turn.call("health", "monitor", *calls)
    if cluster is None:
        return _ask_cluster(turn, "health", "monitor", "health_of")
    return turn.call("health", "monitor", ToolCall("cluster_health", {"cluster": cluster}))


def _status(turn: _Turn, msg: Message) -> RulesTurn:
    args: dict[str, object] = {}
    if _has(msg, r"\breleased\b|\bever\b|including\s+(?:old|past)|已释放|包括释放|所有历史"):
        args["include_released"] = True
    return turn.call("status", "provisioner", ToolCall("list_clusters", args))


def _offers(turn: _Turn, msg: Message) -> RulesTurn:
    args: dict[str, object] = {}
    gpu = slots.take_gpu(msg)
    if gpu is not None and gpu.name is None:
        return turn.reply(
            "offers", "planner", turn.say("unknown_gpu", gpu=gpu.spoken, known=_known_gpus())
        )
    if gpu is not None:
        args["gpu"] = gpu.name
    provider = slots.take_provider(msg)
    if provider is not None:
        args["provider"] = provider
    return turn.call("offers", "planner", ToolCall("offers", args))


# ---- the decision ----------------------------------------------------------------------------

Handler = Callable[[_Turn, Message], RulesTurn]


def _is_fabric_question(msg: Message) -> bool:
    both = _has(msg, slots.ROCE_WORDS) and _has(msg, slots.IB_WORDS)
    asked = _has(msg, _FABRIC_WORD) and _has(msg, _FABRIC_QUESTION)
    return (both or asked) and not _leading(msg, r"plan\b|规划") and not _has(msg, _TUNE)


def _unsafe_leading(msg: Message) -> Handler | None:
    """An action verb first in the request wins over everything but a question about it."""
    if _leading(msg, _RELEASE) or (
        _leading(msg, _STOP) and _has(msg, r"\bclusters?\b|集群|" + _ALL)
    ):
        return _release
    if _leading(msg, _CANCEL) and (
        _has(msg, JOB_WORDS + r"|\bit\b|它")
        or re.fullmatch(r"\s*\S+\s*", msg.keys)
        or re.match(r"\s*(?:cancel|abort|取消)\s+\S+\s*$", msg.keys)
    ):
        return _cancel
    if _leading(msg, _TUNE):
        return _tune
    if _leading(msg, _RUN) and msg.quotes:
        return _run_command
    if _leading(msg, _LAUNCH) and (msg.paths or slots.take_sample(msg, _LAUNCH)):
        return _launch
    if _leading(msg, _RENT_STRONG + "|" + _RENT_WEAK):
        return _rent
    return None


MAX_CHARS = 1000  # a request, not a pasted log: longer text gets words, never a call


def understand(text: str, context: RulesContext | None = None) -> RulesTurn:
    """The intent of one user message and the tool calls (or words) that answer it."""
    context = context or RulesContext()
    result = _understand(text, context)
    if not result.tool_calls:
        return result
    return _respect_exclusions(result, Message.of(text), context)


def _understand(text: str, context: RulesContext) -> RulesTurn:
    context = context or RulesContext()
    turn = _Turn(detect_language(text[:MAX_CHARS]), context)
    if len(text) > MAX_CHARS:
        return turn.reply("unknown", "supervisor", turn.say("too_long", limit=MAX_CHARS))
    msg = Message.of(text)
    if not msg.keys.strip():
        return turn.reply("unknown", "supervisor", unknown_text(turn.language))
    if _HELP_ONLY.match(msg.keys):
        return _help(turn, msg)
    if _THANKS.match(msg.keys):
        return turn.reply("help", "supervisor", turn.say("thanks"))
    if _is_fabric_question(msg):
        return _fabric(turn, msg)
    # issue 33 (a33): the lab's Slurm cluster, before "queue"/"run" read as a launch elsewhere
    if _is_slurm_launch(msg):
        return _slurm_launch(turn, msg)
    if _is_slurm_queue(msg):
        return _slurm_queue(turn, msg)
    rent_option = _has(msg, _RENT_WEAK) or (
        _has(msg, _RENT_STRONG) and (_has_work(msg, slots.OPTION) or _has(msg, _RENT_PRONOUN))
    )
    if rent_option or _has(msg, _RENT_PRONOUN):
        return _rent(turn, msg)
    if context.last_plan_id is not None and re.fullmatch(
        r"\s*(?:" + slots.OPTION.pattern + r")\s*[.!?？。！]*\s*", msg.work
    ):
        option = slots.take_option(msg)
        return turn.reply("rent", "provisioner", turn.say("confirm_option", option=option))
    leading = _unsafe_leading(msg)
    if leading is not None:
        return leading(turn, msg)
    if _has(msg, _WHY_STUCK):
        return _why_stuck(turn, msg)
    if _is_task_launch(msg, context):
        return _launch_task(turn, msg)
    if _has(msg, _SPENT):
        return _cost(turn, msg)
    if _has(
        msg,
        _TASK_LORA
        + "|"
        + _TASK_FINETUNE
        + "|"
        + _TASK_INFERENCE
        + "|"
        + _TASK_PRETRAIN
        + "|"
        + _TASK_TRAIN
        + "|"
        + _PLAN_WORD,
    ):
        found = _plan_slots(Message.of(text))
        if found.params is not None or _has(msg, _PLAN_WORD):
            return _plan(turn, Message.of(text), found)
    if _has(msg, _RUN) and (msg.quotes or _COLON_COMMAND.search(msg.raw)):
        return _run_command(turn, msg)
    if _has(msg, _RELEASE) or (_has(msg, _STOP) and _has(msg, r"\bclusters?\b|集群")):
        if _has(msg, _CANCEL) and _has(msg, JOB_WORDS) and _has(msg, r"\bclusters?\b|集群"):
            first = say(turn.language, "brain_example_cancel_job")
            return turn.reply("release", "provisioner", turn.say("one_at_a_time", first=first))
        return _release(turn, msg)
    if _has(msg, _CANCEL) and (_has(msg, JOB_WORDS) or _has(msg, r"\bit\b|它")):
        return _cancel(turn, msg)
    if _has(msg, _LAUNCH) and (msg.paths or slots.take_sample(msg, _LAUNCH)):
        return _launch(turn, msg)
    if _has(msg, _TUNE):
        return _tune(turn, msg)
    if _has(msg, _LAUNCH_STRONG) and _has(msg, JOB_WORDS + r"|\bspec\b") and not _has(msg, _STATUS):
        return _launch(turn, msg)
    if (
        (_has(msg, _CREATE_CLUSTER) or _has(msg, _RENT_STRONG))
        and not _has(msg, _OFFERS)
        and not _has(msg, _HISTORY)
    ):
        return _rent(turn, msg)
    if context.last_plan_id is not None and _has_work(msg, slots.OPTION) and not _has(msg, _LOGS):
        option = slots.take_option(msg)
        return turn.reply("rent", "provisioner", turn.say("option_info", option=option))
    if _has(msg, _LOGS):
        return _logs(turn, msg)
    if _has(msg, _JOB_STATUS) or (
        _has(msg, _STATUS) and _has(msg, JOB_WORDS) and not _has(msg, r"\bclusters?\b|集群")
    ):
        return _job_status(turn, msg)
    if _has(msg, _TRACK):
        return _track_record(turn, msg)
    if _has(msg, _COST) and not (_has(msg, _OFFERS) or slots.take_gpu(Message.of(text))):
        return _cost(turn, msg)
    if _has(msg, _ALERTS):
        return _alerts(turn, msg)
    if _has(msg, _HISTORY_STRONG) or (
        _has(msg, _HISTORY_WEAK) and any(_has(msg, pattern) for _kind, pattern in _KIND_PATTERNS)
    ):
        return _history(turn, msg)
    if _has(msg, _HEALTH):
        return _health(turn, msg)
    if _has(msg, _STATUS):
        return _status(turn, msg)
    if _has(msg, _OFFERS) or (_has(msg, _COST) and slots.take_gpu(Message.of(text))):
        return _offers(turn, msg)
    if _has(
        msg,
        _TASK_LORA
        + "|"
        + _TASK_FINETUNE
        + "|"
        + _TASK_INFERENCE
        + "|"
        + _TASK_PRETRAIN
        + "|"
        + _TASK_TRAIN,
    ):
        return _plan(turn, msg)
    if _HELP.search(msg.keys):
        return _help(turn, msg)
    return turn.reply("unknown", "supervisor", unknown_text(turn.language))
