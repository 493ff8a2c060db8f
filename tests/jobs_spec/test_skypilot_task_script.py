"""Issue 29 point 1: a SkyPilot task's setup and run run as SkyPilot runs them (its task
script through `bash -i`), checked with real bash, a Debian-style ~/.bashrc and a conda."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from xyclaw.jobs import skypilot
from xyclaw.jobs.spec import parse_spec

pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")

# Debian's and Ubuntu's ~/.bashrc start like this: nothing below runs without -i.
BASHRC = """\
case $- in
    *i*) ;;
      *) return;;
esac
export FROM_BASHRC=yes
"""
CONDA = """\
#!/bin/sh
if [ "$1 $2" = "info --base" ]; then echo "$FAKE_CONDA_BASE"; exit 0; fi
exit 1
"""
CONDA_SH = """\
conda() {
    if [ "$1" = activate ]; then export CONDA_DEFAULT_ENV="$2"; return 0; fi
    return 1
}
"""
COMMAND = """\
echo "bashrc=$FROM_BASHRC"
conda activate myenv && echo "conda=$CONDA_DEFAULT_ENV"
echo "pwd=$(pwd)"
echo "unbuffered=$PYTHONUNBUFFERED"
exit 3
"""


@pytest.fixture()
def node(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    home = tmp_path / "home"
    home.mkdir()
    (home / ".bashrc").write_text(BASHRC)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    conda = bin_dir / "conda"
    conda.write_text(CONDA)
    conda.chmod(0o755)
    base = tmp_path / "conda"
    (base / "etc" / "profile.d").mkdir(parents=True)
    (base / "etc" / "profile.d" / "conda.sh").write_text(CONDA_SH)
    work = tmp_path / "sky_workdir"
    work.mkdir()
    env = {
        "HOME": str(home),
        "PATH": f"{bin_dir}:{os.environ.get('PATH', '/usr/bin:/bin')}",
        "FAKE_CONDA_BASE": str(base),
        "TMPDIR": str(tmp_path),
    }
    return work, env


def _run(command: str, work: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    # as the rank wrapper runs a job's command: `bash -c "$c"`, no terminal, in the workdir
    return subprocess.run(
        ["bash", "-c", command],
        cwd=work,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )


def test_bashrc_and_conda_work_as_under_skypilot(node: tuple[Path, dict[str, str]]) -> None:
    work, env = node
    done = _run(skypilot.task_script(COMMAND), work, env)
    out = done.stdout + done.stderr
    assert "bashrc=yes" in out
    assert "conda=myenv" in out
    assert f"pwd={work}" in out
    assert "unbuffered=1" in out
    assert done.returncode == 3  # the user's exit status, not grep's
    for noise in skypilot.BASH_NOISE:
        assert noise not in out
    assert list(work.parent.glob("xyclaw-task.*")) == []  # the script file is removed


def test_plain_bash_c_misses_both(node: tuple[Path, dict[str, str]]) -> None:
    """What a SkyPilot task got before: `bash -c` reads no ~/.bashrc and has no conda."""
    work, env = node
    done = _run(COMMAND, work, env)
    assert "bashrc=yes" not in done.stdout
    assert "conda=myenv" not in done.stdout


def test_only_skypilot_tasks_are_wrapped() -> None:
    sky = parse_spec("num_nodes: 2\nrun: echo hi\n", check_paths=False).spec
    own = parse_spec("run: echo hi\nresources: {nodes: 2}\n", check_paths=False).spec
    assert sky.skypilot and not own.skypilot
    assert skypilot.node_command(sky, "echo hi") == skypilot.task_script("echo hi")
    assert skypilot.node_command(own, "echo hi") == "echo hi"


def test_a_skypilot_task_runs_on_num_nodes_one_by_default() -> None:
    """A CPU-only SkyPilot task without num_nodes runs once, not on every node."""
    service = parse_spec("envs: {PORT: '8000'}\nrun: python -m http.server\n", check_paths=False)
    assert service.spec.skypilot
    assert service.spec.nodes_on(4) == 1
    two = parse_spec("num_nodes: 2\nrun: echo hi\n", check_paths=False).spec
    assert two.nodes_on(4) == 2
    # XyClaw's own "run this on my cluster" still means every node
    mine = parse_spec("run: echo hi\n", check_paths=False, source_format="xyclaw").spec
    assert mine.nodes_on(4) == 4
