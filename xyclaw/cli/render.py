"""How the commands draw tables: with ``rich`` on a terminal, as plain lines otherwise.

One place decides. On a terminal the tables, the plan and the live ``top``
view are drawn the way SkyPilot's and dstack's CLIs draw theirs (aligned
columns, coloured states, bars); piped into a file or another program the
output is exactly the plain lines the commands always printed, so scripts that
read them keep working. ``--json`` never comes here. ``XYCLAW_PLAIN=1`` (or
``TERM=dumb``) asks for the plain lines on a terminal too; ``NO_COLOR`` keeps
the layout and drops the colours.

``rich`` is imported only when something is drawn with it, so ``xyclaw
--help`` does not pay for it.
"""

from __future__ import annotations

import functools
import os
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import IO, TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console, RenderableType

    from xyclaw.engine.reports import Standing, TrackRecord
    from xyclaw.engine.values import PlanOption, PlanResult, RejectedOption

PLAIN_ENV = "XYCLAW_PLAIN"

# Colours of the states clusters, nodes and jobs pass through (unknown states stay plain).
_STATE_STYLES = {
    "ready": "green",
    "running": "green",
    "up": "green",
    "succeeded": "green",
    "requested": "yellow",
    "provisioning": "yellow",
    "bootstrapping": "yellow",
    "starting": "yellow",
    "pending": "yellow",
    "releasing": "yellow",
    "stale": "yellow",
    "failed": "bold red",
    "error": "bold red",
    "down": "bold red",
    "orphan": "bold red",
    "cancelled": "magenta",
    "released": "dim",
    "gone": "dim",
    "stopped": "dim",
}
_SEVERITY_STYLES = {"critical": "bold red", "error": "red", "warning": "yellow", "info": "cyan"}


@dataclass(frozen=True)
class Column:
    """A table column: its header, its width in the plain lines, and its side."""

    header: str
    width: int = 0
    right: bool = False
    key: str = ""  # its header's entry ``cli.<key>`` in xyclaw.wording (translated), if any

    def title(self, language: str) -> str:
        from xyclaw.wording import text_in

        return text_in(language, f"cli.{self.key}") if self.key else self.header

    def plain(self, text: str) -> str:
        pad = " " * max(0, self.width - _cells(text))  # a Chinese character takes two cells
        return pad + text if self.right else text + pad


def _cells(text: str) -> int:
    import unicodedata

    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def use_rich(out: IO[str]) -> bool:
    """Draw with rich: ``out`` is a terminal and the user did not ask for plain lines."""
    if os.environ.get(PLAIN_ENV, "").strip() not in ("", "0"):
        return False
    if os.environ.get("TERM") == "dumb":
        return False
    try:
        return bool(out.isatty())
    except (AttributeError, ValueError, OSError):  # closed, or not a real stream
        return False


def console(out: IO[str]) -> Console:
    from rich.console import Console

    return Console(file=out, highlight=False, soft_wrap=False)


def state_style(state: str) -> str:
    """The colour of a state cell, stored (English) or worded (``cli.word_*``)."""
    return _STATE_STYLES.get(_stored_state().get(state, state).lower(), "")


def state_word(language: str, value: object) -> str:
    """A stored state, kind or cause (``ready``, ``failed``, ``exit_nonzero``) in
    ``language``: its ``cli.word_*`` entry, or the value itself."""
    from xyclaw.wording.catalogue import CATALOGUE

    entry = CATALOGUE.get(f"cli.word_{value}")
    return str(value) if entry is None or language != "zh" else entry[1]


@functools.cache
def _stored_state() -> dict[str, str]:
    from xyclaw.wording.catalogue import CATALOGUE

    return {zh: en for key, (en, zh) in CATALOGUE.items() if key.startswith("cli.word_")}


# --- blocks only XyClaw draws (an approval card) ------------------------------------------

#: How a card's line that did not fit the terminal goes on, behind the mark.
CONTINUED = "  \u21b3 "  # ↳


