"""Flight Recorder dumps made by real PyTorch (tools/make_flight_recorder_dumps.py: gloo,
4 CPU processes, the last rank skips an all_reduce), read as JSON only, and where the
ranks parted."""

from __future__ import annotations

import json
import pickle
from pathlib import Path

import pytest

from xyclaw.errors import ParseError
from xyclaw.parsers.flight_recorder import (
    Finding,
    diverged,
    node_of_rank,
    rank_of_file,
    read_dump,
    read_dumps,
)

FIX = Path(__file__).parents[1] / "fixtures" / "flight_recorder"
MADE = json.loads((FIX / "made_with.json").read_text())


def _files() -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(FIX.glob("rank_*.json"))}


def _raw(rank: int) -> dict:  # type: ignore[type-arg]
    return json.loads((FIX / f"rank_{rank}.json").read_text())


def test_real_dumps_name_the_rank_that_skipped_the_all_reduce() -> None:
    dumps, problems = read_dumps(_files())
    assert problems == []
    assert sorted(dumps) == list(range(MADE["world_size"]))
    assert {d.version for d in dumps.values()} == {"2.10"}  # what torch 2.14 writes
    div = diverged(dumps, MADE["world_size"])
    skipper = MADE["skipped"]["rank"]
    assert div.finding is Finding.NOT_ALL_JOINED
    assert div.op == MADE["skipped"]["collective"]
    # the script ran `after` all_reduces and one broadcast before the skipped one
    assert div.seq == MADE["skipped"]["after"] + 2
    assert div.absent == (skipper,)
    assert div.culprits == (skipper,)
    assert div.waiting == tuple(r for r in range(MADE["world_size"]) if r != skipper)
    assert div.behind_at == {skipper: div.seq - 1}
    assert div.pg_desc == "default_pg"
    assert div.input_sizes == ((1024,),)


def test_a_rank_that_left_no_dump_is_evidence_not_an_error() -> None:
    files = {n: b for n, b in _files().items() if n != "rank_3.json"}
    dumps, problems = read_dumps(files)
    assert problems == []
    div = diverged(dumps, 4)
    assert div.finding is Finding.NOT_ALL_JOINED
    assert div.silent == (3,) and div.absent == ()
    assert div.culprits == (3,)
    assert div.op == "all_reduce" and div.seq == 8


def test_no_dump_at_all_and_a_healthy_buffer() -> None:
    assert diverged({}, 4).finding is Finding.NO_DUMPS
    assert diverged({}, 4).silent == (0, 1, 2, 3)
    healthy = {}
    for r in range(4):
        raw = _raw(r)
        raw["entries"] = [e for e in raw["entries"] if e["collective_seq_id"] <= 7]
        healthy[r] = read_dump(json.dumps(raw), r)
    assert diverged(healthy, 4).finding is Finding.NONE


def test_every_rank_inside_and_none_finished_blames_no_rank() -> None:
    raw3 = _raw(3)
    stuck = dict(_raw(0)["entries"][-1])
    stuck["record_id"] = 7
    raw3["entries"].append(stuck)
    dumps = {r: read_dump(json.dumps(_raw(r)), r) for r in range(3)}
    dumps[3] = read_dump(json.dumps(raw3), 3)
    div = diverged(dumps, 4)
    assert div.finding is Finding.ALL_STUCK
    assert div.culprits == () and div.waiting == (0, 1, 2, 3)


def test_a_rank_in_a_different_call_is_a_mismatch() -> None:
    raw3 = _raw(3)
    other = dict(_raw(0)["entries"][-1])
    other["input_sizes"] = [[512]]
    raw3["entries"].append(other)
    dumps = {r: read_dump(json.dumps(_raw(r)), r) for r in range(3)}
    dumps[3] = read_dump(json.dumps(raw3), 3)
    div = diverged(dumps, 4)
    assert div.finding is Finding.MISMATCH
    assert div.mismatched == (3,) and div.culprits == (3,)


class _Trap:
    """Unpickling this would write a file: the reader must never get that far."""

    def __init__(self, target: Path) -> None:
        self.target = target

    def __reduce__(self):  # type: ignore[no-untyped-def]
        return (Path.write_text, (self.target, "pwned"))


@pytest.mark.parametrize("protocol", [0, 2, 5])
def test_a_pickle_is_refused_unread(tmp_path: Path, protocol: int) -> None:
    target = tmp_path / "ran"
    blob = pickle.dumps({"version": "2.10", "entries": [], "x": _Trap(target)}, protocol)
    with pytest.raises(ParseError, match="pickle"):
        read_dump(blob, 5)
    assert not target.exists()
    dumps, problems = read_dumps({"nccl_trace_rank_5": blob, **_files()})
    assert 5 not in dumps and "pickle" in problems[0] and len(dumps) == 4


def test_versions_older_than_2_4_are_refused_newer_read_with_a_note() -> None:
    raw = _raw(0)
    raw["version"] = "2.3"
    with pytest.raises(ParseError, match=r"older than PyTorch 2\.4"):
        read_dump(json.dumps(raw), 0)
    for version in ("2.4", "2.7"):
        raw["version"] = version
        assert read_dump(json.dumps(raw), 0).notes == ()
    raw["version"] = "2.11"
    assert "newer" in read_dump(json.dumps(raw), 0).notes[0]


@pytest.mark.parametrize(
    "data", [b"", b"not json", b"[]", b'{"version": "2.10"}', b'{"version":"x","entries":[]}']
)
def test_garbage_is_a_parse_error(data: bytes) -> None:
    with pytest.raises(ParseError):
        read_dump(data, 0)
    raw = _raw(0)
    raw["entries"][0].pop("profiling_name")
    with pytest.raises(ParseError):
        read_dump(json.dumps(raw), 0)


def test_ranks_from_file_names_and_nodes_from_ranks() -> None:
    assert rank_of_file("/tmp/nccl_trace_rank_11") == 11
    assert rank_of_file("xyclaw_fr/rank_3.json") == 3
    assert rank_of_file("README") is None
    nodes = ["gpu-a", "gpu-b"]
    assert node_of_rank(11, nodes, 8) == "gpu-b"
    assert node_of_rank(7, nodes, 8) == "gpu-a"
