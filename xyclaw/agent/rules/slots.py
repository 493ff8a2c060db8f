"""Finding the values in a request: GPU model and count, model size, tokens, money, time, refs.

A :class:`Message` holds the request three ways: ``raw`` (as typed, for
commands and file paths, whose case matters), ``keys`` (folded, quotes taken
out, for keywords) and ``work`` (numerals made Arabic; each extractor blanks
what it took, so "8 A800" gives the count 8 and never an "800").
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import date, datetime, timedelta
from decimal import Decimal
from functools import lru_cache

from xyclaw.agent.rules.numbers import ORDINAL_WORDS as ORDINAL_WORDS
from xyclaw.agent.rules.numbers import fold, format_decimal, ordinal, prepare, to_number
from xyclaw.catalog.models import GpuModel
from xyclaw.catalog.names import normalise_gpu_name
from xyclaw.engine import Engine

NUM = r"\d+(?:\.\d+)?"
# ASCII-only word edges: Chinese characters count as \w, and "释放c1" must still find "c1".
_L = r"(?<![a-z0-9])"
_R = r"(?![a-z0-9])"
GPU_MARK = " §g "
# GPUs people name that the catalog does not rent (so "910B" is never read as 910B parameters).
OTHER_GPUS = {
    "V100": "V100",
    "T4": "T4",
    "A30": "A30",
    "A40": "A40",
    "A6000": "A6000",
    "RTX3090": "RTX 3090",
    "3090": "RTX 3090",
    "RTX5090": "RTX 5090",
    "5090": "RTX 5090",
    "L4": "L4",
    "L20": "L20",
    "B100": "B100",
    "B200": "B200",
    "GB200": "GB200",
    "MI250": "MI250",
    "MI300": "MI300",
    "MI300X": "MI300X",
    "P100": "P100",
    "K80": "K80",
}
_ASCEND = re.compile(r"(?:昇腾|ascend)\s*(910[abc]?)?|" + _L + r"910[abc]" + _R)
_KUNLUN = re.compile(r"昆仑芯?|kunlun")
_GPU = re.compile(
    _L + r"(?:nvidia[\s-]*)?(?:geforce[\s-]*)?(?:tesla[\s-]*)?(?P<rtx>rtx[\s-]*)?"
    r"(?P<core>[a-z]{1,2}\d{1,4}[a-z]?|\d{4})(?P<plural>s)?"
    r"(?:[\s-]*(?P<mem>\d{2,3})\s*(?:g|gb|gib)" + _R + r")?"
    r"(?:[\s-]*(?:sxm\d?|pcie|nvl)" + _R + r")?" + _R
)
# Single quotes only around words, so that "don't" and "I'll" stay text.
_QUOTE = re.compile(
    r"`([^`]+)`|\"([^\"]+)\"|“([^”]+)”|「([^」]+)」|(?<![A-Za-z0-9])'([^']+)'(?![A-Za-z0-9])|‘([^’]+)’"
)
_PATH = re.compile(
    r"(?<![A-Za-z0-9_./~\\-])((?:[A-Za-z]:)?[A-Za-z0-9_./~\\-]*[A-Za-z0-9_-]\.(?:ya?ml|toml|json))"
    r"(?![A-Za-z0-9_])"
)


@lru_cache(maxsize=1)
def catalog_gpus() -> dict[str, GpuModel]:
    """The catalog's GPU models by name (read once from the bundled gpus.csv)."""
    return Engine.builtin_gpus()


def canonical_gpu(text: str) -> str | None:
    """The catalog name for a spelling (``a800``, ``rtx 4090``, ``A100 80G``), or None.

    A bare family with several variants (``A100``) means the one with most memory.
    """
    name = normalise_gpu_name(text)
    gpus = catalog_gpus()
    if name in gpus:
        return name
    variants = [g for g in gpus if g.startswith(name + "-")]
    if variants:
        return max(variants, key=lambda g: gpus[g].memory_gib)
    return None


@dataclass
class Message:
    """One request, prepared for keyword search and value extraction."""

    raw: str
    quotes: list[str] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)
    keys: str = ""
    work: str = ""

    @classmethod
    def of(cls, text: str) -> Message:
        quotes: list[str] = []
        paths: list[str] = []

        def take_quote(match: re.Match[str]) -> str:
            value = next(g for g in match.groups() if g is not None).strip()
            if _PATH.fullmatch(value):
                paths.append(value)
                return " §p "
            quotes.append(value)
            return " §q "

        rest = _QUOTE.sub(take_quote, text)

        def take_path(match: re.Match[str]) -> str:
            paths.append(match.group(1))
            return " §p "

        rest = _PATH.sub(take_path, rest)
        return cls(raw=text, quotes=quotes, paths=paths, keys=fold(rest), work=prepare(rest))

    def has(self, pattern: str | re.Pattern[str]) -> bool:
        """Whether a keyword pattern occurs (quoted commands and paths excluded)."""
        return re.search(pattern, self.keys) is not None

    def take(self, pattern: str | re.Pattern[str], mark: str = " ") -> re.Match[str] | None:
        """The first match in ``work``, which is then blanked (replaced by ``mark``)."""
        match = re.search(pattern, self.work)
        if match is not None:
            self.work = self.work[: match.start()] + mark + self.work[match.end() :]
        return match

    def take_first(
        self, pattern: str | re.Pattern[str], accept: Callable[[re.Match[str]], bool]
    ) -> re.Match[str] | None:
        """The first match that ``accept`` takes, blanked; the others stay as they were."""
        for match in re.finditer(pattern, self.work):
            if accept(match):
                self.work = self.work[: match.start()] + " " + self.work[match.end() :]
                return match
        return None

    def take_all(self, pattern: str | re.Pattern[str], mark: str = " ") -> list[re.Match[str]]:
        found: list[re.Match[str]] = []
        while (match := self.take(pattern, mark)) is not None:
            found.append(match)
        return found