def marked_lines(
    lines: Sequence[str], out: IO[str] | None = None, *, width: int | None = None
) -> list[str]:
    """The lines of a block that only XyClaw draws (an approval card, its question), each
    behind :data:`xyclaw.wording.display.CARD_MARK`, which untrusted text never holds once
    drawn through ``display``.

    A line wider than the terminal (``out``'s, or ``width``) is wrapped here, every piece
    behind the mark, so that the terminal's own wrapping never begins an unmarked line and a
    long command is shown whole, never cut. On a terminal with colours the mark is also bold
    and reversed: a style untrusted text cannot produce, its escapes being made visible.
    The lines must already be drawn through ``display.line``.
    """
    from xyclaw.wording.display import CARD_MARK

    if width is None and out is not None and _is_terminal(out):
        width = _terminal_width(out)
    mark = CARD_MARK
    if out is not None and use_rich(out) and not os.environ.get("NO_COLOR"):
        mark = f"\x1b[1;7m{CARD_MARK}\x1b[0m"
    shown: list[str] = []
    for line in lines:
        if width is None:
            shown.append(f"{mark} {line}")
            continue
        # two cells of slack: the mark and the arrow are "ambiguous" (two cells in some
        # East Asian terminals)
        room = max(8, width - 2 - 2)
        first, *rest = _cut(line, room, room - _cells(CONTINUED))
        shown.append(f"{mark} {first}")
        shown.extend(f"{mark}{CONTINUED}{piece}" for piece in rest)
    return shown


def _cut(text: str, first: int, then: int) -> list[str]:
    """``text`` in pieces: the first of at most ``first`` cells, the others of ``then``."""
    pieces: list[str] = []
    piece, used, room = "", 0, first
    for ch in text:
        cells = _cells(ch)
        if used + cells > room and piece:
            pieces.append(piece)
            piece, used, room = "", 0, then
        piece += ch
        used += cells
    pieces.append(piece)
    return pieces


def remote_text(out: IO[str], text: object) -> str:
    """A remote machine's output (a log line, a command's output) for ``out``: on a terminal
    drawn through ``xyclaw.wording.display`` (its escapes cannot restyle or redraw the
    screen); into a file or a pipe exactly as the machine wrote it."""
    from xyclaw.wording import display

    return display.text(text) if _is_terminal(out) else str(text)


def _is_terminal(out: IO[str]) -> bool:
    try:
        return bool(out.isatty())
    except (AttributeError, ValueError, OSError):
        return False


def _terminal_width(out: IO[str]) -> int:
    import shutil

    try:
        return os.get_terminal_size(out.fileno()).columns
    except (AttributeError, ValueError, OSError):
        return shutil.get_terminal_size().columns


# --- tables ----------------------------------------------------------------------------------

# The tables of the renting commands; the widths are those of their plain lines.
OFFER_COLUMNS = (
    Column("region", 10, key="col_region"),
    Column("gpu", 9, key="col_result_gpu"),
    Column("cards", 14, key="col_cards"),
    Column("fabric", 11, key="col_fabric"),
    Column("per card-h", 11, right=True, key="col_per_card_h"),
    Column("free", 6, right=True, key="col_free"),
)
CLUSTER_COLUMNS = (
    Column("id", 4, right=True, key="col_id"),
    Column("name", 26, key="col_name"),
    Column("state", 13, key="col_state"),
    Column("gpus", 12, key="col_gpus"),
    Column("fabric", 11, key="col_fabric"),
    Column("cost so far", 13, right=True, key="col_cost_so_far"),
)
BILLING_COLUMNS = (
    Column("id", 4, right=True, key="col_id"),
    Column("name", 26, key="col_name"),
    Column("state", 10, key="col_state"),
    Column("meter", 13, right=True, key="col_meter"),
    Column("provider", 13, right=True, key="col_provider"),
)


def plain_table(
    columns: Sequence[Column], rows: Iterable[Sequence[object]], language: str = "en"
) -> list[str]:
    """The plain lines: one header line, then one line a row, cells padded to their width."""
    from xyclaw.wording import display

    lines = [" ".join(c.plain(c.title(language)) for c in columns)]
    for row in rows:  # names and states may come from a provider or a model: drawn safely
        lines.append(
            " ".join(c.plain(display.line(cell)) for c, cell in zip(columns, row, strict=True))
        )
    return lines


def print_table(
    out: IO[str],
    columns: Sequence[Column],
    rows: Iterable[Sequence[object]],
    *,
    title: str | None = None,
    language: str = "en",
) -> None:
    """A table of ``rows`` (cells already formatted as text) on ``out``.

    A column headed ``state`` is coloured by state on a terminal. The title is
    shown only on a terminal (the plain lines never had one).
    """
    rows = [list(row) for row in rows]
    if not use_rich(out):
        for line in plain_table(columns, rows, language):
            print(line, file=out)
        return
    from rich import box
    from rich.table import Table

    table = Table(
        box=box.SIMPLE_HEAD,
        header_style="bold",
        title=title,
        title_justify="left",
        title_style="bold",
        pad_edge=False,
    )
    for c in columns:
        table.add_column(c.title(language), justify="right" if c.right else "left", no_wrap=True)
    states = {i for i, c in enumerate(columns) if c.header.lower() == "state"}
    for row in rows:
        cells = []
        for i, cell in enumerate(row):
            text = _escape(cell)
            style = state_style(str(cell)) if i in states else ""
            cells.append(f"[{style}]{text}[/]" if style else text)
        table.add_row(*cells)
    console(out).print(table)


