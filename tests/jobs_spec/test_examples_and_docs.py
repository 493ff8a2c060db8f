"""The sample specs in resources/examples load, the plain example really trains and
resumes, and docs/jobs.md names every field the code reads."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from xyclaw.catalog import Catalog
from xyclaw.jobs import skypilot
from xyclaw.jobs.spec import JobKind, RecoveryCause, load_spec, render_run
from xyclaw.parsers.joblog import CheckpointEvent, ProgressEvent, parse_job_log

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "resources" / "examples"
DOC = ROOT / "docs" / "jobs.md"


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.yaml")), ids=lambda p: p.name)
def test_every_example_loads_against_the_catalog(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(path.parent)  # SkyPilot reads a relative workdir from there
    known = [g.name for g in Catalog.builtin().gpus]
    loaded = load_spec(path, known_gpus=known)
    spec = loaded.spec
    assert spec.rents_cluster and spec.budget is not None and spec.max_runtime_s
    if loaded.source_format == "skypilot":
        assert spec.skypilot
        assert {w.field for w in loaded.warnings} == {"resources.cloud"}
    else:
        assert loaded.warnings == (), [str(w) for w in loaded.warnings]
    if spec.kind is JobKind.TRAIN:
        assert spec.checkpoint_dir and spec.resume_arg  # every train example can resume
        assert render_run(spec, f"{spec.checkpoint_dir}/x") != spec.run


def test_the_examples_cover_what_the_docs_promise() -> None:
    specs = {p.stem: load_spec(p) for p in EXAMPLES.glob("*.yaml")}
    lora = specs["lora-2node"].spec
    assert lora.resources.nodes == 2 and "torchrun" in lora.run
    assert specs["plain-python"].spec.run.startswith("python train.py")
    service = specs["vllm-service"].spec
    assert service.kind is JobKind.SERVICE and "vllm serve" in service.run
    assert specs["skypilot-ddp"].source_format == "skypilot"
    assert RecoveryCause.EXIT_NONZERO not in lora.recovery.on


def test_the_plain_example_trains_checkpoints_and_resumes(tmp_path: Path) -> None:
    loaded = load_spec(EXAMPLES / "plain-python.yaml")
    spec = loaded.spec
    assert spec.workdir is not None and spec.checkpoint_dir is not None
    ckpt = tmp_path / "ckpt"
    # the spec's own commands, pointed at a temporary folder and shortened
    run = spec.run.replace(spec.checkpoint_dir, str(ckpt)).replace(
        "--max_steps 200", "--max_steps 6"
    )
    run = run.replace("--save_steps 50", "--save_steps 3").replace("python ", f"{sys.executable} ")
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}

    def go(script: str) -> str:
        out = subprocess.run(
            ["bash", "-c", script.rstrip() + " --step_time 0"],
            cwd=spec.workdir,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        )
        return out.stdout

    first = parse_job_log(go(run))
    steps = [e.step for e in first if isinstance(e, ProgressEvent)]
    assert steps == [1, 2, 3, 4, 5, 6]
    progress = [e for e in first if isinstance(e, ProgressEvent)]
    assert all(p.total_steps == 6 and p.loss and p.tokens_per_s for p in progress)
    saved = [e for e in first if isinstance(e, CheckpointEvent)]
    assert [(c.step, c.path) for c in saved] == [
        (3, str(ckpt / "checkpoint-3")),
        (6, str(ckpt / "checkpoint-6")),
    ]
    assert (ckpt / "checkpoint-3" / "COMPLETE").is_file()
    # attempt 2 resumes from step 3 (say step 6 was never written)
    for leftover in (ckpt / "checkpoint-6").iterdir():
        leftover.unlink()
    (ckpt / "checkpoint-6").rmdir()
    resumed_spec = type(spec)(**{**_fields(spec), "run": run})
    second = parse_job_log(go(render_run(resumed_spec, str(ckpt / "checkpoint-3"))))
    assert [e.step for e in second if isinstance(e, ProgressEvent)] == [4, 5, 6]


def _fields(spec: object) -> dict[str, object]:
    return {name: getattr(spec, name) for name in spec.__dataclass_fields__}  # type: ignore[attr-defined]


def _doc() -> str:
    if not DOC.is_file():
        pytest.fail("docs/jobs.md is missing")
    return DOC.read_text()


def test_the_doc_names_every_spec_field() -> None:
    from xyclaw.jobs import spec as spec_module

    doc = _doc()
    fields = [
        *spec_module._TOP_KEYS,
        *(f"resources.{k}" for k in spec_module._RESOURCE_KEYS),
        *(f"recovery.{k}" for k in spec_module._RECOVERY_KEYS),
        *(f"service.{k}" for k in spec_module._SERVICE_KEYS),
        *(c.value for c in RecoveryCause),
    ]
    missing = [f for f in fields if f"`{f}`" not in doc]
    assert not missing, missing


def test_the_doc_has_the_skypilot_mapping_table() -> None:
    doc = _doc()
    rows = {m.group(1) for m in re.finditer(r"^\|\s*`([^`]+)`\s*\|", doc, re.MULTILINE)}
    expected = {
        *skypilot.TOP_MAPPED,
        *skypilot.TOP_UNSUPPORTED,
        *(f"resources.{k}" for k in skypilot.RESOURCES_MAPPED),
        *(f"resources.{k}" for k in skypilot.RESOURCES_UNSUPPORTED if not k.startswith("_")),
        *(f"service.{k}" for k in skypilot.SERVICE_MAPPED),
        *(f"service.{k}" for k in skypilot.SERVICE_UNSUPPORTED),
    }
    missing = sorted(expected - rows)
    assert not missing, missing
    for env in skypilot.SKYPILOT_ENV:
        assert env in doc
