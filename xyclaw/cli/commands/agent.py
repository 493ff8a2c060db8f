"""``xyclaw chat``, ``xyclaw ask``, ``xyclaw demo`` and ``xyclaw model-key``: the agents headless.

Everything heavy (the engine, LangGraph, openai) is imported inside the handlers so that
``xyclaw --version`` and the other commands stay fast.
"""

from __future__ import annotations

import argparse
import getpass
import json
import sys
import time
from typing import TYPE_CHECKING, Any

from xyclaw.errors import UsageError

if TYPE_CHECKING:
    from xyclaw.agent.runtime import AgentRuntime
    from xyclaw.agent.types import AgentEvent, ApprovalRequest, TurnResult
    from xyclaw.cli.context import CliContext


def register(subparsers: Any) -> None:
    chat = subparsers.add_parser(
        "chat",
        help="talk to the agents in this terminal (streaming, approvals)",
        description=(
            "A conversation with XyClaw's agents. Renting, releasing and running commands ask"
            " first: answer a (approve), r (reject) or e (edit). Commands: /new, /list,"
            " /switch N, /allowances, /revoke N, /quit."
        ),
    )
    chat.add_argument("--conversation", type=int, metavar="N", help="continue conversation N")
    chat.set_defaults(handler=_chat)

    ask = subparsers.add_parser(
        "ask",
        help="one turn with the agents; a pending approval is kept for a later --approve",
        description=(
            "Send one message and print the reply. An action that needs approval is kept"
            " pending: answer it later with `xyclaw ask --conversation N --approve` (or"
            " --reject). Exit 0 on a reply, 3 while an approval is pending, 1 on failure."
        ),
    )
    ask.add_argument("text", nargs="*", help="the message (omit with --approve/--reject)")
    ask.add_argument("--conversation", type=int, metavar="N", help="conversation N (new if unset)")
    answer = ask.add_mutually_exclusive_group()
    answer.add_argument("--approve", action="store_true", help="approve the pending action")
    answer.add_argument("--reject", action="store_true", help="reject the pending action")
    ask.add_argument("--json", action="store_true", help="print one JSON object")
    ask.set_defaults(handler=_ask)

    demo = subparsers.add_parser(
        "demo",
        help="the whole flow on the simulated cloud, driven by the rules brain",
        description=(
            "Plan -> approve -> rent -> tune -> launch -> follow -> release -> history on the"
            " built-in simulated cloud, with the rules brain (no key, no tokens). Every step is"
            " printed; exit 0 when every step succeeded."
        ),
    )
    demo.add_argument("--fast", action="store_true", help="a smaller job and no pauses")
    demo.set_defaults(handler=_demo)

    key = subparsers.add_parser(
        "model-key",
        help="store the API key of an LLM preset in the keyring",
        description="Read an API key from the terminal (or stdin) and keep it in the keyring.",
    )
    key.add_argument("preset", help="deepseek, openai, qwen, moonshot, zhipu, siliconflow, custom")
    key.add_argument("--delete", action="store_true", help="forget the stored key")
    key.set_defaults(handler=_model_key)


# -- building the runtime ----------------------------------------------------------------------
def _runtime(ctx: CliContext, *, unattended: bool = False) -> AgentRuntime:
    from xyclaw.cli.startup import bulk_imports

    with bulk_imports():  # LangGraph and the engine: most of `xyclaw ask`'s time
        from xyclaw.agent.runtime import AgentRuntime

        runtime = AgentRuntime(
            ctx.engine(),
            store=ctx.store(),
            paths=ctx.paths,
            config=ctx.config,
            unattended=unattended,
        )
    ctx.on_close(runtime.close)
    return runtime


def _money(micros: int, currency: str) -> str:
    return f"{micros / 1_000_000:.4f} {currency}"


# -- ask ---------------------------------------------------------------------------------------
def _ask(args: argparse.Namespace, ctx: CliContext) -> int:
    from xyclaw.agent.types import Decision

    text = " ".join(args.text).strip()
    answering = args.approve or args.reject
    if answering and args.conversation is None:
        raise UsageError("--approve and --reject need --conversation N")
    if not answering and not text:
        raise UsageError('say something: xyclaw ask "plan a LoRA fine-tune of a 13B model"')
    runtime = _runtime(ctx)
    cid = args.conversation if args.conversation is not None else runtime.new_conversation()
    stream = not args.json and sys.stdout.isatty()
    printer = _Printer(ctx, stream=stream)
    if answering:
        decision = Decision("approve" if args.approve else "reject", by="cli")
        if text:
            raise UsageError("give either a message or --approve/--reject, not both")
        result = runtime.answer(cid, decision, printer)
    else:
        result = runtime.send(cid, text, printer)
    if args.json:
        ctx.print_json(_turn_json(result))
    else:
        printer.finish(result)
    if result.pending_approval is not None:
        return 3
    return (result.exit_code or 1) if result.agent == "xyclaw" else 0


