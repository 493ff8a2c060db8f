"""The bootstrap checks against a simulated node's shell: the step reports the Clusters page
shows, one round trip for the four checks, a failing command named with its step, and the
driver versions read from the banner of real `nvidia-smi -q` output."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from xyclaw.engine.bootstrap import BootstrapError, NodeExpectation, bootstrap_node
from xyclaw.parsers.nvsmi import parse_query_details, parse_query_header
from xyclaw.remote import CommandResult
from xyclaw.sim.commands import new_machine
from xyclaw.sim.context import Stdio
from xyclaw.sim.machine import Machine
from xyclaw.sim.nodespec import SimNodeSpec
from xyclaw.sim.shell import Shell
from xyclaw.sim.streams import BufferOut, BytesIn


class NodeShell:
    """Runs each command on the simulated machine's shell and remembers what was asked."""

    def __init__(self, machine: Machine) -> None:
        self.machine = machine
        self.commands: list[str] = []

    def __call__(self, command: str) -> CommandResult:
        self.commands.append(command)
        out, err = BufferOut(), BufferOut()
        shell = Shell(self.machine, env=self.machine.base_env("root"), cwd="/root")
        status = shell.run_script(command, Stdio(BytesIn(b""), out, err))
        return CommandResult("node-0", command, status, out.text(), err.text())


@pytest.fixture
def a800(tmp_path: Path) -> Iterator[Machine]:
    machine = new_machine(SimNodeSpec("node-0", "A800", 8, "ib-hdr-200"), root=tmp_path / "m")
    yield machine
    machine.crash()


def bootstrap(run: NodeShell, want: NodeExpectation) -> list[tuple[str, str]]:
    seen: list[tuple[str, str]] = []
    bootstrap_node(run, want, "node-0", lambda step, what: seen.append((step, str(what))))
    return seen


def test_every_step_reports_what_it_saw_after_one_round_trip_for_the_checks(
    a800: Machine,
) -> None:
    run = NodeShell(a800)

    seen = bootstrap(run, NodeExpectation("A800", 8, "ib-hdr-200", image="pytorch-2.1"))

    assert [step for step, _ in seen] == ["driver", "gpus", "fabric", "disk", "setup"]
    driver = dict(seen)["driver"]
    assert driver.startswith("driver 5") and ", CUDA 12." in driver
    assert dict(seen)["gpus"] == "8 x A800"
    assert dict(seen)["fabric"].startswith("4 active InfiniBand ports at [200] Gb/s")
    assert dict(seen)["disk"].endswith("GiB free")
    assert dict(seen)["setup"] == "2 setup commands"
    assert len(run.commands) == 2  # the four checks in one exec, then the image's setup
    assert run.commands[1].startswith("mkdir -p /workspace/checkpoints")


def test_a_node_with_fewer_gpus_than_ordered_fails_the_gpus_step(a800: Machine) -> None:
    with pytest.raises(BootstrapError) as caught:
        bootstrap(NodeShell(a800), NodeExpectation("A800", 4, "ib-hdr-200"))

    assert caught.value.step == "gpus"
    assert "8 GPUs answer, 4 were ordered" in caught.value.message


def test_a_node_without_an_rdma_fabric_fails_the_fabric_step_with_the_command(
    tmp_path: Path,
) -> None:
    machine = new_machine(SimNodeSpec("node-0", "A800", 8, "eth-25"), root=tmp_path / "m")
    try:
        with pytest.raises(BootstrapError) as caught:
            bootstrap(NodeShell(machine), NodeExpectation("A800", 8, "ib-hdr-200"))
    finally:
        machine.crash()

    assert caught.value.step == "fabric"
    assert caught.value.message.startswith("node-0: fabric check failed: ")


@pytest.mark.parametrize(
    ("name", "driver", "cuda"),
    [("nvsmi_q_h100_590_load.txt", "590", "13."), ("nvsmi_q_h800_525_gpu0.txt", "525", "12.")],
)
def test_the_driver_check_reads_the_versions_from_the_banner_of_real_output(
    real_fixtures: Path, name: str, driver: str, cuda: str
) -> None:
    text = (real_fixtures / name).read_text()

    header = parse_query_header(text)
    full = parse_query_details(text)

    assert header.gpus == [] and full.gpus
    assert (header.driver_version, header.cuda_version) == (full.driver_version, full.cuda_version)
    assert header.driver_version is not None and header.driver_version.startswith(driver)
    assert header.cuda_version is not None and header.cuda_version.startswith(cuda)
    assert header.attached_gpus == full.attached_gpus
