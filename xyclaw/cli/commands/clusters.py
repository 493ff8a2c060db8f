"""Renting from the command line: offers, up, clusters, exec, down, billing."""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from xyclaw.cli.context import CliContext
from xyclaw.cli.render import (
    BILLING_COLUMNS,
    CLUSTER_COLUMNS,
    OFFER_COLUMNS,
    print_table,
    remote_text,
    state_word,
)
from xyclaw.errors import UsageError
from xyclaw.wording import said, said_of, worded
from xyclaw.wording.display import line


def _gpu_count(text: str) -> int:
    """``--gpus``: at most what the planner plans for, said with the range (not as "beyond a
    64-bit integer"); 0 or less is refused with the other checks of what to rent."""
    from xyclaw.cli.words import argument_problem
    from xyclaw.engine.values import MOST_GPUS

    try:
        value = int(text)
    except ValueError:
        problem = argument_problem("%(text)s is not a whole number", text=repr(text[:30]))
        raise argparse.ArgumentTypeError(problem) from None
    if value > MOST_GPUS:
        raise argparse.ArgumentTypeError(
            argument_problem(
                "%(text)s is more GPUs than XyClaw rents; give 1 to %(most)s",
                text=text[:30],
                most=f"{MOST_GPUS:,}",
            )
        )
    return value


def register(sub: Any) -> None:
    p = sub.add_parser("offers", help="what the provider rents, at what price, what is free")
    p.add_argument("--gpu", help="only this GPU model (e.g. A800)")
    p.add_argument("--provider", default="sim", help="provider (default: sim)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=_offers)

    p = sub.add_parser(
        "up",
        help="rent a plan option or what you name, bootstrap it, print its nodes",
    )
    p.add_argument("--plan", type=int, help="rent an option of this plan (see `xyclaw plan`)")
    p.add_argument("--option", type=int, help="which option of the plan, 1 = the first")
    p.add_argument("--gpu", help="GPU model, e.g. A800, RTX4090, H100")
    p.add_argument("--gpus", type=_gpu_count, help="number of GPUs in all")
    p.add_argument("--region", help="e.g. Xiamen, Yinchuan, Ulanqab")
    p.add_argument("--fabric", help="ib-hdr-200, ib-ndr-400, roce-100, roce-200, eth-25, none")
    p.add_argument("--budget", help="stop and release when this much is spent (CNY)")
    p.add_argument("--provider", default="sim", help="sim, ssh (your hosts) or local")
    p.add_argument(
        "--image",
        help="image setup to run on each node (default: pytorch-2.1 on rented machines, none on"
        " your own hosts)",
    )
    p.add_argument("--name", help="a name for the cluster")
    p.add_argument(
        "--keep-partial", action="store_true", help="keep the nodes that came up if some fail"
    )
    p.add_argument(
        "--spot",
        action="store_true",
        help="rent it as spot where the provider has spot: cheaper, but it may be taken back"
        " with a short notice (the quote says the saving and the risk)",
    )
    p.add_argument("--yes", action="store_true", help="do not ask before renting")
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=_up)

    p = sub.add_parser("clusters", help="your clusters, after reconciling with the providers")
    p.add_argument("--all", action="store_true", help="include released and gone clusters")
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=_clusters)

    p = sub.add_parser("exec", help="run a command on every node of a cluster")
    p.add_argument("cluster", help="cluster id or name")
    p.add_argument("argv", nargs=argparse.REMAINDER, help="-- COMMAND...")
    p.add_argument("--timeout", type=float, default=None, help="seconds the command may run")
    p.set_defaults(handler=_exec)

    p = sub.add_parser("down", help="release a cluster and wait until the provider confirms")
    p.add_argument("cluster", help="cluster id or name")
    p.add_argument("--yes", action="store_true", help="do not ask")
    p.set_defaults(handler=_down)

    p = sub.add_parser(
        "forget",
        help="forget a cluster its provider no longer lists (check the provider's console"
        " first: it may still bill); it is metered until you answer",
    )
    p.add_argument("cluster", help="cluster id or name")
    p.add_argument(
        "--yes", action="store_true", help="do not ask (you checked the provider's console)"
    )
    p.set_defaults(handler=_forget)

    p = sub.add_parser(
        "billing", help="cost per cluster: the app's meter and the provider's ledger"
    )
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=_billing)

    p = sub.add_parser(
        "budget", help="change a live cluster's budget (its provider's deadline moves with it)"
    )
    p.add_argument("cluster", help="cluster id or name")
    p.add_argument("amount", help="the new budget (e.g. 50 or 50CNY), or `none` to remove it")
    p.set_defaults(handler=_set_budget)


