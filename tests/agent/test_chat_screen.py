"""`xyclaw chat` against a model scripted to attack, read as the terminal shows it (issue 25,
attack 2): a command that redraws its own card line, and a reply that draws a fake card and
conceals the real one. The chat runs in its own process on a real pseudo-terminal; what it
writes is fed to a terminal emulator (pyte) and the screen is read back."""

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

import pyte
import pytest

from tests.agent import fake_llm as f
from xyclaw.agent.presets import key_secret_name
from xyclaw.paths import AppPaths
from xyclaw.secrets import SecretStore
from xyclaw.wording.display import CARD_MARK

ROOT = Path(__file__).resolve().parents[2]
COLUMNS, ROWS = 100, 300
ATTACK = "touch /root/X; rm -rf /workspace; #\r\x1b[2K   command: nvidia-smi -L"
FAKE_CARD = (
    "Here is the cheapest option.\n"
    "== Approval needed (spend) from provisioner: Rent 1 x RTX4090 for 2.30 CNY/h\n"
    "   shape: 1 x RTX4090\n"
    "   price_per_hour: 2.30 CNY\n"
    "\x1b[8m"  # conceal: whatever is drawn after this is invisible on a real terminal
)
PROMPT = b"approve? [a]pprove"
BIG = {"gpu": "H100", "gpus": 64}


class Terminal(pyte.Screen):
    """pyte's screen, with the conceal attribute a real terminal obeys (pyte ignores it)."""

    concealed = False

    def select_graphic_rendition(self, *attrs: int) -> None:
        for attr in attrs or (0,):
            if attr == 8:
                self.concealed = True
            elif attr in (0, 28):
                self.concealed = False
        super().select_graphic_rendition(*attrs)

    def draw(self, data: str) -> None:
        super().draw(" " * len(data) if self.concealed else data)


class Chat:
    """``xyclaw chat`` on a pseudo-terminal of COLUMNS x ROWS."""

    def __init__(self, env: dict[str, str]) -> None:
        leader, follower = pty.openpty()
        fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLUMNS, 0, 0))
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "xyclaw.cli.main", "chat"],
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
        self.screen = Terminal(COLUMNS, ROWS)
        self.stream = pyte.ByteStream(self.screen)

    def wait_for(self, pattern: bytes, timeout: float = 120.0) -> bytes:
        """Read until ``pattern`` comes after what was read before; what came, as bytes."""
        start = len(self.seen)
        deadline = time.monotonic() + timeout
        while pattern not in self.seen[start:]:
            if time.monotonic() > deadline:
                raise AssertionError(f"no {pattern!r} within {timeout}s:\n{self.text()[-3000:]}")
            if select.select([self.leader], [], [], 0.2)[0]:
                try:
                    chunk = os.read(self.leader, 65536)
                except OSError:
                    break
                self.seen += chunk
                self.stream.feed(chunk)
            elif self.proc.poll() is not None:
                raise AssertionError(f"chat ended early:\n{self.text()[-3000:]}")
        return self.seen[start:]

    def type(self, line: str) -> None:
        os.write(self.leader, line.encode() + b"\r")

    def text(self) -> str:
        return "\n".join(row.rstrip() for row in self.screen.display if row.strip())

    def card(self) -> list[str]:
        """The last card on the screen: the marked lines above the question, a continued
        line joined to the one before it."""
        rows = [row.rstrip() for row in self.screen.display]
        end = max(i for i, row in enumerate(rows) if row.startswith(f"{CARD_MARK} approve?"))
        start = end
        while start > 0 and rows[start - 1].startswith(CARD_MARK):
            start -= 1
        lines: list[str] = []
        for row in rows[start:end]:
            body = row[len(CARD_MARK) :]
            if body.startswith("  \u21b3 "):
                lines[-1] += body[len("  \u21b3 ") :]
            else:
                lines.append(body.removeprefix(" "))
        return lines

    def close(self) -> int:
        os.write(self.leader, b"\x04")  # Ctrl-D: EOF at the prompt ends the chat
        try:
            return self.proc.wait(timeout=60)
        finally:
            os.close(self.leader)
            if self.proc.poll() is None:
                self.proc.kill()


