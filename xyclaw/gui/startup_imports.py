"""The desktop's start-up imports, all on the main thread, a little per event-loop turn.

PySide6 creates its Python types lazily, on first use, and that is not thread-safe: a
worker importing pyqtgraph (which touches every QtCore/QtGui/QtWidgets type) or a page
module while the main thread built widgets gave "the plan page failed to build", a plain
QWidget from ``horizontalHeader()`` and once a segfault. Importing on the main thread in
one go froze the new window for about a second, so the work is cut into steps, each in its
own turn of the event loop: the window keeps painting and answering between them. Workers
started afterwards import only Qt-free modules. A package whose ``__init__`` alone is too
long for a turn (pyqtgraph: 75-120 ms) is run a few statements per turn (SLICED_MODULES),
and after each step what the start-up made is frozen out of the garbage collector's full
passes, which walked it all again for 67-97 ms each (issue 28: the largest main-thread
step after the first paint is now about 30-60 ms of CPU).
"""

from __future__ import annotations

import ast
import gc
import importlib
import importlib.util
import logging
import sys
import time
from collections.abc import Callable, Iterator, Sequence

from PySide6.QtCore import QObject, QTimer

log = logging.getLogger(__name__)

# PySide6's modules whose every type pyqtgraph touches when it is imported (its Qt shim
# copies them): created here a slice at a time, so pyqtgraph's own import is short.
QT_TYPE_MODULES = ("PySide6.QtCore", "PySide6.QtGui", "PySide6.QtWidgets")
TYPES_PER_STEP = 40

# The Clusters page is built right after the first paint (it keeps this session's events):
# its heavy imports first, one per turn, then the page itself (MainWindowController).
BEFORE_FIRST_BUILDS = (
    "xyclaw.parsers.ibparse",
    "xyclaw.parsers.nvsmi",
    "xyclaw.engine.bootstrap",
    "xyclaw.gui.host_keys",
    "xyclaw.planner.compute",
    "xyclaw.planner.ranking",
    "xyclaw.planner",
    "xyclaw.gui.clusters_page",
)

# Then these, one per turn, in this order: the Qt modules pyqtgraph loads, pyqtgraph, the
# pages' modules (a page is built when first shown: its code is ready by then), each after
# the modules under it that take long to import (measured with ``python -X importtime``;
# leaves first, so each step pays for about one module), and the Qt-free modules that the
# pages and the workers both import, so a worker finds them imported and never imports
# one at the same time as the main thread. A name missing here only costs time.
MAIN_THREAD_MODULES = (
    "PySide6.QtSvg",
    "PySide6.QtOpenGL",
    "PySide6.QtOpenGLWidgets",
    "PySide6.QtTest",
    "cProfile",
    "pydoc",
    "xyclaw.planner.report",
    "xyclaw.gui.plan_report",
    "xyclaw.gui.plan_page",
    "xyclaw.gui.charts.curves",
    "xyclaw.gui.job_launch",
    "xyclaw.gui.jobs_page",
    "xyclaw.gui.monitor_wiring",
    "xyclaw.parsers.joblog",
    "xyclaw.parsers.kernel_log",
    "xyclaw.telemetry.alerts",
    "xyclaw.telemetry.live",
    "xyclaw.telemetry.rules",
    "xyclaw.gui.charts.alerts",
    "xyclaw.gui.charts.heatmap",
    "xyclaw.gui.monitor_page",
    "xyclaw.gui.history_replay",
    "xyclaw.gui.history_page",
    "asyncio",
    "unittest.mock",
    "yaml",
    "invoke",
    "cryptography.hazmat.primitives.ciphers",
    "cryptography.hazmat.primitives.serialization",
    "nacl.signing",
    "paramiko",
    "xyclaw.remote.execute",
    "xyclaw.providers.own_hosts",
    "xyclaw.gui.host_probe",
    "xyclaw.agent.presets",
    "xyclaw.gui.setup_status",
    "xyclaw.gui.settings_page",
    "pydantic_core",
    "pydantic._internal._utils",
    "pydantic._internal._decorators",
    "pydantic._internal._generate_schema",
    "pydantic._internal._model_construction",
    "pydantic.main",
)

# Prefixes of the modules that only the main thread may import (tests check the start-up).
MAIN_THREAD_ONLY = ("PySide6", "shiboken6", "pyqtgraph", "xyclaw.gui")

# pyqtgraph's ``__init__`` imports all of pyqtgraph, 75-120 ms of the main thread's CPU in
# one go (250 ms and more on a loaded machine): the largest freeze of the start-up. It is
# run a few of its statements per turn instead, each turn about this long.
SLICED_MODULES = ("pyqtgraph",)
SLICE_S = 0.025

# A step returns True when it has more to do: it runs again at the next turn.
Step = Callable[[], bool | None]

# Modules whose ``__init__`` is part-way run (in sys.modules, not complete yet).
_pending: dict[str, Iterator[None]] = {}