# ---- GPU model -------------------------------------------------------------------------------


@dataclass(frozen=True)
class GpuMention:
    name: str | None  # the catalog's name, None when the GPU is not in the catalog
    spoken: str  # what the user wrote, for a reply


def take_gpu(msg: Message) -> GpuMention | None:
    """The GPU model named in the request (first one), marking it ``§g`` in ``work``."""
    ascend = msg.take(_ASCEND, GPU_MARK)
    if ascend is not None:
        return GpuMention(None, "Ascend " + (ascend.group(1) or "910B").upper())
    kunlun = msg.take(_KUNLUN, GPU_MARK)
    if kunlun is not None:
        return GpuMention(None, "Kunlun")
    first: GpuMention | None = None
    pos = 0
    while (match := _GPU.search(msg.work, pos)) is not None:
        core = match.group("core")
        candidates = []
        if match.group("mem"):
            candidates.append(f"{core}-{match.group('mem')}g")
        if match.group("rtx"):
            candidates.append("rtx" + core)
        candidates.append(core)
        if match.group("plural"):
            candidates.insert(0, core + "s")
        elif core.endswith("s") and not core[:-1].isdigit():
            candidates.append(core[:-1])  # "8 A800s"
        found: GpuMention | None = None
        for candidate in candidates:
            name = canonical_gpu(candidate)
            if name is not None:
                found = GpuMention(name, match.group(0).strip())
                break
        if found is None:
            other = OTHER_GPUS.get(normalise_gpu_name(core))
            if other is not None and (match.group("rtx") or not core.isdigit() or len(core) == 4):
                found = GpuMention(None, other)
        if found is None:
            pos = match.end()
            continue
        msg.work = msg.work[: match.start()] + GPU_MARK + msg.work[match.end() :]
        pos = match.start() + len(GPU_MARK)
        if first is None:
            first = found
    return first


# ---- model size, tokens ----------------------------------------------------------------------

_SIZE_UNITS = {
    "k": 10**3,
    "thousand": 10**3,
    "w": 10**4,
    "m": 10**6,
    "million": 10**6,
    "b": 10**9,
    "bn": 10**9,
    "billion": 10**9,
    "g": 10**9,
    "t": 10**12,
    "trillion": 10**12,
}
_TOKEN_WORD = r"(?:tokens?|token数|词元|个\s*(?:token|词元))"
_PARAM_WORD = r"(?:参数量?|params?|parameters?|模型|model)"
_UNIT = r"(?P<unit>k|w|m|bn|b|t|thousand|million|billion|trillion)"
_SCI = re.compile(_L + r"(?P<num>\d+(?:\.\d+)?)e(?P<exp>\d{1,2})" + _R)
_TOKENS = re.compile(
    _L
    + rf"(?P<num>{NUM})\s*(?:{_UNIT}(?![a-z]))?\s*(?:of\s+)?(?:training\s+|训练\s*)?{_TOKEN_WORD}"
)
_TOKENS_AFTER = re.compile(
    rf"{_TOKEN_WORD}\s*(?:数|量)?\s*[:=]?\s*(?P<num>{NUM})\s*{_UNIT}?(?![a-z])"
)
_SIZED = re.compile(_L + rf"(?P<num>{NUM})\s*{_UNIT}(?![a-z])")
_BIG_PARAMS = re.compile(_L + rf"(?P<num>\d{{7,}})\s*(?:个)?\s*{_PARAM_WORD}")
_MOE = re.compile(_L + r"(?P<experts>\d+)\s*x\s*(?P<num>\d+(?:\.\d+)?)\s*b" + _R)


def _scaled(num: str, unit: str | None) -> int:
    value = Decimal(num) * _SIZE_UNITS.get((unit or "").lower(), 1)
    return int(value)


def _sci(match: re.Match[str]) -> str:
    value = Decimal(match["num"]) * 10 ** int(match["exp"])
    for unit, scale in (("t", 10**12), ("b", 10**9), ("m", 10**6)):
        if value >= scale:
            return f"{format_decimal(value / scale)}{unit}"
    return format_decimal(value)


def _expand_sci(msg: Message) -> None:
    """``1.5e9`` -> ``1.5b`` so that it reads like any other size."""
    msg.work = _SCI.sub(_sci, msg.work)


