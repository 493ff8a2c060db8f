"""``xyclaw plan``: what to rent for a job, what it costs and how long it takes, with reasons."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from xyclaw.errors import UsageError
from xyclaw.wording import said, worded

if TYPE_CHECKING:
    from xyclaw.cli.context import CliContext
    from xyclaw.engine.values import RequestError

TASKS = ("pretrain", "finetune-full", "finetune-lora", "inference")
PRECISIONS = ("bf16", "fp16", "fp8", "int8", "int4")
_REQUEST_FLAGS = (
    "task",
    "model_size",
    "tokens",
    "dataset_tokens",
    "epochs",
    "precision",
    "context",
    "rate",
    "prompt_tokens",
    "output_tokens",
    "duration",
    "gpus",
    "gpu",
    "region",
    "fabric",
    "provider",
    "budget",
    "currency",
    "deadline",
)


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "plan",
        help="pick GPU model, count, fabric and provider for a job; show cost and time",
        description=(
            "Rank what can be rented for a training or inference job by cost (or time), "
            "with the reasons for each option. Exit 0 with options, 1 when nothing fits, "
            "2 on bad input."
        ),
    )
    p.add_argument("--task", required=True, metavar="TASK", help=f"one of {', '.join(TASKS)}")
    p.add_argument("--model-size", required=True, metavar="S", help="parameters: 7B, 13b, 1.5e9")
    p.add_argument("--tokens", metavar="N", help="training tokens: 1B, 300M")
    p.add_argument("--dataset-tokens", metavar="N", help="dataset tokens (with --epochs)")
    p.add_argument("--epochs", metavar="E", help="passes over the dataset (with --dataset-tokens)")
    p.add_argument("--precision", metavar="P", help=f"one of {', '.join(PRECISIONS)} (bf16)")
    p.add_argument("--context", metavar="N", help="context length in tokens (4096)")
    p.add_argument("--rate", metavar="R", help="inference: target requests per second (1)")
    p.add_argument("--prompt-tokens", metavar="N", help="inference: prompt tokens per request")
    p.add_argument("--output-tokens", metavar="N", help="inference: output tokens per request")
    p.add_argument("--duration", metavar="T", help="inference: how long to serve, e.g. 24h (1h)")
    p.add_argument("--gpus", metavar="N|MIN-MAX", help="GPU count: 8, 8-32 or 16+")
    p.add_argument("--gpu", metavar="MODEL", help="GPU model: RTX4090, A800, H100, ...")
    p.add_argument("--budget", metavar="AMOUNT", help="most to spend, e.g. 500 or 500CNY")
    p.add_argument("--currency", metavar="CUR", help="currency of the budget (CNY)")
    p.add_argument("--deadline", metavar="T", help="training must finish within: 48h, 2d")
    p.add_argument("--region", metavar="R", help="Xiamen, Yinchuan, Ulanqab, ...")
    p.add_argument(
        "--fabric", metavar="F", help="ib, roce, eth, none, or a name such as ib-hdr-200"
    )
    p.add_argument("--provider", metavar="P", help="only this provider's offers")
    p.add_argument("--fastest", action="store_true", help="rank by time instead of cost")
    p.add_argument("--limit", metavar="N", default="10", help="options shown (10; 0 = all)")
    p.add_argument(
        "--offers",
        metavar="CSV",
        action="append",
        default=[],
        help="also consider the offers in this CSV file (repeatable)",
    )
    p.add_argument(
        "--no-memory",
        action="store_true",
        help="rank without your history of hosts and providers (`xyclaw hosts history`)",
    )
    p.add_argument("--json", action="store_true", help="print the plan as JSON")
    p.set_defaults(handler=_run)


def _flag(field: str) -> str:
    return "--" + field.replace("_", "-")


def _limit(text: str) -> int | None:
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise UsageError(said("cli.usage.limit_count", text=repr(text)))
    return None if value == 0 else value


def _flag_error(exc: RequestError) -> UsageError:
    """The planner's complaint about a field as a usage error naming its flag, in each
    language (the planner's Said kept)."""
    problem = exc.said or exc.message
    hint = exc.hint_said or exc.hint
    return UsageError(
        said("cli.usage.flag_problem", flag=_flag(exc.field), problem=problem), hint=hint
    )


def _run(args: argparse.Namespace, ctx: CliContext) -> int:
    from xyclaw.cli.render import print_plan
    from xyclaw.engine import Engine
    from xyclaw.engine.values import PlanRequest, RequestError
    from xyclaw.errors import CatalogError

    limit = _limit(args.limit)
    values = {name: getattr(args, name) for name in _REQUEST_FLAGS}
    try:
        request = PlanRequest.parse(**values, fastest=args.fastest)
    except RequestError as exc:
        raise _flag_error(exc) from None

    extra = []
    if args.offers:
        try:
            extra = [o for path in args.offers for o in Engine.load_offers_file(Path(path))]
        except CatalogError as exc:
            problem = said(
                "cli.usage.flag_problem", flag="--offers", problem=exc.said or exc.message
            )
            raise UsageError(problem, hint=exc.hint_said or exc.hint) from None
    # none named: the simulated cloud and every Slurm site of hosts.toml (the Engine's default)
    providers = [request.provider] if request.provider else None
    try:
        outcome = ctx.engine().plan(
            request, providers=providers, extra_offers=extra, use_memory=not args.no_memory
        )
    except RequestError as exc:
        raise _flag_error(exc) from None
    result = outcome.result
    said_notes = outcome.notes_said if len(outcome.notes_said) == len(outcome.notes) else []
    for note in said_notes or outcome.notes:
        ctx.warn(ctx.text("plan_note", text=worded(note, ctx.language)))

    if args.json:
        ctx.print_json(
            {
                "plan_id": outcome.plan_id,
                "offers_source": outcome.offers_source,
                **result.to_json(max_options=limit, max_rejected=limit),
            }
        )
        if not result.options and result.unmatched:
            unmatched = worded(result.unmatched_said or result.unmatched, ctx.language)
            ctx.warn(ctx.text("plan.nothing_fits_json", unmatched=unmatched))
    else:
        print_plan(ctx.out, result, limit=limit, language=ctx.language)
        if result.options:
            ctx.print("")
            ctx.print(ctx.text("plan_rent_hint", id=outcome.plan_id))
    return 0 if result.options else 1
