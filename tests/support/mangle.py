"""Damaged copies of command output, for checking that parsers fail only with ParseError."""

from __future__ import annotations

from collections.abc import Callable

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from xyclaw.errors import ParseError

_NOISE = "0123456789abcdefXN/A[]:,. \t\n-#{}\"'|x=()%"


@st.composite
def mangled(draw: st.DrawFn, text: str) -> str:
    """``text`` cut short, with noise inserted and pieces deleted."""
    for _ in range(draw(st.integers(1, 8))):
        i = draw(st.integers(0, len(text)))
        op = draw(st.sampled_from(["cut", "insert", "delete"]))
        if op == "cut":
            text = text[:i]
        elif op == "insert":
            text = text[:i] + draw(st.text(_NOISE, min_size=1, max_size=12)) + text[i:]
        else:
            text = text[:i] + text[i + draw(st.integers(1, 40)) :]
    return text


def check_damaged_documents(parse: Callable[[str], object], original: str) -> None:
    """Every damaged copy gives a result or a ParseError with a message, never anything else."""

    @settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(mangled(original))
    def check(text: str) -> None:
        try:
            parse(text)
        except ParseError as exc:
            assert exc.message

    check()
