"""Plain-text views of a plan: the options table with a line of reasons each, and the rejects."""

from __future__ import annotations

from collections.abc import Sequence

from xyclaw.catalog.money import format_amount
from xyclaw.planner.request import PlanRequest
from xyclaw.planner.result import PlanOption, PlanResult, RejectedOption
from xyclaw.planner.rules import size_label
from xyclaw.wording import reason_in, text_in


def text(language: str, key: str, **values: object) -> str:
    """A line of the plan's report: the command line's entry ``cli.<key>``."""
    return text_in(language, f"cli.{key}", **values)


def _header(language: str, starts: bool = False) -> str:
    def t(key: str) -> str:
        return text(language, key)

    return (
        f"{'#':>3}  {t('col_gpu'):<9} {t('col_cards'):>6}  {t('col_fabric'):<11}"
        f" {t('col_provider_region'):<18} {t('col_price_h'):>8} {t('col_hours'):>8}"
        f" {t('col_cost'):>14} {'GiB/GPU':>8} {'util':>5}"
        + (f"  {t('col_starts')}" if starts else "")
    )


def starts_text(option: PlanOption, language: str = "en") -> str:
    """When an option would start: "now", "~40 min", or "queued" (issue 33)."""
    if option.runs_now:
        return text(language, "plan_starts_now")
    if option.wait_minutes is None:
        return text(language, "plan_starts_unknown")
    return text(language, "plan_starts_wait", minutes=option.wait_minutes)


def when_text(option: PlanOption, language: str = "en") -> str:
    """When an option would start, in a sentence's words ("in about 40 min")."""
    if option.runs_now:
        return text(language, "plan_when_now")
    if option.wait_minutes is None:
        return text(language, "plan_when_unknown")
    return text(language, "plan_when_wait", minutes=option.wait_minutes)


def side_by_side(options: Sequence[PlanOption], language: str = "en") -> str | None:
    """The best option of a scheduler's queue next to the best rented one ("the lab's
    A100s in about 40 min, or Lambda's H100s now for 61 USD"); None unless the plan has both."""
    queue = next((o for o in options if o.queued), None)
    rent = next((o for o in options if not o.queued), None)
    if queue is None or rent is None:
        return None
    return text(
        language,
        "plan_side_by_side",
        queue_provider=queue.provider,
        queue_gpus=queue.gpus,
        queue_gpu=queue.gpu,
        queue_when=when_text(queue, language),
        queue_cost=format_amount(queue.cost_micro, queue.currency),
        rent_provider=rent.provider,
        rent_gpus=rent.gpus,
        rent_gpu=rent.gpu,
        rent_cost=format_amount(rent.cost_micro, rent.currency),
    )


def worded_reasons(option: PlanOption, language: str = "en") -> list[tuple[str, str]]:
    """An option's (rule, reason), each reason worded in ``language`` ("en" or "zh")."""
    figures = option.reason_figures or ({},) * len(option.reasons)
    return [
        (rule, reason_in(language, rule, english, found))
        for (rule, english), found in zip(option.reasons, figures, strict=False)
    ]


def reasons_line(option: PlanOption, language: str = "en") -> str:
    """An option's reasons joined, worded in ``language`` ("en" or "zh")."""
    texts = [text for _, text in worded_reasons(option, language)]
    return ("；" if language == "zh" else "; ").join(texts)


def describe_request(request: PlanRequest) -> str:
    parts = [f"{request.task.value} {size_label(request.params)}"]
    if request.task.training:
        tokens = size_label(request.training_tokens)
        parts.append(f"{tokens} tokens" + (" (assumed)" if request.tokens_assumed else ""))
    else:
        rate = f"{request.target_rate:g} req/s" + (" (assumed)" if request.rate is None else "")
        parts.append(f"{rate} for {request.serve_seconds / 3600:g} h")
    parts.append(f"{request.precision.value}, context {request.context}")
    limits: list[str] = []
    if request.gpus_max == request.gpus_min:
        limits.append(f"{request.gpus_min} GPU" + ("s" if request.gpus_min > 1 else ""))
    elif request.gpus_max is not None or request.gpus_min > 1:
        upper = "" if request.gpus_max is None else str(request.gpus_max)
        limits.append(f"{request.gpus_min}-{upper} GPUs" if upper else f"{request.gpus_min}+ GPUs")
    for label, value in (
        ("GPU", request.gpu),
        ("region", request.region),
        ("fabric", request.fabric),
        ("provider", request.provider),
    ):
        if value:
            limits.append(f"{label} {value}")
    if request.budget_micro is not None:
        limits.append(f"budget {format_amount(request.budget_micro, request.currency)}")
    if request.deadline_seconds is not None and request.task.training:
        limits.append(f"deadline {request.deadline_seconds / 3600:g} h")
    if request.fastest:
        limits.append("fastest first")
    return ", ".join(parts) + (" | " + ", ".join(limits) if limits else "")


