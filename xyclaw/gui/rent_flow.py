"""Quote -> approval -> rent, for the pages that rent without the agents (Plan, Clusters).

The approval is the chat's own :class:`~xyclaw.gui.chat.approval.ApprovalCard`, shown
in a dialog (ui/approval_dialog.ui): the same facts (what, where, price per hour,
estimated total, budget, the quote's expiry), the same refusal of an expired quote,
plus the quote's digest. Approve hands exactly that quote to ``Engine.up`` on the
worker; the engine refuses it with nothing rented if the provider changed it.
Reject, Escape or closing the dialog rents nothing.
"""

from __future__ import annotations

import itertools
import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QDialog, QFormLayout, QLabel, QWidget

from xyclaw.agent.types import ApprovalRequest, Effect
from xyclaw.gui.bridge import ErrorInfo
from xyclaw.gui.chat.approval import ApprovalCard
from xyclaw.gui.formatting import fabric_text
from xyclaw.gui.forms import child, load_ui
from xyclaw.gui.widgets import plain_label, plain_tip

if TYPE_CHECKING:
    from xyclaw.engine.quotes import RentQuote
    from xyclaw.gui.context import GuiContext

log = logging.getLogger(__name__)
_ids = itertools.count(1)


def spend_request(quote: RentQuote, title: str, asked_by: str) -> ApprovalRequest:
    """The approval a quote needs, in the shape the approval card reads."""
    return ApprovalRequest(
        approval_id=f"gui-{next(_ids)}-{quote.digest[:12]}",
        conversation_id=0,
        agent=asked_by,
        tool="create_cluster",
        effect=Effect.SPEND,
        args={},
        title=title,
        details={"quote": quote.to_json()},
        flagged_after_remote_output=False,
        created_at=time.time(),
    )


def destroy_request(title: str, details: dict[str, Any], asked_by: str) -> ApprovalRequest:
    """A confirmation for something that stops machines (release): what stops, what is lost."""
    return ApprovalRequest(
        approval_id=f"gui-{next(_ids)}",
        conversation_id=0,
        agent=asked_by,
        tool="release_cluster",
        effect=Effect.DESTROY,
        args={},
        title=title,
        details=details,
        flagged_after_remote_output=False,
        created_at=time.time(),
    )


class ApprovalDialog(QObject):
    """One approval card in a dialog; ``decided(kind)`` is "approve" or "reject", once."""

    decided = Signal(str)

    def __init__(
        self,
        request: ApprovalRequest,
        parent: QWidget,
        *,
        window_title: str,
        note: str | None = None,
        approve_text: str | None = None,
    ) -> None:
        super().__init__(parent)
        dialog = load_ui("approval_dialog.ui", parent)
        assert isinstance(dialog, QDialog)
        self.dialog = dialog
        dialog.setWindowTitle(window_title)
        dialog.setObjectName("approvalDialog")
        self.card = ApprovalCard(request, dialog)
        child(dialog, QWidget, "approvalHost").layout().addWidget(self.card)
        # Asked by the user from a page, not by an agent: say when it was quoted instead.
        self.card.set_asked_by(asked_by_text(request))
        self.card.edit_button.hide()  # the page's own form is where the request changes
        if approve_text:
            self.card.approve_button.setText(approve_text)
        self.note = child(dialog, QLabel, "approvalDialogNote")
        if note is not None:
            self.note.setText(note)
        self.facts = child(self.card.form, QFormLayout, "approvalFacts")
        self.decision: str | None = None
        self.card.decided.connect(self._card_decided)
        dialog.rejected.connect(lambda: self._finish("reject"))

    def add_fact(self, label: str, text: str, tooltip: str = "") -> QLabel:
        """A row under the card's own facts (the quote's digest, the offer)."""
        name = plain_label(label)
        name.setProperty("role", "fact-label")
        value = plain_label(text)  # an offer's id, a digest: as the provider gave them
        value.setProperty("role", "fact")
        value.setWordWrap(True)
        value.setToolTip(plain_tip(tooltip))
        self.facts.addRow(name, value)
        self.card.facts[label] = value
        return value

    def open(self) -> None:
        self.dialog.setMinimumWidth(560)
        self.dialog.adjustSize()  # as tall as the card and its note, no empty band
        self.dialog.open()

    def _card_decided(self, kind: str, _args: object, _remember: bool) -> None:
        self._finish(kind)

    def _finish(self, kind: str) -> None:
        if self.decision is not None:
            return
        self.decision = "approve" if kind == "approve" else "reject"
        if self.card.decision is None:
            self.card.show_answered("rejected")
        self.dialog.done(
            QDialog.DialogCode.Accepted if kind == "approve" else QDialog.DialogCode.Rejected
        )
        self.decided.emit(self.decision)


