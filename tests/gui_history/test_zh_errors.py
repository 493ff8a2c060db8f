"""Errors in a Chinese window, through the real window and real parts: a broken job spec
from Launch… (shown at its line, in Chinese), the Settings "Test" against a dead port and
against a local OpenAI-compatible server with a wrong key, a host "Test" against a dead
port, a refused setting, a backup onto an existing file and the Back up file dialog. None
of them leaves English in the window (the data excepted: file names, the spec's own text,
addresses, ports); switched back to English, each says it in English again.

``ZH_ERROR_SHOTS=folder`` saves the spec error dialog and the Settings page as PNGs."""

from __future__ import annotations

import os
import socket
import threading
from collections.abc import Iterator
from http.server import ThreadingHTTPServer
from pathlib import Path

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QFileDialog, QWidget
from pytestqt.qtbot import QtBot

from tests.gui_history.test_settings_page import _Models
from tests.support.zh_words import (
    WORD,
    assert_no_english,
    catalogue_words,
    english_words,
    visible_texts,
)
from xyclaw.config import load_config
from xyclaw.engine import Engine
from xyclaw.engine.compose import build_engine
from xyclaw.gui import i18n
from xyclaw.gui.jobs_page import JobsPage
from xyclaw.gui.main_window import MainWindowController
from xyclaw.gui.settings_page import SettingsPage
from xyclaw.paths import AppPaths
from xyclaw.providers import ProviderRegistry

pytestmark = pytest.mark.gui

BROKEN = """name: broken-run
run: python train.py
resources:
  gpu: A800:8
  nodes: two
"""


@pytest.fixture
def engine(xyclaw_home: Path) -> Iterator[Engine]:
    paths = AppPaths.from_environment()
    eng = build_engine(paths, load_config(paths.config_file), providers=ProviderRegistry())
    yield eng
    eng.close()


@pytest.fixture
def window(engine: Engine, qtbot: QtBot) -> Iterator[MainWindowController]:
    ctl = MainWindowController(
        engine, None, tray_available=False, on_quit=lambda: None, status_refresh_ms=3_600_000
    )
    try:
        ctl.window.resize(1400, 900)
        ctl.window.show()
        qtbot.waitExposed(ctl.window)
        assert i18n.install("zh_CN") == "zh_CN"
        yield ctl
    finally:
        i18n.install("en")
        ctl.quit_now()
        qtbot.wait(20)


@pytest.fixture
def model_server() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Models)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


