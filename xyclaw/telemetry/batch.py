"""Samples gathered in memory and handed to the store every few seconds.

Each flush gives the store a cluster's samples at once (the packed layout of
:mod:`xyclaw.store.samples`: a few rows of several nodes each), so the writer
commits a few rows every ten seconds instead of one per GPU per second.
"""

from __future__ import annotations

import logging
import threading

import numpy as np

from xyclaw.errors import StoreError
from xyclaw.store import Store
from xyclaw.store.samples import DcgmRecords, GpuRecords, NicRecords, empty_nic_records

log = logging.getLogger(__name__)

_Item = tuple[int, int, GpuRecords]


class SampleBatcher:
    def __init__(self, store: Store) -> None:
        self._store = store
        self._lock = threading.Lock()
        self._gpu: dict[int, list[_Item]] = {}
        self._nic: dict[int, list[tuple[int, int, NicRecords]]] = {}
        self._dcgm: dict[int, list[tuple[int, int, DcgmRecords]]] = {}
        self.written_instants = 0
        self.failed_flushes = 0

    def add_gpu(self, cluster_id: int, ts_ms: int, node_id: int, records: GpuRecords) -> None:
        with self._lock:
            self._gpu.setdefault(cluster_id, []).append((ts_ms, node_id, records))

    def add_nic(
        self, cluster_id: int, ts_ms: int, node_id: int, rx: np.ndarray, tx: np.ndarray
    ) -> None:
        records = empty_nic_records(len(rx))
        records["nic"] = np.arange(len(rx), dtype=np.uint8)
        records["rx_bytes_s"] = rx
        records["tx_bytes_s"] = tx
        with self._lock:
            self._nic.setdefault(cluster_id, []).append((ts_ms, node_id, records))

    def add_dcgm(self, cluster_id: int, ts_ms: int, node_id: int, records: DcgmRecords) -> None:
        with self._lock:
            self._dcgm.setdefault(cluster_id, []).append((ts_ms, node_id, records))

    @property
    def pending(self) -> int:
        with self._lock:
            return sum(len(v) for v in self._gpu.values())

    def flush(self) -> None:
        with self._lock:
            gpu, self._gpu = self._gpu, {}
            nic, self._nic = self._nic, {}
            dcgm, self._dcgm = self._dcgm, {}
        for cluster_id, items in gpu.items():
            items.sort(key=lambda item: item[0])
            try:
                self._store.add_gpu_samples(cluster_id, items)
                self.written_instants += len(items)
            except StoreError as exc:
                self.failed_flushes += 1
                log.error("could not save %d GPU samples: %s", len(items), exc.message)
        for cluster_id, nic_items in nic.items():
            nic_items.sort(key=lambda item: item[0])
            try:
                self._store.add_nic_samples(cluster_id, nic_items)
            except StoreError as exc:
                self.failed_flushes += 1
                log.error("could not save %d NIC samples: %s", len(nic_items), exc.message)
        for cluster_id, dcgm_items in dcgm.items():
            dcgm_items.sort(key=lambda item: item[0])
            try:
                self._store.add_dcgm_samples(cluster_id, dcgm_items)
            except StoreError as exc:
                self.failed_flushes += 1
                log.error("could not save %d DCGM samples: %s", len(dcgm_items), exc.message)
