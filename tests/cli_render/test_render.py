"""The command line's look: rich on a terminal, today's plain lines everywhere else.

A terminal here is a real pseudo-terminal (``pty.openpty``); "everywhere else"
is a pipe or a file. The plain lines are compared character for character with
what the commands printed before rich came in, since scripts read them.
"""

from __future__ import annotations

import io
import os
import pty
import re
import select
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import pytest

from xyclaw.catalog import Catalog
from xyclaw.cli.commands.telemetry import render as plain_top
from xyclaw.cli.progress import _PlainProgress, _RichProgress, node_steps
from xyclaw.cli.render import Column, plain_table, print_plan, print_table, print_top, use_rich
from xyclaw.events import OperationProgress
from xyclaw.planner import PlanRequest, plan
from xyclaw.planner.report import render as plain_plan

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")

CLUSTER_COLUMNS = [
    Column("id", 4, right=True),
    Column("name", 26),
    Column("state", 13),
    Column("gpus", 12),
    Column("fabric", 11),
    Column("cost so far", 13, right=True),
]
CLUSTER_ROWS = [
    ("3", "sim-a800-16-xiamen", "ready", "16xA800", "ib-hdr-200", "¥ 412.80"),
    ("4", "sim-4090-8", "failed", "8xRTX4090", "eth-25", "¥ 0.35"),
]


class Terminal:
    """A pseudo-terminal: write to ``tty`` as a program would, read what it drew."""

    def __init__(self) -> None:
        self._master, slave = pty.openpty()
        self.tty: IO[str] = os.fdopen(slave, "w", encoding="utf-8")

    def screen(self) -> str:
        self.tty.flush()
        chunks = []
        while select.select([self._master], [], [], 0.2)[0]:
            data = os.read(self._master, 65536)
            if not data:
                break
            chunks.append(data)
        return b"".join(chunks).decode("utf-8", "replace")

    def close(self) -> None:
        self.tty.close()
        os.close(self._master)


@pytest.fixture
def terminal(monkeypatch: pytest.MonkeyPatch) -> Iterator[Terminal]:
    # rich sizes itself from the standard streams, which are pipes under pytest.
    monkeypatch.setenv("COLUMNS", "140")
    monkeypatch.setenv("LINES", "50")
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm-256color")
    term = Terminal()
    yield term
    term.close()


def test_plain_table_is_the_old_fixed_width_lines() -> None:
    out = io.StringIO()
    print_table(out, CLUSTER_COLUMNS, CLUSTER_ROWS)
    lines = out.getvalue().splitlines()
    # Exactly the f-strings `xyclaw clusters` printed before (header then rows).
    assert lines[0] == (
        f"{'id':>4} {'name':<26} {'state':<13} {'gpus':<12} {'fabric':<11} {'cost so far':>13}"
    )
    assert lines[1] == (
        f"{'3':>4} {'sim-a800-16-xiamen':<26} {'ready':<13} {'16xA800':<12} {'ib-hdr-200':<11} "
        f"{'¥ 412.80':>13}"
    )
    assert len(lines) == 3
    assert not ANSI.search(out.getvalue())


def test_terminal_table_is_drawn_with_rich_and_coloured_states(terminal: Terminal) -> None:
    assert use_rich(terminal.tty)
    print_table(terminal.tty, CLUSTER_COLUMNS, CLUSTER_ROWS, title="Clusters")
    screen = terminal.screen()
    text = ANSI.sub("", screen)
    assert "─" in text  # the rule under the header
    assert "Clusters" in text
    # "ready" green (32), "failed" bold red (1;31).
    assert "\x1b[32mready" in screen
    assert "\x1b[1;31mfailed" in screen
    plain = plain_table(CLUSTER_COLUMNS, CLUSTER_ROWS)
    assert plain[1] not in text  # not the plain layout
    for name in ("sim-a800-16-xiamen", "sim-4090-8", "¥ 412.80"):
        assert name in text


def test_markup_in_data_is_printed_not_interpreted(terminal: Terminal) -> None:
    print_table(terminal.tty, [Column("name", 10)], [("[bold]x[/] y",)])
    assert "[bold]x[/] y" in ANSI.sub("", terminal.screen())


@pytest.mark.parametrize("env", [{"XYCLAW_PLAIN": "1"}, {"TERM": "dumb"}])
def test_plain_lines_on_a_terminal_when_asked(
    terminal: Terminal, monkeypatch: pytest.MonkeyPatch, env: dict[str, str]
) -> None:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert not use_rich(terminal.tty)
    print_table(terminal.tty, CLUSTER_COLUMNS, CLUSTER_ROWS)
    screen = terminal.screen().replace("\r\n", "\n")
    assert screen.splitlines() == plain_table(CLUSTER_COLUMNS, CLUSTER_ROWS)


def test_a_closed_or_odd_stream_is_not_a_terminal(tmp_path: Path) -> None:
    with open(tmp_path / "out.txt", "w", encoding="utf-8") as f:
        assert not use_rich(f)
    closed = io.StringIO()
    closed.close()
    assert not use_rich(closed)


def _plan() -> Any:
    request = PlanRequest.parse(task="finetune-lora", model_size="13B", gpus="8")
    return plan(request, Catalog.builtin())


