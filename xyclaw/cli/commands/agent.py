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
from typing import IO, TYPE_CHECKING, Any

from xyclaw.errors import UsageError
from xyclaw.wording import said

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
            " pending: answer it later with `xyclaw ask --conversation N --approve CARD` (the"
            " card id printed with it) or --reject. Exit 0 on a reply, 3 while an approval"
            " is pending, 1 on failure."
        ),
    )
    ask.add_argument("text", nargs="*", help="the message (omit with --approve/--reject)")
    ask.add_argument("--conversation", type=int, metavar="N", help="conversation N (new if unset)")
    answer = ask.add_mutually_exclusive_group()
    answer.add_argument(
        "--approve",
        nargs="?",
        const="",
        default=None,
        metavar="CARD",
        help="approve the pending card named CARD (its id, as printed with it); refused when"
        " the card waiting is another one",
    )
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
    answering = args.approve is not None or args.reject
    if answering and args.conversation is None:
        raise UsageError(said("cli.usage.answer_needs_conversation"))
    if not answering and not text:
        raise UsageError(said("cli.usage.say_something"))
    runtime = _runtime(ctx)
    cid = args.conversation if args.conversation is not None else runtime.new_conversation()
    stream = not args.json and sys.stdout.isatty()
    printer = _Printer(ctx, stream=stream)
    if answering:
        if args.approve is not None:
            # The card the user names: the runtime refuses when it is not the one waiting.
            decision = Decision("approve", by="cli", digest=args.approve or None, face="ask")
        else:
            decision = Decision("reject", by="cli", face="ask")
        if text:
            raise UsageError(said("cli.usage.message_or_answer"))
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
    """Turns agent events into terminal output (tokens as they come when ``stream``).

    Everything a model, a tool or a remote machine wrote goes through
    :mod:`xyclaw.wording.display` first: it cannot move the cursor, restyle the screen or
    begin a line the way an approval card does. A card is drawn only by :meth:`finish`, after
    the streamed text, on a fresh line, each of its lines behind :data:`CARD_MARK`.
    """

    def __init__(self, ctx: CliContext, *, stream: bool, later_hint: bool = True) -> None:
        self.ctx = ctx
        self.stream = stream
        self.later_hint = later_hint
        self.streamed = False
        self.agent: str | None = None
        self._line_open = False  # something was written since the last newline

    def _write(self, text: str) -> None:
        if text:
            self.ctx.out.write(text)
            self._line_open = not text.endswith("\n")

    def _fresh_line(self) -> None:
        if self._line_open:
            self._write("\n")

    def __call__(self, event: AgentEvent) -> None:
        from xyclaw.agent.types import ReasoningDelta, TokenDelta, ToolFinished, ToolStarted
        from xyclaw.wording import display

        if not self.stream:
            return
        if isinstance(event, TokenDelta):
            if self.agent != event.agent:
                self._write(f"\n[{display.line(event.agent)}] ")
                self.agent = event.agent
            self._write(display.text(event.text))
            self.streamed = True
        elif isinstance(event, ReasoningDelta):
            self._write(f"\x1b[2m{display.text(event.text)}\x1b[0m")
        elif isinstance(event, ToolStarted):
            args = json.dumps(event.call.args, ensure_ascii=False)
            self._write(f"\n  -> {display.line(event.call.tool)} {display.line(args)}")
        elif isinstance(event, ToolFinished):
            from xyclaw.agent.demo import status_word
            from xyclaw.wording import worded

            call = event.call
            # the tool's line in the setting's language (the model read the English)
            note = (
                worded(call.summary_said or call.summary, self.ctx.language)
                or worded(call.error_said or call.error, self.ctx.language)
                or call.status
            )
            status = status_word(self.ctx.language, call.status)
            self._write(f"\n  <- {display.line(call.tool)}: {status} ({display.line(note)})")
        self.ctx.out.flush()

    def finish(self, result: TurnResult) -> None:
        from xyclaw.wording import display

        if result.reply and not self.streamed:
            self._fresh_line()
            self.ctx.print(f"[{display.line(result.agent)}] {display.text(result.reply)}")
        self._fresh_line()
        self._line_open = False
        if result.tokens_in or result.tokens_out:
            self.ctx.print(
                self.ctx.text(
                    "chat.tokens",
                    tokens_in=result.tokens_in,
                    tokens_out=result.tokens_out,
                    cost=_money(result.cost_micros, result.currency),
                )
            )
        # the card last, so that its question follows it
        if result.pending_approval is not None:
            self.ctx.print(_card(result.pending_approval, self.ctx.out))
        if result.pending_approval is not None and self.later_hint:
            from xyclaw.agent.rules.texts import say

            language = result.pending_approval.language
            self.ctx.print(say(language, "card_waiting", cid=result.conversation_id))


