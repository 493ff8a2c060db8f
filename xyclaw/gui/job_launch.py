"""Launching a job from the GUI: a spec file (or a past job's spec) -> where it runs ->
approval when it rents -> ``Engine.launch`` / ``Engine.serve`` on the worker.

A spec file is read on the worker with the same reader as ``xyclaw launch``; a broken one
is shown in a dialog with the file's text and the error's line marked, and nothing
runs. A spec that rents its own cluster goes through the quote and the same approval
card as renting from the Clusters page (:class:`~xyclaw.gui.rent_flow.RentFlow`): the
approved quote is handed to the engine with the spec, which rents exactly that and
refuses a quote that no longer matches. A spec launched on a cluster you already have
spends nothing new and needs no approval (as ``xyclaw launch --cluster`` does not).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QT_TRANSLATE_NOOP, QEvent, QObject, Signal
from PySide6.QtGui import QColor, QTextCharFormat, QTextCursor, QTextFormat
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QPlainTextEdit,
    QTextEdit,
    QVBoxLayout,
    QWidget,
)

from xyclaw.gui import i18n
from xyclaw.gui.bridge import ErrorInfo
from xyclaw.gui.formatting import message_language, money
from xyclaw.gui.rent_flow import RentFlow
from xyclaw.gui.secret_values import SecretValuesDialog
from xyclaw.gui.widgets import plain_label
from xyclaw.wording import display

if TYPE_CHECKING:
    from xyclaw.engine.values import ClusterRecord, JobSpec, SpecWarning
    from xyclaw.gui.context import GuiContext
    from xyclaw.wording import Said

log = logging.getLogger(__name__)

#: The target value that means "rent a cluster for this job".
RENT = "__rent__"


@dataclass(frozen=True)
class SpecProblem:
    """A spec file that cannot be launched: the message, where, and the file's text;
    ``said``/``hint_said`` word the message in the window's language where the reader gave
    them."""

    message: str
    hint: str | None
    file: str | None
    line: int | None
    text: str | None
    said: Said | None = None
    hint_said: Said | None = None

    def worded(self) -> str:
        """The message and its hint in the window's language now."""
        return ErrorInfo(self.message, self.hint, self.said, self.hint_said).text()


@dataclass(frozen=True)
class LaunchPlan:
    """A spec ready to launch: where it may run and what the reader warned about."""

    spec: JobSpec
    source: str  # the file, or "job 12" for a past job's spec
    warnings: tuple[SpecWarning | str, ...]
    clusters: tuple[ClusterRecord, ...]  # ready clusters it may run on
    preferred: str | None  # the cluster to preselect (the spec's, or the past job's)
    busy: frozenset[str] = frozenset()  # clusters a job runs on now
    # what XyClaw adds to the job's processes (Engine.launch_additions; issue 34, b34)
    additions: tuple[Any, ...] = ()
    # the secrets it sends apart from the spec's plain variables (Engine.launch_sends; issue 31)
    sends: tuple[Any, ...] = ()


def wanted_shape(spec: JobSpec) -> tuple[int, int] | None:
    """The nodes and GPUs per node a spec asks for (None: it names no GPU model)."""
    res = spec.resources
    if res.gpu is None:
        return None
    return res.nodes, res.gpus_per_node or (8 if res.nodes > 1 else 1)


def fits(spec: JobSpec, record: ClusterRecord) -> bool:
    """Whether a cluster has the GPU model, the nodes and the GPUs per node a spec asks for
    (a spec that names no GPU fits anywhere)."""
    shape = wanted_shape(spec)
    if shape is None:
        return True
    nodes, per_node = shape
    have_nodes = record.gpu_count // max(1, record.gpus_per_node)
    return (
        str(record.gpu).upper() == str(spec.resources.gpu).upper()
        and have_nodes >= nodes
        and record.gpus_per_node >= per_node
    )


