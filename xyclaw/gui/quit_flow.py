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
    from xyclaw.gui.context import WindowController

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

    def __init__(self, controller: WindowController) -> None:
        self.controller = controller
        self.dialog: QDialog | None = None
        self.clusters: list[Any] = []
        self.jobs: list[Any] = []
        self.guard_after = False
        # the release the dialog shows, bound to the live clusters' ids when it is read: a
        # click releases exactly those, or nothing when they changed behind the dialog
        self.action: Any = None

    def start(self) -> None:
        if self.dialog is not None and self.dialog.isVisible():
            self.dialog.raise_()
            return
        engine = self.controller.engine

        def read() -> tuple[list[Any], list[Any], bool, Any]:
            action, clusters = _bound_live(engine)
            jobs = [j for j in engine.jobs() if j.active] if clusters else []
            return clusters, jobs, guard_after_quit(engine), action

        self.controller.worker.submit(
            read,
            on_done=lambda found: self._clusters_read(*found),
            on_error=self._read_failed,
            name="quit: live clusters",
        )

    def _read_failed(self, error: ErrorInfo) -> None:
        # Not knowing what bills is itself worth saying; ask as if some might.
        self.controller.show_error(error)
        self.action = None
        self._ask([], error)

    def _clusters_read(
        self,
        clusters: list[Any],
        jobs: list[Any] | None = None,
        guard_after: bool = False,
        action: Any = None,
    ) -> None:
        live = [c for c in clusters if c.live]
        if not live:
            self.controller.quit_now()
            return
        self.action = action
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
            # what Release would release was bound when the list was read; without that
            # binding (the clusters kept changing) there is nothing it may release
            self.release_button.setEnabled(self.action is not None)
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
        action = self.action
        if action is None:  # nothing was bound: the read failed, and Release is disabled
            return
        self.release_button.setEnabled(False)
        self.keep_button.setEnabled(False)
        self.headline.setText(
            translate("QuitFlow", "Releasing… XyClaw quits when the provider confirms.")
        )
        self.controller.show_operations()
        engine = self.controller.engine
        self.controller.worker.submit(
            lambda: engine.release(action),
            on_done=self._release_started,
            on_error=self._release_refused,
            name="release before quit",
        )

    def _release_refused(self, error: ErrorInfo) -> None:
        """The Engine released nothing: the clusters changed behind the dialog (one listed was
        released, a new one rented) or the provider could not be asked."""
        self.action = None  # a second click would be refused the same way: ask again
        for row in range(self.list.count()):
            self.list.item(row).setText(
                translate("QuitFlow", "{name} — NOT released").format(name=self.clusters[row].name)
                if row < len(self.clusters)
                else self.list.item(row).text()
            )
        self.list.addItem(error.text())
        self.headline.setText(
            translate(
                "QuitFlow",
                "Nothing was released: the clusters changed after this was shown. "
                "Cancel and quit again to see what bills now.",
            )
        )
        self.keep_button.setEnabled(True)
        self.keep_button.setText(translate("QuitFlow", "Quit anyway"))

    def _release_started(self, handle: Any) -> None:
        self.controller.operations.track(handle)
        for row, cluster in enumerate(self.clusters):
            self.list.item(row).setText(
                translate("QuitFlow", "{name} — releasing…").format(name=cluster.name)
            )
        engine = self.controller.engine
        ids = [c.id for c in self.clusters]

        def wait() -> list[Any]:
            handle.result(RELEASE_TIMEOUT_S)
            return [engine.cluster(str(i)) for i in ids]

        def states_after_failure(error: ErrorInfo) -> None:
            self.controller.worker.submit(
                lambda: [engine.cluster(str(i)) for i in ids],
                on_done=lambda now: self._release_failed(now, error),
                on_error=lambda _again: self._release_failed(None, error),
                name="clusters after a failed release",
            )

        self.controller.worker.submit(
            wait,
            on_done=lambda now: self._released(now),
            on_error=states_after_failure,
            name="wait for the release before quit",
        )

    def _released(self, now: list[Any]) -> None:
        for row, cluster in enumerate(now):
            self.list.item(row).setText(
                translate("QuitFlow", "{name} — released, billing stopped").format(
                    name=cluster.name
                )
            )
        if self.dialog is not None:
            self.dialog.accept()
        self.controller.quit_now()

    def _release_failed(self, now: list[Any] | None, error: ErrorInfo) -> None:
        """Row by row what the release left: released, or NOT released with the error."""
        for row, cluster in enumerate(now or self.clusters):
            done = now is not None and not cluster.live
            self.list.item(row).setText(
                translate("QuitFlow", "{name} — released, billing stopped").format(
                    name=cluster.name
                )
                if done
                else translate("QuitFlow", "{name} — NOT released: {error}").format(
                    name=cluster.name, error=error.text()
                )
            )
        self.headline.setText(
            translate("QuitFlow", "A release failed; that cluster may still be billing.")
        )
        self.keep_button.setEnabled(True)
        self.keep_button.setText(translate("QuitFlow", "Quit anyway"))


def _bound_live(engine: Any, tries: int = 3) -> tuple[Any, list[Any]]:
    """The live clusters and the release Action bound to exactly their ids ("all", resolved
    now): read until the two agree, so that the dialog lists what a click would release."""
    for _ in range(tries):
        action = engine.action("release", "all", asked_by="user")
        ids = [int(i) for i in action.ids("cluster")]
        clusters = [c for c in engine.clusters() if c.live]
        if sorted(c.id for c in clusters) == sorted(ids):
            return action, sorted(clusters, key=lambda c: ids.index(c.id))
    return None, clusters  # still changing: listed, Release refused until asked again
