"""Renting from the command line: offers, up, clusters, exec, down, billing."""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from xyclaw.cli.context import CliContext
from xyclaw.errors import UsageError


def register(sub: Any) -> None:
    p = sub.add_parser("offers", help="what the provider rents, at what price, what is free")
    p.add_argument("--gpu", help="only this GPU model (e.g. A800)")
    p.add_argument("--provider", default="sim", help="provider (default: sim)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=_offers)

    p = sub.add_parser("up", help="rent a cluster, bootstrap it, and print its nodes")
    p.add_argument("--gpu", required=True, help="GPU model, e.g. A800, RTX4090, H100")
    p.add_argument("--gpus", required=True, type=int, help="number of GPUs in all")
    p.add_argument("--region", help="e.g. Xiamen, Yinchuan, Ulanqab")
    p.add_argument("--fabric", help="ib-hdr-200, ib-ndr-400, roce-100, roce-200, eth-25, none")
    p.add_argument("--budget", help="stop and release when this much is spent (CNY)")
    p.add_argument("--provider", default="sim", help="sim, ssh (your hosts) or local")
    p.add_argument("--image", default="pytorch-2.1", help="image setup to run on each node")
    p.add_argument("--name", help="a name for the cluster")
    p.add_argument(
        "--keep-partial", action="store_true", help="keep the nodes that came up if some fail"
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
        "billing", help="cost per cluster: the app's meter and the provider's ledger"
    )
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=_billing)

    p = sub.add_parser("guard", help="stay running: reconcile, meter, budgets and idle release")
    p.add_argument("--once", action="store_true", help="one pass, then exit")
    p.set_defaults(handler=_guard)


def _money(micros: int, currency: str) -> str:
    from xyclaw.catalog import format_amount

    return format_amount(micros, currency)


def _offers(args: argparse.Namespace, ctx: CliContext) -> int:
    from xyclaw.catalog import normalise_gpu_name

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
                }
                for o in offers
            ]
        )
        return 0
    if not offers:
        ctx.print("no offers" + (f" for {gpu}" if gpu else ""))
        return 1
    ctx.print(
        f"{'region':<10} {'gpu':<9} {'cards':<14} {'fabric':<11} {'per card-h':>11} {'free':>6}"
    )
    for o in offers:
        counts = ",".join(str(c) for c in o.gpu_counts)
        free = "-" if o.available_gpus is None else str(o.available_gpus)
        ctx.print(
            f"{o.region:<10} {o.gpu:<9} {counts:<14} {o.fabric:<11} "
            f"{_money(o.price_micro, o.currency):>11} {free:>6}"
        )
    return 0


def _pick_offer(ctx: CliContext, args: argparse.Namespace, gpu: str) -> Any:
    offers = [
        o
        for o in ctx.engine().offers(args.provider, gpu)
        if args.gpus in o.gpu_counts
        and (args.region is None or o.region.lower() == args.region.lower())
        and (args.fabric is None or o.fabric == args.fabric)
    ]
    if not offers:
        raise UsageError(
            f"no {args.provider} offer has {args.gpus} x {gpu}"
            + (f" in {args.region}" if args.region else "")
            + (f" on {args.fabric}" if args.fabric else ""),
            hint="`xyclaw offers --gpu " + gpu + "` lists what can be rented",
        )
    with_room = [o for o in offers if o.available_gpus is None or o.available_gpus >= args.gpus]
    return min(with_room or offers, key=lambda o: o.price_micro)


