"""AgentRuntime: conversations, turns, approvals and allowances for the GUI and the CLI.

The graph's checkpoints live in their own SQLite file (``paths.agent_checkpoints``, one
``SqliteSaver`` for it), so a conversation and a pending approval survive a restart and
never contend with the history database's lock. What the user sees later (messages,
the tool-call audit, tokens and cost) goes to the history database through
:mod:`xyclaw.store.conversations`. ``send`` and ``answer`` block: run them off the Qt thread.
"""

from __future__ import annotations

import datetime as dt
import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from langgraph.errors import GraphRecursionError

from xyclaw.agent.brain import Brain
from xyclaw.agent.graph import (
    Hooks,
    build_graph,
    new_call_id,
    new_turn,
    request_language,
    user_message,
)
from xyclaw.agent.profiles import load_agents
from xyclaw.agent.tools import TOOL_NAMES, build_catalogue
from xyclaw.agent.types import (
    AgentEvent,
    Allowance,
    ApprovalRequest,
    ApprovalRequested,
    ChatMessage,
    ConversationInfo,
    Decision,
    Effect,
    PlanShown,
    ReasoningDelta,
    ReplyDone,
    SuggestedAction,
    TokenDelta,
    ToolCallRecord,
    ToolFinished,
    ToolStarted,
    TurnFailed,
    TurnResult,
)
from xyclaw.config import Config
from xyclaw.engine import Engine
from xyclaw.engine.values import Store
from xyclaw.errors import AgentError, OperationCancelled, UsageError, XyclawError
from xyclaw.paths import AppPaths
from xyclaw.secrets import mask_value
from xyclaw.wording import Said, said

log = logging.getLogger(__name__)
#: How long closing waits for a running turn to stop (it is asked to stop at once).
CLOSE_WAIT_S = 10.0

OnEvent = Callable[[AgentEvent], None]
DEFAULT_TITLE = "New conversation"
MONITOR_TITLE = "Monitor"


def make_brain(config: Config, secrets: Any) -> Brain:
    """The rules brain, or the LLM brain for ``[llm] preset``."""
    if config.llm.preset == "rules":
        from xyclaw.agent.rules_brain import RulesBrain

        return RulesBrain()
    from xyclaw.agent.llm import LlmBrain
    from xyclaw.agent.presets import resolve_endpoint

    return LlmBrain(resolve_endpoint(config.llm, secrets))


