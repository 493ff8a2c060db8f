"""A second of an 8-GPU node's nvidia-smi records, and a cluster to store them under: what the
sample-layout tests write."""

from __future__ import annotations

import numpy as np

from xyclaw.store import Store
from xyclaw.store.samples import empty_gpu_records


def a_second(rng: np.random.Generator, cards: int = 8) -> np.ndarray:
    """Every moving field random, the still ones as on a datacenter card."""
    rec = empty_gpu_records(cards)
    rec["gpu"] = np.arange(cards)
    rec["util"] = rng.integers(0, 101, cards)
    rec["mem_util"] = rng.integers(0, 101, cards)
    rec["temp_c"] = rng.integers(30, 90, cards)
    rec["pstate"] = 0
    rec["power_dw"] = rng.integers(600, 7000, cards)
    rec["power_limit_w"] = 700
    rec["sm_mhz"] = rng.integers(1000, 1981, cards)
    rec["mem_used_mib"] = rng.integers(0, 196_608, cards)  # a B200's memory needs 32 bits
    rec["mem_total_mib"] = 196_608
    rec["throttle"] = rng.choice([0, 0x4, 0x20, 0x104], cards)
    rec["ecc_uncorrected"] = 0
    # fan stays [N/A] (missing), as on every datacenter card
    return rec


def add_cluster(store: Store, cluster_id: int = 1) -> None:
    """A running cluster of the simulated provider, for samples to belong to."""
    store.writer.call(
        lambda db: db.conn.execute(
            "INSERT OR IGNORE INTO providers (id, kind, name, created_at)"
            " VALUES ('sim', 'sim', 'sim', 0)"
        )
    )
    store.writer.call(
        lambda db: db.conn.execute(
            "INSERT INTO clusters (id, provider_id, name, state, gpu, gpu_count,"
            " gpus_per_node, fabric, currency, price_per_gpu_hour_micros, created_at)"
            " VALUES (?, 'sim', 'c', 'running', 'H100', 8, 8, 'none', 'USD', 1, 0)",
            [cluster_id],
        )
    )
