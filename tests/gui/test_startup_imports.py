"""The desktop's start-up imports everything Qt-using on the main thread (issue 28).

PySide6 creates its types lazily and not thread-safely: a worker importing pyqtgraph or a
page while the main thread built widgets broke pages ("the plan page failed to build", a
plain QWidget from ``horizontalHeader()``) and once crashed. A fresh interpreter starts
the app the way ``xyclaw`` does, with an audit hook that records every import and the
thread it ran on, until the agents are attached and every page was opened.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

CHILD = r"""
import json, sys, threading
main = threading.main_thread()
ONLY = ("PySide6", "shiboken6", "pyqtgraph", "xyclaw.gui")
seen = []
def hook(event, args):
    if event == "import" and threading.current_thread() is not main:
        name = str(args[0])
        if name.startswith(ONLY):
            seen.append([threading.current_thread().name, name])
sys.addaudithook(hook)

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QListWidget
from xyclaw.config import load_config
from xyclaw.engine.compose import build_engine
from xyclaw.gui import app as gui_app
from xyclaw.gui.pages import PAGES
from xyclaw.paths import AppPaths
from xyclaw.store import Store

qapp = gui_app.create_app()
state = {"attached": False, "opened": 0, "error": ""}
attach = gui_app.MainWindowController.attach_runtime

def attached(self, runtime):
    attach(self, runtime)
    state["attached"] = True
    state["controller"] = self

gui_app.MainWindowController.attach_runtime = attached

def poll():
    controller = state.get("controller")
    if controller is None or controller.worker.busy:
        QTimer.singleShot(50, poll)
        return
    nav = controller.window.findChild(QListWidget, "navigation")
    if state["opened"] < len(PAGES):
        nav.setCurrentRow(state["opened"])
        state["opened"] += 1
        QTimer.singleShot(100, poll)
        return
    qapp.exit(0)

QTimer.singleShot(50, poll)
QTimer.singleShot(60000, lambda: (state.update(error="timed out"), qapp.exit(1)))
paths = AppPaths.from_environment()
paths.ensure()
store = Store(paths.database)
engine = build_engine(paths, load_config(paths.config_file), store=store)
try:
    gui_app.run_app(engine, store)
finally:
    engine.close()
    from xyclaw.sim.cloud import launcher
    launcher.stop(paths.data_dir / "sim")
print(json.dumps({"seen": seen, "attached": state["attached"], "opened": state["opened"],
                  "error": state["error"]}))
"""


def test_no_worker_imports_qt_or_a_page_during_startup(tmp_path: Path) -> None:
    env = dict(os.environ)
    env.update(
        XYCLAW_HOME=str(tmp_path / "home"),
        XYCLAW_SECRETS_BACKEND="file",
        QT_QPA_PLATFORM="offscreen",
        PYTHONPATH=str(ROOT),
    )
    out = subprocess.run(
        [sys.executable, "-c", CHILD],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    lines = out.stdout.strip().splitlines()
    assert out.returncode == 0 and lines, out.stdout + out.stderr
    found = json.loads(lines[-1])
    assert found["error"] == ""
    assert found["attached"], "the agents never started"
    assert found["opened"] == 7, "not every page was opened"
    assert found["seen"] == [], f"imported off the main thread: {found['seen']}"
    assert "failed to build" not in out.stderr