def _money(micros: int, currency: str) -> str:
    from xyclaw.catalog.money import format_amount

    return format_amount(micros, currency)


def _offers(args: argparse.Namespace, ctx: CliContext) -> int:
    from xyclaw.catalog.names import normalise_gpu_name

    gpu = normalise_gpu_name(args.gpu) if args.gpu else None
    offers = ctx.engine().offers(args.provider, gpu)
    if args.json:
        ctx.print_json(
            [
                {
                    "provider": o.provider,
                    "offer_id": o.offer_id,
                    "region": o.region,
                    "gpu": o.gpu,
                    "gpus_per_node": o.gpus_per_node,
                    "gpu_counts": list(o.gpu_counts),
                    "fabric": o.fabric,
                    "price_per_gpu_hour": o.price_micro / 1e6,
                    "price_30d_per_gpu_hour": None
                    if o.price_30d_micro is None
                    else o.price_30d_micro / 1e6,
                    "currency": o.currency,
                    "available_gpus": o.available_gpus,
                    "host": o.host or None,
                    "community": o.community,
                }
                for o in offers
            ]
        )
        return 0
    if not offers:
        ctx.print(ctx.text("no_offers_for", gpu=gpu) if gpu else ctx.text("no_offers"))
        return 1
    rows = []
    for o in offers:
        counts = ",".join(str(c) for c in o.gpu_counts)
        free = "-" if o.available_gpus is None else str(o.available_gpus)
        rows.append((o.region, o.gpu, counts, o.fabric, _money(o.price_micro, o.currency), free))
    print_table(ctx.out, OFFER_COLUMNS, rows, language=ctx.language)
    for o in offers:  # a Slurm partition: its nodes' states, time limit and wait (issue 33)
        if o.offer_id.startswith("slurm-") and o.note:
            ctx.print("  " + remote_text(ctx.out, o.note))  # read from the site's sinfo
    if args.provider:
        for offer_id, why in ctx.engine().offers_left_out_said(args.provider):
            # the offer id comes from the marketplace's answer, the reason from XyClaw
            line = ctx.text(
                "offer_left_out",
                provider=args.provider,
                offer=offer_id,
                why=worded(why, ctx.language),
            )
            ctx.print(remote_text(ctx.out, line))
    return 0


def _quote(args: argparse.Namespace, ctx: CliContext) -> Any:
    """The quote `up` asks the user to approve: an option of a saved plan, or named resources."""
    from xyclaw.catalog.names import normalise_gpu_name
    from xyclaw.engine.lifecycle import UpRequest

    engine = ctx.engine()
    if args.plan is not None:
        if args.gpu or args.gpus:
            raise UsageError(said("cli.usage.plan_or_gpu"))
        option = args.option or 1
        quote = (
            engine.quote_spot(args.plan, option) if args.spot else engine.quote(args.plan, option)
        )
        changes: dict[str, Any] = {}
        if args.budget:
            changes["budget_micros"] = _budget(args.budget)
        if args.name:
            changes["name"] = args.name
        if args.image:
            changes["image"] = args.image
        return quote.with_changes(**changes) if changes else quote
    if not args.gpu or args.gpus is None:
        raise UsageError(said("cli.usage.what_to_rent"), hint=said("cli.usage.plan_shows"))
    if args.gpus < 1:
        raise UsageError(said("cli.usage.gpus_one_or_more"))
    return engine.quote_request(
        UpRequest(
            provider=args.provider,
            gpu=normalise_gpu_name(args.gpu),
            gpu_count=args.gpus,
            region=args.region,
            fabric=args.fabric,
            budget_micros=_budget(args.budget) if args.budget else None,
            image=args.image,
            name=args.name,
            spot=args.spot,
        )
    )


