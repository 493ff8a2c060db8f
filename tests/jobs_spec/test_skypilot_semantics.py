"""Issue 29 point 1: SkyPilot's own semantics for the task files people already have."""

from __future__ import annotations

from pathlib import Path

import pytest

from xyclaw.catalog import Catalog
from xyclaw.jobs.spec import SpecError, load_spec, parse_spec

KNOWN = {g.name for g in Catalog.builtin().gpus}


def _warned(loaded: object) -> list[str]:
    return [str(w) for w in loaded.warnings]  # type: ignore[attr-defined]


def test_resources_gpus_is_the_newer_spelling_of_accelerators() -> None:
    loaded = parse_spec("resources:\n  gpus: H100:8\nrun: x\n", known_gpus=KNOWN)
    assert loaded.source_format == "skypilot"
    assert (loaded.spec.resources.gpu, loaded.spec.resources.gpus_per_node) == ("H100", 8)


def test_a_fractional_gpu_runs_on_a_whole_one_with_a_warning() -> None:
    loaded = parse_spec("resources:\n  accelerators: A100:0.5\nrun: x\n", known_gpus=KNOWN)
    assert (loaded.spec.resources.gpu, loaded.spec.resources.gpus_per_node) == ("A100-40G", 1)
    assert any("does not share a GPU" in w and ":2:" in w for w in _warned(loaded))


def test_a_pool_file_is_refused_as_a_pool() -> None:
    text = "pool:\n  workers: 2\nresources:\n  accelerators: H100:1\nsetup: pip install x\n"
    with pytest.raises(SpecError) as err:
        parse_spec(text, file="pool.yaml")
    assert "SkyPilot pool" in str(err.value) and err.value.line == 1


def test_a_cluster_only_file_is_refused_as_such() -> None:
    text = "num_nodes: 2\nresources:\n  accelerators: H100:8\nsetup: pip install x\n"
    with pytest.raises(SpecError) as err:
        parse_spec(text, file="cluster.yaml")
    assert "cluster-only file" in str(err.value) and "xyclaw up" in str(err.value)


def test_env_references_in_file_mounts_are_filled_from_envs(tmp_path: Path) -> None:
    (tmp_path / "ckpt-7b").mkdir()
    text = (
        "envs:\n  MODEL: 7b\n  TARGET: /models\nfile_mounts:\n"
        f"  ${{TARGET}}/$MODEL: {tmp_path}/ckpt-${{MODEL}}\nrun: x\n"
    )
    loaded = parse_spec(text)
    [mount] = loaded.spec.file_mounts
    assert (mount.target, mount.source) == ("/models/7b", str(tmp_path / "ckpt-7b"))


def test_a_relative_mount_target_goes_under_home(tmp_path: Path) -> None:
    (tmp_path / "data.txt").write_text("x")
    loaded = parse_spec(f"num_nodes: 1\nfile_mounts:\n  data/in.txt: {tmp_path}/data.txt\nrun: x\n")
    assert loaded.spec.file_mounts[0].target == "~/data/in.txt"
    assert any("~/data/in.txt" in w for w in _warned(loaded))


def test_a_bucket_mount_makes_a_file_skypilot_so_it_is_only_warned_about() -> None:
    """docs/jobs.md: bucket mounts are warned about and not uploaded; a file with only
    file_mounts/setup/run was read as XyClaw's form, where they are errors."""
    loaded = parse_spec("file_mounts:\n  /data: s3://bucket/x\nsetup: pip i\nrun: x\n")
    assert loaded.source_format == "skypilot" and loaded.spec.file_mounts == ()
    assert any("s3:// buckets are not mounted" in w for w in _warned(loaded))


