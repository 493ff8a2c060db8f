"""The selection report: a plan written as the document the seed's selection consultancy
hands its customers (one self-contained HTML file).

What was asked, the recommendation, the cost-versus-hours chart (an embedded PNG),
the ranked options with their reasons, the shapes that did not fit and why, the
RoCE-versus-InfiniBand reasoning for this request (seed 004's selection model,
applied to the options found) and every assumption behind the figures.

Pure Python, no Qt: the page renders the chart and hands its PNG bytes in.
"""

from __future__ import annotations

import base64
import html
import time
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication

from xyclaw.catalog.money import format_amount
from xyclaw.engine.values import (
    IB_DAYS,
    IB_UTILIZATION,
    ROCE_DAYS,
    SEED_CARDS,
    SETUP_SECONDS,
    PlanOption,
    PlanRequest,
    PlanResult,
    RejectedOption,
    describe_request,
    size_label,
)

if TYPE_CHECKING:
    from xyclaw.engine.reports import PlanOutcome

#: How many options and rejected shapes the report lists (the saved plan keeps as many).
MAX_OPTIONS = 50
MAX_REJECTED = 20

#: Seed 004's selection rules, by the rule names the planner attaches to options.
SEED_RULES: tuple[tuple[str, str], ...] = (
    (
        "small-jobs-roce",
        "Up to 8 cards on a 7B/13B job: RoCE and InfiniBand are within 10%; RoCE is the "
        "better value (InfiniBand costs about 42% more there for 8.6% more speed).",
    ),
    (
        "mid-cluster-ib",
        "16-32 cards on 13B-70B training: InfiniBand is clearly ahead (12-38% shorter runs, "
        "10-30% higher utilization).",
    ),
    ("large-cluster-ib-only", "Above 32 cards on 70B+ training: only InfiniBand holds up."),
    (
        "cost-sensitive-roce",
        "Cost-sensitive, or Ethernet already in place: RoCE (30-50% less network hardware).",
    ),
    ("performance-ib", "Performance first: InfiniBand."),
    (
        "gpu-fabric-match",
        "Match the GPU: H100/A100-class cards want 200 Gb/s or more (InfiniBand); RTX 4090 "
        "and A10 are fine on 100 Gb/s RoCE.",
    ),
    (
        "roce-pfc-ecn",
        "RoCE without PFC and ECN on the switches shows latency jitter: check the switches.",
    ),
)
_SEED_RULE_NUMBER = {name: number for number, (name, _) in enumerate(SEED_RULES, start=1)}
_EXTRA_RULES = {"tcp-ethernet": "Plain TCP Ethernet"}

#: Seed 004's fabric comparison (its own figures, quoted as data, not as physics).
SEED_FABRIC_TABLE: tuple[tuple[str, str, str], ...] = (
    ("Latency, one hop at 100 Gb/s", "<= 1.2 us", "<= 2.5 us"),
    ("Latency, one hop at 200 Gb/s", "<= 0.8 us", "<= 1.8 us"),
    ("32-card cross-node latency", "<= 3.5 us", "<= 8 us"),
    ("Link rate", "100/200/400 Gb/s (200 typical)", "100/200 Gb/s (100 typical)"),
    ("32-card aggregate bandwidth", "6.4 Tb/s", "3.2 Tb/s"),
    ("CPU use", "<= 2%", "<= 5%"),
    ("Switch (36 ports, 200G)", "about 80,000 CNY", "about 30,000 CNY"),
    ("NIC", "HCA about 12,000 CNY", "RDMA NIC about 5,000 CNY"),
    ("Scale", "thousands of nodes", "best at <= 16 cards; +60% latency from 16 to 32"),
    ("Needs", "dedicated IB switches and HCAs", "Ethernet switches with PFC and ECN"),
)
_SEED_MODELS = ("7B", "13B", "70B")

#: Chart colours by fabric family (readable on the light and the dark chart background).
FAMILY_COLORS = {"ib": "#2563eb", "roce": "#f28e2b", "eth": "#8c8c8c", "none": "#59a14f"}
FAMILY_NAMES = {
    "ib": QT_TRANSLATE_NOOP("PlanChart", "InfiniBand"),
    "roce": QT_TRANSLATE_NOOP("PlanChart", "RoCE"),
    "eth": QT_TRANSLATE_NOOP("PlanChart", "TCP Ethernet"),
    "none": QT_TRANSLATE_NOOP("PlanChart", "one node"),
}
FRONT_COLOR = "#dc2626"


