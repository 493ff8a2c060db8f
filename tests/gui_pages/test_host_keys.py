"""Host keys in the window against a real OpenSSH server: an unknown host is asked about on
the Clusters page (with its fingerprint) while the SSH thread waits; a changed key is refused
and the refusal shows both fingerprints."""

from __future__ import annotations

import subprocess
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from tests.gui_pages.conftest import MakeWindow, wait_for
from tests.remote.helpers import TEST_SETTINGS, Keys, spec_for
from tests.remote.sshd import Sshd, keygen
from xyclaw.engine import Engine
from xyclaw.errors import HostKeyChangedError, UnknownHostKeyError
from xyclaw.gui.clusters_page import ClustersPage
from xyclaw.gui.host_keys import HostKeyPrompter
from xyclaw.remote import KnownHosts, SshPool

pytestmark = [pytest.mark.gui, pytest.mark.sshd]


def ssh_keygen_fingerprint(pub: Path) -> str:
    out = subprocess.run(["ssh-keygen", "-lf", str(pub)], capture_output=True, text=True)
    return out.stdout.split()[1]


@pytest.fixture
def known(tmp_path: Path) -> KnownHosts:
    return KnownHosts(app_path=tmp_path / "app_known_hosts")


@pytest.fixture
def make_pool(tmp_path: Path, known: KnownHosts) -> Iterator[Callable[..., SshPool]]:
    pools: list[SshPool] = []

    def make(trust: Any) -> SshPool:
        pool = SshPool(
            TEST_SETTINGS,
            known,
            trust_new_host=trust,
            use_agent=False,
            default_identities=(),
            ssh_config_path=tmp_path / "ssh_config",
            connect_attempts=1,
        )
        pools.append(pool)
        return pool

    yield make
    for pool in pools:
        pool.close()


def in_thread(work: Callable[[], Any]) -> tuple[threading.Thread, dict[str, Any]]:
    """Run ``work`` as the pool's callers do: on a thread that is not Qt's."""
    out: dict[str, Any] = {}

    def run() -> None:
        try:
            out["result"] = work()
        except Exception as exc:
            out["error"] = exc

    thread = threading.Thread(target=run)
    thread.start()
    return thread, out


def clusters_page(make_window: MakeWindow, engine: Engine) -> ClustersPage:
    ctl = make_window(engine)
    ctl.show_page("clusters")
    page = ctl.page_widgets["clusters"]
    assert isinstance(page, ClustersPage) and page.prompter.attached
    return page


def test_unknown_host_is_asked_about_with_its_fingerprint_and_trust_records_it(
    qtbot: QtBot,
    make_window: MakeWindow,
    local_engine: Engine,
    sshd: Sshd,
    keys: Keys,
    known: KnownHosts,
    make_pool: Callable[..., SshPool],
) -> None:
    page = clusters_page(make_window, local_engine)
    expected = ssh_keygen_fingerprint(sshd.host_key_path.with_suffix(".pub"))
    pool = make_pool(page.prompter)
    spec = spec_for(sshd, keys.client_path, "gpu1")
    thread, _out = in_thread(lambda: pool.run(spec, "echo ok", timeout=5))

    wait_for(qtbot, lambda: page.prompter.pending(), timeout=15000)
    [question] = page.prompter.pending()
    assert question.dialog.isVisible()
    assert question.values["Fingerprint"].text() == expected
    assert question.values["Key type"].text() == "ssh-ed25519"
    assert "gpu1" in question.values["Host"].text()
    assert thread.is_alive()  # the SSH thread waits for the answer, the window does not
    qtbot.mouseClick(question.trust_button, Qt.MouseButton.LeftButton)
    # Trusted: the key is recorded in XyClaw's own file and the connection goes on.
    line = f"[127.0.0.1]:{sshd.port} ssh-ed25519 {sshd.host_key.get_base64()}"

    def recorded() -> list[str]:  # the file is created a moment before its line is written
        return known.app_path.read_text().splitlines() if known.app_path.exists() else []

    wait_for(qtbot, lambda: recorded() == [line], timeout=15000)
    assert not question.dialog.isVisible() and page.prompter.pending() == []
    assert known.lookup("127.0.0.1", sshd.port)  # a new connection asks nothing
    thread.join(20)  # the command itself (its outcome is the SSH layer's tests' business)