def take_tokens(msg: Message) -> int | None:
    """Training tokens: ``100B tokens``, ``1000亿token`` (prepared as ``100b token``)."""
    _expand_sci(msg)
    for pattern in (_TOKENS, _TOKENS_AFTER):
        match = msg.take(pattern)
        if match is not None:
            return _scaled(match["num"], match["unit"])
    return None


def take_model_size(msg: Message) -> tuple[int | None, int | None]:
    """(parameters, extra tokens): ``13B``, ``7b``, ``70亿``, ``130亿参数``, ``1.5e9``.

    A second sized number is the token count (``train 7B on 100B``); a size in T
    without a parameter word is tokens too (``1.3T``: models are not counted in T).
    """
    _expand_sci(msg)
    moe = msg.take(_MOE)
    if moe is not None:
        return _scaled(moe["num"], "b") * int(moe["experts"]), None
    big = msg.take(_BIG_PARAMS)
    if big is not None:
        return int(big["num"]), None
    params: int | None = None
    tokens: int | None = None
    taken: list[re.Match[str]] = []
    for match in _SIZED.finditer(msg.work):
        unit = match["unit"].lower()
        value = _scaled(match["num"], unit)
        if unit in ("k", "thousand", "w") or value < 1_000_000:
            continue  # 2k and 1.5万 are money, a rate or a context length, not a model
        after = msg.work[match.end() : match.end() + 24]
        is_param = re.match(r"\s*" + _PARAM_WORD, after) is not None
        if unit in ("t", "trillion") and not is_param:
            if tokens is None:
                tokens = value
                taken.append(match)
        elif params is None:
            params = value
            taken.append(match)
        elif tokens is None:
            tokens = value
            taken.append(match)
    for match in reversed(taken):
        msg.work = msg.work[: match.start()] + " " + msg.work[match.end() :]
    return params, tokens


# ---- GPU count -------------------------------------------------------------------------------

_CARD = r"(?:gpus?|cards?|张\s*(?:显卡|卡)?|块\s*(?:显卡|卡|gpu)|卡|个\s*gpu|台\s*gpu|§g)"
_NODE = r"(?:nodes?|machines?|servers?|hosts?|台\s*(?:机器|服务器|节点|主机)?|个\s*节点|节点|机)"
_RANGE_SEP = r"(?:-|~|–|—|to|到|至)"
_NODES_TIMES = re.compile(
    _L + rf"(?P<n>\d+)\s*{_NODE}\s*(?:of|with|x|×|\*|each\s+with|,|每台|每个)?\s*"
    rf"(?P<m>\d+)\s*(?:{_CARD}|-gpu|-card)(?:\s*each)?"
)
_TIMES = re.compile(_L + rf"(?P<n>\d+)\s*[x×*]\s*(?P<m>\d+)\s*(?:{_CARD}|-gpu)")
_BETWEEN = re.compile(rf"between\s+(?P<a>\d+)\s+and\s+(?P<b>\d+)\s*(?:{_CARD}|-gpu)")
_RANGE = re.compile(_L + rf"(?P<a>\d+)\s*{_RANGE_SEP}\s*(?P<b>\d+)\s*(?:{_CARD}|-gpu|-card)")
_AT_MOST = re.compile(
    rf"(?:up\s+to|at\s+most|no\s+more\s+than|fewer\s+than|less\s+than|under|"
    rf"max(?:imum)?(?:\s+of)?|最多|不超过|至多)\s*(?P<n>\d+)\s*(?:{_CARD}|-gpu)"
    rf"|(?P<m>\d+)\s*(?:{_CARD})\s*(?:以内|以下|之内|or\s+fewer|or\s+less|at\s+most)"
)
_AT_LEAST = re.compile(
    rf"(?:at\s+least|min(?:imum)?(?:\s+of)?|至少|最少|不少于)\s*(?P<n>\d+)\s*(?:{_CARD}|-gpu)"
    rf"|(?P<m>\d+)\s*(?:{_CARD})\s*(?:or\s+more|以上|起)"
)
_COUNT = re.compile(_L + rf"(?P<n>\d+)\s*(?:x|×|\*|-)?\s*(?:{_CARD}|-gpu|-card)")
_COUNT_AFTER = re.compile(r"§g\s*(?:x|×|\*)\s*(?P<n>\d+)" + _R + r"|§g\s*(?P<m>\d+)\s*(?:张|块|卡)")
_NODES = re.compile(_L + rf"(?P<n>\d+)\s*{_NODE}")
_SINGLE = re.compile(r"单卡|single[\s-]gpu|one[\s-]gpu|一张卡")
_DOUBLE = re.compile(r"双卡")
GPUS_PER_NODE = 8  # "2 nodes" without a GPU count: the usual 8-GPU machine


def nodes_said(msg: Message) -> int | None:
    """``2`` for "on 2 nodes" / "两台机器" (read, not taken), None when no node count is said."""
    match = _NODES.search(msg.work)
    return int(match["n"]) if match is not None else None


