"""The node's SSH server: key auth, exec, stdin/env, SFTP, shell, hangup, ProxyJump, scale."""

from __future__ import annotations

import socket
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import paramiko
import pytest

from xyclaw.sim.node import SimClusterInfo, SimNode, SimNodeError


def _client(node: SimNode, key: paramiko.PKey, *, trust: bool = True) -> paramiko.SSHClient:
    host, port = node.address
    client = paramiko.SSHClient()
    if trust:
        client.get_host_keys().add(f"[{host}]:{port}", node.host_key.get_name(), node.host_key)
    client.set_missing_host_key_policy(paramiko.RejectPolicy())
    client.connect(host, port=port, username="alice", pkey=key, allow_agent=False,
                   look_for_keys=False, timeout=10, banner_timeout=10, auth_timeout=10)  # fmt: skip
    return client


def test_exec_returns_output_and_status(ssh) -> None:
    r = ssh.run("echo out; echo err >&2; exit 3")
    assert (r.status, r.out, r.err) == (3, "out\n", "err\n")


def test_unknown_command_over_ssh(ssh) -> None:
    r = ssh.run("no-such-tool")
    assert r.status == 127
    assert r.err == "bash: no-such-tool: command not found\n"


def test_wrong_key_is_refused(node: SimNode) -> None:
    stranger = paramiko.ECDSAKey.generate(bits=256)
    with pytest.raises(paramiko.AuthenticationException):
        _client(node, stranger)


def test_host_key_is_checked_by_the_client(node: SimNode, client_key: paramiko.PKey) -> None:
    with pytest.raises(paramiko.SSHException):
        _client(node, client_key, trust=False)


def test_any_user_name_gets_its_home(node: SimNode, client_key: paramiko.PKey) -> None:
    client = _client(node, client_key)
    try:
        _, out, _ = client.exec_command("pwd; whoami")
        assert out.read().decode() == "/home/alice\nalice\n"
    finally:
        client.close()


def test_stdin_and_env_requests(ssh) -> None:
    transport = ssh.ssh.get_transport()
    channel = transport.open_session()
    channel.update_environment({"NCCL_DEBUG": "INFO"})
    channel.exec_command("cat > /tmp/upload && wc -c < /tmp/upload && printenv NCCL_DEBUG")
    channel.sendall(b"x" * 100000)
    channel.shutdown_write()
    assert channel.makefile("rb").read() == b"100000\nINFO\n"
    assert channel.recv_exit_status() == 0


def test_sftp_shares_the_node_folder(ssh, node: SimNode) -> None:
    sftp = ssh.ssh.open_sftp()
    sftp.mkdir("jobs")
    with sftp.open("jobs/train.py", "w") as handle:
        handle.write("print('hello')\n")
    assert sftp.listdir("jobs") == ["train.py"]
    assert (node.machine.root / "root/jobs/train.py").read_text() == "print('hello')\n"
    assert ssh.run("cat ~/jobs/train.py").out == "print('hello')\n"
    ssh.run("echo from-shell > /tmp/out.txt")
    with sftp.open("/tmp/out.txt") as handle:
        assert handle.read() == b"from-shell\n"
    with sftp.open("/proc/net/dev") as handle:
        assert b"Inter-|" in handle.read()
    with pytest.raises(IOError):
        sftp.open("/proc/net/dev", "w")
    sftp.close()


def test_sftp_cannot_leave_the_node_folder(ssh, node: SimNode, tmp_path: Path) -> None:
    sftp = ssh.ssh.open_sftp()
    sftp.put(__file__, "../../../../escape.txt")
    assert (node.machine.root / "escape.txt").exists()
    assert not (tmp_path.parent / "escape.txt").exists()
    sftp.close()


def test_closing_the_channel_stops_the_foreground_process(ssh, node: SimNode) -> None:
    transport = ssh.ssh.get_transport()
    channel = transport.open_session()
    channel.exec_command("sleep 300")
    deadline = time.monotonic() + 5
    while not node.machine.procs.match("^sleep 300", full=True) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert node.machine.procs.match("^sleep 300", full=True)
    channel.close()
    while node.machine.procs.match("^sleep 300", full=True) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert node.machine.procs.match("^sleep 300", full=True) == []


def test_pty_merges_stderr_and_uses_crlf(ssh) -> None:
    channel = ssh.ssh.get_transport().open_session()
    channel.get_pty()
    channel.exec_command("echo out; echo err >&2")
    assert channel.makefile("rb").read() == b"out\r\nerr\r\n"
    assert channel.recv_exit_status() == 0


def test_nohup_job_survives_the_session(ssh, node: SimNode) -> None:
    r = ssh.run("nohup sleep 300 > /tmp/s.log 2>&1 & echo $!")
    assert r.status == 0
    pid = int(r.out)
    assert node.machine.procs.get(pid) is not None
    assert ssh.run(f"ps -o pid= -p {pid}").out.strip() == str(pid)
    assert ssh.run(f"kill -9 {pid}").status == 0


def test_background_job_holding_the_channel_keeps_it_open(ssh) -> None:
    r = ssh.run("bash -c 'sleep 0.3 && echo late &' ; echo now")
    assert r.out == "now\nlate\n"


