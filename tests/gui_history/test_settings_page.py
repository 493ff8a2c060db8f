"""The Settings page against real parts: a local OpenAI-compatible HTTP server (models,
a wrong key, a dead port), a simulated GPU host over SSH (trust after confirmation, GPUs
listed), config.toml written with the file's own checks, the key only in the secrets
store, allowances revoked through the real agent runtime, the simulated cloud started and
stopped, a backup, and the theme and language switched while the page is shown."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from xyclaw.config import load_config
from xyclaw.engine import Engine
from xyclaw.engine.compose import build_engine
from xyclaw.engine.host_test import HostTester
from xyclaw.gui import i18n, themes
from xyclaw.gui.bridge import Worker
from xyclaw.gui.settings_page import SettingsPage
from xyclaw.paths import AppPaths
from xyclaw.providers import ProviderRegistry
from xyclaw.store import Store

pytestmark = pytest.mark.gui

GOOD_KEY = "sk-test-right-9f3a1c"


class _Models(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        if self.path != "/v1/models":
            self._send(404, {"error": {"message": "no such route"}})
        elif self.headers.get("Authorization") != f"Bearer {GOOD_KEY}":
            self._send(401, {"error": {"message": "Incorrect API key provided"}})
        else:
            models = [{"id": "qwen2.5-7b-instruct", "object": "model"},
                      {"id": "llama-3.1-8b", "object": "model"}]  # fmt: skip
            self._send(200, {"object": "list", "data": models})

    def _send(self, status: int, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        return None


@pytest.fixture
def model_server() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Models)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


@pytest.fixture
def history_store(xyclaw_home: Path) -> Store:
    """The engine's history database (the engine closes it), handed to the agents too."""
    return Store(AppPaths.from_environment().database)


@pytest.fixture
def engine(history_store: Store) -> Iterator[Engine]:
    paths = AppPaths.from_environment()
    eng = build_engine(
        paths, load_config(paths.config_file), providers=ProviderRegistry(), store=history_store
    )
    yield eng
    eng.close()


@pytest.fixture
def worker() -> Iterator[Worker]:
    w = Worker()
    yield w
    w.close()


def _page(qtbot: QtBot, engine: Engine, worker: Worker, **kw: Any) -> SettingsPage:
    page = SettingsPage(engine, worker, **kw)
    qtbot.addWidget(page)
    page.resize(1200, 820)
    page.show()
    qtbot.waitExposed(page)
    qtbot.waitUntil(lambda: not page.busy, timeout=10_000)
    return page


