"""Telemetry from the command line: ``xyclaw top`` and ``xyclaw metrics export``."""

from __future__ import annotations

import argparse
import functools
import time
from typing import TYPE_CHECKING, Any

from xyclaw.cli.context import CliContext
from xyclaw.cli.render import TopScreen, print_top
from xyclaw.errors import UsageError
from xyclaw.wording import said

if TYPE_CHECKING:
    from xyclaw.engine import Engine
    from xyclaw.engine.values import ClusterRecord


def register(sub: Any) -> None:
    p = sub.add_parser(
        "top", help="live view of every GPU of a cluster, with the open alerts (like nvitop)"
    )
    p.add_argument("cluster", nargs="?", help="cluster id or name (default: the only live one)")
    p.add_argument("--once", action="store_true", help="print one view and exit")
    p.add_argument(
        "--json", action="store_true", help="JSON: the latest sample per GPU and the alerts"
    )
    p.add_argument("--refresh", type=float, help="seconds between views (default: sample interval)")
    p.add_argument("--wait", type=float, default=30.0, help="seconds to wait for the first samples")
    p.set_defaults(handler=_top)

    p = sub.add_parser("metrics", help="saved GPU and network metrics")
    actions = p.add_subparsers(dest="metrics_action", metavar="ACTION", required=True)
    e = actions.add_parser("export", help="samples or rollups of a cluster or job as CSV or JSON")
    which = e.add_mutually_exclusive_group(required=True)
    which.add_argument("--cluster", help="cluster id or name")
    which.add_argument("--job", type=int, help="job id (its cluster, while it ran)")
    e.add_argument("--since", help="30m, 6h, 2d... or an ISO time (default: everything)")
    e.add_argument("--format", choices=("csv", "json"), default="csv")
    e.add_argument(
        "--kind",
        choices=("gpu", "nic", "rollups"),
        default="gpu",
        help="raw GPU samples (default), NIC rates, or one-minute rollups",
    )
    e.add_argument("-o", "--output", help="write to this file instead of standard output")
    e.set_defaults(handler=_export)


# --- top -------------------------------------------------------------------------------------


def _pick_cluster(engine: Engine, ref: str | None) -> ClusterRecord:
    if ref:
        return engine.cluster(ref)
    live = [c for c in engine.clusters() if c.state == "ready"]
    if len(live) == 1:
        return live[0]
    if not live:
        raise UsageError(said("cli.usage.no_cluster_ready"), hint=said("cli.usage.rent_one"))
    names = ", ".join(c.name for c in live)
    raise UsageError(
        said("cli.usage.several_ready", names=names), hint=said("cli.usage.name_one_top")
    )


def _bar(value: float | None, width: int = 10) -> str:
    if value is None:
        return " " * width
    filled = round(max(0.0, min(100.0, value)) / 100 * width)
    return "#" * filled + "." * (width - filled)


def _cell(value: Any, fmt: str) -> str:
    return "-" if value is None else format(value, fmt)