def _escape(text: object) -> str:
    """Untrusted text for rich: drawn safely (xyclaw.wording.display), its markup escaped."""
    from rich.markup import escape

    from xyclaw.wording import display

    return escape(display.line(text))


# --- xyclaw plan -----------------------------------------------------------------------------


def print_plan(
    out: IO[str], result: PlanResult, *, limit: int | None, language: str = "en"
) -> None:
    """The plan: the options (or the closest rejects), cheapest or fastest first, with reasons."""
    from xyclaw.engine import Engine
    from xyclaw.wording import display

    reasons_line = Engine.plan_reasons
    report = Engine.plan_report(result, limit=limit, language=language)
    lines = [display.line(line) for line in report]
    if not use_rich(out):
        for line in lines:
            print(line, file=out)
        return
    from rich.text import Text

    con = console(out)
    # The plain view's first lines are the request and what was considered: keep the words.
    con.print(Text(lines[0], style="bold"))
    if result.unmatched:
        con.print(Text(lines[1], style="red"))
        return
    con.print(Text(lines[1], style="dim"))
    if result.options:
        shown = result.options if limit is None else result.options[:limit]
        from xyclaw.engine.values import side_by_side

        compared = side_by_side(result.options[:50], language)
        if compared:  # a Slurm partition beside a rental (issue 33)
            con.print(Text(display.line(compared), style="bold"))
        con.print(_plan_table(shown, language))
        _print_reasons(
            con, [(n, reasons_line(o, language)) for n, o in _numbered(shown)], language=language
        )
    else:
        rejected = result.rejected if limit is None else result.rejected[:limit]
        con.print(_plan_table(rejected, language))
        _print_reasons(
            con,
            [(n, item.why) for n, item in _numbered(rejected)],
            style="red",
            language=language,
        )


def _numbered(items: Sequence[Any]) -> list[tuple[int, Any]]:
    return list(enumerate(items, start=1))


def _plan_table(items: Sequence[PlanOption | RejectedOption], language: str = "en") -> Any:
    from rich import box
    from rich.table import Table

    from xyclaw.catalog.money import format_amount
    from xyclaw.engine.values import starts_text
    from xyclaw.wording import text_in

    def text(language: str, key: str) -> str:
        return text_in(language, f"cli.{key}")

    # issue 33: when each option starts, where a Slurm partition is among them
    starts = any(getattr(i, "queued", False) for i in items)
    table = Table(box=box.SIMPLE_HEAD, header_style="bold", pad_edge=False)
    for header, right in (
        ("#", True),
        (text(language, "col_gpu"), False),
        (text(language, "col_cards"), True),
        (text(language, "col_fabric"), False),
        (text(language, "col_provider_region"), False),
        (text(language, "col_price_h"), True),
        (text(language, "col_hours"), True),
        (text(language, "col_cost"), True),
        ("GiB/GPU", True),
        ("util", True),
        *([(text(language, "col_starts"), False)] if starts else []),
    ):
        table.add_column(header, justify="right" if right else "left", no_wrap=True)
    for number, item in _numbered(items):
        hours, cost, utilization = item.hours, item.cost_micro, item.utilization
        queued = starts and getattr(item, "queued", None) is not None
        start = [starts_text(item, language)] if queued else []
        table.add_row(
            str(number),
            f"[bold]{_escape(item.gpu)}[/]",
            f"{item.nodes}x{item.gpus_per_node}",
            _escape(item.fabric),
            _escape(f"{item.provider}/{item.region}"),
            format_amount(item.price_micro),
            "-" if hours is None else f"{hours:.1f}",
            "-" if cost is None else f"[bold]{format_amount(cost, item.currency)}[/]",
            f"{item.memory_per_gpu_bytes / (1 << 30):.1f}",
            "-" if utilization is None else f"{utilization:.0%}",
            *start,
        )
    return table


def _print_reasons(
    con: Console, reasons: Sequence[tuple[int, str]], style: str = "dim", language: str = "en"
) -> None:
    from rich.table import Table

    from xyclaw.wording import text_in

    def text(language: str, key: str) -> str:
        return text_in(language, f"cli.{key}")

    grid = Table.grid(padding=(0, 1))
    grid.add_column(justify="right", style="bold")
    grid.add_column(style=style, overflow="fold")
    label = text(language, "plan_why" if style == "dim" else "plan_rejected")
    for number, reason in reasons:
        grid.add_row(f"{number}", f"{label}: {_escape(reason)}")
    con.print(grid)


