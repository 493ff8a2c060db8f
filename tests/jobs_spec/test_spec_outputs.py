"""``outputs:`` in a spec (issue 32): its forms, its defaults, its errors with the line, and
what survives the history's JSON."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from xyclaw.jobs.spec import JobSpec, LoadedSpec, SpecError
from xyclaw.jobs.specoutputs import DEFAULT_MAX_BYTES, effective_paths, parse_size

Load = Callable[..., LoadedSpec]


def test_one_path_a_list_and_the_full_mapping(load: Load, project: Path) -> None:
    one = load("run: x\noutputs: /shared/out/\n").spec
    assert one.outputs is not None and one.outputs.paths == ("/shared/out",)
    assert not one.outputs.every_node and one.outputs.max_bytes == DEFAULT_MAX_BYTES
    assert not one.skypilot  # XyClaw's own field, not SkyPilot's experimental one

    many = load("run: x\noutputs: [/shared/a, ~/results, /shared/a]\n").spec
    assert many.outputs is not None and many.outputs.paths == ("/shared/a", "~/results")

    full = load(
        """
        run: x
        checkpoint_dir: /shared/ckpt/r1
        outputs:
          paths: [/shared/eval]
          nodes: all
          to: results/r1
          max_size: 1.5 GiB
          every: 2m
          checkpoints: false
        """
    ).spec
    o = full.outputs
    assert o is not None
    assert o.paths == ("/shared/eval",) and o.every_node and o.every_s == 120
    assert o.to == str(project / "results" / "r1")  # relative to the spec file
    assert o.max_bytes == int(1.5 * 1024**3) and not o.checkpoints
    assert effective_paths(o, full.checkpoint_dir) == ("/shared/eval",)


def test_the_checkpoint_dir_is_copied_by_default(load: Load) -> None:
    bare = load("run: x\ncheckpoint_dir: /shared/ckpt/r1\n").spec
    assert bare.outputs is None
    assert effective_paths(bare.outputs, bare.checkpoint_dir) == ("/shared/ckpt/r1",)
    both = load("run: x\ncheckpoint_dir: /shared/ckpt/r1\noutputs: /shared/eval\n").spec
    assert effective_paths(both.outputs, both.checkpoint_dir) == (
        "/shared/eval",
        "/shared/ckpt/r1",
    )
    nothing = load("run: x\n").spec
    assert effective_paths(nothing.outputs, nothing.checkpoint_dir) == ()


@pytest.mark.parametrize(
    ("text", "line", "words"),
    [
        ("run: x\noutputs: out/\n", 2, "'out/' is not an absolute path on the node"),
        ("run: x\noutputs:\n  nodes: some\n", 3, "'some' is not head or all"),
        ("run: x\noutputs:\n  max_size: lots\n", 3, "'lots' is not a size"),
        ("run: x\noutputs:\n  max_size: 0\n", 3, "'0' is not a size"),
        ("run: x\noutputs:\n  path: /a\n", 3, "did you mean `paths`"),
        ("run: x\noutputs:\n  every: soon\n", 3, "every"),
    ],
)
def test_a_wrong_value_is_an_error_with_its_line(
    load: Load, text: str, line: int, words: str
) -> None:
    with pytest.raises(SpecError) as caught:
        load(text)
    assert f"job.yaml:{line}:" in str(caught.value) and words in str(caught.value)


def test_outputs_survive_the_historys_json(load: Load) -> None:
    spec = load("run: x\noutputs:\n  paths: [/shared/o]\n  nodes: all\n  max_size: 3 GB\n").spec
    again = JobSpec.from_json(spec.to_json())
    assert again.outputs == spec.outputs
    plain = load("run: x\n").spec
    assert "outputs" not in plain.to_dict()  # specs stored before issue 32 read the same


def test_skypilots_experimental_outputs_still_marks_a_skypilot_file(load: Load) -> None:
    loaded = load("run: x\noutputs:\n  s3://bucket/out: 10\n")
    assert loaded.spec.skypilot and loaded.spec.outputs is None
    assert any("outputs" in str(w) for w in loaded.warnings)


@pytest.mark.parametrize(
    ("text", "size"),
    [("20GB", 20 * 10**9), ("500 MiB", 500 * 2**20), ("1.5g", 1_500_000_000), (1024, 1024)],
)
def test_sizes(text: object, size: int) -> None:
    assert parse_size(text) == size


def test_spot_is_read_kept_in_the_history_and_checked(load: Load) -> None:
    spec = load("run: x\nspot: true\n").spec
    assert spec.spot and JobSpec.from_json(spec.to_json()).spot
    assert not load("run: x\n").spec.spot and "spot" not in load("run: x\n").spec.to_dict()
    with pytest.raises(SpecError) as caught:
        load("run: x\nspot: sometimes\n")
    assert "job.yaml:2:" in str(caught.value)
