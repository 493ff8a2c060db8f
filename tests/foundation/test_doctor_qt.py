"""The doctor's next steps, and its Qt check where people meet it: a display (offscreen
here), no display at all (Qt aborts the probe: the doctor says so and how to run the app
anyway, not "reinstall"), and a platform plugin that does not exist (Qt's own words)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from xyclaw.cli.main import main
from xyclaw.config import load_config
from xyclaw.doctor import next_steps, qt_check
from xyclaw.paths import AppPaths
from xyclaw.secrets import SecretStore

pytest.importorskip("PySide6")


def _env(**changes: str | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    env.pop("QT_QPA_PLATFORM", None)
    for key, value in changes.items():
        if value is not None:
            env[key] = value
    return env


def test_qt_starts_offscreen() -> None:
    result = qt_check(_env(QT_QPA_PLATFORM="offscreen"))
    assert result.ok and "platform offscreen" in result.detail


def test_no_display_is_named_with_what_to_do() -> None:
    result = qt_check(_env())
    assert not result.ok and not result.required
    assert "no display" in result.detail
    assert "xvfb-run -a xyclaw" in result.fix and "QT_QPA_PLATFORM=offscreen" in result.fix
    assert "reinstall" not in result.fix


def test_a_platform_qt_cannot_load_gives_qts_words() -> None:
    result = qt_check(_env(QT_QPA_PLATFORM="nosuchplatform"))
    assert not result.ok
    assert "nosuchplatform" in result.detail
    assert "make system-deps" in result.fix


def test_doctor_says_what_is_next_until_it_is_set_up(
    xyclaw_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A fresh install is told the three next steps (the commands to paste); each one
    set up (a host in hosts.toml, a model preset, a provider key) is no longer offered."""
    paths = AppPaths.from_environment().ensure()
    assert main(["doctor", "--json"]) == 0
    steps = json.loads(capsys.readouterr().out)["next"]
    assert len(steps) == 3
    assert "xyclaw hosts add" in steps[0] and "xyclaw model-key" in steps[1]
    assert "xyclaw secrets set lambda_api_key" in steps[2]
    assert main(["doctor"]) == 0
    assert "next, when you want them:" in capsys.readouterr().out

    (paths.config_dir / "hosts.toml").write_text(
        '[[host]]\nname = "gpu1"\nhost = "10.0.0.5"\nuser = "root"\ngpu = "A100-80G"\n'
    )
    paths.config_file.write_text('[llm]\npreset = "deepseek"\n')
    config = load_config(paths.config_file)
    assert len(next_steps(paths, config)) == 1
    SecretStore.choose("file", paths.secrets_file).set("autodl_token", "t-123")
    assert next_steps(paths, config) == []