class AgentRuntime:
    def __init__(
        self,
        engine: Any,
        *,
        paths: AppPaths,
        config: Config,
        brain: Brain | None = None,
        unattended: bool = False,
        store: Store,
    ) -> None:
        from langgraph.checkpoint.sqlite import SqliteSaver

        from xyclaw.agent.checkpoint_serde import MaskingSerializer

        self.engine = engine
        # The history database the engine writes (one writer per process): whoever builds
        # the engine and the runtime hands both the same one.
        self.store = store
        self.conv = Engine.conversations(store)
        self.config = config
        self.paths = paths
        self.brain: Brain = brain or make_brain(config, getattr(engine, "secrets", None))
        self.brain_name = self.brain.name
        self.catalogue = build_catalogue(engine)
        self.agents = load_agents(TOOL_NAMES, paths.config_dir / "agents")
        self._conn = Engine.open_checkpoint_connection(paths.agent_checkpoints)
        self._saver = SqliteSaver(self._conn, serde=MaskingSerializer())
        self._saver.setup()
        self.hooks = Hooks(
            engine=engine,
            store=self.store,
            brain=self.brain,
            agents=self.agents,
            catalogue=self.catalogue,
            max_rounds=config.agents.max_tool_rounds,
            remote_chars=config.agents.remote_output_chars,
            spend_allowance_micros=round(config.agents.spend_allowance * 1_000_000),
            unattended=unattended,
            context_of=self._context,
        )
        self.graph = build_graph(self.hooks).compile(checkpointer=self._saver)
        self._locks: dict[int, threading.Lock] = {}
        self._locks_guard = threading.Lock()
        # turns running now: close() waits for them (a checkpoint written on LangGraph's
        # thread into a connection closed under it crashed the process: a user quitting while
        # the agent still answered)
        self._turns = 0
        self._turns_done = threading.Condition()
        self._closing = False
        # the language of the window each conversation was last written in (send's language)
        self._window_language: dict[int, str] = {}
        self.fail_orphaned_calls()

    # -- conversations --------------------------------------------------------------------------
    def conversations(self, search: str | None = None) -> list[ConversationInfo]:
        pending = self._pending_ids()
        return [
            self._info(row, row["id"] in pending) for row in self.conv.list_conversations(search)
        ]

    def conversation(self, cid: int) -> ConversationInfo:
        row = self.conv.get_conversation(cid)
        if row is None:
            raise UsageError(
                said("error.chat.no_conversation", cid=cid),
                hint=said("error.chat.no_conversation_hint"),
            )
        return self._info(row, cid in self._pending_ids())

    def waiting_conversations(self) -> set[int]:
        """The conversations where a card waits, whoever asked and in whatever process (an
        MCP client's through `xyclaw mcp`): a window looks for them every few seconds."""
        return self._pending_ids()

    def _pending_ids(self) -> set[int]:
        rows = self.conv.list_tool_calls_with_status("pending_approval")
        return {int(r["conversation_id"]) for r in rows}

    @staticmethod
    def _info(row: dict[str, Any], pending: bool) -> ConversationInfo:
        return ConversationInfo(
            id=int(row["id"]),
            title=str(row["title"]),
            created_at=float(row["created_at"]),
            updated_at=float(row["updated_at"]),
            tokens_in=int(row["tokens_in"]),
            tokens_out=int(row["tokens_out"]),
            cost_micros=int(row["cost_micros"]),
            currency=str(row["currency"]),
            pending_approval=pending,
            kind=str(row.get("kind") or "chat"),
        )

    def new_conversation(self, title: str | None = None, *, kind: str = "chat") -> int:
        return self.conv.create_conversation(
            title or DEFAULT_TITLE,
            brain=self.brain_name,
            kind=kind,
            currency=self.brain.price.currency,
        )

    def monitor_conversation(self) -> int:
        found = self.conv.conversation_of_kind("monitor")
        return found if found is not None else self.new_conversation(MONITOR_TITLE, kind="monitor")

    def rename_conversation(self, cid: int, title: str) -> None:
        if not self.conv.rename_conversation(cid, title.strip() or DEFAULT_TITLE):
            raise UsageError(said("error.chat.no_conversation", cid=cid))

    def delete_conversation(self, cid: int) -> None:
        with self._lock(cid):
            self.conv.delete_conversation(cid)
            try:
                self._saver.delete_thread(self._thread(cid))
            except Exception:  # an old checkpoint left behind costs only disk
                log.exception("could not delete the checkpoints of conversation %d", cid)

    def messages(self, cid: int) -> list[ChatMessage]:
        self.fail_orphaned_calls(cid)  # opened: a call left 'running' by a dead process says so
        return [_message(row) for row in self.conv.list_messages(cid)]

    def fail_orphaned_calls(self, cid: int | None = None) -> list[dict[str, Any]]:
        """Tool calls left 'running' by a process that has ended (killed or crashed
        mid-effect), in ``cid`` or every conversation: marked failed with a note to check
        what they did; never run again."""
        why = said("agent.not_run.interrupted")
        marked = self.conv.fail_orphaned_tool_calls(
            cid, error=why.english, error_said=why.to_json()
        )
        for row in marked:
            log.warning(
                "tool call %s (%s) of conversation %s: its process %s ended while it ran",
                row["call_id"],
                row.get("tool"),
                row["conversation_id"],
                row.get("claimant_pid"),
            )
        return marked

    # -- turns ----------------------------------------------------------------------------------
    def send(
        self,
        cid: int,
        text: str,
        on_event: OnEvent,
        cancel: threading.Event | None = None,
        *,
        language: str | None = None,
    ) -> TurnResult:
        """One user turn: route, call tools, stop at an approval or answer. Blocking.
        ``language``: the window's ("en" or "zh"), for a reply the request's own words cannot
        choose the language of (text the brain did not understand)."""
        text = text.strip()
        if not text:
            raise UsageError(said("error.chat.empty"))
        if language is not None:
            self._window_language[cid] = language
        info = self.conversation(cid)
        with self._lock(cid):
            pending = self.pending_approval(cid)
            if pending is not None:
                # A new message instead of an answer: the pending request is a no.
                self._run(
                    cid,
                    self._resume(Decision("reject", by="user (sent a new message)")),
                    lambda event: None,
                    cancel,
                )
            if info.title == DEFAULT_TITLE:
                self.conv.rename_conversation(cid, text.splitlines()[0][:60])
            self.conv.add_message(cid, "user", text)
            read = self._pasted_output(cid, text, on_event)
            if read is not None:
                return read
            turn_id = int(time.time() * 1000)
            state_input = {
                "messages": [user_message(text)],
                "turn": new_turn(turn_id),
                "queue": [],
                "gate": None,
                "decision": None,
                "final": None,
            }
            return self._run(cid, state_input, on_event, cancel)

    def _pasted_output(self, cid: int, text: str, on_event: OnEvent) -> TurnResult | None:
        """Command output pasted on its own (issue 30): read by ``Engine.diagnose``, the
        method behind ``xyclaw diagnose``, and answered at once in the chat's language. Text it
        cannot read (a question, one line) goes to the agents as before."""
        if text.count("\n") < 2:
            return None
        try:
            found = self.engine.diagnose(text)
        except XyclawError:
            return None
        earlier = " ".join(m.text for m in self.messages(cid) if m.role == "user")
        chinese = any("\u4e00" <= ch <= "\u9fff" for ch in earlier) or str(
            self.config.gui.language
        ).startswith("zh")
        reply = "\n".join(found.lines("zh" if chinese else "en"))
        message_id = self.conv.add_message(
            cid, "assistant", reply, agent="monitor", data={"diagnosis": found.kind}
        )
        message = ChatMessage(
            id=message_id,
            conversation_id=cid,
            role="assistant",
            agent="monitor",
            text=reply,
            reasoning=None,
            tool_call=None,
            ts=time.time(),
        )
        on_event(ReplyDone(cid, message))
        return TurnResult(cid, "monitor", reply, [], None, 0, 0, 0, self.brain.price.currency)

    def answer(
        self,
        cid: int,
        decision: Decision,
        on_event: OnEvent,
        cancel: threading.Event | None = None,
    ) -> TurnResult:
        """Answer the pending approval (approve, reject, edit) and go on with the turn.

        A yes must name the card it is for (``decision.digest``: its digest, or the card id,
        a prefix of it): it is refused, and the card left waiting, when the card waiting is
        another one. The yes is claimed once in the database before anything runs, so two
        windows or processes never act on one card twice."""
        with self._lock(cid):
            pending = self.pending_approval(cid)
            if pending is None:
                raise UsageError(
                    said("error.approval.no_card", cid=cid),
                    hint=said("error.approval.no_card_hint"),
                )
            self._check_face(cid, pending, decision)
            if decision.kind == "approve":
                decision = self._named_card(cid, pending, decision)
            return self._run(cid, self._resume(decision), on_event, cancel)

    #: Where a card an MCP client asked for may be answered yes (or edited): by the user, in
    #: the window or in ``xyclaw chat`` with a terminal on stdin (issue 37).
    ANSWERED_BY_A_PERSON = frozenset({"window", "terminal"})

    @staticmethod
    def _check_face(cid: int, pending: ApprovalRequest, decision: Decision) -> None:
        """Refuse, leaving the card waiting, an answer to an MCP client's card from where a
        program could give it: MCP itself, ``xyclaw ask``, a process without a terminal.
        A no is taken from anywhere but MCP (it runs nothing)."""
        face = decision.face or "no terminal"
        if face == "mcp":  # no answer to any card is ever taken from an MCP client
            log.warning("card %s: an MCP client tried to answer it; refused", pending.card_id)
            raise UsageError(
                said("error.approval.not_through_mcp", card=pending.card_id),
                hint=said("error.approval.mcp_where_hint", cid=cid),
            )
        if str(pending.action.get("asked_by")) != "mcp client":
            return
        if decision.kind == "reject" and face != "mcp":
            return
        if face in AgentRuntime.ANSWERED_BY_A_PERSON:
            return
        where = "ask" if face == "ask" else "no_terminal"
        log.warning(
            "card %s of an MCP client: a %s from %s refused", pending.card_id, decision.kind, face
        )
        raise UsageError(
            said(
                "error.approval.mcp_where",
                card=pending.card_id,
                face=said(f"error.approval.face.{where}"),
            ),
            hint=said("error.approval.mcp_where_hint", cid=cid),
        )

    def _named_card(self, cid: int, pending: ApprovalRequest, decision: Decision) -> Decision:
        """``decision`` with the full digest of the card it names, or why it names none."""
        from dataclasses import replace

        from xyclaw.engine.approvals import check_prefix, matches_card

        waiting = said(
            "error.approval.card_line",
            card=pending.card_id,
            effect=str(pending.effect),
            title=pending.title,
        )
        hint = said("error.approval.name_a_card_hint", cid=cid, card=pending.card_id)
        if not decision.digest:
            raise UsageError(said("error.approval.name_a_card", cid=cid, cards=waiting), hint=hint)
        if not matches_card(pending.digest, decision.digest):
            raise UsageError(
                said(
                    "error.approval.not_this_card",
                    card=decision.digest,
                    cid=cid,
                    cards=waiting,
                ),
                hint=hint,
            )
        command = pending.action.get("command")
        if decision.remember and decision.remember_prefix and command is not None:
            check_prefix(decision.remember_prefix, str(command))  # refused before the yes
        return replace(decision, digest=pending.digest)

    def pending_cards(self, cid: int) -> list[ApprovalRequest]:
        """The cards waiting in a conversation (one at most: one approval at a time)."""
        pending = self.pending_approval(cid)
        return [] if pending is None else [pending]

    def rent_option(
        self,
        cid: int,
        plan_id: int,
        option: int,
        on_event: OnEvent,
        cancel: threading.Event | None = None,
        *,
        language: str = "en",
    ) -> TurnResult:
        """ "Rent this" on a plan row: the create_cluster tool and its approval, as if asked
        in ``language`` (the window's: the request is stored in it and answered in it)."""
        text = said("agent.rent_option", option=option, plan=plan_id).in_language(language)
        result = self._direct_call(
            cid,
            text,
            "provisioner",
            "create_cluster",
            {"plan_id": plan_id, "option": option},
            on_event,
            cancel,
            asked_by="user",
        )
        assert result is not None  # only only_if_free calls give up
        return result

    def run_action(
        self,
        cid: int,
        action: SuggestedAction,
        on_event: OnEvent,
        cancel: threading.Event | None = None,
    ) -> TurnResult:
        """A monitor message's suggested action: the same tool, the same approval."""
        result = self._direct_call(
            cid,
            action.label,
            self._caller(action.tool, "monitor"),
            action.tool,
            dict(action.args),
            on_event,
            cancel,
            asked_by="suggestion",
        )
        assert result is not None  # only only_if_free calls give up
        return result

    def _caller(self, tool: str, preferred: str) -> str:
        """The agent that makes a call XyClaw starts itself: ``preferred`` when it may call
        ``tool``, else the tool's owner."""
        if tool in self.agents.agents[preferred].tools:
            return preferred
        return self.agents.owner_of(tool) or preferred

    def propose_action(
        self,
        cid: int,
        action: SuggestedAction,
        text: str,
        on_event: OnEvent,
        cancel: threading.Event | None = None,
    ) -> TurnResult | None:
        """XyClaw proposes ``action`` (an open alert's, from the heartbeat): its tool call,
        said as ``text`` by the agent, stops at the approval card in ``cid``, answered like
        any other (``answer``; ``xyclaw ask --conversation N --approve``). Nothing runs
        without that yes; unattended the answer is no. None when a card already waits there
        (it is not pushed aside) or the action is a read."""
        if action.effect is Effect.READ or action.tool not in self.catalogue.tools:
            return None
        return self._direct_call(
            cid,
            text,
            self._caller(action.tool, "monitor"),
            action.tool,
            dict(action.args),
            on_event,
            cancel,
            by_user=False,
            only_if_free=True,
            asked_by="suggestion",
        )

    def propose_replacement(
        self,
        cid: int,
        on_event: OnEvent,
        cancel: threading.Event | None = None,
    ) -> TurnResult | None:
        """A job whose recovery waits for a new node (``Engine.replacement_asks``) gets its
        approval card in this conversation: the ``approve_replacement`` tool for that job and
        quote, the same card as renting. Only the user's answer to it (``answer``) approves
        (the job rents exactly that quote) or declines. None when no ask is new here, or
        another card already waits (it is not pushed aside)."""
        if "approve_replacement" not in self.catalogue.tools or self.hooks.unattended:
            return None
        asks = getattr(self.engine, "replacement_asks", None)
        pending = list(asks()) if callable(asks) else []
        if not pending or self.pending_approval(cid) is not None:
            return None
        shown = {
            str(c.args.get("digest"))
            for c in self.tool_calls(cid)
            if c.tool == "approve_replacement"
        }
        for ask in pending:
            if ask.quote.digest in shown:
                continue
            return self._direct_call(
                cid,
                f"Job {ask.job_id} ({ask.job}) lost {', '.join(ask.nodes)}: rent a replacement?",
                # The jobs agent asks for a job's node (the monitor may call it too).
                self._caller("approve_replacement", "operator"),
                "approve_replacement",
                {"job": str(ask.job_id), "digest": ask.quote.digest},
                on_event,
                cancel,
                by_user=False,
                asked_by="recovery",
            )
        return None

    def _direct_call(
        self,
        cid: int,
        text: str,
        agent: str,
        tool: str,
        args: dict[str, Any],
        on_event: OnEvent,
        cancel: threading.Event | None,
        *,
        by_user: bool = True,
        only_if_free: bool = False,
        asked_by: str = "user",
        asker_name: str | None = None,
    ) -> TurnResult | None:
        self.conversation(cid)
        with self._lock(cid):
            if self.pending_approval(cid) is not None:
                if only_if_free:
                    return None
                self._run(
                    cid,
                    self._resume(Decision("reject", by="user (started another action)")),
                    lambda event: None,
                    cancel,
                )
            if by_user:
                self.conv.add_message(cid, "user", text)
            else:  # XyClaw asks (a job's recovery): shown as its message, not the user's
                self.conv.add_message(cid, "assistant", text, agent=agent)
            call_id = new_call_id()
            import json

            call = {
                "id": call_id,
                "name": tool,
                "arguments": json.dumps(args),
                "args": args,
                "error": None,
                "audit_id": call_id,
                "agent": agent,
                "asked_by": asked_by,  # XyClaw made this call, not a model: never tainted
            }
            if asker_name is not None:  # an MCP client (its calls are all tainted)
                call["asker_name"] = asker_name
            assistant = {
                "role": "assistant",
                "content": None,
                "name": agent,
                "tool_calls": [
                    {
                        "id": call_id,
                        "type": "function",
                        "function": {"name": tool, "arguments": call["arguments"]},
                    }
                ],
            }
            turn = {**new_turn(int(time.time() * 1000)), "rounds": 1}
            state_input = {
                "messages": [user_message(text), assistant],
                "turn": turn,
                "queue": [call],
                "agent": agent,
                "gate": None,
                "decision": None,
                "final": None,
            }
            return self._run(cid, state_input, on_event, cancel)

    # -- an MCP client asks, never answers (issue 37) ----------------------------------------------
    def mcp_conversation(self, client: str) -> int:
        """A new conversation for one MCP session: its cards wait there, in the window's list
        and in ``xyclaw chat --conversation N``."""
        title = said("agent.mcp.title", name=client).in_language(self._language())
        return self.new_conversation(title[:60], kind="mcp")

    def mcp_ask(self, cid: int, tool: str, args: dict[str, Any], client: str) -> TurnResult:
        """A spend, destroy or exec tool called by an MCP client: its card, bound like any
        other and marked "asked by an MCP client (client)", is left waiting in ``cid`` and
        the call returns at once. Every argument is tainted (the client is not the user), so
        no allowance covers it. Refused while another card of the client waits (one at a
        time: a second call never pushes the first aside)."""
        import json

        spec = self.catalogue.get(tool)
        if spec is None or not spec.gated:
            raise UsageError(
                said("error.chat.not_asking", tool=tool), hint=said("error.chat.bug_hint")
            )
        pending = self.pending_approval(cid)
        if pending is not None:
            raise UsageError(
                said("error.mcp.card_waits", card=pending.card_id),
                hint=said("error.mcp.card_waits_hint", card=pending.card_id),
            )
        text = said(
            "agent.mcp.asks",
            name=client,
            tool=tool,
            args=json.dumps(args, ensure_ascii=False, sort_keys=True),
        ).in_language(self._language())
        result = self._direct_call(
            cid,
            text,
            self._caller(tool, "operator"),
            tool,
            dict(args),
            lambda event: None,
            None,
            by_user=False,  # the client's words are not the user's: they clear no taint
            only_if_free=True,
            asked_by="mcp client",
            asker_name=client,
        )
        if result is None:  # a card came between the check and the call
            raise UsageError(said("error.mcp.card_waits", card="?"))
        return result

    def mcp_card(self, cid: int | None, card: str) -> dict[str, Any]:
        """The fate of a card an MCP client asked for, in ``cid`` (this session's) or an
        earlier MCP session's conversation (clients restart their servers): pending, running,
        done (with the result), rejected or failed (with why); who decided."""
        from xyclaw.engine.approvals import matches_card

        others = [c.id for c in self.conversations() if c.kind == "mcp" and c.id != cid]
        calls: list[dict[str, Any]] = []
        for where in [*([] if cid is None else [cid]), *sorted(others, reverse=True)]:
            calls = [
                row
                for row in self.conv.list_tool_calls(where)
                if row.get("digest") and matches_card(str(row["digest"]), card)
            ]
            if calls:
                cid = where
                break
        if not calls:
            raise UsageError(
                said("error.mcp.no_card", card=card), hint=said("error.mcp.no_card_hint")
            )
        row = calls[-1]
        status = str(row.get("status"))
        out: dict[str, Any] = {
            "card": str(row["digest"])[:8],
            "tool": row.get("tool"),
            "status": "pending" if status == "pending_approval" else status,
            "decided_by": row.get("decided_by"),
            "conversation": cid,
        }
        if status == "done":
            out["result"] = row.get("result")
        elif status in ("failed", "rejected"):
            out["why"] = row.get("error") or row.get("summary")
        return out

    def _language(self) -> str:
        return "zh" if str(self.config.gui.language).startswith("zh") else "en"

    def pending_approval(self, cid: int) -> ApprovalRequest | None:
        snapshot = self.graph.get_state(self._config(cid))
        for task in snapshot.tasks:
            for item in task.interrupts:
                if isinstance(item.value, dict) and "approval_id" in item.value:
                    return ApprovalRequest.from_payload(cid, item.value)
        return None

    # -- allowances and usage -------------------------------------------------------------------
    def allowances(self, cid: int | None = None) -> list[Allowance]:
        return [
            Allowance(
                id=int(r["id"]),
                conversation_id=int(r["conversation_id"]),
                conversation_title=str(r["conversation_title"]),
                cluster=str(r["cluster"]),
                tool=str(r["tool"]),
                effect=Effect(r["effect"]),
                created_at=float(r["created_at"]),
                cluster_id=None if r.get("cluster_id") is None else int(r["cluster_id"]),
                command=r.get("command"),
                prefix=None if r.get("prefix") is None else tuple(r["prefix"]),
            )
            for r in self.conv.list_allowances(cid)
        ]

    def revoke(self, allowance_id: int) -> None:
        if not self.conv.revoke_allowance(allowance_id):
            raise UsageError(said("error.chat.no_allowance", id=allowance_id))

    def usage_today(self) -> Any:
        from xyclaw.agent.types import Usage

        midnight = dt.datetime.combine(dt.date.today(), dt.time()).timestamp()
        found = self.conv.usage_since(midnight)
        return Usage(found["tokens_in"], found["tokens_out"], found["cost_micros"])

    def tool_calls(self, cid: int) -> list[ToolCallRecord]:
        return [_record(r) for r in self.conv.list_tool_calls(cid)]

    def close(self) -> None:
        """Stop: running turns are asked to stop and waited for (up to
        :data:`CLOSE_WAIT_S`) before the checkpoint file is closed under them."""
        with self._turns_done:
            self._closing = True
            for event in list(self.hooks.cancels.values()):
                event.set()
            finished = self._turns_done.wait_for(lambda: self._turns == 0, CLOSE_WAIT_S)
        try:
            self.brain.close()
        finally:
            if finished:
                self._conn.close()
            else:  # a turn still runs: leave its connection to the process's end
                log.warning("an agent turn still ran at close; its checkpoint file stays open")

    # -- running the graph ----------------------------------------------------------------------
    def _lock(self, cid: int) -> threading.Lock:
        with self._locks_guard:
            return self._locks.setdefault(cid, threading.Lock())

    @staticmethod
    def _thread(cid: int) -> str:
        return f"conversation-{cid}"

    def _config(self, cid: int) -> dict[str, Any]:
        return {
            "configurable": {"thread_id": self._thread(cid), "conversation_id": cid},
            "recursion_limit": 200,
        }

    @staticmethod
    def _resume(decision: Decision) -> Any:
        from langgraph.types import Command

        return Command(resume=decision.to_json())

    def _context(self, cid: int, base: dict[str, Any]) -> dict[str, Any]:
        """What the brains know besides the messages: live clusters and jobs (reads only)."""
        context = dict(base)
        try:
            lister = getattr(self.engine, "clusters", None)
            found = lister() if callable(lister) else self.engine.list_clusters()
            context["clusters"] = [c.name for c in found]
            # how many nodes each has: "start the LoRA fine-tune on my cluster" picks the
            # one-node or the two-node sample by it
            context["cluster_nodes"] = {c.name: _node_count(c) for c in found}
        except XyclawError:
            context["clusters"] = []
        context["jobs"] = self._active_jobs()
        if cid in self._window_language:
            context["window_language"] = self._window_language[cid]
        return context

    def _active_jobs(self) -> list[str]:
        """The names of the jobs not yet ended, read from the history database: listing them
        through the Engine would build its job runtime (SSH, followers, some 300 modules) on
        every turn, a plan request included."""
        return Engine.active_job_names(self.store)

    def _run(
        self, cid: int, graph_input: Any, on_event: OnEvent, cancel: threading.Event | None
    ) -> TurnResult:
        with self._turns_done:
            if self._closing:
                raise AgentError(said("agent.closing"), hint=said("agent.closing_hint"))
            self._turns += 1
        try:
            return self._run_turn(cid, graph_input, on_event, cancel)
        finally:
            with self._turns_done:
                self._turns -= 1
                self._turns_done.notify_all()

    def _turn_language(self, config: Any) -> str:
        """The language of the turn's request, for a line said when it stops; English when
        even the conversation's state cannot be read (the turn may have crashed on it)."""
        try:
            words = self.graph.get_state(config).values.get("messages") or []
        except Exception:  # a broken checkpoint must not turn a stop into a traceback
            return "en"
        return request_language(words)

    def _run_turn(
        self, cid: int, graph_input: Any, on_event: OnEvent, cancel: threading.Event | None
    ) -> TurnResult:
        config = self._config(cid)
        event = cancel or threading.Event()
        self.hooks.cancels[cid] = event
        failure: str | None = None
        failure_exit = 1
        try:
            for mode, chunk in self.graph.stream(
                graph_input, config, stream_mode=["custom", "updates"], durability="sync"
            ):
                if mode == "custom":
                    self._forward(cid, chunk, on_event)
                if event.is_set():
                    raise OperationCancelled("the turn was cancelled")
        except OperationCancelled:
            failure = Said("error.chat.cancelled", {}).in_language(self._turn_language(config))
        except GraphRecursionError:  # a model that never stops calling tools
            steps = config.get("recursion_limit", 0)
            words = self.graph.get_state(config).values.get("messages") or []
            stopped = Said("agent.turn.recursion", {"steps": steps})
            failure = stopped.in_language(request_language(words))
            failure_exit = 2
            log.info("turn of conversation %d hit the step limit (%s)", cid, steps)
        except XyclawError as exc:
            # In the request's language where the error is worded (an endpoint's named errors).
            words = self.graph.get_state(config).values.get("messages") or []
            message, hint = exc.in_language(request_language(words))
            failure = f"{message}\n  -> {hint}" if hint else message
            failure_exit = exc.exit_code
            log.info("turn of conversation %d failed: %s", cid, exc.message)
        except Exception as exc:  # a bug must not reach the user as a traceback
            log.exception("turn of conversation %d crashed", cid)
            crashed = Said("error.chat.crashed", {"kind": type(exc).__name__})
            failure = crashed.in_language(self._turn_language(config))
        finally:
            self.hooks.cancels.pop(cid, None)
        snapshot = self.graph.get_state(config)
        values = snapshot.values or {}
        turn = values.get("turn") or new_turn(0)
        calls = self._turn_calls(cid, turn)
        pending = self.pending_approval(cid)
        if failure is not None:
            self.conv.add_usage(cid, turn["tokens_in"], turn["tokens_out"], turn["cost_micros"])
            self.conv.add_message(cid, "assistant", failure, agent="xyclaw", data={"failed": True})
            on_event(TurnFailed(cid, failure))
            return TurnResult(
                cid,
                "xyclaw",
                failure,
                calls,
                None,
                turn["tokens_in"],
                turn["tokens_out"],
                turn["cost_micros"],
                self.brain.price.currency,
                exit_code=failure_exit,
            )
        if pending is not None:
            said = _said_before_card(values.get("messages") or [])
            key = str(pending.approval_id)
            if said and key not in self.conv.message_data_values(cid, "before_card"):
                # What the agent said with the call that asks (the alerts it proposes for):
                # kept with the conversation, and the reply of `xyclaw ask`.
                self.conv.add_message(
                    cid,
                    "assistant",
                    said,
                    agent=pending.agent,
                    data={"before_card": key},
                )
            on_event(ApprovalRequested(cid, pending))
            return TurnResult(
                cid,
                pending.agent,
                said,
                calls,
                pending,
                turn["tokens_in"],
                turn["tokens_out"],
                turn["cost_micros"],
                self.brain.price.currency,
            )
        final = values.get("final") or {
            "agent": "supervisor",
            "text": "",
            "reasoning": None,
            "tokens_in": 0,
            "tokens_out": 0,
            "cost_micros": 0,
        }
        message_id = self.conv.add_message(
            cid,
            "assistant",
            final["text"],
            agent=final["agent"],
            reasoning=final.get("reasoning"),
            tokens_in=final["tokens_in"],
            tokens_out=final["tokens_out"],
            cost_micros=final["cost_micros"],
        )
        message = ChatMessage(
            id=message_id,
            conversation_id=cid,
            role="assistant",
            agent=final["agent"],
            text=final["text"],
            reasoning=final.get("reasoning"),
            tool_call=None,
            ts=time.time(),
            tokens_in=final["tokens_in"],
            tokens_out=final["tokens_out"],
            cost_micros=final["cost_micros"],
        )
        on_event(ReplyDone(cid, message))
        return TurnResult(
            cid,
            final["agent"],
            final["text"],
            calls,
            None,
            final["tokens_in"],
            final["tokens_out"],
            final["cost_micros"],
            self.brain.price.currency,
            final.get("reasoning"),
        )

    def _turn_calls(self, cid: int, turn: dict[str, Any]) -> list[ToolCallRecord]:
        wanted = list(turn.get("calls") or [])
        if not wanted:
            return []
        rows = {r["call_id"]: r for r in self.conv.list_tool_calls(cid)}
        return [_record(rows[c]) for c in wanted if c in rows]

    def _forward(self, cid: int, chunk: Any, on_event: OnEvent) -> None:
        if not isinstance(chunk, dict):
            return
        chunk = mask_value(chunk)  # a tool's result or error may quote a secret
        kind = chunk.get("type")
        try:
            if kind == "token" and chunk.get("text"):
                on_event(TokenDelta(cid, chunk["agent"], chunk["text"]))
            elif kind == "reasoning" and chunk.get("text"):
                on_event(ReasoningDelta(cid, chunk["agent"], chunk["text"]))
            elif kind == "tool_started":
                on_event(ToolStarted(cid, _record(chunk["call"])))
            elif kind == "tool_finished":
                on_event(ToolFinished(cid, _record(chunk["call"])))
            elif kind == "plan":
                on_event(PlanShown(cid, int(chunk["plan_id"]), list(chunk["options"])))
        except Exception:  # a caller's handler must not break the turn
            log.exception("an agent event handler failed")