def family(fabric: str) -> str:
    """``ib-hdr-200`` -> ``ib``; ``none`` stays ``none``."""
    return "none" if fabric == "none" else fabric.split("-", 1)[0]


def legend_html(families: Iterable[str], front: int) -> str:
    """The chart's key: one coloured dot per fabric family (with counts), and the front."""
    counts: dict[str, int] = {}
    for name in families:
        counts[name] = counts.get(name, 0) + 1
    parts = [
        f"<span style='color:{FAMILY_COLORS[name]}'>●</span> "
        f"{QCoreApplication.translate('PlanChart', FAMILY_NAMES[name])} ({counts[name]})"
        for name in ("none", "ib", "roce", "eth")
        if counts.get(name)
    ]
    if front:
        parts.append(
            f"<span style='color:{FRONT_COLOR}'>◇—</span> "
            + QCoreApplication.translate("PlanChart", "Pareto front ({n})").format(n=front)
        )
    return "&nbsp;&nbsp;&nbsp;".join(parts)


_STYLE = """
body { font-family: -apple-system, "Segoe UI", "Noto Sans", "PingFang SC", sans-serif;
       color: #111827; max-width: 1100px; margin: 32px auto; padding: 0 24px; line-height: 1.45; }
h1 { font-size: 26px; margin-bottom: 2px; } h2 { font-size: 19px; margin-top: 30px;
     border-bottom: 1px solid #e5e7eb; padding-bottom: 4px; }
.muted { color: #6b7280; } .note { background: #fffbeb; border: 1px solid #fde68a;
       padding: 6px 10px; border-radius: 6px; }
table { border-collapse: collapse; width: 100%; font-size: 13px; margin: 8px 0; }
th, td { border-bottom: 1px solid #e5e7eb; padding: 4px 6px; text-align: left;
         vertical-align: top; }
th { background: #f3f4f6; } td.num, th.num { text-align: right; white-space: nowrap; }
tr.front td:first-child { font-weight: 600; }
ul.why { margin: 0; padding-left: 16px; color: #374151; }
.box { background: #f9fafb; border: 1px solid #e5e7eb; border-radius: 8px; padding: 10px 14px; }
img.chart { max-width: 100%; border: 1px solid #e5e7eb; border-radius: 6px; }
"""


def _e(value: object) -> str:
    return html.escape(str(value), quote=True)


def _money(micros: int | None, currency: str) -> str:
    return "–" if micros is None else format_amount(micros, currency)


def _hours(seconds: float | None) -> str:
    if seconds is None:
        return "–"
    hours = seconds / 3600
    return f"{hours:,.1f} h" if hours < 72 else f"{hours:,.0f} h ({hours / 24:,.1f} days)"


def _shape(item: PlanOption | RejectedOption) -> str:
    return f"{item.gpus} × {item.gpu} ({item.nodes} × {item.gpus_per_node})"


def _one_line(option: PlanOption) -> str:
    return (
        f"{_shape(option)} on {option.fabric} from {option.provider} in {option.region}: "
        f"{_hours(option.seconds)}, {_money(option.cost_micro, option.currency)} "
        f"({format_amount(option.price_micro, option.currency)} per card-hour, {option.tier})"
    )