def _dead_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_llm_test_lists_the_models_says_what_is_wrong_and_keeps_the_key_out_of_files(
    qtbot: QtBot, engine: Engine, worker: Worker, model_server: str
) -> None:
    paths = engine.paths
    paths.config_file.write_text('# my settings\n[general]\ncurrency = "CNY"  # kept\n')
    page = _page(qtbot, engine, worker)
    page.preset.setCurrentIndex(page.preset.findData("custom"))
    page.base_url.setText(model_server)
    page.model.setEditText("qwen2.5-7b-instruct")

    page.api_key.setText(GOOD_KEY)
    page.llm_test.click()
    qtbot.waitUntil(lambda: not page.busy and "serves" in page.llm_result.text(), timeout=10_000)
    assert "qwen2.5-7b-instruct" in page.llm_result.text()
    assert "llama-3.1-8b" in page.llm_result.text()
    assert [page.model.itemText(i) for i in range(page.model.count())] == [
        "qwen2.5-7b-instruct", "llama-3.1-8b"]  # fmt: skip
    assert not page.llm_error.isVisible()

    page.api_key.setText("sk-wrong")
    page.llm_test.click()
    qtbot.waitUntil(lambda: not page.busy and page.llm_error.isVisible(), timeout=10_000)
    assert "refused the API key (HTTP 401)" in page.llm_error.text()

    page.base_url.setText(f"http://127.0.0.1:{_dead_port()}/v1")
    page.llm_test.click()
    qtbot.waitUntil(lambda: not page.busy and "refused" in page.llm_error.text(), timeout=10_000)
    assert "Nothing answers at 127.0.0.1:" in page.llm_error.text()
    assert "Start the model server" in page.llm_error.text()

    page.base_url.setText(model_server.removesuffix("/v1"))
    page.llm_test.click()
    qtbot.waitUntil(lambda: not page.busy and "404" in page.llm_error.text(), timeout=10_000)
    assert "/v1" in page.llm_error.text()

    # save: the settings to config.toml (comments kept), the key to the secrets store only
    page.base_url.setText(model_server)
    page.api_key.setText(GOOD_KEY)
    page.llm_save.click()
    qtbot.waitUntil(lambda: not page.busy and "Saved" in page.llm_result.text(), timeout=10_000)
    text = paths.config_file.read_text()
    assert "# my settings" in text and "# kept" in text
    config = load_config(paths.config_file)
    assert (config.llm.preset, config.llm.base_url) == ("custom", model_server)
    assert config.llm.model == "qwen2.5-7b-instruct"
    assert GOOD_KEY not in text
    assert page.api_key.text() == ""
    from xyclaw.agent.presets import resolve_endpoint

    assert resolve_endpoint(config.llm, engine.secrets).api_key == GOOD_KEY
    assert GOOD_KEY in paths.secrets_file.read_text()  # the 0600 file the tests use
    assert paths.secrets_file.stat().st_mode & 0o077 == 0
    for db in paths.data_dir.glob("*.db*"):
        assert GOOD_KEY.encode() not in db.read_bytes(), db

    # a stored key is used by Test without typing it again
    page.llm_test.click()
    qtbot.waitUntil(lambda: not page.busy and "serves" in page.llm_result.text(), timeout=10_000)


@pytest.fixture
def sim_host(engine: Engine, tmp_path: Path) -> Iterator[tuple[str, Any]]:
    """A simulated 8 x A800 machine on loopback that lets the app's key in."""
    from xyclaw.remote.node_access import load_or_create_app_key, parse_public_key
    from xyclaw.sim.node import SimNode
    from xyclaw.sim.nodespec import SimNodeSpec

    _, public = load_or_create_app_key(engine.paths.data_dir / "ssh" / "id_ecdsa")
    node = SimNode(
        SimNodeSpec(hostname="gpubox", gpu_model="A800", gpu_count=8, fabric="eth-25", nic_count=1),
        root=tmp_path / "gpubox",
        authorized_keys=[parse_public_key(public)],
    )
    node.start()
    host, port = node.address
    yield f"root@{host}:{port}", node
    node.stop()


