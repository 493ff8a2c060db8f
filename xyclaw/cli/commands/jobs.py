"""Jobs from the command line: launch, serve, jobs, jobs show, logs, cancel."""

from __future__ import annotations

import argparse
import sys
import time
from typing import TYPE_CHECKING, Any

from xyclaw.cli.context import CliContext
from xyclaw.cli.render import Column, print_table, remote_text
from xyclaw.errors import UsageError
from xyclaw.wording import said, worded
from xyclaw.wording.display import line, text

if TYPE_CHECKING:
    from xyclaw.engine import Engine
    from xyclaw.engine.values import JobRecord

JOB_COLUMNS = (
    Column("id", 4, right=True, key="col_id"),
    Column("name", 22, key="col_name"),
    Column("state", 12, key="col_state"),
    Column("try", 3, right=True, key="col_try"),
    Column("cluster", 18, key="col_cluster"),
    Column("step", 13, right=True, key="col_step"),
    Column("loss", 8, right=True, key="col_loss"),
    Column("eta", 8, right=True, key="col_eta"),
    Column("cost so far", 13, right=True, key="col_cost_so_far"),
)
_EXIT = {"succeeded": 0, "failed": 1, "cancelled": 130}


def register(sub: Any) -> None:
    for name, what in (
        ("launch", "run a job spec on a cluster (renting one first when the spec asks)"),
        ("serve", "run a service spec and print its local URL; forwards until Ctrl-C"),
    ):
        p = sub.add_parser(name, help=what)
        p.add_argument("spec", help="a job spec file (docs/jobs.md) or a sample's name")
        p.add_argument("--cluster", help="run on this cluster (id or name)")
        p.add_argument("--yes", action="store_true", help="rent without asking, if it rents")
        p.add_argument("--json", action="store_true", help="print the job as JSON once it runs")
        if name == "launch":
            p.add_argument(
                "--detach", action="store_true", help="return once it runs; do not follow"
            )
            p.add_argument(
                "--dry-run",
                action="store_true",
                help="say what would run where, and the quote; rent and run nothing",
            )
        p.set_defaults(handler=_launch if name == "launch" else _serve)

    p = sub.add_parser("jobs", help="your jobs: state, attempt, progress, ETA, cost")
    p.add_argument(
        "action",
        nargs="?",
        choices=["show", "results", "why"],
        help="show one job in detail; results: cost per result and MFU per job, then per"
        " provider, GPU model and month; why: why a job is stuck (every rank asked for its"
        " Flight Recorder dump)",
    )
    p.add_argument("job", nargs="?", help="the job (id or name) for `show` and `why`")
    p.add_argument("--all", action="store_true", help="include finished jobs")
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=_jobs)

    p = sub.add_parser("logs", help="a job's stored log; -f follows it")
    p.add_argument("job", help="job id or name")
    p.add_argument("-f", "--follow", action="store_true", help="keep printing new lines")
    p.add_argument("--rank", type=int, help="only this global rank")
    p.add_argument("--node", help="only this node (name or node rank)")
    p.add_argument("--attempt", type=int, help="only this attempt")
    p.add_argument("--tail", type=int, help="only the last N lines")
    p.add_argument("--setup", action="store_true", help="the setup's output, not the run's")
    p.set_defaults(handler=_logs)

    p = sub.add_parser("cancel", help="stop a job on every node (the cluster stays)")
    p.add_argument("job", help="job id or name")
    p.set_defaults(handler=_cancel)

    p = sub.add_parser(
        "ssh-config", help="`ssh <cluster>-<n>` for your clusters' nodes (XyClaw's SSH config)"
    )
    which = p.add_mutually_exclusive_group()
    which.add_argument("--install", action="store_true", help="add the Include line, no asking")
    which.add_argument("--remove", action="store_true", help="take the Include line out again")
    p.set_defaults(handler=_ssh_config)


