"""An SSH transport that survives a key exchange that starts while a channel closes.

paramiko re-keys a connection after 512 MiB in either direction. If the server's close of a
channel (or a keepalive's turn) reaches paramiko's reader thread after that thread has sent
its KEXINIT, the thread answers on the spot, and that answer waits for the exchange to
finish, which only the same thread can finish: the connection hangs for 30 s and dies with
"Key-exchange timed out waiting for key negotiation" (paramiko #822, open since 2016). A
long-lived connection that opens a channel every few seconds, as telemetry's does, meets
it after hours on a real host, and a node looked unreachable that was not.

Here whatever the reader thread itself sends during an exchange is held and sent once the
new keys are in; the other threads wait for the exchange as before.
"""

from __future__ import annotations

import threading
from typing import Any

import paramiko


class RekeySafeTransport(paramiko.Transport):
    """A paramiko transport whose reader thread never waits on its own key exchange."""

    def __init__(self, sock: Any, *args: Any, **kwargs: Any) -> None:
        super().__init__(sock, *args, **kwargs)
        self._held_lock = threading.Lock()
        self._held: list[Any] = []

    def _send_user_message(self, data: Any) -> None:
        if threading.current_thread() is self and not self.clear_to_send.is_set():
            with self._held_lock:
                self._held.append(data)
            return
        super()._send_user_message(data)  # type: ignore[misc]

    def _parse_newkeys(self, m: paramiko.Message) -> None:
        # Our own NEWKEYS went out before the peer's came in, so the new keys already carry
        # what we send. The held messages go first, before the other threads are let on:
        # a channel's close before data another thread has for it.
        with self._held_lock:
            held, self._held = self._held, []
        for data in held:
            self._send_message(data)  # type: ignore[attr-defined]
        super()._parse_newkeys(m)  # type: ignore[misc]
