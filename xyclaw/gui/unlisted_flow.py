"""The desktop's "forget it?" for a cluster its provider's listing no longer shows.

A readable listing that lacks a cluster XyClaw did not release never marks it gone (issue
31; SkyPilot #10517, dstack #1551): the engine keeps it live and metered and asks. Here
that question is an approval card in a dialog, one per such cluster: Forget marks it gone
(the engine asks the provider once more first), Keep keeps it metered and asks no more
until it is unlisted anew; a cluster listed again withdraws its open card. The card is
bound when shown (``Engine.action("forget")``): a yes never forgets a cluster that was
listed again and dropped again since.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, QTimer
from PySide6.QtWidgets import QWidget

from xyclaw.errors import XyclawError
from xyclaw.events import Event, Notice
from xyclaw.gui.rent_flow import ApprovalDialog, destroy_request
from xyclaw.wording import said

if TYPE_CHECKING:
    from xyclaw.engine import Engine
    from xyclaw.engine.values import ClusterRecord
    from xyclaw.gui.bridge import EngineBridge, ErrorInfo, Worker

log = logging.getLogger(__name__)

#: The notices that change what is asked (the guard's pass may run in another process: the
#: timer catches those).
_KEYS = ("op.unlisted", "op.unlisted.back", "op.forgotten")


class UnlistedApprovals(QObject):
    """One "forget it?" card per cluster its provider no longer lists."""

    def __init__(
        self,
        engine: Engine,
        bridge: EngineBridge,
        parent: QWidget,
        *,
        worker: Worker | None = None,
        poll_ms: int = 15000,
    ) -> None:
        """``worker`` runs the forget off the main thread (it asks the provider);
        ``poll_ms``: how often the engine is asked (another process may have asked)."""
        super().__init__(parent)
        self._engine = engine
        self._parent = parent
        self._worker = worker
        self.dialogs: dict[int, ApprovalDialog] = {}  # cluster id -> its open card
        self._kept: dict[int, float] = {}  # cluster id -> the unlisted_since the user kept
        self.said: list[str] = []  # what the flow told the user (the status bar shows it)
        bridge.event.connect(self._on_event)
        self._timer = QTimer(self)
        self._timer.timeout.connect(self.refresh)
        self._timer.start(poll_ms)
        QTimer.singleShot(0, self.refresh)

    def _on_event(self, event: Event) -> None:
        if isinstance(event, Notice) and event.said is not None and event.said.key in _KEYS:
            self.refresh()

    def refresh(self) -> None:
        """Open a card for each newly unlisted cluster; withdraw those listed again."""
        try:
            unlisted = {c.id: c for c in self._engine.unlisted_clusters()}
        except XyclawError as exc:
            log.warning("reading the unlisted clusters: %s", exc.message)
            return
        for cluster_id in list(self.dialogs):
            if cluster_id not in unlisted:
                self.dialogs.pop(cluster_id).dialog.reject()  # withdrawn: listed again
        for cluster_id, cluster in unlisted.items():
            if cluster_id in self.dialogs or self._kept.get(cluster_id) == cluster.unlisted_since:
                continue
            self.ask(cluster)

    def ask(self, cluster: ClusterRecord) -> ApprovalDialog | None:
        try:
            card = self._engine.action("forget", str(cluster.id), asked_by="user")
        except XyclawError:
            return None  # listed again meanwhile: nothing to ask
        figures = {
            "provider": cluster.provider_id,
            "external": cluster.external_id or "-",
            "cluster": cluster.name,
        }
        request = destroy_request(
            self.tr("Forget {name}").format(name=cluster.name),
            {
                "cluster": f"{cluster.name}: {cluster.gpu_count} × {cluster.gpu}, "
                f"{cluster.provider_id} {cluster.external_id or '–'}",
                "stops_billing": said("op.forget.card_stops", **figures),
                "lost": [said("op.forget.card_lost", **figures)],
            },
            self.tr("XyClaw's check of {provider}'s listing").format(provider=cluster.provider_id),
        )
        dialog = ApprovalDialog(
            request,
            self._parent,
            window_title=self.tr("{provider} no longer lists {name}").format(
                provider=cluster.provider_id, name=cluster.name
            ),
            note=self.tr(
                "XyClaw did not release it and keeps metering it. Check {provider}'s console"
                " first: if it still runs there, it still bills. Keep it and XyClaw asks"
                " {provider} again every minute."
            ).format(provider=cluster.provider_id),
            approve_text=self.tr("Forget it"),
        )
        dialog.card.reject_button.setText(self.tr("Keep it"))
        since = cluster.unlisted_since or 0.0
        dialog.decided.connect(
            lambda kind, c=cluster, s=since: self._answer(c, s, card, kind == "approve")
        )
        self.dialogs[cluster.id] = dialog
        dialog.open()
        return dialog

    def _answer(self, cluster: ClusterRecord, since: float, card: Any, forget: bool) -> None:
        """``card``: the ``forget`` Action bound when the card was shown (the engine's)."""
        withdrawn = self.dialogs.get(cluster.id) is None  # closed by refresh(): no answer
        self.dialogs.pop(cluster.id, None)
        if withdrawn:
            return
        if not forget:
            self._kept[cluster.id] = since
            self._say(self.tr("Kept {name}: it stays metered.").format(name=cluster.name))
            return
        engine = self._engine
        done = self.tr("Forgot {name}: XyClaw no longer meters it.").format(name=cluster.name)
        if self._worker is None:
            try:
                engine.forget(card)
            except XyclawError as exc:
                self._say(exc.message)
                return
            self._say(done)
            return
        self._worker.submit(
            lambda: engine.forget(card),
            on_done=lambda _record: self._say(done),
            on_error=self._failed,
            name="forget",
        )

    def _failed(self, error: ErrorInfo) -> None:
        self._say(error.message)

    def _say(self, text: str) -> None:
        self.said.append(text)
        log.info("%s", text)
