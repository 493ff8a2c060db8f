"""The fabric probe through Slurm (issue 33, c33): XyClaw's probe cannot reach a lab's compute
nodes over SSH, so it runs as a short batch job on them, against the real loopback Slurm; its
recommended NCCL settings are kept for the site and reach the jobs submitted afterwards."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.slurm.approve import submit
from tests.slurm.conftest import USER, LoginNode, as_root
from tests.slurm.test_slurm_cli import configure, xyclaw
from xyclaw.engine import Engine
from xyclaw.engine.approvals import ActionKind, ApprovalMismatch
from xyclaw.errors import ProviderError
from xyclaw.providers.slurm import quote

TASK = """\
name: after-probe
num_nodes: 2
resources:
  accelerators: A800:8
run: env | grep -E '^NCCL_' | sort
"""


@pytest.fixture
def engine(login_node: tuple[LoginNode, Path], make_jobs: object) -> Iterator[Engine]:
    from xyclaw.config import load_config
    from xyclaw.engine.compose import build_engine
    from xyclaw.paths import AppPaths

    configure(login_node[0])
    paths = AppPaths.from_environment()
    built = build_engine(paths, load_config(paths.config_file), start_guard=False)
    yield built
    built.close()


def probe_jobs() -> str:
    return as_root("squeue", "-h", "-u", USER, "-n", "xyclaw-probe", "-o", "%i")


def test_the_probe_runs_on_both_nodes_and_its_nccl_settings_reach_every_rank_of_the_next_job(
    engine: Engine,
) -> None:
    assert engine.slurm_nccl("lab") == {}  # never probed, never tuned: nothing made up
    card = engine.slurm_probe_card("lab")
    assert card.kind is ActionKind.EXEC and card.ref == "lab"
    assert "--partition=gpu --nodes=2 --ntasks-per-node=1" in str(card.command)
    # a card for another site, or one changed after the yes, runs nothing
    with pytest.raises(ApprovalMismatch):
        engine.slurm_probe("elsewhere", approved=card)
    assert probe_jobs().strip() == ""

    probe = engine.slurm_probe("lab", approved=card).result(timeout=120)
    assert sorted(probe.nodes) == ["n1", "n2"]  # one srun task on each node
    env = probe.settings.env()
    assert env, probe  # loopback is a TCP fabric: recommend() still names the socket NIC
    assert engine.slurm_nccl("lab") == env  # kept for the site

    view = submit(engine, str(_spec()))
    script = Path(view.folder, "env.sh").read_text()
    for name, value in env.items():
        assert f"export {name}={quote(value)}\n" in script, script
    deadline = time.monotonic() + 60
    while not Path(view.folder, "exit.json").exists():
        assert time.monotonic() < deadline, "the job after the probe did not end"
        time.sleep(0.3)
    for rank in (0, 1):
        lines = Path(view.folder, f"rank-{rank}.log").read_text().splitlines()
        # every rank gets exactly the probe's settings, beside the NCCL Inspector's own
        # variables XyClaw adds to a job (issue 34; inert where no node loads the plugin)
        tuned = [ln for ln in lines if not ln.startswith("NCCL_INSPECTOR_")]
        assert sorted(f"{k}={v}" for k, v in env.items()) == sorted(tuned), lines
        assert "NCCL_INSPECTOR_ENABLE=1" in lines, lines


def test_the_command_line_probes_only_after_a_yes(
    login_node: tuple[LoginNode, Path], make_jobs: object
) -> None:
    configure(login_node[0])
    home = as_root("getent", "passwd", USER).split(":")[5]
    folders = set(Path(home, ".xyclaw", "slurm").glob("probe-*"))
    refused = xyclaw("slurm", "probe", "lab")  # not at a terminal, no --yes
    assert refused.returncode != 0 and "confirm with --yes" in refused.stderr
    assert "action: slurm_probe" in refused.stderr and "sbatch --parsable" in refused.stderr
    assert "Traceback" not in refused.stderr
    assert probe_jobs().strip() == ""
    assert set(Path(home, ".xyclaw", "slurm").glob("probe-*")) == folders  # nothing written
    assert not _probes_kept()

    done = xyclaw("slurm", "probe", "lab", "--yes")
    assert done.returncode == 0, done.stderr
    assert "lab: probed n1, n2" in done.stdout, done.stdout
    assert "kept for lab" in done.stdout and "  NCCL_" in done.stdout, done.stdout
    assert "Traceback" not in done.stderr


def _probes_kept() -> bool:
    from xyclaw.paths import AppPaths

    return (AppPaths.from_environment().state_dir / "slurm-probes.json").exists()


def _spec() -> Path:
    path = Path(os.environ["XYCLAW_HOME"]) / "after-probe.yaml"
    path.write_text(TASK)
    return path


def test_a_probe_that_waits_past_its_bound_is_cancelled_and_nothing_is_kept(
    engine: Engine,
) -> None:
    hold = Path(os.environ["XYCLAW_HOME"]) / "hold.yaml"
    hold.write_text("name: hold\nnum_nodes: 2\nresources:\n  accelerators: A800:8\nrun: sleep 60\n")
    held = submit(engine, str(hold))  # every GPU of the partition is taken
    deadline = time.monotonic() + 30
    while "RUNNING" not in as_root("squeue", "-h", "-j", held.job_id, "-o", "%T"):
        assert time.monotonic() < deadline
        time.sleep(0.3)
    engine._slurm_probe_wait_s = 2.0  # the bound, short: the probe job queues behind it
    card = engine.slurm_probe_card("lab")
    with pytest.raises(ProviderError) as waited:
        engine.slurm_probe("lab", approved=card).result(timeout=60)
    assert "did not end within 2 s" in waited.value.message and waited.value.hint
    assert probe_jobs().strip() == ""  # its own probe job cancelled; the held job untouched
    assert "RUNNING" in as_root("squeue", "-h", "-j", held.job_id, "-o", "%T")
    assert engine.slurm_nccl("lab") == {}
    card = engine.slurm_cancel_card("lab", held.job_id)
    engine.slurm_cancel("lab", held.job_id, approved=card)
