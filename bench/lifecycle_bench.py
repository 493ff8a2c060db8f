"""Time from `up` to ready for 1 node and for 16 nodes, and `clusters` with 50 clusters.

`clusters` runs as a user runs it, a fresh interpreter each time (it reconciles with the
simulated cloud first); its CPU seconds are reported beside the wall time, since a loaded
machine stretches the wall time, with the load average.

The simulated cloud runs in its own process with zero provision delay, as a
user's would with --fast. Bootstrap runs on all nodes in parallel, so 16 nodes
should take less than twice one node. Prints one JSON object as its last line.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from xyclaw.billing.guard_process import stop_guard
from xyclaw.config import load_config
from xyclaw.engine import Engine
from xyclaw.engine.compose import build_engine
from xyclaw.engine.lifecycle import Timeouts, UpRequest
from xyclaw.paths import AppPaths
from xyclaw.sim.cloud.launcher import stop


def up_seconds(engine: Engine, nodes: int) -> float:
    request = UpRequest(
        provider="sim",
        gpu="A800",
        gpu_count=8 * nodes,
        region="Xiamen",
        fabric="none" if nodes == 1 else "ib-hdr-200",
        gpus_per_node=8,
        price_per_gpu_hour_micros=3_500_000,
    )
    t0 = time.perf_counter()
    cluster = engine.up(engine.quote_request(request)).result(300)
    elapsed = time.perf_counter() - t0
    engine.down(cluster.name).result(300)
    return elapsed


def start_cloud(home: Path, link_delay_s: float, fast: bool = False) -> None:
    """The cloud in its own process, as `xyclaw sim serve` runs it for a user (``fast``: its
    releases and per-node delays immediate too, for the smoke size)."""
    state = home / "data" / "sim"
    state.mkdir(parents=True, exist_ok=True)
    log = (state / "bench-serve.log").open("ab")
    subprocess.Popen(
        [sys.executable, "-m", "xyclaw.cli.main", "sim", "serve", "--state", str(state),
         "--provision-delay", "0", "--link-delay", str(link_delay_s), "--port", "0",
         *(["--fast"] if fast else [])],
        stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
    )  # fmt: skip
    deadline = time.monotonic() + 30
    while not (state / "server.json").exists():
        if time.monotonic() > deadline:
            raise SystemExit("the simulated cloud did not start")
        time.sleep(0.05)


def up_times(link_delay_s: float, sizes: Sizes) -> tuple[float, float]:
    """Median seconds from `up` to ready for 1 node and for 16 (``sizes.nodes``) nodes."""
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        os.environ["XYCLAW_HOME"] = str(home)
        start_cloud(home, link_delay_s, sizes.fast)
        paths = AppPaths.from_environment()
        engine = build_engine(paths, load_config(paths.config_file), timeouts=Timeouts(poll_s=0.05))
        try:
            one = [up_seconds(engine, 1) for _ in range(sizes.ups)]
            sixteen = [up_seconds(engine, sizes.nodes) for _ in range(max(1, sizes.ups - 1))]
        finally:
            engine.close()
            stop_guard(paths)  # renting started the folder's background guard
            stop(paths.data_dir / "sim")
    return statistics.median(one), statistics.median(sixteen)


def version_seconds(times: int) -> float:
    """`xyclaw --version` from a fresh interpreter, median of ``times`` (five)."""
    runs = []
    for _ in range(times):
        t0 = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "xyclaw.cli.main", "--version"], capture_output=True, check=True
        )
        runs.append(time.perf_counter() - t0)
    return round(statistics.median(runs), 3)


@dataclass(frozen=True)
class Sizes:
    nodes: int = 16  # the large cluster
    ups: int = 3  # ups of one node timed (of the large cluster: one fewer)
    clusters: int = 50  # listed by `clusters`
    commands: int = 5  # `clusters` and `--version` runs timed
    fast: bool = False  # the cloud releases at once (a realistic 3 s otherwise)


SMOKE = Sizes(nodes=2, ups=1, clusters=3, commands=1, fast=True)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument(
        "--smoke", action="store_true", help="1 and 2 nodes, 3 clusters, 1 run: that it runs"
    )
    sizes = SMOKE if parser.parse_args(argv).smoke else Sizes()
    os.environ["XYCLAW_SECRETS_BACKEND"] = "file"
    local_one, local_sixteen = up_times(0.0, sizes)
    far_one, far_sixteen = up_times(0.03, sizes)
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        os.environ["XYCLAW_HOME"] = str(home)
        os.environ["XYCLAW_SIM_PROVISION_DELAY_S"] = "0"
        os.environ["XYCLAW_SECRETS_BACKEND"] = "file"
        paths = AppPaths.from_environment()
        engine = build_engine(paths, load_config(paths.config_file), timeouts=Timeouts(poll_s=0.05))
        try:
            if sizes.fast:
                start_cloud(home, 0.0, fast=True)
            engine.offers()  # starts the cloud in its own process (unless started above)
            for i in range(sizes.clusters):
                request = UpRequest(
                    provider="sim",
                    gpu="RTX4090",
                    gpu_count=1,
                    region=("Xiamen", "Yinchuan", "Ulanqab")[i % 3],
                    fabric="none",
                    gpus_per_node=1,
                    price_per_gpu_hour_micros=1_900_000,
                    name=f"bench-{i}",
                )
                engine.up(engine.quote_request(request)).result(120)
            engine.close()
            runs = []
            cpu = []
            for _ in range(sizes.commands):
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                t0 = time.perf_counter()
                proc = subprocess.run(
                    [sys.executable, "-m", "xyclaw.cli.main", "clusters", "--json"],
                    capture_output=True,
                    text=True,
                    env=dict(os.environ),
                    timeout=120,
                )
                runs.append(time.perf_counter() - t0)
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                cpu.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
                assert proc.returncode == 0, proc.stderr
                assert "could not check" not in proc.stderr, proc.stderr  # it reconciled
                listed = len(json.loads(proc.stdout))
            engine = build_engine(paths, load_config(paths.config_file))
            t0 = time.perf_counter()
            for _ in range(10):
                engine.clusters()
            list_ms = (time.perf_counter() - t0) * 100
            for cluster in engine.clusters():
                engine.down(cluster.name).result(120)
        finally:
            engine.close()
            stop_guard(paths)
            stop(paths.data_dir / "sim")
    print(
        json.dumps(
            {
                "large_cluster_nodes": sizes.nodes,
                "headline_ratio_16_to_1_nodes_at_30ms": round(far_sixteen / far_one, 2),
                "loopback_up_to_ready_1_node_s": round(local_one, 3),
                "loopback_up_to_ready_16_nodes_s": round(local_sixteen, 3),
                "loopback_ratio_16_to_1": round(local_sixteen / local_one, 2),
                "rtt30ms_up_to_ready_1_node_s": round(far_one, 3),
                "rtt30ms_up_to_ready_16_nodes_s": round(far_sixteen, 3),
                "rtt30ms_ratio_16_to_1": round(far_sixteen / far_one, 2),
                "clusters_listed": listed,
                "clusters_command_s_median": round(statistics.median(runs), 3),
                "clusters_command_cpu_s_median": round(statistics.median(cpu), 3),
                "clusters_command_target_s": 0.5,
                "version_command_s_median": version_seconds(sizes.commands),
                "load_average_1min": round(os.getloadavg()[0], 2),
                "list_clusters_in_process_ms": round(list_ms, 2),
                "target_ratio_below": 2.0,
            }
        )
    )


if __name__ == "__main__":
    main()
