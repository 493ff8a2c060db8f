"""What a conversation is made of on screen: messages, tool-call cards, plan tables,
notices. (Approval cards are in :mod:`xyclaw.gui.chat.approval`.)"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QEvent, Qt, Signal
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from xyclaw.gui.formatting import duration, fabric_text, money, planner_reason, tokens, worded
from xyclaw.gui.widgets import Badge, MarkdownView, plain_label, plain_tip, set_plain
from xyclaw.wording import display

#: Words of the cards, marked here and translated when shown (a language switch re-words
#: the cards on screen).
EFFECT_TEXT = {
    "read": QT_TRANSLATE_NOOP("ChatBlocks", "read"),
    "spend": QT_TRANSLATE_NOOP("ChatBlocks", "spends money"),
    "destroy": QT_TRANSLATE_NOOP("ChatBlocks", "destroys"),
    "exec": QT_TRANSLATE_NOOP("ChatBlocks", "runs commands"),
}
EFFECT_TIPS = {
    "read": QT_TRANSLATE_NOOP("ChatBlocks", "Only reads: runs without asking"),
    "spend": QT_TRANSLATE_NOOP("ChatBlocks", "Spends money: asks for your approval"),
    "destroy": QT_TRANSLATE_NOOP("ChatBlocks", "Releases or deletes: asks for your approval"),
    "exec": QT_TRANSLATE_NOOP(
        "ChatBlocks", "Runs commands on your machines: asks for your approval"
    ),
}
STATUS_TEXT = {
    "running": QT_TRANSLATE_NOOP("ChatBlocks", "running…"),
    "done": QT_TRANSLATE_NOOP("ChatBlocks", "done"),
    "pending_approval": QT_TRANSLATE_NOOP("ChatBlocks", "waiting for your approval"),
    "approved": QT_TRANSLATE_NOOP("ChatBlocks", "approved"),
    "rejected": QT_TRANSLATE_NOOP("ChatBlocks", "rejected"),
    "failed": QT_TRANSLATE_NOOP("ChatBlocks", "failed"),
}
#: The plan table's headers, by column key.
PLAN_HEADERS = {
    "GPUs": QT_TRANSLATE_NOOP("ChatBlocks", "GPUs"),
    "Nodes": QT_TRANSLATE_NOOP("ChatBlocks", "Nodes"),
    "Fabric": QT_TRANSLATE_NOOP("ChatBlocks", "Fabric"),
    "Where": QT_TRANSLATE_NOOP("ChatBlocks", "Where"),
    "Hours": QT_TRANSLATE_NOOP("ChatBlocks", "Hours"),
    "Cost": QT_TRANSLATE_NOOP("ChatBlocks", "Cost"),
}


def _t(text: str) -> str:
    return QCoreApplication.translate("ChatBlocks", text)


def _word(table: dict[str, str], value: str) -> str:
    found = table.get(value)
    return _t(found) if found else value


def effect_text(effect: object) -> str:
    return _word(EFFECT_TEXT, str(getattr(effect, "value", effect)))


def effect_badge(effect: object) -> Badge:
    value = str(getattr(effect, "value", effect))
    badge = Badge(_word(EFFECT_TEXT, value), "effect", value)
    badge.setToolTip(_word(EFFECT_TIPS, value))
    return badge


def _language_changed(widget: QWidget, event: QEvent) -> bool:
    """A language change for a card that still exists (its words are made again)."""
    import shiboken6

    return event.type() == QEvent.Type.LanguageChange and shiboken6.isValid(widget)


def _card(role: str) -> tuple[QFrame, QVBoxLayout]:
    frame = QFrame()
    frame.setProperty("role", role)
    frame.setFrameShape(QFrame.Shape.StyledPanel)
    layout = QVBoxLayout(frame)
    layout.setContentsMargins(12, 8, 12, 8)
    layout.setSpacing(4)
    return frame, layout


def _muted(text: str = "") -> QLabel:
    label = plain_label(text)
    label.setProperty("role", "muted")
    return label


class UserBlock(QFrame):
    """What the user wrote."""

    def __init__(self, text: str, ts: float | None = None) -> None:
        super().__init__()
        self.setProperty("role", "user-message")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 6, 12, 8)
        layout.setSpacing(2)
        self.stamp = time.strftime("%H:%M", time.localtime(ts or time.time()))
        self.who = _muted()
        layout.addWidget(self.who)
        self.body = MarkdownView(text)
        self.body.setProperty("data", True)  # the user's own words, as typed
        layout.addWidget(self.body)
        self.text = text
        self.retranslate()

    def retranslate(self) -> None:
        self.who.setText(
            QCoreApplication.translate("ChatBlocks", "You · {time}").format(time=self.stamp)
        )

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if _language_changed(self.who, event):
            self.retranslate()


class MessageBlock(QFrame):
    """An agent's reply: its name, the Markdown (streamed as it comes), its tokens and cost."""

    def __init__(self, agent: str | None, text: str = "") -> None:
        super().__init__()
        self.setProperty("role", "assistant-message")
        self.agent = agent or "assistant"
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 6, 12, 8)
        layout.setSpacing(2)
        header = QHBoxLayout()
        self.agent_label = plain_label(self.agent)
        self.agent_label.setProperty("role", "agent-name")
        self.agent_label.setProperty("data", True)  # the agent's name, as the runtime calls it
        header.addWidget(self.agent_label)
        self.reasoning_toggle = QToolButton()
        self.reasoning_toggle.setText(self._reasoning_text(False))
        self.reasoning_toggle.setCheckable(True)
        self.reasoning_toggle.setAutoRaise(True)
        self.reasoning_toggle.hide()
        header.addWidget(self.reasoning_toggle)
        header.addStretch(1)
        self.footer = _muted()
        header.addWidget(self.footer)
        layout.addLayout(header)
        self._layout = layout
        self.reasoning: MarkdownView | None = None  # built when there is some
        self.reasoning_toggle.toggled.connect(self._toggle_reasoning)
        self.body = MarkdownView(text)
        self.body.setProperty("data", True)  # the reply as the agent wrote it, in its language
        layout.addWidget(self.body)
        self.streaming = False
        self.finished = bool(text)
        self._usage: tuple[int, int, int, str] | None = None

    @staticmethod
    def _reasoning_text(shown: bool) -> str:
        return (
            QCoreApplication.translate("ChatBlocks", "reasoning ▾")
            if shown
            else QCoreApplication.translate("ChatBlocks", "reasoning ▸")
        )

    def retranslate(self) -> None:
        self.reasoning_toggle.setText(self._reasoning_text(self.reasoning_toggle.isChecked()))
        if self._usage is not None:
            tokens_in, tokens_out, cost_micros, currency = self._usage
            self.footer.setText(
                QCoreApplication.translate("ChatBlocks", "{tin} in · {tout} out · {cost}").format(
                    tin=tokens(tokens_in), tout=tokens(tokens_out),
                    cost=money(cost_micros, currency, 4),
                )
            )  # fmt: skip
            self.footer.setToolTip(
                QCoreApplication.translate("ChatBlocks", "Tokens and model cost of this reply")
            )

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if _language_changed(self.footer, event):
            self.retranslate()

    def set_actions(self, actions: tuple[Any, ...], run: Callable[[Any], None]) -> None:
        """Buttons for the message's suggested actions; each still asks for approval."""
        row = QHBoxLayout()
        row.setSpacing(6)
        self.action_buttons: list[QPushButton] = []
        for action in actions:
            effect = str(getattr(action.effect, "value", action.effect))
            button = QPushButton(display.line(action.label))
            button.setProperty("role", "danger-small" if effect == "destroy" else "primary-small")
            button.setToolTip(
                plain_tip(
                    QCoreApplication.translate("ChatBlocks", "{tool}: {effect}; asks first").format(
                        tool=action.tool, effect=_word(EFFECT_TEXT, effect)
                    )
                )
            )
            button.clicked.connect(lambda _=False, a=action: run(a))
            row.addWidget(button)
            self.action_buttons.append(button)
        row.addStretch(1)
        self._layout.addLayout(row)

    def _toggle_reasoning(self, shown: bool) -> None:
        self._reasoning_view().setVisible(shown)
        self.reasoning_toggle.setText(self._reasoning_text(shown))

    def _reasoning_view(self) -> MarkdownView:
        if self.reasoning is None:
            self.reasoning = MarkdownView()
            self.reasoning.setProperty("role", "reasoning")
            self.reasoning.setProperty("data", True)  # the model's own words
            self.reasoning.hide()
            self._layout.insertWidget(1, self.reasoning)
            self.reasoning_toggle.show()
        return self.reasoning

    def append(self, text: str) -> None:
        self.streaming = True
        self.body.append_streamed(text)

    def append_reasoning(self, text: str) -> None:
        self._reasoning_view().append_streamed(text)

    @property
    def text(self) -> str:
        return self.body.markdown

    def finish(
        self,
        text: str | None,
        *,
        tokens_in: int = 0,
        tokens_out: int = 0,
        cost_micros: int = 0,
        currency: str = "USD",
        reasoning: str | None = None,
    ) -> None:
        self.streaming = False
        self.finished = True
        if text is not None and text != self.body.markdown:
            self.body.set_markdown(text)
        else:
            self.body.flush()
        if reasoning:
            self._reasoning_view().set_markdown(reasoning)
        if tokens_in or tokens_out or cost_micros:
            self._usage = (tokens_in, tokens_out, cost_micros, currency)
            self.retranslate()


