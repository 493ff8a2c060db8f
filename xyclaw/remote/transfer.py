"""SFTP upload and download with progress; a stalled transfer times out."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO

import paramiko

from xyclaw.errors import ConnectError, RemoteTimeoutError, UsageError
from xyclaw.remote.connect import Connection
from xyclaw.remote.errors import TRANSPORT_ERRORS, RemoteFileError, transport_errors
from xyclaw.remote.watchdog import Watchdog

Progress = Callable[[int, int], None]
"""``progress(bytes_done, bytes_total)``, called as the transfer goes."""


class _LocalWriteError(Exception):
    def __init__(self, error: OSError) -> None:
        super().__init__(str(error))
        self.error = error


class _LocalSink:
    """Marks write errors as local, so they are not blamed on the remote host."""

    def __init__(self, target: IO[bytes]) -> None:
        self._target = target

    def write(self, data: bytes) -> int:
        try:
            return self._target.write(data)
        except OSError as exc:
            raise _LocalWriteError(exc) from exc


def _open_sftp(
    conn: Connection, host: str, stall_s: float, watchdog: Watchdog
) -> paramiko.SFTPClient:
    with transport_errors(
        f"cannot open an SFTP channel to {host}",
        host=host,
        hint="check that the machine is up; XyClaw reconnects on the next call",
        timeout_s=stall_s,
    ):
        chan = conn.transport.open_session(timeout=stall_s)
    chan.settimeout(stall_s)
    disarm = watchdog.schedule(time.monotonic() + stall_s, chan.close)
    try:
        chan.invoke_subsystem("sftp")
        return paramiko.SFTPClient(chan)
    except TRANSPORT_ERRORS as exc:
        chan.close()
        raise RemoteFileError(
            f"{host} did not start its SFTP server: {exc}",
            host=host,
            hint="the server needs an sftp Subsystem line in its sshd_config",
        ) from exc
    finally:
        disarm()


def upload(
    conn: Connection,
    host: str,
    local: Path,
    remote: str,
    *,
    progress: Progress | None,
    stall_s: float,
    watchdog: Watchdog,
) -> int:
    """Copy ``local`` to ``remote`` on ``host``; returns the bytes sent."""
    try:
        source = local.open("rb")
    except OSError as exc:
        raise UsageError(
            f"cannot read local file {local}: {exc.strerror}",
            hint="check the path and its permissions",
        ) from exc
    with source:
        size = os.fstat(source.fileno()).st_size
        sftp = _open_sftp(conn, host, stall_s, watchdog)
        try:
            sftp.putfo(source, remote, file_size=size, callback=progress, confirm=True)
        except TimeoutError as exc:
            raise _stalled(host, "upload", remote, stall_s) from exc
        except (paramiko.SSHException, EOFError) as exc:
            raise _lost(host, conn, "upload", remote) from exc
        except OSError as exc:
            raise RemoteFileError(
                f"cannot write {remote} on {host}: {exc.strerror or exc}",
                host=host,
                hint="check that the remote folder exists, is writable and has space",
            ) from exc
        finally:
            sftp.close()
    return size


def download(
    conn: Connection,
    host: str,
    remote: str,
    local: Path,
    *,
    progress: Progress | None,
    stall_s: float,
    watchdog: Watchdog,
) -> int:
    """Copy ``remote`` on ``host`` to ``local`` (whole or not at all); returns its size."""
    part = local.with_name(local.name + ".part")
    try:
        local.parent.mkdir(parents=True, exist_ok=True)
        target = part.open("wb")
    except OSError as exc:
        raise UsageError(
            f"cannot write local file {local}: {exc.strerror}",
            hint="check that the folder is writable",
        ) from exc
    sftp = _open_sftp(conn, host, stall_s, watchdog)
    ok = False
    try:
        with target:
            size = sftp.getfo(remote, _LocalSink(target), callback=progress)  # type: ignore[arg-type]
        os.replace(part, local)
        ok = True
        return int(size)
    except _LocalWriteError as exc:
        raise UsageError(
            f"cannot write local file {local}: {exc.error.strerror}",
            hint="check free disk space and permissions",
        ) from exc
    except TimeoutError as exc:
        raise _stalled(host, "download", remote, stall_s) from exc
    except (paramiko.SSHException, EOFError) as exc:
        raise _lost(host, conn, "download", remote) from exc
    except OSError as exc:
        raise RemoteFileError(
            f"cannot read {remote} on {host}: {exc.strerror or exc}",
            host=host,
            hint="check the remote path and its permissions",
        ) from exc
    finally:
        sftp.close()
        if not ok:
            part.unlink(missing_ok=True)


def _stalled(host: str, what: str, remote: str, stall_s: float) -> RemoteTimeoutError:
    return RemoteTimeoutError(
        f"{what} of {remote} on {host} made no progress for {stall_s:g} s",
        host=host,
        hint="check the link to the machine; pass a longer timeout on slow links",
    )


def _lost(host: str, conn: Connection, what: str, remote: str) -> ConnectError:
    return ConnectError(
        f"lost the connection to {host} during the {what} of {remote}",
        host=host,
        hint="check that the machine is up and try again",
    )
