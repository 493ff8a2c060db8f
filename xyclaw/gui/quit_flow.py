"""Quitting with live clusters: say what keeps billing, and offer to release it first."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QCoreApplication, Qt
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


def guard_after_quit(engine: Any) -> bool:
    """Whether a guard watches the clusters once this app has quit: one runs now in its own
    process, or this app runs it and hands it to a background process on quit (``[guard]
    autostart``), as ``Engine.close`` does."""
    status = engine.guard_status()
    if not status.running:
        return False
    holder = status.info.holder if status.info is not None else None
    if holder is not None and holder != "desktop":
        return True  # a guard of its own process (background, or `xyclaw guard`)
    return bool(engine.config.guard.autostart)


class QuitFlow:
    """Reads the live clusters on a worker, then quits or asks (ui/quit_dialog.ui)."""

    def __init__(self, controller: MainWindowController) -> None:
        self.controller = controller
        self.dialog: QDialog | None = None
        self.clusters: list[Any] = []
        self._pending: set[str] = set()
        self.jobs: list[Any] = []
        self.guard_after = False

    def start(self) -> None:
        if self.dialog is not None and self.dialog.isVisible():
            self.dialog.raise_()
            return
        engine = self.controller.engine

        def read() -> tuple[list[Any], list[Any], bool]:
            clusters = engine.clusters()
            jobs = [j for j in engine.jobs() if j.active] if any(c.live for c in clusters) else []
            return clusters, jobs, guard_after_quit(engine)

        self.controller.worker.submit(
            read,
            on_done=lambda found: self._clusters_read(*found),
            on_error=self._read_failed,
            name="quit: live clusters",
        )

    def _read_failed(self, error: ErrorInfo) -> None:
        # Not knowing what bills is itself worth saying; ask as if some might.
        self.controller.show_error(error)
        self._ask([], error)

    def _clusters_read(
        self, clusters: list[Any], jobs: list[Any] | None = None, guard_after: bool = False
    ) -> None:
        live = [c for c in clusters if c.live]
        if not live:
            self.controller.quit_now()
            return
        self._ask(live, None, jobs or [], guard_after)

    def _ask(
        self,
        clusters: list[Any],
        error: ErrorInfo | None,
        jobs: list[Any] | None = None,
        guard_after: bool = False,
    ) -> None:
        self.clusters = clusters
        dialog = load_ui("quit_dialog.ui", self.controller.window)
        assert isinstance(dialog, QDialog)
        self.dialog = dialog
        self.headline = child(dialog, QLabel, "quitHeadline")
        self.list = child(dialog, QListWidget, "quitClusters")
        self.release_button = child(dialog, QPushButton, "quitRelease")
        self.keep_button = child(dialog, QPushButton, "quitKeep")
        self.cancel_button = child(dialog, QPushButton, "quitCancel")
        self.explanation = child(dialog, QLabel, "quitExplanation")
        self.guard_after = guard_after
        # a cluster's line whole: wrapped, never cut at the list's edge
        self.list.setWordWrap(True)
        self.list.setTextElideMode(Qt.TextElideMode.ElideNone)
        self.explanation.setText(
            translate(
                "QuitFlow",
                "After XyClaw quits, a background guard keeps watching them: it releases idle "
                "clusters and enforces their budgets (`xyclaw guard status` shows it). "
                "Releasing stops billing; what is only on the nodes' disks is lost.",
            )
            if guard_after
            else translate(
                "QuitFlow",
                "While XyClaw is closed nothing releases idle machines or enforces budgets. "
                "Releasing stops billing; what is only on the nodes' disks is lost.",
            )
        )
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
            running = jobs or []
            if any(c.provider_id == "sim" for c in clusters):
                # its process outlives the window: said, with why and where it stops
                self.explanation.setText(
                    self.explanation.text()
                    + "\n"
                    + translate(
                        "QuitFlow",
                        "The simulated cloud keeps running in the background so that its "
                        "clusters stay up (it bills nothing real); Settings → Simulated cloud "
                        "stops it.",
                    )
                )
            for cluster in clusters:
                line = describe_billing(cluster)
                for job in running:
                    if job.cluster == cluster.name:
                        line += "\n" + translate(
                            "QuitFlow", "    job {job} is running on it: releasing stops it"
                        ).format(job=job.name)
                self.list.addItem(line)
            self.jobs = running
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