def _table(head: Sequence[str], rows: Iterable[Sequence[str]], numeric: set[int]) -> str:
    """Cells are HTML already (escaped by the caller)."""
    cells = "".join(
        f'<th class="num">{h}</th>' if i in numeric else f"<th>{h}</th>" for i, h in enumerate(head)
    )
    body = []
    for row in rows:
        tds = "".join(
            f'<td class="num">{c}</td>' if i in numeric else f"<td>{c}</td>"
            for i, c in enumerate(row)
        )
        body.append(f"<tr>{tds}</tr>")
    return f"<table><thead><tr>{cells}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def _request_rows(request: PlanRequest, currency: str) -> list[tuple[str, str]]:
    training = request.task.training
    rows = [("Task", request.task.value), ("Model size", size_label(request.params))]
    if training:
        tokens = size_label(request.training_tokens)
        rows.append(("Training tokens", tokens + (" (assumed)" if request.tokens_assumed else "")))
    else:
        rate = f"{request.target_rate:g} requests/s" + (
            " (assumed)" if request.rate is None else ""
        )
        rows.append(("Load (QPS)", rate))
        rows.append(("Serving time", _hours(request.serve_seconds)))
    rows.append(("Precision", request.precision.value))
    rows.append(("Context", f"{request.context:,} tokens"))
    if request.gpus_max == request.gpus_min:
        gpus = str(request.gpus_min)
    elif request.gpus_max is None:
        gpus = f"{request.gpus_min} or more" if request.gpus_min > 1 else "any"
    else:
        gpus = f"{request.gpus_min} to {request.gpus_max}"
    rows.append(("GPU count", gpus))
    rows.append(("GPU model", request.gpu or "any"))
    rows.append(("Fabric", request.fabric or "any"))
    if request.region:
        rows.append(("Region", request.region))
    if request.provider:
        rows.append(("Provider", request.provider))
    rows.append(
        ("Budget", _money(request.budget_micro, currency) if request.budget_micro else "none")
    )
    if training:
        rows.append(("Deadline", _hours(request.deadline_seconds)))
    rows.append(
        ("Ranked by", "time (fastest first)" if request.fastest else "cost (cheapest first)")
    )
    return rows


def _front_keys(result: PlanResult) -> set[tuple[str, str, int]]:
    return {o.key for o in result.pareto_front()}


def _reasons_html(option: PlanOption) -> str:
    items = "".join(f"<li>{_e(text)}</li>" for _, text in option.reasons)
    return f'<ul class="why">{items}</ul>' if items else ""


def _options_section(result: PlanResult, front: set[tuple[str, str, int]]) -> str:
    options = result.options[:MAX_OPTIONS]
    head = [
        "#",
        "GPU",
        "Cards",
        "Fabric",
        "Where",
        "Price/card-h",
        "Tier",
        "Time",
        "Cost",
        "GiB/GPU",
        "Util",
        "Why",
    ]
    rows = []
    for number, o in enumerate(options, start=1):
        mark = " ◆" if o.key in front else ""
        rows.append(
            [
                f"{number}{mark}",
                _e(o.gpu),
                _e(f"{o.nodes} × {o.gpus_per_node}"),
                _e(o.fabric),
                _e(f"{o.provider} / {o.region}"),
                _e(format_amount(o.price_micro, o.currency)),
                _e(o.tier),
                _e(_hours(o.seconds)),
                _e(_money(o.cost_micro, o.currency)),
                f"{o.memory_per_gpu_gb:.1f}",
                f"{o.utilization:.0%}",
                _reasons_html(o),
            ]
        )
    shown = len(options)
    total = len(result.options)
    order = "fastest first" if result.request.fastest else "cheapest first"
    intro = (
        f"<p>{total} of {result.considered} shapes fit ({order})"
        + (f"; the first {shown} are listed" if shown < total else "")
        + ". ◆ marks the options on the cost/time Pareto front. Util is "
        + ("MFU × fabric factor" if result.request.task.training else "load at the asked rate")
        + ".</p>"
    )
    return "<h2>Options</h2>" + intro + _table(head, rows, {0, 5, 7, 8, 9, 10})


def _rejected_section(result: PlanResult) -> str:
    rejected = result.rejected[:MAX_REJECTED]
    if not rejected:
        return ""
    rows = [
        [
            str(number),
            _e(r.gpu),
            _e(f"{r.nodes} × {r.gpus_per_node}"),
            _e(r.fabric),
            _e(f"{r.provider} / {r.region}"),
            _e(_hours(r.seconds)),
            _e(_money(r.cost_micro, r.currency)),
            _e(r.why),
        ]
        for number, r in enumerate(rejected, start=1)
    ]
    intro = (
        f"<p>{len(result.rejected)} shapes matched the filters but break a limit; "
        f"the {len(rejected)} closest and why:</p>"
    )
    head = ["#", "GPU", "Cards", "Fabric", "Where", "Time", "Cost", "Why not"]
    return "<h2>Shapes that do not fit</h2>" + intro + _table(head, rows, {0, 5, 6})


