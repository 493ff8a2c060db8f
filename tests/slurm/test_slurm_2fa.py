"""A lab's login node behind 2FA (the key, then a one-time code), reached over a real
OpenSSH server with PAM: the code is asked once, and that one connection carries every
Slurm command XyClaw runs at the site."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.remote.helpers import TEST_SETTINGS
from tests.remote.otp_sshd import OtpSshd, otp_unavailable
from tests.remote.sshd import keygen
from tests.slurm.conftest import USER
from xyclaw.providers.slurm import (
    ShellResult,
    SlurmClient,
    SlurmProvider,
    check_slurm_entry,
    expected_waits,
)
from xyclaw.remote import HostSpec, KnownHosts, SshPool


class OtpLoginNode(OtpSshd):
    """The login node of tests/slurm/conftest.py, asking for a code after the key."""

    conf = ""

    def _session_env(self) -> str:
        return f"SetEnv SLURM_CONF={self.conf}"


@pytest.fixture
def otp_login(slurm: str) -> Iterator[tuple[OtpLoginNode, Path]]:
    why = otp_unavailable()
    if why:
        pytest.skip(why)
    root = Path(tempfile.mkdtemp(prefix="xyclaw-slurm-otp-"))
    root.chmod(0o755)
    key_path = root / "client_key"
    server = OtpLoginNode(root / "sshd", [keygen(key_path)])
    server.conf = slurm
    server.authorized_keys.chmod(0o644)
    server.start()
    yield server, key_path
    server.stop()
    shutil.rmtree(root, ignore_errors=True)


def test_a_2fa_login_node_asks_once_for_every_slurm_command(
    otp_login: tuple[OtpLoginNode, Path], tmp_path: Path
) -> None:
    server, key_path = otp_login
    server.add_code("105457")
    server.add_code("602214")
    asked: list[str] = []

    def answer(host: str, title: str, text: str, prompts: list[tuple[str, bool]]) -> list[str]:
        asked.append(host)
        return ["105457" for _ in prompts]

    known = KnownHosts(app_path=tmp_path / "known_hosts", user_path=None)
    known.add("127.0.0.1", server.port, server.host_key, persist=False)
    pool = SshPool(
        TEST_SETTINGS,
        known,
        use_agent=False,
        default_identities=(),
        ssh_config_path=tmp_path / "ssh_config",
        answer_prompts=answer,
    )
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

    try:
        client = SlurmClient(
            check_slurm_entry("hosts.toml", {"name": "lab", "login": "lab"}), shell
        )
        offers = SlurmProvider(client).offers()  # sinfo, scontrol, sbatch --test-only
        client.my_jobs(fresh=True)  # squeue --me
        waits = expected_waits(client, 2, 8)
        whoami = client.run("id -un").stdout.strip()
    finally:
        pool.close()

    assert {o.region for o in offers} == {"gpu", "short"} and waits
    assert whoami == USER
    assert len(asked) == 1 and str(server.port) in asked[0]
    assert server.unused_codes() == ["602214"]  # one code, one login, every command