def _budget(text: str) -> int:
    from xyclaw.catalog.money import parse_amount

    try:
        return parse_amount(text)
    except ValueError as exc:
        raise UsageError(
            said("cli.usage.flag_problem", flag="--budget", problem=said_of(exc))
        ) from exc


def _up(args: argparse.Namespace, ctx: CliContext) -> int:
    from xyclaw.cli.progress import follow

    engine = ctx.engine()
    _reconcile(ctx)
    quote = _quote(args, ctx)
    ctx.warn(quote.describe(ctx.language))
    if not args.yes:
        if not sys.stdin.isatty():
            raise UsageError(ctx.text("up_needs_yes"))
        answer = input(ctx.text("up_question")).strip().lower()
        if answer not in ("y", "yes"):
            ctx.warn(ctx.text("up_nothing"))
            return 1
    cluster = follow(
        engine,
        lambda: engine.up(quote, keep_partial=args.keep_partial),
        language=ctx.language,
    )
    if args.json:
        ctx.print_json(cluster.to_json())
        return 0
    state = state_word(ctx.language, cluster.state)
    ctx.print(ctx.text("cluster_state", id=cluster.id, name=cluster.name, state=state))
    for node in cluster.nodes:
        if not node.ssh_host:
            where = "-"
        elif node.ssh_port is None:  # your own host: an ssh alias or user@host:port as written
            where = node.ssh_host
        else:
            where = f"{node.ssh_user or 'root'}@{node.ssh_host}:{node.ssh_port}"
        ctx.print(
            ctx.text(
                "node_line",
                rank=node.rank,
                name=f"{node.name:<20}",
                state=f"{state_word(ctx.language, node.state):<10}",
                where=where,
            )
        )
    return 0


def _reconcile(ctx: CliContext) -> None:
    """What every renting command does first: compare the providers with the store."""
    from xyclaw.wording import text_in

    report = ctx.engine().reconcile()
    said_errors = report.errors_said if len(report.errors_said) == len(report.errors) else []
    for error in said_errors or report.errors:
        ctx.warn(ctx.text("reconcile.not_checked", error=line(worded(error, ctx.language))))
    lines = (
        ("orphan_released", report.orphans_released),
        ("orphan", report.orphans_reported),
        ("interrupted", report.interrupted_released),
        ("finished", report.releases_completed),
        ("gone", report.gone),
    )
    for key, names in lines:
        for name in names:
            ctx.warn(ctx.text(f"reconcile.{key}", name=line(name)))  # an orphan's: its provider's

    for cluster in ctx.engine().unlisted_clusters():  # asked until the user answers
        ctx.warn(
            text_in(
                ctx.language,
                "op.unlisted",
                provider=cluster.provider_id,
                external=line(cluster.external_id or "-"),
                cluster=line(cluster.name),
            )
        )


def _clusters(args: argparse.Namespace, ctx: CliContext) -> int:
    from xyclaw.engine import Engine

    cost_so_far = Engine.cost_so_far
    engine = ctx.engine()
    _reconcile(ctx)
    now = time.time()
    clusters = engine.clusters(include_released=args.all)
    if args.json:
        ctx.print_json([{**c.to_json(), "cost": cost_so_far(c, now) / 1e6} for c in clusters])
        return 0
    if not clusters:
        ctx.print(ctx.text("no_clusters" if args.all else "no_clusters_running"))
        return 0
    rows = []
    for c in clusters:
        cost = _money(cost_so_far(c, now), c.currency)
        state = state_word(ctx.language, c.state)
        rows.append((c.id, c.name, state, f"{c.gpu_count}x{c.gpu}", c.fabric, cost))
    print_table(ctx.out, CLUSTER_COLUMNS, rows, language=ctx.language)
    for c in clusters:  # issue 31: a host run by someone the provider does not vouch for
        if c.host_community:
            ctx.print(
                ctx.text(
                    "cluster_community",
                    name=line(c.name),
                    provider=c.provider_id,
                    host=line(c.host or "?"),  # what the marketplace said of the host
                )
            )
    for c in clusters:  # what went wrong, as the provider or XyClaw said it (issue 35, c35q)
        failed = [(c.name, c.error_said or c.error)] if c.error else []
        failed += [(n.name, n.error_said or n.error) for n in c.nodes if n.error]
        for name, error in failed:
            ctx.print(
                ctx.text("cluster_error", name=line(name), error=line(worded(error, ctx.language)))
            )
    return 0