def _money(micros: int | None, currency: str | None) -> str:
    if micros is None or currency is None:
        return "-"
    from xyclaw.catalog.money import format_amount

    return format_amount(micros, currency)


def _eta(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    seconds = int(seconds)
    if seconds >= 3600:
        return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"
    return f"{seconds // 60}m{seconds % 60:02d}s"


def _row(job: JobRecord, ctx: CliContext) -> tuple[object, ...]:
    p = job.progress
    step = "-" if p.step is None else f"{p.step}/{p.total_steps}" if p.total_steps else str(p.step)
    if job.kind == "service":
        step = job.service_url or "-"
    loss = "-" if p.loss is None else f"{p.loss:.4g}"
    return (
        job.id,
        job.name,
        _word(ctx, job.state.value),
        job.attempt,
        job.cluster or "-",
        step,
        loss,
        _eta(p.eta_s),
        _money(job.cost_micros, job.currency),
    )


GPU_FIELDS = ("resources.accelerators", "resources.gpu")


def _load(ctx: CliContext, text: str, cluster: str | None = None) -> Any:
    """The spec, its warnings printed (a sample's name is found by the engine); on a
    cluster whose GPU differs from the spec's, a warning before anything runs."""
    from pathlib import Path

    from xyclaw.engine import Engine

    path = Path(text).expanduser()
    if not path.is_file():
        return text
    loaded = Engine.load_job_spec(path, on_cluster=cluster is not None)
    for warning in loaded.warnings:
        ctx.warn(ctx.text("warning", text=line(str(warning))))
    if cluster is not None:
        check = ctx.engine().launch_dry_run(str(path), cluster, language=ctx.language)
        for note in check["warnings"]:
            # the ones the cluster adds (the file's are above); a GPU that differs from the
            # cluster's is said by the launch itself, in every face
            if note["line"] is None and note["field"] not in GPU_FIELDS:
                ctx.warn(ctx.text("warning", text=line(note["message"])))
    return loaded


def _start(
    args: argparse.Namespace, ctx: CliContext, *, service: bool, task: Any = None
) -> JobRecord | None:
    """The job once it runs (``task``: one task of a pipeline, already read); None when the
    user said no to renting."""
    from xyclaw.cli.progress import follow
    from xyclaw.engine.values import LaunchNeedsApproval

    engine = ctx.engine()
    spec = task if task is not None else _load(ctx, args.spec, args.cluster)
    for sent in engine.launch_sends(spec):  # issue 31: which secrets leave this machine
        ctx.warn(line(sent.in_language(ctx.language)))
    run = engine.serve if service else engine.launch
    try:
        return follow(engine, lambda: run(spec, cluster=args.cluster), language=ctx.language)
    except LaunchNeedsApproval as exc:
        quote = exc.quote
    ctx.warn(ctx.text("job_rents", quote=quote.describe(ctx.language)))
    if not args.yes:
        if not sys.stdin.isatty():
            raise UsageError(said("cli.usage.renting_confirm"))
        if input(ctx.text("job_rent_ask")).strip().lower() not in ("y", "yes"):
            ctx.warn(ctx.text("job_nothing_rented"))
            return None
    return follow(
        engine, lambda: run(spec, cluster=args.cluster, quote=quote), language=ctx.language
    )


def _ensure_follower(ctx: CliContext) -> None:
    """A job this command will not follow to its end is followed by the background guard:
    start it now, before anything is rented or run, or refuse saying how."""
    from xyclaw.errors import XyclawError
    from xyclaw.wording import said

    engine = ctx.engine()
    # the app's SSH key first: a guard starting at the same moment would make one too (two
    # processes creating it at once left nodes with the other key: SSH refused)
    engine.ssh_public_key()
    status = engine.ensure_guard(wait_s=10.0)
    if status is not None and status.running:
        return
    raise XyclawError(
        said(
            "job.detach_needs_guard",
            status=status.describe_said() if status is not None else said("op.guard.not_running"),
        ),
        hint=said("job.detach_needs_guard_hint"),
    )


def _dry_run(args: argparse.Namespace, ctx: CliContext) -> int:
    """`launch --dry-run`: what would run where, every warning and refusal with its line, and
    the quote; exit 1 when the spec is refused. Rents and runs nothing."""
    result = ctx.engine().launch_dry_run(args.spec, args.cluster, language=ctx.language)
    if args.json:
        ctx.print_json(result)
        return 0 if result["accepted"] else 1

    def where(note: dict[str, Any]) -> str:
        at = f"{result['file']}:{note['line']}" if note["line"] is not None else result["file"]
        return f"{at}: {note['field']}" if note["field"] else at

    if not result["accepted"]:
        refusal = result["refusal"]
        ctx.print(
            ctx.text("dry_refused", where=line(where(refusal)), message=line(refusal["message"]))
        )
        if refusal["hint"]:
            ctx.print(f"  -> {line(refusal['hint'])}")
        return 1
    if result["tasks"]:
        ctx.print(ctx.text("dry_pipeline", count=len(result["tasks"])))
        for index, task in enumerate(result["tasks"], start=1):
            ctx.print(ctx.text("dry_task", index=index, count=len(result["tasks"])))
            _dry_run_task(ctx, task, where)
    else:
        _dry_run_task(ctx, result, where)
    ctx.print(ctx.text("dry_nothing"))
    return 0


def _dry_run_task(ctx: CliContext, result: dict[str, Any], where: Any) -> None:
    place = line(result["cluster"]) if result["cluster"] else ctx.text("dry_new_cluster")
    gpus = (
        ctx.text("dry_gpus", count=result["gpus_per_node"], gpu=line(result["gpu"]))
        if result["gpu"]
        else ctx.text("dry_no_gpu")
    )
    ctx.print(ctx.text("dry_job", name=line(result["name"]), format=result["format"]))
    ctx.print(ctx.text("dry_where", place=place, nodes=result["nodes"], gpus=gpus))
    for up in result["uploads"]:
        ctx.print(
            ctx.text(
                "dry_upload",
                source=line(up["source"]),
                target=line(up["target"]),
                files=up["files"],
                bytes=up["bytes"],
            )
        )
    ctx.print(ctx.text("dry_environment"))
    for name, value in sorted(result["environment"].items()):
        ctx.print(f"    {line(name)}={line(value)}")
    for label in ("setup", "run"):
        if result[label]:
            ctx.print(ctx.text(f"dry_{label}"))
            for cmd_line in text(result[label]).splitlines():
                ctx.print(f"    {cmd_line}")
    for added in result.get("additions", []):  # issue 34: the step timer, the Flight Recorder
        ctx.print(f"  {line(added)}")
    for sent in result.get("sends", []):  # issue 31: the secrets, named apart
        ctx.print(f"  {line(sent)}")
    for note in result["warnings"]:
        ctx.print(ctx.text("dry_warning", where=line(where(note)), message=line(note["message"])))
    if result["quote_text"]:
        ctx.print(ctx.text("dry_quote", quote=line(result["quote_text"])))
    elif result["quote_problem"]:
        ctx.print(ctx.text("dry_no_quote", problem=line(result["quote_problem"])))


def _pipeline(args: argparse.Namespace, ctx: CliContext, tasks: list[Any]) -> int:
    """A SkyPilot pipeline: its tasks one after the other, each on the cluster it asks for
    (or --cluster), each followed to its end; the first that does not succeed stops it."""
    engine = ctx.engine()
    for index, task in enumerate(tasks, start=1):
        for warning in task.warnings:
            ctx.warn(ctx.text("warning", text=line(str(warning))))
        ctx.warn(ctx.text("job_task", index=index, count=len(tasks), name=line(task.spec.name)))
        job = _start(args, ctx, service=False, task=task)
        if job is None:
            return 1
        code = _follow_logs(ctx, engine, job.id, {}, tail=None)
        if code != 0:
            ctx.warn(ctx.text("job_pipeline_stopped", index=index, count=len(tasks)))
            return code
    return 0


def _launch(args: argparse.Namespace, ctx: CliContext) -> int:
    if args.dry_run:
        return _dry_run(args, ctx)
    if args.detach or args.json:
        _ensure_follower(ctx)
    from pathlib import Path

    if Path(args.spec).expanduser().is_file():
        tasks = ctx.engine().job_tasks(args.spec, args.cluster)
        if len(tasks) > 1:
            return _pipeline(args, ctx, tasks)
    job = _start(args, ctx, service=False)
    if job is None:
        return 1
    if args.json:
        ctx.print_json(job.to_json())
        return 0
    ctx.print(
        ctx.text(
            "job_launched",
            id=job.id,
            name=job.name,
            state=_word(ctx, job.state),
            cluster=job.cluster,
            attempt=job.attempt,
        )
    )
    if args.detach:
        ctx.print(ctx.text("job_follow_hint", id=job.id))
        return 0
    return _follow_logs(ctx, ctx.engine(), job.id, {}, tail=None)


def _serve(args: argparse.Namespace, ctx: CliContext) -> int:
    job = _start(args, ctx, service=True)
    if job is None:
        return 1
    if args.json:
        ctx.print_json(job.to_json())
    else:
        ctx.print(ctx.text("job_service_ready", id=job.id, name=job.name, url=job.service_url))
        ctx.warn(ctx.text("job_forwarding", id=job.id))
    sys.stdout.flush()
    engine = ctx.engine()
    try:
        while True:
            current = engine.job(str(job.id))
            if current.state.finished:
                ctx.warn(_ended(ctx, current, serving=True))
                return _EXIT.get(current.state.value, 1)
            time.sleep(1.0)
    except KeyboardInterrupt:
        return 0


def _jobs(args: argparse.Namespace, ctx: CliContext) -> int:
    engine = ctx.engine()
    if args.action == "show":
        if not args.job:
            raise UsageError(said("cli.usage.which_job"), hint="xyclaw jobs show JOB")
        return _show(args, ctx, engine.job(args.job))
    if args.action == "results":
        return _results(args, ctx, engine)
    if args.action == "why":
        if not args.job:
            raise UsageError(said("cli.usage.which_job"), hint="xyclaw jobs why JOB")
        return _why(args, ctx, engine.why_stuck(args.job))
    if args.job:
        raise UsageError(
            said("cli.usage.unknown_jobs_action", action=repr(args.job)),
            hint="xyclaw jobs [show JOB | why JOB]",
        )
    jobs = engine.jobs(include_finished=args.all)
    if args.json:
        ctx.print_json([j.to_json() for j in jobs])
        return 0
    if not jobs:
        ctx.print(ctx.text("no_jobs" if args.all else "no_jobs_running"))
        return 0
    print_table(ctx.out, JOB_COLUMNS, [_row(j, ctx) for j in jobs], language=ctx.language)
    return 0


def _why(args: argparse.Namespace, ctx: CliContext, answer: Any) -> int:
    """Why a job is stuck (issue 34): the verdict from its ranks' dumps, and what to do.
    Its words come partly from the nodes (op names, node names): printed as remote text."""
    if args.json:
        ctx.print_json(
            {
                "job": answer.job,
                "verdict": str(answer.verdict),
                "action": None if answer.action is None else str(answer.action),
                "ranks": list(answer.ranks),
                "nodes": list(answer.nodes),
                "op": answer.op,
                "seq": answer.seq,
                "fresh": answer.fresh,
                "at": answer.at,
            }
        )
        return 0
    if answer.fresh:
        ctx.print(ctx.text("why_fresh", name=line(answer.job)))
    else:
        at = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(answer.at))
        ctx.print(ctx.text("why_recorded", name=line(answer.job), at=at))
    ctx.print("  " + remote_text(ctx.out, worded(answer.verdict, ctx.language)))
    if answer.action is not None:
        action = remote_text(ctx.out, worded(answer.action, ctx.language))
        ctx.print(ctx.text("why_action", action=action))
    return 0


