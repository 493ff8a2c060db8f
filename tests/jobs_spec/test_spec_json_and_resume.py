"""The spec as the history keeps it (JSON), and the run command of a resumed attempt."""

from __future__ import annotations

import json
import shlex
import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from xyclaw.jobs.spec import (
    Budget,
    FileMount,
    JobKind,
    JobSpec,
    RecoveryCause,
    RecoveryPolicy,
    Resources,
    ServiceSpec,
    SpecError,
    parse_spec,
    render_resume_arg,
    render_run,
    resume_env,
)

names = st.from_regex(r"[A-Za-z0-9][A-Za-z0-9._-]{0,20}", fullmatch=True)
env_names = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,10}", fullmatch=True)
texts = st.text(min_size=1, max_size=40).filter(lambda t: t.strip() != "")


@st.composite
def specs(draw: st.DrawFn) -> JobSpec:
    kind = draw(st.sampled_from(list(JobKind)))
    checkpoint = draw(st.none() | st.just("/shared/ck/run 1"))
    return JobSpec(
        name=draw(names),
        run=draw(texts),
        kind=kind,
        resources=Resources(
            gpu=draw(st.none() | st.sampled_from(["A100-80G", "H100", "RTX4090"])),
            nodes=draw(st.integers(1, 64)),
            gpus_per_node=draw(st.none() | st.integers(1, 8)),
            cluster=draw(st.none() | names),
            provider=draw(st.none() | st.just("sim")),
            region=draw(st.none() | st.just("xiamen")),
        ),
        image=draw(st.none() | st.just("nvcr.io/nvidia/pytorch:24.05-py3")),
        workdir=draw(st.none() | st.just("/home/me/project")),
        setup=draw(st.none() | texts),
        env=draw(st.dictionaries(env_names, st.text(max_size=20), max_size=4)),
        env_from_local=tuple(draw(st.lists(env_names, max_size=2, unique=True))),
        file_mounts=tuple(
            FileMount(f"/data/{i}", f"/local/{i}") for i in range(draw(st.integers(0, 2)))
        ),
        checkpoint_dir=checkpoint,
        resume_arg=None if checkpoint is None else draw(st.just("--resume {latest}")),
        max_runtime_s=draw(st.none() | st.integers(1, 10**7)),
        budget=draw(st.none() | st.builds(Budget, st.integers(1, 10**15), st.just("USD"))),
        recovery=RecoveryPolicy(
            draw(st.integers(0, 100)),
            tuple(draw(st.lists(st.sampled_from(list(RecoveryCause)), unique=True))),
            draw(st.booleans()),
        ),
        release_when_done=draw(st.none() | st.booleans()),
        service=ServiceSpec(draw(st.integers(1, 65535)), "/v1/models", 60)
        if kind is JobKind.SERVICE
        else None,
        skypilot=draw(st.booleans()),
    )


@settings(max_examples=150, deadline=None)
@given(specs())
def test_json_round_trip(spec: JobSpec) -> None:
    text = spec.to_json()
    again = JobSpec.from_json(text)
    assert again == spec and again.to_json() == text
    assert isinstance(json.loads(text)["budget"] or {}, dict)


def test_a_loaded_spec_round_trips() -> None:
    loaded = parse_spec(
        "name: r\nrun: |\n  python train.py\nenv: {A: '1', TOKEN: null}\n"
        "checkpoint_dir: /c\nresume_arg: --resume_from_checkpoint {latest}\nbudget: 12.5 USD\n",
        check_paths=False,
    )
    assert JobSpec.from_json(loaded.spec.to_json()) == loaded.spec


