"""No package's modules import each other in a circle: lint-imports' acyclic contract holds
as the code stands, and fails on a copy where a page names the window again (the circle of
issue 35) or where two core modules import each other, type-only imports included."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from tests.foundation.test_face_imports import ROOT, _append, _copy_of_the_project, _lint_imports


def _contract() -> dict[str, Any]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    return next(c for c in config["contracts"] if c["type"] == "acyclic_siblings")


def test_the_contract_covers_every_package_with_no_exception() -> None:
    contract = _contract()
    assert contract["ancestors"] == ["xyclaw"]
    assert "depth" not in contract  # import-linter's default, 10, reaches every package here
    assert "ignore_imports" not in contract  # a circle is cut, never listed


def test_a_page_naming_the_window_again_breaks_it(tmp_path: Path) -> None:
    project = _copy_of_the_project(tmp_path)
    _append(
        project / "xyclaw/gui/plan_page.py",
        "\nfrom typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n"
        "    from xyclaw.gui.main_window import MainWindowController\n",
    )
    done = _lint_imports(project)
    assert done.returncode != 0
    assert "No cycles are allowed in xyclaw.gui." in done.stdout
    assert "No circles BROKEN" in done.stdout


def test_two_core_modules_importing_each_other_break_it(tmp_path: Path) -> None:
    """Even a type-only import back, as telemetry.health had (issue 35)."""
    project = _copy_of_the_project(tmp_path)
    _append(
        project / "xyclaw/telemetry/health.py",
        "\nfrom typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n"
        "    from xyclaw.telemetry.service import TelemetryService as _Service  # noqa: F401\n",
    )
    done = _lint_imports(project)
    assert done.returncode != 0
    assert "No cycles are allowed in xyclaw.telemetry." in done.stdout
