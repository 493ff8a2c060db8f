"""``xyclaw hosts``: your own machines (``hosts.toml``) and the host keys XyClaw trusts.

``list`` shows each host with its key's state and whether a cluster uses it;
``add`` appends a checked entry; ``test`` connects as ``up`` would and shows
the GPUs it finds; ``trust`` records a host's key (asked, pinned to a
fingerprint, or with ``--trust-new-host``); ``forget`` removes it from
XyClaw's own known-hosts file (``~/.ssh/known_hosts`` is never changed).
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from xyclaw.cli.context import CliContext
from xyclaw.engine import Engine
from xyclaw.errors import ConfigError, UsageError
from xyclaw.wording import said

if TYPE_CHECKING:
    from xyclaw.engine.values import OwnHost


def register(sub: Any) -> None:
    p = sub.add_parser(
        "hosts", help="your own machines (hosts.toml): list, add, test, trust or forget one"
    )
    actions = p.add_subparsers(dest="hosts_action", metavar="ACTION", required=True)

    ls = actions.add_parser("list", help="the hosts of hosts.toml, their keys and use")
    ls.add_argument("--json", action="store_true")
    ls.set_defaults(handler=_list)

    add = actions.add_parser("add", help="add a host to hosts.toml (checked first)")
    add.add_argument("name", help="an ~/.ssh/config alias or user@host:port")
    add.add_argument("--gpu", required=True, help="GPU model, e.g. A100-80G, RTX4090")
    add.add_argument("--gpus", type=int, default=1, help="how many GPUs it has (1)")
    add.add_argument("--fabric", default="none", help="ib-hdr-200, roce-100, ... (none)")
    add.add_argument("--price", default="0", help="price per GPU-hour, for cost tracking (0)")
    add.add_argument("--currency", default="CNY", help="currency of the price (CNY)")
    add.add_argument("--host", help="the address, when NAME is only a label")
    add.add_argument("--user", help="who to log in as (with --host)")
    add.add_argument("--port", type=int, help="SSH port (with --host)")
    add.set_defaults(handler=_add)

    test = actions.add_parser("test", help="connect as `up` would and show the GPUs found")
    test.add_argument("name", help="a name from hosts.toml, an ssh alias or user@host:port")
    test.add_argument("--json", action="store_true")
    test.set_defaults(handler=_test)

    trust = actions.add_parser("trust", help="record a host's SSH key in XyClaw's known hosts")
    trust.add_argument("name", help="a name from hosts.toml, an ssh alias or user@host:port")
    trust.add_argument(
        "--fingerprint",
        metavar="SHA256:...",
        help="accept the key only if it has this fingerprint (for scripts)",
    )
    trust.set_defaults(handler=_trust)

    forget = actions.add_parser("forget", help="remove a host's key from XyClaw's known-hosts file")
    forget.add_argument("name", help="a name from hosts.toml, an ssh alias or user@host:port")
    forget.set_defaults(handler=_forget)

    history = actions.add_parser(
        "history",
        help="how each provider, region, node class and host has been for you (issue 36)",
    )
    history.add_argument("--provider", help="only this provider")
    history.add_argument("--region", help="only this region")
    history.add_argument("--host", help="only this host (its host name, machine id or a GPU UUID)")
    history.add_argument(
        "--by",
        choices=("provider", "region", "node_class", "host"),
        default=None,
        help="one summary per provider (default), region, node class or host",
    )
    history.add_argument("--days", type=float, default=90.0, help="how far back (90)")
    history.add_argument("--json", action="store_true")
    history.set_defaults(handler=_history)


# -- helpers -------------------------------------------------------------------------------


def _hosts_file(ctx: CliContext) -> Path:
    return Engine.hosts_file(ctx.paths)


def _hosts(ctx: CliContext) -> list[OwnHost]:
    return Engine.own_hosts(ctx.paths)


def _entry(ctx: CliContext, name: str) -> OwnHost | None:
    for host in _hosts(ctx):
        if name in (host.name, host.destination):
            return host
    return None


def _login_hint(ctx: CliContext) -> str:
    public = Engine.app_public_key(ctx.paths)
    return ctx.text("hosts_login_hint", key=public)


# -- list ----------------------------------------------------------------------------------


def _list(args: argparse.Namespace, ctx: CliContext) -> int:
    from xyclaw.catalog.money import format_amount

    hosts = _hosts(ctx)
    in_use = Engine.own_hosts_in_use(ctx.paths)
    all_keys = Engine.host_keys(ctx.paths, ctx.config, [h.destination for h in hosts])
    rows: list[dict[str, Any]] = []
    for h, keys in zip(hosts, all_keys, strict=True):
        rows.append(
            {
                "name": h.name,
                "address": h.destination,
                "gpu": h.gpu,
                "gpus": h.gpus,
                "fabric": h.fabric,
                "price_per_gpu_hour": format_amount(h.price_per_gpu_hour_micros, h.currency),
                "host_key": [f"{k.key_type} {k.fingerprint}" for k in keys],
                "in_use_by": in_use.get(h.name),
            }
        )
    if args.json:
        ctx.print_json(rows)
        return 0
    if not rows:
        ctx.print(ctx.text("hosts_empty", path=_hosts_file(ctx)))
        return 0
    for r in rows:
        key = r["host_key"][0] if r["host_key"] else ctx.text("hosts_key_unknown")
        use = ctx.text("hosts_used_by", cluster=r["in_use_by"]) if r["in_use_by"] else ""
        ctx.print(
            ctx.text(
                "hosts_line",
                name=f"{r['name']:<20}",
                gpus=r["gpus"],
                gpu=f"{r['gpu']:<10}",
                fabric=f"{r['fabric']:<11}",
                price=f"{r['price_per_gpu_hour']:>10}",
                use=use or ctx.text("hosts_free"),
            )
        )
        if r["address"] != r["name"]:
            ctx.print(ctx.text("hosts_address", address=r["address"]))
        ctx.print(ctx.text("hosts_host_key", key=key))
    return 0


# -- history -------------------------------------------------------------------------------


def _history(args: argparse.Namespace, ctx: CliContext) -> int:
    from xyclaw.cli.render import print_track_record

    memory = ctx.engine().track_record(
        provider=args.provider, region=args.region, host=args.host, days=args.days
    )
    by = args.by or ("host" if args.host else "provider")
    if args.json:
        ctx.print_json({**memory.to_json(), "by": by, "standings": [
            s.to_json() for s in memory.standings(by)
        ]})  # fmt: skip
        return 0
    print_track_record(ctx, memory, by, days=args.days)
    return 0


# -- add -----------------------------------------------------------------------------------


def _toml_line(key: str, value: object) -> str:
    import tomli_w

    return tomli_w.dumps({key: value})


def _add(args: argparse.Namespace, ctx: CliContext) -> int:
    from xyclaw.files import locked

    path = _hosts_file(ctx)
    with locked(path):  # a host another `hosts add` writes at the same moment is kept
        return _add_locked(args, ctx, path)


def _add_locked(args: argparse.Namespace, ctx: CliContext, path: Path) -> int:
    from xyclaw.files import write_private

    existing = _hosts(ctx)  # a broken file is reported, never appended to
    entry: dict[str, Any] = {"name": args.name, "gpu": args.gpu, "gpus": args.gpus}
    if args.fabric != "none":
        entry["fabric"] = args.fabric
    entry["price_per_gpu_hour"] = args.price
    if args.currency != "CNY":
        entry["currency"] = args.currency
    for key in ("host", "user", "port"):
        if getattr(args, key) is not None:
            entry[key] = getattr(args, key)
    try:
        host = Engine.own_host_entry(args.name, entry)
    except ConfigError as exc:  # worded, so it is said in the [gui] language
        raise UsageError(exc.said or exc.message, hint=exc.hint_said or exc.hint) from None
    if any(h.name == host.name for h in existing):
        raise UsageError(
            said("cli.usage.host_exists", name=host.name, path=str(path)),
            hint=said("cli.usage.host_exists_hint"),
        )
    try:
        price: object = int(args.price) if args.price.isdigit() else float(args.price)
    except ValueError:
        price = args.price
    entry["price_per_gpu_hour"] = price
    block = "[[host]]\n" + "".join(_toml_line(k, v) for k, v in entry.items())
    old = path.read_text(encoding="utf-8") if path.exists() else ""
    text = old + ("\n" if old and not old.endswith("\n") else "") + ("\n" if old else "") + block
    tmp = path.with_name(f".{path.name}.{os.getpid()}.new")
    write_private(tmp, text, mode=path.stat().st_mode & 0o777 if path.exists() else 0o644)
    try:
        Engine.read_hosts_file(tmp)  # what was written reads back
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    added = {"name": host.name, "gpus": host.gpus, "gpu": host.gpu, "fabric": host.fabric}
    ctx.print(ctx.text("hosts_added", **added, path=path))
    ctx.print(ctx.text("hosts_next", name=host.name))
    return 0


# -- test ----------------------------------------------------------------------------------


def _test(args: argparse.Namespace, ctx: CliContext) -> int:
    from xyclaw.errors import AuthenticationError

    entry = _entry(ctx, args.name)
    destination = entry.destination if entry else args.name
    try:
        found = Engine.check_own_host(
            ctx.paths,
            ctx.config,
            destination,
            ctx.trust(),
            timeout=ctx.config.ssh.connect_timeout_s + 20,
        )
    except AuthenticationError as exc:
        raise AuthenticationError(exc.message, host=exc.host, hint=_login_hint(ctx)) from exc
    gpus = [{"index": g.index, "name": g.name, "memory_mib": g.memory_mib} for g in found.gpus]
    seconds = found.seconds
    matches = entry is None or found.has(entry.gpus, entry.gpu)
    if args.json:
        ctx.print_json(
            {
                "host": destination,
                "seconds": round(seconds, 3),
                "gpus": gpus,
                "hosts_toml": None
                if entry is None
                else {"name": entry.name, "gpu": entry.gpu, "gpus": entry.gpus},
                "matches": matches,
            }
        )
        return 0 if matches else 1
    ctx.print(
        ctx.text("hosts_answers", host=destination, seconds=f"{seconds:.1f}", count=len(gpus))
    )
    for gpu in gpus:
        memory = f", {gpu['memory_mib']} MiB" if gpu["memory_mib"] else ""
        ctx.print(f"  GPU {gpu['index']}: {gpu['name']}{memory}")
    if entry is not None:
        if matches:
            ctx.print(ctx.text("hosts_matches", gpus=entry.gpus, gpu=entry.gpu))
        else:
            figures = {"gpus": entry.gpus, "gpu": entry.gpu, "name": entry.name}
            ctx.warn(ctx.text("hosts_mismatch", **figures, path=_hosts_file(ctx)))
    return 0 if matches else 1


# -- trust and forget ----------------------------------------------------------------------


def _trust(args: argparse.Namespace, ctx: CliContext) -> int:
    from xyclaw.errors import AuthenticationError, HostKeyError

    entry = _entry(ctx, args.name)
    destination = entry.destination if entry else args.name
    asked: list[tuple[str, str]] = []
    wanted = args.fingerprint
    if wanted is not None and not wanted.startswith("SHA256:"):
        raise UsageError(
            said("cli.usage.not_a_fingerprint", value=repr(wanted)),
            hint=said("cli.usage.fingerprint_hint"),
        )

    def decide(host: str, key_type: str, fingerprint: str) -> bool:
        asked.append((key_type, fingerprint))
        if wanted is None:
            return bool(ctx.trust()(host, key_type, fingerprint))
        if fingerprint != wanted:
            raise HostKeyError(
                said(
                    "cli.trust.not_wanted",
                    host=host,
                    key_type=key_type,
                    fingerprint=fingerprint,
                    wanted=wanted,
                ),
                host=destination,
                hint=said("cli.trust.not_wanted_hint"),
            )
        return True

    try:
        known = Engine.trust_host(
            ctx.paths,
            ctx.config,
            destination,
            decide,
            timeout=ctx.config.ssh.connect_timeout_s + 10,
        )
    except AuthenticationError as exc:
        if not asked:
            raise AuthenticationError(exc.message, host=exc.host, hint=_login_hint(ctx)) from exc
        message = exc.in_language(ctx.language)[0]
        ctx.warn(ctx.text("hosts_login_failed", message=message))
        ctx.warn(f"  -> {_login_hint(ctx)}")
        key_type, fingerprint = asked[-1]
        ctx.print(
            ctx.text("hosts_trusted", host=destination, key_type=key_type, fingerprint=fingerprint)
        )
        return 1
    if not asked:
        shown = ", ".join(f"{k.key_type} {k.fingerprint} ({k.where})" for k in known)
        shown = shown or ctx.text("hosts_key_on_record")
        ctx.print(ctx.text("hosts_already", host=destination, shown=shown))
        return 0
    key_type, fingerprint = asked[-1]
    trusted = {"host": destination, "key_type": key_type, "fingerprint": fingerprint}
    ctx.print(ctx.text("hosts_trusted_in", **trusted, path=ctx.paths.known_hosts))
    return 0


def _forget(args: argparse.Namespace, ctx: CliContext) -> int:
    entry = _entry(ctx, args.name)
    destination = entry.destination if entry else args.name
    removed, left, recorded_as = Engine.forget_host(ctx.paths, ctx.config, destination)
    if removed:
        removed_said = {"count": removed, "host": destination, "path": ctx.paths.known_hosts}
        ctx.print(ctx.text("hosts_removed", **removed_said))
    else:
        ctx.print(ctx.text("hosts_not_known", host=destination, path=ctx.paths.known_hosts))
    if left:
        where = ", ".join(sorted({k.where for k in left}))
        ctx.warn(ctx.text("hosts_still_known", host=destination, where=where, name=recorded_as))
    return 0
