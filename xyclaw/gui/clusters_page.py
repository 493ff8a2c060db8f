"""The Clusters page: every cluster with its state, uptime, rate, cost so far, budget and idle
countdown; its nodes (state, SSH endpoint and ``ssh`` alias, GPUs, bootstrap results);
Release, Tune and a manual "Rent…" through a quote and the approval card.

Nothing here polls the database. The list is read once (on the worker); after that
a ``ClusterChanged`` or ``NodeChanged`` event from the bridge makes the page read
that one cluster again (on the worker, coalesced), and the clock columns (uptime,
cost so far, budget, idle countdown) are computed from the records it holds, with
the same per-second billing rule the meter uses. Per-node bootstrap results come
from the rent operation's progress events. Host keys: the page is where unknown
hosts are asked about (:mod:`xyclaw.gui.host_keys`) and changed keys are shown.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import dataclasses
import hashlib
import logging
import re
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QEvent, Qt, QTimer, Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QDialog,
    QHeaderView,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QSizePolicy,
    QSpinBox,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from xyclaw.catalog.fabrics import BUILTIN_FABRICS
from xyclaw.engine.bootstrap import STEPS
from xyclaw.engine.lifecycle import UpRequest
from xyclaw.engine.operations import step_said
from xyclaw.engine.values import (
    Catalog,
    ClusterRecord,
    NodeRecord,
    billed_spans,
    cost_so_far,
    parse_budget,
)
from xyclaw.errors import UsageError, XyclawError
from xyclaw.events import OperationProgress
from xyclaw.gui import history_words as words
from xyclaw.gui import i18n
from xyclaw.gui.bridge import ErrorInfo
from xyclaw.gui.formatting import (
    countdown,
    duration,
    fabric_text,
    fabric_tip,
    local_time,
    money,
    reword,
    show_worded,
    worded,
)
from xyclaw.gui.forms import child, load_ui
from xyclaw.gui.host_keys import HostKeyPrompter, changed_keys, default_prompter, show_changed_key
from xyclaw.gui.rent_flow import ApprovalDialog, RentFlow, destroy_request
from xyclaw.gui.state_dots import dot_icon
from xyclaw.gui.widgets import DATA_ROLE, html_text, plain_tip, set_plain
from xyclaw.records.states import ClusterState, NodeState
from xyclaw.wording import Said, display, said

if TYPE_CHECKING:
    from xyclaw.gui.context import GuiContext

log = logging.getLogger(__name__)

COLUMNS = (
    "Name",
    "Provider",
    "Region",
    "GPUs",
    "Fabric",
    "State",
    "Uptime",
    "Per hour",
    "Cost so far",
    "Budget",
    "Idle release",
)
NODE_COLUMNS = ("Node", "State", "SSH endpoint", "ssh alias", "GPUs", "Bootstrap")
#: The columns' headers as shown, in the GUI's language (the keys above stay English).
HEADERS = {
    "Name": QT_TRANSLATE_NOOP("ClustersPage", "Name"),
    "Provider": QT_TRANSLATE_NOOP("ClustersPage", "Provider"),
    "Region": QT_TRANSLATE_NOOP("ClustersPage", "Region"),
    "GPUs": QT_TRANSLATE_NOOP("ClustersPage", "GPUs"),
    "Fabric": QT_TRANSLATE_NOOP("ClustersPage", "Fabric"),
    "State": QT_TRANSLATE_NOOP("ClustersPage", "State"),
    "Uptime": QT_TRANSLATE_NOOP("ClustersPage", "Uptime"),
    "Per hour": QT_TRANSLATE_NOOP("ClustersPage", "Per hour"),
    "Cost so far": QT_TRANSLATE_NOOP("ClustersPage", "Cost so far"),
    "Budget": QT_TRANSLATE_NOOP("ClustersPage", "Budget"),
    "Idle release": QT_TRANSLATE_NOOP("ClustersPage", "Idle release"),
    "Node": QT_TRANSLATE_NOOP("ClustersPage", "Node"),
    "SSH endpoint": QT_TRANSLATE_NOOP("ClustersPage", "SSH endpoint"),
    "ssh alias": QT_TRANSLATE_NOOP("ClustersPage", "ssh alias"),
    "Bootstrap": QT_TRANSLATE_NOOP("ClustersPage", "Bootstrap"),
}
BOOT_STEPS = ("ssh", *STEPS)
#: Coalescing window for re-reading clusters after their events.
FETCH_DELAY_MS = 80
_IDLE_LEFT = re.compile(r"released in (\d+(?:\.\d+)?) ?(s|sec|min|h)\b")
_UNIT_SECONDS = {"s": 1.0, "sec": 1.0, "min": 60.0, "h": 3600.0}
_ACTIVE_JOB_STATES = ("queued", "setting-up", "running", "recovering", "lost-contact")
#: How often the page has the Engine read XyClaw's Slurm jobs (the queue itself is asked at
#: most every 30 s; the samples and logs the nodes wrote are read each time).
SLURM_FOLLOW_MS = 10_000
#: A Slurm allocation's queue state as the State column says it (issue 33).
QUEUE_WORDS = {
    "pending": QT_TRANSLATE_NOOP("ClustersPage", "pending"),
    "running": QT_TRANSLATE_NOOP("ClustersPage", "running"),
    "ending": QT_TRANSLATE_NOOP("ClustersPage", "ending"),
    "ended": QT_TRANSLATE_NOOP("ClustersPage", "ended"),
}
_MAX_SUBJECTS = 4000


def _t(text: str) -> str:
    return QCoreApplication.translate("ClustersPage", text)


# -- what a row shows (pure, so it is tested without widgets) -----------------------------------
def billing_start(record: ClusterRecord) -> float | None:
    """When the first node started billing (its provider ran it)."""
    starts = [n.running_at for n in record.nodes if n.running_at is not None]
    return min(starts) if starts else None


def rate_micros(record: ClusterRecord) -> int:
    """What the cluster bills per hour now: running nodes only, nothing once released."""
    if not record.live:
        return 0
    running = sum(1 for n in record.nodes if n.state == NodeState.RUNNING)
    return running * record.gpus_per_node * record.price_per_gpu_hour_micros


def uptime_seconds(record: ClusterRecord, now: float) -> float | None:
    start = billing_start(record)
    if start is None:
        return None
    end = now
    if not record.live:
        ends = [n.terminated_at for n in record.nodes if n.terminated_at is not None]
        end = record.released_at or (max(ends) if ends else now)
    return max(0.0, end - start)


def cost_micros(record: ClusterRecord, now: float) -> int:
    """The meter's rule, to the second: each node from running until terminated."""
    return cost_so_far(billed_spans(record), now)