def take_gpu_count(msg: Message) -> int | str | None:
    """``8`` for "8 GPUs" / "八张卡" / "8x A800"; ``"16-64"`` for a range; ``"16+"`` at least."""
    match = msg.take(_NODES_TIMES) or msg.take(_TIMES)
    if match is not None:
        return int(match["n"]) * int(match["m"])
    match = msg.take(_BETWEEN) or msg.take(_RANGE)
    if match is not None:
        low, high = sorted((int(match["a"]), int(match["b"])))
        return f"{low}-{high}" if low != high else low
    match = msg.take(_AT_MOST)
    if match is not None:
        return f"1-{int(match['n'] or match['m'])}"
    match = msg.take(_AT_LEAST)
    if match is not None:
        return f"{int(match['n'] or match['m'])}+"
    match = msg.take(_COUNT) or msg.take(_COUNT_AFTER)
    if match is not None:
        return int(match["n"] or match["m"])
    if msg.take(_SINGLE):
        return 1
    if msg.take(_DOUBLE):
        return 2
    match = msg.take(_NODES)
    if match is not None:
        return int(match["n"]) * GPUS_PER_NODE
    return None


# ---- money -----------------------------------------------------------------------------------

_AMOUNT = r"(?P<num>\d[\d,]*(?:\.\d+)?)\s*(?P<mult>k|w|千|万)?(?![a-z0-9])"
_CNY_WORD = r"(?:元|块钱|块(?!\s*(?:显卡|卡|gpu|§g))|rmb|cny|yuan|人民币|¥|￥)"
_USD_WORD = r"(?:usd|dollars?|美元|美金)"
_MONEY_PATTERNS = (
    (re.compile(r"[¥￥]\s*" + _AMOUNT), "CNY"),
    (re.compile(r"(?:rmb|cny|人民币)\s*" + _AMOUNT), "CNY"),
    (re.compile(_L + _AMOUNT.replace("(?![a-z0-9])", "") + r"\s*" + _CNY_WORD), "CNY"),
    (re.compile(r"(?:us)?\$\s*" + _AMOUNT), "USD"),
    (re.compile(r"(?:usd)\s*" + _AMOUNT), "USD"),
    (re.compile(_L + _AMOUNT.replace("(?![a-z0-9])", "") + r"\s*" + _USD_WORD), "USD"),
)
_BUDGET_CUE = (
    r"(?:budget(?:\s+(?:is|of))?|预算(?:是|为|在)?|at\s+most|no\s+more\s+than|under|below|"
    r"less\s+than|within|up\s+to|max(?:imum)?|cap(?:ped)?(?:\s+at)?|spend(?:ing)?\s+(?:at\s+most)?|"
    r"不超过|不超|最多|上限|控制在|花费?不超过)"
)
_NOT_MONEY_AFTER = (
    r"(?!\s*(?:-|~|to|到)?\s*\d*\s*(?:gpus?|cards?|张|卡|台|nodes?|machines?|hours?|h\b|小时|"
    r"days?|天|weeks?|周|mins?|minutes?|分钟|%|qps|tokens?|b\b|行|lines?|jobs?|个|次|§))"
)
_CUED = re.compile(_BUDGET_CUE + r"\s*[:=]?\s*" + _AMOUNT + _NOT_MONEY_AFTER)
_SUFFIX_CUED = re.compile(_L + _AMOUNT + r"\s*(?:以内|以下|之内)")
_MULT = {"k": 1000, "千": 1000, "w": 10_000, "万": 10_000}
_BARE = re.compile(
    _L + r"(?<!in )(?<!within )(?P<num>\d+(?:\.\d+)?)\s*(?P<mult>k|w)" + _R + _NOT_MONEY_AFTER
)


def _money(match: re.Match[str]) -> Decimal:
    value = Decimal(match["num"].replace(",", ""))
    mult = match["mult"]
    return value * _MULT[mult] if mult else value


def take_budget(msg: Message, *, bare: bool = False) -> tuple[int | float, str] | None:
    """(amount, currency): ``500 CNY``, ``五百元``, ``1.5万``, ``2k``, ``¥300``, ``at most 500``.

    With ``bare`` (a plan, where nothing else is counted in thousands), a lone ``2k`` or
    ``1.5万`` is the budget too.
    """
    for pattern, currency in _MONEY_PATTERNS:
        match = msg.take(pattern)
        if match is not None:
            return to_number(str(_money(match))), currency
    match = msg.take(_CUED) or msg.take(_SUFFIX_CUED)
    if match is not None:
        return to_number(str(_money(match))), "CNY"
    if bare:
        match = msg.take(_BARE)
        if match is not None:
            return to_number(str(_money(match))), "CNY"
    return None


# ---- time ------------------------------------------------------------------------------------

