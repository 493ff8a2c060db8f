"""Issue 23: eight XyClaw processes starting at once on a new data folder agree on every
file they share (the app's SSH key, the history, known_hosts, config.toml, hosts.toml, the
simulated cloud's token, the guard's lock and status)."""

from __future__ import annotations

import itertools
import json
import os
import sqlite3
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import paramiko

from tests.concurrency.first_start import SETTINGS
from xyclaw.config import load_config
from xyclaw.paths import AppPaths
from xyclaw.providers.own_hosts import load_hosts
from xyclaw.remote.known_hosts import fingerprint_sha256, parse_known_hosts

PROCESSES = 8
ROOT = Path(__file__).resolve().parents[2]


def test_eight_first_starts_at_once_agree(tmp_path: Path) -> None:
    paths = AppPaths.from_environment()
    assert not paths.data_dir.exists()  # a new data folder
    work = tmp_path / "race"
    work.mkdir()
    shared = paramiko.ECDSAKey.generate(bits=256)
    shared.write_private_key_file(str(work / "shared"))
    go = work / "go"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    procs = []
    for i in range(PROCESSES):
        procs.append(
            subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "tests.concurrency.first_start",
                    str(work / f"ready{i}"),
                    str(go),
                    str(work / f"out{i}.json"),
                    str(i),
                ],
                cwd=ROOT,
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
        )
    deadline = time.monotonic() + 120
    while not all((work / f"ready{i}").exists() for i in range(PROCESSES)):
        assert all(p.poll() is None for p in procs), [p.communicate() for p in procs]
        assert time.monotonic() < deadline, "the processes did not start"
        time.sleep(0.05)
    go.write_text("go")  # all of them at once
    for proc in procs:
        _out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
    results = [json.loads((work / f"out{i}.json").read_text()) for i in range(PROCESSES)]

    # One SSH key: every process used the key the file holds.
    key = paramiko.ECDSAKey.from_private_key_file(str(paths.data_dir / "ssh" / "id_ecdsa"))
    assert {r["fingerprint"] for r in results} == {fingerprint_sha256(key)}
    assert (paths.data_dir / "ssh" / "id_ecdsa").stat().st_mode & 0o077 == 0

    # One history, made and migrated once, with every process's row.
    conn = sqlite3.connect(paths.database)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        rows = [json.loads(r[0]) for r in conn.execute("SELECT request_json FROM plans")]
    finally:
        conn.close()
    assert sorted(r["process"] for r in rows) == list(range(PROCESSES))

    # known_hosts: every process's host, and the shared host once; nothing torn.
    text = paths.known_hosts.read_text(encoding="utf-8")
    entries = parse_known_hosts(text)
    assert len(text.splitlines()) == len(entries) == PROCESSES + 1
    assert sum(1 for line in text.splitlines() if line.startswith("shared.example ")) == 1

    # config.toml: every process's setting kept, and the file loads.
    parsed = tomllib.loads(paths.config_file.read_text(encoding="utf-8"))
    for dotted, value in SETTINGS:
        section, key_name = dotted.split(".")
        assert parsed[section][key_name] == value, dotted
    load_config(paths.config_file)

    # hosts.toml: every process's host.
    assert all(r["hosts_add"] == 0 for r in results)
    hosts = load_hosts(paths.config_dir / "hosts.toml")
    assert sorted(h.name for h in hosts) == sorted(f"h{i}" for i in range(PROCESSES))

    # The simulated cloud's token: one, the file's.
    token = (paths.data_dir / "sim" / "token").read_text(encoding="utf-8").strip()
    assert {r["token"] for r in results} == {token}

    # The guard's lock: never held by two at once.
    spans = sorted(tuple(r["guard_held"]) for r in results if r["guard_held"])
    assert spans, "nobody took the guard's lock"
    for (_, end), (start, _) in itertools.pairwise(spans):
        assert end <= start

    # No temporary file left behind.
    leftovers = [p for p in paths.data_dir.rglob("*.tmp")] + list(paths.config_dir.glob("*.tmp"))
    assert leftovers == []