RESULT_COLUMNS = (
    Column("id", 4, right=True, key="col_id"),
    Column("name", 22, key="col_name"),
    Column("kind", 7, key="col_result_kind"),
    Column("gpus", 10, key="col_result_gpus"),
    Column("cost", 13, right=True, key="col_result_cost"),
    Column("per result", 24, right=True, key="col_per_result"),
    Column("mfu", 6, right=True, key="col_mfu"),
)
TREND_COLUMNS = (
    Column("month", 8, key="col_month"),
    Column("provider", 12, key="col_provider_name"),
    Column("gpu", 10, key="col_result_gpu"),
    Column("jobs", 5, right=True, key="col_result_jobs"),
    Column("per M tokens", 14, right=True, key="col_per_m_tokens"),
    Column("per 1k requests", 16, right=True, key="col_per_1k_requests"),
    Column("mfu", 6, right=True, key="col_mfu"),
)


def _results(args: argparse.Namespace, ctx: CliContext, engine: Any) -> int:
    """Cost per result and MFU of each job (the last 200), then per provider, GPU model and
    month (issue 36; docs/jobs.md, Cost per result)."""
    results = engine.job_results(args.job) if args.job else engine.job_results()
    trends = engine.result_trends() if not args.job else []
    if args.json:
        ctx.print_json(
            {"jobs": [r.to_json() for r in results], "trends": [t.to_json() for t in trends]}
        )
        return 0
    if not results:
        ctx.print(ctx.text("no_jobs"))
        return 0

    def per_result(r: Any) -> str:
        for micros, key in (
            (r.cost_per_m_tokens_micros, "per_m_tokens"),
            (r.cost_per_1k_requests_micros, "per_1k_requests"),
            (r.cost_per_epoch_micros, "per_epoch"),
        ):
            if micros is not None:
                return ctx.text(key, cost=_money(micros, r.currency))
        return "-"

    rows = [
        (
            str(r.job_id),
            r.name,
            _word(ctx, r.method or r.kind),
            f"{r.gpus} x {r.gpu}" if r.gpu else "-",
            _money(r.cost_micros, r.currency),
            per_result(r),
            "-" if r.mfu is None else f"{r.mfu:.1%}",
        )
        for r in results
    ]
    print_table(ctx.out, RESULT_COLUMNS, rows, language=ctx.language)
    if trends:
        ctx.print("")
        rows = [
            (
                t.month,
                t.provider,
                t.gpu,
                str(t.jobs),
                _money(t.cost_per_m_tokens_micros, t.currency)
                if t.cost_per_m_tokens_micros is not None
                else "-",
                _money(t.cost_per_1k_requests_micros, t.currency)
                if t.cost_per_1k_requests_micros is not None
                else "-",
                "-" if t.mfu is None else f"{t.mfu:.1%}",
            )
            for t in trends
        ]
        print_table(ctx.out, TREND_COLUMNS, rows, language=ctx.language)
    return 0


