"""Keyboard-interactive logins (a lab's 2FA) against a real OpenSSH server with PAM: the key
first, then a one-time code the user types. The code is asked through the face's prompt,
once per connection, and goes nowhere but to the server."""

from __future__ import annotations

import logging
import os
import pty
import select
import termios
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.remote.helpers import Keys, spec_for, trust
from tests.remote.otp_sshd import OtpSshd, otp_unavailable
from xyclaw.cli.trust import TerminalTrust
from xyclaw.errors import AuthenticationError
from xyclaw.remote import KnownHosts, SshPool

pytestmark = pytest.mark.sshd

Asked = list[tuple[str, str, str, list[tuple[str, bool]]]]


@pytest.fixture
def otp_sshd(tmp_path: Path, keys: Keys) -> Iterator[OtpSshd]:
    why = otp_unavailable()
    if why:
        pytest.skip(why)
    server = OtpSshd(tmp_path / "otp-sshd", [keys.client])
    server.start()
    yield server
    server.stop()


def answering(code: str | None, asked: Asked) -> Callable[..., list[str] | None]:
    def answer(
        host: str, title: str, instructions: str, prompts: list[tuple[str, bool]]
    ) -> list[str] | None:
        asked.append((host, title, instructions, prompts))
        return None if code is None else [code for _ in prompts]

    return answer


def test_the_code_is_asked_once_and_one_connection_carries_every_command(
    otp_sshd: OtpSshd,
    keys: Keys,
    known: KnownHosts,
    make_pool: Callable[..., SshPool],
    caplog: pytest.LogCaptureFixture,
) -> None:
    trust(known, otp_sshd)
    otp_sshd.add_code("481516")
    otp_sshd.add_code("234200")
    asked: Asked = []
    pool = make_pool(answer_prompts=answering("481516", asked))
    spec = spec_for(otp_sshd, keys.client_path)
    caplog.set_level(logging.DEBUG)

    first = pool.run(spec, "echo $SSH_CONNECTION")
    for _ in range(3):  # sinfo, squeue, sbatch: the same connection, no new question
        assert pool.run(spec, "echo $SSH_CONNECTION").stdout == first.stdout

    assert len(asked) == 1
    host, _title, _instructions, prompts = asked[0]
    assert str(otp_sshd.port) in host
    assert [echo for _prompt, echo in prompts] == [False]  # typed hidden
    assert otp_sshd.unused_codes() == ["234200"]  # the server took the code, once
    assert "481516" not in caplog.text


def test_a_wrong_code_is_refused_and_the_message_never_holds_it(
    otp_sshd: OtpSshd, keys: Keys, known: KnownHosts, make_pool: Callable[..., SshPool]
) -> None:
    trust(known, otp_sshd)
    otp_sshd.add_code("481516")
    asked: Asked = []
    pool = make_pool(answer_prompts=answering("999999", asked), connect_attempts=1)

    with pytest.raises(AuthenticationError) as refused:
        pool.run(spec_for(otp_sshd, keys.client_path), "true")

    said = f"{refused.value.message} {refused.value.hint}"
    assert "keyboard-interactive (the answers were refused)" in said
    assert "999999" not in said and "999999" not in str(refused.value)
    assert otp_sshd.unused_codes() == ["481516"]


def test_declined_or_unasked_logins_say_what_the_server_wanted(
    otp_sshd: OtpSshd, keys: Keys, known: KnownHosts, make_pool: Callable[..., SshPool]
) -> None:
    trust(known, otp_sshd)
    otp_sshd.add_code("481516")
    asked: Asked = []
    declined = make_pool(answer_prompts=answering(None, asked), connect_attempts=1)
    with pytest.raises(AuthenticationError, match="questions were not answered"):
        declined.run(spec_for(otp_sshd, keys.client_path), "true")
    assert len(asked) == 1

    nobody = make_pool(connect_attempts=1)  # a face with no prompt (the MCP server)
    with pytest.raises(AuthenticationError, match="asks for keyboard-interactive too"):
        nobody.run(spec_for(otp_sshd, keys.client_path), "true")
    assert otp_sshd.unused_codes() == ["481516"]


def type_when_hidden(main: int, side: int, keys: bytes) -> None:
    """The user types once the question is on screen (the terminal's echo turned off)."""
    deadline = time.monotonic() + 10
    while termios.tcgetattr(side)[3] & termios.ECHO and time.monotonic() < deadline:
        time.sleep(0.01)
    os.write(main, keys)


def test_the_terminal_asks_for_the_code_hidden_and_never_prints_it(
    otp_sshd: OtpSshd,
    keys: Keys,
    known: KnownHosts,
    make_pool: Callable[..., SshPool],
    tmp_path: Path,
) -> None:
    trust(known, otp_sshd)
    otp_sshd.add_code("314159")
    main, side = pty.openpty()  # a real terminal: the question is asked there
    err_path = tmp_path / "err.txt"
    with os.fdopen(side, "r", closefd=True) as stdin, err_path.open("w") as err:
        typist = threading.Thread(target=type_when_hidden, args=(main, side, b"314159\n"))
        typist.start()
        terminal = TerminalTrust(accept_new=False, stdin=stdin, err=err)
        pool = make_pool(answer_prompts=terminal.answer_prompts)
        result = pool.run(spec_for(otp_sshd, keys.client_path), "echo in")
        typist.join(10)
        echoed = os.read(main, 4096) if select.select([main], [], [], 0.2)[0] else b""
    os.close(main)

    assert result.stdout == "in\n"
    shown = err_path.read_text()
    assert "asks you to log in" in shown and "Password:" in shown
    assert "314159" not in shown
    assert b"314159" not in echoed  # the terminal did not echo it back
    assert otp_sshd.unused_codes() == []


def test_not_at_a_terminal_nobody_is_asked_and_the_login_says_so(
    otp_sshd: OtpSshd,
    keys: Keys,
    known: KnownHosts,
    make_pool: Callable[..., SshPool],
    tmp_path: Path,
) -> None:
    trust(known, otp_sshd)
    otp_sshd.add_code("271828")
    err_path = tmp_path / "err.txt"
    with (tmp_path / "in.txt").open("w+") as stdin, err_path.open("w") as err:
        stdin.write("271828\n")
        stdin.seek(0)
        terminal = TerminalTrust(accept_new=False, stdin=stdin, err=err)
        pool = make_pool(answer_prompts=terminal.answer_prompts, connect_attempts=1)
        with pytest.raises(AuthenticationError, match="not answered"):
            pool.run(spec_for(otp_sshd, keys.client_path), "true")
    assert "not at a terminal, so nobody was asked" in err_path.read_text()
    assert otp_sshd.unused_codes() == ["271828"]
