"""A real two-node Slurm on loopback (scripts/slurm-loopback.sh) reached the way a lab's is:
over a real OpenSSH server, logged in as the unprivileged user xyclaw-slurm. Root is
SlurmUser here (it may cancel anything), so XyClaw must never be root in these tests."""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.remote.helpers import TEST_SETTINGS
from tests.remote.sshd import MISSING, SSHD, Sshd, keygen
from xyclaw.jobs.slurm_jobs import SlurmJobs
from xyclaw.providers.slurm import ShellResult, SlurmClient, check_slurm_entry
from xyclaw.remote import HostSpec, KnownHosts, SshPool

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "slurm-loopback.sh"
USER = "xyclaw-slurm"
OTHER = "xyclaw-other"


def slurm_conf() -> str:
    return os.environ.get("XYCLAW_SLURM_DIR", "/var/tmp/xyclaw-slurm") + "/slurm.conf"


def as_root(*argv: str, timeout: float = 30) -> str:
    """A Slurm command on this machine as root (the admin), not through XyClaw."""
    env = {**os.environ, "SLURM_CONF": slurm_conf()}
    done = subprocess.run(
        argv, env=env, capture_output=True, text=True, timeout=timeout, check=True
    )
    return done.stdout


def as_user(user: str, *argv: str) -> str:
    """A command as another Unix user of the cluster (the colleague), not through XyClaw."""
    return as_root("runuser", "-u", user, "--", "env", f"SLURM_CONF={slurm_conf()}", *argv)


@pytest.fixture(scope="session")
def slurm() -> str:
    """The loopback Slurm, started by the project's script (skipped when it cannot start)."""
    if shutil.which("dpkg-query") is None:
        pytest.skip("the loopback Slurm needs Debian's slurm-wlm and munge")
    if os.geteuid() != 0 and subprocess.run(["bash", str(SCRIPT), "status"]).returncode != 0:
        pytest.skip("the loopback Slurm is not running and starting it needs root")
    try:
        done = subprocess.run(
            ["bash", str(SCRIPT), "start"], capture_output=True, text=True, timeout=300
        )
    except subprocess.TimeoutExpired:
        pytest.skip("scripts/slurm-loopback.sh start took more than 300 s")
    if done.returncode != 0:
        pytest.skip(f"the loopback Slurm did not start: {done.stderr.strip()[-500:]}")
    return slurm_conf()


def _clear_queue() -> None:
    for user in (USER, OTHER):
        subprocess.run(
            ["scancel", "--user", user],
            env={**os.environ, "SLURM_CONF": slurm_conf()},
            capture_output=True,
            timeout=30,
        )


class LoginNode(Sshd):
    """sshd as a site's login node: users log in with their own HOME, and Slurm's
    configuration is found through SLURM_CONF (a site has it in /etc/slurm)."""

    def __init__(self, root: Path, key: object, conf: str) -> None:
        super().__init__(root, [key])  # type: ignore[list-item]
        self.conf = conf

    def _session_env(self) -> str:
        return f"SetEnv SLURM_CONF={self.conf}"


@pytest.fixture(scope="session")
def login_node(slurm: str) -> Iterator[tuple[LoginNode, Path]]:
    if not SSHD.exists():
        pytest.skip(MISSING)
    # sshd reads authorized_keys as the user logging in: a folder every user may read
    root = Path(tempfile.mkdtemp(prefix="xyclaw-slurm-sshd-"))
    root.chmod(0o755)
    key_path = root / "client_key"
    key = keygen(key_path)
    server = LoginNode(root, key, slurm)
    server.authorized_keys.chmod(0o644)
    server.start()
    yield server, key_path
    server.stop()
    shutil.rmtree(root, ignore_errors=True)


#: Every test that uses the cluster may wait for another worker's test to end (the longest,
#: a requeue after a node failure, takes Slurm's 2 min hold): the limit counts the wait.
SLURM_TEST_TIMEOUT_S = 600


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "make_jobs" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.timeout(SLURM_TEST_TIMEOUT_S))


@pytest.fixture
def make_jobs(
    login_node: tuple[LoginNode, Path], tmp_path: Path
) -> Iterator[Callable[..., SlurmJobs]]:
    """XyClaw's view of the lab cluster as USER; each call is a fresh start (a new SSH pool
    and client: XyClaw reopened), sharing the state file of the jobs it submitted."""
    server, key_path = login_node
    # One cluster for every test worker: a test has it to itself (its queue, its free GPUs)
    lock = os.open(Path(tempfile.gettempdir()) / "xyclaw-slurm-tests.lock", os.O_CREAT | os.O_RDWR)
    fcntl.flock(lock, fcntl.LOCK_EX)
    _clear_queue()
    pools: list[SshPool] = []

    def make(**site: object) -> SlurmJobs:
        known = KnownHosts(app_path=tmp_path / "known_hosts", user_path=None)
        known.add("127.0.0.1", server.port, server.host_key, persist=False)
        pool = SshPool(
            TEST_SETTINGS,
            known,
            use_agent=False,
            default_identities=(),
            ssh_config_path=tmp_path / "ssh_config",
        )
        pools.append(pool)
        spec = HostSpec(
            alias="lab",
            hostname="127.0.0.1",
            port=server.port,
            user=USER,
            identity_files=(key_path,),
            identities_only=True,
        )

        def shell(command: str, timeout: float) -> ShellResult:
            result = pool.run(spec, command, timeout=timeout)
            return ShellResult(result.exit_code, result.stdout, result.stderr)

        options: dict[str, object] = {"name": "lab", "login": "lab"}
        options.update(site)

        def send(local: Path, remote: str) -> None:
            pool.upload(spec, local, remote)

        client = SlurmClient(check_slurm_entry("hosts.toml", options), shell, send=send)
        return SlurmJobs(client, tmp_path / "slurm-jobs.json")

    try:
        yield make
    finally:
        for pool in pools:
            pool.close()
        _clear_queue()
        os.close(lock)  # the lock goes with the descriptor
