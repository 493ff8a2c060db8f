"""One of your own machines as a cluster: a real OpenSSH server whose PATH starts with a
stand-in nvidia-smi (tests/defects/fakebin), rented through the ssh provider."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.remote.sshd import MISSING, SSHD, Sshd
from xyclaw.config import load_config
from xyclaw.engine import Engine
from xyclaw.engine.compose import build_engine
from xyclaw.engine.lifecycle import UpRequest
from xyclaw.paths import AppPaths
from xyclaw.records import ClusterRecord
from xyclaw.remote.node_access import parse_public_key

FAKEBIN = Path(__file__).parent / "fakebin"


@dataclass
class OwnCluster:
    engine: Engine
    server: Sshd
    cluster: ClusterRecord
    mode_file: Path

    def set_mode(self, mode: str) -> None:
        self.mode_file.write_text(mode)


def require_sshd() -> None:
    if not SSHD.exists() or shutil.which("ssh-keygen") is None:
        pytest.skip(MISSING)


def write_hosts(paths: AppPaths, port: int, extra: str = "") -> None:
    paths.config_dir.mkdir(parents=True, exist_ok=True)
    (paths.config_dir / "hosts.toml").write_text(
        f'[[host]]\nname = "root@127.0.0.1:{port}"\ngpu = "A100-80G"\ngpus = 2\n'
        f'fabric = "none"\n{extra}'
    )


@contextmanager
def own_server(root: Path, paths: AppPaths, mode: str = "ok") -> Iterator[tuple[Sshd, Path]]:
    """An OpenSSH server that lets XyClaw's app key in, and its nvidia-smi mode file."""
    from xyclaw.remote.node_access import load_or_create_app_key

    require_sshd()
    mode_file = root / "nvsmi-mode"
    mode_file.parent.mkdir(parents=True, exist_ok=True)
    mode_file.write_text(mode)
    _key, public = load_or_create_app_key(paths.data_dir / "ssh" / "id_ecdsa")
    server = Sshd(
        root / "sshd",
        [parse_public_key(public)],
        extra_config=(
            f"SetEnv PATH={FAKEBIN}:/usr/bin:/bin FAKE_NVSMI_MODE_FILE={mode_file}"
            f" FAKE_MKDIR_LOG={root / 'mkdir.log'}"
        ),
    ).start()
    try:
        yield server, mode_file
    finally:
        server.stop()


@contextmanager
def own_cluster(root: Path, mode: str = "ok", **env: str) -> Iterator[OwnCluster]:
    """A ready cluster of one own host, its host key trusted on first use."""
    paths = AppPaths.from_environment()
    paths.ensure()
    with own_server(root, paths, mode) as (server, mode_file):
        write_hosts(paths, server.port)
        engine = build_engine(
            paths,
            load_config(paths.config_file, environ=env),
            trust_new_host=lambda host, key_type, fingerprint: True,
        )
        try:
            request = UpRequest(
                provider="ssh", gpu="A100-80G", gpu_count=2, fabric="none", image=None
            )
            cluster = engine.up(engine.quote_request(request)).result(120)
            yield OwnCluster(engine, server, cluster, mode_file)
        finally:
            engine.close()