def idle_text(
    record: ClusterRecord, now: float, deadline: float | None, idle_minutes: float
) -> tuple[str, str]:
    """The idle-release column: (text, state) where state is off, none, soon or due."""
    if idle_minutes <= 0:
        return QCoreApplication.translate("ClustersPage", "off"), "off"
    if record.state != ClusterState.READY:
        return "–", "none"
    if deadline is None:
        return "–", "none"
    left = deadline - now
    if left <= 0:
        return QCoreApplication.translate("ClustersPage", "releasing (idle)"), "due"
    return QCoreApplication.translate("ClustersPage", "in {time}").format(
        time=countdown(left)
    ), "soon"


def queue_text(allocation: Any) -> str:
    """A Slurm allocation's State cell: its queue state, Slurm's own reason for a pending
    job, and the Slurm job id (``pending (Resources) · Slurm job 42``)."""
    state = _t(str(QUEUE_WORDS.get(allocation.queue_state, allocation.queue_state)))
    if allocation.reason and allocation.queue_state in ("pending", "ended"):
        state += f" ({allocation.reason})"
    return QCoreApplication.translate("ClustersPage", "{state} · Slurm job {job}").format(
        state=state, job=allocation.job_id
    )


def key_fingerprint(host_key: str | None) -> str | None:
    """``ssh-ed25519 AAAA...`` -> ``ssh-ed25519 SHA256:...`` (as ssh-keygen -l prints it)."""
    if not host_key:
        return None
    parts = host_key.split()
    if len(parts) < 2:
        return None
    try:
        blob = base64.b64decode(parts[1], validate=True)
    except (ValueError, binascii.Error):
        return None
    digest = base64.b64encode(hashlib.sha256(blob).digest()).decode("ascii").rstrip("=")
    return f"{parts[0]} SHA256:{digest}"


def ssh_alias(record: ClusterRecord, node: NodeRecord) -> str:
    return f"{record.name}-{node.rank}"


def ssh_config_block(record: ClusterRecord, node: NodeRecord, identity: str) -> str:
    """A ``~/.ssh/config`` Host block that makes ``ssh <cluster>-<rank>`` reach the node."""
    lines = [f"Host {ssh_alias(record, node)}", f"    HostName {node.ssh_host}"]
    if node.ssh_port and node.ssh_port != 22:
        lines.append(f"    Port {node.ssh_port}")
    if node.ssh_user:
        lines.append(f"    User {node.ssh_user}")
    lines.append(f"    IdentityFile {identity}")
    return "\n".join(lines)


class BootstrapLog:
    """Every node step of every operation, heard on the publisher's thread.

    The bridge coalesces progress to the latest update per node (a fast bootstrap
    reports five steps within milliseconds), which is right for progress bars but
    loses the results; this keeps each step's result, under a lock, and the page
    redraws when the bridge's (coalesced) progress signal arrives.
    """

    def __init__(self, subscribe: Any) -> None:
        self._lock = threading.Lock()
        self._nodes: OrderedDict[str, NodeSteps] = OrderedDict()
        self._subscription = subscribe(OperationProgress, self._heard)

    def _heard(self, event: OperationProgress) -> None:
        if not event.subject:
            return
        said = event.said
        seen: Said | str
        if said is not None and said.key == "op.on_node" and "what" in said.figures:
            what = said.figures["what"]  # the step's own words, without the node's name
            seen = what if isinstance(what, Said) else str(what)
        elif said is not None:  # a whole message (a node's failure names the node itself)
            seen = said
        else:  # an older XyClaw's text: "node: what"
            message = str(event.message)
            seen = message.split(": ", 1)[1] if ": " in message else message
        with self._lock:
            steps = self._nodes.get(event.subject)
            if steps is None:
                steps = self._nodes[event.subject] = NodeSteps()
                while len(self._nodes) > _MAX_SUBJECTS:
                    self._nodes.popitem(last=False)
            if event.step == "failed":  # what made the node fail, in the core's words
                steps.failed = seen
            elif event.step:
                steps.steps[str(event.step)] = seen
            steps.last = seen

    def get(self, subject: str) -> NodeSteps | None:
        with self._lock:
            found = self._nodes.get(subject)
            if found is None:
                return None
            return NodeSteps(dict(found.steps), found.last, found.failed)

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self._subscription.unsubscribe()


@dataclass
class NodeSteps:
    """Bootstrap results of one node, as the rent operation reported them (worded where
    shown: :func:`worded`)."""

    steps: dict[str, Said | str] = dataclasses.field(default_factory=dict)
    last: Said | str = ""
    failed: Said | str | None = None  # why the node failed, as the rent reported it

    def summary(self) -> str:
        done = [s for s in BOOT_STEPS if s in self.steps]
        if len(done) == len(BOOT_STEPS):
            return QCoreApplication.translate("ClustersPage", "✓ all {n} steps ok").format(
                n=len(done)
            )
        sep = worded(Said("common.list_sep"))
        return ("✓ " + sep.join(worded(step_said(s)) for s in done)) if done else ""


def _node_error(node: NodeRecord, steps: NodeSteps | None) -> str:
    """A node's error in the GUI's language: as stored with its wording, or where this session
    heard the rent say it, else as stored (the provider's own words, an older run)."""
    if node.error_said is not None:
        return worded(node.error_said)
    if steps is not None and steps.failed is not None and str(steps.failed) == node.error:
        return worded(steps.failed)
    return node.error or ""


def _item(text: str, *, right: bool = False, tip: str = "") -> QTableWidgetItem:
    item = QTableWidgetItem(display.line(text))  # names from providers and models
    if right:
        item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
    if tip:
        item.setToolTip(plain_tip(tip))
    return item


def _data(item: QTableWidgetItem) -> QTableWidgetItem:
    """A cell that shows data (a name, an address), the same in every language."""
    item.setData(DATA_ROLE, True)
    return item


