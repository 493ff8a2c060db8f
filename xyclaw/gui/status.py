"""The status bar: what is billing now, what was spent today, the model's tokens and cost
today, the brain in use, and whether the providers answer.

The figures are read on a worker (the store and the providers can be slow) every
few seconds and whenever a cluster or a node changes; between two reads the
"spent today" figure advances locally at the spend rate, so it moves every
second without a query.
"""

from __future__ import annotations

import html
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, Qt, QTimer, Slot
from PySide6.QtWidgets import QLabel, QPushButton, QStatusBar, QWidget

from xyclaw.gui.bridge import EngineBridge, ErrorInfo, Worker
from xyclaw.gui.formatting import money_totals, tokens
from xyclaw.gui.state_dots import dot_color
from xyclaw.gui.widgets import plain_label, plain_tip

translate = QCoreApplication.translate  # lupdate reads translate("Context", "text") calls
REFRESH_MS = 5000
PROVIDER_STATES = {
    "connected": QT_TRANSLATE_NOOP("StatusBar", "connected"),
    "unreachable": QT_TRANSLATE_NOOP("StatusBar", "unreachable"),
    "not set up": QT_TRANSLATE_NOOP("StatusBar", "not set up"),
}


def _state_word(state: str) -> str:
    source = PROVIDER_STATES.get(state)
    return QCoreApplication.translate("StatusBar", source) if source else state


PROVIDERS_EVERY_S = 60.0  # asking every provider costs a request each: less often


@dataclass(frozen=True)
class ProviderState:
    name: str
    state: str  # "connected", "unreachable", or "not set up" (no key for it yet)
    detail: str = ""


@dataclass(frozen=True)
class StatusSnapshot:
    """Everything the status bar shows, read at ``taken_at`` (epoch seconds)."""

    taken_at: float
    rate_micros_per_hour: dict[str, int] = field(default_factory=dict)  # per currency
    billing_clusters: list[str] = field(default_factory=list)
    live_clusters: int = 0
    spent_today: dict[str, int] = field(default_factory=dict)
    tokens_today: int = 0
    llm_cost_today: dict[str, int] = field(default_factory=dict)
    brain: str = ""
    providers: list[ProviderState] = field(default_factory=list)
    simulated: bool = False  # every billing cluster is on the built-in simulated cloud

    @property
    def billing(self) -> bool:
        return any(self.rate_micros_per_hour.values())

    def rate_text(self) -> str:
        if not self.billing:
            return translate("StatusBar", "Nothing billing")
        rates = " + ".join(
            f"{money_totals({c: v})}/h" for c, v in sorted(self.rate_micros_per_hour.items()) if v
        )
        n = len(self.billing_clusters)
        if n == 1:
            text = translate("StatusBar", "{rates} on 1 cluster").format(rates=rates)
        else:
            text = translate("StatusBar", "{rates} on {n} clusters").format(rates=rates, n=n)
        if self.simulated:  # beside "nothing is billed": the figure is the simulation's
            text += " " + translate("StatusBar", "(simulated, not charged)")
        return text

    def spent_text(self, now: float | None = None) -> str:
        """Spent today, advanced at the spend rate since the snapshot was taken."""
        elapsed = max(0.0, (now or time.time()) - self.taken_at)
        totals = dict(self.spent_today)
        for currency, per_hour in self.rate_micros_per_hour.items():
            totals[currency] = totals.get(currency, 0) + int(per_hour * elapsed / 3600)
        return translate("StatusBar", "Today {spent}").format(spent=money_totals(totals))


def billing_clusters(clusters: list[Any]) -> list[str]:
    """The clusters with at least one node billing now."""
    return [
        c.name
        for c in clusters
        if any(n.running_at is not None and n.terminated_at is None for n in c.nodes)
    ]