def _exec(args: argparse.Namespace, ctx: CliContext) -> int:
    argv = list(args.argv)
    if "--" in argv:  # `exec CLUSTER --timeout 5 -- CMD`: options between cluster and --
        cut = argv.index("--")
        head, argv = argv[:cut], argv[cut + 1 :]
        while head:
            if head[0] == "--timeout" and len(head) >= 2:
                args.timeout, head = _seconds(head[1]), head[2:]
            elif head[0] == "--trust-new-host":
                ctx.trust_new_host, head = True, head[1:]
            else:
                raise UsageError(
                    said("cli.usage.unexpected_before", words=repr(" ".join(head))),
                    hint="xyclaw exec CLUSTER [--timeout SECONDS] [--trust-new-host] -- COMMAND",
                )
    if not argv:
        raise UsageError(said("cli.usage.no_command"), hint="xyclaw exec CLUSTER -- nvidia-smi -L")
    import shlex

    from xyclaw.engine.values import CommandResult

    command = argv[0] if len(argv) == 1 else shlex.join(argv)
    results = ctx.engine().exec(args.cluster, command, timeout=args.timeout)
    worst = 0
    for node, result in results.items():
        if isinstance(result, CommandResult):
            for output_line in result.stdout.splitlines():
                ctx.print(f"{node}: {remote_text(ctx.out, output_line)}")
            for output_line in result.stderr.splitlines():
                ctx.warn(f"{node}: {remote_text(ctx.err, output_line)}")
            if result.stdout_truncated or result.stderr_truncated:
                streams = (
                    ctx.text("exec.both")
                    if result.stdout_truncated and result.stderr_truncated
                    else ("stdout" if result.stdout_truncated else "stderr")
                )
                ctx.warn(ctx.text("exec.cut", node=node, streams=streams, cap=result.cap_bytes))
            if result.exit_code:
                ctx.warn(ctx.text("exec.exit", node=node, code=result.exit_code))
            worst = max(worst, min(result.exit_code, 125))
        else:
            ctx.warn(ctx.text("exec.error", node=node, error=_error_text(result, ctx.language)))
            worst = max(worst, 255)
    return worst


def _error_text(error: object, language: str) -> str:
    """A node's error as ``str()`` gives it (message and hint), in ``language``."""
    from xyclaw.errors import XyclawError

    if not isinstance(error, XyclawError):
        return str(error)
    message, hint = error.in_language(language)
    return message if hint is None else f"{message}\n  -> {hint}"


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0 < value < 10**9:
        raise UsageError(said("cli.usage.timeout_seconds", text=repr(text)))
    return value


def _down(args: argparse.Namespace, ctx: CliContext) -> int:
    from xyclaw.cli.progress import follow

    engine = ctx.engine()
    _reconcile(ctx)
    cluster = engine.cluster(args.cluster)
    if not args.yes:
        if not sys.stdin.isatty():
            raise UsageError(ctx.text("down_needs_yes", name=cluster.name))
        if input(ctx.text("down_question", name=cluster.name)).strip().lower() not in ("y", "yes"):
            return 1
    released = follow(engine, lambda: engine.down(args.cluster), language=ctx.language)
    state = state_word(ctx.language, released.state)
    ctx.print(ctx.text("cluster_state", id=released.id, name=released.name, state=state))
    return 0


