"""nvidia-smi on the simulated node, in the formats monitoring tools parse."""

from __future__ import annotations

import csv
import io
import re
import time

import pytest

from xyclaw.sim.gpu import Load
from xyclaw.sim.machine import Machine

QUERY = (
    "index,uuid,name,timestamp,utilization.gpu,utilization.memory,memory.used,memory.total,"
    "power.draw,power.limit,temperature.gpu,clocks.sm,clocks.mem,"
    "clocks_throttle_reasons.active,ecc.errors.uncorrected.volatile.total,pstate,fan.speed"
)


def _rows(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text), skipinitialspace=True))


def test_query_csv_header_units_and_field_order(sh) -> None:
    r = sh(f"nvidia-smi --query-gpu={QUERY} --format=csv")
    assert r.status == 0
    rows = _rows(r.out)
    assert rows[0] == [
        "index", "uuid", "name", "timestamp", "utilization.gpu [%]", "utilization.memory [%]",
        "memory.used [MiB]", "memory.total [MiB]", "power.draw [W]", "power.limit [W]",
        "temperature.gpu", "clocks.current.sm [MHz]", "clocks.current.memory [MHz]",
        "clocks_throttle_reasons.active", "ecc.errors.uncorrected.volatile.total", "pstate",
        "fan.speed [%]",
    ]  # fmt: skip
    assert len(rows) == 9
    first = rows[1]
    assert first[0] == "0"
    assert re.fullmatch(r"GPU-[0-9a-f-]{36}", first[1])
    assert first[2] == "NVIDIA A800-SXM4-80GB"
    assert re.fullmatch(r"\d{4}/\d\d/\d\d \d\d:\d\d:\d\d\.\d{3}", first[3])
    assert first[4] == "0 %"
    assert first[7] == "81920 MiB"
    assert re.fullmatch(r"\d+\.\d\d W", first[8])
    assert first[9] == "400.00 W"
    assert first[13] == "0x0000000000000001"  # idle
    assert first[14] == "0"
    assert first[16] == "[N/A]"  # SXM boards have no fan


def test_noheader_nounits_and_order_asked(sh) -> None:
    r = sh("nvidia-smi --query-gpu=memory.total,index --format=csv,noheader,nounits -i 3")
    assert r.out == "81920, 3\n"


def test_aliases_and_consumer_card(make_node, connect) -> None:
    node = make_node(gpu_model="RTX4090", gpu_count=2, fabric="eth-25")
    r = connect(node).run(
        "nvidia-smi --query-gpu=gpu_name,fan.speed,pstate,ecc.errors.uncorrected.volatile.total "
        "--format=csv"
    )
    rows = _rows(r.out)
    assert rows[0] == ["name", "fan.speed [%]", "pstate", "ecc.errors.uncorrected.volatile.total"]
    assert rows[1][0] == "NVIDIA GeForce RTX 4090"
    assert rows[1][1].endswith(" %")
    assert rows[1][2] == "P8"
    assert rows[1][3] == "[N/A]"


def test_unknown_field_answers_like_nvidia_smi(sh) -> None:
    r = sh("nvidia-smi --query-gpu=index,gpu.bogus --format=csv")
    assert r.status == 2
    assert r.out.startswith('Field "gpu.bogus" is not a valid field to query.')


def test_missing_format_and_bad_option(sh) -> None:
    assert sh("nvidia-smi --query-gpu=index").status != 0
    assert sh("nvidia-smi --bogus").status == 2


def test_list_gpus(sh, machine: Machine) -> None:
    lines = sh("nvidia-smi -L").out.splitlines()
    assert len(lines) == 8
    assert lines[0] == f"GPU 0: NVIDIA A800-SXM4-80GB (UUID: {machine.gpus.gpus[0].uuid})"


def test_topology_matrix(sh) -> None:
    out = sh("nvidia-smi topo -m").out
    header, *rows = out.split("\n\nLegend:")[0].splitlines()
    assert header.split("\t")[1:13] == [f"GPU{i}" for i in range(8)] + [f"NIC{j}" for j in range(4)]
    gpu0 = rows[0].split("\t")
    assert gpu0[0] == "GPU0" and gpu0[1] == " X " and gpu0[2] == "NV8"
    assert "NIC Legend:" in out and "  NIC3: mlx5_3" in out


def test_query_sections(sh, machine: Machine) -> None:
    out = sh("nvidia-smi -q -d ECC,PERFORMANCE -i 0").out
    assert "==============NVSMI LOG==============" in out
    assert re.search(r"^    ECC Mode\n        Current\s+: Enabled$", out, re.M)
    assert re.search(r"^            DRAM Uncorrectable\s+: 0$", out, re.M)
    assert re.search(r"^        Idle\s+: Active$", out, re.M)
    assert "FB Memory Usage" not in out


def test_table_view(sh) -> None:
    out = sh("nvidia-smi").out.splitlines()
    assert out[2].startswith("| NVIDIA-SMI 550.")
    assert "NVIDIA A800-SXM4-80GB" in out[8]
    assert all(len(line) == 91 for line in out[1:9])
    assert "No running processes found" in "\n".join(out)


def test_loop_ms_streams_rows(ssh) -> None:
    transport = ssh.ssh.get_transport()
    channel = transport.open_session()
    channel.exec_command(
        "nvidia-smi --query-gpu=index,utilization.gpu --format=csv,noheader -lms 100"
    )
    reader = channel.makefile("rb")
    started = time.monotonic()
    lines = [reader.readline() for _ in range(8 * 4)]
    elapsed = time.monotonic() - started
    channel.close()
    assert [line.split(b",")[0] for line in lines[:8]] == [str(i).encode() for i in range(8)]
    assert elapsed >= 0.25  # four samples 100 ms apart, not one burst


def test_loop_header_printed_once(sh) -> None:
    r = sh("nvidia-smi --query-gpu=index --format=csv -lms 20 | head -n 17")
    assert r.out.count("index") == 1
    assert len(r.out.splitlines()) == 17


def test_compute_apps_and_memory_follow_processes(sh, machine: Machine) -> None:
    machine.gpus.add_load(2, Load(4242, "/usr/bin/python3", 90.0, 30000))
    r = sh("nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv,noheader")
    assert r.out == "4242, /usr/bin/python3, 30000 MiB\n"
    used = sh("nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -i 2").out
    assert used == "30000\n"
    machine.gpus.remove_pid(4242)
    assert sh("nvidia-smi --query-compute-apps=pid --format=csv,noheader").out == ""


def test_power_limit_can_be_lowered(sh) -> None:
    r = sh("nvidia-smi -i 0 -pl 300")
    assert "was set to 300.00 W from 400.00 W" in r.out
    assert sh("nvidia-smi --query-gpu=power.limit --format=csv,noheader -i 0").out == "300.00 W\n"
    assert sh("nvidia-smi -i 0 -pl 9000").status != 0


@pytest.mark.parametrize("model,total", [("H100", "81559"), ("H200", "143771"), ("L40S", "46068")])
def test_models_report_their_memory(make_node, connect, model: str, total: str) -> None:
    node = make_node(gpu_model=model, gpu_count=1)
    out = connect(node).run("nvidia-smi --query-gpu=memory.total --format=csv,noheader,nounits")
    assert out.out == f"{total}\n"
