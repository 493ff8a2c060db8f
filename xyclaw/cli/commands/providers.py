"""``xyclaw providers``: every provider, whether it is configured, and whether it answers."""

from __future__ import annotations

import argparse
import time
from dataclasses import asdict, dataclass
from typing import Any

from xyclaw.cli.context import CliContext


def register(sub: Any) -> None:
    p = sub.add_parser(
        "providers", help="the providers: configured (keys, hosts) and reachable (asked for offers)"
    )
    p.add_argument(
        "--no-check", action="store_true", help="only say what is configured; ask no provider"
    )
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=_providers)


@dataclass
class ProviderLine:
    name: str
    kind: str
    configured: bool
    setup: str  # what is configured, or what to do
    reachable: bool | None = None  # None: not asked
    detail: str = ""
    seconds: float | None = None


def _registry(ctx: CliContext, secrets: Any) -> Any:
    """The app's providers plus the real clouds, with quick retries for a status check."""
    from xyclaw.engine import Engine
    from xyclaw.engine.compose import default_registry

    trust = ctx.trust()  # a Slurm site's login node asks as the engine's SSH does
    registry = default_registry(
        ctx.paths, ctx.config, trust_new_host=trust, answer_prompts=trust.answer_prompts
    )
    Engine.add_real_providers(registry, ctx.paths, ctx.config, secrets)
    ctx.on_close(registry.close)
    return registry


def _setup(name: str, ctx: CliContext, secrets: Any, registry: Any) -> tuple[str, bool, str]:
    """(kind, configured, what is set up or what to do) without asking any provider."""
    from xyclaw.engine import Engine

    for real in Engine.real_providers():
        if real.name == name:
            if secrets.get(real.secret):
                text = ctx.text("provider_secret_set", secret=real.secret, currency=real.currency)
                return name, True, text
            account = real.account if ctx.language == "en" else ctx.text(f"account_{real.name}")
            text = ctx.text("provider_secret_missing", secret=real.secret, account=account)
            return name, False, text
    if name == "sim":
        return "sim", True, ctx.text("provider_sim")
    if name == "local":
        return "local", True, ctx.text("provider_local")
    if name == "ssh":
        hosts_file = Engine.hosts_file(ctx.paths)
        hosts = Engine.own_hosts(ctx.paths)
        if hosts:
            return "ssh", True, ctx.text("provider_hosts", count=len(hosts), path=hosts_file)
        return "ssh", False, ctx.text("provider_no_hosts", path=hosts_file)
    if registry.get(name).kind == "slurm":  # a [[slurm]] table of hosts.toml (issue 33)
        return "slurm", True, ctx.text("provider_slurm", path=ctx.paths.config_dir / "hosts.toml")
    return "?", True, ctx.text("provider_plugin")


def _providers(args: argparse.Namespace, ctx: CliContext) -> int:
    from xyclaw.errors import XyclawError
    from xyclaw.secrets import SecretStore

    secrets = SecretStore.choose(ctx.config.secrets.backend, ctx.paths.secrets_file)
    registry = _registry(ctx, secrets)
    lines: list[ProviderLine] = []
    for name in registry.names:
        kind, configured, setup = _setup(name, ctx, secrets, registry)
        line = ProviderLine(name, kind, configured, setup)
        # The simulated cloud is not started just to be looked at.
        if configured and not args.no_check and name != "sim":
            started = time.monotonic()
            try:
                count = len(registry.get(name).offers())
            except XyclawError as exc:
                line.reachable, line.detail = False, exc.in_language(ctx.language)[0]
            else:
                line.reachable, line.detail = True, ctx.text("provider_offers", count=count)
            line.seconds = round(time.monotonic() - started, 2)
        lines.append(line)
    # A [[slurm]] table that does not read names no provider: its row says why.
    for why in registry.left_out:
        lines.append(ProviderLine("slurm", "slurm", False, why.in_language(ctx.language)))
    if args.json:
        ctx.print_json([asdict(line) for line in lines])
    else:
        from xyclaw.cli.render import Column, print_table

        def answer(line: ProviderLine) -> str:
            if line.reachable is None:
                return "-"
            return ctx.text("yes" if line.reachable else "no") + f" ({line.seconds:.1f} s)"

        columns = [
            Column("provider", 9, key="col_provider_name"),
            Column("configured", 10, key="col_configured"),
            Column("reachable", 14, key="col_reachable"),
            Column("detail", key="col_detail"),
        ]
        rows = [
            (
                line.name,
                ctx.text("yes" if line.configured else "no"),
                answer(line),
                line.detail or line.setup,
            )
            for line in lines
        ]
        title = ctx.text("providers_title")
        print_table(ctx.out, columns, rows, title=title, language=ctx.language)
    failing = [line for line in lines if line.reachable is False] + registry.left_out
    return 1 if failing else 0