def _show(args: argparse.Namespace, ctx: CliContext, job: JobRecord) -> int:
    if args.json:
        ctx.print_json(job.to_json())
        return 0
    p = job.progress
    say = ctx.text
    language = ctx.language
    ctx.print(say("job_head", id=job.id, name=job.name, kind=_word(ctx, job.kind),
                  state=_word(ctx, job.state),
                  attempt=job.attempt))  # fmt: skip
    cost = _money(job.cost_micros, job.currency)
    ctx.print(say("job_cluster_cost", cluster=job.cluster or "-", cost=cost))
    if job.service_url:
        ctx.print(say("job_url", url=job.service_url))
    if p.step is not None:
        step = f"{p.step}" + (f"/{p.total_steps}" if p.total_steps else "")
        parts = [say("job_step", step=step)]
        if p.loss is not None:
            parts.append(say("job_loss", loss=f"{p.loss:.4g}"))
        if p.tokens_per_s is not None:
            parts.append(say("job_rate", rate=f"{p.tokens_per_s:,.0f}"))
        parts.append(
            say("job_eta", eta=_eta(p.eta_s))
            if p.eta_s is not None
            else say("job_eta_why", why=_eta_reason(ctx, p.eta_reason))
        )
        ctx.print(say("job_progress", parts=", ".join(parts)))
    if p.checkpoint_step is not None:
        ctx.print(say("job_checkpoint", step=p.checkpoint_step))
    if job.error:
        ctx.print(
            say(
                "job_error",
                cause=_word(ctx, job.cause or "error"),
                error=worded(job.error_worded, language),
            )
        )
    for a in job.attempts:
        resumed = say("job_resumed", step=a.resume_step) if a.resume_step is not None else ""
        line = say("job_attempt", attempt=a.attempt, state=_word(ctx, a.state), resumed=resumed)
        ctx.print(line + (f" - {worded(a.said, language)}" if a.message else ""))
        for n in a.nodes:
            code = "" if n.exit_code is None else say("job_node_exit", code=n.exit_code)
            ctx.print(say("job_node", rank=n.rank, node=n.node, ip=n.ip or "?",
                          state=_word(ctx, n.state or "-"), code=code))  # fmt: skip
    if job.log_cut_lines:
        ctx.print(say("job_log_cut", kept=job.log_lines, cut=job.log_cut_lines))
    return 0