def _best_byfamily(options: Sequence[PlanOption]) -> dict[str, PlanOption]:
    """The first-ranked multi-node option of each fabric family."""
    best: dict[str, PlanOption] = {}
    for o in options:
        if o.nodes > 1:
            best.setdefault(family(o.fabric), o)
    return best


def _like_for_like(options: Sequence[PlanOption]) -> tuple[PlanOption, PlanOption] | None:
    """The best-ranked InfiniBand option with a RoCE option of the same GPU and size."""
    roce = {}
    for o in options:
        if o.nodes > 1 and family(o.fabric) == "roce":
            roce.setdefault((o.gpu, o.gpus, o.nodes), o)
    for o in options:
        if o.nodes > 1 and family(o.fabric) == "ib":
            match = roce.get((o.gpu, o.gpus, o.nodes))
            if match is not None:
                return o, match
    return None


def _compare(ib: PlanOption, roce: PlanOption) -> str:
    longer = roce.seconds / ib.seconds - 1
    cheaper = 1 - roce.cost_micro / ib.cost_micro if ib.cost_micro else 0.0
    time_text = (
        f"RoCE takes {longer:.0%} longer" if longer >= 0 else f"RoCE is {-longer:.0%} faster"
    )
    money_text = f"costs {cheaper:.0%} less" if cheaper >= 0 else f"costs {-cheaper:.0%} more"
    if cheaper >= 0 and longer <= 0.10:
        verdict = "RoCE is the better value here: nearly as fast, for less money."
    elif cheaper < 0 or longer > 0.25:
        verdict = "InfiniBand is the better choice here: RoCE loses too much time."
    else:
        verdict = (
            "A trade-off: RoCE saves money, InfiniBand saves time; take RoCE if the deadline "
            "allows, InfiniBand if time matters more."
        )
    return f"<p>{time_text} and {money_text} than InfiniBand. <b>{_e(verdict)}</b></p>"


def _fabric_section(result: PlanResult) -> str:
    options = list(result.options)
    parts = ["<h2>RoCE v2 or InfiniBand</h2>"]
    request = result.request
    best = result.best
    if best is not None and best.nodes == 1:
        single = next((t for r, t in best.reasons if r == "single-node"), "one node")
        parts.append(
            f"<p>The recommended option fits on one node ({_e(single)}): no inter-node "
            "fabric is needed and none is paid for. The comparison below matters if you "
            "choose a multi-node option.</p>"
        )
    by_family = _best_byfamily(options)
    ib, roce = by_family.get("ib"), by_family.get("roce")
    if ib is not None or roce is not None:
        rows = []
        for label, option in (
            ("InfiniBand", ib),
            ("RoCE v2", roce),
            ("TCP Ethernet", by_family.get("eth")),
        ):
            if option is None:
                continue
            rows.append(
                [
                    _e(label),
                    _e(_shape(option)),
                    _e(option.fabric),
                    _e(_hours(option.seconds)),
                    _e(_money(option.cost_micro, option.currency)),
                    f"{option.utilization:.0%}",
                ]
            )
        parts.append("<p>The best multi-node option on each fabric, for this request:</p>")
        parts.append(_table(["", "Shape", "Fabric", "Time", "Cost", "Util"], rows, {3, 4, 5}))
        pair = _like_for_like(options)
        if pair is not None:
            ib_same, roce_same = pair
            parts.append(
                f"<p>Like for like, {_e(_shape(ib_same))} on {_e(ib_same.fabric)} against "
                f"{_e(roce_same.fabric)}:</p>" + _compare(ib_same, roce_same)
            )
        elif ib is not None and roce is not None:
            parts.append(_compare(ib, roce))
        elif ib is None:
            parts.append("<p>No InfiniBand option fits this request's limits.</p>")
        else:
            parts.append("<p>No RoCE option fits this request's limits.</p>")
    else:
        parts.append("<p>No multi-node option fits this request, so the fabric does not arise.</p>")

    applied: dict[str, str] = {}
    for option in options[:MAX_OPTIONS]:
        for rule, text in option.reasons:
            if (rule in _SEED_RULE_NUMBER or rule in _EXTRA_RULES) and rule not in applied:
                applied[rule] = text
    if applied:
        items = "".join(
            f"<li><b>{_e(rule)}</b>: {_e(text)}</li>"
            for rule, text in sorted(
                applied.items(), key=lambda kv: _SEED_RULE_NUMBER.get(kv[0], 99)
            )
        )
        parts.append(
            "<p>Seed 004's rules as they apply to the options above (one example each):</p>"
            f"<ul>{items}</ul>"
        )
    what = f"{request.task.value} of a {size_label(request.params)} model"
    parts.append(
        '<div class="box"><p><b>The selection model</b> (seed 004): cluster size × task type × '
        f"budget. For this request, a {_e(what)}:</p><ol>"
        + "".join(
            f"<li>{'<b>' if name in applied else ''}{_e(text)}{'</b>' if name in applied else ''}"
            "</li>"
            for name, text in SEED_RULES
        )
        + '</ol><p class="muted">Rules in bold are the ones the planner applied to the '
        "options of this plan.</p></div>"
    )
    measured = [
        [
            f"{int(cards)}",
            _e(model),
            f"{util:.0%}",
            f"{ib_days:g}",
            f"{roce_days:g}",
            f"{roce_days / ib_days - 1:+.0%}",
        ]
        for cards, model, util, ib_days, roce_days in zip(
            SEED_CARDS, _SEED_MODELS, IB_UTILIZATION, IB_DAYS, ROCE_DAYS, strict=True
        )
    ]
    parts.append(
        "<p>Seed 004's training measurements (H100 80GB, 200 Gb/s, FP8), from which the "
        "planner's fabric factors are derived:</p>"
        + _table(
            ["Cards", "Model", "IB utilization", "IB days", "RoCE days", "RoCE vs IB time"],
            measured,
            {0, 2, 3, 4, 5},
        )
    )
    parts.append(
        "<p>Seed 004's comparison of the two fabrics:</p>"
        + _table(
            ["", "InfiniBand", "RoCE v2"],
            ([_e(a), _e(b), _e(c)] for a, b, c in SEED_FABRIC_TABLE),
            set(),
        )
    )
    return "".join(parts)