def _repolish(widget: QWidget) -> None:
    widget.style().unpolish(widget)
    widget.style().polish(widget)


class RentDialog:
    """The manual rent form (ui/rent_dialog.ui): provider, GPU, count, region, fabric, budget."""

    def __init__(self, parent: QWidget, providers: list[str]) -> None:
        dialog = load_ui("rent_dialog.ui", parent)
        assert isinstance(dialog, QDialog)
        self.dialog = dialog
        dialog.setObjectName("rentDialog")
        self.provider = child(dialog, QComboBox, "rentProvider")
        for name in providers:
            self.provider.addItem(name, name)
        catalog = Catalog.builtin()
        self.gpu = child(dialog, QComboBox, "rentGpu")
        for gpu in catalog.gpus:
            self.gpu.addItem(f"{gpu.name} ({gpu.memory_gib:g} GB)", gpu.name)
        self.count = child(dialog, QSpinBox, "rentCount")
        self.region = child(dialog, QComboBox, "rentRegion")
        self.region.addItem(QCoreApplication.translate("RentDialog", "Any region"), None)
        for region in sorted({o.region for o in catalog.offers}):
            self.region.addItem(region, region)
        self.fabric = child(dialog, QComboBox, "rentFabric")
        self.fabric.addItem(QCoreApplication.translate("RentDialog", "Any fabric"), None)
        for name in BUILTIN_FABRICS:
            self.fabric.addItem(name, name)
        self.budget = child(dialog, QLineEdit, "rentBudget")
        self.name = child(dialog, QLineEdit, "rentName")
        self.budget_error = child(dialog, QLabel, "rentBudgetError")
        self.error = child(dialog, QLabel, "rentError")
        self.quote_button = child(dialog, QPushButton, "rentQuote")
        self.cancel_button = child(dialog, QPushButton, "rentCancel")
        self.cancel_button.clicked.connect(dialog.reject)

    def set_values(self, **values: Any) -> None:
        for key, value in values.items():
            widget = getattr(self, key)
            if isinstance(widget, QComboBox):
                index = widget.findData(value)
                if index < 0:
                    raise ValueError(f"{key}: no choice {value!r}")
                widget.setCurrentIndex(index)
            elif isinstance(widget, QSpinBox):
                widget.setValue(int(value))
            else:
                widget.setText(str(value))

    def request(self) -> UpRequest | None:
        """The form as an UpRequest, or None with the error shown at its field."""
        self.budget_error.hide()
        self.error.hide()
        budget: int | None = None
        text = self.budget.text().strip()
        if text:
            try:
                budget, _currency = parse_budget(text)
            except ValueError:
                self.budget_error.setText(
                    QCoreApplication.translate(
                        "RentDialog",
                        "{value} is not an amount above zero; write a number such as 500 or "
                        "500 CNY",
                    ).format(value=repr(text))
                )
                self.budget_error.show()
                return None
        provider = self.provider.currentData()
        if not provider:
            self.show_error(
                QCoreApplication.translate("RentDialog", "no provider is set up to rent from")
            )
            return None
        return UpRequest(
            provider=str(provider),
            gpu=str(self.gpu.currentData()),
            gpu_count=int(self.count.value()),
            region=self.region.currentData(),
            fabric=self.fabric.currentData(),
            budget_micros=budget,
            name=self.name.text().strip() or None,
        )

    def show_error(self, text: str) -> None:
        set_plain(self.error, text, multiline=True)
        self.error.show()
        self.quote_button.setEnabled(True)


