"""Job log streaming: 16 ranks each printing 1,000 lines/s for 60 s on simulated nodes.

The simulated nodes (2 x 8 ranks by default) run in a child process this script starts,
which also writes each rank's lines into the node's job log as the rank would (1,000
lines/s per rank, each carrying its sequence number and the time it was written). The
app side is this process: the job runtime streams every node's log over SSH, cuts it
into lines and stores them with their offsets. Reports the lines stored per second,
the lines lost or stored twice (target 0), the p99 from a line written on a node to it
being readable in the store (target <= 500 ms), and this process's CPU time as a share of
one core (target <= 15%). Prints ONE JSON object last.

    .venv/bin/python bench/jobs_bench.py [--nodes 2] [--ranks-per-node 8] [--rate 1000]
        [--seconds 60]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

GPUS = 8
DONE = "bench-done"  # in the shared folder once every line was written: the job ends
LINE = re.compile(r"\[rank(\d+)\]:bench seq (\d+) t (\d+\.\d+) ")


# --- the child: simulated nodes and the ranks' output ------------------------------------------


def serve(folder: Path, nodes: int, lifetime: float) -> int:
    from xyclaw.remote.node_access import parse_public_key
    from xyclaw.sim.node import SimNode
    from xyclaw.sim.nodespec import SimClusterInfo, SimNodeSpec

    key = parse_public_key((folder / "client.pub").read_text())
    hostnames = tuple(f"jobs-node{i}" for i in range(nodes))
    shared = folder / "shared"
    info = SimClusterInfo(hostnames=hostnames, gpus_per_node=GPUS, shared_dir=shared, name="jb")
    started: list[SimNode] = []
    try:
        for name in hostnames:
            node = SimNode(
                SimNodeSpec(hostname=name, gpu_model="A800", gpu_count=GPUS, fabric="ib-hdr-200"),
                root=folder / "nodes" / name,
                authorized_keys=[key],
                cluster=info,
            )
            node.start()
            started.append(node)
        listing = [
            {
                "hostname": n.spec.hostname,
                "host": n.address[0],
                "port": n.address[1],
                "host_key": f"{n.host_key.get_name()} {n.host_key.get_base64()}",
                "root": str(n.machine.root),
            }
            for n in started
        ]
        tmp = folder / "nodes.json.tmp"
        tmp.write_text(json.dumps(listing))
        tmp.replace(folder / "nodes.json")
        gone = threading.Event()

        def watch_parent() -> None:
            sys.stdin.read()
            gone.set()

        threading.Thread(target=watch_parent, daemon=True).start()
        deadline = time.monotonic() + lifetime
        while not (folder / "go.json").exists():
            if gone.wait(0.05) or time.monotonic() > deadline:
                return 0
        go = json.loads((folder / "go.json").read_text())
        writers = [
            threading.Thread(
                target=write_ranks,
                args=(Path(go["logs"][i]), i, go["ranks_per_node"], go["rate"], go["seconds"]),
                daemon=True,
            )
            for i in range(nodes)
        ]
        for w in writers:
            w.start()
        for w in writers:
            w.join()
        (shared / DONE).write_text("done\n")
        gone.wait(max(0.0, deadline - time.monotonic()))
    finally:
        for node in started:
            node.stop()
    return 0


def write_ranks(log: Path, node_rank: int, ranks: int, rate: float, seconds: float) -> None:
    """The ranks of one node printing ``rate`` lines/s each (in 10 ms bursts, as print()
    buffers flush), into the node's job log."""
    tick = 0.01
    written = 0  # lines each rank has printed so far
    total = int(rate * seconds)
    pad = "x" * 40
    start = time.monotonic()
    with log.open("ab", buffering=0) as out:
        while written < total:
            now = time.monotonic()
            due = min(total, int(rate * (now - start)))  # on time, whatever the sleeps did
            stamp = time.time()
            chunk = [
                f"[rank{node_rank * ranks + local}]:bench seq {seq} t {stamp:.6f} {pad}\n"
                for seq in range(written, due)
                for local in range(ranks)
            ]
            written = max(written, due)
            if chunk:
                out.write("".join(chunk).encode())
            time.sleep(max(0.0, tick - (time.monotonic() - now)))