def _sliced_exec(module_name: str) -> Iterator[None]:
    """Import ``module_name`` as the import system would, but run its ``__init__``'s
    top-level statements in slices, yielding between them. The module is in sys.modules
    from the first slice (its submodules' relative imports need it), so anything that may
    use it meanwhile calls :func:`finish_pending` first; on an error it is taken out."""
    spec = importlib.util.find_spec(module_name)
    if spec is None or spec.origin is None or not spec.origin.endswith(".py"):
        importlib.import_module(module_name)
        return
    module = importlib.util.module_from_spec(spec)
    with open(spec.origin, "rb") as source:
        tree = ast.parse(source.read(), spec.origin)
    sys.modules[module_name] = module
    try:
        began = time.perf_counter()
        last = len(tree.body) - 1
        for index, statement in enumerate(tree.body):
            code = compile(ast.Module([statement], []), spec.origin, "exec")
            exec(code, module.__dict__)  # the installed package's own source
            if index < last and time.perf_counter() - began >= SLICE_S:
                yield
                began = time.perf_counter()
    except BaseException:
        sys.modules.pop(module_name, None)
        raise


def _sliced_import(module_name: str) -> Step:
    def step() -> bool:
        if module_name in sys.modules and module_name not in _pending:
            return False  # imported already (by a page built early)
        slices = _pending.setdefault(module_name, _sliced_exec(module_name))
        try:
            next(slices)
        except StopIteration:
            _pending.pop(module_name, None)
            return False
        except BaseException:
            _pending.pop(module_name, None)
            raise
        return True

    return step


def finish_pending() -> None:
    """Complete at once any module still imported in slices: whatever may use one (a page
    built before the start-up's steps are done) calls this first."""
    while _pending:
        module_name, slices = next(iter(_pending.items()))
        try:
            for _ in slices:
                pass
        finally:
            _pending.pop(module_name, None)


def _create_types(module_name: str, names: list[str]) -> Step:
    def step() -> None:
        module = importlib.import_module(module_name)
        for name in names:
            getattr(module, name, None)

    return step


def _import(module_name: str) -> Step:
    def step() -> None:
        importlib.import_module(module_name)

    return step


def _read_catalogue() -> None:
    """The bundled GPU catalogue (read once, kept): the Plan page's first open read it."""
    from xyclaw.engine.values import Catalog

    Catalog.builtin()


def startup_steps(builds: Sequence[tuple[str, Step]] | None = None) -> list[tuple[str, Step]]:
    """The start-up's steps, in order, each short enough for one event-loop turn: the
    first pages' imports, ``builds`` (building those pages), then everything else."""
    steps: list[tuple[str, Step]] = [(name, _import(name)) for name in BEFORE_FIRST_BUILDS]
    steps.extend(builds or [])
    for module_name in QT_TYPE_MODULES:
        names = [n for n in dir(importlib.import_module(module_name)) if n.startswith("Q")]
        for start in range(0, len(names), TYPES_PER_STEP):
            chunk = names[start : start + TYPES_PER_STEP]
            steps.append((f"{module_name} types {start}", _create_types(module_name, chunk)))
    steps.extend((name, _sliced_import(name)) for name in SLICED_MODULES)
    steps.extend((name, _import(name)) for name in MAIN_THREAD_MODULES)
    steps.append(("read the bundled catalogue", _read_catalogue))
    return steps


class _Stepper(QObject):
    """Runs the steps one per turn of the event loop, then ``then``."""

    def __init__(
        self, parent: QObject, steps: list[tuple[str, Step]], then: Callable[[], None]
    ) -> None:
        super().__init__(parent)
        self._steps = list(steps)
        self._then: Callable[[], None] | None = then
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(1)  # a turn for the window's own events between steps
        self._timer.timeout.connect(self._next)

    def start(self) -> None:
        self._timer.start()

    def _next(self) -> None:
        if self._steps:
            name, step = self._steps[0]
            more = False
            try:
                more = bool(step())
            except ModuleNotFoundError:
                log.debug("no module %s to import at start-up", name)
            except Exception:  # a page that cannot import says so when it is built
                log.exception("start-up step %s failed", name)
            if not more:
                self._steps.pop(0)
            # What the start-up makes lives as long as the app: kept out of the collector's
            # full passes, each of which walked it all again (67-97 ms under the GIL, the
            # largest freezes once pyqtgraph was imported in slices; on any thread).
            gc.freeze()
            self._timer.start()
            return
        then, self._then = self._then, None
        if then is not None:
            then()


def run_in_turns(parent: QObject, steps: list[tuple[str, Step]], then: Callable[[], None]) -> None:
    """From the main thread: run ``steps`` one per event-loop turn, then ``then``."""
    _Stepper(parent, steps, then).start()


def import_on_main_thread(
    parent: QObject, then: Callable[[], None], *, builds: Sequence[tuple[str, Step]] | None = None
) -> None:
    """From the main thread: run :func:`startup_steps` a step per event-loop turn, then
    ``then`` (which may start workers: everything Qt-using is imported by then)."""
    _Stepper(parent, startup_steps(builds), then).start()
