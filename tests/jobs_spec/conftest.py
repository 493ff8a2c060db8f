"""Helpers: write a spec file into a temporary project folder and load it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from textwrap import dedent

import pytest

from xyclaw.jobs.spec import LoadedSpec, load_spec

SpecWriter = Callable[..., Path]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A user's project folder with code to upload."""
    root = tmp_path / "project"
    (root / "code").mkdir(parents=True)
    (root / "code" / "train.py").write_text("print('hello')\n")
    (root / "data.txt").write_text("x\n")
    return root


@pytest.fixture
def write_spec(project: Path) -> SpecWriter:
    def write(text: str | bytes, name: str = "job.yaml") -> Path:
        path = project / name
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(dedent(text).lstrip("\n"), encoding="utf-8")
        return path

    return write


@pytest.fixture
def load(write_spec: SpecWriter) -> Callable[..., LoadedSpec]:
    def run(text: str, name: str = "job.yaml", **kwargs: object) -> LoadedSpec:
        return load_spec(write_spec(text, name), **kwargs)  # type: ignore[arg-type]

    return run
