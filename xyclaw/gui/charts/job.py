"""The running job's step, loss and time left, as one small box."""

from __future__ import annotations

from PySide6.QtCore import QEvent
from PySide6.QtWidgets import QGridLayout, QLabel, QProgressBar, QVBoxLayout, QWidget

from xyclaw.gui import i18n
from xyclaw.gui.charts.source import JobStatus
from xyclaw.gui.history_words import state as state_word
from xyclaw.gui.widgets import plain_label


def format_eta(seconds: float | None) -> str:
    """Time left in the GUI's language ("14 min 23 s", "14 分 23 秒")."""
    if seconds is None or seconds < 0:
        return "-"
    return i18n.duration(seconds)


def format_loss(loss: float | None) -> str:
    if loss is None:
        return "-"
    return f"{loss:.4f}" if abs(loss) < 100 else f"{loss:.1f}"


class JobPanel(QWidget):
    """Shows a JobStatus, or "no job"."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.status: JobStatus | None = None
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.setSpacing(4)
        self.title = plain_label()
        self.title.setStyleSheet("font-weight: 600;")
        outer.addWidget(self.title)
        self.none = plain_label()
        self.none.setStyleSheet("color: #6b7280;")
        outer.addWidget(self.none)
        self.details = QWidget()
        grid = QGridLayout(self.details)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setHorizontalSpacing(10)
        grid.setVerticalSpacing(2)
        self.step = plain_label()
        self.loss = plain_label()
        self.eta = plain_label()
        self.rate = plain_label()
        self.names: list[QLabel] = []  # Step, Loss, ETA, Tokens/s
        for row, value in enumerate((self.step, self.loss, self.eta, self.rate)):
            label = plain_label()
            label.setStyleSheet("color: #6b7280;")
            self.names.append(label)
            grid.addWidget(label, row, 0)
            grid.addWidget(value, row, 1)
        grid.setColumnStretch(1, 1)
        self.progress = QProgressBar()
        self.progress.setTextVisible(True)
        self.progress.setMaximumHeight(16)
        grid.addWidget(self.progress, 4, 0, 1, 2)
        outer.addWidget(self.details)
        self._shown = False
        self.retranslate()

    def retranslate(self) -> None:
        """The box's words in the GUI's language (also when it changes)."""
        self.none.setText(self.tr("no job"))
        for label, text in zip(
            self.names,
            (self.tr("Step"), self.tr("Loss"), self.tr("ETA"), self.tr("Tokens/s")),
            strict=True,
        ):
            label.setText(text)
        self._shown = False
        self.set_status(self.status)

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()

    def set_status(self, status: JobStatus | None) -> None:
        if self._shown and status == self.status:
            return
        self._shown = True
        self.status = status
        self.none.setVisible(status is None)
        self.details.setVisible(status is not None)
        if status is None:
            self.title.setText(self.tr("Job"))
            return
        self.title.setText(
            self.tr("Job: {name} ({state})").format(
                name=status.name, state=state_word(status.state)
            )
        )
        if status.step is not None and status.total_steps:
            self.step.setText(f"{status.step:,} / {status.total_steps:,}")
            self.progress.setRange(0, status.total_steps)
            self.progress.setValue(min(status.step, status.total_steps))
            self.progress.setFormat(f"{100 * status.step / status.total_steps:.0f}%")
            self.progress.setVisible(True)
        else:
            self.step.setText("-" if status.step is None else f"{status.step:,}")
            self.progress.setVisible(False)
        self.loss.setText(format_loss(status.loss))
        self.eta.setText(format_eta(status.eta_s))
        self.rate.setText("-" if status.tokens_per_s is None else f"{status.tokens_per_s:,.0f}")