def _ended(ctx: CliContext, job: JobRecord, *, serving: bool = False) -> str:
    """How a job ended, with why when it says (its error in the CLI's language)."""
    error = worded(job.error_worded, ctx.language) if job.error else ""
    if serving and ctx.language == "en":  # as `serve` always said it: "job ID STATE: why"
        return f"job {job.id} {job.state}: {error}".rstrip(": ")
    if not error:
        return ctx.text("job_state", id=job.id, name=job.name, state=_word(ctx, job.state))
    return ctx.text(
        "job_state_why", id=job.id, name=job.name, state=_word(ctx, job.state), error=error
    )


def _eta_reason(ctx: CliContext, reason: str) -> str:
    """Why a job has no ETA (``warming up``, ``done``: one of the estimator's few reasons) in
    the CLI's language; a reason the catalogue lacks reads as it is."""
    from xyclaw.wording.catalogue import CATALOGUE

    key = "eta_" + reason.replace(" ", "_")
    return ctx.text(key) if f"cli.{key}" in CATALOGUE else reason


def _word(ctx: CliContext, value: object) -> str:
    """A job's or a node's state, kind or cause in the CLI's language (as stored in English:
    ``failed``, ``train``, ``exit_nonzero``)."""
    from xyclaw.cli.render import state_word

    return state_word(ctx.language, value)


