"""`ssh <cluster>-<n>` from a terminal: XyClaw's own SSH config with the live clusters'
nodes, one marked Include line in the user's file (added on request, removed on request,
nothing else in the file changed), entries gone on release; the real ~/.ssh untouched."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.jobs_runtime.conftest import MakeCluster
from xyclaw.engine import Engine
from xyclaw.records import ClusterState

MINE = "Host mybox\n    HostName 10.0.0.1\n    User me\n"


def ssh(config: Path, host: str, command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["ssh", "-F", str(config), "-o", "BatchMode=yes", "-o", "ConnectTimeout=10", host, command],
        capture_output=True,
        text=True,
        timeout=30,
    )


@pytest.mark.skipif(shutil.which("ssh") is None, reason="OpenSSH's client is not installed")
def test_ssh_aliases_of_a_live_cluster_with_an_include_line_added_and_taken_out(
    engine: Engine, make_cluster: MakeCluster, xyclaw_home: Path
) -> None:
    real = Path.home() / ".ssh" / "config"
    real_before = real.read_bytes() if real.exists() else None
    cluster = make_cluster(nodes=2, gpus_per_node=8)

    report = engine.ssh_config()

    assert report.hosts == (f"{cluster.name}-0", f"{cluster.name}-1")
    assert xyclaw_home in report.config.parents and xyclaw_home in report.user_config.parents
    assert oct(report.config.stat().st_mode & 0o777) == "0o600"
    ran = ssh(report.config, f"{cluster.name}-1", "hostname")
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.strip() == cluster.nodes[1].spec.hostname
    assert not report.included

    report.user_config.parent.mkdir(parents=True, exist_ok=True)
    report.user_config.write_text(MINE)
    installed = engine.ssh_config(include=True)
    again = engine.ssh_config(include=True)
    text = installed.user_config.read_text()
    assert installed.included and again.included
    assert text.count(f"Include {installed.config}") == 1 and text.endswith("\n" + MINE)
    through = ssh(installed.user_config, f"{cluster.name}-0", "hostname")
    assert through.stdout.strip() == cluster.nodes[0].spec.hostname

    engine._clusters.update(cluster.cluster_id, state=ClusterState.RELEASED)  # as a release does
    assert f"Host {cluster.name}-0" not in installed.config.read_text()
    assert engine.ssh_config().hosts == ()

    removed = engine.ssh_config(include=False)
    assert not removed.included and removed.user_config.read_text() == MINE
    assert (real.read_bytes() if real.exists() else None) == real_before
    assert os.environ["XYCLAW_HOME"] == str(xyclaw_home)


def test_the_files_follow_the_nodes_and_are_rewritten_only_when_those_change(
    engine: Engine, make_cluster: MakeCluster
) -> None:
    report = engine.ssh_config()  # where the files are; no cluster yet
    config, known = report.config, report.config.with_name("known_hosts_clusters")

    # Both nodes come up in one change of the store, which publishes one event per node.
    cluster = make_cluster(nodes=2, gpus_per_node=8)

    text = config.read_text()
    assert f"Host {cluster.name}-0" in text and f"Host {cluster.name}-1" in text
    assert len(known.read_text().splitlines()) == 2
    written = (config.stat().st_ino, known.stat().st_ino)
    engine.ssh_config()  # nothing changed: each write would sync the files to disk again
    engine._clusters.update(cluster.cluster_id, state=ClusterState.READY)  # still live
    assert (config.stat().st_ino, known.stat().st_ino) == written

    record = engine._clusters.get(cluster.cluster_id)
    engine._clusters.set_node_state(record.nodes[1].id, "failed", "XID 79")  # as a fault does
    assert f"Host {cluster.name}-1" not in config.read_text()
    assert f"Host {cluster.name}-0" in config.read_text()
    engine._clusters.update(cluster.cluster_id, state=ClusterState.RELEASED)
    assert f"Host {cluster.name}-0" not in config.read_text() and known.read_text() == ""