# --- xyclaw top ------------------------------------------------------------------------------


def _level(value: float | None, warn: float, bad: float) -> str:
    """Green below ``warn``, yellow up to ``bad``, red from there (temperatures, memory)."""
    if value is None:
        return "dim"
    return "red" if value >= bad else "yellow" if value >= warn else "green"


def _util_style(util: float | None) -> str:
    """A rented GPU that idles is money spent for nothing: busy is green, idle is red."""
    if util is None:
        return "dim"
    return "green" if util >= 60 else "yellow" if util >= 20 else "red"


def _bar(value: float | None, width: int = 10) -> Any:
    from rich.text import Text

    if value is None:
        return Text(" " * width)
    filled = round(max(0.0, min(100.0, value)) / 100 * width)
    text = Text()
    text.append("█" * filled, style=_util_style(value))
    text.append("░" * (width - filled), style="dim")
    return text


def top_view(snap: dict[str, Any], language: str = "en") -> RenderableType:
    """The live view of ``xyclaw top`` for rich: GPUs grouped by node, then the open alerts."""
    from rich import box
    from rich.console import Group
    from rich.table import Table
    from rich.text import Text

    alerts = snap["alerts"]
    from xyclaw.engine import Engine
    from xyclaw.wording import display, text_in, worded

    def t(key: str, **values: object) -> str:
        return text_in(language, f"cli.{key}", **values)

    head = Text.assemble(
        (display.line(snap["cluster"]), "bold"),
        f"  {time.strftime('%H:%M:%S', time.localtime(snap['ts']))}  ",
        t("top_gpus", gpus=len(snap["gpus"])),
        (t("top_alerts", alerts=len(alerts)), "bold red" if alerts else "green"),
    )
    table = Table(box=box.SIMPLE_HEAD, header_style="bold", pad_edge=False, expand=False)
    table.add_column(t("top_col_node"), no_wrap=True)
    table.add_column("gpu", justify="right")
    table.add_column(t("top_col_util"), justify="right")
    table.add_column("", no_wrap=True)
    table.add_column(t("top_col_mem"), justify="right")
    table.add_column(t("top_col_temp"), justify="right")
    table.add_column(t("top_col_power"), justify="right")
    table.add_column(t("top_col_sm"), justify="right")
    table.add_column(t("top_col_throttle"), justify="right")
    by_node: dict[str, list[dict[str, Any]]] = {}
    for g in snap["gpus"]:
        by_node.setdefault(g["node"], []).append(g)
    nodes = snap["nodes"]
    for index, node in enumerate(nodes):
        gpus = by_node.get(node["node"], [])
        name = _escape(node["node"])
        if not gpus or node["state"] != "up":
            why = _escape(node.get("error") or t("top_no_samples"))
            style = state_style(node["state"]) or "yellow"
            table.add_row(name, "", f"[{style}]{_escape(node['state'].upper())}[/]", why)
        for i, g in enumerate(gpus):
            util = g["util"]
            used = None if g["mem_used_mib"] is None else g["mem_used_mib"] / 1024
            total = None if g["mem_total_mib"] is None else g["mem_total_mib"] / 1024
            mem_share = None if not used or not total else used / total * 100
            temp = g["temp_c"]
            throttle = "-" if not g["throttle"] or g["throttle"] == 1 else f"0x{g['throttle']:x}"
            table.add_row(
                name if i == 0 else "",
                str(g["gpu"]),
                Text("-" if util is None else f"{util}%", style=_util_style(util)),
                _bar(util),
                Text(f"{_num(used, '.1f')}/{_num(total, '.0f')}", style=_level(mem_share, 90, 98)),
                Text(f"{_num(temp, 'd')}C", style=_level(temp, 80, 88)),
                f"{_num(g['power_w'], '.0f')}/{_num(g['power_limit_w'], 'd')}",
                _num(g["sm_mhz"], "d"),
                Text(throttle, style="yellow" if throttle != "-" else "dim"),
            )
        if gpus and index < len(nodes) - 1:
            table.add_section()
    parts: list[Any] = [head, table]
    if alerts:
        parts.append(Text(t("top_open_alerts"), style="bold"))
        for a in alerts:
            style = _SEVERITY_STYLES.get(str(a["severity"]).lower(), "")
            line = Text("  ")
            line.append(f"[{Engine.severity_word(str(a['severity']), language)}]", style=style)
            message = worded(Engine.said_of(a) or str(a["message"]), language)
            action = worded(Engine.said_of(a, "action_said") or str(a["action"]), language)
            line.append(f" {display.line(message)}")
            parts.append(line)
            parts.append(Text(f"      -> {display.line(action)}", style="dim"))
    else:
        parts.append(Text(t("top_no_alerts"), style="green"))
    return Group(*parts)


