"""What the simulated node prints is read by the same parsers that read real nodes.

The parsers were written from the documented formats and checked against real
outputs (tests/telemetry, tests/tuning); here they read the simulator over SSH.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.sim.conftest import Client, NodeFactory
from xyclaw.parsers.ibparse import parse_ibstat, parse_ibv_devinfo, parse_show_gids
from xyclaw.parsers.kernel_log import parse_dmesg
from xyclaw.parsers.nccltests import parse_nccl_tests
from xyclaw.parsers.nic import parse_ib_counters, parse_proc_net_dev
from xyclaw.parsers.nvsmi import (
    QUERY_FIELDS,
    NvsmiCsvParser,
    parse_list,
    parse_query_details,
    parse_topology,
    query_command,
)
from xyclaw.sim.node import SimClusterInfo, SimNode

Connect = Callable[[SimNode], Client]


def test_nvidia_smi_csv_in_every_format(ssh: Client) -> None:
    for header, units in ((False, False), (True, True), (True, False)):
        result = ssh.run(query_command(QUERY_FIELDS, header=header, units=units))
        assert result.status == 0, result.err
        parser = NvsmiCsvParser(None if header else QUERY_FIELDS)
        samples = [s for s in parser.feed_many(result.out.splitlines()) if s is not None]
        assert parser.bad_lines == 0, parser.last_error
        assert [s.index for s in samples] == list(range(8))
        for s in samples:
            assert s.name == "NVIDIA A800-SXM4-80GB"
            assert s.memory_total_mib == 81920
            assert s.power_draw_w is not None and 0 < s.power_draw_w <= (s.power_limit_w or 0)
            assert s.temperature_c is not None and s.throttle_reasons is not None


def test_list_query_and_topology(ssh: Client) -> None:
    assert len(parse_list(ssh.run("nvidia-smi -L").out)) == 8
    details = parse_query_details(ssh.run("nvidia-smi -q").out)
    assert details.attached_gpus == 8 and details.driver_version and details.cuda_version
    assert all(g.ecc_uncorrected_volatile == 0 for g in details.gpus)
    topo = parse_topology(ssh.run("nvidia-smi topo -m").out)
    assert topo.nvlinks("GPU0", "GPU1") > 0
    assert topo.nearest_nics("GPU0")


def test_fabric_tools_agree_with_the_fabric(make_node: NodeFactory, connect: Connect) -> None:
    ib = connect(make_node("ib-0", fabric="ib-hdr-200"))
    hcas = parse_ibstat(ib.run("ibstat").out)
    ports = [p for h in hcas for p in h.ports]
    assert len(ports) == 4 and {p.link_layer for p in ports} == {"InfiniBand"}
    assert {p.rate_gbps for p in ports} == {200}
    assert len(parse_ibv_devinfo(ib.run("ibv_devinfo").out)) == 4
    roce = connect(make_node("roce-0", fabric="roce-100"))
    ports = [p for h in parse_ibstat(roce.run("ibstat").out) for p in h.ports]
    assert {p.link_layer for p in ports} == {"Ethernet"}
    gids = parse_show_gids(roce.run("show_gids").out)
    assert any(g.is_roce_v2 for g in gids)
    eth = connect(make_node("eth-0", fabric="eth-25"))
    assert parse_proc_net_dev(eth.run("cat /proc/net/dev").out)
    counters = ib.run("grep -H . /sys/class/infiniband/*/ports/*/counters/port_*_data")
    assert len(parse_ib_counters(counters.out)) == 4


def test_two_node_all_reduce_reads_like_nccl_tests(
    make_node: NodeFactory, connect: Connect, tmp_path: Path
) -> None:
    info = SimClusterInfo(hostnames=("node-0", "node-1"), shared_dir=tmp_path / "shared")
    first = make_node("node-0", cluster=info)
    make_node("node-1", cluster=info)
    out = (
        connect(first)
        .run(
            "mpirun --allow-run-as-root -np 16 -H node-0:8,node-1:8 -x NCCL_DEBUG=INFO "
            "all_reduce_perf -b 8M -e 1G -f 2 -g 1"
        )
        .out
    )
    run = parse_nccl_tests(out)
    assert run.n_ranks == 16 and len(run.rows) == 8 and not run.truncated
    assert run.avg_busbw is not None
    assert abs(run.recomputed_avg_busbw - run.avg_busbw) < 0.01
    assert run.net is not None and run.net.transport == "ib" and not run.net.socket_fallback


def test_an_xid_reads_back_from_dmesg(node: SimNode, ssh: Client) -> None:
    node.faults.xid(79, gpu=3)
    [event] = parse_dmesg(ssh.run("dmesg").out)
    assert event.code == 79 and event.category == "bus" and event.severity == "critical"
    assert len(parse_list(ssh.run("nvidia-smi -L").out)) == 7
