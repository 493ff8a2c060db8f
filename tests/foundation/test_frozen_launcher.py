"""The frozen app's entry point and the smoke script's screenshot check, run from the checkout.

In the PyInstaller folder `sys.executable` is the program itself, so the
launcher must answer `-m xyclaw.<module>` as Python would (the doctor's Qt
probe and the simulated cloud are started that way), and nothing else.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LAUNCHER = ROOT / "packaging" / "launcher.py"
CHECK_PNG = ROOT / "packaging" / "check_png.py"


def _run(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(LAUNCHER), *args],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        cwd=ROOT,
        timeout=120,
    )


def test_launcher_is_the_xyclaw_command() -> None:
    proc = _run("--version")
    assert proc.returncode == 0
    assert proc.stdout.strip().startswith("xyclaw ")


def test_launcher_runs_xyclaw_modules_with_their_arguments() -> None:
    proc = _run("-m", "xyclaw.gui.probe", QT_QPA_PLATFORM="offscreen")
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    assert report["ok"] is True and report["platform"] == "offscreen"
    # Arguments after the module go to it, as with `python -m`.
    proc = _run("-m", "xyclaw.cli.main", "sim", "status", "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["running"] is False


def test_launcher_refuses_other_modules() -> None:
    proc = _run("-m", "http.server")
    assert proc.returncode == 2
    assert "XyClaw's own modules only" in proc.stderr


@pytest.mark.gui
def test_screenshot_check_tells_a_drawn_window_from_a_blank_one(tmp_path: Path) -> None:
    from PySide6.QtGui import QColor, QImage, QPainter
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication([])
    assert app is not None
    blank = QImage(800, 600, QImage.Format.Format_RGB32)
    blank.fill(QColor("white"))
    blank.save(str(tmp_path / "blank.png"))
    drawn = QImage(800, 600, QImage.Format.Format_ARGB32)
    drawn.fill(QColor("#f3f4f6"))
    painter = QPainter(drawn)
    painter.fillRect(0, 0, 200, 600, QColor("#e5e7eb"))
    painter.drawText(240, 40, "Chat  Plan  Clusters  Jobs  Monitor  History  Settings")
    painter.end()
    drawn.save(str(tmp_path / "drawn.png"))

    def check(name: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, str(CHECK_PNG), str(tmp_path / name)],
            capture_output=True,
            text=True,
            timeout=60,
        )

    assert check("drawn.png").returncode == 0
    bad = check("blank.png")
    assert bad.returncode == 1 and "blank" in bad.stderr
    (tmp_path / "junk.png").write_bytes(b"not a picture")
    assert check("junk.png").returncode == 1