def _logs(args: argparse.Namespace, ctx: CliContext) -> int:
    engine = ctx.engine()
    job = engine.job(args.job)
    filters: dict[str, Any] = {
        "rank": args.rank,
        "node": int(args.node) if args.node and args.node.isdigit() else args.node,
        "attempt": args.attempt,
        "stream": "setup" if args.setup else "run",
    }
    if not args.follow:
        for line in engine.job_logs(str(job.id), tail=args.tail, **filters):
            ctx.print(remote_text(ctx.out, line))
        return 0
    return _follow_logs(ctx, engine, job.id, filters, tail=args.tail)


def _follow_logs(
    ctx: CliContext, engine: Engine, job_id: int, filters: dict[str, Any], *, tail: int | None
) -> int:
    """Print new lines as they are stored until the job ends; reattach if nobody follows it."""
    engine.attach_job(str(job_id))
    last: int | None = None
    first = True
    try:
        while True:
            _answer_replacement(ctx, engine, job_id)
            lines = engine.job_logs(
                str(job_id), since_offset=last, tail=tail if first else None, **filters
            )
            first = False
            for line in lines:
                ctx.print(remote_text(ctx.out, line))
                last = line.id if line.stream != "cut" else last
            ctx.out.flush()
            job = engine.job(str(job_id))
            if job.state.finished and not lines:
                more = engine.job_logs(str(job_id), since_offset=last, **filters)
                for line in more:
                    ctx.print(remote_text(ctx.out, line))
                ctx.warn(_ended(ctx, job))
                return _EXIT.get(job.state.value, 1)
            time.sleep(0.3)
    except KeyboardInterrupt:
        ctx.warn(ctx.text("job_stopped_following", id=job_id))
        return 0