def _up(args: argparse.Namespace, ctx: CliContext) -> int:
    from xyclaw.catalog import normalise_gpu_name, parse_amount
    from xyclaw.cli.progress import follow
    from xyclaw.engine.lifecycle import UpRequest

    if args.gpus < 1:
        raise UsageError("--gpus must be 1 or more")
    try:
        budget = parse_amount(args.budget) if args.budget else None
    except ValueError as exc:
        raise UsageError(f"--budget: {exc}") from exc
    gpu = normalise_gpu_name(args.gpu)
    engine = ctx.engine()
    _reconcile(ctx)
    offer = _pick_offer(ctx, args, gpu)
    hourly = offer.price_micro * args.gpus
    ctx.warn(
        f"{args.gpus} x {gpu} on {offer.fabric} in {offer.region} from {offer.provider}: "
        f"{_money(offer.price_micro, offer.currency)} per card-hour, "
        f"{_money(hourly, offer.currency)} per hour in all, billed per second"
        + (f"; released at a budget of {_money(budget, offer.currency)}" if budget else "")
    )
    if not args.yes:
        if not sys.stdin.isatty():
            raise UsageError("renting costs money: confirm with --yes when not at a terminal")
        answer = input("Rent it? [y/N] ").strip().lower()
        if answer not in ("y", "yes"):
            ctx.warn("nothing rented")
            return 1
    request = UpRequest(
        provider=args.provider,
        gpu=gpu,
        gpu_count=args.gpus,
        region=offer.region,
        fabric=offer.fabric,
        gpus_per_node=offer.gpus_per_node,
        budget_micros=budget,
        image=args.image,
        name=args.name,
        keep_partial=args.keep_partial,
        price_per_gpu_hour_micros=offer.price_micro,
        currency=offer.currency,
    )
    cluster = follow(engine, lambda: engine.up(request))
    if args.json:
        ctx.print_json(cluster.to_json())
        return 0
    ctx.print(f"cluster {cluster.id} {cluster.name}: {cluster.state}")
    for node in cluster.nodes:
        where = f"{node.ssh_user}@{node.ssh_host}:{node.ssh_port}" if node.ssh_host else "-"
        ctx.print(f"  node {node.rank} {node.name:<20} {node.state:<10} ssh {where}")
    return 0


def _reconcile(ctx: CliContext) -> None:
    """What every renting command does first: compare the providers with the store."""
    report = ctx.engine().reconcile()
    for error in report.errors:
        ctx.warn(f"warning: could not check {error}")
    for name in report.orphans_released:
        ctx.warn(f"released orphan {name} (it billed but XyClaw did not expect it)")
    for name in report.orphans_reported:
        ctx.warn(f"ORPHAN {name} bills but is not XyClaw's: release it if it is not yours")
    for name in report.interrupted_released:
        ctx.warn(f"released {name}: its set-up was interrupted")
    for name in report.releases_completed:
        ctx.warn(f"finished releasing {name}")
    for name in report.gone:
        ctx.warn(f"{name} is gone from its provider")


def _clusters(args: argparse.Namespace, ctx: CliContext) -> int:
    from xyclaw.billing import billed_spans, cost_so_far

    engine = ctx.engine()
    _reconcile(ctx)
    now = time.time()
    clusters = engine.list_clusters(include_released=args.all)
    if args.json:
        ctx.print_json(
            [{**c.to_json(), "cost": cost_so_far(billed_spans(c), now) / 1e6} for c in clusters]
        )
        return 0
    if not clusters:
        ctx.print("no clusters" + ("" if args.all else " running (use --all for past ones)"))
        return 0
    ctx.print(
        f"{'id':>4} {'name':<26} {'state':<13} {'gpus':<12} {'fabric':<11} {'cost so far':>13}"
    )
    for c in clusters:
        cost = _money(cost_so_far(billed_spans(c), now), c.currency)
        ctx.print(
            f"{c.id:>4} {c.name:<26} {c.state:<13} {f'{c.gpu_count}x{c.gpu}':<12} {c.fabric:<11} "
            f"{cost:>13}"
        )
    return 0


