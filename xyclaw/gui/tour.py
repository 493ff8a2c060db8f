"""The first run: a welcome on the empty chat, and "Take the tour".

On a fresh install the chat opens on a welcome that says what works with no account
and no model key (the simulated cloud, the rules agent), with the example requests as
buttons, "Take the tour" and "Skip". Whichever the user picks (or once they send
anything) is remembered in ``<state>/first-run.json``, and the welcome's first-run part
is not shown again; "Take the tour" stays on every empty chat.

The tour plays the demo flow (plan -> approve -> rent -> tune -> launch -> watch ->
release -> history) in the real pages: each step is a message to the agents in a
conversation of its own, typed for the user, and every approval card is left for the
user to click (the tour never approves anything). A panel above the pages says what
the step does and what to click, with "Next" and "Skip tour". It always talks to the
rules agent (free, offline, and it understands the tour's messages): when the app's
agents use a model, the tour runs on a rules agent of its own and gives the chat its
agents back when it ends.
"""

from __future__ import annotations

import json
import logging
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import (
    QDockWidget,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from xyclaw.agent.types import TurnResult
from xyclaw.files import write_private
from xyclaw.gui.bridge import ErrorInfo
from xyclaw.gui.widgets import plain_label

if TYPE_CHECKING:
    from xyclaw.gui.context import WindowController

log = logging.getLogger(__name__)

FIRST_RUN_FILE = "first-run.json"
TOUR_TITLE = "Tour"
JOB_POLL_MS = 1000
CTX = "Tour"
ENDED_STATES = ("succeeded", "failed", "cancelled")


def _t(text: str) -> str:
    return QCoreApplication.translate(CTX, text)


class FirstRun:
    """Whether the welcome was seen, and how the user left it (in the state folder)."""

    def __init__(self, state_dir: Path) -> None:
        self.path = state_dir / FIRST_RUN_FILE

    def read(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as exc:  # unreadable: show the welcome again
            log.warning("cannot read %s (%s); the welcome is shown again", self.path, exc)
            return {}
        return data if isinstance(data, dict) else {}

    @property
    def seen(self) -> bool:
        return bool(self.read().get("welcome"))

    def mark(self, welcome: str | None = None, tour: str | None = None) -> None:
        """``welcome``: "skipped", "tour" or "used"; ``tour``: "started", "finished", "skipped"."""
        data = self.read()
        now = int(time.time())
        if welcome is not None and not data.get("welcome"):
            data["welcome"] = welcome
            data["welcome_at"] = now
        if tour is not None:
            data["tour"] = tour
            data["tour_at"] = now
        try:
            write_private(self.path, json.dumps(data, indent=2) + "\n")
        except OSError as exc:
            log.warning("cannot write %s (%s); the welcome may show again", self.path, exc)


@dataclass(frozen=True)
class TourStep:
    key: str
    title: str  # marked for translation, translated when shown
    body: str
    message: str | None  # what the tour says to the agents ({cluster}, {job} filled in)
    tool: str | None  # the tool that must end "done" for the step to count
    page: str | None  # the page shown once the step is done


STEPS: tuple[TourStep, ...] = (
    TourStep(
        "plan",
        QT_TRANSLATE_NOOP("Tour", "Plan"),
        QT_TRANSLATE_NOOP(
            "Tour",
            "The tour asks the planner for a LoRA fine-tune of a 7B model on 8 GPUs with a "
            "budget of 2,000 CNY. It compares GPU models, cluster sizes, fabrics and the "
            "simulated cloud's regions, and shows the best options with their cost and time. "
            "Step 4 runs that fine-tune, shortened to 100 steps.",
        ),
        "LoRA fine-tune a 7B model on 8 GPUs, budget 2000 CNY",
        "plan",
        None,
    ),
    TourStep(
        "rent",
        QT_TRANSLATE_NOOP("Tour", "Approve and rent"),
        QT_TRANSLATE_NOOP(
            "Tour",
            "The tour asks for option 1. The provisioner shows the exact quote (price per "
            "hour, estimated total, budget) and rents nothing until you approve it.",
        ),
        "rent option 1",
        "create_cluster",
        "clusters",
    ),
    TourStep(
        "tune",
        QT_TRANSLATE_NOOP("Tour", "Tune"),
        QT_TRANSLATE_NOOP(
            "Tour",
            "The tuner measures the GPUs' links with nccl-tests and keeps or changes the "
            "NCCL settings. Running commands on the nodes needs your approval too.",
        ),
        "tune {cluster}",
        "tune",
        None,
    ),
    TourStep(
        "launch",
        QT_TRANSLATE_NOOP("Tour", "Launch"),
        QT_TRANSLATE_NOOP(
            "Tour",
            "The operator launches the lora7b-1node sample (resources/examples/"
            "lora7b-1node.yaml) once you approve: the 7B LoRA fine-tune on one node, 100 "
            "steps. On the simulated "
            "cloud it needs no download and no token (HF_TOKEN); on real GPUs it downloads "
            "the model, about 15 GB.",
        ),
        "launch lora7b-1node on {cluster}",
        "launch_job",
        "monitor",
    ),
    TourStep(
        "watch",
        QT_TRANSLATE_NOOP("Tour", "Watch"),
        QT_TRANSLATE_NOOP(
            "Tour",
            "The Monitor page draws every GPU live while the job trains; the Jobs page has "
            "its progress and logs. The tour goes on when the job has finished.",
        ),
        None,
        None,
        "monitor",
    ),
    TourStep(
        "release",
        QT_TRANSLATE_NOOP("Tour", "Release"),
        QT_TRANSLATE_NOOP(
            "Tour",
            "Releasing the cluster stops its billing. It destroys machines, so the "
            "provisioner asks first.",
        ),
        "release {cluster}",
        "release_cluster",
        None,
    ),
    TourStep(
        "history",
        QT_TRANSLATE_NOOP("Tour", "History"),
        QT_TRANSLATE_NOOP(
            "Tour",
            "Everything the tour did is in the local history: the cluster, the job, its "
            "charts and what it cost, readable offline. That was the tour. Next: add your own "
            "SSH host (Settings, Hosts) or a model key (Settings, Model); `xyclaw doctor` "
            "tells what is set up.",
        ),
        None,
        None,
        "history",
    ),
)


#: the Next button's words on the tour's steps (the Tour says them; lupdate reads them there)
NEXT_WORDS = ("Next", "Try again", "Finish")


class TourPanel(QFrame):
    """The tour's panel above the pages: step, what it does, what to click, Next, Skip."""

    next_clicked = Signal()
    skip_clicked = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("tourPanel")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(14, 8, 14, 8)
        text = QVBoxLayout()
        self.heading = plain_label()
        self.heading.setObjectName("tourHeading")
        self.body = plain_label()
        self.body.setWordWrap(True)
        self.body.setProperty("role", "body")
        self.status = plain_label()
        self.status.setObjectName("tourStatus")
        self.status.setWordWrap(True)
        text.addWidget(self.heading)
        text.addWidget(self.body)
        text.addWidget(self.status)
        layout.addLayout(text, 1)
        self.next_button = QPushButton()
        self.next_button.setObjectName("tourNext")
        self.next_button.setProperty("role", "primary")
        self.skip_button = QPushButton()
        self.skip_button.setObjectName("tourSkip")
        # a hidden Next keeps its room: the words keep their width, so their wrapping
        keep = self.next_button.sizePolicy()
        keep.setRetainSizeWhenHidden(True)
        self.next_button.setSizePolicy(keep)
        layout.addWidget(self.next_button, 0, Qt.AlignmentFlag.AlignVCenter)
        layout.addWidget(self.skip_button, 0, Qt.AlignmentFlag.AlignVCenter)
        self.next_button.clicked.connect(self.next_clicked)
        self.skip_button.clicked.connect(self.skip_clicked)

    def show_step(self, index: int, step: TourStep, status: str, next_text: str | None) -> None:
        self.heading.setText(
            self.tr("Tour, step {n} of {total}: {title}").format(
                n=index + 1, total=len(STEPS), title=_t(step.title)
            )
        )
        self.body.setText(_t(step.body))
        self.status.setText(status)
        self.next_button.setVisible(next_text is not None)
        # as wide as its widest word on any step, so the words beside it keep their width
        widest = 0
        for word in (*(QCoreApplication.translate("Tour", w) for w in NEXT_WORDS), next_text or ""):
            self.next_button.setText(word)
            widest = max(widest, self.next_button.sizeHint().width())
        self.next_button.setMinimumWidth(widest)
        self.next_button.setText(next_text or "")
        self.skip_button.setText(self.tr("Skip tour"))
        self._hold_height()

    def _hold_height(self) -> None:
        """The same height on every step (the page below no longer jumps, issue 28 item 8):
        the body keeps room for the longest step's words at this width, the status for two
        lines (more only for a status that needs them)."""
        width = self.body.width()
        if width <= 0:
            return
        metrics = self.body.fontMetrics()
        flags = int(Qt.TextFlag.TextWordWrap)
        tallest = max(
            metrics.boundingRect(0, 0, width, 100_000, flags, _t(s.body)).height() for s in STEPS
        )
        self.body.setMinimumHeight(tallest)
        two_lines = 2 * self.status.fontMetrics().lineSpacing()
        self.status.setMinimumHeight(max(two_lines, self.status.heightForWidth(width)))

    def resizeEvent(self, event: QResizeEvent) -> None:
        """At a new width the words wrap anew: their room is measured again."""
        super().resizeEvent(event)
        if event.size().width() != event.oldSize().width():
            self._hold_height()


class WelcomeBox(QFrame):
    """The welcome's part under the example requests: what works with no account, the tour."""

    def __init__(self, tour: Tour, first_run: bool) -> None:
        super().__init__()
        self.setObjectName("welcome")
        self.tour = tour
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 6, 0, 0)
        self.intro = QLabel(
            self.tr(
                "Nothing to set up first. With no account and no model key, XyClaw rents from "
                "its built-in simulated GPU cloud and answers with its built-in rules agent: "
                "every step is real, nothing is billed. Add your own SSH hosts, a provider or "
                "an OpenAI-compatible model in Settings when you are ready."
            )
        )
        self.intro.setObjectName("welcomeIntro")
        self.intro.setWordWrap(True)
        self.intro.setProperty("role", "body")
        layout.addWidget(self.intro)
        row = QHBoxLayout()
        self.tour_button = QPushButton(self.tr("Take the tour"))
        self.tour_button.setObjectName("takeTour")
        self.tour_button.setProperty("role", "primary" if first_run else "chip")
        self.tour_button.setToolTip(
            self.tr(
                "Plan, rent, tune, launch, watch, release and look back, on the simulated "
                "cloud; you click Approve at each step that spends, runs or releases."
            )
        )
        self.skip_button = QPushButton(self.tr("Skip"))
        self.skip_button.setObjectName("skipWelcome")
        row.addWidget(self.tour_button)
        row.addWidget(self.skip_button)
        row.addStretch(1)
        layout.addLayout(row)
        self.tour_button.clicked.connect(tour.start)
        self.skip_button.clicked.connect(tour.skip_welcome)
        self.set_first_run(first_run)

    def set_first_run(self, first_run: bool) -> None:
        self.intro.setVisible(first_run)
        self.skip_button.setVisible(first_run)
        self.tour_button.setProperty("role", "primary" if first_run else "chip")
        self.tour_button.style().unpolish(self.tour_button)
        self.tour_button.style().polish(self.tour_button)


class Tour(QObject):
    """See the module's docstring. States: idle, running, approve, done, failed, watching."""

    ended = Signal(str)  # "finished" or "skipped"
    state_changed = Signal(str)

    def __init__(self, controller: WindowController) -> None:
        super().__init__(controller.window)
        self.controller = controller
        self.chat: Any = controller.page_widgets["chat"]
        self.context = controller.context
        self.worker = controller.worker
        self.first_run = FirstRun(controller.engine.paths.state_dir)
        self.welcomes: list[WelcomeBox] = []
        self.active = False
        self.index = 0
        self.state = "idle"
        self.conversation_id: int | None = None
        self.cluster: str | None = None
        self.job: str | None = None
        self._calls: list[Any] = []
        self._awaiting_open = False  # the tour's conversation is being opened in the chat
        self.pending: Any | None = None  # the approval the tour waits for the user to answer
        self._welcome_seen = self.first_run.seen
        self._app_runtime: Any | None = None  # the chat's agents while the tour has its own
        self._own_runtime: Any | None = None
        self.panel = TourPanel()
        self.dock = QDockWidget(controller.window)
        self.dock.setObjectName("tourDock")
        self.dock.setTitleBarWidget(QWidget())
        self.dock.setFeatures(QDockWidget.DockWidgetFeature.NoDockWidgetFeatures)
        self.dock.setWidget(self.panel)
        controller.window.addDockWidget(Qt.DockWidgetArea.TopDockWidgetArea, self.dock)
        self.dock.hide()
        self.panel.next_clicked.connect(self.next)
        self.panel.skip_clicked.connect(self.skip)
        self._poll = QTimer(self)
        self._poll.setInterval(JOB_POLL_MS)
        self._poll.timeout.connect(self._poll_job)
        self.chat.turn_finished.connect(self._turn_finished)
        self.chat.conversation_opened.connect(self._opened)
        self.chat.welcome = self.welcome

    # -- the welcome ----------------------------------------------------------------------------
    def welcome(self) -> QWidget:
        """Built by the chat page under its example requests when a chat is empty."""
        box = WelcomeBox(self, not self._welcome_seen)
        self.welcomes.append(box)
        box.destroyed.connect(lambda _obj=None, b=box: self._forget(b))
        return box

    def _forget(self, box: WelcomeBox) -> None:
        if box in self.welcomes:
            self.welcomes.remove(box)

    def _seen(self, how: str) -> None:
        if not self._welcome_seen:
            self._welcome_seen = True
            self.first_run.mark(welcome=how)
        for box in list(self.welcomes):
            try:
                box.set_first_run(False)
            except RuntimeError:  # deleted with its transcript
                self._forget(box)

    def skip_welcome(self) -> None:
        self._seen("skipped")

    # -- running the tour -----------------------------------------------------------------------
    def start(self) -> None:
        if self.active:
            return
        runtime = self.chat.runtime
        if runtime is None or self.chat.busy:
            return
        self._seen("tour")
        self.first_run.mark(tour="started")
        self.active = True
        self.index = 0
        self.cluster = self.job = None
        self.conversation_id = None
        self.dock.show()
        self._set("running", self.tr("Starting the tour…"), None)
        if getattr(getattr(runtime, "brain", None), "kind", "rules") == "rules":
            self._with_runtime(runtime)
            return
        engine = self.controller.engine

        def build() -> Any:
            from xyclaw.agent.rules_brain import RulesBrain
            from xyclaw.agent.runtime import AgentRuntime

            # The history database the app's agents were handed: one writer per process.
            return AgentRuntime(
                engine,
                store=runtime.store,
                paths=engine.paths,
                config=engine.config,
                brain=RulesBrain(),
            )

        self.worker.submit(
            build, on_done=self._own, on_error=self._failed_to_start, lane="agent", name="tour"
        )

    def _own(self, runtime: Any) -> None:
        if not self.active:
            runtime.close()
            return
        self._own_runtime = runtime
        self._app_runtime = self.chat.runtime
        self.chat.runtime = runtime
        self._with_runtime(runtime)

    def _failed_to_start(self, error: ErrorInfo) -> None:
        self._set("failed", error.text(), None)

    def _with_runtime(self, runtime: Any) -> None:
        self.worker.submit(
            lambda: runtime.new_conversation(TOUR_TITLE),
            on_done=self._created,
            on_error=self._failed_to_start,
            name="tour conversation",
        )

    def _created(self, cid: int) -> None:
        self.conversation_id = cid
        self._awaiting_open = True
        self.controller.show_page("chat")
        self.chat.current = None
        self.chat.open_conversation(cid)
        self.chat.reload_conversations()

    def _opened(self, cid: int) -> None:
        if self.active and self._awaiting_open and cid == self.conversation_id:
            self._awaiting_open = False
            self._run_step()

    def _run_step(self) -> None:
        step = STEPS[self.index]
        self._calls = []
        if step.page is not None and step.message is None:
            self.controller.show_page(step.page)
        if step.key == "watch":
            self._set("watching", self.tr("Job {job} is starting…").format(job=self.job), None)
            self._poll.start()
            self._poll_job()
            return
        if step.message is None:  # the last step: look back
            self._set("done", self.tr("The tour is over."), self.tr("Finish"))
            return
        self.controller.show_page("chat")
        if self.chat.current != self.conversation_id and self.conversation_id is not None:
            self.chat.select_conversation(self.conversation_id)
        if self.chat.busy:
            self._set(
                "failed",
                self.tr("The agents are busy; try again in a moment."),
                self.tr("Try again"),
            )
            return
        self._set("running", self.tr("The agents are working…"), None)
        self.chat.send(step.message.format(cluster=self.cluster, job=self.job))

    def _turn_finished(self, result: Any) -> None:
        self._seen("used")  # the user talked to the agents: the welcome did its job
        if not self.active or self.state not in ("running", "approve"):
            return
        if isinstance(result, ErrorInfo):
            self._set("failed", str(result), self.tr("Try again"))
            return
        if not isinstance(result, TurnResult) or result.conversation_id != self.conversation_id:
            return
        self._calls += list(result.tool_calls)
        if result.pending_approval is not None:
            self.pending = result.pending_approval
            if self.chat.current != self.conversation_id:
                self.controller.show_page("chat")
                self.chat.select_conversation(self.conversation_id)
            else:
                self.chat.show_approval(self.pending)  # the card the panel points at
            self._set(
                "approve",
                self.tr(
                    "Waiting for you: read the card in the chat and click Approve (or Reject)."
                ),
                None,
            )
            return
        step = STEPS[self.index]
        latest: dict[str, Any] = {}
        for call in self._calls:
            latest[call.call_id] = call
        calls = [c for c in latest.values() if c.tool == step.tool]
        if not calls:
            self._set(
                "failed",
                self.tr("The agents did not do this step (see the chat)."),
                self.tr("Try again"),
            )
            return
        call = calls[-1]
        status = str(getattr(call.status, "value", call.status))
        if status != "done":
            why = call.error or status
            self._set(
                "failed",
                self.tr("Not done ({why}); nothing else happens until you go on.").format(why=why),
                self.tr("Try again"),
            )
            return
        payload = call.result if isinstance(call.result, dict) else {}
        if step.key == "rent":
            self.cluster = str((payload.get("cluster") or {}).get("name") or "") or None
            if self.cluster is None:
                self._set("failed", self.tr("No cluster came up."), self.tr("Try again"))
                return
        if step.key == "launch":
            job = payload.get("job") or {}
            self.job = str(job.get("name") or job.get("id") or "") or None
        if step.page is not None:
            self.controller.show_page(step.page)
        self._set("done", call.summary or self.tr("Done."), self.tr("Next"))

    def _poll_job(self) -> None:
        if not self.active or self.state != "watching" or self.job is None:
            self._poll.stop()
            return
        engine, job = self.controller.engine, self.job
        self.worker.submit(
            lambda: engine.job(job),
            on_done=self._job_seen,
            on_error=lambda error: log.warning("tour: reading job %s: %s", job, error),
            name="tour job",
        )

    def _job_seen(self, record: Any) -> None:
        if not self.active or self.state != "watching":
            return
        state = str(getattr(record.state, "value", record.state))
        if state in ENDED_STATES:
            self._poll.stop()
            self._set(
                "done",
                self.tr("Job {job} ended: {state}.").format(job=self.job, state=state),
                self.tr("Next"),
            )
        else:
            self.panel.status.setText(
                self.tr("Job {job} is {state}…").format(job=self.job, state=state)
            )

    def next(self) -> None:
        if not self.active:
            return
        if self.state == "failed":
            self._run_step()
        elif self.state == "done":
            if self.index + 1 >= len(STEPS):
                self._end("finished")
                return
            self.index += 1
            self._run_step()

    def skip(self) -> None:
        if self.active:
            self._end("skipped")

    def _end(self, how: str) -> None:
        self.active = False
        self._poll.stop()
        self.first_run.mark(tour=how)
        self.dock.hide()
        self.state = "idle"
        if self._app_runtime is not None:
            self.chat.runtime = self._app_runtime
            self._app_runtime = None
        own, self._own_runtime = self._own_runtime, None
        if own is not None:
            self.worker.submit(own.close, lane="agent", name="close the tour's agents")
        self.state_changed.emit(self.state)
        self.ended.emit(how)

    def _set(self, state: str, status: str, next_text: str | None) -> None:
        self.state = state
        self.panel.show_step(self.index, STEPS[self.index], status, next_text)
        self.state_changed.emit(state)


def install_tour(controller: WindowController) -> Tour | None:
    """The tour for a window whose chat page is the real one (tests may build others)."""
    chat = controller.page_widgets.get("chat")
    if chat is None or not hasattr(chat, "welcome"):
        return None
    return Tour(controller)