_HOURS = {
    "m": 1 / 60,
    "min": 1 / 60,
    "mins": 1 / 60,
    "minute": 1 / 60,
    "minutes": 1 / 60,
    "分钟": 1 / 60,
    "h": 1,
    "hr": 1,
    "hrs": 1,
    "hour": 1,
    "hours": 1,
    "小时": 1,
    "钟头": 1,
    "d": 24,
    "day": 24,
    "days": 24,
    "天": 24,
    "日": 24,
    "w": 168,
    "wk": 168,
    "week": 168,
    "weeks": 168,
    "周": 168,
    "星期": 168,
    "礼拜": 168,
}
_EN_DURATION = re.compile(
    _L + r"(?P<half>half\s+(?:a|an)\s+)?(?P<num>\d+(?:\.\d+)?|a|an)?\s*(?:-)?\s*"
    r"(?P<unit>minutes?|mins?|hours?|hrs?|h|days?|d|weeks?|wk)"
    + _R
    + r"(?P<andhalf>\s+and\s+a\s+half)?"
)
_ZH_DURATION = re.compile(
    r"(?P<num>\d+(?:\.\d+)?)?\s*(?:个)?\s*(?P<half>半)?\s*(?:个)?\s*"
    r"(?P<unit>分钟|小时|钟头|天(?!内?\s*[花费])|日(?!志)|周|星期|礼拜)(?P<after>半)?"
)
_RELATIVE_DAYS = (
    (re.compile(r"by\s+tomorrow|明天(?:之前|前|以前|内|晚上)?|tomorrow"), 24),
    (re.compile(r"后天|day\s+after\s+tomorrow"), 48),
    (re.compile(r"by\s+next\s+week|下周|next\s+week"), 168),
    (re.compile(r"by\s+tonight|今晚|tonight"), 12),
)


def take_duration_hours(msg: Message) -> int | float | None:
    """Hours: ``in 2 days``, ``两天内``, ``48h``, ``1.5 hours``, ``半天``, ``by tomorrow``."""
    match = msg.take_first(_ZH_DURATION, lambda m: bool(m["num"] or m["half"]))
    if match is not None:
        base = Decimal(match["num"]) if match["num"] else Decimal(0)
        if match["half"] or match["after"]:
            base += Decimal("0.5")
        return _hours(base, match["unit"])
    match = msg.take_first(_EN_DURATION, lambda m: bool(m["num"] or m["half"]))
    if match is not None:
        num = match["num"]
        if match["half"]:
            base = Decimal("0.5")
        else:
            base = Decimal(1) if num in ("a", "an") else Decimal(num)
            if match["andhalf"]:
                base += Decimal("0.5")
        return _hours(base, match["unit"])
    for pattern, hours in _RELATIVE_DAYS:
        if msg.take(pattern):
            return hours
    return None


def _hours(value: Decimal, unit: str) -> int | float:
    hours = value * Decimal(str(_HOURS[unit]))
    return to_number(str(round(hours, 2)))


# ---- inference rate --------------------------------------------------------------------------

_QPS = re.compile(
    _L + rf"(?P<num>{NUM})\s*(?P<k>k)?\s*(?:qps|rps|req(?:uest)?s?\s*/\s*s(?:ec)?|"
    r"requests?\s+(?:per|a|/)\s*(?:second|sec|s)|queries\s+per\s+second|次\s*/\s*秒|个?请求\s*/\s*秒)"
    rf"|(?:qps|rps)\s*(?:of|=|:|为|是|达到|到|要)?\s*(?P<num2>{NUM})\s*(?P<k2>k)?"
    rf"|每秒\s*(?P<num3>{NUM})\s*(?:个|次)?\s*(?:请求|查询|调用|qps)?"
)


def take_qps(msg: Message) -> int | float | None:
    match = msg.take(_QPS)
    if match is None:
        return None
    num = match["num"] or match["num2"] or match["num3"]
    value = Decimal(num) * (1000 if (match["k"] or match["k2"]) else 1)
    return to_number(str(value))


# ---- fabric ----------------------------------------------------------------------------------

_FABRIC_NAME = re.compile(_L + r"(ib-[a-z]+-\d+|roce-\d+|eth-\d+)" + _R)
IB_WORDS = _L + r"(?:ib|infiniband|infini-band)" + _R + r"|无限带宽"
ROCE_WORDS = _L + r"(?:roce(?:\s*v?2)?|rdma\s+over\s+(?:converged\s+)?ethernet)" + _R
ETH_WORDS = _L + r"(?:ethernet|tcp(?:/ip)?)" + _R + r"|以太网"


def take_fabric(msg: Message) -> str | None:
    """``ib``, ``roce``, ``eth`` (a family) or an exact fabric name such as ``roce-200``."""
    match = msg.take(_FABRIC_NAME)
    if match is not None:
        return match.group(1)
    for pattern, family in ((ROCE_WORDS, "roce"), (IB_WORDS, "ib"), (ETH_WORDS, "eth")):
        if msg.take(pattern):
            return family
    return None


# ---- regions, options, periods, limits -------------------------------------------------------

REGIONS = {
    "xiamen": "Xiamen",
    "厦门": "Xiamen",
    "yinchuan": "Yinchuan",
    "银川": "Yinchuan",
    "ulanqab": "Ulanqab",
    "ulanchab": "Ulanqab",
    "乌兰察布": "Ulanqab",
}


def take_region(msg: Message) -> str | None:
    for spelling, region in REGIONS.items():
        if msg.take(_L + re.escape(spelling) + _R if spelling.isascii() else spelling):
            return region
    return None


_ORD = ORDINAL_WORDS + r"|\d+(?:st|nd|rd|th)"
OPTION = re.compile(
    r"(?:option|choice|number|no\.|#|方案|选项|套餐)\s*(?:#|no\.?|number)?\s*(?P<n>\d+)"
    + _R
    + rf"|(?<![a-z])(?P<o>{_ORD})\s+(?:option|choice|one)\b"
    + rf"|\bthe\s+(?P<o2>{_ORD})\b"
    + r"|第\s*(?P<z>\d+)\s*(?:个|套|种|项|号|方案|选项)?(?!\s*(?:次|天|周|月|年|步|轮|张|台))"
    + r"|(?P<h>\d+)\s*号\s*(?:方案|选项)"
)