def _num(value: Any, fmt: str) -> str:
    return "-" if value is None else format(value, fmt)


def print_top(
    out: IO[str],
    snap: dict[str, Any],
    plain: Callable[[dict[str, Any]], str],
    *,
    language: str = "en",
) -> None:
    """One view of ``xyclaw top``: ``plain(snap)`` when not drawing with rich."""
    if use_rich(out):
        console(out).print(top_view(snap, language))
    else:
        print(plain(snap), file=out)


class TopScreen:
    """The live ``top`` view: redrawn in place on a terminal, one view after another if not.

    On a terminal it takes the whole screen, as top does, until :meth:`close`.
    With ``json`` (or off a terminal) it draws nothing itself and :meth:`show`
    prints the plain view.
    """

    def __init__(
        self, out: IO[str], plain: Callable[[dict[str, Any]], str], live: Any, language: str = "en"
    ) -> None:
        self._out = out
        self._plain = plain
        self._live = live
        self._language = language

    @classmethod
    def open(
        cls,
        out: IO[str],
        plain: Callable[[dict[str, Any]], str],
        *,
        json: bool = False,
        language: str = "en",
    ) -> TopScreen:
        if json or not use_rich(out):
            return cls(out, plain, None, language)
        from rich.live import Live

        live = Live(console=console(out), screen=True, auto_refresh=False, redirect_stderr=False)
        live.start()
        return cls(out, plain, live, language)

    def show(self, snap: dict[str, Any]) -> None:
        if self._live is not None:
            self._live.update(top_view(snap, self._language), refresh=True)
        else:
            self._out.write(self._plain(snap) + "\n")
            self._out.flush()

    def close(self) -> None:
        if self._live is not None:
            self._live.stop()
            self._live = None


# -- the memory of hosts and providers (issue 36) --------------------------------------------
_TRACK_COLUMNS = (
    Column("", 34),
    Column("rentals", 7, right=True, key="track_rentals"),
    Column("failed", 6, right=True, key="track_failed"),
    Column("xid", 4, right=True),
    Column("ecc", 4, right=True),
    Column("busbw", 6, right=True),
    Column("no-up", 5, right=True, key="track_no_up"),
    Column("refused", 7, right=True, key="track_refused"),
    Column("leaks", 5, right=True, key="track_leaks"),
    Column("drift", 6, right=True, key="track_drift"),
    Column("ready", 7, right=True, key="track_ready"),
)


def print_track_record(ctx: Any, memory: TrackRecord, by: str, *, days: float) -> None:
    """One line per provider (region, node class or host) of the memory, then its marks."""
    standings = memory.standings(by)
    if not standings:
        ctx.print(ctx.text("no_rentals", days=f"{days:g}"))
        return

    def count(s: Standing, kind: str) -> str:
        return str(s.counts.get(kind, 0) or "-")

    rows = [
        (
            s.key,
            str(s.rentals),
            str(s.failed_rentals or "-"),
            count(s, "xid"),
            count(s, "ecc"),
            "-" if s.worst_busbw_ratio is None else f"{s.worst_busbw_ratio:.0%}",
            count(s, "bring_up_failed"),
            count(s, "refusal"),
            count(s, "leak"),
            "-" if s.worst_price_drift is None else f"{s.worst_price_drift:+.0%}",
            "-" if s.median_ready_s is None else f"{s.median_ready_s / 60:.0f} min",
        )
        for s in standings
    ]
    first = replace(_TRACK_COLUMNS[0], header=by.replace("_", " "), key=f"track_by_{by}")
    title = ctx.text("track_title", days=f"{days:g}")
    print_table(ctx.out, (first, *_TRACK_COLUMNS[1:]), rows, title=title, language=ctx.language)
    if memory.marks:
        ctx.print("")
        ctx.print(ctx.text("track_marks"))
        for m in memory.marks[-20:]:
            when = time.strftime("%Y-%m-%d", time.localtime(m.ts))
            where = " / ".join((m.provider, m.region or "?", m.gpu, m.fabric))
            host = f" {m.host}" if m.host else ""
            ctx.print(f"  {when}  {where}{host}: {m.kind}: {remote_text(ctx.out, m.detail)}")
