"""Settings write config.toml one validated key at a time, keeping the user's comments."""

from __future__ import annotations

from pathlib import Path

import pytest

from xyclaw.config import load_config, validate_setting, write_setting
from xyclaw.errors import ConfigError


def test_a_setting_is_written_with_comments_and_other_keys_kept(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(
        "# XyClaw settings, edited by hand\n[billing]\n"
        "default_budget = 100.0  # CNY\nwarn_fraction = 0.7\n"
    )
    assert write_setting(path, "billing.default_budget", "250") == 250.0
    assert write_setting(path, "gui.language", "zh_CN") == "zh_CN"
    text = path.read_text()
    assert "# XyClaw settings, edited by hand" in text and "# CNY" in text
    config = load_config(path, environ={})
    assert config.billing.default_budget == 250.0 and config.billing.warn_fraction == 0.7
    assert config.gui.language == "zh_CN"


def test_a_value_the_file_would_refuse_is_refused_and_nothing_changes(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('[gui]\ntheme = "dark"\n')
    before = path.read_text()
    for dotted, value, words in (
        ("gui.theme", "purple", "one of 'system', 'light', 'dark'"),
        ("billing.warn_fraction", 1.5, "<= 1.0"),
        ("telemetry.live_window_minutes", "ten", "int"),
        ("gui.close_to_tray", "maybe", "true or false"),
    ):
        with pytest.raises(ConfigError) as err:
            write_setting(path, dotted, value)
        assert words in (err.value.hint or "")
    with pytest.raises(ConfigError, match="unknown setting"):
        write_setting(path, "gui.font", "big")
    assert path.read_text() == before
    assert validate_setting("ssh.max_parallel", "16") == 16


def test_a_broken_file_is_not_overwritten(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text("[billing\ndefault_budget = 1\n")
    with pytest.raises(ConfigError, match="not valid TOML"):
        write_setting(path, "billing.default_budget", 5)
    assert path.read_text() == "[billing\ndefault_budget = 1\n"
