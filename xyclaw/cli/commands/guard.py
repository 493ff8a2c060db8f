"""``xyclaw guard``: the process that holds budgets and idle release while no window is open.

    xyclaw guard [run]        run it here (a terminal, or a user service) until Ctrl-C
    xyclaw guard --once       one pass now, printing what it did
    xyclaw guard status       whether it runs, which process, what it checks next
    xyclaw guard start|stop   the background guard (commands start it by themselves)
    xyclaw guard install      a systemd user unit that runs it from login (asks first)

See docs/guard.md.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from xyclaw.cli.context import CliContext
from xyclaw.errors import UsageError
from xyclaw.wording import said

if TYPE_CHECKING:
    from xyclaw.engine.guard import GuardReport
    from xyclaw.engine.values import GuardStatus

UNIT_NAME = "xyclaw-guard.service"  # as xyclaw.billing.guard_process.SERVICE_UNIT
ACTIONS = ("run", "status", "start", "stop", "install", "uninstall")


def register(sub: Any) -> None:
    p = sub.add_parser(
        "guard",
        help="budgets and idle release while no window is open: run, status, start, stop, install",
        description="The guard charges the meter, enforces budgets and releases idle clusters."
        " Commands start it in the background whenever a cluster is live; see docs/guard.md.",
    )
    p.add_argument("action", nargs="?", default="run", choices=ACTIONS, help="default: run")
    p.add_argument("--once", action="store_true", help="one pass now, print what it did, exit")
    p.add_argument("--json", action="store_true", help="status as JSON")
    p.add_argument("--yes", action="store_true", help="install without asking")
    # How commands start it: it ends once nothing has been live for [guard] linger_minutes.
    p.add_argument("--background", action="store_true", help=argparse.SUPPRESS)
    p.set_defaults(handler=_guard)


def _guard(args: argparse.Namespace, ctx: CliContext) -> int:
    if args.once:
        return _once(ctx)
    handlers = {
        "run": _run,
        "status": _status,
        "start": _start,
        "stop": _stop,
        "install": _install,
        "uninstall": _uninstall,
    }
    code: int = handlers[args.action](args, ctx)
    return code


def _stamp() -> str:
    return time.strftime("%H:%M:%S")


class _Stop(BaseException):
    """SIGTERM or SIGHUP: end the loop as cleanly as Ctrl-C. Like KeyboardInterrupt it is no
    Exception, so no ``except Exception`` on the way (building the engine, a keyring probe)
    can swallow it: a guard told to stop while it starts still stops."""


def _raise_stop(signum: int, frame: object) -> None:
    for name in ("SIGTERM", "SIGHUP"):  # once: closing is not interrupted again
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), signal.SIG_IGN)
    raise _Stop()


def _check_history(ctx: CliContext) -> None:
    """The store's own check before its first write (every page read, nothing changed): run
    before the guard writes its lock and guard.json, so a damaged data folder stays as it is."""
    from xyclaw.engine import Engine

    Engine.check_history(ctx.paths)


def _run(args: argparse.Namespace, ctx: CliContext) -> int:
    from xyclaw.engine import Engine
    from xyclaw.engine.values import Holder

    guard_status, stop_guard = Engine.guard_status_of, Engine.stop_guard

    holder = Holder.BACKGROUND if args.background else Holder.FOREGROUND

    def refused(status: GuardStatus) -> bool:
        """Another guard runs and stays: say so and exit (a foreground guard takes over from
        a background one)."""
        takes_over = (
            holder == Holder.FOREGROUND
            and status.info is not None
            and status.info.holder == Holder.BACKGROUND
        )
        if not takes_over:
            ctx.warn(ctx.text("guard.already_exits", text=_described(ctx, status)))
        return not takes_over

    # A second guard exits at once; a damaged (foreign, newer) history stops this one before
    # it writes anything into the data folder (its lock file, guard.json); the lock comes
    # before anything slow (the engine).
    status = guard_status(ctx.paths)
    if status.running and refused(status):
        return 0
    _check_history(ctx)
    lock = Engine.guard_lock(ctx.paths)
    if not lock.acquire(holder):
        if refused(guard_status(ctx.paths)):
            return 0
        stop_guard(ctx.paths)
        if not lock.acquire(holder, wait_s=10):
            ctx.warn(ctx.text("guard_already", text=_described(ctx, guard_status(ctx.paths))))
            return 0
    for name in ("SIGTERM", "SIGHUP"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), _raise_stop)
    guard = ctx.config.guard
    linger = guard.linger_minutes * 60 if args.background else None
    try:
        engine = ctx.engine()
        say = ctx.print if not args.background else _log_line(ctx)
        then = (
            ctx.text("guard.ends_after", minutes=guard.linger_minutes)
            if linger is not None
            else ctx.text("guard.ctrl_c")
        )
        say(
            ctx.text(
                "guard.guarding",
                stamp=_stamp(),
                path=ctx.paths.data_dir,
                interval=guard.interval_s,
                then=then,
            )
        )

        def on_report(report: GuardReport) -> None:
            for line in report.lines(ctx.language):
                say(f"{_stamp()} {line}")

        engine.start_maintenance(holder, lock=lock, exit_when_idle_s=linger, on_report=on_report)
        while not engine.wait_maintenance(1.0):
            if lock.lost:
                # Its data folder was deleted (a removed home, a test's temporary folder): as the
                # simulated cloud does, it stops rather than guard a history nobody can read.
                ctx.warn(ctx.text("guard.folder_gone", path=ctx.paths.data_dir))
                return 0
        say(ctx.text("guard.ends", stamp=_stamp(), minutes=guard.linger_minutes))
    except (KeyboardInterrupt, _Stop):
        if not args.background and ctx.config.guard.autostart:
            ctx.warn(ctx.text("guard.stops_here"))
    finally:
        for name in ("SIGTERM", "SIGHUP"):
            if hasattr(signal, name):
                signal.signal(getattr(signal, name), signal.SIG_DFL)
    return 0


def _log_line(ctx: CliContext) -> Any:
    def say(line: str) -> None:
        ctx.print(line)
        ctx.out.flush()

    return say


def _once(ctx: CliContext) -> int:
    from xyclaw.engine import Engine
    from xyclaw.engine.values import Holder
    from xyclaw.wording import worded

    guard_status = Engine.guard_status_of
    status = guard_status(ctx.paths)
    if status.running:
        return _running_elsewhere(ctx, status)
    _check_history(ctx)
    lock = Engine.guard_lock(ctx.paths)
    if not lock.acquire(Holder.FOREGROUND):
        return _running_elsewhere(ctx, guard_status(ctx.paths))
    try:
        engine = ctx.engine()
        engine.reconcile()
        report = engine.tick()
        for line in report.lines(ctx.language):
            ctx.print(line)
        if not report.actions:
            ctx.print(ctx.text("guard_nothing_to_do", checked=report.checked))
        if report.checked and report.next_check_at is not None:
            due = max(0.0, report.next_check_at - time.time())
            if report.next_reason:
                why = report.next_reason_said or report.next_reason
                ctx.print(ctx.text("guard_next_check_why", due=due, why=worded(why, ctx.language)))
            else:
                ctx.print(ctx.text("guard_next_check", due=due))
    finally:
        lock.release()
    # Live clusters are never left without a guard: one goes on in the background.
    after = engine.ensure_guard(wait_s=10.0, only_if_live=True)
    if after is not None and after.running:
        ctx.print(ctx.text("guard.goes_on", text=_described(ctx, after)))
    return 0


def _described(ctx: CliContext, status: GuardStatus) -> str:
    """How the guard is, in the setting's language."""
    text: str = status.describe_said().in_language(ctx.language)
    return text