def test_interactive_shell_channel(ssh) -> None:
    channel = ssh.ssh.get_transport().open_session()
    channel.invoke_shell()
    channel.sendall(b"cd /tmp\npwd\nexit 5\n")
    output = b""
    deadline = time.monotonic() + 5
    while not channel.exit_status_ready() and time.monotonic() < deadline:
        if channel.recv_ready():
            output += channel.recv(4096)
        time.sleep(0.01)
    output += channel.recv(4096) if channel.recv_ready() else b""
    assert b"/tmp\n" in output
    assert channel.recv_exit_status() == 5


def test_proxy_jump_through_a_node(make_node, connect, client_key: paramiko.PKey) -> None:
    nodes: dict[str, SimNode] = {}

    def resolve(host: str, port: int) -> tuple[str, int] | None:
        target = nodes.get(host)
        return target.address if target is not None else None

    cluster = SimClusterInfo(("bastion", "node-1"), resolve=resolve)
    bastion = make_node("bastion", cluster=cluster)
    inner = make_node("node-1", cluster=cluster)
    nodes.update({"bastion": bastion, "node-1": inner})
    jump = connect(bastion)
    channel = jump.ssh.get_transport().open_channel("direct-tcpip", ("node-1", 22), ("", 0))
    client = paramiko.SSHClient()
    client.get_host_keys().add("node-1", inner.host_key.get_name(), inner.host_key)
    client.set_missing_host_key_policy(paramiko.RejectPolicy())
    client.connect("node-1", port=22, sock=channel, username="root", pkey=client_key,
                   allow_agent=False, look_for_keys=False)  # fmt: skip
    try:
        _, out, _ = client.exec_command("hostname")
        assert out.read() == b"node-1\n"
    finally:
        client.close()
    with pytest.raises(paramiko.ChannelException):
        jump.ssh.get_transport().open_channel("direct-tcpip", ("elsewhere", 22), ("", 0))


def test_start_twice_and_address_before_start(make_node, tmp_path: Path, client_key) -> None:
    node = make_node()
    with pytest.raises(SimNodeError):
        node.start()
    from xyclaw.sim.node import SimNodeSpec

    idle = SimNode(SimNodeSpec("idle"), root=tmp_path / "idle", authorized_keys=[client_key])
    with pytest.raises(SimNodeError):
        _ = idle.address


def test_stop_closes_the_port(make_node) -> None:
    node = make_node()
    address = node.address
    node.stop()
    with pytest.raises(OSError), socket.create_connection(address, timeout=2):
        pass


def test_64_nodes_start_and_answer(make_node, client_key: paramiko.PKey) -> None:
    nodes = [make_node(f"n{i:02d}", gpu_model="A10", gpu_count=1) for i in range(64)]

    def ask(node: SimNode) -> str:
        client = _client(node, client_key)
        try:
            _, out, _ = client.exec_command("hostname")
            return out.read().decode().strip()
        finally:
            client.close()

    with ThreadPoolExecutor(max_workers=16) as pool:
        names = list(pool.map(ask, nodes))
    assert names == [f"n{i:02d}" for i in range(64)]


def test_spec_names_what_is_known() -> None:
    from xyclaw.errors import UsageError
    from xyclaw.sim.node import SimNodeSpec

    with pytest.raises(UsageError) as info:
        SimNodeSpec("n", gpu_model="B200")
    assert "B200" in info.value.message and "H100" in (info.value.hint or "")
    with pytest.raises(UsageError):
        SimNodeSpec("n", fabric="ib-xdr-800")


def test_a_client_that_vanishes_mid_stream_ends_the_loop_as_sigpipe_would_without_an_error(
    node: SimNode, client_key: paramiko.PKey, caplog: pytest.LogCaptureFixture
) -> None:
    """A telemetry stream's loop writes with the shell's own echo. When the app closes its
    connection (the user stops watching, the app quits), bash dies of SIGPIPE on its next
    write: the simulated node ends the command the same way, and logs no failure."""
    client = _client(node, client_key)
    # A small window, not read: the node is held in the middle of a write when the client goes.
    channel = client.get_transport().open_session(window_size=1024)
    channel.exec_command('while true; do echo "@$(date +%s.%N)" tick; done')
    assert channel.recv(64).startswith(b"@")
    time.sleep(0.3)
    caplog.set_level("DEBUG", logger="xyclaw.sim")
    client.get_transport().sock.close()  # gone without a word, as a killed process goes
    client.close()
    deadline = time.monotonic() + 10
    while node.machine.procs.match("^bash -c while", full=True) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert node.machine.procs.match("^bash -c while", full=True) == []
    # paramiko's transports say "Socket exception: ..." in one line on their own loggers
    # (the node's is xyclaw.sim.ssh.*); the node itself must not report a failure.
    failed = [
        r
        for r in caplog.records
        if r.levelname in ("ERROR", "CRITICAL")
        and r.name.startswith("xyclaw.")
        and not r.name.startswith("xyclaw.sim.ssh.")
    ]
    assert failed == [], [r.getMessage() for r in failed]
