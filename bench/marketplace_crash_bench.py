"""Crash probe for the marketplace providers (Vast.ai, RunPod): kill -9 at random points.

For each provider and each phase (``up``, ``down``) the app runs as its own process
against the fake marketplace on loopback (tests/providers_real: the adapters' real HTTP
code, real SSH nodes) and is killed with SIGKILL at a random moment of that phase; a new
process then reconciles. After each trial:

- leaks: instances the marketplace bills that the history does not know as live;
- gone while billing: history rows marked gone, released or failed whose instance bills;
- double rents: one intent rented twice (two instances with one label).

``runpod-cluster`` is a 2-node RunPod Instant Cluster (two pods of 8 x H100, one
``createCluster``): its pods are counted as the cluster they belong to, and a release
must not be recorded while any of them still bills.

Targets: 0, 0 and 0 (issue 31). ``--trials`` per provider and phase (20 at full size,
1 with ``--smoke``). The last line on stdout is one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.providers_real.fake_runpod import FakeRunPod, Pod  # noqa: E402
from tests.providers_real.fake_vast import FakeVast, VastInstance  # noqa: E402
from tests.providers_real.fakehttp import FakeServer  # noqa: E402
from tests.providers_real.nodes import SimNodes  # noqa: E402

LIVE = ("requested", "provisioning", "bootstrapping", "ready", "releasing")
ENDED = ("gone", "released", "failed")


def app(kind: str, url: str, home: Path, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "tests.providers_real.app", kind, url, "0", *args],
        cwd=ROOT,
        env={**os.environ, "XYCLAW_HOME": str(home), "PYTHONPATH": str(ROOT)},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def rows(home: Path) -> list[tuple[str, str | None, str | None]]:
    db = home / "data" / "xyclaw.db"
    candidates = [db] if db.exists() else list(home.rglob("*.db"))
    if not candidates:
        return []
    conn = sqlite3.connect(candidates[0])
    try:
        return conn.execute("SELECT state, external_id, idempotency_key FROM clusters").fetchall()
    finally:
        conn.close()


def billing(fake: FakeVast | FakeRunPod) -> list[tuple[str, str]]:
    """(external id, label) of what the marketplace bills for XyClaw now; a pod of an
    Instant Cluster is billed as its cluster (``cluster:<id>``, the cluster's name)."""
    if isinstance(fake, FakeVast):
        return [(str(i.id), i.label or "") for i in fake.billing()]
    out = []
    for pod in fake.billing():
        if pod.cluster is None:
            out.append((pod.id, pod.name))
        else:
            out.append((f"cluster:{pod.cluster}", pod.name.rpartition("-")[0]))
    return out


def start(kind: str, nodes: SimNodes, create_delay_s: float) -> tuple[Any, FakeServer]:
    if kind == "vastai":

        def vast_node(inst: VastInstance, script: str) -> tuple[str, int]:
            return nodes.container_node(f"vast-{inst.id}", "H100", 1, script)

        fake: FakeVast | FakeRunPod = FakeVast(
            boot_s=0.3, on_running=vast_node, create_delay_s=create_delay_s
        )
    else:

        def pod_node(pod: Pod, script: str) -> tuple[str, int]:
            gpu = "H100" if pod.cluster is not None else "RTX4090"
            return nodes.container_node(f"pod-{pod.id}", gpu, pod.count, script)

        fake = FakeRunPod(boot_s=0.3, on_running=pod_node, create_delay_s=create_delay_s)
    return fake, FakeServer(fake).start()


def trial(kind: str, phase: str, rng: random.Random, window_s: float) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="xyclaw-crash-") as tmp:
        home = Path(tmp) / "home"
        nodes = SimNodes(Path(tmp) / "nodes")
        fake, server = start(kind, nodes, create_delay_s=rng.uniform(0.0, 0.5))
        try:
            name = None
            if phase == "down":
                up = app(kind, server.url, home, "up")
                out, err = up.communicate(timeout=120)
                if up.returncode != 0:
                    raise RuntimeError(f"{kind} up failed: {err[-400:]}")
                name = out.strip().splitlines()[-1]
                fake.destroy_delay_s = fake.terminate_delay_s = rng.uniform(0.0, 0.5)
                if kind == "runpod-cluster":  # pods bill a while after deleteCluster
                    fake.linger_s = rng.uniform(0.0, 0.5)
            args = ("up",) if phase == "up" else ("down", str(name))
            asked = len(fake.log)
            proc = app(kind, server.url, home, *args)
            # The kill lands at a random moment after the app first talks to the marketplace
            # (before that it is only starting Python): within the rest of the phase, which
            # takes ~1 s (up) or ~0.3 s (down) here plus the slow answer.
            deadline = time.monotonic() + 60
            while len(fake.log) == asked and proc.poll() is None and time.monotonic() < deadline:
                time.sleep(0.005)
            # A cluster's up lasts longer (two nodes to bootstrap): its window is wider, so
            # kills land in the rent, the record and the bootstrap alike.
            scale = 0.5 if phase == "down" else (2.5 if kind == "runpod-cluster" else 1.0)
            delay = rng.uniform(0.0, window_s * scale)
            try:
                proc.wait(timeout=delay)
                finished = True
            except subprocess.TimeoutExpired:
                proc.kill()
                finished = False
            proc.communicate(timeout=30)
            fake.destroy_delay_s = fake.terminate_delay_s = 0.0
            reconciled = app(kind, server.url, home, "reconcile")
            _, err = reconciled.communicate(timeout=120)
            if reconciled.returncode != 0:
                raise RuntimeError(f"{kind} reconcile failed: {err[-400:]}")
            time.sleep(0.2)
            billed = billing(fake)
            history = rows(home)
            by_ext = {ext: state for state, ext, _ in history if ext}
            by_key = {key: state for state, _, key in history if key}
            leaks = [
                ext for ext, label in billed if (by_ext.get(ext) or by_key.get(label)) not in LIVE
            ]
            gone_billing = [ext for ext, _ in billed if by_ext.get(ext) in ENDED]
            doubles = [
                label
                for label, n in Counter(lb for _, lb in set(billed)).items()  # a pod per node
                if n > 1
            ]
            return {
                "kind": kind,
                "phase": phase,
                "killed_at_s": round(delay, 2),
                "finished_first": finished,
                "leaks": len(leaks),
                "gone_while_billing": len(gone_billing),
                "double_rents": len(doubles) + max(0, creates(kind, fake) - 1),
                "billing_after": len(billed),
                "history": sorted(state for state, _, _ in history),
            }
        finally:
            server.stop()
            nodes.stop()


