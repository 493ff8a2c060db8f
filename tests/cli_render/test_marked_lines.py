"""The terminal's approval card: every line behind the mark, a long value whole (issue 25)."""

from __future__ import annotations

import io

from xyclaw.cli.render import CONTINUED, marked_lines
from xyclaw.wording.display import CARD_MARK


def test_a_long_command_is_wrapped_whole_each_piece_behind_the_mark() -> None:
    command = "   command: " + "rm -rf /workspace/" * 12 + "; 命令 nvidia-smi -L"
    lines = marked_lines(["== Approval needed (exec)", command], width=40)
    assert lines[0] == f"{CARD_MARK} == Approval needed (exec)"
    assert all(line.startswith(CARD_MARK) for line in lines)
    assert all(sum(2 if "\u4e00" <= ch <= "\u9fff" else 1 for ch in line) <= 38 for line in lines)
    first, rest = lines[1], lines[2:]
    assert len(rest) > 3 and all(line.startswith(CARD_MARK + CONTINUED) for line in rest)
    joined = first[len(CARD_MARK) + 1 :] + "".join(r[len(CARD_MARK + CONTINUED) :] for r in rest)
    assert joined == command  # nothing cut, nothing added


def test_in_a_pipe_the_lines_are_plain_and_unwrapped() -> None:
    out = io.StringIO()
    long = "x" * 500
    assert marked_lines([long], out) == [f"{CARD_MARK} {long}"]


def test_remote_output_is_drawn_safely_on_a_terminal_and_kept_as_is_in_a_pipe() -> None:
    import os
    import pty

    from xyclaw.cli.render import remote_text

    line = "loss 0.5\x1b[2K\rstep 9 \x1b]0;owned\x07"
    assert remote_text(io.StringIO(), line) == line  # `xyclaw logs > file` keeps the bytes
    leader, follower = pty.openpty()
    try:
        with os.fdopen(follower, "w", closefd=False) as terminal:
            assert remote_text(terminal, line) == "loss 0.5␛[2K\nstep 9 ␛]0;owned␇"
    finally:
        os.close(leader)
        os.close(follower)
