"""Cutting a node's log into stored lines: whatever the chunks the bytes come in, every
line comes out once, with the byte offset it starts at, its text and the rank its launcher
prefix names, the same as a plain line-by-line reading of the whole log says."""

from __future__ import annotations

import random
import re
from pathlib import Path

from xyclaw.jobs.lines import LineCutter, global_rank
from xyclaw.parsers.joblog import split_prefix

MAX_CHARS = 200
_PREFIX = re.compile(r"\[([A-Za-z_]{0,32})(\d{1,6})\]:")


def reference(data: bytes, node_rank: int, nproc: int) -> list[tuple[int, str, int | None]]:
    """Line by line, from the rules in docs/jobs.md: torchrun's ``[roleN]:`` counts the
    node's local ranks, ``[rankN]:`` and the other launchers' prefixes are global, and a
    single-process node's lines are its own rank."""
    out = []
    pos = 0
    for raw in data.split(b"\n")[:-1]:
        text = raw.decode("utf-8", errors="replace").removesuffix("\r")
        if len(text) > MAX_CHARS:
            text = text[:MAX_CHARS] + " [... line cut by XyClaw]"
        rank: int | None = None
        m = _PREFIX.match(text)
        if m is not None:
            rank = global_rank(m.group(1) + m.group(2), int(m.group(2)), node_rank, nproc)
        elif text[:1] == "[" or text[:1].isdigit():
            prefix, number, _ = split_prefix(text[:200])
            rank = global_rank(prefix, number, node_rank, nproc)
        if rank is None and nproc == 1:
            rank = node_rank
        out.append((pos, text, rank))
        pos += len(raw) + 1
    return out


def cut(data: bytes, node_rank: int, nproc: int, sizes: random.Random | None, start: int = 0):
    cutter = LineCutter(start, node_rank=node_rank, nproc=nproc, max_line_chars=MAX_CHARS)
    got: list[tuple[int, str, int | None]] = []
    pos = 0
    while pos < len(data):
        step = len(data) if sizes is None else sizes.choice([1, 7, 64, 500, 4096, 70_000])
        taken = cutter.feed(data[pos : pos + step])
        assert taken.redraws == []
        got.extend((ln.offset - start, ln.text, ln.rank) for ln in taken.lines)
        assert len(taken.offsets) == len(taken.texts) == len(taken.ranks)
        pos += step
    assert cutter.pending == b"" and cutter.offset == start + len(data)
    return got


def mixed_log(rng: random.Random, lines: int) -> bytes:
    shapes = [
        lambda: f"[default{rng.randrange(8)}]:step {rng.randrange(999)} loss 1.5",
        lambda: f"[rank{rng.randrange(64)}]:iteration {rng.randrange(99)}/ 100 | lm loss: 2.1",
        lambda: f"[{rng.randrange(8)}]:plain prefix without a role",
        lambda: "plain line with no prefix " + "x" * rng.randrange(60),
        lambda: "",
        lambda: f"{rng.randrange(16)}: srun's prefix",
        lambda: f"[1,{rng.randrange(16)}]<stdout>:Open MPI's prefix",
        lambda: "[not a prefix] just brackets",
        lambda: "a line a tool ended with a carriage return\r",
        lambda: "ünïcödé and a bar ▏▎▍ mid-line",
        lambda: "[default2]:" + "y" * (MAX_CHARS + 50),  # cut to the limit
        lambda: "\x1b[32mstep: 10\x1b[0m  loss: 1,234.5  tps: 12,000",
    ]
    return "".join(rng.choice(shapes)() + "\n" for _ in range(lines)).encode()


def test_any_chunking_gives_every_line_once_with_the_reference_offset_text_and_rank() -> None:
    rng = random.Random(12)
    for node_rank, nproc in ((0, 1), (1, 8), (3, 8)):
        data = mixed_log(rng, 3000)
        want = reference(data, node_rank, nproc)
        assert cut(data, node_rank, nproc, None) == want  # in one piece
        for seed in range(3):
            assert cut(data, node_rank, nproc, random.Random(seed), start=1000) == want


def test_a_log_of_torchrun_lines_only_is_cut_the_same_way() -> None:
    # the shape of nearly every chunk of a multi-GPU job: every line behind a rank prefix
    data = "".join(
        f"[default{r}]:step {s} loss 0.5\n" if s % 2 else f"[rank{8 + r}]:seq {s}\n"
        for s in range(500)
        for r in range(8)
    ).encode()
    got = cut(data, 1, 8, random.Random(1))
    assert got == reference(data, 1, 8)
    assert {rank for _, _, rank in got} == set(range(8, 16))


def test_the_real_training_logs_cut_as_the_reference_says(real_fixtures: Path) -> None:
    logs = sorted(real_fixtures.glob("train_*")) + sorted(real_fixtures.glob("torch_*"))
    assert logs
    for path in logs:
        data = path.read_bytes()
        data = data[: data.rfind(b"\n") + 1]
        for node_rank, nproc in ((0, 1), (1, 8)):
            assert cut(data, node_rank, nproc, random.Random(7)) == reference(
                data, node_rank, nproc
            ), path.name