def _card(request: ApprovalRequest, out: IO[str] | None = None) -> str:
    """The approval card as the terminal draws it: every line behind the card's marker, every
    value whole (wrapped, never cut) and drawn through ``display.line``."""
    from xyclaw.agent.demo import effect_word
    from xyclaw.agent.rules.texts import card_label, say
    from xyclaw.agent.tools import bound_lines
    from xyclaw.cli.render import marked_lines
    from xyclaw.wording import display

    language = request.language
    lines = [
        say(
            language,
            "card_head",
            effect=effect_word(language, request.effect),
            agent=display.line(request.agent),
            title=display.line(request.title),
        )
    ]
    if request.flagged_after_remote_output:
        lines.append(say(language, "card_flag"))
    # the card's id (what `ask --approve` names), its targets by id and who asked
    lines += [
        f"   {display.line(line.in_language(language))}" for line in bound_lines(request.action)
    ]
    for key, value in request.details.items():
        if key in ("quote",) or value in (None, "", []):
            continue
        if key == "expires_at" and isinstance(value, int | float):
            value = time.strftime("%H:%M:%S", time.localtime(value))
        if isinstance(value, list):
            value = "; ".join(
                json.dumps(v, ensure_ascii=False) if isinstance(v, dict) else str(v) for v in value
            )
        lines.append(f"   {card_label(language, key)}: {display.line(value)}")
    return "\n".join(marked_lines(lines, out))


# -- chat --------------------------------------------------------------------------------------
def _chat(args: argparse.Namespace, ctx: CliContext) -> int:
    from xyclaw.wording import display

    runtime = _runtime(ctx)
    cid = args.conversation if args.conversation is not None else runtime.new_conversation()
    ctx.print(ctx.text("chat.banner", brain=runtime.brain_name, cid=cid))
    printer = _Printer(ctx, stream=True, later_hint=False)
    pending = runtime.pending_approval(cid)
    _cards_elsewhere(runtime, cid, ctx)
    if pending is not None:
        ctx.print(_card(pending, ctx.out))
    while True:
        if pending is None:
            # A job whose recovery waits for a new node asks here, with the rental's card.
            asked = runtime.propose_replacement(cid, printer)
            if asked is not None:
                printer.finish(asked)
                pending = asked.pending_approval
        try:
            prompt = _approve_prompt(ctx.language) if pending else ctx.text("chat.prompt")
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
            ctx.print(ctx.text("chat.conversation", cid=cid))
            continue
        if line == "/list":
            for c in runtime.conversations():
                mark = ctx.text("chat.pending_mark") if c.pending_approval else ""
                ctx.print(f"{c.id:>4}  {display.line(_shown_title(c.title, ctx)[:60])}{mark}")
            continue
        if line.startswith("/switch"):
            try:
                cid = runtime.conversation(int(line.split()[1])).id
            except (IndexError, ValueError):
                ctx.print(ctx.text("chat.switch_usage"))
                continue
            for m in runtime.messages(cid)[-10:]:
                if m.role != "tool":
                    ctx.print(f"[{display.line(m.agent or m.role)}] {display.text(m.text)}")
            pending = runtime.pending_approval(cid)
            if pending is not None:
                ctx.print(_card(pending, ctx.out))
            continue
        if line == "/allowances":
            for a in runtime.allowances():
                what = a.command or (" ".join(a.prefix) + " ..." if a.prefix else a.tool)
                ctx.print(
                    ctx.text(
                        "chat.allowance",
                        id=a.id,
                        tool=display.line(a.tool),
                        what=display.line(what),
                        cluster=display.line(a.cluster),
                        title=display.line(a.conversation_title),
                    )
                )
            continue
        if line.startswith("/revoke"):
            try:
                runtime.revoke(int(line.split()[1]))
                ctx.print(ctx.text("chat.revoked"))
            except (IndexError, ValueError):
                ctx.print(ctx.text("chat.revoke_usage"))
            except UsageError as exc:
                message, hint = exc.in_language(ctx.language)
                ctx.print(message if hint is None else f"{message}\n  -> {hint}")
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
            ctx.print("\n" + ctx.text("chat.interrupted"))
            continue
        printer.finish(result)
        pending = result.pending_approval
    return 0


