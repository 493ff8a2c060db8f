"""Your own machines (the ssh provider, a real OpenSSH server) and this machine (local)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.remote.sshd import MISSING, SSHD, Sshd
from xyclaw.config import load_config
from xyclaw.engine import Engine
from xyclaw.engine.compose import build_engine
from xyclaw.engine.lifecycle import UpRequest
from xyclaw.errors import CapacityError, UnknownHostKeyError
from xyclaw.paths import AppPaths
from xyclaw.records import ClusterState
from xyclaw.remote import CommandResult
from xyclaw.remote.node_access import parse_public_key

FAKEBIN = Path(__file__).parent / "fakebin"


def a100(provider: str, count: int = 2) -> UpRequest:
    return UpRequest(provider=provider, gpu="A100-80G", gpu_count=count, fabric="none", image=None)


OwnHost = tuple[Engine, Sshd, list[tuple[str, str]]]


@pytest.fixture
def own_host(tmp_path: Path, xyclaw_home: Path) -> Iterator[OwnHost]:
    if not SSHD.exists() or shutil.which("ssh-keygen") is None:
        pytest.skip(MISSING)
    paths = AppPaths.from_environment()
    # The engine makes its SSH key on first use; the user puts its public half on the host.
    seen: list[tuple[str, str]] = []

    def trust(host: str, key_type: str, fingerprint: str) -> bool:
        seen.append((host, fingerprint))
        return True

    engine = build_engine(paths, load_config(paths.config_file), trust_new_host=trust)
    server = Sshd(
        tmp_path / "own-sshd",
        [parse_public_key(engine.ssh_public_key())],
        extra_config=f"SetEnv PATH={FAKEBIN}:/usr/bin:/bin",
    ).start()
    (paths.config_dir / "hosts.toml").write_text(
        f'[[host]]\nname = "root@127.0.0.1:{server.port}"\ngpu = "A100-80G"\ngpus = 2\n'
        'fabric = "none"\nprice_per_gpu_hour = 1.5\n'
    )
    yield engine, server, seen
    engine.close()
    server.stop()


def test_own_host_becomes_a_cluster_after_trust_on_first_use(own_host: OwnHost) -> None:
    engine, _server, seen = own_host
    cluster = engine.up(engine.quote_request(a100("ssh"))).result(120)
    assert cluster.state == ClusterState.READY
    assert len(seen) == 1 and seen[0][1].startswith("SHA256:")
    [result] = engine.exec(cluster.name, "nvidia-smi -q | grep 'Driver Version'").values()
    assert isinstance(result, CommandResult) and "550.127.08" in result.stdout
    with pytest.raises(CapacityError, match="free own hosts"):
        engine.up(engine.quote_request(a100("ssh"))).result(60)  # the only host is taken
    assert engine.down(cluster.name).result(60).state == ClusterState.RELEASED
    again = engine.up(engine.quote_request(a100("ssh"))).result(
        120
    )  # free again, and known: no second question
    assert again.state == ClusterState.READY and len(seen) == 1
    assert engine.offers("ssh")[0].price_micro == 1_500_000


def test_unknown_own_host_without_trust_is_refused_and_nothing_kept(
    tmp_path: Path, xyclaw_home: Path
) -> None:
    if not SSHD.exists():
        pytest.skip(MISSING)
    paths = AppPaths.from_environment()
    engine = build_engine(paths, load_config(paths.config_file))
    server = Sshd(tmp_path / "s", [parse_public_key(engine.ssh_public_key())]).start()
    try:
        (paths.config_dir / "hosts.toml").write_text(
            f'[[host]]\nname = "root@127.0.0.1:{server.port}"\ngpu = "A100-80G"\ngpus = 2\n'
        )
        with pytest.raises(Exception) as info:
            engine.up(engine.quote_request(a100("ssh"))).result(120)
        assert isinstance(info.value.__cause__, UnknownHostKeyError) or "SHA256:" in str(info.value)
        [row] = engine.clusters(include_released=True)
        assert row.state == ClusterState.RELEASED  # the host was handed back
    finally:
        engine.close()
        server.stop()


def test_this_machine_as_a_cluster(monkeypatch: pytest.MonkeyPatch, xyclaw_home: Path) -> None:
    monkeypatch.setenv("PATH", f"{FAKEBIN}{os.pathsep}{os.environ['PATH']}")
    paths = AppPaths.from_environment()
    engine = build_engine(paths, load_config(paths.config_file))
    try:
        cluster = engine.up(engine.quote_request(a100("local"))).result(60)
        assert cluster.state == ClusterState.READY and cluster.nodes[0].ssh_host == "local"
        [result] = engine.exec(cluster.name, "echo $((6 * 7))").values()
        assert isinstance(result, CommandResult) and result.stdout.strip() == "42"
        assert engine.down(cluster.name).result(30).state == ClusterState.RELEASED
    finally:
        engine.close()


def test_this_machine_without_gpus_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    paths = AppPaths.from_environment()
    engine = build_engine(paths, load_config(paths.config_file))
    try:
        with pytest.raises(CapacityError, match="no free own hosts"):
            engine.up(engine.quote_request(a100("local"))).result(30)
    finally:
        engine.close()
