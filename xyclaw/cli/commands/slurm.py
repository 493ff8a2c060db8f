"""``xyclaw slurm``: a lab's Slurm cluster (a [[slurm]] table of hosts.toml), through its own
scheduler: the queue, XyClaw's jobs there, submit, logs, cancel (after a yes)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from xyclaw.cli.context import CliContext
from xyclaw.wording import said


def register(sub: Any) -> None:
    p = sub.add_parser("slurm", help="a Slurm cluster from hosts.toml: queue, jobs, submit, cancel")
    sp = p.add_subparsers(dest="slurm_command", required=True)

    q = sp.add_parser("queue", help="the GPUs free now and the wait Slurm expects, per partition")
    q.add_argument("site", help="the [[slurm]] name in hosts.toml")
    q.add_argument("--nodes", type=int, default=1)
    q.add_argument("--gpus-per-node", type=int, default=0, help="default: any")
    q.add_argument("--gpu", help="only partitions with this GPU model")
    q.set_defaults(handler=_queue)

    j = sp.add_parser("jobs", help="XyClaw's jobs at the site (never another user's)")
    j.add_argument("site")
    j.set_defaults(handler=_jobs)

    s = sp.add_parser("submit", help="submit a job spec or SkyPilot task with sbatch")
    s.add_argument("site")
    s.add_argument("spec", help="a job spec file (XyClaw's or a SkyPilot task YAML)")
    s.add_argument("--partition", help="default: the first that fits")
    s.add_argument("--yes", action="store_true", help="do not ask")
    s.set_defaults(handler=_submit)

    g = sp.add_parser("logs", help="the per-rank output of one of XyClaw's jobs")
    g.add_argument("site")
    g.add_argument("job", help="the Slurm job id")
    g.add_argument("--lines", type=int, default=200)
    g.set_defaults(handler=_logs)

    c = sp.add_parser("cancel", help="scancel one of XyClaw's jobs (asks first)")
    c.add_argument("site")
    c.add_argument("job", help="the Slurm job id")
    c.add_argument("--yes", action="store_true", help="do not ask")
    c.set_defaults(handler=_cancel)

    # issue 33 (c33): the fabric probe through Slurm, whose NCCL settings the site's jobs get
    b = sp.add_parser(
        "probe", help="probe the fabric on the nodes through Slurm and keep NCCL settings (asks)"
    )
    b.add_argument("site")
    b.add_argument("--partition", help="default: the one with the most GPUs per node")
    b.add_argument("--yes", action="store_true", help="do not ask")
    b.set_defaults(handler=_probe)


def _queue(args: argparse.Namespace, ctx: CliContext) -> int:
    waits = ctx.engine().slurm_queue(
        args.site, nodes=args.nodes, gpus_per_node=args.gpus_per_node, gpu=args.gpu
    )
    if not waits:
        ctx.print(ctx.text("slurm_no_shape"))
        return 1
    for w in waits:
        shape = ctx.text(
            "slurm_shape", nodes=w.nodes, gpus=w.gpus_per_node or ctx.text("slurm_any")
        )
        words = w.words_said.in_language(ctx.language)
        ctx.print(
            ctx.text(
                "slurm_queue_line",
                partition=w.partition,
                free=w.free_gpus,
                shape=shape,
                words=words,
            )
        )
    return 0


def _jobs(args: argparse.Namespace, ctx: CliContext) -> int:
    from xyclaw.cli.render import remote_text

    for v in ctx.engine().slurm_jobs(args.site, fresh=True):
        reason = f" ({v.reason})" if v.reason else ""  # Slurm's own reason word (Resources)
        if v.expected_start:
            reason += ctx.text("slurm_starts_about", when=v.expected_start)
        if v.node_problems:
            reason += " [" + "; ".join(v.node_problems) + "]"
        hours = ctx.text("slurm_gpu_hours", hours=v.gpu_hours) if v.exit else ""
        line = ctx.text(
            "slurm_job_line",
            job_id=v.job_id,
            name=v.name,
            state=v.state,  # Slurm's state word (RUNNING, PENDING), as squeue prints it
            reason=reason,
            partition=v.partition,
            nodes=v.nodes,
            hours=hours,
        )
        ctx.print(remote_text(ctx.out, line))
    return 0


def _submit(args: argparse.Namespace, ctx: CliContext) -> int:
    from xyclaw.cli.render import remote_text
    from xyclaw.errors import UsageError
    from xyclaw.wording import worded

    engine = ctx.engine()
    for line in engine.slurm_limits(args.site, args.spec, partition=args.partition):
        # what bounds the job, before it is submitted (its names and values from the site)
        ctx.warn(remote_text(ctx.err, worded(line, ctx.language)))
    card = engine.slurm_submit_card(args.site, args.spec, partition=args.partition, asked_by="user")
    for key, value in card.rows():
        ctx.warn(remote_text(ctx.err, f"  {key}: {value}"))
    if not args.yes:
        if not sys.stdin.isatty():
            raise UsageError(said("cli.slurm_submit_confirm"))
        if input(ctx.text("slurm_submit_ask")).strip().lower() not in ("y", "yes"):
            ctx.warn(ctx.text("slurm_nothing_submitted"))
            return 1
    view = engine.slurm_submit(args.site, args.spec, approved=card)
    ctx.print(
        ctx.text("slurm_submitted", job_id=view.job_id, site=args.site, partition=view.partition)
    )
    ctx.print(ctx.text("slurm_folder", folder=view.folder))
    return 0


def _logs(args: argparse.Namespace, ctx: CliContext) -> int:
    from xyclaw.cli.render import remote_text

    for name, text in ctx.engine().slurm_logs(args.site, args.job, lines=args.lines).items():
        ctx.print(f"==> {name} <==")
        ctx.print(remote_text(ctx.out, text).rstrip("\n"))
    return 0


def _cancel(args: argparse.Namespace, ctx: CliContext) -> int:
    from xyclaw.errors import UsageError

    engine = ctx.engine()
    card = engine.slurm_cancel_card(args.site, args.job)
    for key, value in card.rows():
        ctx.warn(f"  {key}: {value}")
    if not args.yes:
        if not sys.stdin.isatty():
            raise UsageError(said("cli.slurm_cancel_confirm"))
        if input(ctx.text("slurm_cancel_ask")).strip().lower() not in ("y", "yes"):
            ctx.warn(ctx.text("slurm_nothing_cancelled"))
            return 1
    view = engine.slurm_cancel(args.site, args.job, approved=card)
    ctx.print(f"{view.job_id}  {view.state}")
    return 0


def _probe(args: argparse.Namespace, ctx: CliContext) -> int:
    """Run XyClaw's fabric probe on the site's nodes as a short Slurm job (after a yes) and
    keep the NCCL settings it recommends for the jobs submitted there."""
    from xyclaw.cli.progress import follow
    from xyclaw.cli.render import remote_text
    from xyclaw.errors import UsageError
    from xyclaw.wording import worded

    engine = ctx.engine()
    card = engine.slurm_probe_card(args.site, args.partition)
    for key, value in card.rows():
        ctx.warn(remote_text(ctx.err, f"  {key}: {value}"))
    if not args.yes:
        if not sys.stdin.isatty():
            raise UsageError(ctx.text("slurm_probe_confirm"))
        if input(ctx.text("slurm_probe_ask")).strip().lower() not in ("y", "yes"):
            ctx.warn(ctx.text("slurm_probe_nothing"))
            return 1
    probe = follow(
        engine, lambda: engine.slurm_probe(args.site, approved=card), ctx.err, ctx.language
    )
    done = ctx.text(
        "slurm_probe_done",
        site=probe.site,
        nodes=", ".join(probe.nodes),
        job_id=probe.job_id,
        transport=probe.transport,
    )
    ctx.print(remote_text(ctx.out, done))  # node and interface names come from the nodes
    for setting in probe.settings.settings:
        reason = worded(setting.reason_said or setting.reason, ctx.language)
        line = ctx.text("slurm_setting", name=setting.name, value=setting.value, reason=reason)
        ctx.print(remote_text(ctx.out, line))
    notes = probe.settings.notes_said or probe.settings.notes
    for note in (*notes, *probe.worded_findings()):
        ctx.warn(remote_text(ctx.err, f"  {worded(note, ctx.language)}"))
    ctx.print(
        ctx.text("slurm_probe_kept", site=probe.site)
        if probe.settings.settings
        else ctx.text("slurm_probe_none")
    )
    return 0