def _assumptions_section(outcome: PlanOutcome) -> str:
    result = outcome.result
    request = result.request
    items: list[str] = []
    if request.tokens_assumed:
        basis = (
            "20 tokens per parameter (Chinchilla)"
            if request.task.value == "pretrain"
            else "100M tokens for a fine-tune"
        )
        items.append(
            f"Training tokens: {size_label(request.training_tokens)} assumed ({basis}); "
            "none were given."
        )
    if not request.task.training and request.rate is None:
        items.append(f"Load: {request.target_rate:g} requests/s assumed; none was given.")
    assumed_prices = sum(
        1 for o in result.options[:MAX_OPTIONS] if any(r == "assumed-price" for r, _ in o.reasons)
    )
    if assumed_prices:
        items.append(
            f"Prices: {assumed_prices} of the listed options use an assumed price, not one the "
            "provider quoted; the quote before renting shows the live price."
        )
    if request.task.training:
        items.append(
            "Time = training FLOPs (6·N·D, 4·N·D for LoRA) / (GPUs × peak TFLOP/s × MFU × "
            f"fabric factor) + {SETUP_SECONDS // 60} minutes to bring the cluster up (seed 003), "
            "billed like the rest. MFU per GPU model is a single-node figure (llm-foundry's "
            "benchmarks for H100 and A100, assumptions for the others)."
        )
    else:
        items.append(
            "Serving capacity is memory-bound decode at 60% of the memory bandwidth, with "
            "batches small enough to keep each token under 100 ms (seed 004's commercial "
            "latency limit)."
        )
    items.append(
        "Fabric factors come from seed 004's tables above: InfiniBand relative utilization "
        "90/88/85% at 8/16/32 cards, RoCE run time 1.09/1.14/1.61 × InfiniBand's, "
        "interpolated over log2(cards) and extended beyond 32 cards; plain TCP Ethernet at "
        "40/92 of InfiniBand. One node needs no fabric (factor 1)."
    )
    items.append(
        "A GPU that wants more bandwidth than the fabric gives (200 Gb/s for NVLink-class "
        "cards) spends proportionally longer communicating; this scaling is an assumption, "
        "not a seed figure."
    )
    items.append(
        "Memory: only 90% of each card counts as usable; weights, gradients and optimizer "
        "state are sharded over all GPUs (ZeRO-3), activations fully checkpointed."
    )
    items.append(
        "Cost = cards × seconds × price per card-hour, billed per second, at the price the "
        "provider rents the offer at: on demand, unless its 30-day tier can be rented and is "
        "the cheaper bill. A tier that is only listed is named as what committing would cost, "
        "never used as the price."
    )
    items.append(
        "Seed figures are the vendor's own measurements and marketing numbers: the planner "
        "uses them as relative factors between fabrics, never as absolute speeds."
    )
    source = (
        "live offers from the providers"
        if outcome.offers_source == "live"
        else "the built-in catalog (a provider could not be reached)"
    )
    items.append(f"Offers: planned over {source}.")
    items += list(outcome.notes)
    return "<h2>Assumptions</h2><ul>" + "".join(f"<li>{_e(i)}</li>" for i in items) + "</ul>"


