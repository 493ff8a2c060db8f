"""ibstat, ibv_devinfo, show_gids and sysfs GID tables."""

from __future__ import annotations

from pathlib import Path

import pytest

from xyclaw.errors import ParseError
from xyclaw.parsers.ibparse import (
    attach_gids,
    parse_gid_sysfs,
    parse_ibstat,
    parse_ibv_devinfo,
    parse_show_gids,
)

FIX = Path(__file__).parent / "fixtures"


def _read(name: str) -> str:
    return (FIX / name).read_text()


def test_ibstat_infiniband_ndr() -> None:
    hcas = parse_ibstat(_read("ibstat_ib_ndr.txt"))
    assert [h.name for h in hcas] == ["mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3", "mlx5_bond_0"]
    p = hcas[0].ports[0]
    assert (p.state, p.phys_state, p.rate_gbps, p.link_layer) == (
        "ACTIVE",
        "LINK_UP",
        400.0,
        "InfiniBand",
    )
    assert (p.lid, p.sm_lid, p.name) == (12, 1, "mlx5_0:1")
    assert p.is_active and not p.is_roce
    assert hcas[0].ca_type == "MT4129" and hcas[0].firmware == "28.39.1002"
    down = hcas[3].ports[0]
    assert (down.state, down.phys_state, down.is_active) == ("DOWN", "POLLING", False)
    assert hcas[4].ports[0].is_roce and hcas[4].ports[0].rate_gbps == 100.0


def test_ibstat_roce() -> None:
    hcas = parse_ibstat(_read("ibstat_roce.txt"))
    assert [(h.name, h.ports[0].link_layer, h.ports[0].rate_gbps) for h in hcas] == [
        ("mlx5_0", "Ethernet", 200.0),
        ("mlx5_1", "Ethernet", 200.0),
    ]
    assert hcas[1].port(1) is hcas[1].ports[0] and hcas[1].port(2) is None


def test_ibv_devinfo_ib() -> None:
    hcas = parse_ibv_devinfo(_read("ibv_devinfo_ib.txt"))
    assert [h.name for h in hcas] == ["mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3"]
    assert [h.ports[0].state for h in hcas] == ["ACTIVE", "ACTIVE", "ACTIVE", "DOWN"]
    assert hcas[2].ports[0].lid == 14 and hcas[2].transport == "InfiniBand"
    assert hcas[0].vendor_part_id == "4129" and hcas[0].ports[0].rate_gbps is None


def test_ibv_devinfo_verbose_roce_with_gids() -> None:
    hcas = parse_ibv_devinfo(_read("ibv_devinfo_v_roce.txt"))
    p = hcas[1].ports[0]
    assert (p.link_layer, p.width, p.speed_gbps, p.rate_gbps) == ("Ethernet", "4X", 50.0, 200.0)
    assert p.phys_state == "LINK_UP" and p.active_mtu == 4096
    assert [(g.index, g.type) for g in p.gids] == [
        (0, "RoCE v1"),
        (1, "RoCE v2"),
        (2, "RoCE v1"),
        (3, "RoCE v2"),
    ]
    assert p.gids[3].gid == "::ffff:10.1.1.11"
    assert p.roce_v2_gid_index() == 3 and p.roce_v2_gid_index("ipv6") == 1


def test_show_gids_and_sysfs_agree() -> None:
    shown = parse_show_gids(_read("show_gids_roce.txt"))
    sysfs = parse_gid_sysfs(_read("gid_sysfs_roce.txt"))
    assert shown == sysfs
    assert len(shown) == 8
    g = shown[3]
    assert (g.hca, g.port, g.index, g.type, g.ipv4, g.netdev) == (
        "mlx5_0",
        1,
        3,
        "RoCE v2",
        "10.1.0.11",
        "ens1f0np0",
    )
    hcas = attach_gids(parse_ibstat(_read("ibstat_roce.txt")), sysfs)
    assert [h.ports[0].roce_v2_gid_index() for h in hcas] == [3, 3]


def test_garbage_is_a_parse_error() -> None:
    with pytest.raises(ParseError, match="not ibstat output"):
        parse_ibstat("ibstat: command not found\n")
    with pytest.raises(ParseError, match="not ibv_devinfo output"):
        parse_ibv_devinfo("Failed to get IB devices list: Unknown error -38\n")
    assert parse_ibv_devinfo("No IB devices found\n") == []
    with pytest.raises(ParseError, match="show_gids: unreadable row"):
        parse_show_gids("mlx5_0 one two\n")
    with pytest.raises(ParseError, match="GID sysfs"):
        parse_gid_sysfs("random words\n")
