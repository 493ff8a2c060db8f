"""SFTP of a simulated node, rooted in the node's own folder (and the shared mount)."""

from __future__ import annotations

import errno
import io
import os
import stat
from typing import Any

import paramiko
from paramiko.sftp import (
    SFTP_FAILURE,
    SFTP_NO_SUCH_FILE,
    SFTP_OK,
    SFTP_OP_UNSUPPORTED,
    SFTP_PERMISSION_DENIED,
)

from xyclaw.sim.machine import Machine
from xyclaw.sim.vfs import FsError, NodeFS

_FS_ERRNO = {
    "No such file or directory": errno.ENOENT,
    "Is a directory": errno.EISDIR,
    "Not a directory": errno.ENOTDIR,
    "File exists": errno.EEXIST,
    "Permission denied": errno.EACCES,
    "Directory not empty": errno.ENOTEMPTY,
}


def _code(exc: Exception) -> int:
    if isinstance(exc, OSError) and exc.errno is not None:
        return paramiko.SFTPServer.convert_errno(exc.errno)
    return paramiko.SFTPServer.convert_errno(_FS_ERRNO.get(str(exc), errno.EIO))


class _RealHandle(paramiko.SFTPHandle):
    def __init__(self, handle: Any, flags: int) -> None:
        super().__init__(flags)
        self.readfile = handle
        self.writefile = handle
        self._path_stat = handle

    def stat(self) -> paramiko.SFTPAttributes | int:
        try:
            return paramiko.SFTPAttributes.from_stat(os.fstat(self.readfile.fileno()))
        except OSError as exc:
            return paramiko.SFTPServer.convert_errno(exc.errno or errno.EIO)


class _MemoryHandle(paramiko.SFTPHandle):
    """A generated file (/proc, /sys) read through SFTP."""

    def __init__(self, data: bytes) -> None:
        super().__init__(os.O_RDONLY)
        self.readfile = io.BytesIO(data)
        self._size = len(data)

    def stat(self) -> paramiko.SFTPAttributes | int:
        attrs = paramiko.SFTPAttributes()
        attrs.st_size = self._size
        attrs.st_mode = stat.S_IFREG | 0o444
        return attrs


class SimSFTPServer(paramiko.SFTPServerInterface):
    """paramiko's SFTP server interface over a node's `NodeFS`."""

    def __init__(self, server: Any, *args: Any, machine: Machine, **kwargs: Any) -> None:
        super().__init__(server, *args, **kwargs)
        self.machine = machine
        self.fs: NodeFS = machine.fs
        self.home = getattr(server, "home", "/root")

    def _vpath(self, path: str) -> str:
        return self.fs.norm(path or ".", self.home)

    def canonicalize(self, path: str) -> str:
        return self._vpath(path)

    def _attrs(self, vpath: str) -> paramiko.SFTPAttributes | int:
        real = self.fs.real(vpath)
        if real is not None and (real.exists() or real.is_symlink()):
            try:
                return paramiko.SFTPAttributes.from_stat(os.stat(real))
            except OSError as exc:
                return _code(exc)
        if self.fs.is_dir(vpath):
            attrs = paramiko.SFTPAttributes()
            attrs.st_mode = stat.S_IFDIR | 0o555
            attrs.st_size = 0
            return attrs
        if self.fs.is_file(vpath):
            attrs = paramiko.SFTPAttributes()
            attrs.st_mode = stat.S_IFREG | 0o444
            attrs.st_size = len(self.fs.read_bytes(vpath))
            return attrs
        return SFTP_NO_SUCH_FILE

    def stat(self, path: str) -> paramiko.SFTPAttributes | int:
        return self._attrs(self._vpath(path))

    def lstat(self, path: str) -> paramiko.SFTPAttributes | int:
        return self._attrs(self._vpath(path))

    def list_folder(self, path: str) -> list[paramiko.SFTPAttributes] | int:
        vpath = self._vpath(path)
        try:
            names = self.fs.listdir(vpath)
        except FsError as exc:
            return _code(exc)
        out: list[paramiko.SFTPAttributes] = []
        for name in names:
            attrs = self._attrs(f"{vpath.rstrip('/')}/{name}")
            if isinstance(attrs, int):
                continue
            attrs.filename = name
            out.append(attrs)
        return out

    def open(
        self, path: str, flags: int, attr: paramiko.SFTPAttributes
    ) -> paramiko.SFTPHandle | int:
        vpath = self._vpath(path)
        real = self.fs.real(vpath)
        if real is None or (not real.exists() and self.fs.is_file(vpath)):
            if flags & (os.O_WRONLY | os.O_RDWR):
                return SFTP_PERMISSION_DENIED
            try:
                return _MemoryHandle(self.fs.read_bytes(vpath))
            except FsError as exc:
                return _code(exc)
        mode = getattr(attr, "st_mode", None) or 0o644
        try:
            fd = os.open(real, flags | getattr(os, "O_BINARY", 0), mode & 0o777)
        except OSError as exc:
            return _code(exc)
        if flags & os.O_WRONLY:
            fmode = "ab" if flags & os.O_APPEND else "wb"
        elif flags & os.O_RDWR:
            fmode = "a+b" if flags & os.O_APPEND else "r+b"
        else:
            fmode = "rb"
        try:
            handle = os.fdopen(fd, fmode)
        except OSError as exc:
            os.close(fd)
            return _code(exc)
        return _RealHandle(handle, flags)

    def remove(self, path: str) -> int:
        try:
            self.fs.remove(self._vpath(path))
        except FsError as exc:
            return _code(exc)
        return SFTP_OK

    def rename(self, oldpath: str, newpath: str) -> int:
        real_old, real_new = self.fs.real(self._vpath(oldpath)), self.fs.real(self._vpath(newpath))
        if real_old is None or real_new is None:
            return SFTP_PERMISSION_DENIED
        if real_new.exists():
            return SFTP_FAILURE
        try:
            os.rename(real_old, real_new)
        except OSError as exc:
            return _code(exc)
        return SFTP_OK

    def posix_rename(self, oldpath: str, newpath: str) -> int:
        real_old, real_new = self.fs.real(self._vpath(oldpath)), self.fs.real(self._vpath(newpath))
        if real_old is None or real_new is None:
            return SFTP_PERMISSION_DENIED
        try:
            os.replace(real_old, real_new)
        except OSError as exc:
            return _code(exc)
        return SFTP_OK

    def mkdir(self, path: str, attr: paramiko.SFTPAttributes) -> int:
        try:
            self.fs.mkdir(self._vpath(path))
        except FsError as exc:
            return _code(exc)
        return SFTP_OK

    def rmdir(self, path: str) -> int:
        try:
            self.fs.rmdir(self._vpath(path))
        except FsError as exc:
            return _code(exc)
        return SFTP_OK

    def chattr(self, path: str, attr: paramiko.SFTPAttributes) -> int:
        real = self.fs.real(self._vpath(path))
        if real is None or not real.exists():
            return SFTP_NO_SUCH_FILE
        try:
            if attr.st_mode is not None:
                os.chmod(real, attr.st_mode & 0o777)
            if attr.st_atime is not None and attr.st_mtime is not None:
                os.utime(real, (attr.st_atime, attr.st_mtime))
        except OSError as exc:
            return _code(exc)
        return SFTP_OK

    def symlink(self, target_path: str, path: str) -> int:
        return SFTP_OP_UNSUPPORTED

    def readlink(self, path: str) -> str | int:
        return SFTP_OP_UNSUPPORTED
