"""A scripted agent runtime with the AgentRuntime surface, for chat-widget tests only.

It keeps conversations in memory, streams a reply token by token from the turn's
thread (as the real runtime does), and plays a plan / approval exchange. The
end-to-end tests use the real runtime with the rules brain instead.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from xyclaw.agent.types import (
    ApprovalRequest,
    ApprovalRequested,
    ChatMessage,
    ConversationInfo,
    Decision,
    PlanShown,
    ReplyDone,
    TokenDelta,
    ToolCallRecord,
    ToolFinished,
    ToolStarted,
    TurnResult,
    Usage,
)
from xyclaw.engine.surface import Effect
from xyclaw.wording import said

OPTIONS = [
    {
        "option": 1,
        "gpu": "A800",
        "gpus": 8,
        "nodes": 1,
        "gpus_per_node": 8,
        "fabric": "none",
        "provider": "sim",
        "region": "Xiamen",
        "hours": 6.2,
        "cost": 173.6,
        "price_per_gpu_hour": 3.5,
        "currency": "CNY",
        "reasons": [  # as the planner words them, with the figures of their Chinese form
            {
                "rule": "memory",
                "text": "18.2 of 79.0 GiB usable per GPU, sharded over 8",
                "figures": {"form": "train", "used": "18.2", "usable": "79.0", "gpus": "8"},
            }
        ],
    },
    {
        "option": 2,
        "gpu": "RTX4090",
        "gpus": 8,
        "nodes": 1,
        "gpus_per_node": 8,
        "fabric": "none",
        "provider": "sim",
        "region": "Ningbo",
        "hours": 14.8,
        "cost": 212.1,
        "price_per_gpu_hour": 1.79,
        "currency": "CNY",
        "reasons": [
            {
                "rule": "single-node",
                "text": "one node: PCIe only, no inter-node network",
                "figures": {"link": "PCIe"},
            }
        ],
    },
]


def summary_of(summary: Any) -> dict[str, Any]:
    """A tool call's summary as the real runtime hands it: the English and the Said."""
    return {"summary": summary.english, "summary_said": summary}


def title_of(title: Any) -> dict[str, Any]:
    """An approval's title as the real runtime hands it (an English request's)."""
    return {"title": title.english, "title_said": title}


REPLY = (
    "Here are **two options** for a 13B LoRA fine-tune:\n\n"
    "| option | GPUs | cost |\n|---|---|---|\n| 1 | 8 x A800 | 173.60 CNY |\n"
    "| 2 | 8 x RTX4090 | 212.10 CNY |\n\n"
    "```bash\nxyclaw up --plan 1 --option 1\n```\n"
)


@dataclass
class _Conversation:
    id: int
    title: str
    created_at: float
    messages: list[ChatMessage] = field(default_factory=list)
    pending: ApprovalRequest | None = None
    tokens_in: int = 0
    tokens_out: int = 0


