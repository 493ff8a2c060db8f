"""SSH keys of the simulated cloud: the user's public key and each node's host key."""

from __future__ import annotations

import base64
import binascii
import os
from pathlib import Path

import paramiko
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from xyclaw.errors import ProviderError
from xyclaw.files import create_private

KEY_TYPES = ("ssh-ed25519", "ssh-rsa", "ecdsa-sha2-nistp256", "ecdsa-sha2-nistp384",
             "ecdsa-sha2-nistp521")  # fmt: skip


def parse_public_key(line: str) -> paramiko.PKey:
    """An OpenSSH public key line (``ssh-ed25519 AAAA... comment``); ValueError says why not."""
    parts = line.strip().split()
    if len(parts) < 2:
        raise ValueError(
            "expected an OpenSSH public key line such as 'ssh-ed25519 AAAA... me@host'"
        )
    key_type, blob = parts[0], parts[1]
    if key_type not in KEY_TYPES:
        raise ValueError(
            f"key type {key_type!r} is not supported; use one of {', '.join(KEY_TYPES)}"
        )
    try:
        data = base64.b64decode(blob, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise ValueError("the key's base64 part is not valid base64") from exc
    try:
        key = paramiko.PKey.from_type_string(key_type, data)
    except Exception as exc:  # paramiko raises several types for a malformed blob
        raise ValueError(f"the key data is not a valid {key_type} key") from exc
    if key.get_name() != key_type and not key_type.startswith(key.get_name()):
        raise ValueError(f"the key data is a {key.get_name()} key, not {key_type}")
    return key


def public_line(key: paramiko.PKey) -> str:
    """``ssh-ed25519 AAAA...`` as known_hosts and the API show it."""
    return f"{key.get_name()} {key.get_base64()}"


def load_or_create_host_key(path: Path) -> paramiko.PKey:
    """The node's host key: made once (Ed25519, 0600) and loaded again after a restart."""
    if not path.exists():
        private = Ed25519PrivateKey.generate()
        pem = private.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.OpenSSH,
            serialization.NoEncryption(),
        )
        create_private(path, pem.decode("ascii"))  # made once, whoever makes it first
    try:
        if os.stat(path).st_mode & 0o077:
            os.chmod(path, 0o600)
        return paramiko.Ed25519Key(filename=str(path))
    except (OSError, paramiko.SSHException) as exc:
        raise ProviderError(
            f"cannot load the simulated node's host key {path}: {exc}",
            hint="delete the file to give the node a new key (clients will see a changed key)",
        ) from exc
