"""The faces' one module of value types: each name is the part's own object, found on first
use, and importing the module costs the window's start-up nothing (no planner, no specs,
no telemetry loaded until a page asks for one of their names)."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

from xyclaw.engine import values


def test_every_name_the_window_takes_is_the_parts_own_object() -> None:
    assert values._WINDOW_VALUES, "the window takes its values from here"
    for name, where in values._WINDOW_VALUES.items():
        assert name in values.__all__, name
        assert getattr(values, name) is getattr(importlib.import_module(where), name), name


def test_a_name_it_does_not_have_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'PlanOptions'"):
        values.PlanOptions  # noqa: B018


def test_importing_it_loads_no_part_until_a_name_is_asked_for() -> None:
    code = (
        "import sys\n"
        "import xyclaw.engine.values as v\n"
        "parts = ('xyclaw.planner', 'xyclaw.jobs', 'xyclaw.telemetry')\n"
        "print(sorted(m for m in sys.modules if m.startswith(parts)))\n"
        "v.PlanOption\n"
        "print('xyclaw.planner.result' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    before, after = done.stdout.splitlines()
    assert before == "[]"
    assert after == "True"
