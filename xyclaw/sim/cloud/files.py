"""Files of the simulated cloud's state folder, written atomically and privately (0600).

Layout of the state folder::

    state.json        clusters, nodes, idempotency keys (the cloud's memory)
    token             the bearer token, made once
    server.json       {pid, port, url, token, started_at} while a server listens
    serve.lock        held by the process that serves this folder
    cloud.log         output of a background cloud
    nodes/<node id>/  each node's file system and its host key (host_key, 0600)
    volumes/<cluster id>/  the volume every node of a cluster shares
"""

from __future__ import annotations

import json
import os
import secrets
from pathlib import Path
from typing import Any

from xyclaw.errors import ProviderError
from xyclaw.files import create_private, write_private

STATE_FILE = "state.json"
TOKEN_FILE = "token"
SERVER_FILE = "server.json"
LOCK_FILE = "serve.lock"
LOG_FILE = "cloud.log"
NODES_DIR = "nodes"
VOLUMES_DIR = "volumes"
HOST_KEY_FILE = "host_key"


def write_json(path: Path, data: Any, *, compact: bool = False) -> None:
    """``compact``: one line, for the state file rewritten at every change (json's C encoder
    runs only without ``indent``: ~13x faster for a cloud that remembers 60 clusters)."""
    if compact:
        text = json.dumps(data, sort_keys=True, separators=(",", ":"))
    else:
        text = json.dumps(data, indent=1, sort_keys=True)
    write_private(path, text + "\n")


def read_json(path: Path) -> Any | None:
    """The file's JSON, or None if it does not exist; a damaged file is an error naming it."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ProviderError(
            f"cannot read {path}: {exc.strerror}", hint="check the folder's permissions"
        ) from exc
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ProviderError(
            f"{path} is damaged ({exc.msg} at line {exc.lineno})",
            hint="move the file away to start the simulated cloud afresh",
        ) from exc


def load_or_create_token(state_dir: Path) -> str:
    """The cloud's bearer token: made once, then the same for every start."""
    path = state_dir / TOKEN_FILE
    try:
        token = path.read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        token = ""
    if not token:
        # Made once: of two processes starting the cloud together, one token is linked into
        # place and both read that one back (a client never holds a token the server lacks).
        create_private(path, secrets.token_urlsafe(32) + "\n")
        token = path.read_text(encoding="utf-8").strip()
        if not token:  # an empty file (an older XyClaw's, cut short): made again
            token = secrets.token_urlsafe(32)
            write_private(path, token + "\n")
    return token


class FolderLock:
    """An exclusive lock on a file in the state folder, held while a cloud serves it.

    It is an ``flock``: the kernel drops it when the process dies, so a crashed
    cloud never leaves the folder locked.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None

    def acquire(self, *, blocking: bool) -> bool:
        import fcntl

        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | (0 if blocking else fcntl.LOCK_NB))
        except BlockingIOError:
            os.close(fd)
            return False
        except BaseException:
            os.close(fd)
            raise
        self._fd = fd
        return True

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing drops the flock
            self._fd = None

    @property
    def held(self) -> bool:
        return self._fd is not None