def read_snapshot(
    engine: Any, runtime: Any | None, providers: list[ProviderState] | None = None
) -> StatusSnapshot:
    """Blocking (store, meter, providers): call it on a worker. ``providers``: reuse these
    instead of asking every provider again (that is done less often)."""
    now = time.time()
    clusters = engine.clusters()
    spend = engine.spend("today")
    tokens_today = 0
    llm_cost: dict[str, int] = {}
    brain = ""
    if runtime is not None:
        usage = runtime.usage_today()
        tokens_today = usage.tokens_in + usage.tokens_out
        llm_cost = dict(usage.cost_micros)
        brain = runtime.brain_name
    if providers is None:
        providers = [
            ProviderState(s.name, _provider_state(s.reachable, s.detail), s.detail)
            for s in engine.provider_status()
        ]
    billing = billing_clusters(clusters)
    return StatusSnapshot(
        taken_at=now,
        rate_micros_per_hour=dict(spend.rate_per_hour),
        billing_clusters=billing,
        simulated=bool(billing)
        and all(c.provider_id == "sim" for c in clusters if c.name in billing),
        live_clusters=len(clusters),
        spent_today=dict(spend.totals),
        tokens_today=tokens_today,
        llm_cost_today=llm_cost,
        brain=brain or engine.config.llm.preset,
        providers=providers,
    )


def _provider_state(reachable: bool, detail: str) -> str:
    if reachable:
        return "connected"
    return "not set up" if "not configured" in detail else "unreachable"


