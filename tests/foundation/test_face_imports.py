"""The faces' allow-list holds and cannot rot: a new face-to-part import fails lint-imports,
a type-only one too, a stale exception line fails, and the list of exceptions only shrinks.

lint-imports runs for real, on a copy of the package with one import added, so what is
checked is what ``make lint`` (and so ``make test``) runs.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")

# The faces' exceptions as of issue 24. This number only goes down: a change that removes a
# face's import of a part deletes its line in pyproject.toml (lint-imports fails on a line that
# matches nothing) and lowers this number to match. Raising it means a face reaches past the
# Engine again; add an Engine method instead.
IGNORED_IMPORTS = 0


def _contract() -> dict[str, Any]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    return next(c for c in config["contracts"] if c["type"] == "allowlist")


def _copy_of_the_project(tmp_path: Path) -> Path:
    copy = tmp_path / "project"
    skip = shutil.ignore_patterns("__pycache__", "*.pyc", "_bundled")
    shutil.copytree(ROOT / "xyclaw", copy / "xyclaw", ignore=skip)
    shutil.copytree(ROOT / "tools", copy / "tools", ignore=skip)
    shutil.copy(ROOT / "pyproject.toml", copy / "pyproject.toml")
    return copy


def _lint_imports(project: Path) -> subprocess.CompletedProcess[str]:
    # PYTHONPATH puts the copy's xyclaw before the installed one; the copy's folder is where
    # lint-imports finds pyproject.toml and the contract type (tools.face_imports).
    env = {**os.environ, "PYTHONPATH": str(project)}
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def _append(path: Path, text: str) -> None:
    path.write_text(path.read_text() + text)


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _copy_of_the_project(tmp_path_factory.mktemp("faces"))


def test_the_copy_as_it_is_keeps_every_contract(project: Path) -> None:
    done = _lint_imports(project)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "The faces import only the Engine and the shared ground" in done.stdout


def test_a_cli_command_importing_a_provider_breaks_the_contract(tmp_path: Path) -> None:
    project = _copy_of_the_project(tmp_path)
    _append(project / "xyclaw/cli/commands/doctor.py", "\nfrom xyclaw.providers import base\n")
    # A type-only import counts the same (exclude_type_checking_imports = false).
    _append(
        project / "xyclaw/gui/formatting.py",
        "\nfrom typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n"
        "    from xyclaw.remote import pool\n",
    )
    done = _lint_imports(project)
    assert done.returncode != 0
    assert "xyclaw.cli.commands.doctor -> xyclaw.providers.base" in done.stdout
    assert "xyclaw.gui.formatting -> xyclaw.remote.pool" in done.stdout
    assert "Contracts: 5 kept, 1 broken." in done.stdout


def test_a_new_core_module_is_out_of_the_faces_reach_until_allowed(tmp_path: Path) -> None:
    """An allow-list, not a deny-list: nobody has to remember to forbid a new module."""
    project = _copy_of_the_project(tmp_path)
    (project / "xyclaw/store/brand_new.py").write_text('"""A module added later."""\n')
    _append(project / "xyclaw/cli/commands/doctor.py", "\nfrom xyclaw.store import brand_new\n")
    done = _lint_imports(project)
    assert done.returncode != 0
    assert "xyclaw.cli.commands.doctor -> xyclaw.store.brand_new" in done.stdout


def test_an_exception_line_that_matches_nothing_fails(tmp_path: Path) -> None:
    """So a change that removes a face's import must delete its line too."""
    project = _copy_of_the_project(tmp_path)
    pyproject = project / "pyproject.toml"
    text = pyproject.read_text()
    contract = text.index('type = "allowlist"')
    empty = text.index("ignore_imports = []\n", contract)  # the list is empty since issue 35
    pyproject.write_text(
        text[:empty]
        + 'ignore_imports = [\n    "xyclaw.cli.main -> xyclaw.tuning",\n]\n'
        + text[empty + len("ignore_imports = []\n") :]
    )
    done = _lint_imports(project)
    assert done.returncode != 0
    assert "No matches for ignored import xyclaw.cli.main -> xyclaw.tuning" in (
        done.stdout + done.stderr
    )


def test_exception_lines_are_exact_imports() -> None:
    lines = list(_contract()["ignore_imports"])
    assert all("*" not in line and " -> " in line for line in lines)
    assert len(lines) == len(set(lines))


def test_the_exceptions_only_shrink() -> None:
    count = len(_contract()["ignore_imports"])
    assert count <= IGNORED_IMPORTS, (
        f"{count - IGNORED_IMPORTS} new import(s) from a face into a part: "
        "reach it through an Engine method instead"
    )
    assert count == IGNORED_IMPORTS, f"fewer exceptions now: lower IGNORED_IMPORTS to {count}"


def test_the_script_prints_the_list_the_contract_holds() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "tools/face_imports.py")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    printed = [line.strip().strip(",").strip('"') for line in done.stdout.splitlines()]
    assert printed == sorted(_contract()["ignore_imports"])
    assert "(+0 new, -0 gone)" in done.stderr
