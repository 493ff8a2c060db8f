from __future__ import annotations

from pathlib import Path

import pytest

from xyclaw.config import describe_settings, load_config, settings_markdown
from xyclaw.errors import ConfigError

DOCS = Path(__file__).resolve().parents[2] / "docs" / "configuration.md"


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_defaults_without_a_file(tmp_path: Path) -> None:
    config = load_config(tmp_path / "missing.toml", environ={})
    assert config.telemetry.sample_interval_s == 1.0
    assert config.billing.on_budget_exhausted == "release"


def test_file_then_environment_then_flags_win_in_that_order(tmp_path: Path) -> None:
    cfg = write(
        tmp_path / "config.toml",
        "[telemetry]\nsample_interval_s = 2\nlive_window_minutes = 20\n"
        "[billing]\ndefault_budget = 300\n",
    )
    config = load_config(cfg, environ={"XYCLAW_TELEMETRY_SAMPLE_INTERVAL_S": "3"})
    assert config.telemetry.sample_interval_s == 3.0  # environment beats file
    assert config.telemetry.live_window_minutes == 20  # file beats default
    assert config.billing.default_budget == 300.0
    config = load_config(
        cfg,
        environ={"XYCLAW_TELEMETRY_SAMPLE_INTERVAL_S": "3"},
        overrides={"telemetry.sample_interval_s": 5},
    )
    assert config.telemetry.sample_interval_s == 5.0  # flag beats environment


def test_boolean_from_environment(tmp_path: Path) -> None:
    config = load_config(None, environ={"XYCLAW_SSH_USE_SSH_CONFIG": "no"})
    assert config.ssh.use_ssh_config is False


@pytest.mark.parametrize(
    ("text", "fragments"),
    [
        (
            '[billing]\non_budget_exhausted = "explode"\n',
            ["billing.on_budget_exhausted", "explode", "'release'"],
        ),
        ("[telemetry]\nsample_interval_s = 0\n", ["telemetry.sample_interval_s", ">= 0.1"]),
        ('[telemetry]\nlive_window_minutes = "many"\n', ["live_window_minutes", "int"]),
        (
            "[telemetry]\nsample_rate = 1\n",
            ["unknown key telemetry.sample_rate", "sample_interval_s"],
        ),
        ("[gpu]\nx = 1\n", ["unknown section [gpu]", "telemetry"]),
        ("[telemetry\n", ["not valid TOML"]),
    ],
)
def test_invalid_values_name_the_key_the_value_and_what_is_allowed(
    tmp_path: Path, text: str, fragments: list[str]
) -> None:
    cfg = write(tmp_path / "config.toml", text)
    with pytest.raises(ConfigError) as info:
        load_config(cfg, environ={})
    message = str(info.value)
    for fragment in fragments:
        assert fragment in message


def test_bad_environment_value_names_the_variable() -> None:
    with pytest.raises(ConfigError, match="XYCLAW_SSH_MAX_PARALLEL"):
        load_config(None, environ={"XYCLAW_SSH_MAX_PARALLEL": "lots"})


def test_every_setting_is_documented() -> None:
    docs = DOCS.read_text(encoding="utf-8")
    assert settings_markdown() in docs, "regenerate docs/configuration.md from settings_markdown()"
    for info in describe_settings():
        assert f"`{info.key}`" in docs
        assert info.env_name in docs
