"""Issue 11, defects 9 and 10 (the smaller ones): `--help` and `config check`, doctor and a
secrets file others can read, and storing secrets from the command line."""

from __future__ import annotations

import http.server
import io
import json
import sys
import threading
from pathlib import Path
from typing import ClassVar

import pytest

from tests.defects.clirun import xyclaw
from xyclaw.paths import AppPaths


def test_help_advertises_only_what_exists() -> None:
    """`xyclaw --help` said "show or check the configuration"; there was no `config check`."""
    helped = xyclaw("--help")
    assert "config" in helped.out
    checked = xyclaw("config", "check")
    assert checked.code == 0, checked
    assert "config.toml" in checked.out and "hosts.toml" in checked.out


def test_config_check_names_what_is_wrong(xyclaw_home: Path) -> None:
    paths = AppPaths.from_environment()
    paths.config_dir.mkdir(parents=True)
    (paths.config_dir / "hosts.toml").write_text('[[host]]\nname = "box"\ngpu = "A100-80G"\n')
    assert xyclaw("config", "check").code == 0
    (paths.config_dir / "hosts.toml").write_text('[[host]]\nname = "box"\ngpus = 8.7\n')
    bad = xyclaw("config", "check")
    assert bad.code == 2 and "hosts.toml" in bad.err and "gpu" in bad.err, bad
    paths.config_file.write_bytes(b'[gui]\ntheme = "d\xe9rk"\n')
    bad = xyclaw("config", "check")
    assert bad.code == 2 and "UTF-8" in bad.err, bad


def test_doctor_reports_a_secrets_file_others_can_read(xyclaw_home: Path) -> None:
    """doctor stopped with an error instead of printing a FAIL line with the fix."""
    paths = AppPaths.from_environment()
    paths.config_dir.mkdir(parents=True)
    paths.config_file.write_text('[llm]\npreset = "deepseek"\nbase_url = "http://127.0.0.1:9/v1"\n')
    paths.secrets_file.write_text('{"llm-api-key:deepseek": "sk-test-not-real"}')
    paths.secrets_file.chmod(0o644)
    outcome = xyclaw("doctor")
    assert outcome.code == 1, outcome
    assert "[FAIL] secrets" in outcome.out, outcome.out
    assert f"chmod 600 {paths.secrets_file}" in outcome.out
    assert "sk-test-not-real" not in outcome.text
    assert "Traceback" not in outcome.text and outcome.err == ""


class _Refusing(http.server.BaseHTTPRequestHandler):
    """An OpenAI-style endpoint that refuses every key, noting the ones it was shown."""

    seen: ClassVar[list[str | None]] = []

    def do_GET(self) -> None:
        _Refusing.seen.append(self.headers.get("Authorization"))
        self.send_response(401)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


def test_doctor_reads_the_llm_key_under_its_real_name(xyclaw_home: Path) -> None:
    """doctor looked up "llm_api_key", a name nothing stores, and said "set it in Settings"."""
    from xyclaw.config import load_config
    from xyclaw.doctor import check_llm
    from xyclaw.secrets import SecretStore

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Refusing)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        paths = AppPaths.from_environment()
        paths.config_dir.mkdir(parents=True)
        paths.config_file.write_text(
            f'[llm]\npreset = "deepseek"\nbase_url = "http://127.0.0.1:{server.server_port}/v1"\n'
        )
        config = load_config(paths.config_file)
        missing = check_llm(paths, config)
        assert not missing.ok and "xyclaw secrets set llm-api-key:deepseek" in missing.fix
        SecretStore.choose("file", paths.secrets_file).set("llm-api-key:deepseek", "sk-fake")
        refused = check_llm(paths, config)
        assert _Refusing.seen[-1] == "Bearer sk-fake"  # the key the agents use was sent
        assert "refused the API key" in refused.detail and "sk-fake" not in str(refused)
    finally:
        server.shutdown()


def _stdin(text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(text))


def test_secrets_set_list_delete(xyclaw_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Defect 9 (done by others): values from stdin or a hidden prompt, never an argument;
    list shows names only."""
    _stdin("hunter2-not-real\n", monkeypatch)
    stored = xyclaw("secrets", "set", "ssh-password:gpubox")
    assert stored.code == 0 and "hunter2" not in stored.text, stored
    _stdin("", monkeypatch)
    listing = xyclaw("secrets", "list", "--json")
    rows = json.loads(listing.out)
    assert {"name": "ssh-password:gpubox", "for": "the SSH password of gpubox", "set": True} in rows
    assert "hunter2" not in listing.text
    assert {r["name"] for r in rows} >= {"lambda_api_key", "autodl_token"}
    as_argument = xyclaw("secrets", "set", "lambda_api_key", "sk-in-argv")
    assert as_argument.code == 2  # a value on the command line would land in shell history
    removed = xyclaw("secrets", "delete", "ssh-password:gpubox")
    assert removed.code == 0 and "removed ssh-password:gpubox" in removed.out, removed
    rows = json.loads(xyclaw("secrets", "list", "--json").out)
    assert all(r["name"] != "ssh-password:gpubox" for r in rows)
    again = xyclaw("secrets", "delete", "ssh-password:gpubox")  # a typo, or done twice
    assert again.code == 0 and "was not set: nothing removed" in again.out, again


def test_the_secret_names_are_documented() -> None:
    docs = (Path(__file__).resolve().parents[2] / "docs" / "configuration.md").read_text()
    for name in ("lambda_api_key", "autodl_token", "llm-api-key:", "ssh-password:"):
        assert f"`{name}" in docs, name
    assert "xyclaw secrets set" in docs