def test_host_test_trusts_the_key_after_confirmation_and_lists_the_gpus(
    qtbot: QtBot, engine: Engine, worker: Worker, sim_host: tuple[str, Any], tmp_path: Path
) -> None:
    from xyclaw.remote import fingerprint_sha256

    name, node = sim_host
    paths = engine.paths
    (paths.config_dir / "hosts.toml").write_text(
        f'[[host]]\nname = "{name}"\ngpu = "A800"\ngpus = 8\nfabric = "none"\n'
    )
    from xyclaw.gui.host_keys import HostKeyPrompter

    prompter = HostKeyPrompter(timeout_s=20)
    tester = HostTester(
        paths, engine.config, engine.secrets, prompter,
        user_known_hosts=tmp_path / "none", ssh_config=tmp_path / "none", use_agent=False,
    )  # fmt: skip
    page = _page(qtbot, engine, worker, prompter=prompter, host_tester=tester)
    page.tabs.setCurrentIndex(1)
    assert page.hosts_table.rowCount() == 1 and page.hosts_table.item(0, 0).text() == name

    # refused first: nothing trusted, said so
    page.host_test.click()
    qtbot.waitUntil(lambda: bool(prompter.pending()), timeout=10_000)
    dialog = prompter.pending()[0]
    shown = " ".join(value.text() for value in dialog.values.values())
    assert fingerprint_sha256(node.host_key) in shown
    dialog.refuse_button.click()
    qtbot.waitUntil(lambda: not page.busy and page.host_error.isVisible(), timeout=15_000)
    assert "did not trust the host key" in page.host_error.text()
    assert not paths.known_hosts.exists() or name.split("@")[1].split(":")[0] not in (
        paths.known_hosts.read_text()
    )

    # trusted after confirmation: connected, the GPUs listed, the key recorded
    page.host_test.click()
    qtbot.waitUntil(lambda: bool(prompter.pending()), timeout=10_000)
    prompter.pending()[0].trust_button.click()
    qtbot.waitUntil(lambda: not page.busy and page.host_gpus.isVisible(), timeout=15_000)
    assert page.host_gpus.rowCount() == 8
    assert {page.host_gpus.item(r, 1).text() for r in range(8)} == {"NVIDIA A800-SXM4-80GB"} or (
        all("A800" in page.host_gpus.item(r, 1).text() for r in range(8))
    )
    assert "8 GPUs" in page.host_result.text() and "now trusted" in page.host_result.text()
    assert fingerprint_sha256(node.host_key) in page.host_result.text()
    assert paths.known_hosts.exists()

    # a second test asks nothing: the key is known now
    page.host_test.click()
    qtbot.waitUntil(lambda: not page.busy and "8 GPUs" in page.host_result.text(), timeout=15_000)
    assert "now trusted" not in page.host_result.text()


def test_money_defaults_are_checked_with_the_files_rules_and_written(
    qtbot: QtBot, engine: Engine, worker: Worker
) -> None:
    paths = engine.paths
    page = _page(qtbot, engine, worker)
    page.tabs.setCurrentIndex(3)
    page.money_fields["billing.default_budget"].setValue(500)
    page.money_fields["billing.idle_release_minutes"].setValue(45)
    page.money_fields["billing.warn_fraction"].setValue(90)
    combo = page.money_fields["billing.on_budget_exhausted"]
    combo.setCurrentIndex(combo.findData("warn"))
    page.money_save.click()
    qtbot.waitUntil(lambda: not page.busy and "Saved" in page.money_note.text(), timeout=10_000)
    config = load_config(paths.config_file)
    assert config.billing.default_budget == 500 and config.billing.idle_release_minutes == 45
    assert config.billing.warn_fraction == pytest.approx(0.9)
    assert config.billing.on_budget_exhausted == "warn"

    before = paths.config_file.read_text()
    page.save_money({"billing.warn_fraction": 3.0, "billing.idle_release_minutes": 10})
    error = page.money_errors["billing.warn_fraction"]
    assert error.isVisible() and "at most 1.0" in error.text()
    assert "Nothing was saved" in page.money_note.text()
    assert paths.config_file.read_text() == before  # all or nothing

    page.save_setting("gui.theme", "purple", page.look_note)
    qtbot.waitUntil(lambda: not page.busy, timeout=10_000)
    assert "Not saved: gui.theme must be one of system, light, dark" in page.look_note.text()
    assert paths.config_file.read_text() == before


def test_remembered_allowances_are_listed_and_revoked(
    qtbot: QtBot, engine: Engine, history_store: Store, worker: Worker
) -> None:
    from xyclaw.agent.runtime import AgentRuntime
    from xyclaw.store import conversations as conv

    runtime = AgentRuntime(engine, store=history_store, paths=engine.paths, config=engine.config)
    try:
        cid = conv.create_conversation(history_store, "tune the cluster", brain="rules")
        conv.add_allowance(history_store, cid, "llama-ft", "exec")
        page = _page(qtbot, engine, worker, runtime=lambda: runtime)
        page.tabs.setCurrentIndex(3)
        qtbot.waitUntil(lambda: page.allow_table.rowCount() == 1, timeout=10_000)
        assert page.allow_table.item(0, 0).text() == "tune the cluster"
        assert page.allow_table.item(0, 1).text() == "llama-ft"
        page.allow_table.selectRow(0)
        page.revoke.click()
        qtbot.waitUntil(lambda: page.allow_table.rowCount() == 0 and not page.busy, timeout=10_000)
        assert runtime.allowances() == []
        assert "None in force" in page.allow_status.text()
    finally:
        runtime.close()


