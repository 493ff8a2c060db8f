"""A tiny paramiko SSH server that takes a password: OpenSSH under test cannot check
one without a system account's password, which tests must not set."""

from __future__ import annotations

import socket
import threading

import paramiko


class _Interface(paramiko.ServerInterface):
    def __init__(self, owner: PasswordServer) -> None:
        self.owner = owner

    def get_allowed_auths(self, username: str) -> str:
        return ",".join(self.owner.methods)

    def check_auth_password(self, username: str, password: str) -> int:
        if "password" in self.owner.methods and self.owner.accepts(username, password):
            return paramiko.AUTH_SUCCESSFUL
        return paramiko.AUTH_FAILED

    def check_auth_interactive(
        self, username: str, submethods: str
    ) -> paramiko.InteractiveQuery | int:
        if "keyboard-interactive" not in self.owner.methods:
            return paramiko.AUTH_FAILED
        self._user = username
        return paramiko.InteractiveQuery("", "", ("Password: ", False))

    def check_auth_interactive_response(self, responses: list[str]) -> int:
        if len(responses) == 1 and self.owner.accepts(self._user, responses[0]):
            return paramiko.AUTH_SUCCESSFUL
        return paramiko.AUTH_FAILED

    def check_channel_request(self, kind: str, chanid: int) -> int:
        return (
            paramiko.OPEN_SUCCEEDED
            if kind == "session"
            else paramiko.OPEN_FAILED_ADMINISTRATIVELY_PROHIBITED
        )

    def check_channel_exec_request(self, channel: paramiko.Channel, command: bytes) -> bool:
        def answer() -> None:
            channel.sendall(b"ran: " + command + b"\n")
            channel.send_exit_status(0)
            channel.close()

        threading.Thread(target=answer, daemon=True).start()
        return True


class PasswordServer:
    """Accepts ``user``/``password`` by the given methods; echoes the commands it runs."""

    def __init__(
        self, host_key: paramiko.PKey, user: str, password: str, methods: tuple[str, ...]
    ) -> None:
        self.host_key = host_key
        self.user = user
        self._password = password
        self.methods = methods
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = int(self._listener.getsockname()[1])
        self._transports: list[paramiko.Transport] = []
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    def accepts(self, user: str, password: str) -> bool:
        return user == self.user and password == self._password

    def _accept(self) -> None:
        while True:
            try:
                sock, _ = self._listener.accept()
            except OSError:
                return
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            transport = paramiko.Transport(sock)
            transport.add_server_key(self.host_key)
            self._transports.append(transport)
            # With an event, negotiation runs on the transport's own thread.
            transport.start_server(event=threading.Event(), server=_Interface(self))

    def stop(self) -> None:
        self._listener.close()
        for transport in self._transports:
            transport.close()
