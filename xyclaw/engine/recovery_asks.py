"""Replacements for a job's lost nodes that wait for the user's yes.

A recovery that needs a new node rents it only through a quote, like any rental. Unless
the job's spec allows the spend (``recovery.allow_spend``), the quote waits here for the
user's answer: the terminal's prompt (``xyclaw logs -f``), the desktop's approval dialog,
or the chat's approval of the ``approve_replacement`` tool call. Nothing but that answer
approves it, and an approval names the quote it saw (its digest): a quote changed
since, or another job's, is refused. No answer before the quote expires, a job cancelled
meanwhile or an app that closes means no: nothing is rented.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from xyclaw.engine.quotes import QuoteError, RentQuote
from xyclaw.errors import UsageError
from xyclaw.wording import Said, said


@dataclass(frozen=True)
class ReplacementAsk:
    """A replacement rental waiting for the user's yes."""

    job_id: int
    job: str  # the job's name
    cluster: str  # the cluster whose nodes were lost
    nodes: tuple[str, ...]  # the lost nodes
    quote: RentQuote
    asked_at: float
    # issue 34: why (the hang verdict that blamed the nodes; None: they were lost) and the
    # checkpoint the job resumes from once they are replaced (None: none, it starts over)
    reason: Said | str | None = None
    resume_from: str | None = None
    resume_step: int | None = None

    @property
    def expires_at(self) -> float:
        return self.quote.expires_at

    def describe(self) -> str:
        return str(self.said())

    def said(self) -> Said:
        """:meth:`describe` as a key and figures (the job's event words it in a view's
        language)."""
        out = said(
            "job.replacement_ask" if self.reason is None else "job.replacement_ask.blamed",
            id=self.job_id,
            job=self.job,
            nodes=", ".join(self.nodes),
            cluster=self.cluster,
            quote=self.quote.said(),
            **({} if self.reason is None else {"reason": self.reason}),
        )
        if self.reason is None:
            return out
        if self.resume_from is None:
            return said("job.replacement_ask.no_checkpoint", ask=out)
        return said(
            "job.replacement_ask.resume", ask=out, path=self.resume_from, step=self.resume_step
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "job_id": self.job_id,
            "job": self.job,
            "cluster": self.cluster,
            "nodes": list(self.nodes),
            "quote_digest": self.quote.digest,
            "resume_from": self.resume_from,
            "resume_step": self.resume_step,
            "asked_at": self.asked_at,
            "expires_at": self.expires_at,
            "summary": self.describe(),
        }


class _Pending:
    def __init__(self, ask: ReplacementAsk) -> None:
        self.ask = ask
        self.answered = threading.Event()
        self.approved = False


class ReplacementAsks:
    """The asks of the jobs this process follows (the follower is the one that rents)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pending: dict[int, _Pending] = {}

    def of_job(self, job_id: int) -> ReplacementAsk | None:
        """The ask the job waits on, if it waits."""
        with self._lock:
            entry = self._pending.get(job_id)
            return None if entry is None or entry.answered.is_set() else entry.ask

    def pending(self) -> list[ReplacementAsk]:
        with self._lock:
            return [p.ask for p in self._pending.values()]

    def wait(
        self,
        ask: ReplacementAsk,
        *,
        keep_waiting: Callable[[], bool],
        clock: Callable[[], float],
        tick_s: float,
        published: Callable[[], None],
    ) -> str:
        """Hold ``ask`` until the user answers; ``approved``, ``declined``, ``expired`` (no
        answer while the quote held) or ``cancelled`` (the job was cancelled meanwhile).
        ``keep_waiting`` may raise (the app closes): the ask is withdrawn all the same."""
        entry = _Pending(ask)
        with self._lock:
            self._pending[ask.job_id] = entry
        try:
            published()
            while not entry.answered.wait(tick_s):
                if not keep_waiting():
                    return "cancelled"
                if clock() >= ask.expires_at:
                    return "expired"
            return "approved" if entry.approved else "declined"
        finally:
            with self._lock:
                if self._pending.get(ask.job_id) is entry:
                    del self._pending[ask.job_id]

    def answer(self, job_id: int, *, approve: bool, digest: str | None = None) -> ReplacementAsk:
        """The user's answer to the job's ask; a yes must name the quote it approves."""
        with self._lock:
            entry = self._pending.get(job_id)
            if entry is None or entry.answered.is_set():
                raise UsageError(
                    f"job {job_id} has no replacement waiting for an answer here",
                    hint="the process that follows the job asks (`xyclaw logs J -f`, the desktop)",
                )
            if approve:
                if digest != entry.ask.quote.digest:
                    raise QuoteError(
                        "that is not the replacement quote the job waits for",
                        hint="approve the quote shown with the ask (replacement_asks)",
                    )
                entry.ask.quote.verify_digest()
            entry.approved = approve
            entry.answered.set()
            return entry.ask
