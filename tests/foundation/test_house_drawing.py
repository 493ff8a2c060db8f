"""The house drawing (docs/architecture.md) is the code's own import graph, has no circle,
and no face reaches a part except by the allow-list's listed debt or a way up by design."""

from __future__ import annotations

import functools
import importlib.util
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]
PARTS = {"jobs", "telemetry", "tuning", "billing", "providers", "remote", "planner", "records"}
PARTS |= {"store", "catalog", "parsers", "doctor"}


@functools.cache
def _tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("house_drawing", ROOT / "tools/house_drawing.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_drawing_in_the_docs_is_the_code_as_it_stands() -> None:
    tool = _tool()
    text = (ROOT / "docs/architecture.md").read_text()
    assert tool.drawing() in text, "stale: run python tools/house_drawing.py --write"


def test_no_two_packages_import_each_other() -> None:
    tool = _tool()
    found = tool.edges()
    assert ("engine", "planner") in found  # the drawing sees the code's imports
    assert tool.circles(found) == []
    assert tool.circles({("a", "b"): "solid", ("b", "a"): "debt"}) == [("a", "b")]


def test_a_face_reaches_a_part_only_by_listed_debt_or_by_design() -> None:
    found = _tool().edges()
    plain = sorted(
        (face, part)
        for (face, part), kind in found.items()
        if face in ("cli", "gui", "agent") and part in PARTS and kind == "solid"
    )
    assert plain == []
    # The window's own debt is gone (issue 35): no arrow from gui to a part at all.
    assert not [part for (face, part) in found if face == "gui" and part in PARTS]
