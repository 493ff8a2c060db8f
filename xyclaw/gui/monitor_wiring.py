"""The Monitor page in the window: its live source, and its alert buttons sent through the
agents' approvals.

The page (xyclaw/gui/monitor_page.py) pulls ring buffers at its frame rate and
only *asks* for actions. Here the window gives it the telemetry service once a
cluster is watched (found on a worker: watching opens SSH connections), the
running job of each cluster (read from the Engine's jobs on a worker every
``JOB_REFRESH_MS`` while the page is shown and on every JobChanged event; the
page's job box reads the cached result), and turns an alert button into the
same tool call an agent would make, run in the "Monitor" conversation, so it
stops at the same approval card.
"""

from __future__ import annotations

import logging
import shlex
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QCoreApplication, QEvent, QObject, QTimer
from PySide6.QtWidgets import QWidget

from xyclaw.agent.types import Effect, SuggestedAction
from xyclaw.gui.bridge import ErrorInfo

if TYPE_CHECKING:
    from xyclaw.gui.context import GuiContext

log = logging.getLogger(__name__)

JOB_REFRESH_MS = 2000  # how often the shown page re-reads the running jobs


def cluster_jobs(jobs: Any) -> dict[int, Any]:
    """Each cluster's job, from ``Engine.jobs()`` (oldest first): the newest running one,
    else the newest still active (queued, setting up, recovering)."""
    chosen: dict[int, Any] = {}
    for job in jobs:
        if job.cluster_id is None or not job.active:
            continue
        held = chosen.get(job.cluster_id)
        if held is not None and str(held.state) == "running" and str(job.state) != "running":
            continue
        chosen[job.cluster_id] = job
    return chosen


def job_statuses(jobs: Any) -> dict[int, Any]:
    """Each cluster's job (:func:`cluster_jobs`) for the Monitor's job box."""
    from xyclaw.gui.charts.source import JobStatus

    statuses: dict[int, Any] = {}
    for cluster_id, job in cluster_jobs(jobs).items():
        p = job.progress
        statuses[cluster_id] = JobStatus(
            name=job.name,
            state=str(job.state),
            step=p.step,
            total_steps=p.total_steps,
            loss=p.loss,
            eta_s=p.eta_s,
            tokens_per_s=p.tokens_per_s,
        )
    return statuses


@dataclass(frozen=True)
class AlertRequest:
    """What an alert button asks for: a tool call, or (no tool fits) a request in words."""

    action: SuggestedAction | None = None
    text: str | None = None


def alert_request(alert: Any, action: Any, cluster: str, job: Any = None) -> AlertRequest:
    """The tool call for one of ``xyclaw.gui.charts.alerts.ALERT_ACTIONS`` on an alert; its
    label (the approval card's title) in the window's language. "Stop job" cancels ``job``
    (the cluster's job, :func:`cluster_jobs`) by its id: an empty request when none runs."""
    node = getattr(alert, "node", None)
    where = cluster + (f" ({node})" if node else "")
    if action.key == "stop_job":
        if job is None:
            return AlertRequest()
        return AlertRequest(
            SuggestedAction(
                QCoreApplication.translate("AlertRequest", "Stop job {job} on {cluster}").format(
                    job=job.name, cluster=cluster
                ),
                "cancel_job",
                {"job": str(job.id)},  # its id: a name may have run before
                Effect.DESTROY,
            )
        )
    if action.key == "release_cluster":
        return AlertRequest(
            SuggestedAction(
                QCoreApplication.translate("AlertRequest", "Release {cluster}").format(
                    cluster=cluster
                ),
                "release_cluster",
                {"cluster": cluster},
                Effect.DESTROY,
            )
        )
    if action.key == "tune":
        return AlertRequest(
            SuggestedAction(
                QCoreApplication.translate(
                    "AlertRequest", "Re-run the network check on {where}"
                ).format(where=where),
                "tune",
                {"cluster": cluster},
                Effect.EXEC,
            )
        )
    if action.command:
        command = action.command.replace("{gpu}", str(getattr(alert, "gpu", "") or 0))
        if node:
            # The tool runs on every node; the command acts only on the alert's one.
            command = f'if [ "$(hostname)" = {shlex.quote(node)} ]; then {command}; fi'
        label = QCoreApplication.translate("AlertsPanel", action.label)
        return AlertRequest(
            SuggestedAction(
                QCoreApplication.translate("AlertRequest", "{action} on {where}").format(
                    action=label, where=where
                ),
                "run_command",
                {"cluster": cluster, "command": command},
                Effect.EXEC,
            )
        )
    # An action no tool does: ask the agents, in the words their rules understand.
    return AlertRequest(text=f"{action.label.lower()} on {cluster}: {alert.message}")


