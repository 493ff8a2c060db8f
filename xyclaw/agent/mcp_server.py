"""``xyclaw mcp``: the Engine's tools for another agent, over MCP on stdio (issue 37).

A coding agent (Claude Code, Codex, ...) that speaks the Model Context Protocol may plan,
quote, watch and read alone. A spend, destroy or exec it asks for becomes the same bound card
as any other (:meth:`AgentRuntime.mcp_ask`), marked "asked by an MCP client (its name)", and
the call returns at once with ``pending`` and the card's id: clients time out long calls, and
the answer is the user's, given in the window or in ``xyclaw chat`` at a terminal, never
through MCP (``answer_card`` exists only to say so). ``card_status`` reports the card's fate.
Everything the client sends is untrusted: its calls are tainted as a whole, so no allowance
covers them, and its name is shown through :func:`xyclaw.wording.display.line`.

The server is ``mcp``'s low-level ``Server`` (the 2.x API: ``MCPServer`` would install its
own logging on stderr and take typed functions, where these tools already have JSON schemas).
stdout carries only the protocol: :func:`protocol_streams` moves the wire to a private
descriptor and points fd 1 at stderr, fd 0 at the null device, before anything else runs.
"""

from __future__ import annotations

import io
import json
import logging
import os
import sys
import threading
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from xyclaw.agent.tools import (
    ToolContext,
    all_tools,
    check_args,
    jsonable,
    quote_for,
    quote_parameters,
)
from xyclaw.agent.types import Decision
from xyclaw.engine.surface import Effect
from xyclaw.errors import UsageError, XyclawError
from xyclaw.wording import display, said

if TYPE_CHECKING:
    from xyclaw.agent.runtime import AgentRuntime

log = logging.getLogger(__name__)

#: What a client that gives no name is called on its cards.
UNNAMED = "unnamed client"
NAME_CHARS = 60


@dataclass(frozen=True)
class Served:
    """One MCP tool: the catalogue tool it calls (None: served here) and its description."""

    name: str
    tool: str | None
    effect: Effect
    description: str = ""


#: The MCP names, as a coding agent would look for them, of the agents' tools.
SERVED: tuple[Served, ...] = (
    Served("plan", "plan", Effect.READ),
    Served("offers", "offers", Effect.READ),
    Served(
        "quote",
        None,
        Effect.READ,
        "The exact quote a rent would ask for (a plan's option, or explicit resources): price"
        " per hour, estimated total, budget, expiry. Rents nothing.",
    ),
    Served("rent", "create_cluster", Effect.SPEND),
    Served("clusters", "list_clusters", Effect.READ),
    Served("jobs", "job_status", Effect.READ),
    Served("logs", "job_logs", Effect.READ),
    Served("launch", "launch_job", Effect.EXEC),
    Served("cancel", "cancel_job", Effect.DESTROY),
    Served("release", "release_cluster", Effect.DESTROY),
    Served("health", "cluster_health", Effect.READ),
    Served("cost", "cost", Effect.READ),
    Served("history", "history", Effect.READ),
    Served(
        "card_status",
        None,
        Effect.READ,
        "The fate of a card this client asked for (rent, launch, cancel, release): pending,"
        " running, done (with the result), rejected or failed (with why), and who decided.",
    ),
    Served(
        "answer_card",
        None,
        Effect.READ,
        "Always refused: an MCP client may ask, never answer. Cards are answered only by the"
        " user, in the XyClaw window or in `xyclaw chat` at a terminal.",
    ),
)

_EFFECT_NOTE = {
    Effect.READ: "Effect: read (changes nothing; answers at once).",
    Effect.SPEND: "Effect: spend (money).",
    Effect.DESTROY: "Effect: destroy (stops machines or a job; what is only on them is lost).",
    Effect.EXEC: "Effect: exec (runs commands on rented machines; may rent when the spec asks).",
}
_ASKS = (
    " Asks the user first: returns at once with status 'pending' and a card id; only the user"
    " answers it, in the XyClaw window or `xyclaw chat` at a terminal. Poll card_status."
)

_CARD_SCHEMA = {
    "type": "object",
    "properties": {"card": {"type": "string", "description": "the card id a call returned"}},
    "required": ["card"],
}


def client_name(raw: object) -> str:
    """The name a client gave itself, as shown on its cards: one line, no control or
    invisible characters (``display.line``), at most ``NAME_CHARS`` characters."""
    text = display.line(str(raw or "").strip() or UNNAMED)
    return text[:NAME_CHARS]