def read_spec_file(path: Path, known_gpus: set[str]) -> LaunchPlan | SpecProblem:
    """Load a spec file (worker thread); a SpecError becomes a SpecProblem with its line."""
    from xyclaw.engine.specs import SpecError, load_spec

    try:
        loaded = load_spec(path, known_gpus=known_gpus)
    except SpecError as exc:
        try:
            text: str | None = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            text = None
        return SpecProblem(exc.message, exc.hint, exc.file, exc.line, text, exc.said, exc.hint_said)
    return LaunchPlan(
        spec=loaded.spec,
        source=str(path),
        warnings=tuple(loaded.warnings),
        clusters=(),
        preferred=loaded.spec.resources.cluster,
    )


#: A spec's ``kind`` as the launch dialog words it (the spec's own word is English).
KIND_WORDS = {
    "train": QT_TRANSLATE_NOOP("LaunchDialog", "training"),
    "service": QT_TRANSLATE_NOOP("LaunchDialog", "service"),
}


def spec_summary(spec: JobSpec) -> str:
    res = spec.resources
    kind = KIND_WORDS.get(spec.kind.value)
    worded = i18n.translate("LaunchDialog", str(kind)) if kind else spec.kind.value
    parts = [f"{spec.name} ({worded})"]
    if res.gpu is not None:
        per = res.gpus_per_node or (8 if res.nodes > 1 else 1)
        parts.append(f"{res.nodes} × {per} {res.gpu}")
    # the command as one line: shell continuations joined, runs of blanks squeezed
    run = " ".join(spec.run.replace("\\\n", " ").split())
    if run:
        parts.append(run if len(run) <= 90 else run[:89] + "…")
    return " · ".join(parts)


