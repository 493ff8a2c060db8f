"""Each node's clock offset, measured at bootstrap (the node's `date +%s.%N` against the middle
of the exec's round trip) and kept with the node, for placing its exit records on this
machine's clock."""

from __future__ import annotations

import time

from tests.lifecycle.conftest import MakeWorld
from xyclaw.engine.bootstrap import measure_clock_offset, parse_epoch
from xyclaw.engine.lifecycle import UpRequest
from xyclaw.remote import CommandResult


def test_the_epoch_of_date_is_read_with_or_without_nanoseconds() -> None:
    assert parse_epoch("1796500000.250000000\n") == 1796500000.25
    assert parse_epoch("1796500000.N\n") == 1796500000.0  # a date without %N: whole seconds
    assert parse_epoch("1796500000\n") == 1796500000.0
    assert parse_epoch("date: invalid format\n") is None
    assert parse_epoch("") is None


def test_the_offset_is_taken_from_the_quickest_round_trip() -> None:
    # the node's clock is 30 s ahead; the first round trip takes 4 s and the node answers
    # late in it (its midpoint is 1 s off), the next two take 0.2 s and answer in the middle
    t = 1_796_500_000.0
    local = iter([t, t + 4, t + 10, t + 10.2, t + 20, t + 20.2]).__next__
    node_says = iter([t + 3 + 30, t + 10.1 + 30, t + 20.1 + 30])

    def run(command: str) -> CommandResult:
        return CommandResult("n0", command, 0, f"{next(node_says):.3f}\n", "")

    offset = measure_clock_offset(run, local)
    assert offset is not None and abs(offset - 30.0) < 1e-3
    failing = CommandResult("n0", "date", 1, "", "no date")
    assert measure_clock_offset(lambda c: failing, lambda: t) is None


def test_up_keeps_each_nodes_clock_offset(make_world: MakeWorld) -> None:
    world = make_world()  # the engine runs on a test clock; the nodes' clocks are real
    request = UpRequest(provider="sim", gpu="A800", gpu_count=16)
    cluster = world.engine.up(world.engine.quote_request(request)).result(60)
    offsets = [n.clock_offset_s for n in world.engine.cluster(str(cluster.id)).nodes]
    apart = time.time() - world.clock()
    assert len(offsets) == 2
    assert all(o is not None and abs(o - apart) < 1.0 for o in offsets)
