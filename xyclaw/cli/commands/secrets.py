"""``xyclaw secrets``: store, check and remove API keys in the OS keyring (or the 0600 file).

Values are read from a hidden prompt, or from standard input when it is not a
terminal (``xyclaw secrets set lambda_api_key < key.txt``); they are never printed.
"""

from __future__ import annotations

import argparse
import getpass
import re
import sys
from typing import Any

from xyclaw.cli.context import CliContext
from xyclaw.errors import UsageError, XyclawError
from xyclaw.wording import said

_NAME = re.compile(r"^[A-Za-z0-9_.:@-]{1,128}$")


def register(sub: Any) -> None:
    p = sub.add_parser(
        "secrets", help="store API keys (Lambda, AutoDL, Vast.ai, RunPod, LLM) in the keyring"
    )
    actions = p.add_subparsers(dest="secrets_action", metavar="ACTION", required=True)
    s = actions.add_parser("set", help="store a secret, read from a hidden prompt or stdin")
    s.add_argument(
        "name",
        help="lambda_api_key, autodl_token, vastai_api_key, runpod_api_key, "
        "llm-api-key:PRESET (e.g. llm-api-key:deepseek) or"
        " ssh-password:HOST (the host's ssh alias or address, without user@ and :port)",
    )
    s.set_defaults(handler=_set)
    d = actions.add_parser("delete", help="remove a secret")
    d.add_argument("name")
    d.set_defaults(handler=_delete)
    ls = actions.add_parser("list", help="the secrets XyClaw uses and whether each is set")
    ls.add_argument("--json", action="store_true")
    ls.set_defaults(handler=_list)


def _store(ctx: CliContext) -> Any:
    from xyclaw.secrets import SecretStore

    return SecretStore.choose(ctx.config.secrets.backend, ctx.paths.secrets_file)


def _checked(name: str) -> str:
    if not _NAME.match(name):
        raise UsageError(
            said("cli.usage.not_a_secret_name", name=repr(name)),
            hint=said("cli.usage.secret_name_hint"),
        )
    return name


def _known(ctx: CliContext, store: Any = None) -> list[tuple[str, str]]:
    """The names XyClaw reads, and what each is for; then any other name the store holds."""
    from xyclaw.engine import Engine

    known = [
        (p.secret, ctx.text("secret_for_provider", title=p.title, name=p.name))
        for p in Engine.real_providers()
    ]
    preset = ctx.config.llm.preset
    if preset != "rules":
        known.append((f"llm-api-key:{preset}", ctx.text("secret_llm", preset=preset)))
    try:
        hosts = Engine.own_hosts(ctx.paths)
    except XyclawError:
        hosts = []  # `config check` says what is wrong with it
    for h in hosts:  # the password is looked up by the host's alias (the address part)
        try:
            alias = Engine.host_address(h.destination)
        except XyclawError:
            continue
        known.append((f"ssh-password:{alias}", ctx.text("secret_ssh", host=h.name)))
    listed = getattr(getattr(store, "backend", None), "names", None)
    for name in listed() if callable(listed) else []:
        if all(name != k for k, _ in known):
            what = _purpose(ctx, name)
            known.append((name, what))
    return known


def _purpose(ctx: CliContext, name: str) -> str:
    kind, _, rest = name.partition(":")
    if kind == "ssh-password" and rest:
        return ctx.text("secret_ssh", host=rest)
    if kind == "llm-api-key" and rest:
        return ctx.text("secret_llm", preset=rest)
    if kind == "job-env" and rest:
        return ctx.text("secret_job", name=rest)
    return ctx.text("secret_yours")


def _set(args: argparse.Namespace, ctx: CliContext) -> int:
    name = _checked(args.name)
    if sys.stdin.isatty():
        value = getpass.getpass(f"{name} (input hidden): ")
    else:
        value = sys.stdin.readline()
    store = _store(ctx)
    store.set(name, value.strip())
    ctx.print(ctx.text("secret_stored", name=name, backend=store.backend.name))
    if any(name == known for known, _ in _known(ctx)[:2]):
        ctx.print(ctx.text("secret_check"))
    return 0


def _delete(args: argparse.Namespace, ctx: CliContext) -> int:
    name = _checked(args.name)
    store = _store(ctx)
    if store.get(name) is None:
        ctx.print(ctx.text("secret_was_not_set", name=name))
        return 0
    store.delete(name)
    ctx.print(ctx.text("secret_removed", name=name))
    return 0


def _list(args: argparse.Namespace, ctx: CliContext) -> int:
    store = _store(ctx)
    rows = [(name, what, bool(store.get(name))) for name, what in _known(ctx, store)]
    if args.json:
        ctx.print_json([{"name": n, "for": w, "set": s} for n, w, s in rows])
        return 0
    for name, what, is_set in rows:
        state = ctx.text("secret_set" if is_set else "secret_not_set")
        ctx.print(f"{name:<24} {state:<8} {what}")
    return 0
