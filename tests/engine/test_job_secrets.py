"""A job's secret variables through the Engine (issue 26): which the machine lacks, kept in the
keyring (the 0600 file here), registered for masking, read at launch from then on."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from xyclaw.config import load_config
from xyclaw.engine import Engine
from xyclaw.engine.compose import build_engine
from xyclaw.errors import UsageError
from xyclaw.paths import AppPaths, bundled
from xyclaw.secrets import job_secret_name, mask

SAMPLE = bundled("resources") / "examples" / "lora-2node.yaml"
VALUE = "hf_engine_planted_value_77"


@pytest.fixture
def engine(xyclaw_home: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Engine]:
    monkeypatch.delenv("HF_TOKEN", raising=False)
    paths = AppPaths.from_environment()
    built = build_engine(paths, load_config(paths.config_file), providers=None, start_guard=False)
    yield built
    built.close()


def test_a_missing_secret_is_named_then_kept_and_masked(engine: Engine) -> None:
    assert engine.missing_job_secrets(SAMPLE) == ["HF_TOKEN"]
    engine.store_job_secret("HF_TOKEN", f"  {VALUE}\n")
    assert engine.secrets.get(job_secret_name("HF_TOKEN")) == VALUE
    assert engine.missing_job_secrets(SAMPLE) == []
    assert mask(f"token={VALUE}") == "token=***"


def test_the_environment_wins_and_needs_no_keyring(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HF_TOKEN", "hf_from_the_environment_1")
    assert engine.missing_job_secrets(SAMPLE) == []


@pytest.mark.parametrize(("name", "value"), [("HF TOKEN", "x" * 12), ("HF_TOKEN", "   ")])
def test_a_bad_name_or_an_empty_value_is_refused(engine: Engine, name: str, value: str) -> None:
    with pytest.raises(UsageError):
        engine.store_job_secret(name, value)
    assert engine.secrets.get(job_secret_name("HF_TOKEN")) is None
