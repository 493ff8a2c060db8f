"""The parsers of node command output never raise, and say when they could not read it."""

from __future__ import annotations

import base64

import pytest

from xyclaw.errors import UsageError
from xyclaw.jobs import node_commands as nc
from xyclaw.jobs.node_status import (
    LogWatchDecoder,
    NodeProcessState,
    parse_cancel,
    parse_checkpoint,
    parse_launch,
    parse_log_chunk,
    parse_status,
)

JUNK = ["", "\n", "garbage", "state=", "state=flying pgid=3", "\x00\xff", "log ", "@@", "x" * 5000]


@pytest.mark.parametrize("text", JUNK)
def test_junk_is_unknown_not_an_exception(text: str) -> None:
    assert parse_status(text).state is NodeProcessState.UNKNOWN
    assert not parse_launch(text).started and parse_launch(text).error
    assert parse_cancel(text).left is None
    assert parse_checkpoint(text).latest is None and parse_checkpoint(text).error
    assert parse_log_chunk(text, 10).data == b""
    decoder = LogWatchDecoder(0)
    assert decoder.feed(text) == [] or decoder.error is not None


def test_status_lines() -> None:
    running = parse_status("motd noise\nstate=running pgid=4242 started=100\n")
    assert (running.state, running.pgid, running.started_at) == ("running", 4242, 100)
    exited = parse_status("state=exited code=137 ended=200 pgid=7 started=100 cancelled=1")
    assert exited.finished and exited.exit_code == 137 and exited.cancelled
    assert parse_status("state=exited code=oops pgid=7").state is NodeProcessState.UNKNOWN
    assert parse_status("state=running pgid=").state is NodeProcessState.UNKNOWN
    assert parse_status("state=lost reason=bad-pid").reason == "bad-pid"
    assert parse_status("state=dead pgid=9").finished


def test_launch_lines() -> None:
    started = parse_launch("started pgid=31 started=5\n")
    assert started.started and started.pgid == 31
    existing = parse_launch("existing state=exited code=0 ended=9 pgid=31 started=5\n")
    assert not existing.started and existing.status.exit_code == 0
    assert parse_launch("error=no-pid\n").error == "no-pid"


def test_log_chunks_are_exact_and_flag_damage() -> None:
    data = b"a\nb\xffc\npartial"
    text = "log size=20\n" + base64.encodebytes(data).decode()
    chunk = parse_log_chunk(text, 5)
    assert chunk.data == data and chunk.end == 5 + len(data) and chunk.size == 20
    assert chunk.lines() == ["a", "b\ufffdc"] and chunk.line_end == 5 + data.rfind(b"\n") + 1
    assert parse_log_chunk("log size=20\n!!!notbase64", 0).error is not None
    assert parse_log_chunk("log size=3\n", 10).shrunk


def test_watch_decoder_keeps_offsets_over_whole_chunks_only() -> None:
    payload = bytes(range(256)) * 3
    encoded = base64.encodebytes(payload).decode().splitlines()
    decoder = LogWatchDecoder(100)
    chunks = []
    for line in [f"@100+{len(payload)}", *encoded, "@868+2", "aGk=", "end state=exited code=0"]:
        chunks += decoder.feed(line)
    assert [c.data for c in chunks] == [payload, b"hi"]
    assert decoder.offset == 870 and decoder.end is not None and decoder.end.exit_code == 0
    cut = LogWatchDecoder(0)
    cut.feed("@0+10")
    cut.feed("aGVs")
    cut.feed("@10+1")  # a header before the chunk was whole: the stream is broken
    assert cut.error is not None and cut.offset == 0
    wrong = LogWatchDecoder(50)
    wrong.feed("@40+3")
    assert wrong.error is not None


def test_checkpoint_lines() -> None:
    found = parse_checkpoint("checkpoint step=30 complete=newer path=/shared/a b/checkpoint-30")
    assert found.latest is not None and found.latest.path == "/shared/a b/checkpoint-30"
    assert not found.latest.by_marker
    assert parse_checkpoint("checkpoint none reason=no-dir").no_dir
    none = parse_checkpoint("checkpoint none")
    assert none.latest is None and none.error is None and not none.no_dir


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"job_id": "../etc"}, "cannot name a folder"),
        ({"job_id": "a b"}, "cannot name a folder"),
        ({"attempt": 0}, "attempt"),
        ({"rank": -1}, "node rank"),
        ({"base": "relative/jobs"}, "absolute"),
    ],
)
def test_bad_tasks_are_usage_errors(kwargs: dict[str, object], message: str) -> None:
    values: dict[str, object] = {"job_id": "j", "attempt": 1, "rank": 0}
    values.update(kwargs)
    with pytest.raises(UsageError, match=message) as caught:
        nc.NodeTask(**values)  # type: ignore[arg-type]
    assert caught.value.hint


def test_bad_environment_names_and_empty_commands_are_refused() -> None:
    task = nc.NodeTask("j", 1, 0)
    with pytest.raises(UsageError, match="not valid"):
        nc.launch(task, "true", workdir="~", env={"BAD-NAME": "x"})
    with pytest.raises(UsageError, match="empty"):
        nc.launch(task, "  ", workdir="~", env={})
    with pytest.raises(UsageError):
        nc.read_log(task, -1)
    with pytest.raises(UsageError):
        nc.cancel(task, grace_s=-1)