def thread_cpu_s() -> dict[str, float]:
    """CPU seconds of each live thread of this process, by kind (Linux /proc)."""
    out: dict[str, float] = {}
    tick = os.sysconf("SC_CLK_TCK")
    for thread in threading.enumerate():
        tid = thread.native_id
        try:
            fields = Path(f"/proc/self/task/{tid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        kind = re.sub(r"[-_]?\d+.*$", "", thread.name) or thread.name
        kind = "paramiko transport" if kind.startswith("Thread") else kind
        out[kind] = out.get(kind, 0.0) + (int(fields[11]) + int(fields[12])) / tick
    return out


def child_cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


# --- the parent: the app --------------------------------------------------------------------


def register(engine: Any, listing: list[dict[str, Any]]) -> str:
    from xyclaw.records import ClusterInfo, ClusterState, NodeInfo

    clusters = engine._clusters
    clusters.ensure_provider("bench", "sim")
    cluster_id = clusters.add_intent(
        {
            "provider_id": "bench",
            "name": "jobs-bench",
            "gpu": "A800",
            "gpu_count": GPUS * len(listing),
            "gpus_per_node": GPUS,
            "fabric": "ib-hdr-200",
            "region": "loopback",
            "currency": "CNY",
            "price_per_gpu_hour_micros": 3_500_000,
            "idempotency_key": "jobs-bench-key",
        }
    )
    nodes = tuple(
        NodeInfo(
            external_id=f"jb-n{rank}",
            rank=rank,
            hostname=n["hostname"],
            state="running",
            ssh_host=n["host"],
            ssh_port=n["port"],
            ssh_user="root",
            host_key=n["host_key"],
        )
        for rank, n in enumerate(listing)
    )
    clusters.apply_provider_view(
        cluster_id,
        ClusterInfo(
            external_id="jb-ext",
            name="jobs-bench",
            state="running",
            gpu="A800",
            gpu_count=GPUS * len(listing),
            gpus_per_node=GPUS,
            fabric="ib-hdr-200",
            region="loopback",
            price_per_gpu_hour_micros=3_500_000,
            currency="CNY",
            nodes=nodes,
        ),
    )
    clusters.update(cluster_id, state=ClusterState.READY, ready_at=time.time())
    return "jobs-bench"


def run(args: argparse.Namespace) -> dict[str, Any]:
    import numpy as np

    from xyclaw.config import load_config
    from xyclaw.engine.compose import build_engine
    from xyclaw.jobs.follow import Committed
    from xyclaw.jobs.options import JobOptions
    from xyclaw.jobs.spec import parse_spec
    from xyclaw.paths import AppPaths
    from xyclaw.providers import ProviderRegistry
    from xyclaw.store.jobs import LogCap

    ranks = args.nodes * args.ranks_per_node
    expected_per_rank = int(args.rate * args.seconds)
    with tempfile.TemporaryDirectory(prefix="xyclaw-jobs-bench-") as tmp:
        folder = Path(tmp)
        os.environ["XYCLAW_HOME"] = str(folder / "home")
        paths = AppPaths.from_environment()
        config = load_config(paths.config_file, environ={"XYCLAW_GUARD_AUTOSTART": "false"})
        cap = LogCap(head=100_000, tail=max(900_000, int(ranks * expected_per_rank * 1.2)))
        engine = build_engine(
            paths, config, providers=ProviderRegistry(), job_options=JobOptions(log_cap=cap)
        )
        child = None
        latencies: list[float] = []
        seen: dict[int, set[int]] = {}
        duplicates = 0
        stored_in_window = 0

        heard_batches: list[tuple[float, list[Any]]] = []

        def heard(batch: Committed) -> None:
            """Only note when the batch became readable (``ts``: its commit); the lines are
            read after the run, so measuring costs the app nothing it would not spend."""
            heard_batches.append((batch.ts, batch.texts))

        try:
            (folder / "client.pub").write_text(engine.ssh_public_key())
            child = subprocess.Popen(
                [
                    sys.executable,
                    __file__,
                    "--serve",
                    str(folder),
                    "--nodes",
                    str(args.nodes),
                    "--lifetime",
                    str(args.seconds + 600),
                ],
                stdin=subprocess.PIPE,
                cwd=ROOT,
            )
            deadline = time.monotonic() + 120
            while not (folder / "nodes.json").exists():
                if child.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit("the simulated nodes did not start")
                time.sleep(0.1)
            listing = json.loads((folder / "nodes.json").read_text())
            cluster = register(engine, listing)
            engine._job_service().add_listener(heard)
            spec = parse_spec(
                "name: bench\nrun: |\n"
                f"  while [ ! -f /shared/{DONE} ]; do sleep 0.2; done\n"
                "recovery: false\n",
                check_paths=False,
            ).spec
            job = engine.launch(spec, cluster=cluster).result(120)
            logs = [
                str(
                    Path(n["root"])
                    / "root"
                    / ".xyclaw"
                    / "jobs"
                    / f"bench-{job.id}"
                    / "1"
                    / f"rank{i}.log"
                )
                for i, n in enumerate(listing)
            ]
            cpu0, wall0, child0 = time.process_time(), time.monotonic(), child_cpu_s(child.pid)
            threads0 = thread_cpu_s()
            go = {
                "logs": logs,
                "ranks_per_node": args.ranks_per_node,
                "rate": args.rate,
                "seconds": args.seconds,
            }
            (folder / "go.tmp").write_text(json.dumps(go))
            (folder / "go.tmp").replace(folder / "go.json")
            while not (folder / "shared" / DONE).exists():
                threads1 = thread_cpu_s()  # the followers' threads end with the job
                time.sleep(0.2)
            done = engine._job_service().wait_finished(job.id, args.seconds + 300)
            cpu1, wall1, child1 = time.process_time(), time.monotonic(), child_cpu_s(child.pid)
            written = sum(len(Path(p).read_bytes().splitlines()) for p in logs)
            stored = engine._job_service().jobs.get(job.id, with_attempts=False).log_lines
        finally:
            engine.close()
            if child is not None:
                assert child.stdin is not None
                child.stdin.close()
                child.wait(timeout=60)
    for when, texts in heard_batches:
        for text in texts:
            m = LINE.match(text)
            if m is None:
                continue
            rank, seq = int(m.group(1)), int(m.group(2))
            got = seen.setdefault(rank, set())
            if seq in got:
                duplicates += 1
            got.add(seq)
            latencies.append(when - float(m.group(3)))
            stored_in_window += 1
    wall = wall1 - wall0
    lat = np.array(latencies) * 1000.0
    received = sum(len(s) for s in seen.values())
    lost = ranks * expected_per_rank - received  # every line a rank printed, stored once?
    return {
        "bench": "jobs",
        "nodes": args.nodes,
        "ranks": ranks,
        "lines_per_rank_per_s": args.rate,
        "seconds_writing": args.seconds,
        "job_state": done.state.value,
        "lines_written": written,
        "lines_stored": stored,
        "lines_stored_per_s": round(stored_in_window / wall, 1),
        "lines_lost": lost,
        "lines_stored_twice": duplicates,
        "target_lines_lost": 0,
        "latency_ms_p50": round(float(np.percentile(lat, 50)), 1) if lat.size else None,
        "latency_ms_p99": round(float(np.percentile(lat, 99)), 1) if lat.size else None,
        "latency_ms_max": round(float(lat.max()), 1) if lat.size else None,
        "target_latency_ms_p99": 500,
        "app_cpu_share_of_one_core": round((cpu1 - cpu0) / wall, 4),
        "target_cpu_share": 0.15,
        "sim_cpu_share_of_one_core": round((child1 - child0) / wall, 4),
        "app_cpu_share_by_thread": {
            k: round((v - threads0.get(k, 0.0)) / wall, 4)
            for k, v in sorted(threads1.items())
            if v - threads0.get(k, 0.0) > 0.001
        },
        "wall_s": round(wall, 1),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=2)
    parser.add_argument("--ranks-per-node", type=int, default=8)
    parser.add_argument("--rate", type=float, default=1000.0, help="lines/s per rank")
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--lifetime", type=float, default=900.0, help=argparse.SUPPRESS)
    parser.add_argument("--serve", type=Path, help=argparse.SUPPRESS)
    parser.add_argument(
        "--smoke", action="store_true", help="1 node, 2 ranks, 50 lines/s for 2 s: that it runs"
    )
    args = parser.parse_args()
    if args.smoke:
        args.nodes, args.ranks_per_node, args.rate, args.seconds = 1, 2, 50.0, 2.0
    if args.serve is not None:
        return serve(args.serve, args.nodes, args.lifetime)
    print(json.dumps(run(args)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