def _running_elsewhere(ctx: CliContext, status: GuardStatus) -> int:
    """``--once`` while a guard runs: that one checks; say so and what it did lately."""
    text = _described(ctx, status)
    if ctx.language != "zh":
        text = text.removeprefix("running ")
    ctx.print(ctx.text("guard.runs_elsewhere", text=text))
    from xyclaw.engine import Engine
    from xyclaw.wording import worded

    engine = ctx.engine()
    since = time.time() - 3600
    done = [
        e
        for e in engine.recent_events(200)
        if e["kind"] in ("budget", "idle") and float(e["ts"]) >= since
    ]
    if not done:
        ctx.print(ctx.text("guard.nothing_lately"))
    for event in reversed(done):
        message = worded(Engine.said_of(event) or str(event["message"]), ctx.language)
        ctx.print(f"{time.strftime('%H:%M:%S', time.localtime(event['ts']))} {message}")
    return 0


def _status(args: argparse.Namespace, ctx: CliContext) -> int:
    from xyclaw.engine import Engine

    status = Engine.guard_status_of(ctx.paths)
    unit = _unit_path(ctx)
    if args.json:
        ctx.print_json(
            {
                **status.to_json(),
                "autostart": ctx.config.guard.autostart,
                "service": str(unit) if unit.exists() else None,
            }
        )
        return 0 if status.running else 1
    ctx.print(ctx.text("guard_status", text=status.describe_said().in_language(ctx.language)))
    if not status.running:
        autostart = ctx.config.guard.autostart
        ctx.print(ctx.text("guard_autostarts" if autostart else "guard_autostart_off"))
    ctx.print(ctx.text("guard_log", path=status.log_path))
    if unit.exists():
        ctx.print(ctx.text("guard_unit", path=unit))
    elif sys.platform.startswith("linux"):
        ctx.print(ctx.text("guard_install_hint"))
    return 0 if status.running else 1


