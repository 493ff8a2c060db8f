"""The bundled folders are found the same way from a checkout and from an installed wheel."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from xyclaw.paths import bundled

ROOT = Path(__file__).resolve().parents[2]


def test_checkout_finds_bundled_folders() -> None:
    assert (bundled("ui") / "main_window.ui").is_file()
    assert (bundled("resources") / "icons" / "xyclaw.svg").is_file()
    assert bundled("agents").is_dir()
    with pytest.raises(ValueError):
        bundled("nothing")


@pytest.mark.slow
def test_wheel_carries_bundled_folders_and_finds_them(tmp_path: Path) -> None:
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(tmp_path / "dist"),
            str(ROOT),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    wheel = next((tmp_path / "dist").glob("xyclaw-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "xyclaw/_bundled/ui/main_window.ui" in names
    assert "xyclaw/_bundled/resources/icons/xyclaw.svg" in names
    assert "xyclaw/_bundled/agents/README.md" in names
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    probe = "import xyclaw.paths as p; print(p.bundled('ui')); print(p.__file__)"
    out = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={"PYTHONPATH": str(site), "PATH": "/usr/bin:/bin"},
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    ui_dir, module = out.stdout.split()
    assert Path(module).is_relative_to(site)
    assert Path(ui_dir) == site / "xyclaw" / "_bundled" / "ui"


def test_layer_contract_covers_every_core_module() -> None:
    """A new core module must be listed in the import-linter contract, or it goes unchecked."""
    import pkgutil
    import tomllib

    import xyclaw

    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    contracts = config["tool"]["importlinter"]["contracts"]
    contract = next(c for c in contracts if "core" in c["name"].lower())
    listed = set(contract["source_modules"])
    layers = next(c for c in contracts if c["type"] == "layers")
    in_layers = {m.strip() for layer in layers["layers"] for m in layer.split("|")}
    modules = {
        f"xyclaw.{m.name}"
        for m in pkgutil.iter_modules(xyclaw.__path__)
        if m.name not in {"gui", "agent", "_bundled"}
    }
    assert modules <= listed, f"add to the contract: {sorted(modules - listed)}"
    assert modules - {"xyclaw.sim"} <= in_layers, f"add to a layer: {sorted(modules - in_layers)}"
    assert {"PySide6", "pyqtgraph", "langgraph", "langchain_core", "openai"} <= set(
        contract["forbidden_modules"]
    )