def render(snap: dict[str, Any], language: str = "en") -> str:
    """The live view as text: one line per GPU, grouped by node, then the alerts."""
    from xyclaw.wording import text_in, worded

    def t(key: str, **values: object) -> str:
        return text_in(language, f"cli.{key}", **values)

    def col(name: str) -> str:
        return t(f"top_col_{name}")

    lines = [
        f"{snap['cluster']}  {time.strftime('%H:%M:%S', time.localtime(snap['ts']))}"
        + t("top_head", gpus=len(snap["gpus"]), alerts=len(snap["alerts"])),
        "",
        f"{col('node'):<22} {'gpu':>3} {col('util'):>5} {'':10} {col('mem'):>13} {col('temp'):>5}"
        f" {col('power'):>11} {col('sm'):>7} {col('throttle'):>9}",
    ]
    by_node: dict[str, list[dict[str, Any]]] = {}
    for g in snap["gpus"]:
        by_node.setdefault(g["node"], []).append(g)
    for node in snap["nodes"]:
        gpus = by_node.get(node["node"], [])
        if not gpus or node["state"] != "up":
            why = node.get("error") or t("top_no_samples")
            lines.append(f"{node['node']:<22} {node['state'].upper()}: {why}")
            if not gpus:
                continue
        for g in gpus:
            util = g["util"]
            used = None if g["mem_used_mib"] is None else g["mem_used_mib"] / 1024
            total = None if g["mem_total_mib"] is None else g["mem_total_mib"] / 1024
            mem = f"{_cell(used, '.1f')}/{_cell(total, '.0f')}"
            power = f"{_cell(g['power_w'], '.0f')}/{_cell(g['power_limit_w'], 'd')}"
            throttle = "-" if not g["throttle"] or g["throttle"] == 1 else f"0x{g['throttle']:x}"
            lines.append(
                f"{node['node']:<22} {g['gpu']:>3} {_cell(util, 'd'):>4}% {_bar(util)} {mem:>13}"
                f" {_cell(g['temp_c'], 'd'):>4}C {power:>11} {_cell(g['sm_mhz'], 'd'):>7}"
                f" {throttle:>9}"
            )
    lines.append("")
    if snap["alerts"]:
        from xyclaw.engine import Engine

        lines.append(t("top_open_alerts"))
        for a in snap["alerts"]:
            severity = Engine.severity_word(str(a["severity"]), language)
            message = worded(Engine.said_of(a) or str(a["message"]), language)
            action = worded(Engine.said_of(a, "action_said") or str(a["action"]), language)
            lines.append(f"  [{severity}] {message}")
            lines.append(f"      -> {action}")
    else:
        lines.append(t("top_no_alerts"))
    return "\n".join(lines)


def _top(args: argparse.Namespace, ctx: CliContext) -> int:
    import json

    engine = ctx.engine()
    cluster = _pick_cluster(engine, args.cluster)
    snap = engine.cluster_snapshot(str(cluster.id), wait_s=args.wait)
    if not snap["complete"]:
        wait = f"{args.wait:g}"
        ctx.warn(ctx.text("top_not_every_node", cluster=cluster.name, wait=wait))
        for node in snap["nodes"]:
            if node["state"] != "up":
                why = node.get("error") or ctx.text("top_no_samples")
                ctx.warn(f"  {node['node']}: {node['state']}: {why}")
    refresh = args.refresh or ctx.config.telemetry.sample_interval_s
    plain = functools.partial(render, language=ctx.language)
    if args.once:
        if args.json:
            ctx.print_json(snap)
        else:
            print_top(ctx.out, snap, plain, language=ctx.language)
        return 0 if snap["gpus"] else 1
    screen = TopScreen.open(ctx.out, plain, json=args.json, language=ctx.language)
    try:
        while True:
            if args.json:
                ctx.out.write(json.dumps(snap, default=str) + "\n")
            else:
                screen.show(snap)
            ctx.out.flush()
            time.sleep(refresh)
            snap = engine.cluster_snapshot(str(cluster.id))
    except KeyboardInterrupt:
        return 0
    finally:
        screen.close()


# --- metrics export --------------------------------------------------------------------------


def _export(args: argparse.Namespace, ctx: CliContext) -> int:
    import json

    from xyclaw.engine import Engine

    write_csv = Engine.write_metrics_csv

    export = ctx.engine().export_metrics(
        args.kind, cluster=args.cluster, job=args.job, since=args.since
    )
    cluster_name, start, end, rows = export.cluster, export.start, export.end, export.rows
    out = ctx.out
    opened = None
    if args.output:
        try:
            opened = open(args.output, "w", encoding="utf-8", newline="")  # noqa: SIM115
        except OSError as exc:
            raise UsageError(
                said("cli.usage.cannot_write", path=str(args.output), why=exc.strerror),
                hint=said("cli.usage.another_file"),
            ) from exc
        out = opened
    try:
        if args.format == "csv":
            count = write_csv(rows, export.columns, out)
        else:
            items = list(rows)
            count = len(items)
            doc = {
                "cluster": cluster_name,
                "cluster_id": export.cluster_id,
                "job": args.job,
                "kind": args.kind,
                "start": start,
                "end": end,
                "rows": items,
            }
            json.dump(doc, out, indent=1, default=str)
            out.write("\n")
    finally:
        if opened is not None:
            opened.close()
    if args.output:
        ctx.warn(ctx.text("metrics_wrote", count=count, path=args.output))
    elif count == 0:
        ctx.warn(ctx.text("metrics_none", kind=args.kind, cluster=cluster_name))
    return 0