def test_a_relative_workdir_is_read_from_the_current_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    specs = tmp_path / "specs"
    specs.mkdir()
    spec = specs / "task.yaml"
    spec.write_text("num_nodes: 1\nworkdir: ./src\nrun: python train.py\n")
    (tmp_path / "src").mkdir()
    monkeypatch.chdir(tmp_path)  # as SkyPilot: relative to where the command runs
    loaded = load_spec(spec)
    assert loaded.spec.workdir == str(tmp_path / "src")
    assert not any("SkyPilot looks" in w for w in _warned(loaded))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    with pytest.raises(SpecError) as err:
        load_spec(spec)
    text = str(err.value)
    assert "does not exist" in text and "folder you run the command in" in text
    assert str(elsewhere) in text


def test_a_workdir_only_beside_the_spec_is_used_with_a_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "src").mkdir()
    spec = tmp_path / "task.yaml"
    spec.write_text("num_nodes: 1\nworkdir: src\nrun: x\n")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    loaded = load_spec(spec)
    assert loaded.spec.workdir == str(tmp_path / "src")
    assert any("where SkyPilot looks" in w for w in _warned(loaded))


@pytest.mark.parametrize(
    ("workdir", "clone"),
    [
        (
            "https://github.com/org/repo.git",
            "git clone --quiet https://github.com/org/repo.git ~/sky_workdir",
        ),
        (
            "\n  url: https://github.com/org/repo\n  ref: v1.2",
            "git -C ~/sky_workdir checkout --quiet v1.2",
        ),
    ],
)
def test_a_git_workdir_is_cloned_on_the_nodes(workdir: str, clone: str) -> None:
    loaded = parse_spec(f"num_nodes: 2\nworkdir: {workdir}\nsetup: pip install -e .\nrun: x\n")
    spec = loaded.spec
    assert spec.workdir is None  # nothing is uploaded
    assert spec.setup is not None and clone in spec.setup
    assert spec.setup.rstrip().endswith("pip install -e .")
    assert spec.run.startswith("cd ~/sky_workdir\n")
    assert any("cloned on every node" in w for w in _warned(loaded))