#: Titles XyClaw gives a conversation itself (stored in English), as the window words them.
_OWN_TITLES = {"New conversation": "chat.title_new", "Tour": "chat.title_tour"}


def _shown_title(title: str, ctx: CliContext) -> str:
    """A conversation's title: XyClaw's own default ones in the setting's language, one the
    user or the agents gave as it is."""
    key = _OWN_TITLES.get(title)
    return title if key is None else ctx.text(key)


def _cards_elsewhere(runtime: AgentRuntime, cid: int, ctx: CliContext) -> None:
    """Cards waiting in other conversations (an MCP client's, a job's recovery): where."""
    from xyclaw.wording import display

    for c in runtime.conversations():
        if c.pending_approval and c.id != cid:
            title = display.line(_shown_title(c.title, ctx)[:60])
            ctx.print(ctx.text("chat.card_elsewhere", cid=c.id, title=title))


def _answered_from() -> str:
    """Where a terminal answer comes from: a card an MCP client asked for takes a yes only
    from a person at a terminal (stdin), never from a program feeding a pipe (issue 37)."""
    return "terminal" if sys.stdin.isatty() else "no terminal"


def _approve_prompt(language: str = "en") -> str:
    """The card's question, behind the card's marker like the card's lines (unstyled: a
    line editor counts a prompt's escapes as cells)."""
    from xyclaw.cli.render import marked_lines
    from xyclaw.wording import text_in

    [prompt] = marked_lines([text_in(language, "cli.chat.approve_prompt")])
    return prompt


def _read_decision(line: str, pending: ApprovalRequest, ctx: CliContext) -> Any:
    from xyclaw.agent.types import Decision

    head, _, prefix = line.strip().partition(" ")
    word = head.lower()
    remember = word.endswith("!")
    word = word.rstrip("!")
    if word in ("a", "approve", "y", "yes"):
        if remember and pending.effect != "exec":
            ctx.print(ctx.text("chat.not_remembered"))
            remember = False
        # `a!` remembers the exact command; `a! nvidia-smi` its first words (argv prefix)
        return Decision(
            "approve",
            remember=remember,
            by="user (terminal)",
            digest=pending.digest,
            remember_prefix=(prefix.strip() or None) if remember else None,
            face=_answered_from(),
        )
    if word in ("r", "reject", "n", "no"):
        return Decision("reject", by="user (terminal)", face=_answered_from())
    if word in ("e", "edit"):
        raw = input(ctx.text("chat.edit_prompt")).strip()
        try:
            changes = json.loads(raw)
        except ValueError:
            ctx.print(ctx.text("chat.not_json"))
            return None
        if not isinstance(changes, dict):
            ctx.print(ctx.text("chat.not_object"))
            return None
        return Decision("edit", args=changes, by="user (terminal)", face=_answered_from())
    from xyclaw.agent.rules.texts import say

    ctx.print(say(pending.language, "card_answer"))
    return None


# -- model-key ---------------------------------------------------------------------------------
def _model_key(args: argparse.Namespace, ctx: CliContext) -> int:
    from xyclaw.agent.presets import PRESETS, key_secret_name
    from xyclaw.secrets import SecretStore

    if args.preset not in PRESETS:
        raise UsageError(
            said("cli.usage.not_a_preset", preset=repr(args.preset)),
            hint=said("cli.usage.one_of", choices=", ".join(PRESETS)),
        )
    secrets = SecretStore.choose(ctx.config.secrets.backend, ctx.paths.secrets_file)
    name = key_secret_name(args.preset)
    if args.delete:
        secrets.delete(name)
        ctx.print(ctx.text("model_key_forgot", preset=args.preset))
        return 0
    if sys.stdin.isatty():
        key = getpass.getpass(ctx.text("model_key_ask", preset=args.preset))
    else:
        key = sys.stdin.readline()
    key = key.strip()
    if not key:
        raise UsageError(said("cli.usage.no_key"))
    secrets.set(name, key)
    ctx.print(ctx.text("model_key_stored", preset=args.preset, store=secrets.backend.name))
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

    return run_demo(make, ctx.print, fast=args.fast, language=ctx.language)
