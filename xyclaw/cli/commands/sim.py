"""``xyclaw sim serve|status|stop``: the built-in simulated GPU cloud."""

from __future__ import annotations

import argparse
import math
import signal
import threading
from pathlib import Path
from typing import Any

from xyclaw.cli.context import CliContext
from xyclaw.errors import UsageError
from xyclaw.wording import said


def register(sub: Any) -> None:
    parser = sub.add_parser("sim", help="the built-in simulated GPU cloud")
    actions = parser.add_subparsers(dest="sim_action", metavar="ACTION", required=True)

    serve = actions.add_parser("serve", help="run the simulated cloud in the foreground")
    serve.add_argument(
        "--port", type=int, default=None, help="port on 127.0.0.1 (default: the last one, or any)"
    )
    _state_argument(serve)
    serve.add_argument(
        "--fast", action="store_true", help="provision and release at once (no delays)"
    )
    serve.add_argument(
        "--provision-delay",
        type=float,
        default=None,
        metavar="S",
        help="seconds a cluster takes to come up (default 8)",
    )
    serve.add_argument(
        "--link-delay",
        type=float,
        default=0.0,
        metavar="S",
        help="extra seconds on every reply from a node: the network distance to the region "
        "(e.g. 0.03 for a region 30 ms away; default 0)",
    )
    serve.add_argument(  # issue 32
        "--spot-rate",
        type=float,
        default=None,
        metavar="N",
        help="how often the cloud takes a spot cluster back on its own, per hour of its life "
        "(default 1/24: about once a day; 0: never)",
    )
    serve.add_argument(
        "--spot-notice",
        type=float,
        default=None,
        metavar="S",
        help="seconds of notice before a spot cluster is taken back (default 30)",
    )
    serve.add_argument(
        "--seed", type=int, default=None, help="seed of the spot preemptions' draws (repeatable)"
    )
    serve.set_defaults(handler=_serve)

    status = actions.add_parser("status", help="whether the simulated cloud runs, and where")
    _state_argument(status)
    status.add_argument("--json", action="store_true", help="print JSON")
    status.set_defaults(handler=_status)

    stop = actions.add_parser("stop", help="stop the background simulated cloud")
    _state_argument(stop)
    stop.add_argument(
        "--timeout", type=float, default=10.0, metavar="S", help="seconds before SIGKILL"
    )
    stop.set_defaults(handler=_stop)


def _spot_settings(args: argparse.Namespace, settings: Any) -> Any:
    """``--spot-rate``, ``--spot-notice`` and ``--seed`` on the cloud's settings (issue 32)."""
    from dataclasses import replace

    for flag, value in (("--spot-rate", args.spot_rate), ("--spot-notice", args.spot_notice)):
        if value is not None and (not math.isfinite(value) or value < 0):
            raise UsageError(
                said("cli.usage.not_valid", flag=flag, value=f"{value:g}"),
                hint=said("cli.usage.zero_or_more"),
            )
    if args.spot_rate is not None:
        settings = replace(settings, spot_preemptions_per_hour=args.spot_rate)
    if args.spot_notice is not None:
        settings = replace(settings, spot_notice_s=args.spot_notice)
    if args.seed is not None:
        settings = replace(settings, spot_seed=args.seed)
    return settings


def _state_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--state",
        type=Path,
        default=None,
        metavar="DIR",
        help="the cloud's state folder (default: <data folder>/sim)",
    )


def _state_dir(args: argparse.Namespace, ctx: CliContext) -> Path:
    folder: Path = args.state if args.state is not None else ctx.paths.data_dir / "sim"
    return folder.expanduser().resolve()


def _serve(args: argparse.Namespace, ctx: CliContext) -> int:
    from dataclasses import replace

    from xyclaw.sim.cloud import CloudSettings, SimCloudServer, build_cloud

    if args.port is not None and not 0 <= args.port <= 65535:
        raise UsageError(
            said("cli.usage.not_a_port", port=args.port), hint=said("cli.usage.port_hint")
        )
    delay = args.provision_delay
    if delay is not None and (not math.isfinite(delay) or delay < 0):
        raise UsageError(
            said("cli.usage.not_a_delay", flag="--provision-delay", value=f"{delay:g}"),
            hint=said("cli.usage.seconds_hint"),
        )
    settings = CloudSettings.fast() if args.fast else CloudSettings()
    if delay is not None:
        settings = replace(settings, provision_delay_s=delay)
    settings = _spot_settings(args, settings)
    if not math.isfinite(args.link_delay) or args.link_delay < 0:
        raise UsageError(
            said("cli.usage.not_a_delay", flag="--link-delay", value=f"{args.link_delay:g}"),
            hint=said("cli.usage.zero_or_more_short"),
        )
    from xyclaw.sim.cloud.simnode import SimNodeFactory

    state = _state_dir(args, ctx)
    factory = SimNodeFactory(link_delay_s=args.link_delay)
    server = SimCloudServer(build_cloud(state, settings, node_factory=factory), port=args.port)

    stopping = threading.Event()

    def on_signal(signum: int, frame: object) -> None:
        stopping.set()

    previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        server.start()
        try:
            ctx.print(ctx.text("sim_listening", url=server.url))
            ctx.print(ctx.text("sim_serve_state", path=state, file=server.server_file))
            ctx.out.flush()
            while not stopping.wait(0.5):
                if not state.exists():
                    # Its folder was deleted (a removed data folder, a test's temporary home):
                    # nothing it does could be kept, so it stops rather than run on forever.
                    ctx.warn(ctx.text("sim_state_gone", path=state))
                    break
        finally:
            server.stop()
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    ctx.print(ctx.text("sim_serve_stopped"))
    return 0


def _api_summary(url: str, token: str) -> dict[str, Any] | None:
    """Cluster counts and the ledger's total, for the status line, through the provider's own
    client; None if the cloud does not answer."""
    from xyclaw.engine import Engine

    return Engine.sim_cloud_summary(url, token)


def _status(args: argparse.Namespace, ctx: CliContext) -> int:
    from xyclaw.catalog.money import format_amount
    from xyclaw.sim.cloud import launcher

    current = launcher.status(_state_dir(args, ctx))
    report = current.to_json()
    summary = None
    if current.endpoint is not None:
        summary = _api_summary(current.endpoint.url, current.endpoint.token)
        report.update(summary or {})
    if args.json:
        ctx.print_json(report)
        return 0
    if current.endpoint is None:
        ctx.print(ctx.text("sim_not_running", path=current.state_dir))
        return 0
    ctx.print(ctx.text("sim_runs", url=current.endpoint.url, pid=current.endpoint.pid))
    ctx.print(ctx.text("sim_state", path=current.state_dir))
    if summary is not None:
        states = summary["clusters"]
        from xyclaw.cli.render import state_word

        words = [f"{n} {state_word(ctx.language, s)}" for s, n in sorted(states.items())]
        listed = (", " if ctx.language != "zh" else "，").join(words) or ctx.text("sim_no_clusters")
        ctx.print(ctx.text("sim_clusters", listed=listed))
        total = summary["billing_total_micros"] or 0
        amount = format_amount(total, summary["currency"] or "CNY")
        ctx.print(ctx.text("sim_billed", amount=amount))
    return 0


def _stop(args: argparse.Namespace, ctx: CliContext) -> int:
    from xyclaw.sim.cloud import launcher

    state = _state_dir(args, ctx)
    if launcher.stop(state, timeout=args.timeout):
        ctx.print(ctx.text("sim_stopped", path=state))
    else:
        ctx.print(ctx.text("sim_none_running", path=state))
    return 0
