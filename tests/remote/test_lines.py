"""Turning a byte stream into lines, and spotting the process-group line."""

from __future__ import annotations

from xyclaw.remote.procgroup import PgidSniffer, with_env
from xyclaw.remote.stream import _LineSplitter


def test_lines_split_across_chunks_keep_multibyte_characters() -> None:
    lines: list[str] = []
    splitter = _LineSplitter(lines.append)
    data = "步骤 1 loss=2.5\r\nstep 2\n".encode()
    for i in range(len(data)):
        splitter.feed(data[i : i + 1])
    splitter.feed(b"no newline")
    splitter.flush()
    assert lines == ["步骤 1 loss=2.5", "step 2", "no newline"]


def test_overlong_line_comes_in_pieces() -> None:
    lines: list[str] = []
    splitter = _LineSplitter(lines.append, limit=4)
    splitter.feed(b"abcdefghij\nk\n")
    splitter.flush()
    assert lines == ["abcd", "efgh", "ij", "k"]


def test_sniffer_takes_only_its_own_first_line() -> None:
    sniffer = PgidSniffer(active=True)
    assert sniffer.feed(b"XYCLAW-PG") == b""
    assert sniffer.feed(b"ID 4242\nreal error\n") == b"real error\n"
    assert sniffer.pgid == 4242
    assert sniffer.feed(b"XYCLAW-PGID 1\n") == b"XYCLAW-PGID 1\n"


def test_sniffer_passes_foreign_stderr_through() -> None:
    sniffer = PgidSniffer(active=True)
    assert sniffer.feed(b"bash: warning\nmore") == b"bash: warning\nmore"
    assert sniffer.pgid is None
    inactive = PgidSniffer(active=False)
    assert inactive.feed(b"XYCLAW-PGID 5\n") == b"XYCLAW-PGID 5\n"


def test_env_names_are_checked() -> None:
    import pytest

    from xyclaw.errors import UsageError

    assert with_env("cmd", {"A_1": "x y"}) == "export A_1='x y'; cmd"
    with pytest.raises(UsageError):
        with_env("cmd", {"1BAD": "x"})
