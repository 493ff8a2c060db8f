"""Byte streams between simulated commands: the SSH channel, files, pipes and buffers.

A writer raises BrokenPipeError once nobody reads any more (the client
closed its channel, or the next command of a pipeline exited), which is
how a real process learns to stop: SIGPIPE.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import IO, BinaryIO, Protocol

import paramiko

from xyclaw.sim.vfs import FsError, NodeFS


class OutStream(Protocol):
    def write(self, data: bytes) -> None: ...

    def close(self) -> None: ...


class InStream(Protocol):
    def read(self, size: int = -1) -> bytes: ...

    def close(self) -> None: ...


def read_lines(stream: InStream) -> Iterator[bytes]:
    """Lines (with their newline) as they arrive; the last one may lack it."""
    pending = b""
    while True:
        chunk = stream.read(65536)
        if not chunk:
            break
        pending += chunk
        while b"\n" in pending:
            line, pending = pending.split(b"\n", 1)
            yield line + b"\n"
    if pending:
        yield pending


class NullOut:
    def write(self, data: bytes) -> None:
        return None

    def close(self) -> None:
        return None


class BufferOut:
    """Collects output in memory (command substitution, tests)."""

    def __init__(self) -> None:
        self._chunks: list[bytes] = []
        self._lock = threading.Lock()

    def write(self, data: bytes) -> None:
        with self._lock:
            self._chunks.append(data)

    def close(self) -> None:
        return None

    def getvalue(self) -> bytes:
        with self._lock:
            return b"".join(self._chunks)

    def text(self) -> str:
        return self.getvalue().decode("utf-8", errors="replace")


class EmptyIn:
    def read(self, size: int = -1) -> bytes:
        return b""

    def close(self) -> None:
        return None


class BytesIn:
    """Input from a here-document, a here-string or a file read at once."""

    def __init__(self, data: bytes) -> None:
        self._data = data
        self._pos = 0

    def read(self, size: int = -1) -> bytes:
        if size < 0:
            size = len(self._data) - self._pos
        chunk = self._data[self._pos : self._pos + size]
        self._pos += len(chunk)
        return chunk

    def close(self) -> None:
        self._pos = len(self._data)


class FileIn:
    """A file of the node read as it is consumed (a redirection `< file`, a command's operand).

    Knows its size and position, so `wc -c` and `tail -c` need not read it all.
    """

    def __init__(self, fs: NodeFS, vpath: str) -> None:
        self._handle: BinaryIO | None = fs.open_bytes(vpath)

    def read(self, size: int = -1) -> bytes:
        if self._handle is None:
            return b""
        return self._handle.read(size if size >= 0 else -1)

    def size(self) -> int:
        if self._handle is None:
            return 0
        here = self._handle.tell()
        end = self._handle.seek(0, 2)
        self._handle.seek(here)
        return end

    def tell(self) -> int:
        return self._handle.tell() if self._handle is not None else 0

    def seek(self, pos: int) -> None:
        if self._handle is not None:
            self._handle.seek(max(0, pos))

    def close(self) -> None:
        if self._handle is not None:
            self._handle.close()
            self._handle = None


class ChannelOut:
    """stdout or stderr of an SSH channel."""

    def __init__(self, channel: paramiko.Channel, *, stderr: bool = False) -> None:
        self._channel = channel
        self._stderr = stderr

    def write(self, data: bytes) -> None:
        if not data:
            return
        if self._channel.closed:
            raise BrokenPipeError("channel closed")
        try:
            if self._stderr:
                self._channel.sendall_stderr(data)
            else:
                self._channel.sendall(data)
        except (OSError, EOFError, paramiko.SSHException) as exc:
            raise BrokenPipeError("channel closed") from exc

    def close(self) -> None:
        return None


class TerminalOut:
    """Output through a pseudo-terminal: stdout and stderr share it and newlines become CRLF."""

    def __init__(self, inner: OutStream) -> None:
        self._inner = inner

    def write(self, data: bytes) -> None:
        self._inner.write(data.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n"))

    def close(self) -> None:
        self._inner.close()


class ChannelIn:
    """stdin of an SSH channel: what the client sends until it sends EOF."""

    def __init__(self, channel: paramiko.Channel) -> None:
        self._channel = channel

    def read(self, size: int = -1) -> bytes:
        if size < 0:
            chunks: list[bytes] = []
            while True:
                chunk = self._recv(65536)
                if not chunk:
                    return b"".join(chunks)
                chunks.append(chunk)
        return self._recv(size)

    def _recv(self, size: int) -> bytes:
        try:
            return bytes(self._channel.recv(size))
        except (OSError, EOFError, paramiko.SSHException):
            return b""

    def close(self) -> None:
        return None


class FileOut:
    """A redirection into a file of the node; flushed on every write so `tail -f` sees it."""

    def __init__(self, fs: NodeFS, vpath: str, *, append: bool) -> None:
        self._handle: IO[bytes] | None = None
        if vpath == "/dev/null":
            return
        real = fs.real(vpath)
        if real is None:
            raise FsError("Permission denied")
        if real.is_dir():
            raise FsError("Is a directory")
        if not real.parent.is_dir():
            raise FsError("No such file or directory")
        try:
            self._handle = real.open("ab" if append else "wb")
        except OSError as exc:
            raise FsError(exc.strerror or "Input/output error") from exc

    def write(self, data: bytes) -> None:
        if self._handle is not None and data:
            self._handle.write(data)
            self._handle.flush()

    def close(self) -> None:
        if self._handle is not None:
            self._handle.close()
            self._handle = None


class Pipe:
    """A bounded pipe between two commands running in two threads."""

    CAPACITY = 256 * 1024

    def __init__(self) -> None:
        self._buf = bytearray()
        self._cond = threading.Condition()
        self._writer_closed = False
        self._reader_closed = False

    def write(self, data: bytes) -> None:
        with self._cond:
            while True:
                if self._reader_closed:
                    raise BrokenPipeError("pipe reader gone")
                if len(self._buf) < self.CAPACITY:
                    break
                self._cond.wait(0.1)
            self._buf += data
            self._cond.notify_all()

    def read(self, size: int = -1) -> bytes:
        with self._cond:
            while not self._buf and not self._writer_closed:
                self._cond.wait(0.1)
            if size < 0 or size >= len(self._buf):
                chunk = bytes(self._buf)
                self._buf.clear()
            else:
                chunk = bytes(self._buf[:size])
                del self._buf[:size]
            self._cond.notify_all()
            return chunk

    def close_writer(self) -> None:
        with self._cond:
            self._writer_closed = True
            self._cond.notify_all()

    def close_reader(self) -> None:
        with self._cond:
            self._reader_closed = True
            self._buf.clear()
            self._cond.notify_all()


class PipeOut:
    def __init__(self, pipe: Pipe) -> None:
        self._pipe = pipe

    def write(self, data: bytes) -> None:
        if data:
            self._pipe.write(data)

    def close(self) -> None:
        self._pipe.close_writer()


class PipeIn:
    def __init__(self, pipe: Pipe) -> None:
        self._pipe = pipe

    def read(self, size: int = -1) -> bytes:
        if size < 0:
            chunks: list[bytes] = []
            while True:
                chunk = self._pipe.read(65536)
                if not chunk:
                    return b"".join(chunks)
                chunks.append(chunk)
        return self._pipe.read(size)

    def close(self) -> None:
        self._pipe.close_reader()