def listing() -> list[dict[str, Any]]:
    """Name, description (with the effect) and input schema of every tool served: known
    without an Engine, so that the handshake and the listing do not wait for one."""
    specs = all_tools()
    out = []
    for served in SERVED:
        spec = specs.get(served.tool) if served.tool else None
        about = served.description or (spec.description if spec else "")
        note = _EFFECT_NOTE[served.effect] + (_ASKS if served.effect is not Effect.READ else "")
        if served.name == "quote":
            schema = quote_parameters()
        elif served.name in ("card_status", "answer_card"):
            schema = _CARD_SCHEMA
        else:
            assert spec is not None
            schema = spec.parameters
        out.append(
            {
                "name": served.name,
                "description": f"{about} {note}",
                "input_schema": schema,
                "effect": served.effect,
            }
        )
    return out


class McpTools:
    """The tools of one MCP session over an Engine and an attended :class:`AgentRuntime`
    (its cards wait for the user): blocking calls, run off the event loop."""

    def __init__(self, runtime: AgentRuntime) -> None:
        self.runtime = runtime
        self.engine = runtime.engine
        self.cid: int | None = None
        self._making = threading.Lock()  # calls run on worker threads, several at a time
        self.served = {s.name: s for s in SERVED if self._available(s)}

    def _available(self, served: Served) -> bool:
        return served.tool is None or served.tool in self.runtime.catalogue.tools

    def _conversation(self, client: str) -> int:
        with self._making:
            if self.cid is None:
                self.cid = self.runtime.mcp_conversation(client)
            return self.cid

    # -- a call -------------------------------------------------------------------------------
    def call(self, name: str, args: dict[str, Any], client: str) -> tuple[dict[str, Any], bool]:
        """The result of one call and whether it is an error. XyClaw's errors come back as
        the message and what to do, never a traceback."""
        served = self.served.get(name)
        if served is None:
            raise UsageError(
                said("error.mcp.no_tool", name=repr(name)),
                hint=said("error.mcp.tools_hint", names=", ".join(self.served)),
            )
        log.info("MCP client %s calls %s", client, name)
        card = str(args.get("card") or "")
        if name == "card_status":
            return self.runtime.mcp_card(self.cid, card), False
        if name == "answer_card":
            # Through the runtime's own check, so that the refusal is the one every face gets.
            if self.cid is None:
                raise UsageError(said("error.approval.not_through_mcp", card=card))
            decision = Decision("approve", by=f"mcp client ({client})", digest=card, face="mcp")
            self.runtime.answer(self.cid, decision, lambda event: None)
            raise UsageError("an MCP client cannot answer a card")  # not reached
        # The session's conversation is made by its first call that asks: reads alone leave
        # none behind (a plan made before it is kept without one).
        ctx = ToolContext(
            engine=self.engine,
            conversation_id=cast(int, self.cid),  # None: a read outside any conversation
            asked_by="mcp client",
            asker_name=client,
        )
        if name == "quote":
            return {"quote": jsonable(quote_for(ctx, args))}, False
        assert served.tool is not None
        spec = self.runtime.catalogue.tools[served.tool]
        problems = check_args(spec.parameters, args)
        if problems:
            raise UsageError(
                said("error.mcp.bad_args", name=name, problems="; ".join(problems)),
                hint=said("error.mcp.schema_hint"),
            )
        if not spec.gated:
            out = spec.run(ctx, args, None)
            result = jsonable(out.result)
            if isinstance(result, dict) and "how_to_rent" in result:
                result["how_to_rent"] = "rent with this plan_id and an option number"
            return (result if isinstance(result, dict) else {"result": result}), False
        return self._ask(self._conversation(client), served, spec.name, args, client)

    def _ask(
        self, cid: int, served: Served, tool: str, args: dict[str, Any], client: str
    ) -> tuple[dict[str, Any], bool]:
        turn = self.runtime.mcp_ask(cid, tool, args, client)
        pending = turn.pending_approval
        if pending is not None:
            card = pending.card_id
            return {
                "status": "pending",
                "card": card,
                "conversation": cid,
                "effect": str(pending.effect),
                "title": pending.title,
                "details": jsonable(pending.details),
                "message": (
                    f"pending, card {card}: it waits for the user's answer in the XyClaw window"
                    f" or `xyclaw chat --conversation {cid}` at a terminal; call card_status"
                    f" with card {card} to see its fate"
                ),
            }, False
        # No card: the call could not even be prepared (no such cluster, no plan ...).
        calls = [c for c in turn.tool_calls if c.tool == tool]
        last = calls[-1] if calls else None
        why = (last.error or last.summary) if last is not None else turn.reply
        return {"status": last.status if last else "failed", "error": why}, True