def _row(number: int, item: PlanOption | RejectedOption) -> str:
    hours = item.hours
    cost = item.cost_micro
    utilization = item.utilization
    cards = f"{item.nodes}x{item.gpus_per_node}"
    place = f"{item.provider}/{item.region}"
    return (
        f"{number:>3}  {item.gpu:<9} {cards:>6}  {item.fabric:<11} {place:<18}"
        f" {format_amount(item.price_micro):>8}"
        f" {'-' if hours is None else f'{hours:.1f}':>8}"
        f" {'-' if cost is None else format_amount(cost, item.currency):>14}"
        f" {item.memory_per_gpu_bytes / (1 << 30):>8.1f}"
        f" {'-' if utilization is None else f'{utilization:.0%}':>5}"
    )


def options_table(options: Sequence[PlanOption], language: str = "en") -> list[str]:
    starts = any(o.queued for o in options)  # a Slurm partition among them: when each starts
    lines = [_header(language, starts)]
    why = text(language, "plan_why")
    for number, option in enumerate(options, start=1):
        row = _row(number, option)
        lines.append(row + (f"  {starts_text(option, language)}" if starts else ""))
        lines.append(f"     {why}: " + reasons_line(option, language))
        spot = spot_line(option, language)
        if spot:
            lines.append(f"     {spot}")
    return lines


def spot_line(option: PlanOption, language: str = "en") -> str | None:
    """The saving and the risk of running the option as spot, where its offer has spot."""
    spot, rate = option.spot_cost_micro, option.spot_preemptions_per_day
    if spot is None or option.cost_micro <= 0:
        return None
    percent = round(100 * (option.cost_micro - spot) / option.cost_micro)
    per_day = rate or 0.0
    return text(
        language,
        "plan_spot",
        cost=format_amount(spot, option.currency),
        percent=percent,
        rate=f"{per_day:g}",
        expected=per_day * option.seconds / 86400,
    )


def rejected_table(rejected: Sequence[RejectedOption], language: str = "en") -> list[str]:
    lines = [_header(language)]
    label = text(language, "plan_rejected")
    for number, item in enumerate(rejected, start=1):
        lines.append(_row(number, item))
        lines.append(f"     {label}: " + item.why)
    return lines


def render(result: PlanResult, *, limit: int | None = 10, language: str = "en") -> list[str]:
    """The text the ``xyclaw plan`` command prints, in ``language`` ("en" or "zh")."""
    lines = [text(language, "plan_for", what=describe_request(result.request))]
    if result.unmatched:
        why = result.unmatched_said.in_language(language) if result.unmatched_said else None
        lines.append(text(language, "plan_nothing_fits", why=why or result.unmatched))
        return lines
    shown = len(result.options) if limit is None else min(limit, len(result.options))
    if result.options:
        fastest = result.request.fastest and result.request.task.training
        order = text(language, "plan_fastest" if fastest else "plan_cheapest")
        util = text(
            language, "plan_util_train" if result.request.task.training else "plan_util_serve"
        )
        lines.append(
            text(
                language,
                "plan_fit",
                fit=len(result.options),
                considered=result.considered,
                order=order,
                shown=shown,
                util=util,
            )
        )
        compared = side_by_side(result.options[:50], language)
        if compared:
            lines.append(compared)
        lines.extend(options_table(result.options[:shown], language))
        return lines
    closest = len(result.rejected) if limit is None else min(limit, len(result.rejected))
    lines.append(text(language, "plan_all_break", considered=result.considered, closest=closest))
    lines.extend(rejected_table(result.rejected[:closest], language))
    return lines
