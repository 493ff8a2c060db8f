"""`xyclaw mcp` driven by the `mcp` package's own client over stdio (issue 37).

The server runs as its own process with XYCLAW_HOME in the test's folder and the simulated
cloud the CLI starts; its stdout reaches the client through a tee that keeps every byte, so
that the test can check that nothing but protocol messages was written. The client plans
(answered at once), rents (pending, card X), tries to approve the card itself through MCP,
with `xyclaw ask --approve` and with `xyclaw chat` on a pipe (all refused); then a person
answers yes in `xyclaw chat` on a pseudo-terminal and the client's card_status sees it
rented.
"""

from __future__ import annotations

import fcntl
import json
import os
import pty
import select
import struct
import subprocess
import sys
import termios
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from xyclaw.paths import AppPaths
from xyclaw.sim.cloud import launcher

pytestmark = [pytest.mark.slow, pytest.mark.timeout(400)]
ROOT = Path(__file__).resolve().parents[2]
CLIENT = "test-agent"
XYCLAW = [sys.executable, "-m", "xyclaw.cli.main"]
SERVED = {
    "plan",
    "offers",
    "quote",
    "rent",
    "clusters",
    "jobs",
    "logs",
    "launch",
    "cancel",
    "release",
    "health",
    "cost",
    "history",
    "card_status",
}


@pytest.fixture
def env(xyclaw_home: Path) -> Iterator[dict[str, str]]:
    environ = dict(os.environ, XYCLAW_SIM_PROVISION_DELAY_S="0", PYTHONPATH=str(ROOT))
    yield environ
    launcher.stop(AppPaths.from_environment().data_dir / "sim")


def _server(env: dict[str, str], record: Path) -> StdioServerParameters:
    tee = ["-m", "tests.agent.stdout_tee", str(record), "--", *XYCLAW, "mcp"]
    return StdioServerParameters(command=sys.executable, args=tee, env=env, cwd=str(ROOT))


async def _call(client: Client, tool: str, args: dict[str, Any]) -> tuple[dict[str, Any], bool]:
    result = await client.call_tool(tool, args)
    body = result.structured_content
    assert isinstance(body, dict), result
    return body, bool(result.is_error)


def _run(argv: list[str], env: dict[str, str], stdin: str = "") -> subprocess.CompletedProcess:
    """A XyClaw command as a coding agent would spawn it: no terminal anywhere."""
    return subprocess.run(
        [*XYCLAW, *argv],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=120,
    )


class PtyChat:
    """``xyclaw chat --conversation N`` on a pseudo-terminal: a person at a terminal."""

    def __init__(self, env: dict[str, str], cid: int) -> None:
        leader, follower = pty.openpty()
        fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 200, 200, 0, 0))
        self.proc = subprocess.Popen(
            [*XYCLAW, "chat", "--conversation", str(cid)],
            stdin=follower,
            stdout=follower,
            stderr=follower,
            cwd=ROOT,
            env=env,
            close_fds=True,
        )
        os.close(follower)
        self.leader = leader
        self.seen = b""

    def wait_for(self, pattern: bytes, timeout: float = 120.0) -> None:
        deadline = time.monotonic() + timeout
        while pattern not in self.seen:
            assert time.monotonic() < deadline, f"no {pattern!r}: {self.seen.decode()[-2000:]}"
            if select.select([self.leader], [], [], 0.2)[0]:
                try:
                    self.seen += os.read(self.leader, 65536)
                except OSError:
                    break
            elif self.proc.poll() is not None:
                raise AssertionError(f"chat ended early: {self.seen.decode()[-2000:]}")

    def answer(self, line: str) -> None:
        self.seen = b""
        os.write(self.leader, line.encode() + b"\r")

    def close(self) -> int:
        os.write(self.leader, b"\x04")
        try:
            return self.proc.wait(timeout=60)
        finally:
            os.close(self.leader)
            if self.proc.poll() is None:
                self.proc.kill()


def _yes_in_a_terminal(env: dict[str, str], cid: int, card: str) -> str:
    chat = PtyChat(env, cid)
    try:
        chat.wait_for(b"approve? [a]pprove")
        shown = chat.seen.decode(errors="replace")
        chat.answer("a")
        chat.wait_for(b"you> ")
        return shown + chat.seen.decode(errors="replace")
    finally:
        assert chat.close() == 0