class StatusBarController:
    """Owns the labels of the window's status bar and keeps them current."""

    def __init__(
        self,
        bar: QStatusBar,
        worker: Worker,
        bridge: EngineBridge,
        read: Callable[[list[ProviderState] | None], StatusSnapshot],
        *,
        refresh_ms: int = REFRESH_MS,
    ) -> None:
        self.bar = bar
        self.worker = worker
        self._read = read
        self.snapshot: StatusSnapshot | None = None
        self.on_snapshot: Callable[[StatusSnapshot], None] | None = None
        self.error: ErrorInfo | None = None
        self._reading = False
        self._again = False
        self._providers_read_at = -PROVIDERS_EVERY_S
        self.rate = self._label("statusRate")
        self.spent = self._label("statusSpent")
        self.llm = self._label("statusLlm")
        self.brain = self._label("statusBrain")
        self.providers = self._label("statusProviders")
        self.operations = QPushButton()
        self.operations.setObjectName("statusOperations")
        self.operations.setFlat(True)
        bar.addPermanentWidget(self.operations)
        self._running = 0
        self.retranslate()
        self.rate.setText(translate("StatusBar", "Reading…"))
        self._tick = QTimer(bar)
        self._tick.setInterval(1000)
        self._tick.timeout.connect(self._advance)
        self._tick.start()
        self._refresh_timer = QTimer(bar)
        self._refresh_timer.setInterval(refresh_ms)
        self._refresh_timer.timeout.connect(self.refresh)
        self._refresh_timer.start()
        self._soon = QTimer(bar)
        self._soon.setSingleShot(True)
        self._soon.setInterval(300)
        self._soon.timeout.connect(self.refresh)
        bridge.cluster_changed.connect(self._changed)
        bridge.node_changed.connect(self._changed)
        bridge.budget_warning.connect(self._changed)

    def retranslate(self) -> None:
        """The labels' words in the GUI's language (also when it changes while running)."""
        self.rate.setToolTip(translate("StatusBar", "Spend rate now, over every live cluster"))
        self.spent.setToolTip(translate("StatusBar", "Spent today on clusters (local day)"))
        self.llm.setToolTip(translate("StatusBar", "Model tokens and cost today"))
        self.brain.setToolTip(translate("StatusBar", "The agents' brain"))
        self.providers.setToolTip(translate("StatusBar", "Providers' connection state"))
        self.operations.setToolTip(translate("StatusBar", "Show or hide the operations panel"))
        self.set_operations(self._running)
        if self.snapshot is not None:
            self._show_snapshot(self.snapshot)
        elif self.error is not None:
            self.rate.setText(translate("StatusBar", "Status unavailable"))
        else:  # the first reading is still on its way
            self.rate.setText(translate("StatusBar", "Reading…"))

    def _label(self, name: str) -> QLabel:
        label = plain_label()
        label.setObjectName(name)
        label.setProperty("role", "status")
        self.bar.addPermanentWidget(label)
        return label

    @Slot(object)
    def _changed(self, _event: object = None) -> None:
        if not self._soon.isActive():
            self._soon.start()

    @Slot()
    def refresh(self) -> None:
        """Read again on a worker; one read at a time, one more queued if asked meanwhile."""
        if self._reading:
            self._again = True
            return
        self._reading = True
        known = self.snapshot.providers if self.snapshot is not None else None
        if time.monotonic() - self._providers_read_at >= PROVIDERS_EVERY_S:
            known = None
        if known is None:
            self._providers_read_at = time.monotonic()
        self.worker.submit(
            lambda: self._read(known), on_done=self._show, on_error=self._failed, name="status"
        )

    def _done_reading(self) -> None:
        self._reading = False
        if self._again:
            self._again = False
            self.refresh()

    def _show(self, snapshot: StatusSnapshot) -> None:
        self._done_reading()
        self.snapshot = snapshot
        self.error = None
        self._show_snapshot(snapshot)
        if self.on_snapshot is not None:
            self.on_snapshot(snapshot)

    def _show_snapshot(self, snapshot: StatusSnapshot) -> None:
        self.rate.setText(snapshot.rate_text())
        self.rate.setProperty("state", "billing" if snapshot.billing else "idle")
        self.rate.setToolTip(
            plain_tip(
                translate("StatusBar", "Billing now: {clusters}").format(
                    clusters=", ".join(snapshot.billing_clusters)
                )
                if snapshot.billing
                else translate("StatusBar", "No node is billing now")
            )
        )
        self._repolish(self.rate)
        self.spent.setText(snapshot.spent_text())
        small = all(v < 1_000_000 for v in snapshot.llm_cost_today.values())
        cost = money_totals(snapshot.llm_cost_today, "USD", 4 if small else 2)
        self.llm.setText(
            translate("StatusBar", "LLM {tokens} tokens · {cost}").format(
                tokens=tokens(snapshot.tokens_today), cost=cost
            )
        )
        # the built-in rules brain in the GUI's language; a model's name as it is
        brain = translate("StatusBar", "rules") if snapshot.brain == "rules" else snapshot.brain
        self.brain.setText(translate("StatusBar", "Brain: {brain}").format(brain=brain))
        marks = {"connected": "●", "unreachable": "✕"}
        # each mark in its state's colour; the names are data, escaped for the rich text
        self.providers.setTextFormat(Qt.TextFormat.RichText)
        self.providers.setText(
            "&nbsp;&nbsp;".join(
                f"<span style='color:{dot_color(p.state)}'>{marks.get(p.state, '?')}</span>"
                f" {html.escape(p.name)}"
                for p in snapshot.providers
                if p.state != "not set up"
            )
        )
        self.providers.setToolTip(
            plain_tip(  # a provider's own words in its detail
                "\n".join(
                    f"{p.name}: {_state_word(p.state)}" + (f" ({p.detail})" if p.detail else "")
                    for p in snapshot.providers
                )
            )
        )

    def _failed(self, error: ErrorInfo) -> None:
        self._done_reading()
        self.error = error
        self.rate.setText(translate("StatusBar", "Status unavailable"))
        self.rate.setToolTip(plain_tip(error))

    @Slot()
    def _advance(self) -> None:
        if self.snapshot is not None and self.snapshot.billing:
            self.spent.setText(self.snapshot.spent_text())

    def set_operations(self, running: int) -> None:
        self._running = running
        if running == 1:
            text = translate("StatusBar", "1 operation running")
        elif running:
            text = translate("StatusBar", "{n} operations running").format(n=running)
        else:
            text = translate("StatusBar", "Operations")
        self.operations.setText(text)
        self.operations.setProperty("state", "busy" if running else "idle")
        self._repolish(self.operations)

    @staticmethod
    def _repolish(widget: QWidget) -> None:
        widget.style().unpolish(widget)
        widget.style().polish(widget)

    def stop(self) -> None:
        self._tick.stop()
        self._refresh_timer.stop()
        self._soon.stop()
