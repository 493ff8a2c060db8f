from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from xyclaw.cli.main import main

ROOT = Path(__file__).resolve().parents[2]


def run_cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "xyclaw.cli.main", *args],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        cwd=ROOT,
        timeout=120,
    )


def test_version_from_a_fresh_process() -> None:
    proc = run_cli("--version")
    assert proc.returncode == 0
    assert proc.stdout.strip().startswith("xyclaw ")


def test_db_info_json_and_backup(capsys: pytest.CaptureFixture[str], xyclaw_home: Path) -> None:
    assert main(["db", "info", "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["schema_version"] == info["latest_version"]
    assert Path(info["path"]).is_relative_to(xyclaw_home)
    target = xyclaw_home / "backup.db"
    assert main(["db", "backup", str(target)]) == 0
    assert sqlite3.connect(target).execute("PRAGMA user_version").fetchone()[0] >= 1
    assert main(["db", "backup", str(target)]) == 2
    assert "already exists" in capsys.readouterr().err


def test_doctor_json_reports_checks(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["doctor", "--json"])
    report = json.loads(capsys.readouterr().out)
    names = {c["name"] for c in report["checks"]}
    assert {"python", "data folder", "database", "secrets", "qt", "ssh keys", "llm"} <= names
    assert code == 0 and report["ok"] is True


def test_doctor_fails_on_a_corrupt_database_and_says_how_to_fix(
    capsys: pytest.CaptureFixture[str], xyclaw_home: Path
) -> None:
    db = xyclaw_home / "data" / "xyclaw.db"
    db.parent.mkdir(parents=True)
    db.write_bytes(b"garbage" * 1000)
    assert main(["doctor"]) == 1
    out = capsys.readouterr().out
    assert "[FAIL] database" in out and "move it aside" in out
    assert db.read_bytes() == b"garbage" * 1000


def test_bad_config_gives_exit_2_and_names_the_key(
    capsys: pytest.CaptureFixture[str], xyclaw_home: Path
) -> None:
    cfg = xyclaw_home / "config" / "config.toml"
    cfg.parent.mkdir(parents=True)
    cfg.write_text('[gui]\ntheme = "neon"\n')
    assert main(["db", "info"]) == 2
    err = capsys.readouterr().err
    assert "gui.theme" in err and "'dark'" in err


def test_no_display_says_how_to_run_instead_of_a_traceback() -> None:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in {"DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"}
    }
    proc = subprocess.run(
        [sys.executable, "-m", "xyclaw.cli.main"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert proc.returncode == 2
    assert "xvfb-run" in proc.stderr and "Traceback" not in proc.stderr
