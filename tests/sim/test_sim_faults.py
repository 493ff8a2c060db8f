"""Faults on demand and what a user of the node sees."""

from __future__ import annotations

import re
import socket
import time
from collections.abc import Callable

import paramiko
import pytest

from xyclaw.sim.faults import SimFaultError
from xyclaw.sim.node import SimNode

XID_LINE = re.compile(r"NVRM: Xid \(PCI:(0000:[0-9a-f]{2}:00)\): (\d+), pid=([^,]+), (.*)$")


def _wait_for(predicate: Callable[[], bool], timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.02)
    return False


def _upload(ssh, text: str) -> None:
    sftp = ssh.ssh.open_sftp()
    with sftp.open("train.py", "w") as handle:
        handle.write(text)
    sftp.close()


def test_xid_79_writes_the_kernel_line_and_removes_the_gpu(node: SimNode, ssh) -> None:
    gpu = node.gpus[3]
    node.faults.xid(79, 3)
    lines = [XID_LINE.search(line) for line in ssh.run("dmesg").out.splitlines()]
    hits = [m for m in lines if m]
    assert len(hits) == 1
    pci, code, _, text = hits[0].groups()
    assert (pci, code, text) == (gpu.pci_short, "79", "GPU has fallen off the bus.")
    r = ssh.run("nvidia-smi --query-gpu=index,pci.bus_id --format=csv,noheader")
    assert len(r.out.splitlines()) == 7
    assert gpu.bus_id not in r.out
    assert r.status == 15
    assert "GPU is lost" in r.err
    assert len(ssh.run("nvidia-smi -L").out.splitlines()) == 7
    node.faults.clear("xid")
    assert len(ssh.run("nvidia-smi -L").out.splitlines()) == 8


@pytest.mark.parametrize("code", [13, 31, 43, 48, 63, 64, 74, 94, 95])
def test_every_listed_xid_is_logged(node: SimNode, ssh, code: int) -> None:
    node.faults.xid(code, 1)
    hits = [m for m in map(XID_LINE.search, ssh.run("dmesg -T").out.splitlines()) if m]
    assert code in {int(m.group(2)) for m in hits}
    assert len(ssh.run("nvidia-smi -L").out.splitlines()) == 8


def test_xid_kills_the_training_on_that_gpu(make_node, connect) -> None:
    node = make_node(time_scale=0.02)
    ssh = connect(node)
    _upload(ssh, "# sim: steps=100000\n")
    channel = ssh.ssh.get_transport().open_session()
    channel.exec_command("torchrun --nproc_per_node=8 train.py")
    assert _wait_for(lambda: all(g.loads for g in node.gpus))
    node.faults.xid(31, 5)
    assert channel.recv_exit_status() == 1
    err = channel.makefile_stderr("rb").read().decode()
    assert "[rank5]: RuntimeError: CUDA error: an illegal memory access was encountered" in err
    assert "ChildFailedError" in err
    dmesg = ssh.run("dmesg | grep Xid").out
    assert re.search(r"31, pid=\d+, name=python3, ", dmesg)


def test_uncorrectable_ecc_counts_and_flags(node: SimNode, ssh) -> None:
    node.faults.ecc_uncorrectable(2)
    q = "ecc.errors.uncorrected.volatile.total,remapped_rows.pending"
    rows = ssh.run(f"nvidia-smi --query-gpu={q} --format=csv,noheader").out.splitlines()
    assert rows[2] == "1, Yes"
    assert rows[0] == "0, No"
    assert "48, pid=" in ssh.run("dmesg").out
    assert re.search(r"DRAM Uncorrectable\s+: 1", ssh.run("nvidia-smi -q -d ECC -i 2").out)


def test_thermal_throttle_sets_reasons_and_heats_up(make_node, connect) -> None:
    clock = [1_000_000.0]
    node = make_node(clock=lambda: clock[0])
    ssh = connect(node)
    node.faults.thermal_throttle(0)
    clock[0] += 120
    q = "clocks_throttle_reasons.active,clocks_event_reasons.hw_thermal_slowdown,temperature.gpu"
    rows = ssh.run(f"nvidia-smi --query-gpu={q} --format=csv,noheader").out.splitlines()
    reasons, hw_thermal, temp = rows[0].split(", ")
    assert int(reasons, 16) & 0x40 and int(reasons, 16) & 0x20
    assert hw_thermal == "Active"
    assert int(temp) > 85
    assert rows[1].split(", ")[1] == "Not Active"
    node.faults.clear("thermal_throttle")
    assert ssh.run(f"nvidia-smi --query-gpu={q} --format=csv,noheader -i 0").out.startswith(
        "0x0000000000000001"
    )


