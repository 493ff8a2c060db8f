"""Fake Lambda Cloud and AutoDL servers on loopback, and the adapters pointed at them."""

from __future__ import annotations

import socket
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import paramiko
import pytest

from tests.providers_real.fake_autodl import AutoDLSettings, Container, FakeAutoDL
from tests.providers_real.fake_lambda import FakeLambda, Instance, LambdaSettings
from tests.providers_real.fake_runpod import KEY as RUNPOD_KEY
from tests.providers_real.fake_runpod import FakeRunPod
from tests.providers_real.fakehttp import FakeServer
from xyclaw.providers.autodl import AutoDLProvider
from xyclaw.providers.autodl import AutoDLSettings as AdapterSettings
from xyclaw.providers.http_retry import RetryPolicy
from xyclaw.providers.lambda_cloud import LambdaProvider
from xyclaw.providers.runpod import RunPodProvider

FAST = RetryPolicy(attempts=6, base_delay_s=0.01, max_delay_s=0.05, deadline_s=20)
_KEY = paramiko.ECDSAKey.generate()
APP_KEY = f"{_KEY.get_name()} {_KEY.get_base64()} xyclaw-test"


@pytest.fixture
def servers() -> Iterator[list[FakeServer]]:
    started: list[FakeServer] = []
    yield started
    for server in started:
        server.stop()


MakeLambda = Callable[..., tuple[FakeLambda, LambdaProvider]]
MakeAutoDL = Callable[..., tuple[FakeAutoDL, AutoDLProvider]]


@pytest.fixture
def make_lambda(servers: list[FakeServer], tmp_path: Path) -> Iterator[MakeLambda]:
    providers: list[LambdaProvider] = []

    def make(
        fake_settings: LambdaSettings | None = None,
        *,
        on_active: Callable[[Instance, str], str] | None = None,
        key: str | None = None,
        **options: object,
    ) -> tuple[FakeLambda, LambdaProvider]:
        fake = FakeLambda(fake_settings, on_active=on_active)
        server = FakeServer(fake).start()
        servers.append(server)
        provider = lambda_provider(server.url, key or fake.settings.api_key, tmp_path, **options)
        providers.append(provider)
        return fake, provider

    yield make
    for provider in providers:
        provider.close()


def lambda_provider(url: str, key: str, tmp_path: Path, **options: object) -> LambdaProvider:
    values: dict[str, object] = {
        "base_url": f"{url}/api/v1",
        "state_file": tmp_path / "lambda-instances.json",
        "retry": FAST,
        "launch_interval_s": 0.0,
        "timeout_s": 5.0,
    }
    values.update(options)
    return LambdaProvider(key, **values)  # type: ignore[arg-type]


@pytest.fixture
def make_autodl(servers: list[FakeServer], tmp_path: Path) -> Iterator[MakeAutoDL]:
    providers: list[AutoDLProvider] = []

    def make(
        fake_settings: AutoDLSettings | None = None,
        *,
        on_running: Callable[[Container, str], tuple[str, int]] | None = None,
        token: str | None = None,
        **options: object,
    ) -> tuple[FakeAutoDL, AutoDLProvider]:
        fake = FakeAutoDL(fake_settings, on_running=on_running)
        server = FakeServer(fake).start()
        servers.append(server)
        provider = autodl_provider(server.url, token or fake.settings.token, tmp_path, **options)
        providers.append(provider)
        return fake, provider

    yield make
    for provider in providers:
        provider.close()


def autodl_provider(url: str, token: str, tmp_path: Path, **options: object) -> AutoDLProvider:
    values: dict[str, object] = {
        "base_url": url,
        "state_file": tmp_path / "autodl-deployments.json",
        "retry": FAST,
        "timeout_s": 5.0,
        "settings": AdapterSettings(regions=("westDC2", "beijingDC1", "neimengDC1")),
    }
    values.update(options)
    return AutoDLProvider(token, **values)  # type: ignore[arg-type]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def authorized_keys_from(cmd: str) -> list[str]:
    """Run a container start command in a real bash, with /root moved to a temp folder,
    and return the authorized_keys lines it wrote (what the container would trust)."""
    with tempfile.TemporaryDirectory() as root:
        script = cmd.replace("/root", root).replace("sleep infinity", "true")
        subprocess.run(["bash", "-c", script], check=True, timeout=10)
        path = Path(root) / ".ssh" / "authorized_keys"
        assert oct(path.stat().st_mode & 0o777) == "0o600"
        return [line for line in path.read_text().splitlines() if line.strip()]


MakeRunPod = Callable[..., tuple[FakeRunPod, RunPodProvider]]


@pytest.fixture
def make_runpod() -> Iterator[MakeRunPod]:
    """RunPod providers pointed at fake RunPods on loopback; one server per fake, so a
    second provider made on the same fake (an impatient one) talks to the same RunPod."""
    started: list[RunPodProvider] = []
    servers: dict[int, FakeServer] = {}

    def make(
        fake: FakeRunPod | None = None, *, key: str = RUNPOD_KEY, **options: object
    ) -> tuple[FakeRunPod, RunPodProvider]:
        fake = fake or FakeRunPod()
        server = servers.get(id(fake)) or FakeServer(fake).start()
        servers[id(fake)] = server
        values: dict[str, object] = {
            "rest_url": f"{server.url}/v1",
            "graphql_url": f"{server.url}/graphql",
            "retry": FAST,
            "timeout_s": 5.0,
        }
        values.update(options)
        provider = RunPodProvider(key, **values)  # type: ignore[arg-type]
        started.append(provider)
        return fake, provider

    yield make
    for provider in started:
        provider.close()
    for server in servers.values():
        server.stop()
