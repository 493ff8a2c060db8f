from __future__ import annotations

import logging
import stat
from pathlib import Path

import pytest

from xyclaw.catalog import Catalog
from xyclaw.config import load_config
from xyclaw.engine.compose import build_engine
from xyclaw.errors import SecretError
from xyclaw.logsetup import configure_logging, redact
from xyclaw.paths import AppPaths
from xyclaw.planner import PlanRequest
from xyclaw.secrets import FileSecretBackend, SecretStore

PLANTED = "sk-planted-4f9a1c7e2b8d6051aa"


def test_fallback_file_is_private_and_round_trips(tmp_path: Path) -> None:
    store = SecretStore(FileSecretBackend(tmp_path / "secrets.json"))
    store.set("llm_api_key", PLANTED)
    mode = stat.S_IMODE((tmp_path / "secrets.json").stat().st_mode)
    assert mode == 0o600
    assert store.get("llm_api_key") == PLANTED
    store.delete("llm_api_key")
    assert store.get("llm_api_key") is None


def test_a_secrets_file_others_can_read_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "secrets.json"
    path.write_text('{"a": "b"}')
    path.chmod(0o644)
    with pytest.raises(SecretError, match="chmod 600"):
        FileSecretBackend(path).get("a")


def test_planted_secret_never_reaches_database_or_log(xyclaw_home: Path) -> None:
    paths = AppPaths.from_environment()
    config = load_config(paths.config_file)
    engine = build_engine(paths, config)
    configure_logging(paths.log_file, "DEBUG")
    engine.secrets.set("llm_api_key", PLANTED)
    key = engine.secrets.get("llm_api_key")
    log = logging.getLogger("xyclaw.test")
    log.info("calling the model with key %s", key)
    log.warning("request failed: Authorization: Bearer %s", key)
    # Something is written to the history while the key is in use.
    engine.plan(
        PlanRequest.parse(task="finetune-lora", model_size="7B", gpus="8"),
        providers=(),
        extra_offers=Catalog.builtin().offers,
    )
    engine.close()
    for handler in logging.getLogger("xyclaw").handlers:
        handler.flush()
    assert not (paths.config_file.exists() and PLANTED in paths.config_file.read_text())
    for db_file in paths.data_dir.glob("xyclaw.db*"):
        assert PLANTED.encode() not in db_file.read_bytes(), db_file
    log_text = paths.log_file.read_text()
    assert "calling the model with key ***" in log_text
    assert PLANTED not in log_text


def test_redact_masks_common_secret_shapes() -> None:
    text = redact(
        "password=hunter2 and -----BEGIN OPENSSH PRIVATE KEY-----\nabc\n"
        "-----END OPENSSH PRIVATE KEY-----"
    )
    assert "hunter2" not in text and "abc" not in text


def test_an_engine_that_reads_no_secret_needs_no_keyring(
    xyclaw_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Listing clusters works where no OS keyring does (a headless Linux box set to
    `backend = "keyring"`); the first secret read is what says the keyring is missing."""
    from xyclaw.secrets import keyring_usable

    if keyring_usable():
        pytest.skip("this machine has a working OS keyring")
    monkeypatch.setenv("XYCLAW_SECRETS_BACKEND", "keyring")
    paths = AppPaths.from_environment()
    config = load_config(paths.config_file)
    assert config.secrets.backend == "keyring"
    with pytest.raises(SecretError, match="no working OS keyring"):
        SecretStore.choose("keyring", paths.secrets_file)
    engine = build_engine(paths, config)
    try:
        assert engine.clusters() == []
    finally:
        engine.close()
    with pytest.raises(SecretError, match="no working OS keyring"):
        SecretStore.deferred("keyring", paths.secrets_file).get("lambda_api_key")