def test_straggler_gpu_runs_lower(make_node, connect) -> None:
    node = make_node(time_scale=0.02)
    ssh = connect(node)
    _upload(ssh, "# sim: steps=100000\n")
    ssh.run("nohup torchrun --nproc_per_node=8 train.py > log 2>&1 &")
    assert _wait_for(lambda: "step 2/" in ssh.run("cat log").out)
    node.faults.straggler(6)
    time.sleep(1.0)
    rows = ssh.run(
        "nvidia-smi --query-gpu=utilization.gpu,power.draw --format=csv,noheader,nounits"
    ).out.splitlines()
    util = [float(r.split(", ")[0]) for r in rows]
    power = [float(r.split(", ")[1]) for r in rows]
    assert util[6] < min(util[:6]) - 20
    assert power[6] < min(power[:6]) - 50
    ssh.run("pkill -9 -f train.py")


def test_nccl_watchdog_aborts_the_training(make_node, connect) -> None:
    node = make_node(time_scale=0.001)
    ssh = connect(node)
    _upload(ssh, "# sim: steps=100000\n")
    node.faults.nccl_watchdog()
    r = ssh.run("torchrun --nproc_per_node=2 train.py")
    assert r.status == 1
    assert re.search(
        r"\[Rank 1\] Watchdog caught collective operation timeout: WorkNCCL\(SeqNum=\d+, "
        r"OpType=ALLREDUCE, NumelIn=\d+, NumelOut=\d+, Timeout\(ms\)=600000\) ran for \d+ "
        r"milliseconds before timing out\.",
        r.err,
    )
    assert "exitcode: -6" in r.err
    r = ssh.run("WORLD_SIZE=2 RANK=0 MASTER_ADDR=localhost python train.py --lora")
    assert r.status == 134  # SIGABRT
    assert "[Rank 0] To avoid data inconsistency, we are taking the entire process down." in r.err


def test_node_down_and_up(make_node, connect, client_key) -> None:
    node = make_node()
    ssh = connect(node)
    ssh.run("echo keep > /root/file; nohup sleep 999 > /dev/null 2>&1 &")
    address = node.address
    node.faults.node_down()
    with pytest.raises(OSError), socket.create_connection(address, timeout=2):
        pass
    with pytest.raises((paramiko.SSHException, EOFError, OSError)):
        ssh.run("true")
    node.faults.node_up()
    assert node.address == address
    again = connect(node)
    assert again.run("cat /root/file").out == "keep\n"
    assert again.run("pgrep -f 'sleep 999'").status == 1


def test_hang_accepts_but_never_answers(node: SimNode, client_key) -> None:
    node.faults.hang()
    sock = socket.create_connection(node.address, timeout=5)
    sock.settimeout(0.5)
    with pytest.raises(TimeoutError):
        sock.recv(100)
    sock.close()
    node.faults.clear("hang")
    sock = socket.create_connection(node.address, timeout=5)
    sock.settimeout(5)
    assert sock.recv(100).startswith(b"SSH-2.0-")
    sock.close()


def test_hang_stalls_an_open_session(node: SimNode, ssh) -> None:
    node.faults.hang()
    transport = ssh.ssh.get_transport()
    with pytest.raises(paramiko.SSHException):
        transport.open_session(timeout=0.5)
    node.faults.clear()
    assert ssh.run("echo back").out == "back\n"


def test_slow_link_delays_replies(node: SimNode, ssh) -> None:
    started = time.monotonic()
    ssh.run("true")
    fast = time.monotonic() - started
    node.faults.slow_link(0.15)
    started = time.monotonic()
    ssh.run("true")
    slow = time.monotonic() - started
    assert slow >= 0.15 and slow > fast + 0.1
    node.faults.slow_link(0.0, loss=0.2)
    assert ssh.run("echo lossy").out == "lossy\n"
    node.faults.clear("slow_link")


def test_link_down_shrinks_what_nccl_uses(node: SimNode, ssh) -> None:
    node.faults.link_down(1)
    assert "State: Down" in ssh.run("ibstat mlx5_1").out
    debug = ssh.run("NCCL_DEBUG=INFO all_reduce_perf -g 8 -b 8 -e 8").out
    using = re.search(r"NET/IB : Using (.*)", debug)
    assert using is not None
    assert "mlx5_0" in using.group(1) and "mlx5_1" not in using.group(1)


def test_bad_fault_arguments(node: SimNode) -> None:
    with pytest.raises(SimFaultError):
        node.faults.xid(79, 8)
    with pytest.raises(SimFaultError):
        node.faults.xid(1234, 0)
    with pytest.raises(SimFaultError):
        node.faults.clear("meteor")
    node.faults.straggler(1)
    assert node.faults.active() == ["straggler(gpu=1)"]