def _dead_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _shot(widget: QWidget, name: str) -> None:
    folder = os.environ.get("ZH_ERROR_SHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        assert widget.grab().save(str(Path(folder) / f"{name}.png"))


def test_in_chinese_a_broken_spec_from_launch_shows_its_error_at_its_line(
    window: MainWindowController, qtbot: QtBot, tmp_path: Path
) -> None:
    from xyclaw.gui.job_launch import LaunchDialog, SpecErrorDialog

    spec = tmp_path / "broken.yaml"
    spec.write_text(BROKEN, encoding="utf-8")
    window.show_page("jobs")
    jobs = window.page_widgets["jobs"]
    assert isinstance(jobs, JobsPage)
    jobs.launch_flow.from_file(spec)
    qtbot.waitUntil(
        lambda: (
            jobs.launch_flow.error_dialog is not None and jobs.launch_flow.error_dialog.isVisible()
        ),
        timeout=10_000,
    )
    dialog = jobs.launch_flow.error_dialog
    assert isinstance(dialog, SpecErrorDialog)
    assert dialog.marked_line == 5 and dialog.windowTitle() == "作业规格有错误"
    text = dialog.message.text()
    assert text.startswith(f"{spec} 第 5 行：resources.nodes：'two' 不是整数"), text
    assert "允许的值：1 到 1024 之间的整数" in text
    # the file's own text and the field names are data; the reader's sentences are not
    spec_words = set(WORD.findall(BROKEN)) | {"resources", "nodes"}
    assert_no_english(dialog, spec_words, "the spec error dialog")
    qtbot.waitUntil(jobs.error.isVisible, timeout=5_000)
    assert "第 5 行" in jobs.error.text()
    assert_no_english(jobs, spec_words, "the Jobs page with the spec's error")
    _shot(dialog, "spec-error-zh")

    i18n.install("en")
    qtbot.waitUntil(lambda: "is not a whole number" in dialog.message.text(), timeout=5_000)
    assert dialog.message.text() == (
        f"{spec}:5: resources.nodes: 'two' is not a whole number\n"
        "allowed: a whole number from 1 to 1024"
    )
    assert f"{spec}:5: resources.nodes: 'two' is not a whole number" in jobs.error.text()
    dialog.reject()

    # a spec that loads with a warning: the warning is worded too
    i18n.install("zh_CN")
    good = tmp_path / "fine.yaml"
    good.write_text("name: fine-run\nrun: python train.py\n", encoding="utf-8")
    jobs.launch_flow.from_file(good)
    qtbot.waitUntil(
        lambda: jobs.launch_flow.dialog is not None and jobs.launch_flow.dialog.isVisible(),
        timeout=10_000,
    )
    launch = jobs.launch_flow.dialog
    assert isinstance(launch, LaunchDialog)
    assert "没有 checkpoint_dir：重启后的尝试会从第 0 步重新开始" in launch.warnings.text()
    data = {"fine", "run", "python", "train", "py", "checkpoint_dir", "resources"}
    assert_no_english(launch, data, "the Launch dialog with a warning")
    i18n.install("en")
    qtbot.waitUntil(lambda: "no checkpoint_dir" in launch.warnings.text(), timeout=5_000)
    assert f"{good}:2: run: no checkpoint_dir: a restarted attempt" in launch.warnings.text()
    launch.reject()


def test_in_chinese_settings_tests_and_refusals_say_what_is_wrong_without_english(
    window: MainWindowController,
    engine: Engine,
    qtbot: QtBot,
    model_server: str,
    tmp_path: Path,
) -> None:
    dead_host = _dead_port()
    host_name = f"root@127.0.0.1:{dead_host}"
    (engine.paths.config_dir / "hosts.toml").write_text(
        f'[[host]]\nname = "{host_name}"\ngpu = "A800"\ngpus = 8\nfabric = "none"\n'
    )
    window.show_page("settings")
    page = window.page_widgets["settings"]
    assert isinstance(page, SettingsPage)
    qtbot.waitUntil(lambda: page._loaded and not page.busy, timeout=20_000)
    data = {"system", "en", "zh_CN", "custom", "root", "A800", "sk", "wrong"}

    # the model endpoint: a wrong key, then a dead port
    page.tabs.setCurrentIndex(0)
    page.preset.setCurrentIndex(page.preset.findData("custom"))
    page.base_url.setText(model_server)
    page.model.setEditText("qwen2.5-7b-instruct")
    data |= {"qwen2", "instruct"}
    page.api_key.setText("sk-wrong")
    page.llm_test.click()
    qtbot.waitUntil(lambda: not page.busy and page.llm_error.isVisible(), timeout=10_000)
    assert "401" in page.llm_error.text()
    assert_no_english(page, data, "Settings: a wrong key")
    _shot(page, "settings-test-wrong-key-zh")
    i18n.install("en")
    qtbot.waitUntil(
        lambda: "refused the API key (HTTP 401)" in page.llm_error.text(), timeout=5_000
    )
    i18n.install("zh_CN")
    qtbot.waitUntil(lambda: "refused the API key" not in page.llm_error.text(), timeout=5_000)

    # then a dead port, after the switches back and forth
    qtbot.waitUntil(lambda: not page.busy, timeout=10_000)
    page.preset.setCurrentIndex(page.preset.findData("custom"))
    dead = _dead_port()
    page.base_url.setText(f"http://127.0.0.1:{dead}/v1")
    page.llm_test.click()
    qtbot.waitUntil(
        lambda: not page.busy and f"127.0.0.1:{dead}" in page.llm_error.text(), timeout=10_000
    )
    assert_no_english(page, data, "Settings: a dead port")
    _shot(page, "settings-test-dead-port-zh")
    i18n.install("en")
    qtbot.waitUntil(
        lambda: f"Nothing answers at 127.0.0.1:{dead}" in page.llm_error.text(), timeout=5_000
    )
    i18n.install("zh_CN")
    qtbot.waitUntil(lambda: not page.busy and "Nothing" not in page.llm_error.text(), timeout=5_000)

    # a host of hosts.toml on a port where nothing listens
    page.tabs.setCurrentIndex(1)
    qtbot.waitUntil(lambda: page.hosts_table.rowCount() == 1, timeout=10_000)
    page.hosts_table.selectRow(0)
    page.host_test.click()
    qtbot.waitUntil(lambda: not page.busy and page.host_error.isVisible(), timeout=20_000)
    assert host_name in page.host_error.text()
    assert_no_english(page, data, "Settings: a host on a dead port")
    _shot(page, "settings-host-dead-port-zh")
    i18n.install("en")
    qtbot.waitUntil(
        lambda: f"Cannot connect to {host_name}" in page.host_error.text(), timeout=5_000
    )
    i18n.install("zh_CN")
    qtbot.waitUntil(lambda: not page.busy and "无法连接" in page.host_error.text(), timeout=5_000)

    # a value the config file's rules refuse
    page.tabs.setCurrentIndex(4)
    page.save_setting("gui.theme", "purple", page.look_note)
    qtbot.waitUntil(lambda: not page.busy and page.look_note.isVisible(), timeout=10_000)
    assert "gui.theme" in page.look_note.text()
    assert_no_english(page, data | {"gui", "theme", "light", "dark"}, "Settings: a bad value")
    page.tabs.setCurrentIndex(3)
    page.save_money({"billing.warn_fraction": 3.0})
    assert page.money_errors["billing.warn_fraction"].isVisible()
    assert_no_english(page, data | {"billing", "warn_fraction"}, "Settings: a bad amount")

    # a backup onto a file that is there already, and the Back up file dialog
    page.tabs.setCurrentIndex(5)
    target = tmp_path / "copy.db"
    target.write_bytes(b"")
    page.backup_to(target)
    qtbot.waitUntil(lambda: not page.busy and page.data_error.isVisible(), timeout=10_000)
    assert page.data_error.text().startswith(f"{target} 已经存在")
    assert_no_english(page, data, "Settings: a backup onto an existing file")
    seen: list[list[tuple[str, str, list[str]]]] = []

    def look() -> None:
        shown = [d for d in QApplication.topLevelWidgets() if isinstance(d, QFileDialog)]
        visible = [d for d in shown if d.isVisible()]
        if not visible:
            QTimer.singleShot(50, look)
            return
        files = visible[0]
        words = {"SQLite", "xyclaw", "backup", "db"} | set(WORD.findall(str(Path.home())))
        found = [
            (where, text, english_words(text, words))
            for where, text in visible_texts(files, strict_cells=True)
            if text and english_words(text, words)
        ]
        seen.append(found)
        files.reject()

    QTimer.singleShot(50, look)
    page.backup_dialog()
    assert seen == [[]], f"English left in the Back up dialog: {seen}"

    # config.toml itself holding a value its rules refuse: read again, and refused
    config_file = engine.paths.config_file
    config_file.write_text('[gui]\ntheme = "purple"\n')
    page.tabs.setCurrentIndex(0)
    page.reload()
    qtbot.waitUntil(lambda: not page.busy and "'purple'" in page.llm_error.text(), timeout=10_000)
    assert f"{config_file}：gui.theme = 'purple' 无效" in page.llm_error.text()
    data |= {"gui", "theme", "system", "light", "dark", "purple"}
    assert_no_english(page, data, "Settings: config.toml with a bad value")

    # back in English: each message that stays on screen is English again
    i18n.install("en")
    qtbot.waitUntil(lambda: page.title.text() == "Settings", timeout=5_000)
    assert page.llm_error.text() == (
        f"{config_file}: gui.theme = 'purple' is not valid\n"
        "gui.theme must be one of 'system', 'light', 'dark'"
    )
    assert "Not saved: gui.theme must be one of system, light, dark" in page.look_note.text()
    assert "at most 1.0" in page.money_errors["billing.warn_fraction"].text()
    assert page.data_error.text() == (
        f"{target} already exists\nchoose a new file name, or remove the old one"
    )


def test_in_chinese_the_rent_dialog_and_the_clusters_page_say_what_was_refused(
    window: MainWindowController, engine: Engine, qtbot: QtBot
) -> None:
    """A budget the form refuses, and a quote the engine refuses (a provider this XyClaw does
    not have): in the dialog, then on the page, worded again in English on a switch."""
    from xyclaw.gui.clusters_page import ClustersPage

    window.show_page("clusters")
    page = window.page_widgets["clusters"]
    assert isinstance(page, ClustersPage)
    page._show_rent_dialog(["sim"])
    qtbot.waitUntil(lambda: page.rent_dialog is not None, timeout=5_000)
    dialog = page.rent_dialog
    assert dialog is not None
    names = catalogue_words() | {"lots", "sim", "ssh", "llama", "none"}  # GPUs, places, fabrics
    dialog.budget.setText("lots")
    assert dialog.request() is None
    assert dialog.budget_error.text().startswith("'lots' 不是大于零的金额")
    assert_no_english(dialog.dialog, names, "the Rent dialog with a refused budget")

    dialog.budget.setText("")
    request = dialog.request()
    assert request is not None and request.provider == "sim"
    dialog.quote_button.click()
    qtbot.waitUntil(lambda: dialog.error.isVisibleTo(dialog.dialog), timeout=10_000)
    assert "未知的提供方 'sim'" in dialog.error.text()
    assert_no_english(dialog.dialog, names, "the Rent dialog with a refused quote")
    dialog.dialog.reject()

    # the same refusal with the dialog closed: the page's own error line
    assert page.rent_flow.start(lambda: engine.quote_request(request))
    qtbot.waitUntil(lambda: page.error.isVisible(), timeout=10_000)
    assert page.error.text().startswith("未知的提供方 'sim' — 已知的提供方：")
    i18n.install("en")
    qtbot.waitUntil(lambda: page.error.text().startswith("unknown provider 'sim'"), timeout=5_000)
    assert " — known providers: " in page.error.text()

    page._show_rent_dialog(["sim"])
    qtbot.waitUntil(lambda: page.rent_dialog is not dialog, timeout=5_000)
    again = page.rent_dialog
    assert again is not None
    again.budget.setText("lots")
    assert again.request() is None
    assert "'lots' is not an amount above zero" in again.budget_error.text()
    again.dialog.reject()


def test_in_chinese_a_broken_hosts_toml_is_refused_in_chinese(
    window: MainWindowController, engine: Engine, qtbot: QtBot
) -> None:
    hosts = engine.paths.config_dir / "hosts.toml"
    hosts.write_text('[[host]]\nname = "gpu1"\ngpu = "A800"\ngpus = "eight"\n')
    window.show_page("settings")
    page = window.page_widgets["settings"]
    assert isinstance(page, SettingsPage)
    page.tabs.setCurrentIndex(1)
    qtbot.waitUntil(lambda: page._loaded and not page.busy, timeout=20_000)
    qtbot.waitUntil(page.host_error.isVisible, timeout=10_000)
    assert page.host_error.text() == (
        f"{hosts}：[[host]] #1（gpu1）：gpus = 'eight' 无效\n"
        "gpus：这台主机的 GPU 数量：1 或更大的整数"
    )
    assert_no_english(page, {"gpu1", "gpus", "eight", "system", "en", "zh_CN"}, "hosts.toml")
    i18n.install("en")
    qtbot.waitUntil(lambda: "is not valid" in page.host_error.text(), timeout=5_000)
    assert page.host_error.text() == (
        f"{hosts}: [[host]] #1 (gpu1): gpus = 'eight' is not valid\n"
        "gpus: how many GPUs the host has: a whole number, 1 or more"
    )

    hosts.write_text('[[host]\nname = "gpu1"\n')  # a TOML syntax error
    i18n.install("zh_CN")
    page.load_hosts()
    qtbot.waitUntil(lambda: "不是有效的 TOML" in page.host_error.text(), timeout=10_000)
    assert "请修改上面指出的那一行，或删掉这个文件" in page.host_error.text()