def asked_by_text(request: ApprovalRequest) -> str:
    return f"{request.agent} · {time.strftime('%H:%M', time.localtime(request.created_at))}"


class RentFlow(QObject):
    """Quote on the worker, ask in a dialog, rent on the worker; one rent at a time.

    Signals: ``quoted(RentQuote)`` when the dialog opens, ``rented(OperationHandle)``
    when the engine took the quote (progress goes to the operations panel),
    ``rejected(RentQuote)`` when the user said no, ``failed(ErrorInfo)`` when the quote
    or the rent was refused.
    """

    quoted = Signal(object)
    rented = Signal(object)
    rejected = Signal(object)
    failed = Signal(object)

    def __init__(self, context: GuiContext, parent: QWidget, *, asked_by: str) -> None:
        super().__init__(parent)
        self.context = context
        self.parent_widget = parent
        self.asked_by = asked_by
        self.dialog: ApprovalDialog | None = None
        self.quote: RentQuote | None = None
        self.busy = False
        self._spend: Callable[[RentQuote], Any] | None = None
        self._title: str | None = None
        # PySide builds QStyle's enums on the first style() call (70-80 ms here): pay that
        # while the window is built, not when the first approval dialog opens.
        parent.style()

    def start(
        self,
        make_quote: Callable[[], RentQuote],
        *,
        spend: Callable[[RentQuote], Any] | None = None,
        title: str | None = None,
    ) -> bool:
        """Ask for a quote (``make_quote`` runs on the worker); False while one is under way.
        Approved, the quote goes to ``spend`` (on the worker; default ``Engine.up``), e.g.
        ``Engine.launch(spec, quote=q)`` for a job that rents its own cluster; ``title``
        heads the card above the quote's own words."""
        if self.busy:
            return False
        self.busy = True
        self._spend = spend
        self._title = title
        self.context.worker.submit(
            make_quote, on_done=self._show, on_error=self._quote_failed, name="quote"
        )
        return True

    def _quote_failed(self, error: ErrorInfo) -> None:
        self.busy = False
        self.failed.emit(error)

    def _show(self, quote: RentQuote) -> None:
        self.quote = quote
        where = f"{quote.provider} · {quote.region}"
        title = self.tr("Rent {count} × {gpu} on {fabric} ({where})").format(
            count=quote.gpu_count, gpu=quote.gpu, fabric=fabric_text(quote.fabric), where=where
        )
        if quote.plan_id is not None and quote.option is not None:
            title += self.tr(": plan {plan}, option {option}").format(
                plan=quote.plan_id, option=quote.option
            )
        if self._title:
            title = f"{self._title}: {title}"
        dialog = ApprovalDialog(
            spend_request(quote, title, self.tr("quoted for you by {p}").format(p=quote.provider)),
            self.parent_widget,
            window_title=self.tr("Approve renting"),
            approve_text=self.tr("Approve and rent"),
        )
        dialog.add_fact(self.tr("Digest"), quote.digest[:16] + "…", tooltip=quote.digest)
        self.dialog = dialog
        dialog.decided.connect(self._decided)
        dialog.open()
        self.quoted.emit(quote)

    def _decided(self, kind: str) -> None:
        quote = self.quote
        if quote is None:
            return
        if kind != "approve":
            self.busy = False
            self.rejected.emit(quote)
            return
        engine = self.context.engine
        spend = self._spend or engine.up

        def rented(handle: Any) -> None:
            self.busy = False
            self.rented.emit(handle)

        self.context.worker.submit(
            lambda: spend(quote), on_done=rented, on_error=self._quote_failed, name="rent"
        )
