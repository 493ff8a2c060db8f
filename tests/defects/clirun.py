"""Running ``xyclaw`` as a user would (in this process), and fingerprints of the data folder."""

from __future__ import annotations

import contextlib
import hashlib
import io
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from xyclaw.cli.main import main

_ERROR = re.compile(r"^xyclaw[a-z -]*: error: ", re.MULTILINE)


@dataclass(frozen=True)
class Outcome:
    code: int
    out: str
    err: str

    @property
    def text(self) -> str:
        return self.out + self.err


def xyclaw(*args: str, stdin: str | None = None) -> Outcome:
    """``xyclaw ARGS`` with stdin not a terminal (``stdin``: its text, else the test's own);
    whatever it raises fails the test."""
    out, err = io.StringIO(), io.StringIO()
    feed = contextlib.nullcontext() if stdin is None else _stdin(stdin)
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), feed:
        try:
            code = main(list(args))
        except SystemExit as exc:  # argparse's own usage errors
            code = exc.code if isinstance(exc.code, int) else 2
    return Outcome(code, out.getvalue(), err.getvalue())


@contextlib.contextmanager
def _stdin(text: str) -> Iterator[None]:
    saved = sys.stdin
    sys.stdin = io.StringIO(text)
    try:
        yield
    finally:
        sys.stdin = saved


def fingerprint(home: Path) -> dict[str, str]:
    """Every file under the app's home but the logs, with the hash of its bytes."""
    found: dict[str, str] = {}
    for path in sorted(home.rglob("*")):
        rel = path.relative_to(home)
        if path.is_file() and rel.parts[0] != "logs":
            found[str(rel)] = hashlib.sha256(path.read_bytes()).hexdigest()
    return found


def one_clear_message(outcome: Outcome) -> None:
    """Failed, said so in one message, and no Python traceback reached the user."""
    assert outcome.code != 0, outcome
    assert "Traceback" not in outcome.text, outcome.text
    said = _ERROR.findall(outcome.err)
    assert len(said) == 1, outcome.err  # one message (argparse's or XyClaw's), not a cascade
    assert "internal error" not in outcome.err, outcome.err