def test_refusing_an_unknown_host_or_having_no_window_connects_nowhere(
    qtbot: QtBot,
    make_window: MakeWindow,
    local_engine: Engine,
    sshd: Sshd,
    keys: Keys,
    known: KnownHosts,
    make_pool: Callable[..., SshPool],
) -> None:
    # No window to ask in: refused at once.
    thread, out = in_thread(
        lambda: make_pool(HostKeyPrompter()).run(spec_for(sshd, keys.client_path), "true")
    )
    thread.join(15)
    assert isinstance(out.get("error"), UnknownHostKeyError)

    page = clusters_page(make_window, local_engine)
    thread, out = in_thread(
        lambda: make_pool(page.prompter).run(spec_for(sshd, keys.client_path), "true")
    )
    wait_for(qtbot, lambda: page.prompter.pending(), timeout=15000)
    [question] = page.prompter.pending()
    qtbot.mouseClick(question.refuse_button, Qt.MouseButton.LeftButton)
    thread.join(15)
    assert isinstance(out.get("error"), UnknownHostKeyError)
    assert not known.app_path.exists()


def test_a_changed_host_key_is_refused_and_both_fingerprints_are_shown(
    qtbot: QtBot,
    make_window: MakeWindow,
    local_engine: Engine,
    sshd: Sshd,
    keys: Keys,
    known: KnownHosts,
    make_pool: Callable[..., SshPool],
    tmp_path: Path,
) -> None:
    old_key = keygen(tmp_path / "old_host_key")
    known.add("127.0.0.1", sshd.port, old_key)  # what was on record before the change
    on_record = ssh_keygen_fingerprint(tmp_path / "old_host_key.pub")
    presented = ssh_keygen_fingerprint(sshd.host_key_path.with_suffix(".pub"))
    page = clusters_page(make_window, local_engine)
    pool = make_pool(page.prompter)
    worker = page.worker
    errors: list[Any] = []
    worker.submit(
        lambda: pool.run(spec_for(sshd, keys.client_path, "gpu1"), "true"),
        on_error=lambda e: (errors.append(e), page.show_error(e)),
    )
    wait_for(qtbot, lambda: page.refusals, timeout=15000)
    assert page.prompter.pending() == []  # a changed key is never a question
    [refusal] = page.refusals
    assert refusal.dialog.isVisible() and not refusal.trust_button.isVisible()
    assert "CHANGED" in refusal.headline.text() and "gpu1" in refusal.headline.text()
    assert refusal.values["On record"].text() == on_record
    assert refusal.values["Presented now"].text() == presented
    assert "ssh-keygen -R" in refusal.explanation.text()
    assert "has CHANGED" in page.error.text()
    assert "HostKeyChangedError" not in page.error.text()
    with pytest.raises(HostKeyChangedError):
        pool.run(spec_for(sshd, keys.client_path, "gpu1"), "true")


def test_a_2fa_login_is_asked_in_the_window_hidden_and_the_code_is_not_kept(
    qtbot: QtBot,
    make_window: MakeWindow,
    local_engine: Engine,
    tmp_path: Path,
    keys: Keys,
    known: KnownHosts,
) -> None:
    from PySide6.QtWidgets import QDialogButtonBox, QLineEdit

    from tests.remote.otp_sshd import OtpSshd, otp_unavailable

    why = otp_unavailable()
    if why:
        pytest.skip(why)
    server = OtpSshd(tmp_path / "otp", [keys.client]).start()
    assert isinstance(server, OtpSshd)
    try:
        server.add_code("662607")
        known.add("127.0.0.1", server.port, server.host_key, persist=False)
        page = clusters_page(make_window, local_engine)
        prompter = page.prompter
        pool = SshPool(
            TEST_SETTINGS,
            known,
            trust_new_host=prompter,
            answer_prompts=prompter.answer_prompts,
            use_agent=False,
            default_identities=(),
            ssh_config_path=tmp_path / "ssh_config",
            connect_attempts=1,
        )
        spec = spec_for(server, keys.client_path, "login")
        thread, out = in_thread(lambda: [pool.run(spec, "echo one"), pool.run(spec, "echo two")])

        wait_for(qtbot, prompter.pending_logins, timeout=15000)
        [login] = prompter.pending_logins()
        assert login.dialog.isVisible() and thread.is_alive()
        [field] = login.fields
        assert field.echoMode() == QLineEdit.EchoMode.Password
        qtbot.keyClicks(field, "662607")
        ok = login.buttons.button(QDialogButtonBox.StandardButton.Ok)
        qtbot.mouseClick(ok, Qt.MouseButton.LeftButton)
        thread.join(20)

        assert [r.stdout for r in out["result"]] == ["one\n", "two\n"]  # one login, asked once
        assert field.text() == "" and prompter.pending_logins() == []
        assert server.unused_codes() == []
        pool.close()
    finally:
        server.stop()