# -- the protocol on stdio ------------------------------------------------------------------------
def protocol_streams() -> tuple[io.TextIOWrapper, io.TextIOWrapper]:
    """The wire's reader and writer on private descriptors; from here on fd 1 (and
    ``sys.stdout``) is stderr and fd 0 the null device, so that nothing else, a stray
    print, a library or a child process, can write into the protocol or read from it."""
    sys.stdout.flush()
    wire_out = os.dup(1)
    wire_in = os.dup(0)
    os.dup2(2, 1)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    reader = io.TextIOWrapper(os.fdopen(wire_in, "rb"), encoding="utf-8", errors="replace")
    writer = io.TextIOWrapper(os.fdopen(wire_out, "wb"), encoding="utf-8")
    return reader, writer


def serve(
    build: Callable[[], AgentRuntime],
    version: str,
    streams: tuple[io.TextIOWrapper, io.TextIOWrapper],
) -> AgentRuntime | None:
    """Serve the tools on the wire ``streams`` (:func:`protocol_streams`) until the client
    closes the pipe; returns the runtime, once built, for the caller to close.

    The runtime (LangGraph, the Engine, the simulated cloud) is built by ``build`` on a
    thread while the handshake and the listing are answered: clients give a server a few
    seconds to start. A call waits for it; when it could not be built, each call says why."""
    import anyio
    import mcp_types as types
    from mcp.server import Server
    from mcp.server.stdio import stdio_server

    reader, writer = streams
    made: Future[McpTools] = Future()

    def make() -> None:
        try:
            made.set_result(McpTools(build()))
        except BaseException as exc:  # said at every call (a XyclawError: its message)
            log.exception("the MCP server's engine could not start")
            made.set_exception(exc)

    threading.Thread(target=make, name="mcp-start", daemon=True).start()

    def call(name: str, args: dict[str, Any], client: str) -> tuple[dict[str, Any], bool]:
        return made.result().call(name, args, client)

    async def list_tools(ctx: Any, params: Any) -> Any:
        return types.ListToolsResult(
            tools=[
                types.Tool(
                    name=t["name"],
                    description=t["description"],
                    input_schema=t["input_schema"],
                    annotations=types.ToolAnnotations(
                        read_only_hint=t["effect"] is Effect.READ,
                        destructive_hint=t["effect"] is Effect.DESTROY,
                        open_world_hint=True,
                    ),
                )
                for t in listing()
            ]
        )

    async def call_tool(ctx: Any, params: Any) -> Any:
        client = client_name(_client_of(ctx))
        args = dict(params.arguments or {})
        try:
            body, failed = await anyio.to_thread.run_sync(call, params.name, args, client)
        except XyclawError as exc:
            log.info("MCP %s refused: %s", params.name, exc.message)
            body, failed = {"error": exc.message, "hint": exc.hint}, True
        except Exception:  # never a traceback to the client: the log has it
            log.exception("MCP tool %s failed", params.name)
            body = {"error": f"{params.name} failed unexpectedly", "hint": "see XyClaw's log"}
            failed = True
        text = json.dumps(body, ensure_ascii=False, default=str)
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=text)],
            structured_content=json.loads(text),
            is_error=failed,
        )

    server: Any = Server(
        "xyclaw",
        version=version,
        instructions=(
            "XyClaw rents GPUs and runs jobs on them. Reads answer at once; rent, launch,"
            " cancel and release return 'pending' with a card that only the user answers (in"
            " the XyClaw window or `xyclaw chat`); poll card_status."
        ),
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )

    async def main() -> None:
        async with stdio_server(stdin=anyio.wrap_file(reader), stdout=anyio.wrap_file(writer)) as (
            read_stream,
            write_stream,
        ):
            await server.run(read_stream, write_stream, server.create_initialization_options())

    log.info("serving MCP on stdio")
    anyio.run(main)
    log.info("the MCP client closed the pipe")
    try:
        return made.result().runtime
    except BaseException:
        return None


def _client_of(ctx: Any) -> object:
    """The name in the client's handshake (or a modern request's envelope), if any."""
    params = getattr(getattr(ctx, "session", None), "client_params", None)
    info = getattr(params, "client_info", None)
    return getattr(info, "name", None)