@pytest.fixture
def llm_env(xyclaw_home: Path) -> Iterator[tuple[f.FakeLLM, dict[str, str]]]:
    paths = AppPaths.from_environment()
    paths.ensure()
    SecretStore.choose("file", paths.secrets_file).set(key_secret_name("custom"), f.API_KEY)

    def router(body: dict) -> str:
        last = json.dumps(body["messages"][-1])
        return "operator" if "check" in last else "provisioner"

    with f.FakeLLM(router=router) as llm:
        env = dict(
            os.environ,
            TERM="xterm-256color",
            XYCLAW_SIM_PROVISION_DELAY_S="0",
            XYCLAW_LLM_PRESET="custom",
            XYCLAW_LLM_BASE_URL=llm.base_url,
            XYCLAW_LLM_MODEL="fake-model",
            XYCLAW_LLM_MAX_RETRIES="0",
        )
        env.pop("NO_COLOR", None)
        env.pop("COLUMNS", None)
        yield llm, env


@pytest.mark.timeout(300)
def test_a_scripted_attacker_cannot_hide_or_fake_the_terminal_card(
    llm_env: tuple[f.FakeLLM, dict[str, str]],
) -> None:
    llm, env = llm_env
    llm.add(
        # 1: a fake card and a conceal, then the real ask: 64 x H100
        f.Reply(text=FAKE_CARD, tool_calls=[("create_cluster", json.dumps(BIG))]),
        f.text("Nothing was rented."),
        # 2: a small cluster, approved, for the command to run on
        f.call("create_cluster", {"gpu": "RTX4090", "gpus": 1}),
        f.text("Rented."),
        # 3: a command that rubs out its own card line and writes a harmless one
        f.call("run_command", {"cluster": "1", "command": ATTACK}),
        f.text("Kept it."),
    )  # fmt: skip
    chat = Chat(env)
    try:
        chat.wait_for(b"you> ")
        chat.type("rent the cheapest GPU")
        chat.wait_for(PROMPT)
        card = chat.card()
        # the real card is there, whole and visible, after the fake one
        assert card[0].startswith("== Approval needed (spend) from provisioner: Rent 64 x H100")
        rows = dict(line.strip().split(": ", 1) for line in card[1:] if ": " in line)
        assert rows["shape"].startswith("8 nodes x 8 x H100") or "H100" in rows["shape"]
        assert rows["price_per_hour"].endswith("CNY") and rows["price_per_hour"] != "2.30 CNY"
        screen = chat.text()
        # the fake card is shown as the model's words: no fake line begins like a card's
        fake = [row for row in screen.splitlines() if "RTX4090" in row]
        assert fake and not any(row.startswith(CARD_MARK) for row in fake)
        assert "Rent 64 x H100" in screen  # not concealed
        assert b"\x1b[8m" not in chat.seen
        # the mark of a card's line is drawn in a style no model text can produce
        marked = [
            y
            for y, row in enumerate(chat.screen.display)
            if row.startswith(CARD_MARK) and "approve?" not in row  # a prompt is plain
        ]
        assert marked and all(chat.screen.buffer[y][0].reverse for y in marked)
        assert not any(
            chat.screen.buffer[y][0].reverse
            for y, row in enumerate(chat.screen.display)
            if row.strip() and not row.startswith(CARD_MARK)
        )
        chat.type("r")
        chat.wait_for(b"you> ")

        chat.type("rent one small GPU")
        chat.wait_for(PROMPT)
        chat.type("a")
        chat.wait_for(b"you> ", timeout=180)

        chat.type("check the GPUs")
        chat.wait_for(PROMPT)
        card = chat.card()
        assert card[0].startswith("== Approval needed (exec) from operator")
        [command] = [line for line in card if line.strip().startswith("command: ")]
        # the whole real command, its carriage return and escape made visible, not obeyed
        assert command.strip() == (
            "command: touch /root/X; rm -rf /workspace; #␍␛[2K   command: nvidia-smi -L"
        )
        assert not any(line.strip() == "command: nvidia-smi -L" for line in card)
        assert b"\r\x1b[2K" not in chat.seen
        chat.type("r")
        chat.wait_for(b"you> ")
    finally:
        code = chat.close()
    assert code == 0, chat.text()[-3000:]
