"""Broken specs: a SpecError naming the file, the line and the field, with what is allowed;
never a PyYAML exception or a traceback."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.jobs_spec.conftest import SpecWriter
from tests.support.mangle import mangled
from xyclaw.errors import XyclawError
from xyclaw.jobs.spec import LoadedSpec, SpecError, load_spec, parse_spec

Load = Callable[..., LoadedSpec]

# (spec text, line, field, words the message or hint must carry)
CASES = [
    ("run: x\nkind: training\n", 2, "kind", ["unknown kind 'training'", "train, service"]),
    ("run: x\nresources:\n  nodes: -2\n", 3, "resources.nodes", ["-2", "1 to 1024"]),
    ("run: x\nresources:\n  nodes: two\n", 3, "resources.nodes", ["'two' is not a whole"]),
    ("run: x\nresources:\n  nodes: 2.5\n", 3, "resources.nodes", ["2.5"]),
    ("run: x\nresources:\n  nodes: '4'\n", 3, "resources.nodes", ["'4' is not a whole"]),
    ("run: x\nresources:\n  gpus_per_node: 0\n", 3, "resources.gpus_per_node", ["1 to 64"]),
    ("run: x\nresources:\n  gpu: A100:0.5\n", 3, "resources.gpu", ["whole GPUs"]),
    ("run: x\nresources:\n  gpu: A100:lots\n", 3, "resources.gpu", ["'lots'"]),
    (
        "run: x\nresources:\n  gpu: A100:8\n  gpus_per_node: 4\n",
        4,
        "resources.gpus_per_node",
        ["disagrees"],
    ),
    ("run: x\nresources: 8\n", 2, "resources", ["expected a mapping"]),
    ("run: x\nresourses:\n  gpu: A100\n", 2, "resourses", ["did you mean `resources`"]),
    ("run: x\nresources:\n  gpuz: A100\n", 3, "resources.gpuz", ["did you mean `gpu`"]),
    ("name: a\n", None, "run", ["no `run` command"]),
    ("run:\n", 1, "run", ["no `run` command"]),
    ("run: [a, b]\n", 1, "run", ["expected a command, got a list"]),
    ("run: x\nname: 'my job'\n", 2, "name", ["'my job' is not a job name", "letters"]),
    ("run: x\nmax_runtime: forever\n", 2, "max_runtime", ["'forever'", "'90m'"]),
    ("run: x\nmax_runtime: -60\n", 2, "max_runtime", ["positive"]),
    ("run: x\nbudget: -5\n", 2, "budget", ["negative"]),
    ("run: x\nbudget: 5 CNY USD\n", 2, "budget", ["'5 CNY USD' is not an amount"]),
    ("run: x\nbudget: $5 CNY\n", 2, "budget", ["two currencies"]),
    ("run: x\nbudget: {amount: 5, curency: USD}\n", 2, "budget", ["curency"]),
    ("run: x\nenv:\n  1BAD: x\n", 3, "env.1BAD", ["not a variable name"]),
    ("run: x\nenv:\n  A: [1, 2]\n", 3, "env.A", ["expected a value"]),
    ("run: x\nenv: [A, B]\n", 2, "env", ["expected a mapping"]),
    ("run: x\ncheckpoint_dir: ckpt\n", 2, "checkpoint_dir", ["absolute path"]),
    (
        "run: x\ncheckpoint_dir: /c\nresume_arg: --resume\n",
        3,
        "resume_arg",
        ["has no {latest}"],
    ),
    ("run: x\nresume_arg: --resume {latest}\n", 2, "resume_arg", ["needs checkpoint_dir"]),
    ("run: x\nrecovery:\n  on: [node_lost, oom]\n", 3, "recovery.on[1]", ["unknown cause"]),
    ("run: x\nrecovery:\n  max_restarts: 1000\n", 3, "recovery.max_restarts", ["0 to 100"]),
    ("run: x\nrecovery:\n  allow_spend: sure\n", 3, "recovery.allow_spend", ["true or false"]),
    ("run: x\nrelease_when_done: maybe\n", 2, "release_when_done", ["true or false"]),
    ("run: x\nkind: service\n", 2, "service", ["port"]),
    ("run: x\nservice:\n  port: 80\n", 2, "service", ["only for `kind: service`"]),
    ("run: x\nkind: service\nservice:\n  port: 70000\n", 4, "service.port", ["1 to 65535"]),
    (
        "run: x\nkind: service\nservice:\n  port: 80\n  readiness_path: health\n",
        5,
        "service.readiness_path",
        ["not an HTTP path"],
    ),
    ("run: x\nworkdir: missing\n", 2, "workdir", ["does not exist"]),
    ("run: x\nworkdir: data.txt\n", 2, "workdir", ["is not a folder"]),
    # XyClaw's own form (kind:); without a XyClaw field, these are SkyPilot's (test_skypilot_*)
    ("kind: train\nrun: x\nworkdir: {url: https://github.com/a/b}\n", 3, "workdir", ["git URL"]),
    (
        "kind: train\nrun: x\nfile_mounts:\n  rel/path: data.txt\n",
        4,
        "file_mounts.rel/path",
        ["on the node"],
    ),
    ("run: x\nrun: y\n", 2, "run", ["appears twice (first on line 1)"]),
    ("run: x\nimage: two words\n", 2, "image", ["not an image reference"]),
    ("- run: x\n", 1, None, ["holds a list at the top"]),
    ("just text\n", 1, None, ["holds the text 'just text' at the top"]),
    ("run: x\n---\nrun: y\n", 2, None, ["more than one YAML document"]),
    ("run: x\nenv:\n  A: 'open\n", 3, None, ["not valid YAML"]),
    ("run: x\n  bad: indent\n", 2, None, ["not valid YAML"]),
    ("run: x\nenv: {A: !!python/object:os.system x}\n", 2, "env.A", ["no !!python tags"]),
    ("run: x\n? [a, b]\n: c\n", 2, None, ["a key must be a plain name"]),
    ("", None, None, ["is empty"]),
    ("# only a comment\n", None, None, ["is empty"]),
]


@pytest.mark.parametrize(("text", "line", "field", "words"), CASES)
def test_broken_spec_names_file_line_and_field(
    write_spec: SpecWriter, text: str, line: int | None, field: str | None, words: list[str]
) -> None:
    path = write_spec(text)
    with pytest.raises(SpecError) as err:
        load_spec(path)
    e = err.value
    assert isinstance(e, XyclawError) and e.exit_code == 2
    assert (e.file, e.line, e.field) == (str(path), line, field)
    shown = str(e)
    where = f"{path}:{line}" if line else str(path)
    assert shown.startswith(where + ":"), shown
    for word in words:
        assert word in shown, (word, shown)
    assert "\n  -> " in shown  # every error says what to do


def test_non_utf8_file_names_the_line(write_spec: SpecWriter) -> None:
    path = write_spec("name: a\nrun: echo caf\xe9\n".encode("latin-1"))
    with pytest.raises(SpecError) as err:
        load_spec(path)
    assert err.value.line == 2 and "not UTF-8" in str(err.value)
    assert "0xe9" in str(err.value)


def test_utf16_and_bom_files_are_read(write_spec: SpecWriter) -> None:
    spec = load_spec(write_spec("run: echo 你好\n".encode("utf-16"))).spec
    assert spec.run == "echo 你好"
    spec = load_spec(write_spec(b"\xef\xbb\xbfrun: echo hi\n")).spec
    assert spec.run == "echo hi"


@pytest.mark.parametrize(
    "junk",
    [
        bytes(range(256)),
        b"\x7fELF\x02\x01\x01\x00" + b"\x00" * 64,
        b"PK\x03\x04\x14\x00\x00\x00\x08\x00",
        b"\x1f\x8b\x08\x00\x00\x00\x00\x00",
    ],
)
def test_binary_junk(write_spec: SpecWriter, junk: bytes) -> None:
    with pytest.raises(SpecError) as err:
        load_spec(write_spec(junk))
    assert str(err.value).startswith(str(err.value.file))
    assert "binary" in str(err.value) or "UTF-8" in str(err.value)


def test_control_characters_are_a_spec_error(write_spec: SpecWriter) -> None:
    with pytest.raises(SpecError) as err:
        load_spec(write_spec("run: echo \x07bell\n"))
    assert "not valid YAML" in str(err.value)


def test_an_alias_bomb_stops_early(write_spec: SpecWriter) -> None:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    for i in range(1, 9):
        prev = f"*a{i - 1}"
        lines.append(f"a{i}: &a{i} [{', '.join([prev] * 10)}]")
    lines.append("run: x")
    with pytest.raises(SpecError) as err:
        load_spec(write_spec("\n".join(lines) + "\n"))
    assert "expands to more than" in str(err.value)


def test_a_recursive_alias_is_an_error(write_spec: SpecWriter) -> None:
    with pytest.raises(SpecError) as err:
        load_spec(write_spec("run: x\nenv: &e [*e]\n"))
    assert "nests more than" in str(err.value)


def test_missing_file_folder_and_huge_file(tmp_path: Path) -> None:
    with pytest.raises(SpecError, match="does not exist"):
        load_spec(tmp_path / "nope.yaml")
    with pytest.raises(SpecError, match="is a folder"):
        load_spec(tmp_path)
    big = tmp_path / "big.yaml"
    big.write_text("run: x\n" + "# padding\n" * 120_000)
    with pytest.raises(SpecError, match="at most"):
        load_spec(big)


def test_unknown_format_argument() -> None:
    with pytest.raises(SpecError, match="unknown spec format"):
        parse_spec("run: x\n", source_format="dstack")  # type: ignore[arg-type]


GOOD = (
    "name: job-1\nkind: train\nresources:\n  gpu: A100:8\n  nodes: 2\nrun: |\n  python t.py\n"
    "env:\n  A: '1'\ncheckpoint_dir: /c\nresume_arg: --r {latest}\nmax_runtime: 2h\n"
    "budget: 10 CNY\nrecovery:\n  on: [xid]\nrelease_when_done: true\n"
)
SKY = (
    "name: sky\nnum_nodes: 2\nresources:\n  accelerators: A100:8\n  cloud: aws\n"
    "envs:\n  A: b\nrun: |\n  echo $SKYPILOT_NODE_RANK\n"
)


@pytest.mark.parametrize("original", [GOOD, SKY], ids=["xyclaw", "skypilot"])
def test_damaged_specs_fail_only_with_spec_error(original: str) -> None:
    @settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(mangled(original))
    def check(text: str) -> None:
        try:
            parse_spec(text, file="damaged.yaml", check_paths=False)
        except SpecError as exc:
            assert exc.message.startswith("damaged.yaml") and exc.hint

    check()


@settings(max_examples=150, deadline=None)
@given(st.binary(max_size=200))
def test_random_bytes_fail_only_with_spec_error(data: bytes) -> None:
    from xyclaw.jobs.specyaml import decode_spec_bytes

    try:
        parse_spec(decode_spec_bytes(data, "r.yaml"), file="r.yaml", check_paths=False)
    except SpecError as exc:
        assert exc.message.startswith("r.yaml")