def _turn_json(result: TurnResult) -> dict[str, Any]:
    """The shape of `xyclaw ask --json` (issue 13, point 7)."""
    return {
        "conversation": result.conversation_id,
        "agent": result.agent,
        "reply": result.reply,
        "tool_calls": [
            {
                "tool": c.tool,
                "effect": str(c.effect),
                "args": c.args,
                "status": c.status if c.status != "running" else "failed",
                "result": c.result if c.status == "done" else (c.error or c.summary),
            }
            for c in result.tool_calls
        ],
        "pending_approval": None
        if result.pending_approval is None
        else result.pending_approval.to_json(),
        "tokens": {"in": result.tokens_in, "out": result.tokens_out},
        "cost": {
            "micros": result.cost_micros,
            "currency": result.currency,
            "amount": result.cost_micros / 1_000_000,
        },
    }


class _Printer:
    """Turns agent events into terminal output (tokens as they come when ``stream``)."""

    def __init__(self, ctx: CliContext, *, stream: bool, later_hint: bool = True) -> None:
        self.ctx = ctx
        self.stream = stream
        self.later_hint = later_hint
        self.streamed = False
        self.agent: str | None = None

    def __call__(self, event: AgentEvent) -> None:
        from xyclaw.agent.types import ReasoningDelta, TokenDelta, ToolFinished, ToolStarted

        if not self.stream:
            return
        out = self.ctx.out
        if isinstance(event, TokenDelta):
            if self.agent != event.agent:
                out.write(f"\n[{event.agent}] ")
                self.agent = event.agent
            out.write(event.text)
            self.streamed = True
        elif isinstance(event, ReasoningDelta):
            out.write(f"\x1b[2m{event.text}\x1b[0m")
        elif isinstance(event, ToolStarted):
            out.write(f"\n  -> {event.call.tool} {json.dumps(event.call.args, ensure_ascii=False)}")
        elif isinstance(event, ToolFinished):
            from xyclaw.wording import worded

            call = event.call
            # the tool's line in the setting's language (the model read the English)
            note = (
                worded(call.summary_said or call.summary, self.ctx.language)
                or worded(call.error_said or call.error, self.ctx.language)
                or call.status
            )
            out.write(f"\n  <- {call.tool}: {call.status} ({note})")
        out.flush()

    def finish(self, result: TurnResult) -> None:
        if result.reply and not self.streamed:
            self.ctx.print(f"[{result.agent}] {result.reply}")
        elif self.streamed:
            self.ctx.print("")
        if result.pending_approval is not None:
            self.ctx.print(_card(result.pending_approval))
        if result.pending_approval is not None and self.later_hint:
            from xyclaw.agent.rules.texts import say

            language = result.pending_approval.language
            self.ctx.print(say(language, "card_waiting", cid=result.conversation_id))
        if result.tokens_in or result.tokens_out:
            self.ctx.print(
                f"({result.tokens_in} tokens in, {result.tokens_out} out,"
                f" {_money(result.cost_micros, result.currency)})"
            )


def _card(request: ApprovalRequest) -> str:
    from xyclaw.agent.rules.texts import card_label, say

    language = request.language
    lines = [
        say(language, "card_head", effect=request.effect, agent=request.agent, title=request.title)
    ]
    if request.flagged_after_remote_output:
        lines.append(say(language, "card_flag"))
    for key, value in request.details.items():
        if key in ("quote",) or value in (None, "", []):
            continue
        if key == "expires_at" and isinstance(value, int | float):
            value = time.strftime("%H:%M:%S", time.localtime(value))
        if isinstance(value, list):
            value = "; ".join(
                json.dumps(v, ensure_ascii=False) if isinstance(v, dict) else str(v) for v in value
            )
        lines.append(f"   {card_label(language, key)}: {value}")
    return "\n".join(lines)


