"""Host-key records: OpenSSH's file format, trust on first use, changed and revoked keys."""

from __future__ import annotations

import base64
import stat
from pathlib import Path

import paramiko
import pytest

from xyclaw.errors import HostKeyChangedError, HostKeyError, UnknownHostKeyError
from xyclaw.remote import KnownHosts, entry_name, fingerprint_sha256

# Made with ssh-keygen; the fingerprints are what `ssh-keygen -lf` printed for them.
ED25519 = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGeB//N7bu7TSDRSdkNJDOpUK6KRkfTsu3vCIGEfFsyD"
ED25519_FP = "SHA256:NNeCVPAIqfhJHXS3YvG6r+dodWL7Jy6JalycRglYvHg"
RSA = (
    "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAAAgQDbrejcvRk1eJlPAHoRU2GBsaU9iPuEfbkMXWr0NKgKz7glszBB"
    "temBlhf5Z/AiODne1OVDBrqjqPKIsUSAi5ZKG6lKsu/UQ1GcAV6ssF0MzGltHKyeUvUK0lRl4r9odXdT629s5e2H"
    "84aAnupYZsyWboA0HqIAYOWLLOZjERdCZw=="
)
RSA_FP = "SHA256:Zt+9AmnyAQ569w3Vtu1gaQVT1oZNb+tcGkcM2zvxyJc"


def key(line: str) -> paramiko.PKey:
    kind, data = line.split()[:2]
    return paramiko.PKey.from_type_string(kind, base64.b64decode(data))


def refuse_all(host: str, key_type: str, fingerprint: str) -> bool:
    raise AssertionError(f"trust was asked for {host}")


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    return tmp_path / "app_known_hosts", tmp_path / "user_known_hosts"


def test_fingerprints_match_ssh_keygen() -> None:
    assert fingerprint_sha256(key(ED25519)) == ED25519_FP
    assert fingerprint_sha256(key(RSA)) == RSA_FP


def test_entry_names_follow_openssh() -> None:
    assert entry_name("GPU-1.Example.com", 22) == "gpu-1.example.com"
    assert entry_name("10.0.0.1", 2222) == "[10.0.0.1]:2222"


def test_port_22_and_other_ports_are_different_hosts(files: tuple[Path, Path]) -> None:
    app, user = files
    user.write_text(f"# comment\n\nnode1 {ED25519}\n[node1]:2222 {RSA} old box\n")
    known = KnownHosts(app, user)

    known.verify("node1", 22, key(ED25519), trust_new_host=refuse_all)
    known.verify("node1", 2222, key(RSA), trust_new_host=refuse_all)
    with pytest.raises(HostKeyChangedError):
        known.verify("node1", 22, key(RSA))
    with pytest.raises(UnknownHostKeyError):
        known.verify("node1", 2200, key(ED25519))


def test_hashed_names_wildcards_and_negation(files: tuple[Path, Path]) -> None:
    app, user = files
    hashed = paramiko.HostKeys.hash_host("[secret.example]:2022")
    user.write_text(f"{hashed} {ED25519}\n*.gpu.example,!bad.gpu.example {RSA}\n")
    known = KnownHosts(app, user)

    known.verify("secret.example", 2022, key(ED25519))
    known.verify("n7.gpu.example", 22, key(RSA))
    with pytest.raises(UnknownHostKeyError):
        known.verify("bad.gpu.example", 22, key(RSA))
    with pytest.raises(UnknownHostKeyError):
        known.verify("secret.example", 22, key(ED25519))


def test_changed_key_names_host_both_fingerprints_and_the_line(files: tuple[Path, Path]) -> None:
    app, user = files
    user.write_text(f"\n[10.0.0.5]:2200 {ED25519}\n")
    known = KnownHosts(app, user)
    presented = key(RSA)

    with pytest.raises(HostKeyChangedError) as caught:
        known.verify("10.0.0.5", 2200, presented, alias="gpu-5", trust_new_host=refuse_all)

    message = str(caught.value)
    assert "gpu-5" in message and "[10.0.0.5]:2200" in message
    assert ED25519_FP in message and RSA_FP in message
    assert f"{user}:2" in message
    assert caught.value.host == "gpu-5"
    assert not app.exists()


def test_revoked_key_is_refused_even_when_trusted(files: tuple[Path, Path]) -> None:
    app, user = files
    user.write_text(f"@revoked * {ED25519}\n")
    with pytest.raises(HostKeyError, match="revoked"):
        KnownHosts(app, user).verify("any", 22, key(ED25519), trust_new_host=lambda *a: True)


def test_cert_authority_and_broken_lines_are_ignored(files: tuple[Path, Path]) -> None:
    app, user = files
    user.write_text(f"@cert-authority * {ED25519}\nhost ssh-ed25519 !!!notbase64\nhalf-line\n")
    known = KnownHosts(app, user)
    assert known.lookup("host", 22) == []
    with pytest.raises(UnknownHostKeyError):
        known.verify("host", 22, key(ED25519))


def test_trusted_first_use_is_written_to_the_app_file_only(files: tuple[Path, Path]) -> None:
    app, user = files
    user.write_text("# mine\n")
    asked: list[tuple[str, str, str]] = []

    def yes(host: str, key_type: str, fingerprint: str) -> bool:
        asked.append((host, key_type, fingerprint))
        return True

    known = KnownHosts(app, user)
    known.verify("10.9.9.9", 2022, key(ED25519), alias="box", trust_new_host=yes)

    assert asked == [("box ([10.9.9.9]:2022)", "ssh-ed25519", ED25519_FP)]
    assert app.read_text() == f"[10.9.9.9]:2022 {ED25519}\n"
    assert stat.S_IMODE(app.stat().st_mode) == 0o600
    assert user.read_text() == "# mine\n"
    KnownHosts(app, user).verify("10.9.9.9", 2022, key(ED25519), trust_new_host=refuse_all)


def test_handed_over_keys_stay_in_memory(files: tuple[Path, Path]) -> None:
    app, _ = files
    known = KnownHosts(app)
    known.add("127.0.0.1", 40001, key(ED25519), persist=False)

    known.verify("127.0.0.1", 40001, key(ED25519), trust_new_host=refuse_all)
    assert not app.exists()
    with pytest.raises(UnknownHostKeyError):
        KnownHosts(app).verify("127.0.0.1", 40001, key(ED25519))


def test_forget_drops_only_that_host_from_the_app_file(files: tuple[Path, Path]) -> None:
    app, user = files
    user.write_text(f"[a]:2222 {ED25519}\n")
    app.write_text(f"[a]:2222 {ED25519}\n[b]:2222 {RSA}\n")
    known = KnownHosts(app, user)

    assert known.forget("a", 2222) == 1

    assert app.read_text() == f"[b]:2222 {RSA}\n"
    assert user.read_text() == f"[a]:2222 {ED25519}\n"


def test_known_key_types_are_asked_for_first(files: tuple[Path, Path]) -> None:
    app, user = files
    user.write_text(f"box {RSA}\n")
    assert KnownHosts(app, user).preferred_key_types("box", 22) == [
        "rsa-sha2-512",
        "rsa-sha2-256",
        "ssh-rsa",
    ]
