"""A connection that re-keys while its channels close keeps working (paramiko #822).

paramiko re-keys after 512 MiB; telemetry's connection to a node opens a channel every few
seconds and lives for days. With paramiko's own transport, a re-key that crosses a channel's
close hangs the connection for 30 s and kills it: against this real OpenSSH server it died
after 5 commands when made to re-key every 16 KiB."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.remote.helpers import Keys, spec_for, trust
from tests.remote.sshd import Sshd
from xyclaw.remote import KnownHosts, SshPool

pytestmark = pytest.mark.sshd


def test_a_connection_that_rekeys_between_many_short_commands_stays_up(
    sshd: Sshd, keys: Keys, known: KnownHosts, make_pool: Callable[..., SshPool]
) -> None:
    trust(known, sshd)
    pool = make_pool()
    spec = spec_for(sshd, keys.client_path)
    assert pool.run(spec, "echo up").stdout == "up\n"
    transport = pool._connection(spec).transport
    # every 16 KiB instead of every 512 MiB: each command below crosses a key exchange
    transport.packetizer.REKEY_BYTES = 16 * 1024

    outputs = [
        pool.run(spec, f"head -c 3000 /dev/zero | tr '\\0' x; echo {i}", timeout=20)
        for i in range(80)
    ]

    assert [r.stdout for r in outputs] == [f"{'x' * 3000}{i}\n" for i in range(80)]
    assert pool._connection(spec).transport is transport  # the same connection, not a new one