class NoticeBlock(QLabel):
    """A one-line note in the conversation (stopped, failed, approved…)."""

    def __init__(
        self, text: str, role: str = "notice", *, words: Callable[[], str] | None = None
    ) -> None:
        """``words`` gives the text in the GUI's language (called again on a language
        change); without it the text is shown as it is (a message, as it was written)."""
        super().__init__()
        self.words = words
        # a message as it was written (an error may quote a model or a machine): plain text
        set_plain(self, words() if words is not None else text, multiline=True)
        self.setWordWrap(True)
        self.setProperty("role", role)
        if words is None:
            self.setProperty("data", True)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if self.words is not None and _language_changed(self, event):
            set_plain(self, self.words(), multiline=True)


class JobProgressBlock(QFrame):
    """Issue 28: a job launched from the chat, followed in the conversation: its state, its
    step of the total with the percent, its loss; the bar fills as it trains. ``show_job``
    takes a fresh read of the job (a ``JobRecord``); the page reads it every few seconds
    until the job ends."""

    def __init__(self, job_id: int, name: str) -> None:
        super().__init__()
        self.setObjectName("chatJobProgress")
        self.setProperty("role", "tool-card")
        self.job_id = job_id
        self.name = name
        self.ended = False
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 6, 12, 6)
        layout.setSpacing(4)
        self.line = plain_label()
        self.line.setWordWrap(True)
        layout.addWidget(self.line)
        self.bar = QProgressBar()
        self.bar.setFormat("%p%")
        self.bar.setRange(0, 0)  # busy until the first step is known
        self.bar.setMaximumHeight(14)
        self.bar.setTextVisible(False)
        layout.addWidget(self.bar)
        self._job: Any = None
        self.retranslate()

    def show_job(self, job: Any) -> None:
        self._job = job
        self.ended = bool(getattr(job.state, "finished", False))
        progress = job.progress
        if progress.step is not None and progress.total_steps:
            self.bar.setRange(0, int(progress.total_steps))
            self.bar.setValue(min(int(progress.step), int(progress.total_steps)))
        elif self.ended:
            self.bar.setRange(0, 1)
            self.bar.setValue(1)
        self.retranslate()

    def text(self) -> str:
        return self.line.text()

    def retranslate(self) -> None:
        from xyclaw.gui.history_words import progress_text, state

        job = self._job
        if job is None:  # until the first read (a few ms): the name, the bar busy
            set_plain(self.line, self.name)
            return
        # no word a Chinese window would show in English: the name, the state's word, the
        # step of the total with the percent ("7 / 200 (3%)"), the loss
        parts = [
            QCoreApplication.translate("ChatBlocks", "{name}: {state}").format(
                name=self.name, state=state(job.state.value)
            )
        ]
        if job.progress.step is not None:
            parts.append(progress_text(job))
        if job.progress.loss is not None:
            parts.append(
                QCoreApplication.translate("ChatBlocks", "loss {loss}").format(
                    loss=f"{job.progress.loss:.4g}"
                )
            )
        set_plain(self.line, " · ".join(parts))

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if _language_changed(self.line, event):
            self.retranslate()


