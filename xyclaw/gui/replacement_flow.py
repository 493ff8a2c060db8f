"""The desktop's answer to a job recovery that needs a new node: the rental approval dialog.

A job this app follows lost a node for good and its spec does not allow the spend: the
engine holds the replacement's quote and publishes ``ReplacementAsked``. This shows that
quote in the same approval dialog as any rental (what, where, the price per hour); only
the user's click on Approve says yes, and the yes names the quote shown. Reject, or
closing the dialog, rents nothing. A replacement a hang's verdict asked for (issue 34)
says that verdict and the checkpoint the job resumes from, and its yes is the bound
``replace_and_resume`` card made when the dialog opened (quote, nodes and checkpoint).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QWidget

from xyclaw.errors import XyclawError
from xyclaw.events import Event, ReplacementAsked
from xyclaw.gui.formatting import worded
from xyclaw.gui.rent_flow import ApprovalDialog, spend_request

if TYPE_CHECKING:
    from xyclaw.engine import Engine
    from xyclaw.engine.approvals import Action
    from xyclaw.gui.bridge import EngineBridge

log = logging.getLogger(__name__)


class ReplacementApprovals(QObject):
    """One approval dialog per replacement a followed job asks for."""

    def __init__(self, engine: Engine, bridge: EngineBridge, parent: QWidget) -> None:
        super().__init__(parent)
        self._engine = engine
        self._parent = parent
        self.dialogs: dict[int, ApprovalDialog] = {}  # job id -> its open dialog
        bridge.event.connect(self._on_event)

    def _on_event(self, event: Event) -> None:
        if isinstance(event, ReplacementAsked):
            self.ask(event)

    def ask(self, event: ReplacementAsked) -> ApprovalDialog | None:
        ask = next((a for a in self._engine.replacement_asks() if a.job_id == event.job_id), None)
        if ask is None or ask.quote.digest != event.digest or event.job_id in self.dialogs:
            return None  # answered or withdrawn meanwhile, or already shown
        request = spend_request(
            ask.quote,
            self.tr("Rent a replacement for {nodes} of job {job}").format(
                nodes=", ".join(ask.nodes), job=ask.job
            ),
            self.tr("job recovery"),
        )
        card: Action | None = None
        if ask.reason is None:
            title = self.tr("A node of job {job} is lost").format(job=ask.job)
            note = self.tr(
                "{nodes} of {cluster} stopped answering. Approve to rent this replacement and"
                " resume the job from its newest checkpoint; reject and nothing is rented"
                " (the job fails if the node does not come back)."
            ).format(nodes=", ".join(ask.nodes), cluster=ask.cluster)
        else:  # a hang's verdict asked for it: the yes binds the checkpoint shown
            try:
                card = self._engine.action("replace_and_resume", str(ask.job_id), asked_by="user")
            except XyclawError as exc:  # answered or withdrawn meanwhile
                log.info("the replacement for job %s: %s", ask.job_id, exc.message)
                return None
            title = self.tr("Job {job} hangs: replace {nodes}?").format(
                job=ask.job, nodes=", ".join(ask.nodes)
            )
            start = self.tr("its start (it has no checkpoint yet)")
            note = self.tr(
                "{verdict}. Approve to rent this replacement and resume the job from"
                " {checkpoint}; reject and nothing is rented."
            ).format(verdict=worded(ask.reason), checkpoint=ask.resume_from or start)
        dialog = ApprovalDialog(
            request,
            self._parent,
            window_title=title,
            note=note,
            approve_text=self.tr("Approve and rent"),
        )
        dialog.decided.connect(
            lambda kind, job_id=ask.job_id, digest=ask.quote.digest, card=card: self._answer(
                job_id, digest, kind == "approve", card
            )
        )
        self.dialogs[ask.job_id] = dialog
        dialog.open()
        return dialog

    def _answer(self, job_id: int, digest: str, approve: bool, card: Action | None = None) -> None:
        self.dialogs.pop(job_id, None)
        try:
            if approve:
                self._engine.approve_replacement(str(job_id), digest, approved=card)
            else:
                self._engine.decline_replacement(str(job_id))
        except XyclawError as exc:  # withdrawn meanwhile: the quote expired, the job ended
            log.warning("the replacement for job %s: %s", job_id, exc.message)
