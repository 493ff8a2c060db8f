"""What NCCL's Inspector profiler plugin writes: the bus bandwidth each collective got (issue 34).

The plugin (NCCL's ``ext-profiler/inspector``, loaded with
``NCCL_PROFILER_PLUGIN=.../libnccl-profiler-inspector.so`` and
``NCCL_INSPECTOR_ENABLE=1``) appends one JSON object per collective and
communicator to a file in ``NCCL_INSPECTOR_DUMP_DIR``: ``header`` (``id``,
``rank``, ``n_ranks``, ``nnodes``), ``metadata``
(``inspector_output_format_version`` "v4.0", ``dump_timestamp_us``,
``hostname``, ``pid``) and ``coll_perf`` (``coll``, ``coll_sn``,
``coll_msg_size_bytes``, ``coll_exec_time_us``, ``coll_algobw_gbs``,
``coll_busbw_gbs``), pretty-printed or one per line. Its Prometheus mode
writes ``nccl_bus_bandwidth_gbs{...,collective="AllReduce",...} 485.1``
instead. Both are read here; nothing raises, anything else is skipped.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass

#: Where XyClaw asks jobs that load the plugin to write (docs/telemetry.md).
INSPECTOR_DIR = "/tmp/xyclaw-inspector"


def inspector_command(folder: str = INSPECTOR_DIR, lines: int = 40, files: int = 32) -> str:
    """The newest records of the folder's most recently written files (nothing when there is
    none). Only the newest ``files``: the plugin's files stay after their job, and reading
    every past job's on each poll grew without end (past 30 jobs on one cluster, 512 MiB on
    one connection, which made paramiko re-key). A job's own files are written every few
    milliseconds, so they are the newest. ``tail`` is never run without a file: it would read
    the channel's stdin and wait."""
    return (
        f'f=$(ls -t {folder}/*.log 2>/dev/null | head -n {files}); [ -z "$f" ] || '
        f"tail -n {lines} $f 2>/dev/null"
    )


@dataclass(frozen=True)
class CollectiveRecord:
    """One collective as the plugin measured it."""

    coll: str
    seq: int
    msg_bytes: int
    exec_us: float
    algbw_gbs: float
    busbw_gbs: float
    rank: int | None = None
    n_ranks: int | None = None
    nnodes: int | None = None
    hostname: str | None = None
    ts_us: int | None = None
    version: str | None = None
    pid: int | None = None


_PROM_RE = re.compile(r"^nccl_bus_bandwidth_gbs\{([^}]*)\}\s+(\S+)")
_LABEL_RE = re.compile(r'(\w+)="([^"]*)"')


def _num(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        return math.nan
    try:
        return float(value)
    except ValueError:
        return math.nan


def _int(value: object) -> int | None:
    number = _num(value)
    return None if math.isnan(number) else int(number)


def _record(obj: object) -> CollectiveRecord | None:
    if not isinstance(obj, dict):
        return None
    perf = obj.get("coll_perf")
    if not isinstance(perf, dict):
        return None
    busbw = _num(perf.get("coll_busbw_gbs"))
    if math.isnan(busbw) or busbw < 0:
        return None
    header = obj.get("header") if isinstance(obj.get("header"), dict) else {}
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    assert isinstance(header, dict) and isinstance(meta, dict)
    host = meta.get("hostname")
    version = meta.get("inspector_output_format_version")
    return CollectiveRecord(
        coll=str(perf.get("coll", "")),
        seq=_int(perf.get("coll_sn")) or 0,
        msg_bytes=_int(perf.get("coll_msg_size_bytes")) or 0,
        exec_us=_num(perf.get("coll_exec_time_us")),
        algbw_gbs=_num(perf.get("coll_algobw_gbs")),
        busbw_gbs=busbw,
        rank=_int(header.get("rank")),
        n_ranks=_int(header.get("n_ranks")),
        nnodes=_int(header.get("nnodes")),
        hostname=host if isinstance(host, str) else None,
        ts_us=_int(meta.get("dump_timestamp_us")),
        version=version if isinstance(version, str) else None,
        pid=_int(meta.get("pid")),
    )


def _prometheus(text: str) -> list[CollectiveRecord]:
    out = []
    for line in text.splitlines():
        match = _PROM_RE.match(line.strip())
        if match is None:
            continue
        labels = dict(_LABEL_RE.findall(match.group(1)))
        busbw = _num(match.group(2))
        if math.isnan(busbw):
            continue
        out.append(
            CollectiveRecord(
                coll=labels.get("collective", ""),
                seq=_int(labels.get("coll_sn")) or 0,
                msg_bytes=0,
                exec_us=math.nan,
                algbw_gbs=math.nan,
                busbw_gbs=busbw,
                rank=_int(labels.get("rank")),
                n_ranks=_int(labels.get("n_ranks")),
                nnodes=_int(labels.get("n_nodes")),
                hostname=labels.get("hostname"),
            )
        )
    return out


def parse_inspector(text: str) -> list[CollectiveRecord]:
    """Every record in ``text``: concatenated JSON objects (tail's ``==> file <==`` headers
    and torn objects skipped), or the Prometheus mode's bus bandwidth lines."""
    if "nccl_bus_bandwidth_gbs{" in text:
        return _prometheus(text)
    out: list[CollectiveRecord] = []
    decoder = json.JSONDecoder()
    i = 0
    while True:
        start = text.find("{", i)
        if start < 0:
            return out
        try:
            obj, end = decoder.raw_decode(text, start)
        except ValueError:
            i = start + 1
            continue
        record = _record(obj)
        if record is not None:
            out.append(record)
        i = end