def take_option(msg: Message) -> int | None:
    """The option number: ``option 2``, ``#2``, ``the second one``, ``第一个``, ``方案二``."""
    match = msg.take(OPTION)
    if match is None:
        return None
    if match["n"]:
        return int(match["n"])
    if match["o"] or match["o2"]:
        return ordinal(match["o"] or match["o2"])
    return int(match["z"] or match["h"])


_LIMIT = re.compile(
    r"(?:last|latest|recent|previous|past|top|first)\s+(?P<n>\d+)"
    r"|(?:最近|最后|最新|前|近)\s*的?\s*(?P<z>\d+)\s*(?:个|次|条|项|台)?"
    r"|(?P<m>\d+)\s*(?:jobs?|runs?|clusters?|plans?|events?|trainings?|个任务|个作业|次训练|个集群|个方案|条)"
)


def take_limit(msg: Message) -> int | None:
    match = msg.take(_LIMIT)
    if match is None:
        return None
    return int(match["n"] or match["z"] or match["m"])


_MONTHS = {
    "january": 1,
    "jan": 1,
    "february": 2,
    "feb": 2,
    "march": 3,
    "mar": 3,
    "april": 4,
    "apr": 4,
    "may": 5,
    "june": 6,
    "jun": 6,
    "july": 7,
    "jul": 7,
    "august": 8,
    "aug": 8,
    "september": 9,
    "sep": 9,
    "sept": 9,
    "october": 10,
    "oct": 10,
    "november": 11,
    "nov": 11,
    "december": 12,
    "dec": 12,
}
_MONTH_NAME = re.compile(r"(?:in|during|for)\s+(?P<name>" + "|".join(_MONTHS) + r")" + _R)
_MONTH_ZH = re.compile(r"(?<![\d.])(?P<n>1[0-2]|[1-9])\s*月(?:份)?")


def _month_period(month: int, today: date) -> str:
    if month == today.month:
        return "month"
    last = (today.replace(day=1) - timedelta(days=1)).month
    if month == last:
        return "last_month"
    year = today.year if month < today.month else today.year - 1
    return f"{year:04d}-{month:02d}"


_ISO_DAY = re.compile(r"(?<!\d)(?P<y>20\d\d)-(?P<m>\d{1,2})-(?P<d>\d{1,2})(?!\d)")
_DAY_EN = re.compile(
    r"(?P<name>"
    + "|".join(_MONTHS)
    + r")\.?\s+(?P<d>[0-3]?\d)(?:st|nd|rd|th)?"
    + _R
    + r"|(?<![\d.])(?P<d2>[0-3]?\d)(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<name2>"
    + "|".join(_MONTHS)
    + r")"
    + _R
)
_DAY_ZH = re.compile(r"(?<![\d.])(?P<m>1[0-2]|[1-9])\s*月\s*(?P<d>[0-3]?\d)\s*[日号]")


def _day_period(month: int, day: int, today: date) -> str | None:
    """A day of this year, or of last year when it has not come yet; None if no such day."""
    for year in (today.year, today.year - 1):
        try:
            found = date(year, month, day)
        except ValueError:
            return None
        if found <= today:
            return found.isoformat()
    return None


def take_period(msg: Message, today: date) -> str | None:
    """``today``, ``month``, ``last_month``, ``all``, a day or month as ``YYYY-MM(-DD)``, or
    ``week``, ``last_week``, ``days:N`` (which the cost tool takes as start and end)."""
    keys = msg.keys
    if re.search(r"yesterday|昨天|昨日", keys):
        return (today - timedelta(days=1)).isoformat()
    match = _ISO_DAY.search(keys)
    if match is not None:
        try:
            return date(int(match["y"]), int(match["m"]), int(match["d"])).isoformat()
        except ValueError:
            pass
    match = _DAY_EN.search(keys)
    if match is not None:
        name = match["name"] or match["name2"]
        day = _day_period(_MONTHS[name], int(match["d"] or match["d2"]), today)
        if day is not None:
            return day
    match = _DAY_ZH.search(msg.work)
    if match is not None:
        day = _day_period(int(match["m"]), int(match["d"]), today)
        if day is not None:
            return day
    if re.search(r"last\s+month|previous\s+month|上个?月", keys):
        return "last_month"
    if re.search(r"last\s+week|previous\s+week|上周|上个?星期|上个?礼拜", keys):
        return "last_week"
    if re.search(r"this\s+week|本周|这周|这个?星期|这个?礼拜", keys):
        return "week"
    days = re.search(
        r"(?:last|past|previous)\s+(?P<n>\d+)\s+days|(?:最近|近|过去|前)\s*(?P<z>\d+)\s*天",
        msg.work,
    )
    if days is not None:
        return f"days:{int(days['n'] or days['z'])}"
    if re.search(r"this\s+month|current\s+month|本月|这个月|当月|这月", keys):
        return "month"
    if re.search(r"today|so\s+far\s+today|今天|今日|当天", keys):
        return "today"
    match = _MONTH_NAME.search(keys)
    if match is not None:
        return _month_period(_MONTHS[match["name"]], today)
    match = _MONTH_ZH.search(msg.work)
    if match is not None:
        return _month_period(int(match["n"]), today)
    if re.search(
        r"so\s+far|in\s+total|total|altogether|all[\s-]time|overall|ever|一共|总共|累计|至今|"
        r"到目前为止|目前为止|总计|总花费|所有|全部",
        keys,
    ):
        return "all"
    return None


