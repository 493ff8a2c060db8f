"""Network tuning from the command line: `xyclaw nccl analyze LOG` and `xyclaw tune CLUSTER`."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from xyclaw.cli.context import CliContext
from xyclaw.errors import ParseError, UsageError
from xyclaw.wording import said

if TYPE_CHECKING:
    from xyclaw.engine.values import LogAnalysis, Measurement, TuneResult, Verdict


def register(sub: Any) -> None:
    p = sub.add_parser("nccl", help="NCCL and nccl-tests tools")
    p.set_defaults(handler=_nccl_usage)
    nccl = p.add_subparsers(dest="nccl_command", metavar="SUBCOMMAND")
    a = nccl.add_parser(
        "analyze",
        help="read an nccl-tests log (text or -J JSON) and judge its bus bandwidth",
        description="Rows, peak and average bus bandwidth, the transport NCCL used and a "
        "verdict against what the fabric should give.",
    )
    a.add_argument("logfile", help="the output of all_reduce_perf (or its -J JSON file)")
    a.add_argument("--nodes", type=int, help="nodes the test ran on (default: from the log)")
    a.add_argument("--gpus-per-node", type=int, help="GPUs per node (default: from the log)")
    a.add_argument("--fabric", help="ib-hdr-200, ib-ndr-400, roce-100, roce-200, eth-25 ...")
    a.add_argument("--nics", type=int, help="RDMA NICs per node (default: from NCCL INFO lines)")
    a.add_argument("--gpu", help="GPU model when the log does not name it (e.g. A800)")
    a.add_argument("--json", action="store_true")
    a.set_defaults(handler=_analyze)

    p = sub.add_parser(
        "tune",
        help="probe a cluster's network, set NCCL right and prove it with nccl-tests",
        description="Probe the fabric, measure with nccl-tests, try the recommended NCCL "
        "settings, keep the better and store them for the cluster's jobs. Progress goes to "
        "stderr.",
    )
    p.add_argument("cluster", help="cluster id or name")
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=_tune)


def _nccl_usage(args: argparse.Namespace, ctx: CliContext) -> int:
    raise UsageError(said("cli.usage.nccl_subcommand"), hint=said("cli.usage.nccl_try"))


def _gbs(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f} GB/s"


def _size(nbytes: int) -> str:
    for unit, div in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if nbytes >= div and nbytes % div == 0:
            return f"{nbytes // div} {unit}"
    return f"{nbytes} B"


def _print_verdict(ctx: CliContext, verdict: Verdict, indent: str = "") -> None:
    from xyclaw.wording import worded

    lang = ctx.language
    ctx.print(ctx.text("verdict", indent=indent, text=worded(verdict.headline_said(), lang)))
    if verdict.expectation is not None:
        basis = verdict.expectation.basis_said or verdict.expectation.basis
        ctx.print(ctx.text("verdict_expected", indent=indent, text=worded(basis, lang)))
    for cause in verdict.causes:
        title = worded(cause.title_said or cause.title, lang)
        detail = worded(cause.detail_said or cause.detail, lang)
        ctx.print(ctx.text("verdict_cause", indent=indent, title=title, detail=detail))
        ctx.print(
            ctx.text("verdict_fix", indent=indent, fix=worded(cause.fix_said or cause.fix, lang))
        )
    for note in verdict.notes_said or verdict.notes:
        ctx.print(ctx.text("verdict_note", indent=indent, text=worded(note, lang)))


def _analyze(args: argparse.Namespace, ctx: CliContext) -> int:
    from xyclaw.engine import Engine

    path = Path(args.logfile).expanduser()
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        raise UsageError(
            said("cli.usage.no_such_file", path=str(path)), hint=said("cli.usage.nccl_log_hint")
        ) from None
    except OSError as exc:
        raise UsageError(
            said("cli.usage.cannot_read", path=str(path), why=exc.strerror or str(exc))
        ) from exc
    try:
        analysis = Engine.analyze_nccl_log(
            text,
            nodes=args.nodes,
            gpus_per_node=args.gpus_per_node,
            fabric=args.fabric,
            gpu=args.gpu,
            nics=args.nics,
        )
    except ParseError as exc:
        raise ParseError(
            said("cli.usage.in_file", path=str(path), message=exc.said or exc.message),
            hint=said("cli.usage.nccl_output_hint"),
        ) from exc
    if args.json:
        ctx.print_json({"file": str(path), **analysis.to_json()})
        return 0
    _print_analysis(ctx, path, analysis)
    return 0


def _print_analysis(ctx: CliContext, path: Path, a: LogAnalysis) -> None:
    from xyclaw.wording import worded

    run = a.run
    t = ctx.text
    shape = t("nccl_ranks", count=run.n_ranks) if run.n_ranks else t("nccl_ranks_unknown")
    if a.nodes:
        shape += t("nccl_on_nodes", count=a.nodes)
    if a.gpus_per_node:
        shape += t("nccl_per_node", count=a.gpus_per_node)
    ctx.print(t("nccl_head", path=path, collective=run.collective or "test", shape=shape))
    details = []
    if a.gpu:
        details.append(f"GPU {a.gpu}")
    if run.nccl_version:
        details.append(f"NCCL {run.nccl_version}")
    if run.version:
        details.append(f"nccl-tests {run.version}")
    if details:
        ctx.print("  " + ", ".join(details))
    net = run.net
    if net.transport:
        devices = " ".join(f"{d.name}" for d in net.devices) or "-"
        gdr = ctx.text(
            {True: "nccl_gdr_on", False: "nccl_gdr_off", None: "nccl_gdr_unknown"}[net.gdr]
        )
        ctx.print(ctx.text("nccl_transport", transport=net.transport, devices=devices, gdr=gdr))
        if net.socket_fallback:
            ctx.print(ctx.text("nccl_socket"))
    else:
        ctx.print(ctx.text("nccl_no_transport"))
    ctx.print("")
    columns = {
        name: ctx.text(f"nccl_col_{name}")
        for name in ("size", "count", "type", "out", "in", "wrong")
    }
    columns["inp"] = columns.pop("in")
    ctx.print(ctx.text("nccl_header", **columns))
    for r in run.rows:
        out_bus = "-" if r.out_busbw is None else f"{r.out_busbw:.2f}"
        wrong = "n/a" if r.wrong is None else f"{r.wrong:g}"
        ctx.print(
            f"  {_size(r.size):>10} {r.count:>12} {r.type:>8} {out_bus:>10} {r.in_busbw:>10.2f} "
            f"{wrong:>7}"
        )
    ctx.print("")
    peak_row = max(run.rows, key=lambda r: r.peak_busbw) if run.rows else None
    at = ctx.text("nccl_peak_at", size=_size(peak_row.size)) if peak_row else ""
    ctx.print(ctx.text("nccl_peak", value=_gbs(run.peak_busbw), at=at))
    recomputed = run.recomputed_avg_busbw
    footer = f"{run.avg_busbw:g} GB/s" if run.avg_busbw is not None else ctx.text("nccl_cut_off")
    ctx.print(ctx.text("nccl_average", footer=footer, rows=_gbs(recomputed)))
    if run.out_of_bounds is not None:
        state = "OK" if run.out_of_bounds_ok else "FAILED"
        ctx.print(ctx.text("nccl_bounds", count=run.out_of_bounds, state=state))
    if run.truncated:
        ctx.print(ctx.text("nccl_truncated"))
    if len(a.runs) > 1:
        ctx.print(ctx.text("nccl_runs", count=len(a.runs)))
    _print_verdict(ctx, a.verdict, "  ")
    for note in a.notes_said or a.notes:
        ctx.print(ctx.text("verdict_note", indent="", text=worded(note, ctx.language)))


def _tune(args: argparse.Namespace, ctx: CliContext) -> int:
    from xyclaw.cli.progress import follow

    engine = ctx.engine()
    result = follow(engine, lambda: engine.tune(args.cluster), ctx.err, ctx.language)
    if args.json:
        ctx.print_json(result.to_json())
        return 0
    _print_tune(ctx, result)
    return 0


def _print_measurement(ctx: CliContext, title: str, m: Measurement) -> None:
    if m.env:
        ctx.print(f"{title} " + " ".join(f"{k}={v}" for k, v in sorted(m.env.items())))
    else:
        image = " ".join(f"{k}={v}" for k, v in sorted(m.effective_env.items()))
        shown = ctx.text("tune_image", image=image) if image else ""
        ctx.print(ctx.text("tune_defaults", title=title, image=shown))
    _print_verdict(ctx, m.verdict, "  ")


def _print_tune(ctx: CliContext, r: TuneResult) -> None:
    from xyclaw.wording import worded

    lang, t = ctx.language, ctx.text
    s = r.report.summary
    report = r.report
    ctx.print(t("tune_cluster", name=r.cluster_name, fabric=report.fabric, nodes=report.node_count))
    rest = (
        (t("tune_rate", gbps=f"{s.nic_rate_gbps:g}") if s.nic_rate_gbps else "")
        + (t("tune_gid", gid=s.roce_gid_index) if s.roce_gid_index is not None else "")
        + (t("tune_gdr", distance=s.gdr_distance) if s.gdr_distance else "")
    )
    hcas = ", ".join(s.hcas) or t("tune_none")
    ctx.print(t("tune_fabric", transport=s.transport, hcas=hcas, rest=rest))
    said_findings = s.findings_said if len(s.findings_said) == len(s.findings) else s.findings
    for finding in said_findings:  # a stored report from before: its English
        ctx.print(t("tune_finding", text=worded(finding, lang)))
    ctx.print("")
    _print_measurement(ctx, t("tune_before"), r.baseline)
    if r.candidate is not None:
        _print_measurement(ctx, t("tune_recommended"), r.candidate)
    ctx.print("")
    ctx.print(worded(r.decision_said or r.decision, lang))
    if r.changes:
        ctx.print(t("tune_changed"))
        for change in r.changes:
            ctx.print(f"  {worded(change.describe_said(), lang)}")
    ctx.print(t("tune_environment"))
    if not r.environment:
        ctx.print(t("tune_no_environment"))
    for name, value in sorted(r.environment.items()):
        ctx.print(f"  {name}={value}")
    for note in r.recommended.notes_said or r.recommended.notes:
        ctx.print(t("tune_note", text=worded(note, lang)))
