"""Every reader of remote output, fed damaged real outputs: only XyClaw's own errors, in
linear time.

A node can print anything: a cut connection, a driver that prints binary junk,
a log line of 100,000 characters. Readers must either read it or raise a
:class:`~xyclaw.errors.XyclawError` (a ParseError with a hint), and their time
must grow with the input, not with its square: one bad node must not stall a
collector or ``xyclaw tune`` (issue 11, defect 6).
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import SHARED_FIXTURES
from tests.fuzz.targets import TARGETS, Target, seed_text
from xyclaw.errors import XyclawError

pytestmark = pytest.mark.skipif(
    not SHARED_FIXTURES.is_dir(), reason="../shared/fixtures/real is not present"
)

LONG = 100_000
#: Characters that steer regular expressions: separators, digits, spaces, brackets.
_JUNK_UNITS = (*" \t0a:/,.[]=|@#-x%", "\x00", "\ufffd", "N/A", "/ports/", "Xid ", "GPU ")


_NUMBER = re.compile(r"\d+(?:\.\d+)?")
#: Numbers a broken driver or a hostile node prints where a reading belongs.
_EXTREMES = ("1e308", "-1e308", "1e400", "nan", "inf", "-0", "99999999999999999999999", "-1")


def _seeds(target: Target) -> list[str]:
    texts = [t for t in (seed_text(name) for name in target.seeds) if t]
    assert texts, f"{target.name} has no seed text"
    return texts


def _all_seed_lines() -> list[str]:
    lines: list[str] = []
    for target in TARGETS:
        for text in _seeds(target):
            lines += [line for line in text.splitlines() if line.strip()][:40]
    return lines


@st.composite
def mutated(draw: st.DrawFn, seeds: list[str], others: list[str]) -> str:
    """A real output, cut, with lines duplicated, swapped, dropped, taken from another
    command, binary junk and lines of 100,000 characters put in."""
    lines = draw(st.sampled_from(seeds)).splitlines(keepends=True) or [""]
    for _ in range(draw(st.integers(1, 6))):
        op = draw(
            st.sampled_from(["cut", "dup", "swap", "drop", "junk", "long", "other", "number"])
        )
        i = draw(st.integers(0, max(0, len(lines) - 1)))
        if op == "cut":
            text = "".join(lines)
            lines = [text[: draw(st.integers(0, len(text)))]]
        elif op == "dup":
            block = lines[i : i + draw(st.integers(1, 8))]
            lines[i:i] = block * draw(st.integers(1, 3))
        elif op == "swap":
            j = draw(st.integers(0, max(0, len(lines) - 1)))
            lines[i], lines[j] = lines[j], lines[i]
        elif op == "drop" and len(lines) > 1:
            del lines[i]
        elif op == "junk":
            raw = draw(st.binary(min_size=1, max_size=64))
            junk = raw.decode(draw(st.sampled_from(["latin-1", "utf-8"])), errors="replace")
            line = lines[i]
            at = draw(st.integers(0, len(line)))
            lines[i] = line[:at] + junk + line[at:]
        elif op == "long":
            unit = draw(
                st.sampled_from(_JUNK_UNITS) | st.sampled_from(lines).map(lambda s: s.rstrip())
            )
            unit = unit or "x"
            lines.insert(i, (unit * (LONG // len(unit) + 1))[:LONG] + "\n")
        elif op == "number":
            numbers = list(_NUMBER.finditer(lines[i]))
            if numbers:
                m = draw(st.sampled_from(numbers))
                extreme = draw(st.sampled_from(_EXTREMES))
                lines[i] = lines[i][: m.start()] + extreme + lines[i][m.end() :]
        else:
            lines.insert(i, draw(st.sampled_from(others)) + "\n")
    return "".join(lines)


def _call(parse: Callable[[str], object], text: str) -> None:
    try:
        parse(text)
    except XyclawError as exc:
        assert exc.message  # the project's own error, with something to say


@pytest.mark.parametrize("target", TARGETS, ids=[t.name for t in TARGETS])
def test_damaged_real_outputs_raise_only_xyclaw_errors(target: Target) -> None:
    seeds, others = _seeds(target), _all_seed_lines()

    @settings(
        max_examples=25,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(mutated(seeds, others))
    def check(text: str) -> None:
        _call(target.parse, text)

    check()


def _cpu(parse: Callable[[str], object], text: str, min_total: float = 0.0) -> float:
    """CPU seconds per call (process time: the shared machine's load does not count)."""
    calls, start = 0, time.process_time()
    while True:
        _call(parse, text)
        calls += 1
        spent = time.process_time() - start
        if spent >= min_total:
            return spent / calls


def _units(target: Target) -> list[str]:
    """Pieces to repeat: junk characters, and real lines with and without their newline."""
    units = set(_JUNK_UNITS)
    for text in _seeds(target):
        lines = [line for line in text.splitlines(keepends=True) if line.strip()]
        for line in lines[:: max(1, len(lines) // 5)]:
            units |= {line, line.rstrip("\n"), line.strip()[:8] or "x"}
    return sorted(units)


SMALL, FACTOR = 5_000, 10
#: A linear reader takes about FACTOR times longer on the larger input; a quadratic one
#: about FACTOR**2. Below FLOOR seconds on the larger input nothing can be judged or matter.
MAX_RATIO, FLOOR = 3 * FACTOR, 0.02


def _linear(target: Target, unit: str) -> None:
    small = (unit * (SMALL // len(unit) + 1))[:SMALL]
    large = (unit * (SMALL * FACTOR // len(unit) + 1))[: SMALL * FACTOR]
    t_large = _cpu(target.parse, large)
    if t_large < FLOOR:
        return
    t_large = min(t_large, _cpu(target.parse, large))
    t_small = _cpu(target.parse, small, min_total=0.05)
    ratio = t_large / max(t_small, 1e-6)
    assert ratio <= MAX_RATIO, (
        f"{target.name}: {len(large):,} characters of {unit[:40]!r} took {t_large:.3f} s, "
        f"{ratio:.0f} times the {len(small):,}-character input ({t_small * 1000:.2f} ms)"
    )


@pytest.mark.parametrize("target", TARGETS, ids=[t.name for t in TARGETS])
def test_time_grows_linearly_with_the_input(target: Target) -> None:
    for unit in _units(target):
        _linear(target, unit)

    @settings(max_examples=6, deadline=None, database=None)
    @given(st.text(min_size=1, max_size=24))
    def drawn(unit: str) -> None:
        _linear(target, unit)

    drawn()