def test_the_simulated_cloud_starts_and_stops_from_settings(
    qtbot: QtBot, engine: Engine, worker: Worker
) -> None:
    page = _page(qtbot, engine, worker)
    page.tabs.setCurrentIndex(2)
    assert "Not running" in page.sim_status.text() and page.sim_start.isEnabled()
    page.sim_delay.setValue(0)
    page.sim_start.click()
    qtbot.waitUntil(
        lambda: not page.busy and "Running at" in page.sim_status.text(), timeout=30_000
    )
    assert page.sim_stop.isEnabled() and not page.sim_start.isEnabled()
    page.sim_stop.click()
    qtbot.waitUntil(
        lambda: not page.busy and "Not running" in page.sim_status.text(), timeout=30_000
    )

    page.sim_save.click()
    qtbot.waitUntil(lambda: not page.busy and "Saved" in page.sim_note.text(), timeout=10_000)
    assert load_config(engine.paths.config_file).sim.provision_delay_s == 0


def test_data_shows_the_database_and_backs_it_up(
    qtbot: QtBot, engine: Engine, worker: Worker, tmp_path: Path
) -> None:
    page = _page(qtbot, engine, worker)
    page.tabs.setCurrentIndex(5)
    assert page.data_values["database"].text() == str(engine.paths.database)
    assert "MB" in page.data_values["size"].text()
    target = tmp_path / "backup" / "copy.db"
    page.backup_to(target)
    qtbot.waitUntil(lambda: not page.busy and "Backed up" in page.data_note.text(), timeout=10_000)
    import sqlite3

    with sqlite3.connect(target) as conn:
        assert (
            conn.execute("PRAGMA user_version").fetchone()[0] == engine.store_info().schema_version
        )
    page.backup_to(target)  # refuses to overwrite, says so
    qtbot.waitUntil(lambda: not page.busy and page.data_error.isVisible(), timeout=10_000)
    assert "already exists" in page.data_error.text()


def test_theme_and_language_switch_while_the_page_is_shown(
    qtbot: QtBot, engine: Engine, worker: Worker
) -> None:
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    page = _page(qtbot, engine, worker)
    try:
        page.tabs.setCurrentIndex(4)
        page.set_theme("dark")
        assert app.styleSheet() == themes.style_sheet("dark")
        qtbot.waitUntil(lambda: not page.busy, timeout=10_000)
        page.preset.setCurrentIndex(page.preset.findData("custom"))
        page.base_url.setText("http://127.0.0.1:9/v1")  # typed, not saved yet
        page.model.setEditText("typed-model")
        page.set_language("zh_CN")
        assert i18n.current() == "zh_CN"
        qtbot.waitUntil(lambda: page.title.text() == "设置", timeout=5_000)  # LanguageChange
        assert page.tabs.tabText(0) == "模型"
        # what was typed is still there: a language change re-words, it does not reload
        assert page.base_url.text() == "http://127.0.0.1:9/v1"
        assert page.model.currentText() == "typed-model"
        assert page.preset.currentData() == "custom"
        qtbot.waitUntil(lambda: not page.busy, timeout=10_000)
        config = load_config(engine.paths.config_file)
        assert (config.gui.theme, config.gui.language) == ("dark", "zh_CN")
        page.set_language("en")
        qtbot.waitUntil(lambda: page.title.text() == "Settings", timeout=5_000)
        page.set_theme("system")
        assert app.styleSheet() == themes.style_sheet(themes.resolve("system", app))
    finally:
        i18n.install("en")
        themes.apply_theme(app, "light")
        app.setStyleSheet("")