def test_a_variable_without_a_value_in_file_mounts_is_refused_by_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The shape of SkyPilot's examples/airflow/data_preprocessing_gcp_sa.yaml: a null env
    used as a file_mounts source. Unset here, the refusal names the variable and how to set
    it, not a path with a literal ``$NAME`` that "does not exist"."""
    text = (
        "envs:\n  KEY_PATH: null\nfile_mounts:\n  /tmp/key.json: $KEY_PATH\n"
        "  /data:\n    name: bucket\nrun: x\n"
    )
    monkeypatch.delenv("KEY_PATH", raising=False)
    with pytest.raises(SpecError) as err:
        parse_spec(text, file="gcp_sa.yaml")
    message = str(err.value)
    assert err.value.line == 4 and "$KEY_PATH" in message and "no value" in message
    assert "export KEY_PATH=" in message and "`KEY_PATH: null`" in message
    # exported on this machine (a null env is read from it), the path is filled in
    (tmp_path / "key.json").write_text("{}")
    monkeypatch.setenv("KEY_PATH", str(tmp_path / "key.json"))
    [mount] = parse_spec(text, file="gcp_sa.yaml").spec.file_mounts
    assert (mount.target, mount.source) == ("/tmp/key.json", str(tmp_path / "key.json"))


def test_a_workdir_variable_is_filled_from_envs_or_refused_by_name(tmp_path: Path) -> None:
    loaded = parse_spec(f"envs:\n  CODE: {tmp_path}\nworkdir: ${{CODE}}\nnum_nodes: 1\nrun: x\n")
    assert loaded.spec.workdir == str(tmp_path)
    with pytest.raises(SpecError) as err:
        parse_spec("workdir: $NOWHERE_SET_29/code\nnum_nodes: 1\nrun: x\n")
    assert "$NOWHERE_SET_29" in str(err.value) and err.value.field == "workdir"


def test_a_job_group_with_a_comment_header_and_termination_delay_is_named_one(
    tmp_path: Path,
) -> None:
    """SkyPilot's llm/rl-post-training-jobgroup shape: comments, then a header with
    primary_tasks and termination_delay, then the tasks. It is a job group, not a
    cluster-only file."""
    from xyclaw.jobs.spec import load_pipeline

    spec = tmp_path / "group.yaml"
    spec.write_text(
        "# RLHF with job groups\n# sky jobs launch group.yaml\n---\nname: rl\n"
        "execution: parallel\nprimary_tasks: [trainer]\ntermination_delay: 5s\n---\n"
        "name: server\nrun: python serve.py\n---\nname: trainer\nrun: python train.py\n"
    )
    with pytest.raises(SpecError) as err:
        load_pipeline(spec, known_gpus=KNOWN)
    assert "job group" in str(err.value) and err.value.line == 5


def test_a_storage_mount_in_a_minimal_file_is_only_warned_about(tmp_path: Path) -> None:
    """SkyPilot's minimal.yaml shape (file_mounts/setup/run only) with a storage mount
    written as a mapping beside a local file: read as SkyPilot's, the bucket is warned about
    and not uploaded, the local file still is (docs/jobs.md), never an error."""
    (tmp_path / "train.py").write_text("print(1)\n")
    text = (
        f"file_mounts:\n  /code/train.py: {tmp_path}/train.py\n"
        "  /data:\n    name: my-bucket\n    store: s3\n    mode: MOUNT\n"
        "setup: pip install torch\nrun: python /code/train.py\n"
    )
    loaded = parse_spec(text)
    assert loaded.source_format == "skypilot"
    assert [(m.target, m.source) for m in loaded.spec.file_mounts] == [
        ("/code/train.py", str(tmp_path / "train.py"))
    ]
    assert any("file_mounts./data" in w and "not uploaded" in w for w in _warned(loaded))


def test_skypilots_own_cluster_key_is_said_not_uploaded(tmp_path: Path) -> None:
    """A task that mounts ~/.ssh/sky-key (SkyPilot's cluster key) to let its nodes ssh to
    each other: XyClaw does not copy a private key to nodes, and says so where the file
    names it, instead of "does not exist" or an upload of a key."""
    text = (
        "num_nodes: 2\nfile_mounts:\n  ~/.ssh/sky-key: ~/.ssh/sky-key\n"
        "run: |\n  ssh -i ~/.ssh/sky-key $(echo $SKYPILOT_NODE_IPS | cut -d' ' -f2) hostname\n"
    )
    loaded = parse_spec(text)
    assert loaded.spec.file_mounts == ()
    warned = _warned(loaded)
    assert any(":3:" in w and "not uploaded" in w and "sky-key" in w for w in warned), warned
    assert any(":4:" in w and "no such file" in w for w in warned), warned


@pytest.mark.parametrize(
    "mounts",
    [
        "file_mounts:\n  data/in.txt: {src}\n",  # a relative target: SkyPilot's ~/data/in.txt
        "envs:\n  SRC: {src}\nfile_mounts:\n  /in.txt: $SRC\n",  # $VAR from envs
    ],
)
def test_skypilot_only_mounts_make_a_minimal_file_skypilot(tmp_path: Path, mounts: str) -> None:
    """A file with only file_mounts/setup/run whose mounts only SkyPilot reads (XyClaw's own
    form would refuse them) is read as SkyPilot's, not refused."""
    src = tmp_path / "in.txt"
    src.write_text("x")
    loaded = parse_spec(mounts.format(src=src) + "setup: pip install x\nrun: cat in.txt\n")
    assert loaded.source_format == "skypilot"
    [mount] = loaded.spec.file_mounts
    assert mount.source == str(src)


def test_a_git_workdir_makes_a_minimal_file_skypilot() -> None:
    loaded = parse_spec("workdir: https://github.com/org/repo.git\nrun: python train.py\n")
    assert loaded.source_format == "skypilot"
    assert "git clone" in (loaded.spec.setup or "")
