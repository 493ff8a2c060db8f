"""How fast the SSH layer is: run() round trips and parallel connects.

Real OpenSSH: median of N run() calls over one connection (each one is a new
session on the server, so the login shell starts every time), and what a
stream gives instead. Simulated GPU node (when ``xyclaw.sim.node`` exists):
median of N run() calls over one connection (target <= 2 ms), and the time to
connect to 64 simulated nodes at once. Prints ONE JSON object last.

    .venv/bin/python bench/remote_bench.py [--runs 500] [--nodes 64]
"""

from __future__ import annotations

import argparse
import getpass
import importlib
import json
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.remote.sshd import SSHD, Sshd, keygen  # noqa: E402
from xyclaw.config import SshSettings  # noqa: E402
from xyclaw.remote import HostSpec, KnownHosts, SshPool  # noqa: E402

SETTINGS = SshSettings(connect_timeout_s=10, command_timeout_s=60, keepalive_s=15, max_parallel=64)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def time_runs(pool: SshPool, spec: HostSpec, command: str, runs: int) -> dict[str, float]:
    pool.run(spec, command)  # connect and warm up
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        pool.run(spec, command).check()
        times.append((time.perf_counter() - started) * 1000)
    return {
        "median_ms": round(statistics.median(times), 3),
        "p90_ms": round(percentile(times, 0.9), 3),
        "min_ms": round(min(times), 3),
    }


def time_stream(pool: SshPool, spec: HostSpec, lines: int) -> dict[str, float]:
    first = threading.Event()
    count = 0
    first_at = 0.0

    def on_line(line: str) -> None:
        nonlocal count, first_at
        count += 1
        if not first.is_set():
            first_at = time.perf_counter()
            first.set()

    started = time.perf_counter()
    handle = pool.stream(spec, f"seq 1 {lines}", on_line=on_line)
    handle.wait(120)
    ended = time.perf_counter()
    return {
        "first_line_ms": round((first_at - started) * 1000, 3),
        "lines_per_s": round(count / (ended - started)),
    }


def bench_sshd(work: Path, key_path: Path, runs: int) -> dict[str, Any]:
    if not SSHD.exists():
        return {"status": "skipped: /usr/sbin/sshd not installed (apt-get install openssh-server)"}
    server = Sshd(work / "sshd", [keygen_cached(key_path)]).start()
    known = KnownHosts(work / "known_hosts")
    known.add("127.0.0.1", server.port, server.host_key, persist=False)
    spec = HostSpec(
        alias="sshd",
        hostname="127.0.0.1",
        port=server.port,
        user=getpass.getuser(),
        identity_files=(key_path,),
        identities_only=True,
    )
    try:
        with SshPool(SETTINGS, known, use_agent=False, default_identities=()) as pool:
            figures: dict[str, Any] = {"status": "measured"}
            figures["run_true"] = time_runs(pool, spec, "true", runs)
            figures["stream_seq_100000"] = time_stream(pool, spec, 100_000)
            return figures
    finally:
        server.stop()


_KEYS: dict[Path, Any] = {}


def keygen_cached(path: Path) -> Any:
    if path not in _KEYS:
        _KEYS[path] = keygen(path)
    return _KEYS[path]


def load_sim() -> tuple[Any, Any] | str:
    try:
        node_module = importlib.import_module("xyclaw.sim.node")
    except ImportError as exc:
        return f"pending: xyclaw.sim.node is not there yet ({exc})"
    sim_node = getattr(node_module, "SimNode", None)
    spec_class = getattr(node_module, "SimNodeSpec", None)
    if spec_class is None:
        spec_class = getattr(importlib.import_module("xyclaw.sim"), "SimNodeSpec", None)
    if sim_node is None or spec_class is None:
        return "pending: xyclaw.sim.node has no SimNode/SimNodeSpec yet"
    return sim_node, spec_class


def bench_sim(work: Path, key_path: Path, runs: int, nodes: int) -> dict[str, Any]:
    loaded = load_sim()
    if isinstance(loaded, str):
        return {"status": loaded}
    sim_node, spec_class = loaded
    key = keygen_cached(key_path)
    known = KnownHosts(work / "sim_known_hosts")

    def start(index: int) -> Any:
        spec = spec_class(
            hostname=f"sim-{index:03d}", gpu_model="A800", gpu_count=8, fabric="ib-hdr-200"
        )
        node = sim_node(spec, root=work / f"sim-{index:03d}", authorized_keys=[key])
        node.start()
        host, port = node.address
        known.add(host, port, node.host_key, persist=False)
        return node

    def host_spec(index: int, node: Any) -> HostSpec:
        host, port = node.address
        return HostSpec(alias=f"sim-{index:03d}", hostname=host, port=port, user="root")

    started_nodes: list[Any] = []
    figures: dict[str, Any] = {"status": "measured"}
    try:
        first = start(0)
        started_nodes.append(first)
        with SshPool(
            SETTINGS, known, client_keys=[key], use_agent=False, default_identities=()
        ) as pool:
            figures["run_hostname"] = time_runs(pool, host_spec(0, first), "hostname", runs)
            figures["run_target_ms"] = 2.0
            figures["run_meets_target"] = figures["run_hostname"]["median_ms"] <= 2.0
        boot_started = time.perf_counter()
        for index in range(1, nodes):
            started_nodes.append(start(index))
        figures["start_nodes_s"] = round(time.perf_counter() - boot_started, 3)
        specs = [host_spec(i, node) for i, node in enumerate(started_nodes)]
        with SshPool(
            SETTINGS, known, client_keys=[key], use_agent=False, default_identities=()
        ) as pool:
            began = time.perf_counter()
            outcome = pool.connect_many(specs)
            figures[f"connect_{nodes}_parallel_s"] = round(time.perf_counter() - began, 3)
            failures = {host: str(err) for host, err in outcome.items() if err is not None}
            figures["connect_failures"] = len(failures)
            if failures:
                figures["first_failure"] = next(iter(failures.values()))
        return figures
    finally:
        for node in started_nodes:
            node.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=500)
    parser.add_argument("--nodes", type=int, default=64)
    parser.add_argument("--smoke", action="store_true", help="5 runs, 2 nodes: that it runs")
    args = parser.parse_args()
    if args.smoke:
        args.runs, args.nodes = 5, 2
    with tempfile.TemporaryDirectory(prefix="xyclaw-remote-bench-") as tmp:
        work = Path(tmp)
        key_path = work / "id_ed25519"
        keygen_cached(key_path)
        result = {
            "bench": "remote",
            "runs": args.runs,
            "real_sshd": bench_sshd(work, key_path, args.runs),
            "sim_node": bench_sim(work, key_path, args.runs, args.nodes),
        }
    for section in ("real_sshd", "sim_node"):
        print(f"{section}: {result[section]}", file=sys.stderr)
    print(json.dumps(result, sort_keys=True))


if __name__ == "__main__":
    main()