def _node_count(cluster: Any) -> int:
    """A cluster's nodes, from its GPUs (a record may not list its nodes yet)."""
    gpus = int(getattr(cluster, "gpu_count", 0) or 0)
    per_node = int(getattr(cluster, "gpus_per_node", 0) or 0)
    if gpus and per_node:
        return max(1, -(-gpus // per_node))
    return max(1, len(getattr(cluster, "nodes", ()) or ()))


def _said_before_card(messages: list[dict[str, Any]]) -> str:
    """The text of the assistant message whose tool call waits for approval (the last
    message of the turn so far), or "" when it came without words."""
    if not messages:
        return ""
    last = messages[-1]
    if last.get("role") != "assistant" or not last.get("tool_calls"):
        return ""
    return str(last.get("content") or "")


def _record(row: dict[str, Any]) -> ToolCallRecord:
    return ToolCallRecord(
        call_id=str(row.get("call_id")),
        tool=str(row.get("tool")),
        effect=Effect(row.get("effect") or "read"),
        args=dict(row.get("args") or {}),
        status=row.get("status") or "running",
        duration_s=row.get("duration_s"),
        summary=row.get("summary"),
        error=row.get("error"),
        from_remote=bool(row.get("from_remote")),
        agent=row.get("agent"),
        result=row.get("result"),
        summary_said=Said.from_json(row.get("summary_said")),
        error_said=Said.from_json(row.get("error_said")),
    )


def _message(row: dict[str, Any]) -> ChatMessage:
    import json

    call = None
    if row.get("tc_call_id") is not None:
        call = ToolCallRecord(
            call_id=str(row["tc_call_id"]),
            tool=str(row["tc_tool"]),
            effect=Effect(row["tc_effect"]),
            args=json.loads(row.get("tc_args_json") or "{}"),
            status=row.get("tc_status") or "running",
            duration_s=row.get("tc_duration_s"),
            summary=row.get("tc_summary"),
            error=row.get("tc_error"),
            from_remote=bool(row.get("tc_from_remote")),
            agent=row.get("agent"),
            summary_said=Said.from_json(row.get("tc_summary_said")),
            error_said=Said.from_json(row.get("tc_error_said")),
        )
    data = row.get("data") or {}
    actions = tuple(
        SuggestedAction(a["label"], a["tool"], dict(a.get("args") or {}), Effect(a["effect"]))
        for a in data.get("actions") or []
    )
    return ChatMessage(
        id=int(row["id"]),
        conversation_id=int(row["conversation_id"]),
        role=row["role"],
        agent=row.get("agent"),
        text=str(row.get("content") or ""),
        reasoning=row.get("reasoning"),
        tool_call=call,
        ts=float(row["ts"]),
        tokens_in=int(row.get("tokens_in") or 0),
        tokens_out=int(row.get("tokens_out") or 0),
        cost_micros=int(row.get("cost_micros") or 0),
        actions=actions,
    )


__all__ = ["AgentError", "AgentRuntime", "make_brain"]