def test_plan_plain_is_the_planner_report() -> None:
    result = _plan()
    out = io.StringIO()
    print_plan(out, result, limit=3)
    assert out.getvalue().splitlines() == plain_plan(result, limit=3)


def test_plan_on_a_terminal_is_a_table_with_the_reasons(terminal: Terminal) -> None:
    result = _plan()
    print_plan(terminal.tty, result, limit=3)
    text = ANSI.sub("", terminal.screen())
    assert text.count("why:") == 3
    assert "provider/region" in text and "─" in text
    first = result.options[0]
    assert first.gpu in text
    assert first.reasons[0][1][:30] in text.replace("\r\n", " ").replace("  ", " ")


def test_plan_that_fits_nothing_lists_the_rejects_on_a_terminal(terminal: Terminal) -> None:
    request = PlanRequest.parse(task="pretrain", model_size="70B", gpus="8", budget="10")
    result = plan(request, Catalog.builtin())
    assert not result.options and result.rejected
    print_plan(terminal.tty, result, limit=2)
    text = ANSI.sub("", terminal.screen())
    assert text.count("rejected:") == 2
    out = io.StringIO()
    print_plan(out, result, limit=2)
    assert out.getvalue().splitlines() == plain_plan(result, limit=2)


def _snapshot() -> dict[str, Any]:
    def gpu(node: str, index: int, util: int | None, temp: int) -> dict[str, Any]:
        return {
            "node": node,
            "gpu": index,
            "util": util,
            "mem_used_mib": 61440,
            "mem_total_mib": 81920,
            "temp_c": temp,
            "power_w": 310.0,
            "power_limit_w": 400,
            "sm_mhz": 1410,
            "throttle": 0,
        }

    return {
        "cluster": "sim-a800-16",
        "id": 3,
        "ts": 1_700_000_000.0,
        "nodes": [
            {"node": "sim-a800-16-0", "state": "up", "error": None},
            {"node": "sim-a800-16-1", "state": "down", "error": "SSH timed out"},
        ],
        "gpus": [gpu("sim-a800-16-0", 0, 97, 71), gpu("sim-a800-16-0", 1, 3, 90)],
        "alerts": [
            {
                "severity": "warning",
                "message": "sim-a800-16-0 GPU 1 idle for 10 min",
                "action": "release it or check the job",
            }
        ],
    }


def test_top_plain_is_the_old_view() -> None:
    snap = _snapshot()
    out = io.StringIO()
    print_top(out, snap, plain_top)
    assert out.getvalue() == plain_top(snap) + "\n"
    assert "DOWN: SSH timed out" in out.getvalue()


def test_top_on_a_terminal_shows_gpus_bars_and_alerts(terminal: Terminal) -> None:
    print_top(terminal.tty, _snapshot(), plain_top)
    screen = terminal.screen()
    text = ANSI.sub("", screen)
    assert "sim-a800-16-0" in text and "97%" in text and "3%" in text
    assert "DOWN" in text and "SSH timed out" in text
    assert "█" in text  # the utilization bar
    assert "[warning] sim-a800-16-0 GPU 1 idle for 10 min" in text
    assert "-> release it or check the job" in text
    assert re.search(r"\x1b\[31m *90C", screen)  # a hot GPU in red
    assert re.search(r"\x1b\[31m *3%", screen)  # an idle rented GPU in red
    assert re.search(r"\x1b\[32m *97%", screen)  # a busy one in green


def _events() -> list[OperationProgress]:
    def ev(message: str, fraction: float | None = None, **kw: Any) -> OperationProgress:
        return OperationProgress(
            operation_id=1, title="up", state="running", fraction=fraction, message=message, **kw
        )

    return [
        ev("provisioning: 0/2 nodes running", 0.05),
        ev("n-0: running", step="provision", subject="n-0"),
        ev("n-0: SSH answers", step="ssh", subject="n-0"),
        ev("n-0: driver ok (535.104)", step="driver", subject="n-0"),
        ev("n-1: pending", step="provision", subject="n-1"),
        ev("n-1: pending", step="provision", subject="n-1"),
        ev("all nodes answer SSH", 0.6),
    ]


def test_progress_plain_prints_each_new_message_once() -> None:
    out = io.StringIO()
    view = _PlainProgress(out)
    for event in _events():
        view.show(event)
    view.close()
    lines = out.getvalue().splitlines()
    assert lines[0] == "[  5%] provisioning: 0/2 nodes running"
    assert lines[1] == "       n-0: running"
    assert lines.count("       n-1: pending") == 1  # a repeat is noise
    assert lines[-1] == "[ 60%] all nodes answer SSH"


def test_progress_on_a_terminal_has_a_bar_per_node_counting_steps(terminal: Terminal) -> None:
    total = len(node_steps())
    view = _RichProgress(terminal.tty)
    for event in _events():
        view.show(event)
    view.close()
    text = ANSI.sub("", terminal.screen())
    assert "60%" in text and "all nodes answer SSH" in text
    # n-0 is through provision, ssh and driver; n-1 is still being provisioned.
    assert re.search(rf"n-0 .*3/{total} +driver ok \(535\.104\)", text)
    assert re.search(rf"n-1 .*0/{total} +provision: pending", text)
