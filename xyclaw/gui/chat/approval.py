"""The approval card (ui/approval_card.ui): what an agent wants to do, where, for how much,
until when the quote holds, and Approve / Reject / Edit.

A decision is sent once; the card then shows what was decided. Nothing here
decides anything: the runtime binds a spend approval to its quote's digest and
the engine refuses a stale or expired quote.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QEvent, Qt, QTimer, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QFrame,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from xyclaw.gui.chat.blocks import effect_text
from xyclaw.gui.formatting import countdown, fabric_text, local_time, money, worded
from xyclaw.gui.forms import child, load_ui
from xyclaw.gui.widgets import plain_label, plain_tip, set_plain
from xyclaw.wording import Said

translate = QCoreApplication.translate  # lupdate reads translate("Context", "text") calls

_FACT_LABELS = {
    "command": "Command",
    "nodes": "Nodes",
    "cluster": "Cluster",
    "stops_billing": "Stops billing",
    "lost": "What is lost",
    "running_job": "Running job",
    "clusters": "Clusters",
    "job": "Job",
    "spec": "Spec",
    "lost_nodes": "Lost nodes",
    "what_changes": "What changes",
    "budget": "Budget",
    "current_budget": "Current budget",
    "spent": "Spent",
    "price_per_hour": "Price per hour",
    "means": "Means",
    "adds": "XyClaw adds",  # issue 34 (b34): the step timer, the Flight Recorder
    "sends": "Sends",  # issue 31: the secrets a job sends, named apart from variables
    "secrets": "Asks you for",  # issue 28: a job's secret variables (HF_TOKEN) not set here
}
#: The rows' labels as shown, in the GUI's language (``ApprovalCard.facts`` keeps the English).
_SHOWN_LABELS: dict[str, Any] = {  # label -> its words now
    "Command": lambda: translate("ApprovalCard", "Command"),
    "Nodes": lambda: translate("ApprovalCard", "Nodes"),
    "Cluster": lambda: translate("ApprovalCard", "Cluster"),
    "Stops billing": lambda: translate("ApprovalCard", "Stops billing"),
    "What is lost": lambda: translate("ApprovalCard", "What is lost"),
    "Running job": lambda: translate("ApprovalCard", "Running job"),
    "XyClaw adds": lambda: translate("ApprovalCard", "XyClaw adds"),
    "Sends": lambda: translate("ApprovalCard", "Sends"),
    "What": lambda: translate("ApprovalCard", "What"),
    "Where": lambda: translate("ApprovalCard", "Where"),
    "Price": lambda: translate("ApprovalCard", "Price"),
    "Estimated total": lambda: translate("ApprovalCard", "Estimated total"),
    "Budget": lambda: translate("ApprovalCard", "Budget"),
    "Arguments": lambda: translate("ApprovalCard", "Arguments"),
    "Quote valid": lambda: translate("ApprovalCard", "Quote valid"),
    "Clusters": lambda: translate("ApprovalCard", "Clusters"),
    "Job": lambda: translate("ApprovalCard", "Job"),
    "Spec": lambda: translate("ApprovalCard", "Spec"),
    "Lost nodes": lambda: translate("ApprovalCard", "Lost nodes"),
    "What changes": lambda: translate("ApprovalCard", "What changes"),
    "Current budget": lambda: translate("ApprovalCard", "Current budget"),
    "Spent": lambda: translate("ApprovalCard", "Spent"),
    "Price per hour": lambda: translate("ApprovalCard", "Price per hour"),
    "Means": lambda: translate("ApprovalCard", "Means"),
    "Spot": lambda: translate("ApprovalCard", "Spot"),  # issue 32
    "Asks you for": lambda: translate("ApprovalCard", "Asks you for"),  # issue 28
}


def fact_label(label: str) -> str:
    """A row's label in the GUI's language (one it does not know is shown as it is)."""
    shown = _SHOWN_LABELS.get(label)
    return str(shown()) if shown else label


def approval_title(request: Any) -> str:
    """An approval's title in the GUI's language (an older card's as it was asked)."""
    said = getattr(request, "title_said", None)
    return worded(said) if said is not None else str(request.title)


def quote_of(details: dict[str, Any]) -> dict[str, Any]:
    """The RentQuote JSON of a spend approval (flat, or under ``quote``)."""
    inner = details.get("quote")
    return inner if isinstance(inner, dict) else details


def approval_facts(request: Any) -> list[tuple[str, str]]:
    """The rows the card shows, in the order a user reads them."""
    details: dict[str, Any] = dict(request.details or {})
    effect = str(getattr(request.effect, "value", request.effect))
    facts: list[tuple[str, str]] = []
    if effect == "spend":
        q = quote_of(details)
        currency = str(q.get("currency") or "CNY")
        nodes, per_node, gpu = q.get("nodes"), q.get("gpus_per_node"), q.get("gpu")
        count = q.get("gpu_count") or (nodes or 0) * (per_node or 0)
        node_text = (
            translate("ApprovalCard", "1 node")
            if nodes == 1
            else translate("ApprovalCard", "{n} nodes").format(n=nodes)
        )
        shape = f"{count} × {gpu}" + (f" ({node_text} × {per_node})" if nodes and per_node else "")
        if details.get("spec"):  # a launch that rents its own cluster: the job first
            facts.append(("Spec", str(details["spec"])))
        if details.get("secrets"):  # asked for when approved, before anything is rented
            facts.append(("Asks you for", ", ".join(str(n) for n in details["secrets"])))
        for key in ("adds", "sends"):  # what XyClaw adds, which secrets it sends (31, 34)
            if details.get(key):
                facts.append((_FACT_LABELS[key], _detail_text(request, key, details[key])))
        facts.append(("What", shape))
        where = " · ".join(str(q[k]) for k in ("provider", "region") if q.get(k))
        if q.get("fabric"):
            fabric, shown = str(q["fabric"]), fabric_text(q["fabric"])
            where += " · " + (
                translate("ApprovalCard", "fabric {fabric}").format(fabric=fabric)
                if shown == fabric
                else shown
            )
        if q.get("offer_id"):
            where += " · " + translate("ApprovalCard", "offer {offer}").format(offer=q["offer_id"])
        facts.append(("Where", where or "–"))
        if q.get("price_per_hour_micros") is not None:
            per_gpu = q.get("price_per_gpu_hour_micros")
            facts.append(
                (
                    "Price",
                    f"{money(q['price_per_hour_micros'], currency)}/h"
                    + (
                        translate("ApprovalCard", " ({price} per GPU-hour)").format(
                            price=money(per_gpu, currency)
                        )
                        if per_gpu
                        else ""
                    ),
                )
            )
        if q.get("estimated_total_micros") is not None:
            hours = q.get("hours")
            facts.append(
                (
                    "Estimated total",
                    money(q["estimated_total_micros"], currency)
                    + (
                        translate("ApprovalCard", " for {hours} h").format(
                            hours=f"{float(hours):.1f}"
                        )
                        if hours
                        else ""
                    ),
                )
            )
        spot = Said.from_json(q["spot_said"]) if q.get("spot_said") else None
        if spot is not None:  # issue 32: rented as spot: the saving and the risk
            facts.append(("Spot", worded(spot).lstrip("；; ")))
        budget = q.get("budget_micros")
        facts.append(
            (
                "Budget",
                money(budget, currency) + translate("ApprovalCard", " (released when reached)")
                if budget
                else translate("ApprovalCard", "none set: billing runs until you release it"),
            )
        )
        # how the price differs from the plan's and why, a run past the horizon: the quote's
        # own notes (in its digest), worded in the window's language
        for note in q.get("notes_said") or ():
            found = Said.from_json(note)
            if found is None:
                continue
            label = "Means" if found.key == "common.quote_over_horizon" else "What changes"
            facts.append((label, worded(found)))
        return facts
    for key, value in details.items():
        if key in ("quote", "expires_at", "digest", "created_at") or value is None:
            continue
        label = _FACT_LABELS.get(key, key.replace("_", " ").capitalize())
        facts.append((label, _detail_text(request, key, value)))
    if not facts:
        facts.append(("Arguments", json.dumps(request.args, ensure_ascii=False, default=str)))
    return facts


def _detail_text(request: Any, key: str, value: Any) -> str:
    """One detail row's value, in the GUI's language where the tool said it."""
    details: dict[str, Any] = dict(request.details or {})
    saids: dict[str, Any] = dict(getattr(request, "details_said", None) or {})
    value = saids.get(key, value)  # a row said by the tool: in the GUI's language
    if isinstance(value, list | tuple):
        return worded(Said("common.list_sep")).join(_item_text(v) for v in value) or "–"
    if isinstance(value, dict):
        return _item_text(value)
    if key.endswith("_micros") and isinstance(value, int):
        return money(value, str(details.get("currency") or "CNY"))
    return worded(value) if not isinstance(value, str) else value


def _item_text(value: Any) -> str:
    """One item of a row: a said line in the GUI's language; a cluster or a job by its name,
    shape, state and price; anything else as it is."""
    from xyclaw.gui import history_words

    if isinstance(value, Said):
        return worded(value)
    if not isinstance(value, dict):
        return str(value)
    if "name" in value:
        parts = []
        if value.get("gpus"):
            parts.append(str(value["gpus"]).replace(" x ", " × "))
        if value.get("state"):
            parts.append(history_words.state(value["state"]))
        if value.get("price_per_hour"):
            parts.append(f"{value['price_per_hour']}/h")
        return f"{value['name']} ({' · '.join(parts)})" if parts else str(value["name"])
    return json.dumps(value, ensure_ascii=False, default=str)


APPROVE_KEYS = ("Ctrl+Return", "Ctrl+Enter")
REJECT_KEYS = ("Ctrl+Backspace",)


def _press(button: QPushButton) -> None:
    if button.isEnabled() and button.isVisible():
        button.click()


def expires_at(request: Any) -> float | None:
    details = dict(request.details or {})
    value = quote_of(details).get("expires_at", details.get("expires_at"))
    return float(value) if value is not None else None


class ApprovalCard(QFrame):
    """One pending approval; ``decided(kind, args, remember)`` carries the user's answer."""

    decided = Signal(str, object, bool)

    def __init__(self, request: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.request = request
        self.setObjectName("approvalCardHost")
        self.setProperty("role", "approval-host")
        form = load_ui("approval_card.ui", self)
        # Every word on a card is shown as written: a title, an agent's name or a command
        # that looks like HTML must not be rendered (it could hide its own first half).
        for label in form.findChildren(QLabel):
            label.setTextFormat(Qt.TextFormat.PlainText)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(form)
        self.form = form
        effect = str(getattr(request.effect, "value", request.effect))
        self.effect = effect
        self.badge = badge = child(form, QLabel, "approvalEffect")
        badge.setProperty("effect", effect)
        self.title = child(form, QLabel, "approvalTitle")
        if getattr(request, "title_said", None) is None:  # an older card: as it was asked
            self.title.setProperty("data", True)
        self.agent_label = child(form, QLabel, "approvalAgent")
        self.flag = child(form, QLabel, "approvalFlag")
        self.flag.setVisible(bool(request.flagged_after_remote_output))
        facts = child(form, QFormLayout, "approvalFacts")
        self.facts: dict[str, QLabel] = {}
        self._fact_names: dict[str, QLabel] = {}
        for label, text in approval_facts(request):
            value = plain_label(text)  # a command on the card: whole, one line, as written
            value.setWordWrap(True)
            value.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            value.setProperty("role", "fact")
            name = plain_label(fact_label(label))
            name.setProperty("role", "fact-label")
            facts.addRow(name, value)
            self.facts[label] = value
            self._fact_names[label] = name
        self.expiry: QLabel | None = None
        self._expires_at = expires_at(request)
        if self._expires_at is not None:
            self.expiry = plain_label()
            self.expiry.setProperty("role", "fact")
            name = plain_label(fact_label("Quote valid"))
            name.setProperty("role", "fact-label")
            facts.addRow(name, self.expiry)
            self._fact_names["Quote valid"] = name
        self.remember = child(form, QCheckBox, "approvalRemember")
        self.remember.setVisible(effect == "exec")
        self.approve_button = child(form, QPushButton, "approvalApprove")
        self.reject_button = child(form, QPushButton, "approvalReject")
        self.edit_button = child(form, QPushButton, "approvalEdit")
        self.outcome = child(form, QLabel, "approvalOutcome")
        self.approve_button.clicked.connect(self._approve)
        self.reject_button.clicked.connect(lambda: self._decide("reject"))
        self.edit_button.clicked.connect(self.edit)
        self.edit_button.setEnabled(bool(request.args))
        self.decision: str | None = None
        #: Called with the approval to give, before it is given (the window asks for a job's
        #: secret values there); None approves at once.
        self.before_approve: Callable[[Callable[[], None]], None] | None = None
        self._tick = QTimer(self)
        self._tick.setInterval(1000)
        self._tick.timeout.connect(self._update_expiry)
        if self._expires_at is not None:
            self._tick.start()
            self._update_expiry()
        self.edit_dialog: EditArgsDialog | None = None
        self._asked_by: str | None = None
        self._word_request()
        # Ctrl+Enter approves, Ctrl+Backspace rejects, while the focus is inside this card
        # (a shortcut of the card: no application-wide key filter sees every event)
        for keys, button in (
            (APPROVE_KEYS, self.approve_button),
            (REJECT_KEYS, self.reject_button),
        ):
            for key in keys:
                shortcut = QShortcut(QKeySequence(key), self)
                shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
                shortcut.activated.connect(lambda b=button: _press(b))

    def _word_request(self) -> None:
        """The card's words that depend on the language (the form words the rest)."""
        request = self.request
        self.badge.setText(effect_text(self.effect))
        set_plain(self.title, approval_title(request))
        set_plain(self.agent_label, self._asked_by or _asker_text(request))
        for label, text in approval_facts(request):
            if label in self.facts:
                set_plain(self.facts[label], text)
        for label, name in self._fact_names.items():
            name.setText(fact_label(label))

    def set_asked_by(self, text: str) -> None:
        """Who asked, when not an agent (a page's own confirmation)."""
        self._asked_by = text
        self.agent_label.setProperty("data", True)  # set as the asker wrote it
        set_plain(self.agent_label, text)

    def retranslate(self) -> None:
        self._word_request()
        if self.decision is None:
            self._update_expiry()
        else:
            self._stop_expiry(self.decision)
            self.outcome.setText(self._outcome_text(self.decision))

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange:
            # after the form has worded itself again (it puts back its "Approval needed")
            QTimer.singleShot(0, self, self._retranslate_if_alive)

    def _retranslate_if_alive(self) -> None:
        import shiboken6

        if shiboken6.isValid(self.form) and shiboken6.isValid(self.title):
            self.retranslate()

    @staticmethod
    def _outcome_text(kind: str) -> str:
        return {
            "approve": translate("ApprovalCard", "Approved by you"),
            "reject": translate("ApprovalCard", "Rejected by you: nothing was done"),
            "edit": translate("ApprovalCard", "Changed by you: asking again"),
        }.get(kind, kind)

    @property
    def approval_id(self) -> str:
        return str(self.request.approval_id)

    @property
    def expired(self) -> bool:
        return self._expires_at is not None and time.time() >= self._expires_at

    def _update_expiry(self) -> None:
        if self.expiry is None or self._expires_at is None:
            return
        left = self._expires_at - time.time()
        if left > 0:
            self.expiry.setText(
                translate("ApprovalCard", "for {left} (until {time})").format(
                    left=countdown(left), time=local_time(self._expires_at)
                )
            )
            self.expiry.setProperty("state", "ok" if left > 60 else "soon")
        else:
            self._tick.stop()
            self.expiry.setText(
                translate(
                    "ApprovalCard",
                    "expired: prices may have changed. Edit or ask again for a fresh quote.",
                )
            )
            self.expiry.setProperty("state", "expired")
            if self.decision is None:
                self.approve_button.setEnabled(False)
                self.approve_button.setToolTip(
                    translate("ApprovalCard", "The quote expired; Edit asks for a new one")
                )
        self.expiry.style().unpolish(self.expiry)
        self.expiry.style().polish(self.expiry)

    def _stop_expiry(self, kind: str) -> None:
        """Answered: the countdown stops, and its row says what was decided and when (a
        frozen "for 4:31" would read as a quote still waiting)."""
        self._tick.stop()
        if self.expiry is None or self._expires_at is None:
            return
        decided = {
            "approve": translate("ApprovalCard", "approved at {time}"),
            "approved": translate("ApprovalCard", "approved at {time}"),
            "reject": translate("ApprovalCard", "rejected at {time}"),
            "rejected": translate("ApprovalCard", "rejected at {time}"),
            "edit": translate("ApprovalCard", "changed at {time}: a new quote is asked for"),
        }.get(kind, translate("ApprovalCard", "answered at {time}"))
        text = decided.format(time=local_time(time.time()))
        if kind in ("approve", "approved"):
            text += " " + translate("ApprovalCard", "(the quote held until {time})").format(
                time=local_time(self._expires_at)
            )
        self.expiry.setText(text)
        self.expiry.setProperty("state", "decided")
        self.expiry.style().unpolish(self.expiry)
        self.expiry.style().polish(self.expiry)

    def _approve(self) -> None:
        if self.before_approve is not None and self.decision is None and not self.expired:
            self.before_approve(lambda: self._decide("approve"))
            return
        self._decide("approve")

    def _decide(self, kind: str, args: dict[str, Any] | None = None) -> None:
        if self.decision is not None:
            return
        if kind == "approve" and self.expired:
            self._update_expiry()
            return
        self.decision = kind
        self._stop_expiry(kind)
        for button in (self.approve_button, self.reject_button, self.edit_button):
            button.setEnabled(False)
        self.remember.setEnabled(False)
        self.outcome.setText(self._outcome_text(kind))
        self.form.setProperty("decision", kind)
        self.form.style().unpolish(self.form)
        self.form.style().polish(self.form)
        self.decided.emit(kind, args, bool(self.remember.isChecked()))

    def show_answered(self, kind: str, by: str = "you") -> None:
        """An approval answered elsewhere (the CLI, another window): show it, ask nothing."""
        kind = {"approved": "approve", "rejected": "reject"}.get(kind, kind)
        self.decision = kind
        self._stop_expiry(kind)
        for button in (self.approve_button, self.reject_button, self.edit_button):
            button.setEnabled(False)
        set_plain(
            self.outcome,
            self._outcome_text(kind)
            if by == "you"
            else translate("ApprovalCard", "Answered by {by}").format(by=by),
        )

    def edit(self) -> None:
        dialog = EditArgsDialog(dict(self.request.args), self)
        self.edit_dialog = dialog
        dialog.accepted.connect(lambda: self._decide("edit", dialog.values()))
        dialog.open()


#: The tools' argument names as the Edit dialog labels them.
ARGUMENT_LABELS: dict[str, str] = {
    "plan_id": QT_TRANSLATE_NOOP("EditArgs", "plan"),
    "option": QT_TRANSLATE_NOOP("EditArgs", "option"),
    "provider": QT_TRANSLATE_NOOP("EditArgs", "provider"),
    "gpu": QT_TRANSLATE_NOOP("EditArgs", "GPU model"),
    "gpus": QT_TRANSLATE_NOOP("EditArgs", "GPU count"),
    "gpus_per_node": QT_TRANSLATE_NOOP("EditArgs", "GPUs per node"),
    "region": QT_TRANSLATE_NOOP("EditArgs", "region"),
    "fabric": QT_TRANSLATE_NOOP("EditArgs", "fabric"),
    "budget": QT_TRANSLATE_NOOP("EditArgs", "budget"),
    "cluster": QT_TRANSLATE_NOOP("EditArgs", "cluster"),
    "command": QT_TRANSLATE_NOOP("EditArgs", "command"),
    "timeout_s": QT_TRANSLATE_NOOP("EditArgs", "timeout (s)"),
    "spec": QT_TRANSLATE_NOOP("EditArgs", "job spec"),
    "job": QT_TRANSLATE_NOOP("EditArgs", "job"),
    "lines": QT_TRANSLATE_NOOP("EditArgs", "lines"),
    "digest": QT_TRANSLATE_NOOP("EditArgs", "quote digest"),
    "task": QT_TRANSLATE_NOOP("EditArgs", "task"),
    "model_params": QT_TRANSLATE_NOOP("EditArgs", "model parameters"),
    "tokens": QT_TRANSLATE_NOOP("EditArgs", "training tokens"),
    "deadline_hours": QT_TRANSLATE_NOOP("EditArgs", "deadline (hours)"),
    "qps": QT_TRANSLATE_NOOP("EditArgs", "requests per second"),
    "gpu_count": QT_TRANSLATE_NOOP("EditArgs", "GPU count"),
}


def argument_label(key: str) -> str:
    """A tool argument's label in the GUI's language (one it does not know: humanized)."""
    shown = ARGUMENT_LABELS.get(key)
    return translate("EditArgs", shown) if shown else key.replace("_", " ")


class EditArgsDialog:
    """A small form (ui/edit_args_dialog.ui) with one field per argument, typed as JSON."""

    def __init__(self, args: dict[str, Any], parent: QWidget) -> None:
        dialog = load_ui("edit_args_dialog.ui", parent)
        assert isinstance(dialog, QDialog)
        self.dialog = dialog
        self.accepted = dialog.accepted
        self.args = args
        form = child(dialog, QFormLayout, "editForm")
        self.error = child(dialog, QLabel, "editError")
        self.fields: dict[str, QLineEdit] = {}
        for key, value in args.items():
            field = QLineEdit(value if isinstance(value, str) else json.dumps(value))
            field.setObjectName(f"edit_{key}")
            name = plain_label(argument_label(key))
            name.setToolTip(plain_tip(key))  # the tool's own name for it
            if key not in ARGUMENT_LABELS:  # a name the tools do not have (yet): as it is
                name.setProperty("data", True)
            form.addRow(name, field)
            self.fields[key] = field
        buttons = child(dialog, QDialogButtonBox, "editButtons")
        buttons.accepted.connect(self._accept)
        buttons.rejected.connect(dialog.reject)

    def values(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, field in self.fields.items():
            original = self.args.get(key)
            text = field.text().strip()
            if isinstance(original, str):
                out[key] = field.text()
                continue
            try:
                out[key] = json.loads(text) if text else None
            except json.JSONDecodeError as exc:
                raise ValueError(f"{key}: {text!r} is not a number, true/false or JSON") from exc
        return out

    def _accept(self) -> None:
        try:
            self.values()
        except ValueError as exc:
            set_plain(self.error, str(exc))
            self.error.show()
            return
        self.dialog.accept()

    def open(self) -> None:
        self.dialog.open()


def _asker_text(request: Any) -> str:
    """Who asked: the agent, or an MCP client by the name it gave itself (issue 37; shown as
    plain text, like every other fact of the card)."""
    action = request.action or {}
    when = local_time(request.created_at)
    if str(action.get("asked_by")) == "mcp client":
        return translate("ApprovalCard", "asked by an MCP client ({name}) · {time}").format(
            name=str(action.get("asker_name") or "?"), time=when
        )
    return translate("ApprovalCard", "{agent} asks · {time}").format(agent=request.agent, time=when)