class MonitorWiring(QObject):
    """Builds the Monitor page and keeps it fed; None when the page cannot be built."""

    def __init__(self, context: GuiContext) -> None:
        from xyclaw.gui.charts.source import TelemetryLiveSource
        from xyclaw.gui.monitor_page import MonitorPage

        self.context = context
        self._source_type = TelemetryLiveSource
        fps = float(context.engine.config.gui.chart_fps)
        # the running jobs, read on a worker; the page's job feed reads this dict (its own
        # method: a feed bound to this object would make a cycle through the page, which
        # Python's collector could then free on any thread, and Qt's widgets must not be)
        self.jobs: dict[int, Any] = {}
        self.page = MonitorPage(None, fps=fps, job_feed=self.jobs.get)
        super().__init__(self.page)  # goes with the page: its timer and connections too
        self.page.action_requested.connect(self._action)
        self._looking = False
        context.bridge.cluster_changed.connect(self._cluster_changed)
        self.job_reads = 0  # finished reads of the jobs
        self._reading_jobs = False
        self._read_again = False
        self.job_timer = QTimer(self)
        self.job_timer.setInterval(JOB_REFRESH_MS)
        self.job_timer.timeout.connect(self.refresh_jobs)
        self.page.installEventFilter(self)
        context.bridge.job_changed.connect(self._job_changed)
        self.find_source()

    # -- the running jobs ------------------------------------------------------------------------
    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.page:
            if event.type() == QEvent.Type.Show:
                self.job_timer.start()
                self.refresh_jobs()
            elif event.type() == QEvent.Type.Hide:
                self.job_timer.stop()
        return False

    def _job_changed(self, _event: Any) -> None:
        self.refresh_jobs()

    def refresh_jobs(self) -> None:
        """On a worker: every cluster's running job, while the page is shown."""
        if not self.page.isVisible():
            return
        if self._reading_jobs:
            self._read_again = True  # a JobChanged during a read: read once more after it
            return
        self._reading_jobs = True
        engine = self.context.engine
        self.context.worker.submit(
            lambda: job_statuses(engine.jobs()),
            on_done=self._jobs_read,
            on_error=self._jobs_failed,
            name="monitor jobs",
        )

    def _jobs_read(self, statuses: dict[int, Any]) -> None:
        self._reading_jobs = False
        self.jobs.clear()
        self.jobs.update(statuses)
        self.job_reads += 1
        cluster_id = self.page.cluster_id
        if self.page.source is not None and cluster_id is not None:
            self.page.job.set_status(statuses.get(cluster_id))
        if self._read_again:
            self._read_again = False
            self.refresh_jobs()

    def _jobs_failed(self, error: ErrorInfo) -> None:
        self._reading_jobs = False
        self._read_again = False
        log.warning("the Monitor page could not read the jobs: %s", error.message)

    # -- the live source ---------------------------------------------------------------------
    def _cluster_changed(self, event: Any) -> None:
        if self.page.source is None and str(event.state) == "ready":
            self.find_source()

    def find_source(self) -> None:
        """On a worker: the first ready cluster's telemetry service (it watches them all)."""
        if self._looking or self.page.source is not None:
            return
        self._looking = True
        engine = self.context.engine

        def find() -> Any | None:
            ready = [c for c in engine.clusters() if str(c.state) == "ready"]
            return engine.live_metrics(ready[0].name) if ready else None

        self.context.worker.submit(
            find, on_done=self._found, on_error=self._not_found, name="monitor source"
        )

    def _found(self, service: Any | None) -> None:
        self._looking = False
        if service is not None and self.page.source is None:
            self.page.set_source(self._source_type(service))

    def _not_found(self, error: ErrorInfo) -> None:
        self._looking = False
        log.warning("the Monitor page has no live data: %s", error.message)

    # -- alert buttons -------------------------------------------------------------------------
    def _action(self, alert_id: int, key: str) -> None:
        from xyclaw.gui.charts.alerts import actions_for

        page = self.page
        source, cluster_id = page.source, page.cluster_id
        if source is None or cluster_id is None:
            return
        alert = next((a for a in source.alerts(cluster_id) if a.id == alert_id), None)
        if alert is None:
            self.context.show_error(ErrorInfo(self.tr("that alert has just cleared"), ""))
            return
        action = next((a for a in actions_for(alert) if a.key == key), None)
        cluster = next((c.name for c in source.clusters() if c.id == cluster_id), None)
        if action is None or cluster is None:
            return
        if key != "stop_job":
            self._ask(alert_request(alert, action, cluster), cluster)
            return
        # Which job to stop: the cluster's job now, read on a worker (the job box's copy may
        # be a refresh old); the cancel_job call on its id stops at the approval card.
        engine = self.context.engine
        self.context.worker.submit(
            lambda: cluster_jobs(engine.jobs()).get(cluster_id),
            on_done=partial(self._stop_job, alert, action, cluster),
            on_error=self.context.show_error,
            name="monitor stop job",
        )

    def _stop_job(self, alert: Any, action: Any, cluster: str, job: Any) -> None:
        self._ask(alert_request(alert, action, cluster, job), cluster)

    def _ask(self, request: AlertRequest, cluster: str) -> None:
        if request.action is None and not request.text:
            self.context.show_error(
                ErrorInfo(self.tr("no job runs on {cluster} now").format(cluster=cluster), "")
            )
            return
        chat = self.context.pages.get("chat")
        if chat is None or not hasattr(chat, "run_in_monitor"):
            self.context.show_error(
                ErrorInfo(
                    self.tr("the agents are not running"),
                    self.tr("restart XyClaw to use alert actions"),
                )
            )
            return
        chat.run_in_monitor(request.action, request.text)
        self.context.show_page("chat")


def create_monitor_page(context: GuiContext) -> QWidget | None:
    try:
        wiring = MonitorWiring(context)
    except ImportError:
        log.exception("the Monitor page is not available")
        return None
    context.monitor = wiring
    return wiring.page