def _start(args: argparse.Namespace, ctx: CliContext) -> int:
    from xyclaw.engine import Engine

    before = Engine.guard_status_of(ctx.paths)
    if before.running:
        ctx.print(ctx.text("guard_already", text=before.describe_said().in_language(ctx.language)))
        return 0
    _check_history(ctx)  # here, in words, rather than as a guard that exited at start
    status = Engine.start_guard(ctx.paths, wait_s=15.0)
    ctx.print(ctx.text("guard_started", text=status.describe_said().in_language(ctx.language)))
    return 0


def _stop(args: argparse.Namespace, ctx: CliContext) -> int:
    from xyclaw.engine import Engine

    info = Engine.stop_guard(ctx.paths)
    if info is None:
        ctx.print(ctx.text("guard_not_running"))
        return 0
    ctx.print(ctx.text("guard_stopped", pid=info.pid, holder=info.holder))
    if ctx.config.guard.autostart:
        ctx.print(ctx.text("guard.starts_again"))
    return 0


# -- the user service ----------------------------------------------------------------------
def _unit_path(ctx: CliContext) -> Path:
    from xyclaw.engine import Engine

    return Engine.guard_unit_path(ctx.paths)


def _quote(arg: str) -> str:
    return f'"{arg}"' if any(c.isspace() for c in arg) else arg


def unit_text(home: str | None) -> str:
    """The systemd user unit: ``xyclaw guard`` from login, restarted if it fails."""
    from xyclaw.engine import Engine

    guard_command = Engine.guard_command
    lines = [
        "[Unit]",
        "Description=XyClaw guard: budgets and idle release for rented GPUs",
        "After=network-online.target",
        "",
        "[Service]",
        "Type=simple",
        "ExecStart=" + " ".join(_quote(a) for a in guard_command("run")),
        "Restart=on-failure",
        "RestartSec=10",
    ]
    if home:
        lines.append(f"Environment={_quote('XYCLAW_HOME=' + home)}")
    lines += ["", "[Install]", "WantedBy=default.target", ""]
    return "\n".join(lines)


def _install(args: argparse.Namespace, ctx: CliContext) -> int:
    from xyclaw.files import write_private
    from xyclaw.paths import HOME_ENV

    if not sys.platform.startswith("linux"):
        ctx.print(ctx.text("guard_install_linux_only"))
        return 1
    home = os.environ.get(HOME_ENV, "").strip() or None
    target = _unit_path(ctx)
    text = unit_text(str(Path(home).expanduser().resolve()) if home else None)
    ctx.print(ctx.text("guard_install_writes", target=target) + f"\n\n{text}")  # the unit: data
    if home:
        ctx.print(ctx.text("guard_install_home"))
    if not args.yes:
        if not sys.stdin.isatty():
            raise UsageError(said("cli.usage.install_confirm"))
        if input(ctx.text("guard_install_ask")).strip().lower() not in ("y", "yes"):
            ctx.print(ctx.text("guard_nothing_installed"))
            return 1
    write_private(target, text)
    ctx.print(ctx.text("guard_install_wrote", target=target))
    if home is None and shutil.which("systemctl"):
        ctx.print(ctx.text("guard_install_start", unit=UNIT_NAME))
    return 0


def _uninstall(args: argparse.Namespace, ctx: CliContext) -> int:
    target = _unit_path(ctx)
    if not target.exists():
        ctx.print(ctx.text("guard_no_service", target=target))
        return 0
    target.unlink()
    ctx.print(ctx.text("guard_removed", target=target))
    if os.environ.get("XYCLAW_HOME", "").strip() == "" and shutil.which("systemctl"):
        ctx.print(ctx.text("guard_also_run", unit=UNIT_NAME))
    return 0
