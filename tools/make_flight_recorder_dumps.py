"""Make real PyTorch Flight Recorder dumps for XyClaw's tests: 4 CPU processes on gloo,
the last rank skips one all_reduce, and every rank writes its JSON dump.

Why: XyClaw reads Flight Recorder dumps to say which rank a hung job waits for; the
reader must be tested on what PyTorch really writes, not on a guess. torch is not a
dependency of XyClaw: this script runs in a throwaway environment that has it, e.g.

    python3 -m venv /tmp/frvenv && /tmp/frvenv/bin/pip install torch
    /tmp/frvenv/bin/python tools/make_flight_recorder_dumps.py tests/fixtures/flight_recorder

It writes ``rank_<N>.json`` (``_dump_fr_trace_json``: the JSON form, no stacks) for
each rank and ``made_with.json`` (torch version, world size, what was skipped).
Ranks 0..2 dump while they wait in the all_reduce rank 3 skipped, rank 3 after it
went past it, so the dumps show the divergence as a dump at a watchdog timeout would.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

WORLD = 4
STEPS = 6  # all_reduces before the skipped one
SKIPPER = WORLD - 1


def dump(rank: int, out: str) -> None:
    """This rank's Flight Recorder buffer in its JSON form (no stacks), as rank_<N>.json,
    and the pickle form beside it for PyTorch's own analyser (never committed)."""
    from torch._C._distributed_c10d import _dump_fr_trace, _dump_fr_trace_json

    raw = _dump_fr_trace_json(includeCollectives=True, onlyActive=False)
    Path(out, f"rank_{rank}.json").write_bytes(raw if isinstance(raw, bytes) else raw.encode())
    pickles = Path(out, "pickle")
    pickles.mkdir(exist_ok=True)
    (pickles / f"rank_{rank}").write_bytes(_dump_fr_trace(True, False, False))


def worker(rank: int, out: str, init_file: str) -> None:
    import torch
    import torch.distributed as dist

    dist.init_process_group(
        "gloo",
        init_method=f"file://{init_file}",
        rank=rank,
        world_size=WORLD,
        timeout=timedelta(seconds=8),
    )
    t = torch.ones(1024)
    for _ in range(STEPS):
        dist.all_reduce(t)
    dist.broadcast(t, src=0)
    if rank == SKIPPER:
        dump(rank, out)  # it went on past the all_reduce the others wait in
        time.sleep(12)  # alive, so the others wait to their timeout, as in a real hang
    else:
        work = dist.all_reduce(t, async_op=True)  # the skipper never joins this one
        time.sleep(2)
        dump(rank, out)  # during the hang, as a watchdog's dump on timeout would be
        try:
            work.wait()
        except Exception as exc:  # gloo raises RuntimeError or DistBackendError
            print(f"rank {rank}: {type(exc).__name__}: {str(exc).splitlines()[0]}", flush=True)
    os._exit(0)  # a rank whose peer left cannot destroy the group cleanly


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    args = parser.parse_args()
    os.environ["TORCH_FR_BUFFER_SIZE"] = "2000"
    os.environ["TORCH_NCCL_TRACE_BUFFER_SIZE"] = "2000"
    import torch
    import torch.multiprocessing as mp

    args.out.mkdir(parents=True, exist_ok=True)
    init_file = tempfile.mktemp(prefix="fr_init_")
    mp.start_processes(
        worker, args=(str(args.out), init_file), nprocs=WORLD, join=True, start_method="spawn"
    )
    made = {
        "torch": torch.__version__,
        "backend": "gloo",
        "world_size": WORLD,
        "skipped": {"rank": SKIPPER, "collective": "all_reduce", "after": STEPS},
        "made_by": "tools/make_flight_recorder_dumps.py",
    }
    # PyTorch's own verdict on the same hang, to check XyClaw's reader against
    verdict = subprocess.run(
        [
            sys.executable,
            "-m",
            "torch.distributed.flight_recorder.fr_trace",
            str(args.out / "pickle"),
            "-p",
            "rank_",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    (args.out / "torch_fr_trace.txt").write_text(verdict.stdout + verdict.stderr)
    shutil.rmtree(args.out / "pickle")
    (args.out / "made_with.json").write_text(json.dumps(made, indent=1) + "\n")
    print(json.dumps(made))
    return 0


if __name__ == "__main__":
    sys.exit(main())
