"""Issue 23: your own machines' bookings (own-hosts-state.json) changed by several processes
at once (`up` in a terminal, the guard releasing, the window) keep every change: no machine
is given to two clusters, no release is undone by another process's rental."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from xyclaw.providers.base import ClusterOrder
from xyclaw.providers.own_hosts import OwnHostsProvider

ROOT = Path(__file__).resolve().parents[2]
HOSTS = 6


def _hosts_toml(folder: Path) -> None:
    blocks = [
        f'[[host]]\nname = "m{i}"\nhost = "10.0.0.{i + 1}"\nuser = "root"\ngpu = "A100-80G"\n'
        "gpus = 1\n"
        for i in range(HOSTS)
    ]
    (folder / "hosts.toml").write_text("\n".join(blocks), encoding="utf-8")


def _at_once(folder: Path, jobs: list[list[str]]) -> list[dict[str, object]]:
    go = folder / "go"
    go.unlink(missing_ok=True)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "tests.concurrency.own_hosts_rent",
                str(folder),
                str(go),
                str(i),
                *job,
            ],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for i, job in enumerate(jobs)
    ]
    deadline = time.monotonic() + 120
    while not all((folder / f"ready{i}").exists() for i in range(len(jobs))):
        assert all(p.poll() is None for p in procs), [p.communicate() for p in procs]
        assert time.monotonic() < deadline
        time.sleep(0.02)
    go.write_text("go")
    for proc in procs:
        _out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
    results = [json.loads((folder / f"out{i}.json").read_text()) for i in range(len(jobs))]
    for i in range(len(jobs)):
        (folder / f"ready{i}").unlink()
        (folder / f"out{i}.json").unlink()
    return results


def test_rentals_and_releases_at_once_keep_every_change(tmp_path: Path) -> None:
    _hosts_toml(tmp_path)
    first = OwnHostsProvider(tmp_path / "hosts.toml", tmp_path / "own-hosts-state.json")
    order = ClusterOrder("A100-80G", 1, None, None, "before", "ssh-ed25519 AAAA x")
    kept = [first.create(order).external_id]
    released = first.create(
        ClusterOrder("A100-80G", 1, None, None, "to-release", "ssh-ed25519 AAAA x")
    ).external_id
    # four rentals and one release, all in the same moment, each in its own process
    results = _at_once(tmp_path, [["rent"]] * 4 + [["release", released]])
    rented = [r for r in results if "cluster" in r]
    provider = OwnHostsProvider(tmp_path / "hosts.toml", tmp_path / "own-hosts-state.json")
    live = {c.external_id: [n.hostname for n in c.nodes] for c in provider.clusters()}
    assert sorted(live) == sorted([*kept, *(str(r["cluster"]) for r in rented)])
    assert released not in live  # the release was not undone by a rental saved after it
    machines = [m for hosts in live.values() for m in hosts]
    assert len(machines) == len(set(machines)) == 5, live  # no machine in two clusters
