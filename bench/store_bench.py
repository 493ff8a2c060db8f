"""Store throughput: 1,000,000 GPU samples through the writer, bytes per sample, read of an hour.

Targets (foundation issue): >= 200,000 samples/s written; <= 40 B of database per
sample; one hour of 64 GPUs at 1 Hz (230,400 samples) read in <= 50 ms.
Prints one JSON object as its last line.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import sqlite_utils

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from xyclaw.store import Store
from xyclaw.store.samples import empty_gpu_records

GPUS_PER_NODE = 8
TOTAL_SAMPLES = 1_000_000
BATCH_S = 10


def _records(rng: np.random.Generator) -> np.ndarray:
    rec = empty_gpu_records(GPUS_PER_NODE)
    rec["gpu"] = np.arange(GPUS_PER_NODE)
    rec["util"] = rng.integers(0, 101, GPUS_PER_NODE)
    rec["mem_util"] = rng.integers(0, 101, GPUS_PER_NODE)
    rec["temp_c"] = rng.integers(30, 90, GPUS_PER_NODE)
    rec["pstate"] = 0
    rec["power_dw"] = rng.integers(600, 4000, GPUS_PER_NODE)
    rec["power_limit_w"] = 400
    rec["sm_mhz"] = rng.integers(1000, 1980, GPUS_PER_NODE)
    rec["mem_used_mib"] = rng.integers(0, 81920, GPUS_PER_NODE)
    rec["mem_total_mib"] = 81920
    rec["throttle"] = 0
    rec["ecc_uncorrected"] = 0
    return rec


def _add_cluster(store: Store, cluster_id: int, gpus: int) -> None:
    def write(db: sqlite_utils.Database) -> None:
        conn = db.conn
        conn.execute(
            "INSERT OR IGNORE INTO providers (id, kind, name, created_at)"
            " VALUES ('sim', 'sim', 'sim', 0)"
        )
        conn.execute(
            "INSERT INTO clusters (id, provider_id, name, state, gpu, gpu_count, gpus_per_node,"
            " fabric, currency, price_per_gpu_hour_micros, created_at)"
            " VALUES (?, 'sim', 'bench', 'running', 'A800', ?, 8, 'ib-hdr-200', 'CNY', 3500000, 0)",
            (cluster_id, gpus),
        )

    store.writer.call(write)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--samples", type=int, default=TOTAL_SAMPLES, help="GPU samples to write")
    parser.add_argument("--read-seconds", type=int, default=3600, help="the span read back")
    parser.add_argument(
        "--smoke", action="store_true", help="20,000 samples, a minute read: that it runs"
    )
    args = parser.parse_args(argv)
    if args.smoke:
        args.samples, args.read_seconds = 20_000, 60
    rng = np.random.default_rng(1)
    pool = [_records(rng) for _ in range(64)]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.db"
        store = Store(path)
        _add_cluster(store, 1, 512)
        before = path.stat().st_size + Path(f"{path}-wal").stat().st_size
        # 64 nodes x 8 GPUs per second; one call per second of the cluster (as a collector batch).
        nodes = 64
        seconds = args.samples // (nodes * GPUS_PER_NODE) + 1
        t0 = time.perf_counter()
        written = 0
        # The telemetry writer hands over BATCH_S seconds of every node at a time.
        for first in range(0, seconds, BATCH_S):
            batch = [
                (1_700_000_000_000 + second * 1000, node, pool[node])
                for second in range(first, min(first + BATCH_S, seconds))
                for node in range(nodes)
            ]
            store.add_gpu_samples(1, batch)
            written += len(batch) * GPUS_PER_NODE
        store.writer.flush(600)
        elapsed = time.perf_counter() - t0
        store.writer.checkpoint()
        size = path.stat().st_size - before

        # Read one hour (--read-seconds) of one cluster with 64 GPUs (8 nodes) at 1 Hz.
        store2 = Store(Path(tmp) / "read.db")
        _add_cluster(store2, 7, 64)
        for first in range(0, args.read_seconds, BATCH_S):
            store2.add_gpu_samples(
                7,
                [
                    (1_700_000_000_000 + second * 1000, node, pool[node])
                    for second in range(first, first + BATCH_S)
                    for node in range(8)
                ],
            )
        store2.writer.flush(600)
        reads = []
        count = 0
        for _ in range(7):
            r0 = time.perf_counter()
            arr = store2.gpu_samples(
                7, 1_700_000_000_000, 1_700_000_000_000 + args.read_seconds * 1000
            )
            reads.append((time.perf_counter() - r0) * 1000)
            count = len(arr)
        store.close()
        store2.close()
    result = {
        "samples_written": written,
        "write_seconds": round(elapsed, 3),
        "samples_per_second": round(written / elapsed),
        "db_bytes_per_sample": round(size / written, 2),
        "read_seconds": args.read_seconds,
        "hour_read_samples": count,
        "hour_read_ms_median": round(statistics.median(reads), 2),
        "batch_seconds": BATCH_S,
        "targets": {"samples_per_second": 200_000, "db_bytes_per_sample": 40, "hour_read_ms": 50},
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