class SpecErrorDialog(QDialog):
    """The spec's error above its text, the line at fault marked and scrolled to."""

    def __init__(self, problem: SpecProblem, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("specErrorDialog")
        self.problem = problem
        self.message = plain_label()
        self.message.setObjectName("specErrorMessage")
        self.message.setProperty("role", "error")
        self.message.setWordWrap(True)
        self.where = plain_label()
        self.where.setProperty("role", "muted")
        self._worded()
        self.text = QPlainTextEdit()
        self.text.setObjectName("specErrorText")
        self.text.setReadOnly(True)
        self.text.setProperty("role", "code")
        self.text.setProperty("data", True)
        self.text.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        lines = (problem.text or "").splitlines()
        width = len(str(max(1, len(lines))))
        self.text.setPlainText(
            "\n".join(f"{i:>{width}}  {display.line(t)}" for i, t in enumerate(lines, 1))
        )
        self.marked_line: int | None = None
        if problem.line is not None and 1 <= problem.line <= len(lines):
            self._mark(problem.line)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        buttons.accepted.connect(self.accept)
        layout = QVBoxLayout(self)
        layout.addWidget(self.message)
        layout.addWidget(self.where)
        layout.addWidget(self.text, 1)
        layout.addWidget(buttons)
        self.resize(720, 460)

    def _worded(self) -> None:
        problem = self.problem
        self.setWindowTitle(self.tr("The job spec has an error"))
        self.message.setText(problem.worded())
        if problem.line is not None:
            self.where.setText(self.tr("Line {line} is marked below.").format(line=problem.line))
        else:
            self.where.setText(self.tr("The error is about the file as a whole."))

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange and i18n.alive(self.message, self.where):
            self._worded()

    def _mark(self, line: int) -> None:
        block = self.text.document().findBlockByNumber(line - 1)
        cursor = QTextCursor(block)
        selection = QTextEdit.ExtraSelection()
        fmt = QTextCharFormat()
        fmt.setBackground(QColor(220, 38, 38, 70))
        fmt.setProperty(QTextFormat.Property.FullWidthSelection, True)
        selection.format = fmt  # type: ignore[attr-defined]
        selection.cursor = cursor  # type: ignore[attr-defined]
        self.text.setExtraSelections([selection])
        self.text.setTextCursor(cursor)
        self.text.centerCursor()
        self.marked_line = line


class LaunchDialog(QDialog):
    """Where a spec runs: a ready cluster, or (when the spec asks for GPUs) one rented for
    it after a quote and an approval. Its Check button asks (``check_asked``) for the dry
    run of the spec file on the chosen target, shown in a read-only view below."""

    check_asked = Signal(object)  # the cluster's name, or None to rent

    def __init__(self, plan: LaunchPlan, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("launchDialog")
        self.plan = plan
        spec = plan.spec
        self.setWindowTitle(self.tr("Launch {name}").format(name=spec.name))
        self.summary = plain_label(spec_summary(spec))
        self.summary.setObjectName("launchSummary")
        self.summary.setProperty("data", True)
        self.summary.setWordWrap(True)
        self.source = plain_label(plan.source)
        self.source.setProperty("role", "muted")
        self.source.setProperty("data", True)
        self.source.setWordWrap(True)
        self.target = QComboBox()
        self.target.setObjectName("launchTarget")
        for record in plan.clusters:
            self.target.addItem(
                self.tr("{name}: {count} × {gpu} ({provider}), no new cost").format(
                    name=record.name,
                    count=record.gpu_count,
                    gpu=record.gpu,
                    provider=record.provider_id,
                ),
                record.name,
            )
        if spec.rents_cluster:
            res = spec.resources
            per = res.gpus_per_node or (8 if res.nodes > 1 else 1)
            self.target.addItem(
                self.tr("Rent {count} × {gpu} for this job (quote and approval first)").format(
                    count=res.nodes * per, gpu=res.gpu
                ),
                RENT,
            )
        index = self.target.findData(plan.preferred) if plan.preferred else -1
        if index < 0 and plan.preferred is None:
            # an idle cluster that fits costs nothing new: before renting one
            idle = [r for r in plan.clusters if fits(spec, r) and r.name not in plan.busy]
            if idle:
                index = self.target.findData(idle[0].name)
            elif spec.rents_cluster:
                index = self.target.findData(RENT)
        self.target.setCurrentIndex(max(0, index))
        self.misfit = plain_label()
        self.misfit.setObjectName("launchMisfit")
        self.misfit.setProperty("role", "warning")
        self.misfit.setWordWrap(True)
        self.none = QLabel(
            self.tr(
                "No cluster is ready and the spec asks for no GPUs to rent: rent one on the "
                "Clusters page, or add resources.gpu to the spec."
            )
        )
        self.none.setProperty("role", "error")
        self.none.setWordWrap(True)
        self.none.setVisible(self.target.count() == 0)
        self.warnings = plain_label()
        self.warnings.setObjectName("launchWarnings")
        self.warnings.setProperty("role", "warning")
        self.warnings.setWordWrap(True)
        self.warnings.setVisible(bool(plan.warnings))
        self.additions = plain_label()  # the step timer and Flight Recorder, named or off
        self.additions.setObjectName("launchAdditions")
        self.additions.setProperty("role", "muted")
        self.additions.setWordWrap(True)
        self.additions.setVisible(bool(plan.additions))
        form = QFormLayout()
        self.spec_label = QLabel(self.tr("Job"))
        self.from_label = QLabel(self.tr("From"))
        self.where_label = QLabel(self.tr("Run on"))
        form.addRow(self.spec_label, self.summary)
        form.addRow(self.from_label, self.source)
        form.addRow(self.where_label, self.target)
        self.adds_label = QLabel(self.tr("XyClaw adds"))
        form.addRow(self.adds_label, self.additions)
        self.adds_label.setVisible(bool(plan.additions))
        self.sends = plain_label()  # the secrets it sends, apart from plain variables
        self.sends.setObjectName("launchSends")
        self.sends.setWordWrap(True)
        self.sends.setVisible(bool(plan.sends))
        self.sends_label = QLabel(self.tr("Sends"))
        form.addRow(self.sends_label, self.sends)
        self.sends_label.setVisible(bool(plan.sends))
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.launch_button = self.buttons.addButton(
            self.tr("Launch"), QDialogButtonBox.ButtonRole.AcceptRole
        )
        self.launch_button.setObjectName("launchButton")
        self.launch_button.setProperty("role", "primary")
        self.launch_button.setEnabled(self.target.count() > 0)
        # issue 29: the dry run, one button and one result view (nothing is rented or run)
        self.check_button = self.buttons.addButton(
            self.tr("Check"), QDialogButtonBox.ButtonRole.ActionRole
        )
        self.check_button.setObjectName("launchCheckButton")
        self.check_button.setEnabled(Path(plan.source).is_file())
        self.check_button.clicked.connect(self._check)
        self.check_result = QPlainTextEdit()
        self.check_result.setObjectName("launchCheckResult")
        self.check_result.setReadOnly(True)
        self.check_result.setProperty("role", "code")
        self.check_result.setProperty("data", True)
        self.check_result.setVisible(False)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        self.target.currentIndexChanged.connect(lambda _i: self._worded())
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.misfit)
        layout.addWidget(self.warnings)
        layout.addWidget(self.none)
        layout.addWidget(self.check_result)
        layout.addWidget(self.buttons)
        self._worded()
        self.setMinimumWidth(560)

    def _worded(self) -> None:
        rent = self.target.currentData() == RENT
        self.launch_button.setText(self.tr("Get a quote…") if rent else self.tr("Launch"))
        self._warn_misfit()
        language = message_language()
        self.additions.setText(
            "\n".join(
                a if isinstance(a, str) else a.in_language(language) for a in self.plan.additions
            )
        )
        self.sends.setText(
            "\n".join(a if isinstance(a, str) else a.in_language(language) for a in self.plan.sends)
        )
        self.warnings.setText(
            "\n".join(
                w if isinstance(w, str) else w.in_language(language) for w in self.plan.warnings
            )
        )

    def _warn_misfit(self) -> None:
        """A chosen cluster without the GPUs or nodes the spec asks for: said before launch."""
        chosen = next((r for r in self.plan.clusters if r.name == self.target.currentData()), None)
        shape = wanted_shape(self.plan.spec)
        if chosen is None or shape is None or fits(self.plan.spec, chosen):
            self.misfit.setText("")
            self.misfit.hide()
            return
        nodes, per_node = shape
        self.misfit.setText(
            self.tr(
                "{cluster} does not fit this job: it asks for {nodes} × {per_node} {gpu}, "
                "{cluster} has {have_nodes} × {have_per_node} {have_gpu}. It may not start, "
                "or run out of GPU memory; choose another cluster or rent one."
            ).format(
                cluster=chosen.name,
                nodes=nodes,
                per_node=per_node,
                gpu=self.plan.spec.resources.gpu,
                have_nodes=chosen.gpu_count // max(1, chosen.gpus_per_node),
                have_per_node=chosen.gpus_per_node,
                have_gpu=chosen.gpu,
            )
        )
        self.misfit.show()

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange and i18n.alive(
            self.launch_button, self.warnings
        ):
            self._worded()

    @property
    def choice(self) -> str | None:
        value = self.target.currentData()
        return None if value is None else str(value)

    def _check(self) -> None:
        choice = self.choice
        self.check_button.setEnabled(False)
        self.check_result.setVisible(True)
        self.check_result.setPlainText(self.tr("Checking…"))
        self.check_asked.emit(None if choice in (None, RENT) else choice)

    def show_check(self, result: dict[str, Any] | str) -> None:
        """The dry run's answer (``Engine.launch_dry_run``), or why it could not be made."""
        self.check_button.setEnabled(True)
        self.check_result.setVisible(True)
        if isinstance(result, str):
            self.check_result.setPlainText(display.text(result))
            return
        self.check_result.setPlainText(display.text("\n".join(self._check_lines(result))))

    def _check_lines(self, result: dict[str, Any]) -> list[str]:
        def where(note: dict[str, Any]) -> str:
            at = self.tr("line {line}").format(line=note["line"]) if note["line"] else ""
            return " ".join(p for p in (at, note["field"] or "") if p)

        if not result["accepted"]:
            refusal = result["refusal"]
            lines = [self.tr("Refused: {where}: {message}").format(
                where=where(refusal), message=refusal["message"])]  # fmt: skip
            if refusal["hint"]:
                lines.append(f"  → {refusal['hint']}")
            return lines
        place = result["cluster"] or self.tr("a new cluster (rented first)")
        lines = [
            self.tr("Runs on {place}: {nodes} node(s), {gpus}").format(
                place=place,
                nodes=result["nodes"],
                gpus=f"{result['gpus_per_node']} × {result['gpu']}"
                if result["gpu"]
                else self.tr("no GPU"),
            )
        ]
        for up in result["uploads"]:
            lines.append(
                self.tr("Uploads {source} → {target}: {files} file(s), {size} bytes").format(
                    source=up["source"], target=up["target"], files=up["files"], size=up["bytes"]
                )
            )
        lines.append(self.tr("Environment of node 0:"))
        lines += [f"  {k}={v}" for k, v in sorted(result["environment"].items())]
        for label, key in ((self.tr("Setup, as each node runs it:"), "setup"),
                           (self.tr("Run, as each node runs it:"), "run")):  # fmt: skip
            if result[key]:
                lines.append(label)
                lines += [f"  {ln}" for ln in result[key].splitlines()]
        lines += list(result.get("additions", []))  # issue 34: what XyClaw adds
        lines += list(result.get("sends", []))  # issue 31: the secrets, named apart
        for note in result["warnings"]:
            lines.append(self.tr("Warning: {where}: {message}").format(
                where=where(note), message=note["message"]))  # fmt: skip
        if result["quote_text"]:
            lines.append(self.tr("Quote to approve: {quote}").format(quote=result["quote_text"]))
        elif result["quote_problem"]:
            lines.append(self.tr("No quote: {why}").format(why=result["quote_problem"]))
        lines.append(self.tr("Nothing was rented, uploaded or run."))
        return lines


class LaunchFlow(QObject):
    """See the module's docstring. Signals: ``launched(OperationHandle)`` once the engine
    took the job (its progress goes to the operations panel), ``problem(SpecProblem)`` for a
    broken spec, ``failed(ErrorInfo)``, ``cancelled()`` when the user said no."""

    launched = Signal(object)
    problem = Signal(object)
    failed = Signal(object)
    cancelled = Signal()

    def __init__(self, context: GuiContext, parent: QWidget, *, asked_by: str) -> None:
        super().__init__(parent)
        self.context = context
        self.parent_widget = parent
        self.rent = RentFlow(context, parent, asked_by=asked_by)
        self.rent.rented.connect(self._handle)
        self.rent.rejected.connect(lambda _q: self.cancelled.emit())
        self.rent.failed.connect(self.failed.emit)
        self.rent.quoted.connect(self._say_total)
        self.dialog: LaunchDialog | None = None
        self.error_dialog: SpecErrorDialog | None = None
        self.secrets_dialog: SecretValuesDialog | None = None

    # -- from a file or a past job --------------------------------------------------------
    def from_file(self, path: Path) -> None:
        from xyclaw.engine.values import Catalog

        engine = self.context.engine

        def read() -> LaunchPlan | SpecProblem:
            found = read_spec_file(path, {g.name for g in Catalog.builtin().gpus})
            return found if isinstance(found, SpecProblem) else self._with_clusters(engine, found)

        self.context.worker.submit(read, on_done=self._read, on_error=self.failed.emit, name="spec")

    def again(self, job_id: int) -> None:
        """The same spec as a past job, preferring the cluster it ran on if still ready."""
        engine = self.context.engine

        def read() -> LaunchPlan:
            from xyclaw.engine.values import JobSpec

            job = engine.job(str(job_id))
            spec = JobSpec.from_json(job.spec_json)
            preferred = spec.resources.cluster
            if preferred is None and not job.rented_cluster and job.cluster:
                preferred = job.cluster
            plan = LaunchPlan(spec, f"job {job.id} ({job.name})", (), (), preferred)
            return self._with_clusters(engine, plan)

        self.context.worker.submit(read, on_done=self._read, on_error=self.failed.emit, name="spec")

    @staticmethod
    def _with_clusters(engine: Any, plan: LaunchPlan) -> LaunchPlan:
        from xyclaw.records.states import ClusterState

        ready = tuple(r for r in engine.clusters() if r.state == ClusterState.READY)
        busy = frozenset(str(j.cluster) for j in engine.jobs() if j.active and j.cluster)
        additions = tuple(engine.launch_additions(plan.spec))
        sends = tuple(engine.launch_sends(plan.spec))
        return LaunchPlan(
            plan.spec, plan.source, plan.warnings, ready, plan.preferred, busy, additions, sends
        )

    def _read(self, found: LaunchPlan | SpecProblem) -> None:
        if isinstance(found, SpecProblem):
            self.error_dialog = SpecErrorDialog(found, self.parent_widget)
            self.error_dialog.open()
            self.problem.emit(found)
            return
        self.dialog = LaunchDialog(found, self.parent_widget)
        self.dialog.check_asked.connect(lambda cluster: self._check(found, cluster))
        self.dialog.accepted.connect(lambda: self._chosen(found))
        self.dialog.rejected.connect(self.cancelled.emit)
        self.dialog.open()

    def _check(self, plan: LaunchPlan, cluster: str | None) -> None:
        """The dry run of the plan's file on ``cluster`` (worker thread), into the dialog."""
        dialog = self.dialog
        engine = self.context.engine
        language = message_language()

        def shown(result: Any) -> None:
            if dialog is not None and i18n.alive(dialog.check_result):
                dialog.show_check(result)

        self.context.worker.submit(
            lambda: engine.launch_dry_run(plan.source, cluster, language=language),
            on_done=shown,
            on_error=lambda error: shown(error_text(error)),
            name="check",
        )

    # -- run ------------------------------------------------------------------------------
    def _chosen(self, plan: LaunchPlan) -> None:
        assert self.dialog is not None
        choice = self.dialog.choice
        if choice is None:
            return
        self.launch(plan.spec, None if choice == RENT else choice)

    def launch(self, spec: JobSpec, cluster: str | None) -> None:
        """On ``cluster``; with None, rent one for the job through a quote and approval. A
        secret variable the spec takes from this machine and that neither the environment nor
        the keyring holds is asked for first (:class:`SecretValuesDialog`), kept in the
        keyring through the Engine, and the launch goes on; nothing is rented before."""
        engine = self.context.engine

        def missing() -> list[str]:
            return list(engine.missing_job_secrets(spec))

        def checked(names: list[str]) -> None:
            if names:
                self._ask_secrets(spec, cluster, names)
            else:
                self._start(spec, cluster)

        self.context.worker.submit(
            missing, on_done=checked, on_error=self.failed.emit, name="secrets"
        )

    def _ask_secrets(self, spec: JobSpec, cluster: str | None, names: list[str]) -> None:
        engine = self.context.engine
        self.secrets_dialog = SecretValuesDialog(spec.name, names, self.parent_widget)

        def save() -> None:
            assert self.secrets_dialog is not None
            values = self.secrets_dialog.values()

            def store() -> None:
                for name, value in values.items():
                    engine.store_job_secret(name, value)

            self.context.worker.submit(
                store,
                on_done=lambda _r: self.launch(spec, cluster),  # checked again, then launched
                on_error=self.failed.emit,
                name="secrets",
            )

        self.secrets_dialog.accepted.connect(save)
        self.secrets_dialog.rejected.connect(self.cancelled.emit)
        self.secrets_dialog.open()

    def _start(self, spec: JobSpec, cluster: str | None) -> None:
        from xyclaw.engine.values import JobKind

        engine = self.context.engine
        start = engine.serve if spec.kind is JobKind.SERVICE else engine.launch
        if cluster is not None:
            self.context.worker.submit(
                lambda: start(spec, cluster),
                on_done=self._handle,
                on_error=self.failed.emit,
                name="launch",
            )
            return
        self.rent.start(
            lambda: engine.launch_quote(spec),
            spend=lambda quote: start(spec, quote=quote),
            title=f"Rent for job {spec.name}",
        )

    def _handle(self, handle: Any) -> None:
        self.launched.emit(handle)

    def _say_total(self, quote: Any) -> None:
        """A job's quote has an estimated total only when its spec bounds the run
        (max_runtime); without one the card says so and what it costs per hour, so the
        total's row is never silently missing (issue 28 item 8)."""
        dialog = self.rent.dialog
        if dialog is None or quote.estimated_total_micros is not None:
            return
        per_hour = money(quote.price_per_hour_micros, quote.currency)
        dialog.add_fact(
            self.tr("Estimated total"),
            self.tr(
                "none: the spec sets no max_runtime, so it bills {price}/h until the job "
                "ends and you release the cluster"
            ).format(price=per_hour),
        )


def error_text(error: ErrorInfo) -> str:
    """A failed call's message and hint on one line, in the window's language."""
    return error.text(" — ")