def _forget(args: argparse.Namespace, ctx: CliContext) -> int:
    """The user's answer to "forget it?" for a cluster its provider no longer lists."""
    engine = ctx.engine()
    _reconcile(ctx)  # checks the listing again: a cluster listed again has no question
    card = engine.action("forget", args.cluster, asked_by="user")
    name = line(card.of_kind("cluster")[0].name)
    cluster = engine.cluster(str(card.ids("cluster")[0]))
    per_hour = _money(int(card.price["per_hour_micros"]), cluster.currency)
    if not args.yes:
        if not sys.stdin.isatty():
            raise UsageError(ctx.text("forget_needs_yes", name=name))
        question = ctx.text(
            "forget_question",
            name=name,
            provider=cluster.provider_id,
            external=line(cluster.external_id or "-"),
            per_hour=per_hour,
        )
        if input(question).strip().lower() not in ("y", "yes"):
            ctx.print(ctx.text("forget_kept", name=name))
            return 1
    forgotten = engine.forget(card)
    state = state_word(ctx.language, forgotten.state)
    ctx.print(ctx.text("cluster_state", id=forgotten.id, name=forgotten.name, state=state))
    return 0


def _billing(args: argparse.Namespace, ctx: CliContext) -> int:
    engine = ctx.engine()
    _reconcile(ctx)
    report = engine.billing()
    said_warnings = (
        report.warnings_said if len(report.warnings_said) == len(report.warnings) else []
    )
    for warning in said_warnings or report.warnings:
        ctx.warn(ctx.text("warning", text=worded(warning, ctx.language)))
    if args.json:
        ctx.print_json(report.to_json())
        return 0
    rows = []
    for b in report.clusters:
        ledger = b.provider_ledger_micros
        theirs = "-" if ledger is None else _money(ledger, b.currency)
        state = state_word(ctx.language, b.state)
        rows.append((b.cluster_id, b.name, state, _money(b.meter_micros, b.currency), theirs))
    print_table(ctx.out, BILLING_COLUMNS, rows, language=ctx.language)
    for b in report.clusters:
        _bill_lines(ctx, b)
    totals = report.totals or {"CNY": 0}
    amounts = ", ".join(_money(amount, cur) for cur, amount in sorted(totals.items()))
    ctx.print(ctx.text("billing_total", amounts=amounts))
    return 0


def _bill_lines(ctx: CliContext, bill: Any) -> None:
    """A cluster's bandwidth line, and what XyClaw metered against what the provider charged
    (a warning where they differ by more than the set share)."""
    from xyclaw.engine.reports import CHARGE_TOLERANCE

    if bill.bandwidth_micros:
        amount = _money(bill.bandwidth_micros, bill.currency)
        ctx.print(
            ctx.text("billing_bandwidth", name=bill.name, provider=bill.provider, amount=amount)
        )
    if bill.storage_micros:
        amount = _money(bill.storage_micros, bill.currency)
        ctx.print(
            ctx.text("billing_storage", name=bill.name, provider=bill.provider, amount=amount)
        )
    metered = _money(bill.metered_micros, bill.currency)
    figures = {"name": bill.name, "provider": bill.provider, "metered": metered}
    if bill.charges == "charged" and bill.provider_ledger_micros is not None:
        charged = _money(bill.provider_ledger_micros, bill.currency)
        if bill.differs:
            share = round(CHARGE_TOLERANCE * 100)
            ctx.warn(ctx.text("billing_differs", **figures, charged=charged, share=share))
        else:
            ctx.print(ctx.text("billing_compare", **figures, charged=charged))
        return
    key = {
        "unavailable": "billing_charges_unavailable",
        "no_line": "billing_no_line",
    }.get(bill.charges, "billing_no_charges")
    ctx.print(ctx.text(key, **figures))


def _set_budget(args: argparse.Namespace, ctx: CliContext) -> int:
    engine = ctx.engine()
    amount = None if args.amount.strip().lower() in ("none", "off", "0") else _budget(args.amount)
    cluster = engine.set_budget(args.cluster, amount)
    spent = _money(_spent(cluster), cluster.currency)
    if amount is None:
        ctx.print(ctx.text("budget_none", name=cluster.name, spent=spent))
    else:
        amount_text = _money(amount, cluster.currency)
        ctx.print(ctx.text("budget_set", name=cluster.name, amount=amount_text, spent=spent))
    return 0


def _spent(cluster: Any) -> int:
    from xyclaw.engine import Engine

    return Engine.cost_so_far(cluster, time.time())