class ScriptedRuntime:
    brain_name = "scripted"

    def __init__(self, *, token_delay_s: float = 0.002, quote_ttl_s: float = 300.0) -> None:
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._msg_ids = itertools.count(1)
        self.conversations_by_id: dict[int, _Conversation] = {}
        self.token_delay_s = token_delay_s
        self.quote_ttl_s = quote_ttl_s
        self.decisions: list[tuple[int, Decision]] = []
        self.rented: list[tuple[int, int]] = []
        self.turn_threads: set[str] = set()
        self.release_gate = threading.Event()
        self.release_gate.set()

    # -- conversations ------------------------------------------------------------------------
    def conversations(self, search: str | None = None) -> list[ConversationInfo]:
        with self._lock:
            found = [
                c
                for c in self.conversations_by_id.values()
                if not search
                or search.lower() in c.title.lower()
                or any(search.lower() in m.text.lower() for m in c.messages)
            ]
            return [self._info(c) for c in sorted(found, key=lambda c: -c.id)]

    def _info(self, c: _Conversation) -> ConversationInfo:
        return ConversationInfo(
            id=c.id,
            title=c.title,
            created_at=c.created_at,
            updated_at=c.created_at,
            tokens_in=c.tokens_in,
            tokens_out=c.tokens_out,
            cost_micros=(c.tokens_in + c.tokens_out) * 2,
            currency="USD",
            pending_approval=c.pending is not None,
        )

    def new_conversation(self, title: str | None = None) -> int:
        with self._lock:
            cid = next(self._ids)
            self.conversations_by_id[cid] = _Conversation(cid, title or "New chat", time.time())
            return cid

    def rename_conversation(self, cid: int, title: str) -> None:
        with self._lock:
            self.conversations_by_id[cid].title = title

    def delete_conversation(self, cid: int) -> None:
        with self._lock:
            del self.conversations_by_id[cid]

    def messages(self, cid: int) -> list[ChatMessage]:
        with self._lock:
            return list(self.conversations_by_id[cid].messages)

    def pending_approval(self, cid: int) -> ApprovalRequest | None:
        with self._lock:
            return self.conversations_by_id[cid].pending

    def usage_today(self) -> Usage:
        with self._lock:
            tin = sum(c.tokens_in for c in self.conversations_by_id.values())
            tout = sum(c.tokens_out for c in self.conversations_by_id.values())
        return Usage(tin, tout, {"USD": (tin + tout) * 2})

    def close(self) -> None:
        pass

    # -- turns ------------------------------------------------------------------------------------
    def _message(self, cid: int, role: str, text: str, **kw: Any) -> ChatMessage:
        message = ChatMessage(
            id=next(self._msg_ids),
            conversation_id=cid,
            role=role,  # type: ignore[arg-type]
            agent=kw.pop("agent", None),
            text=text,
            reasoning=None,
            tool_call=kw.pop("tool_call", None),
            ts=time.time(),
            **kw,
        )
        with self._lock:
            self.conversations_by_id[cid].messages.append(message)
        return message

    def _result(self, cid: int, agent: str, reply: str, calls: list[ToolCallRecord]) -> TurnResult:
        with self._lock:
            pending = self.conversations_by_id[cid].pending
        return TurnResult(cid, agent, reply, calls, pending, 120, 60, 360)

    def send(
        self,
        cid: int,
        text: str,
        on_event: Callable[[Any], None],
        cancel: threading.Event | None = None,
        *,
        language: str | None = None,
    ) -> TurnResult:
        self.turn_threads.add(threading.current_thread().name)
        self._message(cid, "user", text)
        with self._lock:
            conv = self.conversations_by_id[cid]
            if conv.title == "New chat":
                conv.title = text[:40]
        call = ToolCallRecord(
            "call-plan", "plan", Effect.READ, {"task": "finetune-lora"}, "running"
        )
        on_event(ToolStarted(cid, call))
        time.sleep(0.02)
        done = ToolCallRecord(
            "call-plan",
            "plan",
            Effect.READ,
            {"task": "finetune-lora", "model_size": "13B", "gpus": 8, "budget": 500},
            "done",
            duration_s=0.02,
            **summary_of(
                said("agent.done.plan", plan=7, count=2, gpus=8, gpu="A800", cost="173.60 CNY")
            ),
        )
        on_event(ToolFinished(cid, done))
        self._message(cid, "tool", "", agent="planner", tool_call=done)
        on_event(PlanShown(cid, 7, OPTIONS))
        streamed = ""
        for i in range(0, len(REPLY), 6):
            if cancel is not None and cancel.is_set():
                break
            chunk = REPLY[i : i + 6]
            streamed += chunk
            on_event(TokenDelta(cid, "planner", chunk))
            time.sleep(self.token_delay_s)
        message = self._message(
            cid,
            "assistant",
            streamed,
            agent="planner",
            tokens_in=120,
            tokens_out=60,
            cost_micros=360,
        )
        with self._lock:
            conv.tokens_in += 120
            conv.tokens_out += 60
        on_event(ReplyDone(cid, message))
        return self._result(cid, "planner", streamed, [done])

    def rent_option(
        self,
        cid: int,
        plan_id: int,
        option: int,
        on_event: Callable[[Any], None],
        cancel: threading.Event | None = None,
        *,
        language: str = "en",
    ) -> TurnResult:
        self.rented.append((plan_id, option))
        now = time.time()
        request = ApprovalRequest(
            approval_id=f"ap-{plan_id}-{option}",
            conversation_id=cid,
            agent="provisioner",
            tool="create_cluster",
            effect=Effect.SPEND,
            args={"plan_id": plan_id, "option": option, "hours": 6.2},
            **title_of(
                said(
                    "agent.card_rent",
                    gpus=8,
                    gpu="A800",
                    fabric=said("agent.card_one_node"),
                    per_hour="28.00 CNY",
                    total="173.60 CNY",
                )
            ),
            details={
                "provider": "sim",
                "offer_id": "sim-a800-xiamen",
                "gpu": "A800",
                "nodes": 1,
                "gpus_per_node": 8,
                "gpu_count": 8,
                "region": "Xiamen",
                "fabric": "none",
                "currency": "CNY",
                "price_per_gpu_hour_micros": 3_500_000,
                "price_per_hour_micros": 28_000_000,
                "hours": 6.2,
                "estimated_total_micros": 173_600_000,
                "budget_micros": 500_000_000,
                "created_at": now,
                "expires_at": now + self.quote_ttl_s,
                "digest": "abc123",
            },
            flagged_after_remote_output=False,
            created_at=now,
        )
        with self._lock:
            self.conversations_by_id[cid].pending = request
        call = ToolCallRecord(
            "call-rent", "create_cluster", Effect.SPEND, dict(request.args), "pending_approval"
        )
        on_event(ToolStarted(cid, call))
        on_event(ApprovalRequested(cid, request))
        return self._result(cid, "provisioner", "", [call])

    def answer(
        self,
        cid: int,
        decision: Decision,
        on_event: Callable[[Any], None],
        cancel: threading.Event | None = None,
    ) -> TurnResult:
        self.decisions.append((cid, decision))
        with self._lock:
            request = self.conversations_by_id[cid].pending
            self.conversations_by_id[cid].pending = None
        assert request is not None
        status = "approved" if decision.kind == "approve" else "rejected"
        call = ToolCallRecord(
            "call-rent",
            "create_cluster",
            Effect.SPEND,
            dict(request.args),
            status,  # type: ignore[arg-type]
        )
        on_event(ToolFinished(cid, call))
        text = "Renting it now." if decision.kind == "approve" else "Nothing was rented."
        message = self._message(cid, "assistant", text, agent="provisioner")
        on_event(ReplyDone(cid, message))
        return self._result(cid, "provisioner", text, [call])
