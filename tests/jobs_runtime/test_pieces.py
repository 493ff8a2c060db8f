"""The runtime's pieces on their own: cutting bytes into lines with offsets, storing them
once by compare-and-set, the per-job cap that keeps the head and the tail, one JobChanged
per state change, and an upload that sends only what changed."""

from __future__ import annotations

from pathlib import Path

from tests.jobs_runtime.conftest import MakeCluster
from tests.jobs_runtime.helpers import finished, write_spec
from xyclaw.engine import Engine
from xyclaw.events import EventBus, JobChanged, OperationProgress
from xyclaw.jobs.lines import LineCutter, global_rank
from xyclaw.records.jobs import JobState, JobStore
from xyclaw.store import Store
from xyclaw.store.jobs import LogCap, LogRows


def test_lines_are_cut_whole_with_their_offsets_and_bar_redraws_are_read_not_kept() -> None:
    cutter = LineCutter(100, node_rank=1, nproc=8, max_line_chars=64)
    first = cutter.feed(b"[default3]:step 1\nhalf a li")
    assert [(ln.offset, ln.text, ln.rank) for ln in first.lines] == [(100, "[default3]:step 1", 11)]
    assert first.end == 118 and cutter.pending == b"half a li"  # the partial line waits
    second = cutter.feed(b"ne\n 10%|#  | 1/10\r 20%|## | 2/10\r 30%|###| 3/10")
    assert [(ln.offset, ln.text) for ln in second.lines] == [(118, "half a line")]
    assert second.redraws == [" 10%|#  | 1/10\r 20%|## | 2/10"]  # read for progress only
    assert cutter.pending == b"\r 30%|###| 3/10" and second.end == 130 + 29
    long = cutter.feed(b"\n" + b"x" * 300)
    assert long.lines[0].text == "\r 30%|###| 3/10" and long.lines[1].text.endswith(
        "cut by XyClaw]"
    )
    assert cutter.flush().lines == [] and long.end == cutter.offset
    last = LineCutter(0).feed(b"no newline at the end")
    assert last.lines == [] and LineCutter(0).flush().lines == []
    assert global_rank("rank5", 5, 1, 8) == 5 and global_rank("default2", 2, 1, 8) == 10
    assert global_rank(None, None, 0, 1) is None


def test_lines_are_stored_once_and_the_cap_keeps_head_and_tail_with_the_cut_marked(
    tmp_path: Path,
) -> None:
    store = Store(tmp_path / "x.db")
    bus = EventBus()
    heard: list[JobChanged] = []
    bus.subscribe(JobChanged, heard.append)
    jobs = JobStore(store, bus)
    try:
        job_id = jobs.add(
            name="j", kind="train", spec_json="{}", cluster_id=None, rented_cluster=False
        )
        cap = LogCap(head=3, tail=10)
        offset = 0
        for n in range(40):
            text = f"line {n}"
            row = LogRows("node-0", float(n), [offset], [0], [text])
            new = offset + len(text) + 1
            assert jobs.append_log(
                job_id, 1, "run", 0, expected_offset=offset, new_offset=new, lines=row, cap=cap
            ).stored
            offset = new
        stale = jobs.append_log(
            job_id,
            1,
            "run",
            0,
            expected_offset=0,
            new_offset=9,
            lines=LogRows("node-0", 0.0, [0], [0], ["again"]),
            cap=cap,
        )
        assert not stale.stored and stale.offset == offset  # a second follower stores nothing
        texts = [str(ln) for ln in jobs.lines(job_id)]
        assert texts[:3] == [
            "[node-0 rank 0] line 0",
            "[node-0 rank 0] line 1",
            "[node-0 rank 0] line 2",
        ]
        assert texts[3].startswith("... ") and "lines cut here" in texts[3]
        assert texts[-1] == "[node-0 rank 0] line 39" and len(texts) - 4 >= 10
        record = jobs.get(job_id)
        assert record.log_cut_lines + record.log_lines == 40

        assert jobs.set_state(job_id, JobState.RUNNING) is JobState.QUEUED
        assert jobs.set_state(job_id, JobState.RUNNING) is None  # no change, no event
        assert jobs.set_state(job_id, JobState.SUCCEEDED, only_from=[JobState.SETTING_UP]) is None
        assert [(e.previous, e.state) for e in heard] == [(None, "queued"), ("queued", "running")]
    finally:
        store.close()


def test_a_second_launch_of_the_same_spec_uploads_only_the_files_that_changed(
    engine: Engine, make_cluster: MakeCluster, tmp_path: Path
) -> None:
    cluster = make_cluster(nodes=2)
    (tmp_path / "work").mkdir()
    (tmp_path / "work" / "a.txt").write_text("alpha\n")
    (tmp_path / "work" / "sub").mkdir()
    (tmp_path / "work" / "sub" / "b.txt").write_text("beta\n")
    (tmp_path / "work" / "__pycache__").mkdir()
    (tmp_path / "work" / "__pycache__" / "x.pyc").write_bytes(b"never sent")
    spec = write_spec(tmp_path, "name: up\nworkdir: work\nrun: cat a.txt sub/b.txt\n")
    said: list[str] = []
    engine.subscribe(OperationProgress, lambda e: said.append(e.message))

    def launch() -> list[str]:
        said.clear()
        job = engine.launch(spec, cluster=cluster.name).result(30)
        finished(engine, job.id)
        return [m for m in said if "were new or changed" in m]

    node0 = cluster.nodes[0].spec.hostname
    assert f"{node0}: 2 of 2 file(s) were new or changed" in launch()
    assert f"{node0}: 0 of 2 file(s) were new or changed" in launch()
    (tmp_path / "work" / "sub" / "b.txt").write_text("beta, changed\n")
    assert f"{node0}: 1 of 2 file(s) were new or changed" in launch()
    last = engine.jobs(include_finished=True)[-1]
    assert [ln.text for ln in engine.job_logs(str(last.id), node=0)] == ["alpha", "beta, changed"]
    assert not (
        cluster.nodes[0].machine.root / "root" / ".xyclaw" / "workdirs" / "up" / "__pycache__"
    ).exists()


def test_the_cheap_filter_never_drops_a_line_the_reader_finds_an_event_in(
    real_fixtures: Path,
) -> None:
    from xyclaw.jobs.progress import may_carry_event
    from xyclaw.parsers.joblog import parse_job_events

    here = Path(__file__).resolve().parents[1]
    sources = sorted(real_fixtures.glob("*")) + sorted((here / "telemetry").rglob("*.py"))
    sources += sorted((here / "telemetry" / "fixtures").glob("*"))
    checked = with_events = 0
    for source in sources:
        if not source.is_file():
            continue
        for raw in source.read_text(errors="replace").splitlines():
            # the test modules hold their cases as string literals: read those too
            for line in (raw, raw.strip().strip("\"',").replace("\\r", "\r")):
                checked += 1
                if parse_job_events(line):
                    with_events += 1
                    assert may_carry_event(line), (source.name, line)
    assert checked > 5000 and with_events > 200