def _recommendation_section(result: PlanResult) -> str:
    if not result.options:
        why = result.unmatched or "every shape breaks a limit (see below)"
        return f'<h2>Recommendation</h2><p class="note">Nothing fits: {_e(why)}.</p>'
    best = result.options[0]
    front = result.pareto_front()
    fastest = min(result.options, key=lambda o: o.seconds)
    cheapest = min(result.options, key=lambda o: o.cost_micro)
    lines = [f"<p><b>Option 1</b>: {_e(_one_line(best))}.</p>"]
    if fastest.key != best.key:
        lines.append(f"<p>Fastest: {_e(_one_line(fastest))}.</p>")
    if cheapest.key != best.key:
        lines.append(f"<p>Cheapest: {_e(_one_line(cheapest))}.</p>")
    lines.append(
        f"<p>{len(front)} option{'s are' if len(front) != 1 else ' is'} on the Pareto front "
        "(nothing else is both cheaper and faster): "
        + "; ".join(
            _e(
                f"{o.gpus} × {o.gpu} on {o.fabric}, {_hours(o.seconds)}, "
                f"{_money(o.cost_micro, o.currency)}"
            )
            for o in front[:8]
        )
        + (" …" if len(front) > 8 else "")
        + ".</p>"
    )
    return "<h2>Recommendation</h2>" + "".join(lines)


def selection_report(
    outcome: PlanOutcome, chart_png: bytes | None, *, generated_at: float | None = None
) -> str:
    """The whole report as one HTML document (the chart inlined as a data URI)."""
    result = outcome.result
    request = result.request
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(generated_at or time.time()))
    title = f"GPU selection report: plan {outcome.plan_id}"
    parts = [
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">',
        f"<title>{_e(title)}</title><style>{_STYLE}</style></head><body>",
        f"<h1>{_e(title)}</h1>",
        f'<p class="muted">Made by XyClaw on {_e(when)} · {_e(describe_request(request))}</p>',
        "<h2>What was asked</h2>",
        _table(
            ["", ""], ([_e(k), _e(v)] for k, v in _request_rows(request, request.currency)), set()
        ),
        _recommendation_section(result),
    ]
    if chart_png:
        front = len(result.pareto_front())
        data = base64.b64encode(chart_png).decode("ascii")
        parts.append(
            "<h2>Cost against time</h2>"
            f'<img class="chart" alt="Cost against run time of every feasible option" '
            f'src="data:image/png;base64,{data}">'
            f'<p class="muted">{legend_html((family(o.fabric) for o in result.options), front)}'
            "<br>Every feasible option; the line joins the Pareto front, the options that no "
            "other option beats on both cost and time.</p>"
        )
    if result.options:
        parts.append(_options_section(result, _front_keys(result)))
    parts.append(_rejected_section(result))
    parts.append(_fabric_section(result))
    parts.append(_assumptions_section(outcome))
    parts.append(
        '<p class="muted">Prices change: renting any option goes through a fresh quote, '
        "shown for approval with its price per hour, estimated total, budget and expiry.</p>"
    )
    parts.append("</body></html>")
    return "\n".join(p for p in parts if p)
