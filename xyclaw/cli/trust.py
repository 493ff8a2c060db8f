"""Trusting a new SSH host key from the command line.

At a terminal the user is asked (host, key type, ``SHA256:`` fingerprint, y/N)
before XyClaw logs in; ``--trust-new-host`` accepts new keys in scripts (each
is still printed); with neither, the connection is refused with the exact
commands that accept the key. A changed key is never asked about: it is
refused by :class:`~xyclaw.remote.KnownHosts` whatever this says.

A keyboard-interactive login (a lab's 2FA: a one-time code after the key) is asked the
same way, by :meth:`TerminalTrust.answer_prompts`: the server's questions, shown as the
remote's text, answered at the terminal (hidden unless the server asks to echo). The answers
go to the SSH server only: never kept, logged or printed. Not at a terminal, nobody is asked
and the login is refused with what to do.
"""

from __future__ import annotations

import select
import shlex
import sys
import threading
from collections.abc import Callable, Sequence
from typing import IO

from xyclaw.errors import UnknownHostKeyError, XyclawError
from xyclaw.wording import Said, said, text_in

#: Set when the user pressed Ctrl-C: a question still open is answered "no".
INTERRUPTED = threading.Event()
_ASKING = threading.Lock()  # one question on the terminal at a time


def destination_of(shown: str) -> str:
    """``alias ([host]:port)`` as the known-hosts check shows it -> ``alias``."""
    return shown.split(" (", 1)[0]


def entry_of(shown: str) -> str:
    """``alias ([host]:port)`` -> ``[host]:port``; a bare entry name is itself."""
    head, sep, rest = shown.partition(" (")
    return rest.rstrip(")") if sep else head


def trust_commands(shown: str, fingerprint: str, argv: Sequence[str] | None) -> str:
    """What to run to accept the key: pinned to its fingerprint, or the same command again."""
    return str(_trust_commands(shown, fingerprint, argv))


def _trust_commands(shown: str, fingerprint: str, argv: Sequence[str] | None) -> Said | str:
    pinned = f"xyclaw hosts trust {shlex.quote(destination_of(shown))} --fingerprint {fingerprint}"
    if not argv:
        return pinned
    again = shlex.join(["xyclaw", "--trust-new-host", *argv])
    return said("cli.trust.or_again", pinned=pinned, again=again)


class TerminalTrust:
    """The ``trust_new_host`` callback of the command line's SSH connections."""

    def __init__(
        self,
        *,
        accept_new: bool,
        argv: Sequence[str] | None = None,
        stdin: IO[str] | None = None,
        err: IO[str] | None = None,
        name_of: Callable[[str], str | None] | None = None,
        language: str = "en",
    ) -> None:
        self.accept_new = accept_new
        self.language = language  # of the questions and lines, as the [gui] language says
        self._name_of = name_of  # a known-hosts entry ([host]:port) -> its hosts.toml name
        self.argv = list(argv) if argv is not None else None
        self._stdin = stdin
        self._err = err
        self._decided: dict[tuple[str, str], bool] = {}

    @property
    def stdin(self) -> IO[str]:
        return self._stdin or sys.stdin

    @property
    def err(self) -> IO[str]:
        return self._err or sys.stderr

    def _text(self, key: str, /, **values: object) -> str:
        return text_in(self.language, f"cli.trust.{key}", **values)

    def _label(self, shown: str) -> str:
        """What the user calls the host (its hosts.toml name) with the key's entry name."""
        try:
            name = self._name_of(entry_of(shown)) if self._name_of else None
        except (XyclawError, OSError):  # a broken hosts.toml must not hide the question
            name = None
        if name is None or name == destination_of(shown):
            return shown
        return f"{name} ({entry_of(shown)})"

    def __call__(self, host: str, key_type: str, fingerprint: str) -> bool:
        host = self._label(host)
        with _ASKING:
            known = self._decided.get((host, fingerprint))
            if known is not None:
                return known
            if self.accept_new:
                print(
                    self._text("trusting", host=host, key_type=key_type, fingerprint=fingerprint),
                    file=self.err,
                    flush=True,
                )
                answer = True
            elif not _is_terminal(self.stdin):
                raise UnknownHostKeyError(
                    said(
                        "cli.trust.unknown_key",
                        host=host,
                        key_type=key_type,
                        fingerprint=fingerprint,
                    ),
                    host=destination_of(host),
                    hint=said(
                        "cli.trust.unknown_key_hint",
                        commands=_trust_commands(host, fingerprint, self.argv),
                    ),
                )
            else:
                answer = self._ask(host, key_type, fingerprint)
            self._decided[(host, fingerprint)] = answer
            return answer

    def _ask(self, host: str, key_type: str, fingerprint: str) -> bool:
        from xyclaw.cli.progress import paused

        with paused():
            print(
                self._text("ask", host=host, key_type=key_type, fingerprint=fingerprint),
                file=self.err,
                flush=True,
            )
            print(self._text("question"), end="", file=self.err, flush=True)
            line = _read_line(self.stdin)
        return line.strip().lower() in ("y", "yes")

    def answer_prompts(
        self, host: str, title: str, instructions: str, prompts: list[tuple[str, bool]]
    ) -> list[str] | None:
        """The ``answer_prompts`` callback: a login's questions (2FA) asked at the terminal;
        None (declined) when not at one or on end of input. Nothing of the answers is kept."""
        from xyclaw.wording import display

        host = self._label(host)
        with _ASKING:
            if not _is_terminal(self.stdin):
                print(self._text("login_refused", host=host), file=self.err, flush=True)
                return None
            from xyclaw.cli.progress import paused

            answers: list[str] = []
            with paused():
                print(self._text("login", host=host), file=self.err, flush=True)
                for said in (title, instructions):
                    if said.strip():
                        print("  " + display.text(said.strip()), file=self.err, flush=True)
                for prompt, echo in prompts:
                    shown = display.line(prompt.strip()) or self._text("answer")
                    print(f"  {shown} ", end="", file=self.err, flush=True)
                    answer = _read_line(self.stdin) if echo else _read_hidden(self.stdin)
                    if not echo:
                        print(file=self.err, flush=True)  # the Enter the user typed
                    if not answer:  # end of input or Ctrl-C: declined
                        return None
                    answers.append(answer.rstrip("\r\n"))
            return answers


def _read_hidden(stream: IO[str]) -> str:
    """A line typed without echo (a one-time code); "" on end of input or Ctrl-C."""
    import termios

    try:
        fd = stream.fileno()
        old = termios.tcgetattr(fd)
    except (OSError, ValueError, AttributeError, termios.error):
        return _read_line(stream)
    new = termios.tcgetattr(fd)
    new[3] &= ~termios.ECHO
    try:
        termios.tcsetattr(fd, termios.TCSADRAIN, new)
        line = _read_line(stream)
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, old)
    return line


def _is_terminal(stream: IO[str]) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def _read_line(stream: IO[str]) -> str:
    """A line from the terminal; "" (no) on end of input or once Ctrl-C was pressed."""
    while not INTERRUPTED.is_set():
        try:
            ready, _, _ = select.select([stream], [], [], 0.5)
        except (OSError, ValueError, TypeError):  # not selectable: just read
            return stream.readline()
        if ready:
            return stream.readline()
    return ""