def test_an_mcp_client_asks_and_only_a_person_at_a_terminal_answers(
    env: dict[str, str], tmp_path: Path
) -> None:
    record = tmp_path / "stdout.bin"

    async def session() -> None:
        info = types.Implementation(name=CLIENT, version="1.0")
        async with Client(
            _server(env, record), client_info=info, read_timeout_seconds=180
        ) as client:
            listed = {t.name: t for t in (await client.list_tools()).tools}
            assert set(listed) == SERVED | {"answer_card"}  # answer_card exists to say no
            for name in SERVED:
                assert "Effect: " in (listed[name].description or ""), name
            assert "Effect: spend" in (listed["rent"].description or "")
            assert "pending" in (listed["release"].description or "")
            assert listed["plan"].annotations and listed["plan"].annotations.read_only_hint

            # errors along the way, each a message for the client (and a warning in the log)
            body, failed = await _call(client, "no_such_tool", {})
            assert failed and "no tool" in body["error"]
            body, failed = await _call(client, "plan", {"task": "finetune-lora"})
            assert failed and "model_params" in body["error"]
            body, failed = await _call(client, "logs", {"job": "no-such-job"})
            assert failed and body["error"]

            # a plan: read only, answered in the call itself
            plan, failed = await _call(
                client,
                "plan",
                {"task": "finetune-lora", "model_params": 7e9, "gpus": 8, "budget": 2000},
            )
            assert not failed and plan["options"] and plan["plan_id"]
            # reads alone leave no conversation behind
            history, _ = await _call(client, "history", {"kind": "conversations"})
            assert "MCP" not in json.dumps(history)

            # a rent: the same bound card as any other, returned at once as pending
            rent, failed = await _call(client, "rent", {"plan_id": plan["plan_id"], "option": 1})
            assert not failed and rent["status"] == "pending", rent
            card, cid = rent["card"], rent["conversation"]
            assert f"pending, card {card}" in rent["message"]
            assert rent["effect"] == "spend"
            assert any("MCP client" in r for r in rent["details"]["tainted"])
            history, _ = await _call(client, "history", {"kind": "conversations"})
            assert f"MCP: {CLIENT}" in json.dumps(history)

            # a second ask while it waits never pushes it aside
            body, failed = await _call(client, "rent", {"plan_id": plan["plan_id"], "option": 2})
            assert failed and card in body["error"]

            # the client approving it itself: through MCP ...
            body, failed = await _call(client, "answer_card", {"card": card})
            assert failed and "cannot be answered through MCP" in body["error"]
            # ... by spawning `xyclaw ask --approve` (no terminal) ...
            ask = await anyio.to_thread.run_sync(
                _run, ["ask", "--conversation", str(cid), "--approve", card], env
            )
            assert ask.returncode != 0, ask.stdout
            assert "asked for by an MCP client" in ask.stderr
            assert "xyclaw ask --approve" in ask.stderr
            # ... and by feeding `xyclaw chat` a yes on a pipe
            chat = await anyio.to_thread.run_sync(
                _run, ["chat", "--conversation", str(cid)], env, "a\n"
            )
            assert chat.returncode != 0, chat.stdout
            assert "without a terminal" in chat.stderr
            status, failed = await _call(client, "card_status", {"card": card})
            assert not failed and status["status"] == "pending"
            clusters, _ = await _call(client, "clusters", {})
            assert clusters["clusters"] == []

            # a person answers yes in `xyclaw chat` at a terminal
            screen = await anyio.to_thread.run_sync(_yes_in_a_terminal, env, cid, card)
            assert f"asked by an MCP client ({CLIENT})" in screen
            assert f"card {card}" in screen
            assert "<- create_cluster: done" in screen

            status, failed = await _call(client, "card_status", {"card": card})
            assert not failed and status["status"] == "done", status
            assert status["decided_by"] == "user (terminal)"
            rented = status["result"]["cluster"]["name"]
            clusters, _ = await _call(client, "clusters", {})
            assert [c["name"] for c in clusters["clusters"]] == [rented]

    anyio.run(session)

    # stdout carried the protocol and nothing else, across errors and warnings
    sent = record.read_bytes()
    assert sent.endswith(b"\n")
    for line in sent.splitlines():
        message = json.loads(line)
        assert message.get("jsonrpc") == "2.0", line[:200]
    log = AppPaths.from_environment().log_file.read_text()
    assert "an MCP client tried to answer it; refused" in log
    assert "MCP logs refused" in log