# -- chat --------------------------------------------------------------------------------------
def _chat(args: argparse.Namespace, ctx: CliContext) -> int:

    runtime = _runtime(ctx)
    cid = args.conversation if args.conversation is not None else runtime.new_conversation()
    ctx.print(f"XyClaw chat ({runtime.brain_name}), conversation {cid}. /help for commands.")
    printer = _Printer(ctx, stream=True, later_hint=False)
    pending = runtime.pending_approval(cid)
    if pending is not None:
        ctx.print(_card(pending))
    while True:
        if pending is None:
            # A job whose recovery waits for a new node asks here, with the rental's card.
            asked = runtime.propose_replacement(cid, printer)
            if asked is not None:
                printer.finish(asked)
                pending = asked.pending_approval
        try:
            prompt = "approve? [a]pprove / [r]eject / [e]dit > " if pending else "you> "
            line = input(prompt).strip()
        except EOFError:
            ctx.print("")
            return 0
        if not line:
            continue
        if line in ("/quit", "/exit", "/q"):
            return 0
        if line == "/help":
            ctx.print("/new  /list  /switch N  /allowances  /revoke N  /quit")
            continue
        if line == "/new":
            cid = runtime.new_conversation()
            pending = None
            ctx.print(f"conversation {cid}")
            continue
        if line == "/list":
            for c in runtime.conversations():
                mark = " (approval pending)" if c.pending_approval else ""
                ctx.print(f"{c.id:>4}  {c.title[:60]}{mark}")
            continue
        if line.startswith("/switch"):
            try:
                cid = runtime.conversation(int(line.split()[1])).id
            except (IndexError, ValueError):
                ctx.print("usage: /switch N")
                continue
            for m in runtime.messages(cid)[-10:]:
                if m.role != "tool":
                    ctx.print(f"[{m.agent or m.role}] {m.text}")
            pending = runtime.pending_approval(cid)
            if pending is not None:
                ctx.print(_card(pending))
            continue
        if line == "/allowances":
            for a in runtime.allowances():
                ctx.print(f"{a.id:>4}  {a.tool} on {a.cluster} in '{a.conversation_title}'")
            continue
        if line.startswith("/revoke"):
            try:
                runtime.revoke(int(line.split()[1]))
                ctx.print("revoked")
            except (IndexError, ValueError):
                ctx.print("usage: /revoke N")
            except UsageError as exc:
                ctx.print(str(exc))
            continue
        printer.streamed = False
        printer.agent = None
        try:
            if pending is not None:
                decision = _read_decision(line, pending, ctx)
                if decision is None:
                    continue
                result = runtime.answer(cid, decision, printer)
            else:
                result = runtime.send(cid, line, printer)
        except KeyboardInterrupt:
            ctx.print("\n(interrupted)")
            continue
        printer.finish(result)
        pending = result.pending_approval
    return 0


def _read_decision(line: str, pending: ApprovalRequest, ctx: CliContext) -> Any:
    from xyclaw.agent.types import Decision

    word = line.lower()
    remember = word.endswith("!")
    word = word.rstrip("!")
    if word in ("a", "approve", "y", "yes"):
        if remember and pending.effect != "exec":
            ctx.print("(only commands and tuning can be remembered; this one asks every time)")
            remember = False
        return Decision("approve", remember=remember, by="user (terminal)")
    if word in ("r", "reject", "n", "no"):
        return Decision("reject", by="user (terminal)")
    if word in ("e", "edit"):
        raw = input('new arguments as JSON (e.g. {"option": 2}): ').strip()
        try:
            changes = json.loads(raw)
        except ValueError:
            ctx.print("that is not JSON; nothing changed")
            return None
        if not isinstance(changes, dict):
            ctx.print("give a JSON object")
            return None
        return Decision("edit", args=changes, by="user (terminal)")
    from xyclaw.agent.rules.texts import say

    ctx.print(say(pending.language, "card_answer"))
    return None


# -- model-key ---------------------------------------------------------------------------------
def _model_key(args: argparse.Namespace, ctx: CliContext) -> int:
    from xyclaw.agent.presets import PRESETS, key_secret_name
    from xyclaw.secrets import SecretStore

    if args.preset not in PRESETS:
        raise UsageError(f"{args.preset!r} is not a preset", hint="one of " + ", ".join(PRESETS))
    secrets = SecretStore.choose(ctx.config.secrets.backend, ctx.paths.secrets_file)
    name = key_secret_name(args.preset)
    if args.delete:
        secrets.delete(name)
        ctx.print(f"forgot the key of {args.preset}")
        return 0
    if sys.stdin.isatty():
        key = getpass.getpass(f"API key for {args.preset} (not shown): ")
    else:
        key = sys.stdin.readline()
    key = key.strip()
    if not key:
        raise UsageError("no key given")
    secrets.set(name, key)
    ctx.print(f"stored the key of {args.preset} ({secrets.backend.name} store)")
    return 0


# -- demo --------------------------------------------------------------------------------------
def _demo(args: argparse.Namespace, ctx: CliContext) -> int:
    from xyclaw.agent.demo import run_demo

    def make(**options: Any) -> AgentRuntime:
        from xyclaw.cli.startup import bulk_imports

        with bulk_imports():
            from xyclaw.agent.runtime import AgentRuntime

            runtime = AgentRuntime(
                ctx.engine(), store=ctx.store(), paths=ctx.paths, config=ctx.config, **options
            )
        ctx.on_close(runtime.close)
        return runtime

    return run_demo(make, ctx.print, fast=args.fast)
