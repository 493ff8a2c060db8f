"""Issue 11: readers of remote output that were slow, raised foreign errors or read wrong."""

from __future__ import annotations

import contextlib
import time

import pytest

from xyclaw.errors import ParseError
from xyclaw.parsers import ibparse, nccltests


def _cpu(fn: object, *args: object) -> float:
    start = time.process_time()
    with contextlib.suppress(ParseError):
        fn(*args)  # type: ignore[operator]
    return time.process_time() - start


def test_gid_sysfs_reads_one_long_line_in_linear_time() -> None:
    """Defect 6: one 40,000-character line took 14 s (an unanchored search)."""
    line = "a" * 40_000
    spent = _cpu(ibparse.parse_gid_sysfs, line)
    assert spent < 0.5, f"{spent:.2f} s for one 40,000-character line"
    # ... and a junk line is refused with the project's error, not skipped silently.
    with pytest.raises(ParseError, match="unreadable line"):
        ibparse.parse_gid_sysfs(line)
    spaced = "/sys/class/infiniband/mlx5_0/ports/1/gids/0:" + " " * 40_000 + "x"
    assert _cpu(ibparse.parse_gid_sysfs, spaced) < 0.5


def test_gid_sysfs_still_reads_what_grep_prints() -> None:
    text = (
        "/sys/class/infiniband/mlx5_0/ports/1/gids/3:0000:0000:0000:0000:0000:ffff:0a01:000b\n"
        "/sys/class/infiniband/mlx5_0/ports/1/gid_attrs/types/3:RoCE v2\n"
        "/sys/class/infiniband/mlx5_0/ports/1/gid_attrs/ndevs/3:ens1f0np0  \n"
        "grep: /sys/class/infiniband/mlx5_0/ports/1/gid_attrs/types/4: Invalid argument\n"
        "/sys/x/ports/y/mlx5_1/ports/2/gids/7 fe80:0000:0000:0000:0e42:a1ff:feb1:c2d1\n"
    )
    first, second = ibparse.parse_gid_sysfs(text)
    assert (first.hca, first.port, first.index) == ("mlx5_0", 1, 3)
    assert first.ipv4 == "10.1.0.11" and first.is_roce_v2 and first.netdev == "ens1f0np0"
    assert (second.hca, second.port, second.index) == ("mlx5_1", 2, 7)
    assert second.gid == "fe80:0000:0000:0000:0e42:a1ff:feb1:c2d1"


def test_deeply_nested_json_is_a_parse_error() -> None:
    """Found by the fuzz test: json's RecursionError escaped the nccl-tests JSON reader."""
    with pytest.raises(ParseError):
        nccltests.parse_nccl_tests_json("[" * 100_000)


def test_a_huge_ssh_command_from_the_provider_is_refused_quickly() -> None:
    """Found by the fuzz test: shlex takes quadratic time on one long word (10 s at 500 KB)."""
    from xyclaw.providers.autodl import parse_ssh_command

    assert parse_ssh_command("ssh -p 38076 root@region-41.seetacloud.com") == (
        "region-41.seetacloud.com",
        38076,
        "root",
    )
    assert _cpu(parse_ssh_command, "ssh " + "x" * 500_000) < 0.2
    assert parse_ssh_command("ssh " + "x" * 500_000) is None