def _exec(args: argparse.Namespace, ctx: CliContext) -> int:
    argv = list(args.argv)
    if argv and argv[0] == "--":
        argv = argv[1:]
    if not argv:
        raise UsageError("no command given", hint="xyclaw exec CLUSTER -- nvidia-smi -L")
    import shlex

    from xyclaw.remote import CommandResult

    command = argv[0] if len(argv) == 1 else shlex.join(argv)
    results = ctx.engine().exec(args.cluster, command, timeout=args.timeout)
    worst = 0
    for node, result in results.items():
        if isinstance(result, CommandResult):
            for line in result.stdout.splitlines():
                ctx.print(f"{node}: {line}")
            for line in result.stderr.splitlines():
                ctx.warn(f"{node}: {line}")
            if result.truncation_note:
                ctx.warn(f"{node}: ({result.truncation_note})")
            if result.exit_code:
                ctx.warn(f"{node}: exit {result.exit_code}")
            worst = max(worst, min(result.exit_code, 125))
        else:
            ctx.warn(f"{node}: error: {result}")
            worst = max(worst, 255)
    return worst


def _down(args: argparse.Namespace, ctx: CliContext) -> int:
    from xyclaw.cli.progress import follow

    engine = ctx.engine()
    _reconcile(ctx)
    cluster = engine.cluster(args.cluster)
    if not args.yes:
        if not sys.stdin.isatty():
            raise UsageError(f"releasing {cluster.name} destroys its machines: confirm with --yes")
        if input(f"Release {cluster.name}? [y/N] ").strip().lower() not in ("y", "yes"):
            return 1
    released = follow(engine, lambda: engine.down(args.cluster))
    ctx.print(f"cluster {released.id} {released.name}: {released.state}")
    return 0


def _billing(args: argparse.Namespace, ctx: CliContext) -> int:
    from xyclaw.errors import XyclawError

    engine = ctx.engine()
    _reconcile(ctx)
    engine.charge_meters()
    ledgers: dict[str, dict[str, int]] = {}
    for name in {c.provider_id for c in engine.list_clusters(include_released=True)}:
        try:
            provider = engine.providers.get(name)
            if provider.capabilities.billing_ledger:
                totals: dict[str, int] = {}
                for entry in provider.billing():
                    key = entry.cluster_external_id
                    totals[key] = totals.get(key, 0) + entry.amount_micros
                ledgers[name] = totals
        except XyclawError as exc:
            ctx.warn(f"warning: {name}'s ledger is unavailable: {exc.message}")
    rows = []
    for c in engine.list_clusters(include_released=True):
        meter = engine.meter_charges(c.id)
        ledger = ledgers.get(c.provider_id, {}).get(c.external_id or "")
        rows.append((c, meter, ledger))
    if args.json:
        ctx.print_json(
            {
                "clusters": [
                    {
                        "id": c.id,
                        "name": c.name,
                        "state": c.state,
                        "currency": c.currency,
                        "meter": meter / 1e6,
                        "provider_ledger": None if ledger is None else ledger / 1e6,
                        "meter_micros": meter,
                        "provider_ledger_micros": ledger,
                    }
                    for c, meter, ledger in rows
                ],
                "total_meter": sum(m for _, m, _ in rows) / 1e6,
            }
        )
        return 0
    ctx.print(f"{'id':>4} {'name':<26} {'state':<10} {'meter':>13} {'provider':>13}")
    for c, meter, ledger in rows:
        theirs = "-" if ledger is None else _money(ledger, c.currency)
        ctx.print(
            f"{c.id:>4} {c.name:<26} {c.state:<10} {_money(meter, c.currency):>13} {theirs:>13}"
        )
    ctx.print(f"total (meter): {_money(sum(m for _, m, _ in rows), 'CNY')}")
    return 0


def _guard(args: argparse.Namespace, ctx: CliContext) -> int:
    engine = ctx.engine()
    if args.once:
        engine.reconcile()
        engine.tick()
        return 0
    ctx.warn(
        f"guarding: reconcile, meter, budgets and idle release every "
        f"{ctx.config.reconcile.interval_s:.0f}s (Ctrl-C to stop)"
    )
    engine.start_maintenance()
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        return 0