def call_error(call: Any) -> str:
    """A call's error (or why it did not run) in the GUI's language where it was said."""
    said = getattr(call, "error_said", None)
    return worded(said) if said is not None else str(call.error or "")


def call_summary(call: Any) -> str:
    """A call's result line in the GUI's language where it was said."""
    said = getattr(call, "summary_said", None)
    return worded(said) if said is not None else str(call.summary or "")


def _worded_line(call: Any) -> tuple[str, bool]:
    """The card's line (its error, else its summary) and whether it is worded (False: as it
    was stored before calls were said, or a remote machine's own words)."""
    if call.error:
        return call_error(call), getattr(call, "error_said", None) is not None
    if call.summary:
        return call_summary(call), getattr(call, "summary_said", None) is not None
    return "", True


class ToolCard(QFrame):
    """A tool call: name, effect badge, status and duration; arguments and result fold open.

    The folded part is built on first open: most cards are never opened, and a
    turn's cards arrive in a burst that must not hold up the event loop.
    """

    def __init__(self, call: Any) -> None:
        super().__init__()
        self.setProperty("role", "tool-card")
        self.call_id = str(call.call_id)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 6, 10, 6)
        layout.setSpacing(4)
        self._layout = layout
        header = QHBoxLayout()
        header.setSpacing(8)
        self.toggle = QToolButton()
        self.toggle.setObjectName("toolToggle")
        self.toggle.setCheckable(True)
        self.toggle.setAutoRaise(True)
        self.toggle.setArrowType(Qt.ArrowType.RightArrow)
        header.addWidget(self.toggle)
        self.name = plain_label(call.tool)
        self.name.setProperty("role", "tool-name")
        self.name.setProperty("data", True)  # the tool's name, as the agents call it
        header.addWidget(self.name)
        self.badge = effect_badge(call.effect)
        header.addWidget(self.badge)
        self.summary = _muted()
        self.summary.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        header.addWidget(self.summary, 1)
        self.status = plain_label()
        self.status.setProperty("role", "tool-status")
        header.addWidget(self.status)
        layout.addLayout(header)
        self.body: QWidget | None = None
        self.toggle.toggled.connect(self.set_expanded)
        self.update_call(call)

    def retranslate(self) -> None:
        self.toggle.setToolTip(
            QCoreApplication.translate("ChatBlocks", "Show the arguments and the result")
        )
        value = str(getattr(self.call.effect, "value", self.call.effect))
        self.badge.setText(_word(EFFECT_TEXT, value))
        self.badge.setToolTip(_word(EFFECT_TIPS, value))
        self.update_call(self.call)
        if self.body is not None:
            set_plain(self.args_label, QCoreApplication.translate("ChatBlocks", "Arguments"))

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if _language_changed(self.status, event):
            self.retranslate()

    @property
    def expanded(self) -> bool:
        return self.body is not None and self.body.isVisible()

    def set_expanded(self, shown: bool) -> None:
        self.toggle.setChecked(shown)
        self.toggle.setArrowType(Qt.ArrowType.DownArrow if shown else Qt.ArrowType.RightArrow)
        if shown and self.body is None:
            self._build_body()
        if self.body is not None:
            self.body.setVisible(shown)

    def _build_body(self) -> None:
        self.body = QWidget()
        body = QVBoxLayout(self.body)
        body.setContentsMargins(26, 0, 0, 2)
        body.setSpacing(4)
        self.args = QPlainTextEdit()
        self.args.setReadOnly(True)
        self.args.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.args.setProperty("role", "code")
        self.args_label = _muted(QCoreApplication.translate("ChatBlocks", "Arguments"))
        body.addWidget(self.args_label)
        body.addWidget(self.args)
        self.result_label = _muted()
        body.addWidget(self.result_label)
        self.result = MarkdownView()
        body.addWidget(self.result)
        self._layout.addWidget(self.body)
        self._fill_body()

    def _fill_body(self) -> None:
        call = self.call
        args = json.dumps(call.args, indent=2, ensure_ascii=False, default=str)
        self.args.setPlainText(display.text(args))
        lines = min(12, args.count("\n") + 1)
        self.args.setFixedHeight(lines * self.args.fontMetrics().lineSpacing() + 14)
        result = QCoreApplication.translate("ChatBlocks", "Result")
        if call.error:
            self.result_label.setText(QCoreApplication.translate("ChatBlocks", "Error"))
            self.result.set_markdown(call_error(call))
        elif call.summary:
            self.result_label.setText(
                QCoreApplication.translate(
                    "ChatBlocks", "Result (from a remote machine: data, not instructions)"
                )
                if getattr(call, "from_remote", False)
                else result
            )
            self.result.set_markdown(call_summary(call))
        else:
            self.result_label.setText(result)
            self.result.set_markdown(
                "_" + QCoreApplication.translate("ChatBlocks", "not finished yet") + "_"
            )

    def update_call(self, call: Any) -> None:
        self.call = call
        status = str(call.status)
        self.setProperty("status", status)
        text = _word(STATUS_TEXT, status)
        if call.duration_s is not None:
            text += f" · {duration(call.duration_s)}"
        set_plain(self.status, text)
        summary, said = _worded_line(call)
        first = summary.strip().splitlines()[0] if summary.strip() else ""
        set_plain(self.summary, first)
        # a line stored before calls were said is shown as it was written
        self.summary.setProperty("data", None if said else True)
        self.summary.setToolTip(plain_tip(summary))
        self.setToolTip(
            plain_tip(
                QCoreApplication.translate("ChatBlocks", "Arguments: {args}").format(
                    args=json.dumps(call.args, ensure_ascii=False, default=str)[:300]
                )
            )
        )
        if self.body is not None:
            self._fill_body()
        self.style().unpolish(self)
        self.style().polish(self)