def period_bounds(period: str, today: date) -> tuple[float, float | None]:
    """``[since, until)`` in epoch seconds for a period, days at local midnight (as the
    Engine counts spend); ``until`` None means up to now."""

    def at(day: date) -> float:
        return datetime(day.year, day.month, day.day).timestamp()

    def next_month(day: date) -> date:
        return (day.replace(day=28) + timedelta(days=4)).replace(day=1)

    first = today.replace(day=1)
    monday = today - timedelta(days=today.weekday())
    if period == "today":
        return at(today), None
    if period == "week":
        return at(monday), None
    if period == "last_week":
        return at(monday - timedelta(days=7)), at(monday)
    if period.startswith("days:"):
        # "the last 99999999999999999999 days" reaches back before any spending: all of it,
        # from 1970 (timedelta cannot hold more days than that, and date not before year 1).
        days = min(max(1, int(period[5:])), (today - date(1970, 1, 2)).days + 1)
        return at(today - timedelta(days=days - 1)), None
    if period == "month":
        return at(first), None
    if period == "last_month":
        return at((first - timedelta(days=1)).replace(day=1)), at(first)
    if len(period) == 7:
        start = date.fromisoformat(period + "-01")
        return at(start), at(next_month(start))
    day = date.fromisoformat(period)
    return at(day), at(day + timedelta(days=1))


_RANK = re.compile(
    r"(?:rank|node|worker)\s*#?\s*(?P<n>\d+)" + _R + r"|(?P<z>\d+)\s*号\s*(?:节点|机器|rank)"
    r"|(?:节点|rank)\s*(?P<y>\d+)"
)
_LINES = re.compile(
    r"(?:last|tail|final)\s+(?P<n>\d+)(?:\s+lines?)?|(?P<m>\d+)\s*lines?"
    r"|(?:最后|末尾|最近)\s*(?P<z>\d+)\s*行|(?P<y>\d+)\s*行"
)


def take_rank(msg: Message) -> int | None:
    match = msg.take(_RANK)
    return None if match is None else int(match["n"] or match["z"] or match["y"])


def take_lines(msg: Message) -> int | None:
    match = msg.take(_LINES)
    return None if match is None else int(match["n"] or match["m"] or match["z"] or match["y"])


_PROVIDER = re.compile(r"(?:provider|on|from|在)\s*(?P<p>sim|ssh|local|hosts?)" + _R)


def take_provider(msg: Message) -> str | None:
    match = msg.take(_PROVIDER)
    if match is None:
        return None
    name = match["p"]
    return "ssh" if name.startswith("host") else name


# ---- sample job specs ------------------------------------------------------------------------


@lru_cache(maxsize=1)
def sample_specs() -> tuple[str, ...]:
    """The bundled sample specs' names (``lora-2node``, ``lora``, ...), longest first."""
    from xyclaw.paths import bundled

    try:
        folder = bundled("resources") / "examples"
    except FileNotFoundError:
        return ()
    names: set[str] = set()
    for entry in folder.iterdir() if folder.is_dir() else ():
        if entry.is_dir():
            names.add(entry.name.lower())
        elif entry.suffix in (".yaml", ".yml"):
            names.add(entry.stem.lower())
    return tuple(sorted(names, key=lambda n: (-len(n), n)))


def take_sample(msg: Message, verbs: str) -> str | None:
    """A sample spec named right after a launch verb: ``launch lora on c1``, ``启动 lora 示例``."""
    for name in sample_specs():
        pattern = (
            rf"(?:{verbs})\s*(?:the\s+|sample\s+|example\s+|示例\s*|样例\s*)?"
            rf"(?<![a-z0-9_-]){re.escape(name)}(?![a-z0-9_-])"
            r"(?!\s*(?:fine|lora|tun|model|微调|模型|训练))"
        )
        if re.search(pattern, msg.keys):
            return name
    return None


def without_name(msg: Message, name: str) -> Message:
    """The request with ``name`` (a sample spec taken) blanked out, so that ``plain-python``
    in "launch plain-python on c1" is not read as a cluster's name too."""
    blank = _token_pattern(name)
    return replace(msg, keys=re.sub(blank, " §s ", msg.keys), work=re.sub(blank, " §s ", msg.work))


# ---- cluster and job references --------------------------------------------------------------

_NAME = r"[a-z0-9](?:[a-z0-9_]|[._-](?=[a-z0-9_]))*"
_NOT_NAMES = {"it", "this", "that", "the", "now", "all", "please", "for", "on", "in", "to", "and"}


