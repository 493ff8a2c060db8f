"""`xyclaw guard status | install`, `xyclaw doctor` on the guard, and `xyclaw budget`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.guard.conftest import Cli, Cloud
from xyclaw.cli.main import main


def test_status_says_it_is_not_running_and_that_it_starts_by_itself(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["guard", "status"]) == 1
    out = capsys.readouterr().out
    assert "guard: not running" in out and "starts by itself when a cluster is live" in out
    assert main(["guard", "status", "--json"]) == 1
    status = json.loads(capsys.readouterr().out)
    assert status["running"] is False and status["autostart"] is True
    assert main(["doctor"]) == 0
    out = capsys.readouterr().out
    assert "guard" in out and "it starts by itself whenever a cluster is live" in out


def test_doctor_warns_when_nothing_would_enforce_budgets(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XYCLAW_GUARD_AUTOSTART", "false")
    main(["doctor"])
    out = capsys.readouterr().out
    assert "[warn] guard" in out and "autostart is off" in out
    assert "fix: set [guard] autostart = true" in out


def test_install_asks_first_and_under_xyclaw_home_never_touches_the_real_home(
    xyclaw_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    real = Path.home() / ".config" / "systemd" / "user" / "xyclaw-guard.service"
    existed = real.exists()
    # No terminal to ask at (pytest's stdin is none): nothing is written without --yes.
    assert main(["guard", "install"]) != 0
    assert "confirm with --yes" in capsys.readouterr().err
    unit = xyclaw_home / "config" / "systemd" / "user" / "xyclaw-guard.service"
    assert not unit.exists()
    capsys.readouterr()
    assert main(["guard", "install", "--yes"]) == 0
    out = capsys.readouterr().out
    assert f"wrote {unit}" in out and "not into your real home" in out
    text = unit.read_text()
    assert "ExecStart=" in text and " -m xyclaw.cli.main guard run" in text
    assert f"Environment=XYCLAW_HOME={xyclaw_home.resolve()}" in text
    assert "Restart=on-failure" in text and "WantedBy=default.target" in text
    assert real.exists() == existed  # the real home is as it was
    assert main(["guard", "status"]) == 1
    assert f"user service: {unit}" in capsys.readouterr().out
    assert main(["guard", "uninstall"]) == 0
    assert not unit.exists()


def test_budget_command_moves_the_clouds_deadline(cli: Cli, cloud: Cloud) -> None:
    cluster = cli.up("--budget", "10")
    ext = cluster["external_id"]
    before = cloud.cluster(ext).extra["terminate_at"]
    done = cli.here("budget", cluster["name"], "20")
    assert done.returncode == 0, done.stderr
    assert f"{cluster['name']}: budget 20.00 CNY" in done.stdout
    # 10 CNY more at 28 CNY an hour: the deadline is 1286 s later.
    assert cloud.cluster(ext).extra["terminate_at"] - before == pytest.approx(
        10_000_000 * 3600 / 28_000_000, abs=1.0
    )
    done = cli.here("budget", cluster["name"], "none")
    assert done.returncode == 0 and "has no budget now" in done.stdout
    assert cloud.cluster(ext).extra["terminate_at"] is None
    assert cli.here("down", cluster["name"], "--yes").returncode == 0
