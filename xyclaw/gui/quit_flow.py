"""Quitting with live clusters: say what keeps billing, and offer to release it first."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QDialog, QLabel, QListWidget, QPushButton

from xyclaw.gui import history_words as words
from xyclaw.gui.bridge import ErrorInfo
from xyclaw.gui.formatting import duration, local_time, money
from xyclaw.gui.forms import child, load_ui

if TYPE_CHECKING:
    from xyclaw.gui.main_window import MainWindowController

RELEASE_TIMEOUT_S = 600.0
translate = QCoreApplication.translate  # lupdate reads translate("Context", "text") calls


def describe_billing(cluster: Any, now: float | None = None) -> str:
    """One line per cluster: what it is, where, what it costs an hour, since when."""
    now = now or time.time()
    nodes = max(1, len(cluster.nodes) or cluster.gpu_count // max(1, cluster.gpus_per_node))
    shape = f"{nodes} x {cluster.gpus_per_node} {cluster.gpu}"
    where = cluster.provider_id + (f" {cluster.region}" if cluster.region else "")
    per_hour = money(cluster.price_per_gpu_hour_micros * cluster.gpu_count, cluster.currency)
    since = cluster.ready_at or cluster.created_at
    return translate(
        "QuitFlow", "{name} — {shape} on {where}, {rate}/h, {state} since {since} ({age})"
    ).format(
        name=cluster.name,
        shape=shape,
        where=where,
        rate=per_hour,
        state=words.state(cluster.state),
        since=local_time(since),
        age=duration(now - since),
    )


class QuitFlow:
    """Reads the live clusters on a worker, then quits or asks (ui/quit_dialog.ui)."""

    def __init__(self, controller: MainWindowController) -> None:
        self.controller = controller
        self.dialog: QDialog | None = None
        self.clusters: list[Any] = []
        self._pending: set[str] = set()

    def start(self) -> None:
        if self.dialog is not None and self.dialog.isVisible():
            self.dialog.raise_()
            return
        engine = self.controller.engine
        self.controller.worker.submit(
            engine.clusters,
            on_done=self._clusters_read,
            on_error=self._read_failed,
            name="quit: live clusters",
        )

    def _read_failed(self, error: ErrorInfo) -> None:
        # Not knowing what bills is itself worth saying; ask as if some might.
        self.controller.show_error(error)
        self._ask([], error)

    def _clusters_read(self, clusters: list[Any]) -> None:
        live = [c for c in clusters if c.live]
        if not live:
            self.controller.quit_now()
            return
        self._ask(live, None)

    def _ask(self, clusters: list[Any], error: ErrorInfo | None) -> None:
        self.clusters = clusters
        dialog = load_ui("quit_dialog.ui", self.controller.window)
        assert isinstance(dialog, QDialog)
        self.dialog = dialog
        self.headline = child(dialog, QLabel, "quitHeadline")
        self.list = child(dialog, QListWidget, "quitClusters")
        self.release_button = child(dialog, QPushButton, "quitRelease")
        self.keep_button = child(dialog, QPushButton, "quitKeep")
        self.cancel_button = child(dialog, QPushButton, "quitCancel")
        if error is not None:
            self.headline.setText(
                translate("QuitFlow", "XyClaw could not read which clusters are billing")
            )
            self.list.addItem(error.text())
            self.release_button.setEnabled(False)
        else:
            n = len(clusters)
            self.headline.setText(
                translate("QuitFlow", "1 cluster keeps billing after XyClaw quits")
                if n == 1
                else translate("QuitFlow", "{n} clusters keep billing after XyClaw quits").format(
                    n=n
                )
            )
            for cluster in clusters:
                self.list.addItem(describe_billing(cluster))
        self.release_button.clicked.connect(self.release_and_quit)
        self.keep_button.clicked.connect(self.keep_and_quit)
        self.cancel_button.clicked.connect(dialog.reject)
        dialog.open()

    def keep_and_quit(self) -> None:
        if self.dialog is not None:
            self.dialog.accept()
        self.controller.quit_now()

    def release_and_quit(self) -> None:
        assert self.dialog is not None
        self.release_button.setEnabled(False)
        self.keep_button.setEnabled(False)
        self.headline.setText(
            translate("QuitFlow", "Releasing… XyClaw quits when the provider confirms.")
        )
        self.controller.show_operations()
        engine = self.controller.engine
        self._pending = {c.name for c in self.clusters}
        for row, cluster in enumerate(self.clusters):
            name = cluster.name
            self.controller.worker.submit(
                lambda name=name: engine.down(name),
                on_done=lambda handle, name=name, row=row: self._release_started(name, row, handle),
                on_error=lambda error, name=name, row=row: self._release_failed(name, row, error),
                name=f"release {name}",
            )

    def _release_started(self, name: str, row: int, handle: Any) -> None:
        self.controller.operations.track(handle)
        self.list.item(row).setText(translate("QuitFlow", "{name} — releasing…").format(name=name))
        self.controller.worker.submit(
            lambda: handle.result(RELEASE_TIMEOUT_S),
            on_done=lambda _record: self._released(name, row),
            on_error=lambda error: self._release_failed(name, row, error),
            name=f"wait for release of {name}",
        )

    def _released(self, name: str, row: int) -> None:
        self.list.item(row).setText(
            translate("QuitFlow", "{name} — released, billing stopped").format(name=name)
        )
        self._pending.discard(name)
        if not self._pending:
            if self.dialog is not None:
                self.dialog.accept()
            self.controller.quit_now()

    def _release_failed(self, name: str, row: int, error: ErrorInfo) -> None:
        self._pending.discard(name)
        self.list.item(row).setText(
            translate("QuitFlow", "{name} — NOT released: {error}").format(
                name=name, error=error.text()
            )
        )
        self.headline.setText(
            translate("QuitFlow", "A release failed; that cluster may still be billing.")
        )
        self.keep_button.setEnabled(True)
        self.keep_button.setText(translate("QuitFlow", "Quit anyway"))
