"""A ProxyCommand for tests: connects to HOST PORT and relays stdin/stdout (like ``nc``)."""

from __future__ import annotations

import os
import socket
import sys
import threading


def main() -> None:
    sock = socket.create_connection((sys.argv[1], int(sys.argv[2])))
    with open(sys.argv[3], "a") as log:
        log.write(f"relayed to {sys.argv[1]}:{sys.argv[2]}\n")

    def upstream() -> None:
        while data := os.read(0, 65536):
            sock.sendall(data)
        sock.shutdown(socket.SHUT_WR)

    threading.Thread(target=upstream, daemon=True).start()
    while data := sock.recv(65536):
        os.write(1, data)


if __name__ == "__main__":
    main()