class ClustersPage(QWidget):
    """See the module's docstring."""

    records_shown = Signal()  # the table shows what the page knows (tests wait for it)
    slurm_followed = Signal()  # the Slurm allocations were read (tests wait for it)
    message = Signal(str)

    def __init__(
        self,
        context: GuiContext,
        parent: QWidget | None = None,
        *,
        prompter: HostKeyPrompter | None = None,
        tick_ms: int = 1000,
        slurm_follow_ms: int = SLURM_FOLLOW_MS,
    ) -> None:
        super().__init__(parent)
        self.context = context
        self.engine = context.engine
        self.worker = context.worker
        form = load_ui("clusters_page.ui", self)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(form)
        self.form = form
        self.summary = child(form, QLabel, "clustersSummary")
        self.show_released = child(form, QCheckBox, "showReleased")
        self.rent_button = child(form, QPushButton, "rentButton")
        self.error = child(form, QLabel, "clustersError")
        self.table: QTableWidget = child(form, QTableWidget, "clusterTable")
        self.heading = child(form, QLabel, "clusterHeading")
        self.info = child(form, QLabel, "clusterInfo")
        self.info.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)
        self.heading.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Maximum)
        self.tune_button = child(form, QPushButton, "tuneButton")
        self.release_button = child(form, QPushButton, "releaseButton")
        self.nodes: QTableWidget = child(form, QTableWidget, "nodeTable")
        self.node_details: QTextBrowser = child(form, QTextBrowser, "nodeDetails")
        self.copy_button = child(form, QPushButton, "copySsh")
        splitter = child(form, QSplitter, "clustersSplitter")
        splitter.setStretchFactor(0, 2)
        splitter.setStretchFactor(1, 3)
        splitter.setSizes([180, 420])
        nodes_split = child(form, QSplitter, "nodesSplitter")
        nodes_split.setStretchFactor(0, 3)
        nodes_split.setStretchFactor(1, 2)
        self._setup_table(self.table, COLUMNS, stretch=0)
        self._setup_table(self.nodes, NODE_COLUMNS, stretch=len(NODE_COLUMNS) - 1)

        billing = self.engine.config.billing
        self.idle_minutes = float(billing.idle_release_minutes)
        self.default_budget = round(billing.default_budget * 1_000_000) or None
        self.warn_fraction = float(billing.warn_fraction)
        self.identity = str(self.engine.paths.data_dir / "ssh" / "id_ecdsa")

        self.records: dict[int, ClusterRecord] = {}
        self.order: list[int] = []
        self.bars: dict[int, QProgressBar] = {}
        self.steps = BootstrapLog(self.engine.subscribe)
        steps = self.steps
        self.destroyed.connect(lambda *_: steps.close())
        self.idle_deadline: dict[int, float] = {}
        self.selected_id: int | None = None
        self.selected_node: int | None = None
        self.loaded = False
        self._dirty: set[int] = set()
        self._generation: dict[int, int] = {}
        self._refused: set[str] = set()
        self._seen_live: set[int] = set()
        self.refusals: list[Any] = []  # changed-key dialogs shown
        self.release_dialog: ApprovalDialog | None = None
        self.rent_dialog: RentDialog | None = None

        self.rent_flow = RentFlow(context, self, asked_by="Clusters page")
        self.rent_flow.quoted.connect(self._quoted)
        self.rent_flow.rented.connect(
            lambda h: self._say(
                self.tr("Renting: “{title}”; each node's steps appear below.").format(title=h.title)
            )
        )
        self.rent_flow.rejected.connect(
            lambda _q: self._say(self.tr("Rejected: nothing was rented."))
        )
        self.rent_flow.failed.connect(self._rent_failed)

        self.prompter = prompter if prompter is not None else default_prompter()
        self.prompter.attach(self)

        bridge = context.bridge
        bridge.cluster_changed.connect(self._cluster_event)
        bridge.node_changed.connect(self._node_event)
        bridge.operation_progress.connect(self._progress)
        bridge.notice.connect(self._notice)
        bridge.job_changed.connect(self._job_event)

        self._fetch_timer = QTimer(self)
        self._fetch_timer.setSingleShot(True)
        self._fetch_timer.setInterval(FETCH_DELAY_MS)
        self._fetch_timer.timeout.connect(self._fetch)
        self._tick = QTimer(self)
        self._tick.setInterval(tick_ms)
        self._tick.timeout.connect(self.refresh_clock)
        self._tick.start()
        # Slurm allocations (issue 33): their queue state, and their jobs followed
        self.allocations: dict[int, Any] = {}
        self._following = False
        self._slurm_timer = QTimer(self)
        self._slurm_timer.setInterval(slurm_follow_ms)
        self._slurm_timer.timeout.connect(self.follow_slurm)
        self._slurm_timer.start()

        self.table.itemSelectionChanged.connect(self._cluster_selected)
        self.nodes.itemSelectionChanged.connect(self._node_selected)
        self.show_released.toggled.connect(lambda _on: self.reload())
        self.rent_button.clicked.connect(self.open_rent_dialog)
        self.release_button.clicked.connect(self.ask_release)
        self.tune_button.clicked.connect(self.tune)
        self.copy_button.clicked.connect(self.copy_ssh_config)
        self.retranslate()
        self.reload()
        self.follow_slurm()

    # -- words ------------------------------------------------------------------------------
    def retranslate(self) -> None:
        """Headers, rows and details in the GUI's language (the form words itself)."""
        self.table.setHorizontalHeaderLabels([_t(HEADERS[c]) for c in COLUMNS])
        self.nodes.setHorizontalHeaderLabels([_t(HEADERS[c]) for c in NODE_COLUMNS])
        for cid in self.order:
            self._update_row(cid)
        self._update_summary()
        self._details_changed()
        reword(self.error)
        if self.selected is None:
            self.node_details.setHtml(self._muted(self.tr("Select a node for its SSH details.")))

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange:
            # after the form has worded itself again (it would put back its own texts)
            QTimer.singleShot(0, self, self._retranslate_if_alive)

    def _retranslate_if_alive(self) -> None:
        if i18n.alive(self, self.table, self.nodes, self.node_details):
            self.retranslate()

    # -- tables ----------------------------------------------------------------------------
    def _host_tip(self, record: ClusterRecord) -> str:
        """What the approved quote said about a marketplace host (issue 31); a community
        host, run by someone the provider does not vouch for, is said to be one."""
        if record.host_community:
            return self.tr(
                "A community host on {provider} ({host}): its owner is not {provider} and can"
                " see what runs there"
            ).format(provider=record.provider_id, host=record.host or "?")
        return record.host or ""

    @staticmethod
    def _setup_table(table: QTableWidget, columns: tuple[str, ...], stretch: int) -> None:
        table.setColumnCount(len(columns))
        table.verticalHeader().setVisible(False)
        table.verticalHeader().setDefaultSectionSize(28)
        table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        header = table.horizontalHeader()
        header.setHighlightSections(False)
        for col in range(len(columns)):
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(stretch, QHeaderView.ResizeMode.Stretch)

    @staticmethod
    def _muted(text: str) -> str:
        return f"<p style='color:#6b7280'>{text}</p>"

    # -- loading ---------------------------------------------------------------------------
    def reload(self) -> None:
        """Read the list once (on the worker); events keep it current afterwards."""
        include = self.show_released.isChecked()
        engine = self.engine
        self._reads = getattr(self, "_reads", 0) + 1
        reading = self._reads

        def loaded(records: list[ClusterRecord]) -> None:
            if reading == self._reads:  # an older read (the box switched since) is dropped
                self._loaded(records)

        self.worker.submit(
            lambda: engine.clusters(include_released=include),
            on_done=loaded,
            on_error=self.show_error,
            name="clusters",
        )

    def follow_slurm(self) -> None:
        """On the worker: the Engine mirrors XyClaw's jobs at each Slurm site (their samples,
        logs and ends go to the History; their changes come back as cluster events), then
        the allocations' queue states are read for the State column."""
        if self._following:
            return
        self._following = True
        engine = self.engine

        def follow() -> list[Any]:
            if not engine.slurm_sites():
                return []
            engine.slurm_follow()
            return list(engine.slurm_allocations())

        self.worker.submit(
            follow, on_done=self._followed, on_error=self._follow_failed, name="slurm follow"
        )

    def _followed(self, allocations: list[Any]) -> None:
        self._following = False
        self.allocations = {a.cluster_id: a for a in allocations}
        for cid in self.allocations:
            if cid in self.records:
                self._update_row(cid)
            else:
                self._mark(cid)
        self.slurm_followed.emit()

    def _follow_failed(self, error: ErrorInfo) -> None:
        self._following = False
        log.warning("could not follow the Slurm jobs: %s", error.message)

    def _loaded(self, records: list[ClusterRecord]) -> None:
        # Clusters that ended while this window watched them stay listed (released, with
        # billing stopped) until the list is read again with "Show released" off.
        keep = {cid: r for cid, r in self.records.items() if cid in self._seen_live}
        if not self.show_released.isChecked():
            keep = {cid: r for cid, r in keep.items() if r.live}  # released: not shown now
        self.records = {**keep, **{r.id: r for r in records}}
        self._seen_live.update(r.id for r in records if r.live)
        self.loaded = True
        self._rebuild()

    def _cluster_event(self, event: Any) -> None:
        record = self.records.get(int(event.cluster_id))
        if record is not None:
            try:
                state = ClusterState(event.state)
            except ValueError:
                state = record.state
            self.records[record.id] = dataclasses.replace(record, state=state)
            self._update_row(record.id)
        self._mark(int(event.cluster_id))

    def _node_event(self, event: Any) -> None:
        self._mark(int(event.cluster_id))

    def _mark(self, cluster_id: int) -> None:
        self._dirty.add(cluster_id)
        if not self._fetch_timer.isActive():
            self._fetch_timer.start()

    def _fetch(self) -> None:
        ids = sorted(self._dirty)
        self._dirty.clear()
        if not ids:
            return
        wanted = {}
        for cid in ids:
            self._generation[cid] = self._generation.get(cid, 0) + 1
            wanted[cid] = self._generation[cid]
        engine = self.engine

        def read() -> list[tuple[int, int, ClusterRecord | None]]:
            out = []
            for cid, generation in wanted.items():
                try:
                    out.append((cid, generation, engine.cluster(str(cid))))
                except UsageError:
                    out.append((cid, generation, None))
            return out

        self.worker.submit(read, on_done=self._fetched, on_error=self.show_error, name="cluster")

    def _fetched(self, found: list[tuple[int, int, ClusterRecord | None]]) -> None:
        rebuild = False
        for cid, generation, record in found:
            if self._generation.get(cid) != generation:
                continue  # a newer read is on its way
            if record is None:
                rebuild |= self.records.pop(cid, None) is not None
                continue
            rebuild |= cid not in self.records
            self.records[cid] = record
            if record.live:
                self._seen_live.add(cid)
            self._check_node_errors(record)
            if not rebuild:
                self._update_row(cid)
        if rebuild:
            self._rebuild()
        else:
            self._details_changed()
            self._update_summary()
            self.records_shown.emit()

    # -- drawing ---------------------------------------------------------------------------
    def _rebuild(self) -> None:
        table = self.table
        self.order = sorted(self.records, key=lambda cid: (-self.records[cid].created_at, cid))
        table.blockSignals(True)
        table.setRowCount(len(self.order))
        self.bars.clear()
        for row, cid in enumerate(self.order):
            holder = QWidget()
            box = QVBoxLayout(holder)
            box.setContentsMargins(4, 3, 4, 3)
            bar = QProgressBar()
            bar.setObjectName("budgetBar")
            bar.setRange(0, 1000)
            bar.setTextVisible(True)
            bar.setMinimumWidth(130)
            box.addWidget(bar)
            table.setCellWidget(row, COLUMNS.index("Budget"), holder)
            self.bars[cid] = bar
            self._update_row(cid, row)
        table.blockSignals(False)
        if self.selected_id in self.records:
            table.selectRow(self.order.index(self.selected_id))
        elif self.order:
            table.selectRow(0)
        else:
            self.selected_id = None
        self._details_changed()
        self._update_summary()
        self.records_shown.emit()

    def row_of(self, cluster_id: int) -> int | None:
        return self.order.index(cluster_id) if cluster_id in self.order else None

    def _update_row(
        self, cluster_id: int, row: int | None = None, now: float | None = None
    ) -> None:
        record = self.records.get(cluster_id)
        row = self.row_of(cluster_id) if row is None else row
        if record is None or row is None:
            return
        now = time.time() if now is None else now
        up = uptime_seconds(record, now)
        rate = rate_micros(record)
        cost = cost_micros(record, now)
        idle, idle_state = idle_text(
            record, now, self.idle_deadline.get(cluster_id), self.idle_minutes
        )
        tip = worded(record.error_said or record.error) if record.error else ""
        cells = [
            _item(
                record.name,
                tip=tip or f"id {record.id} · " + (record.external_id or self.tr("no provider id")),
            ),
            _item(
                self.tr("{provider} · community host").format(provider=record.provider_id)
                if record.host_community
                else record.provider_id,
                tip=self._host_tip(record),
            ),
            _item(record.region or "–"),
            _item(f"{record.gpu_count} × {record.gpu}", right=True),
            _item(fabric_text(record.fabric), tip=fabric_tip(record.fabric)),
            _item(self._state_text(record), tip=tip),
            _item(duration(up) if up is not None else "–", right=True),
            _item(
                f"{money(rate, record.currency)}/h"
                if rate
                else self.tr("stopped")
                if not record.live
                else "–",
                right=True,
            ),
            _item(money(cost, record.currency), right=True),
            None,
            _item(idle, right=True, tip=self._idle_tip()),
        ]
        for col, cell in enumerate(cells):
            if cell is None:
                continue
            existing = self.table.item(row, col)
            if existing is not None and existing.text() == cell.text():
                existing.setToolTip(cell.toolTip())
                continue
            self.table.setItem(row, col, cell)
        state_item = self.table.item(row, COLUMNS.index("State"))
        if state_item is not None:
            state_item.setData(Qt.ItemDataRole.UserRole, str(record.state))
            state_item.setIcon(dot_icon(str(record.state)))
        idle_item = self.table.item(row, COLUMNS.index("Idle release"))
        if idle_item is not None:
            idle_item.setData(Qt.ItemDataRole.UserRole, idle_state)
        self._update_bar(record, cost)

    def _state_text(self, record: ClusterRecord) -> str:
        allocation = self.allocations.get(record.id)
        if allocation is None:
            return words.state(record.state)
        return queue_text(allocation)

    def _idle_tip(self) -> str:
        if self.idle_minutes <= 0:
            return self.tr("Idle release is off (billing.idle_release_minutes = 0)")
        return self.tr(
            "Released after {minutes} min with every GPU idle and no job running; "
            "the countdown starts when XyClaw warns"
        ).format(minutes=f"{self.idle_minutes:g}")

    def _update_bar(self, record: ClusterRecord, cost: int) -> None:
        bar = self.bars.get(record.id)
        if bar is None:
            return
        budget = record.budget_micros or self.default_budget
        if not budget:
            bar.setValue(0)
            bar.setFormat(self.tr("no budget"))
            state = "none"
        else:
            share = cost / budget
            bar.setValue(min(1000, int(share * 1000)))
            bar.setFormat(
                self.tr("{share} of {budget}").format(
                    share=f"{share:.0%}", budget=money(budget, record.currency, 0)
                )
            )
            state = "over" if share >= 1 else "warn" if share >= self.warn_fraction else "ok"
        bar.setToolTip(
            plain_tip(
                self.tr("{cost} of {budget}").format(
                    cost=money(cost, record.currency),
                    budget=money(budget, record.currency) if budget else self.tr("no budget"),
                )
            )
        )
        if bar.property("state") != state:
            bar.setProperty("state", state)
            _repolish(bar)

    def refresh_clock(self) -> None:
        """Uptime, cost, budget and countdown move with the clock (no database read)."""
        if not self.isVisible() or not self.order:
            return
        now = time.time()
        for cid in self.order:
            record = self.records[cid]
            if record.live or cid in self.idle_deadline:
                self._update_row(cid, now=now)
        self._update_summary(now)

    def _update_summary(self, now: float | None = None) -> None:
        now = time.time() if now is None else now
        live = [r for r in self.records.values() if r.live]
        rates: dict[str, int] = {}
        for r in live:
            rates[r.currency] = rates.get(r.currency, 0) + rate_micros(r)
        parts = [self.tr("{n} live").format(n=len(live)) if live else self.tr("nothing live")]
        billing = [f"{money(v, c)}/h" for c, v in sorted(rates.items()) if v]
        parts.append(" + ".join(billing) if billing else self.tr("nothing billing"))
        gone = len(self.records) - len(live)
        if gone:
            parts.append(self.tr("{n} ended").format(n=gone))
        self.summary.setText(" · ".join(parts))

    # -- details ---------------------------------------------------------------------------
    def _cluster_selected(self) -> None:
        rows = {i.row() for i in self.table.selectedIndexes()}
        if not rows:
            return
        row = min(rows)
        if row < len(self.order):
            if self.order[row] != self.selected_id:
                self.selected_node = None
            self.selected_id = self.order[row]
            self._details_changed()

    def select_cluster(self, cluster_id: int) -> None:
        row = self.row_of(cluster_id)
        if row is not None:
            self.table.selectRow(row)

    @property
    def selected(self) -> ClusterRecord | None:
        return self.records.get(self.selected_id) if self.selected_id is not None else None

    def _details_changed(self) -> None:
        record = self.selected
        if record is None:
            self.heading.setText(self.tr("Select a cluster to see its nodes"))
            self.info.setText("")
            self.nodes.setRowCount(0)
            self.tune_button.setEnabled(False)
            self.release_button.setEnabled(False)
            self.copy_button.setEnabled(False)
            return
        set_plain(
            self.heading,
            f"{record.name} · {record.gpu_count} × {record.gpu} · {words.state(record.state)}",
        )
        facts = [
            f"{record.provider_id} · "
            + (record.region or self.tr("no region"))
            + " · "
            + (
                fabric_text(record.fabric)  # one machine: "single node", never "fabric none"
                if fabric_text(record.fabric) != str(record.fabric)
                else self.tr("fabric {fabric}").format(fabric=record.fabric)
            ),
            self.tr("{price} per GPU-hour").format(
                price=money(record.price_per_gpu_hour_micros, record.currency)
            ),
            self.tr("image {image}").format(image=record.image or "–"),
            self.tr("asked {time}").format(time=local_time(record.created_at, with_date=True)),
        ]
        if record.ready_at:
            facts.append(
                self.tr("ready {time} (after {duration})").format(
                    time=local_time(record.ready_at),
                    duration=duration(record.ready_at - record.created_at),
                )
            )
        if record.released_at:
            facts.append(self.tr("released {time}").format(time=local_time(record.released_at)))
        budget = record.budget_micros or self.default_budget
        facts.append(
            self.tr("budget {amount}").format(amount=money(budget, record.currency))
            if budget
            else self.tr("no budget")
        )
        text = " · ".join(facts)
        if record.host_community:  # issue 31: said first, on its own line
            text = self._host_tip(record) + "\n" + text
        if record.error:
            error = worded(record.error_said or record.error)
            text += "\n" + self.tr("Error: {error}").format(error=error)
        set_plain(self.info, text, multiline=True)
        # a Slurm allocation is the scheduler's: its job is cancelled (through its card), its
        # nodes are not XyClaw's to tune over SSH or to release
        slurm = record.id in self.allocations
        self.tune_button.setEnabled(record.state == ClusterState.READY and not slurm)
        self.release_button.setEnabled(
            record.live and record.state != ClusterState.RELEASING and not slurm
        )
        self._fill_nodes(record)

    def _fill_nodes(self, record: ClusterRecord) -> None:
        table = self.nodes
        table.blockSignals(True)
        table.setRowCount(len(record.nodes))
        for row, node in enumerate(record.nodes):
            steps = self.steps.get(node.name)
            boot = steps.summary() if steps else ""
            if node.error:
                boot = (boot + "  " if boot else "") + self.tr("failed: {error}").format(
                    error=_node_error(node, steps)
                )
            elif (
                steps
                and steps.last
                and record.state
                in (
                    ClusterState.PROVISIONING,
                    ClusterState.BOOTSTRAPPING,
                )
            ):
                boot = boot or worded(steps.last)
            endpoint = (
                f"{node.ssh_user or 'root'}@{node.ssh_host}:{node.ssh_port or 22}"
                if node.ssh_host
                else "–"
            )
            cells = [
                _data(_item(node.name)),
                _item(words.state(node.state), tip=_node_error(node, steps)),
                _data(_item(endpoint)),
                _data(_item(ssh_alias(record, node) if node.ssh_host else "–")),
                _item(f"{record.gpus_per_node} × {record.gpu}", right=True),
                _item(boot or (self.tr("waiting") if record.live else "–"), tip=boot),
            ]
            for col, cell in enumerate(cells):
                table.setItem(row, col, cell)
        table.blockSignals(False)
        if record.nodes:
            if self.selected_node is None or self.selected_node >= len(record.nodes):
                self.selected_node = 0
            table.selectRow(self.selected_node)
            self._show_node(record, record.nodes[self.selected_node])
        else:
            self.node_details.setHtml(
                self._muted(self.tr("No nodes yet: the provider is creating them."))
            )
            self.copy_button.setEnabled(False)

    def node_cell(self, row: int, column: str) -> str:
        item = self.nodes.item(row, NODE_COLUMNS.index(column))
        return "" if item is None else item.text()

    def cell(self, cluster_id: int, column: str) -> str:
        row = self.row_of(cluster_id)
        if row is None:
            return ""
        if column == "Budget":
            return self.bars[cluster_id].text()
        item = self.table.item(row, COLUMNS.index(column))
        return "" if item is None else item.text()

    def _node_selected(self) -> None:
        record = self.selected
        rows = {i.row() for i in self.nodes.selectedIndexes()}
        if record is None or not rows:
            return
        row = min(rows)
        if row < len(record.nodes):
            self.selected_node = row
            self._show_node(record, record.nodes[row])

    def _show_node(self, record: ClusterRecord, node: NodeRecord) -> None:
        e = html_text  # a node's names, its host and its error: data, escaped
        rows = [(self.tr("State"), words.state(node.state))]
        if node.running_at:
            rows.append((self.tr("Running since"), local_time(node.running_at, with_date=True)))
        if node.terminated_at:
            rows.append((self.tr("Terminated"), local_time(node.terminated_at, with_date=True)))
        rows.append((self.tr("GPUs"), f"{record.gpus_per_node} × {record.gpu}"))
        parts = ["<table cellspacing='2'>"]
        parts += [f"<tr><td><b>{e(k)}</b></td><td>{e(v)}</td></tr>" for k, v in rows]
        fingerprint = key_fingerprint(node.host_key)
        parts.append("</table>")
        if node.ssh_host:
            alias = ssh_alias(record, node)
            identity = self._identity(record)
            command = (
                f"ssh -i {identity} -p {node.ssh_port or 22} "
                f"{node.ssh_user or 'root'}@{node.ssh_host}"
            )
            parts.append(f"<p><b>SSH</b><br><code>{e(command)}</code></p>")
            said = self.tr(
                "<b>ssh alias</b> {alias}: with this block in ~/.ssh/config (Copy ssh config), "
                "{command} reaches the node:"
            ).format(alias=f"<code>{e(alias)}</code>", command=f"<code>ssh {e(alias)}</code>")
            parts.append(
                f"<p>{said}</p>"
                f"<pre>{e(ssh_config_block(record, node, identity), multiline=True)}</pre>"
            )
            self.copy_button.setEnabled(True)
        else:
            parts.append(
                "<p>" + self.tr("No SSH endpoint yet.") + "</p>"
                if node.terminated_at is None and record.live
                else "<p>" + self.tr("No SSH endpoint: the node is gone.") + "</p>"
            )
            self.copy_button.setEnabled(False)
        if fingerprint:
            host_key = self.tr("Host key")
            parts.append(f"<p><b>{host_key}</b><br><code>{e(fingerprint)}</code></p>")
        steps = self.steps.get(node.name)
        bootstrap, error = self.tr("Bootstrap"), self.tr("Error")
        if steps and steps.steps:
            items = "".join(
                f"<li><b>{e(worded(step_said(step)))}</b>: {e(worded(steps.steps[step]))}</li>"
                for step in BOOT_STEPS
                if step in steps.steps
            )
            parts.append(f"<p><b>{bootstrap}</b></p><ul>{items}</ul>")
        elif record.live:
            parts.append(
                f"<p><b>{bootstrap}</b>: " + self.tr("no results seen in this session.") + "</p>"
            )
        if node.error:
            failed = _node_error(node, steps)
            parts.append(f"<p style='color:#b91c1c'><b>{error}</b>: {e(failed)}</p>")
        self.node_details.setHtml("".join(parts))

    def _identity(self, record: ClusterRecord) -> str:
        """The key that opens this cluster's nodes (its own on a marketplace host)."""
        try:
            return self.engine.ssh_identity(record.name)
        except XyclawError:
            return self.identity

    def copy_ssh_config(self) -> str:
        record = self.selected
        if record is None or self.selected_node is None:
            return ""
        node = record.nodes[self.selected_node]
        text = ssh_config_block(record, node, self._identity(record)) + "\n"
        QGuiApplication.clipboard().setText(text)
        self._say(
            self.tr("Copied the Host block for {alias}: paste it into ~/.ssh/config").format(
                alias=ssh_alias(record, node)
            )
        )
        return text

    # -- events that are not cluster rows ----------------------------------------------------
    def _progress(self, event: Any) -> None:
        subject = getattr(event, "subject", None)
        if subject:
            record = self.selected
            if record is not None and any(n.name == subject for n in record.nodes):
                self._fill_nodes(record)
        if event.state == "failed" and changed_keys(str(event.message)):
            self._show_refusal(str(event.message), None)

    def _notice(self, event: Any) -> None:
        cluster_id = getattr(event, "cluster_id", None)
        if event.kind != "idle" or cluster_id is None:
            return
        message = str(event.message)
        found = _IDLE_LEFT.search(message)
        if found:
            left = float(found[1]) * _UNIT_SECONDS[found[2]]
            if found[2] in ("min", "h"):
                # A figure rounded to minutes: the guard warns min(5 min, a third of the
                # limit) before it releases, which keeps the seconds.
                left = min(300.0, self.idle_minutes * 60 / 3) or left
            self.idle_deadline[int(cluster_id)] = float(event.ts) + left
        elif "releasing" in message:
            self.idle_deadline[int(cluster_id)] = float(event.ts)
        self._update_row(int(cluster_id))

    def _job_event(self, event: Any) -> None:
        cluster_id = getattr(event, "cluster_id", None)
        if (
            cluster_id is not None
            and str(event.state) in _ACTIVE_JOB_STATES
            and self.idle_deadline.pop(int(cluster_id), None) is not None
        ):
            self._update_row(int(cluster_id))

    # -- release ---------------------------------------------------------------------------
    def ask_release(self) -> None:
        """Say what stops billing and what is lost, then release on approval."""
        record = self.selected
        if record is None or not record.live:
            return
        engine = self.engine

        def running_jobs() -> list[str]:
            try:
                rows = engine.history("jobs", limit=200)
            except Exception:  # the confirmation still comes, without the job list
                log.exception("reading the jobs for a release confirmation failed")
                return []
            return [
                str(r["name"] or r["id"])
                for r in rows
                if r.get("cluster_id") == record.id and str(r.get("state")) in _ACTIVE_JOB_STATES
            ]

        self.release_button.setEnabled(False)
        self.worker.submit(
            running_jobs,
            on_done=lambda jobs: self._confirm_release(record, jobs),
            on_error=self.show_error,
            name="jobs",
        )

    def release_details(self, record: ClusterRecord, jobs: list[str]) -> dict[str, Any]:
        now = time.time()
        rate = rate_micros(record)
        cost = cost_micros(record, now)
        lost = [self.tr("job {job} is stopped").format(job=job) for job in jobs]
        lost.append(
            self.tr("files only on the nodes' own disks (copy results and checkpoints off first)")
        )
        aliases = ", ".join(ssh_alias(record, n) for n in record.nodes[:4])
        lost.append(
            self.tr("the nodes' SSH endpoints and their ssh aliases ({aliases})").format(
                aliases=aliases + (", …" if len(record.nodes) > 4 else "")
            )
        )
        billing = (
            self.tr("{rate}/h for {n} GPUs").format(
                rate=money(rate, record.currency), n=record.gpu_count
            )
            if rate
            else self.tr("nothing bills now")
        )
        return {
            "cluster": f"{record.name}: {record.gpu_count} × {record.gpu}, "
            f"{words.state(record.state)}, {record.provider_id} · {record.region or '–'}",
            "stops_billing": self.tr(
                "{billing} stops once {provider} confirms; {cost} charged so far"
            ).format(
                billing=billing, provider=record.provider_id, cost=money(cost, record.currency)
            ),
            "lost": lost,
        }

    def _confirm_release(self, record: ClusterRecord, jobs: list[str]) -> None:
        self.release_button.setEnabled(record.live)
        request = destroy_request(
            self.tr("Release {name}").format(name=record.name),
            self.release_details(record, jobs),
            self.tr("you, from the Clusters page"),
        )
        dialog = ApprovalDialog(
            request,
            self,
            window_title=self.tr("Release cluster"),
            note=self.tr("Releasing cannot be undone: the machines go back to the provider."),
            approve_text=self.tr("Release"),
        )
        self.release_dialog = dialog
        dialog.decided.connect(lambda kind: self._release_decided(record, kind))
        dialog.open()

    def _release_decided(self, record: ClusterRecord, kind: str) -> None:
        if kind != "approve":
            self._say(self.tr("Kept {name}: nothing was released.").format(name=record.name))
            return
        engine = self.engine
        self.worker.submit(
            lambda: engine.down(str(record.id)),
            on_done=lambda _h: self._say(
                self.tr("Releasing {name}: billing stops once {provider} confirms.").format(
                    name=record.name, provider=record.provider_id
                )
            ),
            on_error=self.show_error,
            name="release",
        )

    # -- tune ------------------------------------------------------------------------------
    def tune(self) -> None:
        record = self.selected
        if record is None or record.state != ClusterState.READY:
            return
        engine = self.engine

        def started(handle: Any) -> None:
            self._say(
                self.tr("Tuning {name}: the operations panel shows each step.").format(
                    name=record.name
                )
            )
            handle.future.add_done_callback(lambda f: self.worker.post(self._tuned, f))

        self.worker.submit(
            lambda: engine.tune(str(record.id)),
            on_done=started,
            on_error=self.show_error,
            name="tune",
        )

    def _tuned(self, future: Any) -> None:
        error = future.exception()
        if error is not None:
            self.show_error(ErrorInfo.from_exception(error))
            return
        result = future.result()
        decision = result.decision_said or result.decision
        self._say(worded(said("op.tune.decided", cluster=result.cluster_name, decision=decision)))

    # -- manual rent -----------------------------------------------------------------------
    def open_rent_dialog(self) -> None:
        engine = self.engine
        self.worker.submit(
            engine.providers,
            on_done=self._show_rent_dialog,
            on_error=self.show_error,
            name="providers",
        )

    def _show_rent_dialog(self, providers: list[str]) -> None:
        dialog = RentDialog(self, list(providers))
        self.rent_dialog = dialog
        dialog.quote_button.clicked.connect(self._rent_quote)
        dialog.dialog.adjustSize()
        dialog.dialog.open()

    def _rent_quote(self) -> None:
        dialog = self.rent_dialog
        if dialog is None:
            return
        request = dialog.request()
        if request is None:
            return
        engine = self.engine
        if self.rent_flow.start(lambda: engine.quote_request(request)):
            dialog.quote_button.setEnabled(False)
            self._say(
                self.tr("Quoting {n} × {gpu} from {provider}…").format(
                    n=request.gpu_count, gpu=request.gpu, provider=request.provider
                )
            )

    def _quoted(self, _quote: Any) -> None:
        if self.rent_dialog is not None and self.rent_dialog.dialog.isVisible():
            self.rent_dialog.dialog.accept()

    def _rent_failed(self, error: ErrorInfo) -> None:
        dialog = self.rent_dialog
        if dialog is not None and dialog.dialog.isVisible():
            dialog.show_error(error.text(" — "))
            return
        self.show_error(error)

    # -- messages --------------------------------------------------------------------------
    def _check_node_errors(self, record: ClusterRecord) -> None:
        for node in record.nodes:
            if node.error and changed_keys(node.error):
                self._show_refusal(node.error, None)

    def _show_refusal(self, message: str, hint: str | None) -> None:
        key = "|".join(f"{c.host}{c.presented}" for c in changed_keys(message))
        if key in self._refused:
            return
        self._refused.add(key)
        self.refusals.append(show_changed_key(self, message, hint))

    def _say(self, text: str) -> None:
        self.error.hide()
        self.message.emit(text)
        window = self.window()
        bar = getattr(window, "statusBar", None)
        if callable(bar):
            bar().showMessage(text, 15000)

    def show_error(self, error: ErrorInfo) -> None:
        """An error of the page's own calls; a changed host key also gets its refusal."""
        if changed_keys(error.message):
            self._show_refusal(error.message, error.hint)
        show_worded(self.error, partial(error.text, " — "))
        self.error.show()
        self.message.emit(error.worded_message())


def create_clusters_page(context: GuiContext) -> QWidget:
    return ClustersPage(context)
