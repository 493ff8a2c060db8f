"""A training loop with no dependencies, for trying XyClaw on any machine.

It "trains" by sleeping --step_time seconds a step, prints its progress in the
plain form XyClaw reads (``step 12/200 loss 2.3456 lr 3.000e-04 tokens/s
51234.0``), writes a checkpoint folder every --save_steps (written to a
temporary name first and marked ``COMPLETE``, so a half-written one is never
picked up), and continues from --resume PATH. Swap the loop body for real work
and keep the prints.
"""

from __future__ import annotations

# sim: model=tiny-0.1b
# (The line above is read only by XyClaw's simulated cloud, which sizes a script's GPU
# memory and step time from its model: without it a 7B full fine-tune is assumed and one
# GPU runs out of memory. Real machines ignore it.)
import argparse
import json
import math
import os
import random
import time
from pathlib import Path


def save(output_dir: Path, step: int, loss: float) -> Path:
    """``checkpoint-<step>/`` with an empty ``COMPLETE`` marker: the folder shape XyClaw
    looks for when it resumes a job (docs/jobs.md, "Checkpoints")."""
    final = output_dir / f"checkpoint-{step}"
    partial = output_dir / f".checkpoint-{step}.partial"
    partial.mkdir(parents=True, exist_ok=True)
    (partial / "state.json").write_text(json.dumps({"step": step, "loss": loss}))
    (partial / "COMPLETE").touch()
    os.replace(partial, final)
    return final


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--max_steps", type=int, default=200)
    p.add_argument("--save_steps", type=int, default=50)
    p.add_argument("--output_dir", default="checkpoints")
    p.add_argument("--step_time", type=float, default=0.5, help="seconds per step")
    p.add_argument("--lr", type=float, default=3e-4)
    p.add_argument("--resume", default=None, help="a checkpoint folder to continue from")
    args = p.parse_args()

    output_dir = Path(args.output_dir)
    start = 0
    if args.resume:
        state = json.loads((Path(args.resume) / "state.json").read_text())
        start = int(state["step"])
        print(f"resuming from {args.resume} at step {start}", flush=True)
    rng = random.Random(1234)
    tokens_per_step = 8 * 4096
    loss = 0.0
    for step in range(start + 1, args.max_steps + 1):
        began = time.monotonic()
        time.sleep(args.step_time)
        loss = 1.2 + 9.0 * math.exp(-step / 60) + rng.uniform(-0.02, 0.02)
        lr = args.lr * min(1.0, step / 20)
        elapsed = max(time.monotonic() - began, 1e-6)
        print(
            f"step {step}/{args.max_steps} loss {loss:.4f} lr {lr:.3e} "
            f"tokens/s {tokens_per_step / elapsed:.1f}",
            flush=True,
        )
        if step % args.save_steps == 0 or step == args.max_steps:
            path = save(output_dir, step, loss)
            print(f"checkpoint saved step {step} path {path}", flush=True)
    print(f"training finished: {args.max_steps} steps, final loss {loss:.4f}", flush=True)


if __name__ == "__main__":
    main()
