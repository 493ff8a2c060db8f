"""all_reduce_perf on the simulated node: real text format, bandwidth from fabric and NCCL env."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from xyclaw.sim.node import SimClusterInfo

ROW = re.compile(
    r"^\s+(\d+)\s+(\d+)\s+(\w+)\s+(\w+)\s+(-?\d+)"
    r"\s+([\d.e+]+)\s+([\d.]+)\s+([\d.]+)\s+(\S+)\s+([\d.e+]+)\s+([\d.]+)\s+([\d.]+)\s+(\S+)\s*$"
)


def _parse(text: str) -> tuple[list[tuple[float, ...]], float, list[str]]:
    """(size, time_oop, algbw_oop, busbw_oop, time_ip, algbw_ip, busbw_ip) rows, avg, headers."""
    rows = []
    avg = -1.0
    headers = []
    for line in text.splitlines():
        m = ROW.match(line)
        if m:
            g = m.groups()
            rows.append(tuple(float(x) for x in (g[0], g[5], g[6], g[7], g[9], g[10], g[11])))
        elif line.startswith("# Avg bus bandwidth"):
            avg = float(line.split(":")[1])
        elif line.startswith("#"):
            headers.append(line)
    return rows, avg, headers


def _cluster(tmp_path: Path, n: int = 2) -> SimClusterInfo:
    return SimClusterInfo(
        tuple(f"node-{i}" for i in range(n)), gpus_per_node=8, shared_dir=tmp_path / "shared"
    )


def test_single_node_format_and_arithmetic(sh) -> None:
    r = sh("all_reduce_perf -b 8 -e 128M -f 2 -g 8")
    assert r.status == 0
    rows, avg, headers = _parse(r.out)
    assert headers[0].startswith("# nccl-tests version 2.17.8")
    assert headers[2].startswith(
        "# nThread 1 nGpus 8 minBytes 8 maxBytes 134217728 step: 2(factor)"
    )
    assert sum(1 for h in headers if h.startswith("#  Rank ")) == 8
    assert any("out-of-place" in h and "in-place" in h for h in headers)
    assert "# Out of bounds values : 0 OK" in r.out
    assert r.out.rstrip().endswith("# Collective test concluded: all_reduce_perf\n#".rstrip())
    assert [int(row[0]) for row in rows] == [8 * 2**i for i in range(25)]
    for size, t_us, algbw, busbw, *_ in rows:
        assert algbw == pytest.approx(size / 1e3 / t_us, abs=0.011)
        assert busbw == pytest.approx(algbw * 2 * 7 / 8, abs=0.02)
    every = [row[3] for row in rows] + [row[6] for row in rows]
    assert avg == pytest.approx(sum(every) / len(every), rel=1e-3)
    assert 140 < max(every) < 170  # A800 NVLink


def test_same_shape_as_real_output(sh, real_fixtures: Path) -> None:
    real = (real_fixtures / "nccltests_allreduce_h100_1node_8gpu.txt").read_text()
    ours = sh("all_reduce_perf -b 32M -e 1G -f 2 -g 8 -d double").out
    real_rows, real_avg, real_headers = _parse(real)
    our_rows, our_avg, our_headers = _parse(ours)
    assert real_rows and our_rows and real_avg > 0 and our_avg > 0
    column_header = next(h for h in real_headers if "#wrong" in h)
    assert column_header in our_headers


def test_two_nodes_over_infiniband(make_node, connect, tmp_path: Path) -> None:
    node = make_node(cluster=_cluster(tmp_path), fabric="ib-hdr-200", nic_count=4)
    r = connect(node).run(
        "mpirun --allow-run-as-root -np 16 -H node-0:8,node-1:8 -x NCCL_DEBUG=INFO "
        "all_reduce_perf -b 1G -e 2G -f 2 -g 1"
    )
    assert r.status == 0, r.err
    rows, avg, headers = _parse(r.out)
    assert sum(1 for h in headers if h.startswith("#  Rank ")) == 16
    assert "NET/IB : Using [0]mlx5_0:1/IB" in r.out
    # 4 x 200 Gb/s HDR at ~92% of line rate
    assert 80 < avg < 100
    assert rows[0][3] == pytest.approx(rows[0][2] * 2 * 15 / 16, abs=0.02)


@pytest.mark.parametrize(
    "env",
    ["NCCL_IB_HCA=mlx5_9", "NCCL_IB_HCA==mlx5_1x", "NCCL_IB_DISABLE=1"],
)
def test_wrong_nccl_env_falls_back_to_sockets(make_node, connect, tmp_path: Path, env: str) -> None:
    node = make_node(cluster=_cluster(tmp_path), fabric="ib-hdr-200")
    r = connect(node).run(
        f"export {env} NCCL_DEBUG=INFO; mpirun -np 16 -H node-0:8,node-1:8 "
        "all_reduce_perf -b 1G -e 1G -g 1"
    )
    _, avg, _ = _parse(r.out)
    assert "NET/Socket : Using" in r.out
    assert "NET/IB : Using" not in r.out
    assert 0 < avg < 6


def test_roce_gid_index_must_exist(make_node, connect, tmp_path: Path) -> None:
    node = make_node(cluster=_cluster(tmp_path), fabric="roce-100", nic_count=4)
    ssh = connect(node)
    command = "mpirun -np 16 -H node-0:8,node-1:8 all_reduce_perf -b 1G -e 1G -g 1"
    good = _parse(ssh.run(f"NCCL_IB_GID_INDEX=3 NCCL_IB_TC=106 {command}").out)[1]
    bad = _parse(ssh.run(f"NCCL_IB_GID_INDEX=9 {command}").out)[1]
    assert 38 < good < 50  # 4 x 100 Gb/s RoCE
    assert bad < good / 5
    debug = ssh.run(f"NCCL_IB_GID_INDEX=3 NCCL_DEBUG=INFO {command}").out
    assert "/RoCE" in debug


def test_plain_ethernet_is_slow(make_node, connect, tmp_path: Path) -> None:
    node = make_node(cluster=_cluster(tmp_path), gpu_model="RTX4090", fabric="eth-25")
    r = connect(node).run("mpirun -np 16 -H node-0:8,node-1:8 all_reduce_perf -b 1G -e 1G -g 1")
    assert 1.5 < _parse(r.out)[1] < 3.2


def test_more_ranks_than_gpus_and_unknown_host(sh) -> None:
    r = sh("all_reduce_perf -g 9")
    assert r.status != 0
    assert "Invalid number of GPUs: 9 requested but only 8 were found." in r.err
    r = sh("mpirun -np 16 -H ghost:8,node-0:8 all_reduce_perf -g 1")
    assert r.status != 0 and "Could not resolve hostname ghost" in r.err


def test_memory_limit_reduces_max_bytes(sh) -> None:
    out = sh("all_reduce_perf -b 16G -e 64G -f 2 -g 8").out
    assert re.search(r"^# Reducing maxBytes to \d+ due to memory limitation$", out, re.M)


def test_all_gather_uses_its_own_bus_factor(sh) -> None:
    rows, _, _ = _parse(sh("all_gather_perf -b 64M -e 64M -g 8").out)
    _, _, algbw, busbw, *_ = rows[0]
    assert busbw == pytest.approx(algbw * 7 / 8, abs=0.02)


def test_gpus_are_busy_while_the_test_runs(make_node, connect) -> None:
    node = make_node(time_scale=0.05)
    ssh = connect(node)
    channel = ssh.ssh.get_transport().open_session()
    channel.exec_command("all_reduce_perf -b 8G -e 8G -g 8 -n 200")
    reader = channel.makefile("rb")
    while b"#       size" not in reader.readline():
        pass
    util = ssh.run("nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits").out
    assert all(int(v) > 20000 for v in util.split())
    channel.close()