def _answer_replacement(ctx: CliContext, engine: Engine, job_id: int) -> None:
    """A recovery of the job that needs a new node asks here, at the terminal: a yes rents
    exactly the quote shown; not at a terminal, or anything but yes, rents nothing."""
    for ask in engine.replacement_asks():
        if ask.job_id != job_id:
            continue
        ctx.warn(ask.said().in_language(ctx.language))
        if not sys.stdin.isatty():
            engine.decline_replacement(str(job_id))
            ctx.warn(ctx.text("job_replacement_no_terminal"))
            continue
        try:
            answer = input(ctx.text("job_replacement_ask"))
        except EOFError:
            answer = ""
        try:
            if answer.strip().lower() in ("y", "yes"):
                # a hang's replacement (issue 34): the yes binds the checkpoint shown too
                card = (
                    None
                    if ask.reason is None
                    else engine.action("replace_and_resume", str(job_id), asked_by="user")
                )
                engine.approve_replacement(str(job_id), ask.quote.digest, approved=card)
                ctx.warn(ctx.text("job_replacement_renting"))
            else:
                engine.decline_replacement(str(job_id))
                ctx.warn(ctx.text("job_replacement_none"))
        except UsageError as exc:  # withdrawn meanwhile: its quote expired, the job ended
            ctx.warn(ctx.text("job_replacement_too_late", message=exc.message))


def _cancel(args: argparse.Namespace, ctx: CliContext) -> int:
    job = ctx.engine().cancel_job(args.job)
    ctx.print(ctx.text("job_state", id=job.id, name=job.name, state=_word(ctx, job.state)))
    if job.attempts and job.attempts[-1].message:
        ctx.print(f"  {worded(job.attempts[-1].said, ctx.language)}")
    return 0 if job.state.value == "cancelled" else 1


def _ssh_config(args: argparse.Namespace, ctx: CliContext) -> int:
    engine = ctx.engine()
    if args.remove:
        report = engine.ssh_config(include=False)
        ctx.print(ctx.text("ssh_config_removed", user_config=report.user_config))
        return 0
    report = engine.ssh_config(include=True if args.install else None)
    if not report.included and sys.stdin.isatty():
        answer = input(
            ctx.text("ssh_config_ask", user_config=report.user_config, config=report.config)
        )
        if answer.strip().lower() in ("y", "yes"):
            report = engine.ssh_config(include=True)
    for host in report.hosts:
        ctx.print(f"ssh {host}")
    if not report.hosts:
        ctx.print(ctx.text("ssh_config_no_hosts"))
    if report.included:
        ctx.warn(
            ctx.text("ssh_config_included", user_config=report.user_config, config=report.config)
        )
    else:
        ctx.warn(
            ctx.text(
                "ssh_config_not_included", user_config=report.user_config, config=report.config
            )
        )
    return 0