@pytest.mark.parametrize(
    ("mutate", "field"),
    [
        (lambda d: d.update(version=99), None),
        (lambda d: d["resources"].update(nodes=-1), "resources.nodes"),
        (lambda d: d["resources"].update(nodes="2"), "resources.nodes"),
        (lambda d: d.update(kind="batch"), "kind"),
        (lambda d: d["recovery"].update(on=["reboot"]), "recovery.on"),
        (lambda d: d.update(env={"A": 1}), "env"),
        (lambda d: d.update(budget={"amount_micro": 0, "currency": "CNY"}), "budget"),
        (lambda d: d.update(name=""), "name"),
        (lambda d: d.pop("run"), "run"),
        (lambda d: d.update(resume_arg="--resume"), "resume_arg"),
        (lambda d: d.update(file_mounts=[{"target": "/x"}]), "file_mounts[0]"),
    ],
)
def test_damaged_stored_spec_is_a_spec_error(mutate: object, field: str | None) -> None:
    spec = JobSpec(name="a", run="x", checkpoint_dir="/c", resume_arg="--r {latest}")
    data = spec.to_dict()
    mutate(data)  # type: ignore[operator]
    with pytest.raises(SpecError) as err:
        JobSpec.from_dict(data)
    assert err.value.field == field and err.value.file == "stored job spec"
    assert err.value.hint


@pytest.mark.parametrize("text", ["", "[1, 2]", "{", "null"])
def test_stored_spec_that_is_not_a_json_object(text: str) -> None:
    with pytest.raises(SpecError):
        JobSpec.from_json(text)


def test_specs_built_in_code_obey_the_same_rules() -> None:
    with pytest.raises(SpecError, match=r"resources\.nodes"):
        Resources(nodes=0)
    with pytest.raises(SpecError, match="service"):
        JobSpec(name="s", run="x", kind=JobKind.SERVICE)
    with pytest.raises(SpecError, match="resume_arg"):
        JobSpec(name="s", run="x", resume_arg="--r {latest}")
    spec = JobSpec(name="s", run="x", env={"A": "1"})
    with pytest.raises(TypeError):
        spec.env["A"] = "2"  # type: ignore[index]


SPEC = JobSpec(
    name="r",
    run="export A=1\ntorchrun --nproc_per_node 8 train.py \\\n  --output_dir /c\n# done\n",
    checkpoint_dir="/c",
    resume_arg="--resume_from_checkpoint {latest}",
)


def test_resume_argument_points_at_the_checkpoint_quoted() -> None:
    assert (
        render_resume_arg(SPEC, "/c/checkpoint-200") == "--resume_from_checkpoint /c/checkpoint-200"
    )
    odd = "/c/step 3; rm -rf ~"
    arg = render_resume_arg(SPEC, odd)
    assert arg is not None and shlex.split(arg) == ["--resume_from_checkpoint", odd]
    assert render_resume_arg(SPEC, None) is None  # nothing to resume from
    assert render_resume_arg(JobSpec(name="n", run="x"), "/c/1") is None  # no resume_arg


def test_resumed_run_appends_to_the_last_command_line() -> None:
    assert render_run(SPEC, None) == SPEC.run
    resumed = render_run(SPEC, "/c/checkpoint-200")
    assert resumed.splitlines()[2] == "  --output_dir /c --resume_from_checkpoint /c/checkpoint-200"
    assert resumed.endswith("# done\n")
    own = JobSpec(
        name="o",
        run="python train.py $XYCLAW_RESUME_ARG --x 1\n",
        checkpoint_dir="/c",
        resume_arg="--resume {latest}",
    )
    assert render_run(own, "/c/5") == own.run  # the script places it itself
    assert resume_env(own, "/c/5") == {
        "XYCLAW_RESUME_ARG": "--resume /c/5",
        "XYCLAW_LATEST_CHECKPOINT": "/c/5",
    }
    assert resume_env(own, None) == {"XYCLAW_RESUME_ARG": "", "XYCLAW_LATEST_CHECKPOINT": ""}


def test_resumed_run_is_a_working_shell_script(tmp_path: object) -> None:
    spec = JobSpec(
        name="sh",
        run='printf "%s|" "$@" > /dev/null\npython3 -c "import sys; print(sys.argv[1:])" --x 1\n',
        checkpoint_dir="/c",
        resume_arg="--resume {latest}",
    )
    script = render_run(spec, "/c/step 7")
    out = subprocess.run(["bash", "-c", script], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "['--x', '1', '--resume', '/c/step 7']"