CREATE = {"vastai": ("PUT", "/api/v0/asks/101/"), "runpod": ("POST", "/v1/pods")}
KINDS = ("vastai", "runpod", "runpod-cluster")


def creates(kind: str, fake: Any) -> int:
    """How many creates the app sent (a cluster's is a GraphQL createCluster)."""
    if kind == "runpod-cluster":
        asked = fake.requests_to("POST", "/graphql")
        return sum(1 for r in asked if "createCluster" in str((r.body or {}).get("query")))
    return len(fake.requests_to(*CREATE[kind]))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true")
    parser.add_argument("--trials", type=int, default=20, help="per provider and phase")
    parser.add_argument(
        "--window",
        type=float,
        default=1.6,
        help="kill within this many s of the first request (half for down)",
    )
    parser.add_argument("--seed", type=int, default=31)
    parser.add_argument(
        "--kinds", default=",".join(KINDS), help="comma-separated, of " + ", ".join(KINDS)
    )
    args = parser.parse_args()
    kinds = [k for k in args.kinds.split(",") if k]
    rng = random.Random(args.seed)
    plan = (
        [("vastai", "up"), ("runpod", "down"), ("runpod-cluster", "down")]
        if args.smoke
        else [(k, p) for k in kinds for p in ("up", "down") for _ in range(args.trials)]
    )
    results = []
    started = time.monotonic()
    for kind, phase in plan:
        result = trial(kind, phase, rng, args.window)
        results.append(result)
        print(json.dumps(result), file=sys.stderr, flush=True)
    totals = {
        key: sum(r[key] for r in results) for key in ("leaks", "gone_while_billing", "double_rents")
    }
    killed = sum(1 for r in results if not r["finished_first"])
    summary = {
        "bench": "marketplace_crash",
        "smoke": args.smoke,
        "trials": Counter(f"{r['kind']}/{r['phase']}" for r in results),
        "killed_mid_phase": killed,
        **totals,
        "targets": {"leaks": 0, "gone_while_billing": 0, "double_rents": 0},
        "meets_target": all(v == 0 for v in totals.values()),
        "seconds": round(time.monotonic() - started, 1),
    }
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