def _token_pattern(name: str) -> str:
    # A sentence's full stop after a name ends it ("tune beta."): a dot or hyphen counts as
    # part of the name only when a letter or digit follows it.
    return r"(?<![a-z0-9._-])" + re.escape(name.lower()) + r"(?![a-z0-9_]|[.-][a-z0-9_])"


@dataclass(frozen=True)
class Ref:
    """A cluster or job the request points at; ``how`` says how it was found."""

    value: str
    how: str  # "named" (typed, known), "typed" (typed, not known), "pronoun", "only"


def _keyword_refs(msg: Message, words: str) -> list[str]:
    """Names written next to a keyword ("cluster c1", "3号集群"), as typed (numerals unread)."""
    # A whole token only: never the tail of a path or a word ("jobs/train.yaml取消" names no job).
    name = rf"(?<![a-z0-9._/-])(?P<r>{_NAME})"
    before = re.compile(rf"(?P<k>{words})\s*(?:#|no\.?|id|号|named|called|名为)?\s*{name}")
    after = re.compile(rf"{name}\s*(?:号)?\s*(?P<k>{words})")
    found: list[str] = []
    for pattern in (before, after):
        for match in pattern.finditer(msg.keys):
            ref = match["r"].strip("._-")
            if ref.isdigit() and match["k"].endswith("s"):
                continue  # "clusters 3" counts things; "cluster 3" names one
            if ref and ref not in _NOT_NAMES and ref not in found:
                found.append(ref)
    return found


def find_refs(
    msg: Message,
    known: tuple[str, ...],
    words: str,
    pronouns: str,
    loose: str | None = None,
    *,
    by_gpu: bool = False,
) -> tuple[list[Ref], bool]:
    """Refs the request names (known names first, then names after a keyword), and a pronoun flag.

    A typed ref counts when it is known, a number (an id), or looks like a name
    (has a digit or a hyphen); ``the A800 cluster`` matches a known cluster whose
    name starts with ``a800-`` when exactly one does. After a ``loose`` keyword
    (a verb, "on", "在") only a name with a letter and a digit or hyphen counts.

    With ``by_gpu`` (clusters, named after their GPU model) a GPU the request mentions
    ("释放掉4090那个集群") picks the live clusters of that model: one is ``named``, several
    are ``gpu-many``, none gives one ``gpu-unmatched`` ref holding the GPU's name.
    """
    refs: list[Ref] = []
    for name in known:
        if re.search(_token_pattern(name), msg.work):
            refs.append(Ref(name, "named"))
            msg.work = re.sub(_token_pattern(name), " §r ", msg.work)
    if by_gpu and not refs:
        probe = Message(raw=msg.raw, keys=msg.keys, work=msg.work)
        while (mention := take_gpu(probe)) is not None:
            if mention.name is None:
                continue
            stem = mention.name.lower() + "-"
            matches = [k for k in known if k.lower().startswith(stem)]
            if not matches:
                refs.append(Ref(mention.name, "gpu-unmatched"))
            for name in matches:
                if all(r.value != name for r in refs):
                    refs.append(Ref(name, "named" if len(matches) == 1 else "gpu-many"))
        if refs:
            return refs, re.search(pronouns, msg.keys) is not None
    lowered = {k.lower(): k for k in known}
    typed = [(ref, False) for ref in _keyword_refs(msg, words)]
    if loose:
        typed += [(ref, True) for ref in _keyword_refs(msg, loose) if ref not in dict(typed)]
    for ref, is_loose in typed:
        if ref in lowered:
            continue
        gpu = canonical_gpu(ref)
        stems = {ref} | ({gpu.lower()} if gpu else set())
        prefixed = [k for k in known if any(k.lower().startswith(s + "-") for s in stems)]
        if len(prefixed) == 1:
            if all(r.value != prefixed[0] for r in refs):
                refs.append(Ref(prefixed[0], "named"))
            continue
        if gpu is not None or ref in ("§g", "§r"):
            continue
        if re.fullmatch(r"\d+(?:\.\d+)?[kmbt]", ref):
            continue  # "the 7b training" names a model size, not a job
        if is_loose and not (re.search(r"[a-z]", ref) and re.search(r"[\d-]", ref)):
            continue
        looks_named = ref.isdigit() or re.search(r"[\d-]", ref) is not None
        if looks_named and all(r.value != ref for r in refs):
            refs.append(Ref(ref, "typed"))
    pronoun = re.search(pronouns, msg.keys) is not None
    return refs, pronoun


CLUSTER_WORDS = r"\bclusters?\b|集群"
CLUSTER_PRONOUNS = (
    r"\b(?:it|this|that|the|my)\s+(?:cluster|one|machines?|nodes?)\b|\bit\b|这个集群|该集群|此集群|"
    r"这集群|那个集群|它|这个|我的集群|当前集群"
)
JOB_WORDS = r"\bjobs?\b|\bruns?\b|\btrainings?\b|任务|作业"
JOB_PRONOUNS = (
    r"\b(?:it|this|that|the|my)\s+(?:job|run|training|fine-?tune)\b|\bit\b|这个任务|该任务|这个作业|该作业|"
    r"这个训练|当前任务|当前作业|它|训练|任务|作业"
)
