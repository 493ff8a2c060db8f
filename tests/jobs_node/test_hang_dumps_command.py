"""The command that fetches Flight Recorder dumps from a node (issue 34), run by a real
shell on real PyTorch dumps: JSON passes as it is, a pickle is turned into JSON by the
node's own Python (never unpickled by XyClaw), and the verdict ties ranks to nodes."""

from __future__ import annotations

import json
import pickle
import subprocess
from pathlib import Path

from xyclaw.jobs.forensics import HangReport, action, dumps_command, split_dumps, verdict
from xyclaw.parsers.flight_recorder import diverged, read_dumps

FIX = Path(__file__).parents[1] / "fixtures" / "flight_recorder"


def test_json_and_pickle_dumps_come_back_as_json_and_name_the_skipping_rank(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "fr"
    folder.mkdir()
    for rank in range(3):
        (folder / f"rank_{rank}").write_bytes((FIX / f"rank_{rank}.json").read_bytes())
    # rank 3 as PyTorch writes on a timeout: a pickle (of plain data, made here)
    raw3 = json.loads((FIX / "rank_3.json").read_text())
    (folder / "rank_3").write_bytes(pickle.dumps(raw3))
    (folder / "pipe_rank_3").write_text("")  # the debug pipe is not a dump
    out = subprocess.run(
        ["sh", "-c", dumps_command(f"{folder}/rank_")], capture_output=True, text=True, check=True
    ).stdout
    files = split_dumps(out)
    assert sorted(Path(n).name for n in files) == ["rank_0", "rank_1", "rank_2", "rank_3"]
    assert all(body.startswith(b"{") for body in files.values())
    dumps, problems = read_dumps(files)
    assert problems == [] and sorted(dumps) == [0, 1, 2, 3]
    assert len(dumps[3].entries) == len(raw3["entries"])  # the converted pickle, intact
    assert diverged(dumps, 4).culprits == (3,)


def _report() -> HangReport:
    files = {p.name: p.read_bytes() for p in FIX.glob("rank_*.json")}
    dumps, _ = read_dumps(files)
    return HangReport(
        divergence=diverged(dumps, 4), world=4, ranks_per_node=2, node_names=("n0", "n1"),
        files=4,
    )  # fmt: skip


def test_the_verdict_names_rank_node_collective_and_the_node_s_first_alert() -> None:
    report = _report()
    assert report.culprit_nodes == ("n1",) and report.blames
    plain = verdict(report)
    assert str(plain) == (
        "rank 3 on n1 never entered all_reduce #8 of group default_pg; 3 other rank(s) waited in it"
    )
    tied = verdict(report, {"n1": ("n1: GPU 1 reported XID 79 (fallen off the bus)", "14:02:00")})
    assert str(tied).endswith(
        "; before that, at 14:02:00: n1: GPU 1 reported XID 79 (fallen off the bus)"
    )
    assert "14:02:00" in tied.in_language("zh") and "n1" in tied.in_language("zh")
    assert verdict(report, {"n0": ("XID 48", "13:00:00")}) == plain  # not the blamed node
    act = action(report)
    assert act is not None
    assert str(act) == "replace n1 and resume from the last checkpoint"


class _LocalShell:
    """Runs the fetch command in a real local shell, as every node's (the folder is the
    nodes' shared view here)."""

    def run(self, node: object, command: str, timeout: float) -> subprocess.CompletedProcess:  # type: ignore[type-arg]
        return subprocess.run(["sh", "-c", command], capture_output=True, text=True, check=True)

    def run_all(self, nodes, fn):  # type: ignore[no-untyped-def]
        return [fn(node) for node in nodes]


class _Node:
    name = "n0"


def test_a_dump_read_in_the_middle_of_its_write_is_read_again_not_taken_as_a_dead_rank(
    tmp_path: Path,
) -> None:
    """PyTorch writes a dump in place: a read while rank 2 writes sees an empty file. The
    next read gets it whole, and only rank 3 (the one that skipped) is blamed."""
    from xyclaw.jobs.forensics import collect

    for rank in range(4):
        (tmp_path / f"rank_{rank}").write_bytes((FIX / f"rank_{rank}.json").read_bytes())
    (tmp_path / "rank_2").write_bytes(b"")  # being written
    slept: list[float] = []

    def finish_the_write(seconds: float) -> None:
        slept.append(seconds)
        (tmp_path / "rank_2").write_bytes((FIX / "rank_2.json").read_bytes())

    report = collect(
        _LocalShell(),  # type: ignore[arg-type]
        [_Node()],  # type: ignore[list-item]
        f"{tmp_path}/rank_",
        4,
        wait_s=30.0,
        poll_s=0.01,
        sleep=finish_the_write,
    )
    assert slept == [0.01]  # read once more, then every rank's dump was whole
    assert report.unreadable == () and report.files == 4
    assert report.divergence.culprits == (3,) and report.divergence.silent == ()