PLAN_COLUMNS = ("#", "GPUs", "Nodes", "Fabric", "Where", "Hours", "Cost", "")
_RIGHT = (0, 5, 6)


def _option_cells(index: int, option: dict[str, Any]) -> list[str]:
    currency = str(option.get("currency") or "CNY")
    nodes = option.get("nodes")
    per_node = option.get("gpus_per_node")
    gpus = option.get("gpus") or option.get("gpu_count") or ""
    where = " · ".join(str(option[k]) for k in ("provider", "region") if option.get(k))
    hours = option.get("hours")
    cost = option.get("cost")
    return [
        str(option.get("option", option.get("rank", index))),
        f"{gpus} × {option.get('gpu', '')}".strip(),
        f"{nodes} × {per_node}" if nodes and per_node else "",
        fabric_text(option.get("fabric")) if "fabric" in option else "",
        where,
        ("" if hours is None else f"{float(hours):.1f}") + _starts(option),
        "" if cost is None else f"{float(cost):,.2f} {currency}",
    ]


def _starts(option: dict[str, Any]) -> str:
    """When a Slurm partition's option would start, after its hours (issue 33); a rental
    starts now and says nothing."""
    if not option.get("queued"):
        return ""
    wait = option.get("wait_s")
    if option.get("runs_now"):
        return " · " + QCoreApplication.translate("ChatBlocks", "starts now")
    if wait is None:
        return " · " + QCoreApplication.translate("ChatBlocks", "queued, wait unknown")
    return " · " + QCoreApplication.translate("ChatBlocks", "starts in ~{n} min").format(
        n=-(-int(wait) // 60)
    )


def _reasons(option: dict[str, Any]) -> list[str]:
    out = []
    price = option.get("price_per_gpu_hour")
    if price is not None:
        out.append(
            QCoreApplication.translate("ChatBlocks", "{price} per GPU-hour").format(
                price=f"{float(price):.2f} {option.get('currency') or 'CNY'}"
            )
        )
    for reason in option.get("reasons") or []:
        if isinstance(reason, dict):
            figures = reason.get("figures")
            out.append(
                planner_reason(
                    str(reason.get("rule") or ""),
                    str(reason.get("text", reason)),
                    figures if isinstance(figures, dict) else None,
                )
            )
        else:
            out.append(str(reason))
    return out


class PlanCard(QFrame):
    """The planner's options as a comparison table, each with "Rent this" and its reasons.

    A grid of labels rather than a QTableWidget: each option's reasons wrap
    across the whole width under its row, and the card is exactly as tall as
    its content, with no inner scroll bar.
    """

    rent_requested = Signal(int, int)  # plan id, option number (1-based)

    def __init__(self, plan_id: int, options: list[dict[str, Any]]) -> None:
        super().__init__()
        self.setProperty("role", "plan-card")
        self.plan_id = plan_id
        self.options = options
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 8, 12, 10)
        layout.setSpacing(6)
        self.title = title = plain_label()
        title.setProperty("role", "card-title")
        layout.addWidget(title)
        self.heads: list[QLabel] = []
        table = QFrame()
        table.setObjectName("planTable")
        grid = QGridLayout(table)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setHorizontalSpacing(12)
        grid.setVerticalSpacing(2)
        for col, name in enumerate(PLAN_COLUMNS):
            head = plain_label(name)
            head.setProperty("role", "plan-head")
            self.heads.append(head)
            if col in _RIGHT:
                head.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            grid.addWidget(head, 0, col)
        self.cells: list[list[QLabel]] = []
        self.reasons: list[QLabel] = []
        self.rent_buttons: list[QPushButton] = []
        for index, option in enumerate(options):
            row = 1 + 2 * index
            number = int(option.get("option", option.get("rank", index + 1)))
            labels = []
            for col, text in enumerate(_option_cells(index + 1, option)):
                cell = plain_label(text)  # a provider's names, as it wrote them
                cell.setProperty("role", "plan-cell")
                if col in _RIGHT:
                    cell.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                grid.addWidget(cell, row, col)
                labels.append(cell)
            self.cells.append(labels)
            button = QPushButton()
            button.setObjectName(f"rent_option_{number}")
            button.setProperty("number", number)
            button.setProperty("role", "primary-small")
            button.clicked.connect(
                lambda _=False, n=number: self.rent_requested.emit(self.plan_id, n)
            )
            grid.addWidget(button, row, len(PLAN_COLUMNS) - 1)
            self.rent_buttons.append(button)
            why = plain_label()
            why.setWordWrap(True)
            why.setProperty("role", "plan-why")
            grid.addWidget(why, row + 1, 0, 1, len(PLAN_COLUMNS))
            self.reasons.append(why)
        grid.setColumnStretch(4, 1)  # "Where" takes what is left
        self.table = table
        layout.addWidget(table)
        self.retranslate()

    def retranslate(self) -> None:
        count = len(self.options)
        set_plain(
            self.title,
            (
                QCoreApplication.translate("ChatBlocks", "Plan {id}: 1 option")
                if count == 1
                else QCoreApplication.translate("ChatBlocks", "Plan {id}: {n} options, best first")
            ).format(id=self.plan_id, n=count),
        )
        for head, name in zip(self.heads, PLAN_COLUMNS, strict=True):
            set_plain(head, _word(PLAN_HEADERS, name))
        for button in self.rent_buttons:
            button.setText(QCoreApplication.translate("ChatBlocks", "Rent this"))
            button.setToolTip(
                plain_tip(
                    QCoreApplication.translate(
                        "ChatBlocks", "Quote option {n} and ask for your approval"
                    ).format(n=button.property("number"))
                )
            )
        for index, (labels, option) in enumerate(zip(self.cells, self.options, strict=True)):
            for cell, text in zip(labels, _option_cells(index + 1, option), strict=False):
                set_plain(cell, text)
        for why, option in zip(self.reasons, self.options, strict=True):
            reasons = _reasons(option)
            set_plain(why, "  ·  ".join(reasons[:4]))
            why.setToolTip(plain_tip("\n".join(f"• {display.line(r)}" for r in reasons)))

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if _language_changed(self.title, event):
            self.retranslate()

    def reasons_text(self, index: int) -> str:
        return self.reasons[index].text()

    def cell(self, index: int, column: str) -> str:
        return self.cells[index][PLAN_COLUMNS.index(column)].text()

    @property
    def option_count(self) -> int:
        return len(self.options)

    def set_renting(self, option: int | None) -> None:
        """While a rent of this plan is asked for, its buttons wait."""
        for button in self.rent_buttons:
            button.setEnabled(option is None)


def clear_layout(layout: Any, keep: Callable[[QWidget], bool] = lambda w: False) -> None:
    for index in reversed(range(layout.count())):
        item = layout.itemAt(index)
        widget = item.widget()
        if widget is not None and keep(widget):
            continue
        layout.takeAt(index)
        if widget is not None:
            widget.deleteLater()
