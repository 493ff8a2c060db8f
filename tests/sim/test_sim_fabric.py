"""RDMA tools, sysfs counters and /proc/net/dev match the node's fabric."""

from __future__ import annotations

import re
import time


def test_infiniband_node(make_node, connect) -> None:
    node = make_node(fabric="ib-hdr-200", nic_count=4)
    ssh = connect(node)
    ibstat = ssh.run("ibstat").out
    assert ibstat.count("CA 'mlx5_") == 4
    assert "Link layer: InfiniBand" in ibstat and "Rate: 200" in ibstat
    assert ssh.run("ibstat -l").out == "mlx5_0\nmlx5_1\nmlx5_2\nmlx5_3\n"
    devinfo = ssh.run("ibv_devinfo -d mlx5_2").out
    assert devinfo.startswith("hca_id:\tmlx5_2\n")
    assert re.search(r"state:\s+PORT_ACTIVE \(4\)", devinfo)
    assert re.search(r"link_layer:\s+InfiniBand", devinfo)
    assert ssh.run("cat /sys/class/infiniband/mlx5_0/ports/1/link_layer").out == "InfiniBand\n"
    assert ssh.run("cat /sys/class/infiniband/mlx5_0/ports/1/rate").out == "200 Gb/sec (4X HDR)\n"
    assert "ib0" in ssh.run("cat /proc/net/dev").out
    assert ssh.run("ls /sys/class/infiniband").out.split() == [f"mlx5_{i}" for i in range(4)]


def test_roce_node_has_v2_gids(make_node, connect) -> None:
    node = make_node(fabric="roce-100", nic_count=2)
    ssh = connect(node)
    assert "Link layer: Ethernet" in ssh.run("ibstat mlx5_1").out
    gids = ssh.run("show_gids").out.splitlines()
    assert gids[0].split("\t")[0] == "DEV"
    rows = [line.split("\t") for line in gids[2:-1]]
    assert len(rows) == 8
    v2_ipv4 = [r for r in rows if r[-2] == "v2" and r[4].strip()]
    assert {r[0] for r in v2_ipv4} == {"mlx5_0", "mlx5_1"}
    assert all(r[2] == "3" for r in v2_ipv4)
    assert gids[-1] == "n_gids_found=8"
    types = ssh.run("cat /sys/class/infiniband/mlx5_0/ports/1/gid_attrs/types/3").out
    assert types == "RoCE v2\n"
    assert (
        ssh.run("ibdev2netdev").out == "mlx5_0 port 1 ==> eth1 (Up)\nmlx5_1 port 1 ==> eth2 (Up)\n"
    )


def test_plain_ethernet_node_has_no_rdma(make_node, connect) -> None:
    node = make_node(gpu_model="RTX4090", fabric="eth-25")
    ssh = connect(node)
    r = ssh.run("ibstat")
    assert r.status == 127 and r.err == "bash: ibstat: command not found\n"
    assert ssh.run("ls /sys/class/infiniband").status == 2
    netdev = ssh.run("cat /proc/net/dev").out.splitlines()[2:]
    assert [line.split(":")[0].strip() for line in netdev] == ["lo", "eth0"]
    assert "NIC0" not in ssh.run("nvidia-smi topo -m").out


def test_counters_grow_with_rdma_traffic(make_node, connect) -> None:
    node = make_node(fabric="ib-hdr-200")
    ssh = connect(node)
    path = "/sys/class/infiniband/mlx5_0/ports/1/counters/port_xmit_data"
    before = int(ssh.run(f"cat {path}").out)
    node.machine.net.set_traffic(1, rdma_bytes_s=4e9)
    time.sleep(0.2)
    after = int(ssh.run(f"cat {path}").out)
    node.machine.net.clear_traffic(1)
    # 4 GB/s spread over four NICs, counted in 4-byte words
    assert after - before > 0.15 * 1e9 / 4


def test_ip_addr_lists_the_netdevs(make_node, connect) -> None:
    node = make_node(fabric="roce-200", nic_count=2)
    out = connect(node).run("ip -br addr").out.splitlines()
    assert [line.split()[0] for line in out] == ["lo", "eth0", "eth1", "eth2"]
    assert connect(node).run("hostname -I").out.count(".") == 9
