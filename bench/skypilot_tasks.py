"""SkyPilot's own task files through `xyclaw launch --dry-run`: how many are accepted, and
why the others are refused (issue 29, "How well").

Point it at a folder of task YAMLs kept outside this repository (a checkout of
skypilot-org/skypilot, its ``examples/`` and ``llm/``); it runs from that folder, as
SkyPilot resolves relative paths from where the command runs. Prints one line per file
(accepted, or the refusal's line, field and reason), a per-reason table, the acceptance
rate, and a last line of JSON. Nothing is rented or run: it calls the dry run only.

    python bench/skypilot_tasks.py ~/src/skypilot examples llm
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections import Counter
from pathlib import Path

from xyclaw.catalog import Catalog
from xyclaw.jobs.dryrun import dry_run

# refusal message -> a short reason for the table (the first that matches)
REASONS = (
    (r"AMD GPUs", "AMD GPU (planned)"),
    (r"TPUs are not GPUs", "TPU"),
    (r"Neuron SDK", "Inferentia/Trainium"),
    (r"Gaudi", "Gaudi"),
    (r"not a GPU model XyClaw knows", "GPU not in catalog"),
    (r"more than one YAML document", "several YAML documents (pipeline)"),
    (r"SkyPilot pool", "pool file"),
    (r"cluster-only file", "cluster-only file"),
    (r"does not exist", "local path missing"),
    (r"appears twice", "a key given twice"),
    (r"not valid YAML", "not valid YAML"),
)


def reason(message: str) -> str:
    for pattern, short in REASONS:
        if re.search(pattern, message):
            return short
    return message[:60]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", type=Path, help="the folder to run from (a SkyPilot checkout)")
    parser.add_argument("folders", nargs="*", default=["."], help="folders under root")
    args = parser.parse_args(argv)
    root = args.root.resolve()
    os.chdir(root)
    known = {g.name for g in Catalog.builtin().gpus}
    files = sorted(
        p for folder in args.folders for p in (root / folder).rglob("*.y*ml") if p.is_file()
    )
    accepted = 0
    reasons: Counter[str] = Counter()
    for path in files:
        got = dry_run(path, known_gpus=known)
        shown = path.relative_to(root)
        if got.accepted:
            accepted += 1
            print(f"ok       {shown}  ({got.nodes} x {got.gpus_per_node} {got.gpu})")
        else:
            assert got.refusal is not None
            short = reason(got.refusal.message)
            reasons[short] += 1
            where = f"{shown}:{got.refusal.line}" if got.refusal.line else str(shown)
            print(f"refused  {where}  {got.refusal.field or ''}  [{short}] {got.refusal.message}")
    total = len(files)
    print("\nreason | files")
    for short, count in reasons.most_common():
        print(f"{short} | {count}")
    rate = accepted / total if total else 0.0
    print(f"\naccepted {accepted} of {total} ({rate:.0%})")
    print(json.dumps({"files": total, "accepted": accepted, "refused": dict(reasons)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
