"""The simulated node's `dcgmi dmon` (issue 34): DCGM's profiling fields follow the work the
GPUs do, in the shape real dcgmi prints, and GeForce nodes have no dcgmi."""

from __future__ import annotations

from pathlib import Path

from tests.sim.conftest import ShellRun
from xyclaw.parsers.dcgm import DCGM_COMMAND, parse_dcgm
from xyclaw.sim.commands import new_machine
from xyclaw.sim.context import Stdio
from xyclaw.sim.gpu import Load
from xyclaw.sim.machine import Machine
from xyclaw.sim.nodespec import SimNodeSpec
from xyclaw.sim.shell import Shell
from xyclaw.sim.streams import BufferOut, BytesIn


def _settle(machine: Machine, load: Load) -> None:
    for gpu in range(2):
        machine.gpus.add_load(gpu, load)
    machine.gpus._last -= 120.0  # two minutes of the load, integrated at once
    machine.gpus.advance()


def test_dmon_prints_dcgms_table_of_the_three_fields(sh: ShellRun, machine: Machine) -> None:
    result = sh("dcgmi dmon -e 1002,1004,1005 -c 1")
    assert result.status == 0
    lines = result.out.splitlines()
    assert lines[0].split() == ["#Entity", "SMACT", "TENSO", "DRAMA"]
    assert lines[1] == "ID"
    assert [line.split()[:2] for line in lines[2:]] == [["GPU", str(i)] for i in range(8)]
    assert sh("dcgmi dmon -e 4242 -c 1").status == 1


def test_a_busy_loop_and_real_training_read_apart(sh: ShellRun, machine: Machine) -> None:
    _settle(machine, Load(9001, "python", 100.0, 1000, intensity=0.03, mem_util=1.0))
    spin = parse_dcgm(sh(DCGM_COMMAND).out)
    assert spin[0].sm_active < 0.1 and spin[0].tensor_active < 0.02
    assert machine.gpus.gpus[0].util > 99  # nvidia-smi's count says busy
    machine.gpus.remove_pid(9001)
    _settle(machine, Load(9002, "python", 97.0, 1000, intensity=0.92, tensor_active=0.5))
    work = parse_dcgm(sh(DCGM_COMMAND).out)
    assert work[0].sm_active > 0.7 and 0.4 < work[0].tensor_active < 0.6
    assert work[0].dram_active > 0.2


def test_geforce_nodes_have_no_dcgmi(tmp_path: Path) -> None:
    machine = new_machine(SimNodeSpec("rtx-0", "RTX4090", 2, "eth-25", 0), root=tmp_path / "m")
    try:
        out, err = BufferOut(), BufferOut()
        shell = Shell(machine, env=machine.base_env("root"), cwd="/root")
        status = shell.run_script(DCGM_COMMAND, Stdio(BytesIn(b""), out, err))
        assert status != 0 and parse_dcgm(out.text()) == []
    finally:
        machine.crash()
