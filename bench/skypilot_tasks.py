"""SkyPilot's own task files through `xyclaw launch --dry-run`: how many are accepted, and
why the others are refused (issue 29, "How well").

Point it at a folder of task YAMLs kept outside this repository (a checkout of
skypilot-org/skypilot, its ``examples/`` and ``llm/``); it runs from that folder, as
SkyPilot resolves relative paths from where the command runs. Prints one line per file
(accepted, or the refusal's line, field and reason), a per-reason table, the acceptance
rate, and a last line of JSON. Nothing is rented or run: it calls the dry run only.

YAML files in those folders that are not task files at all (Kubernetes manifests,
docker-compose files, SkyPilot server configs and admin policies, volume specs, a
training framework's own config) are recognised by their top-level keys, skipped and
counted apart: no task key (run, setup, resources, num_nodes, workdir, file_mounts, envs,
service, pool) in any document, or a Kubernetes manifest's apiVersion and kind.
``--table FILE`` also writes the per-file table as Markdown.

    python bench/skypilot_tasks.py ~/src/skypilot examples llm --table RESULTS.md
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections import Counter
from pathlib import Path

import yaml

from xyclaw.catalog import Catalog
from xyclaw.jobs.dryrun import dry_run

# a document with one of these at its top level is (meant as) a SkyPilot task
TASK_KEYS = frozenset(
    {"run", "setup", "resources", "num_nodes", "workdir", "file_mounts", "envs", "service", "pool"}
)

# refusal message -> a short reason for the table (the first that matches)
REASONS = (
    (r"AMD GPUs", "AMD GPU (planned)"),
    (r"TPUs are not GPUs", "TPU"),
    (r"Neuron SDK", "Inferentia/Trainium"),
    (r"Gaudi", "Gaudi"),
    (r"not a GPU model XyClaw knows", "GPU not in catalog"),
    (r"more than one YAML document", "several YAML documents (pipeline)"),
    (r"SkyPilot pool", "pool file"),
    (r"SkyPilot job group", "job group (execution: parallel)"),
    (r"SkyServe model spec", "SkyServe model spec (model:, no run)"),
    (r"not a SkyPilot resources field|unknown field in resources", "field not in resources"),
    (r"cluster-only file", "cluster-only file"),
    (r"does not exist", "local path missing"),
    (r"which has no value here", "unset variable in a local path"),
    (r"appears twice", "a key given twice"),
    (r"not valid YAML", "not valid YAML"),
)


# refusals SkyPilot makes too on the same machine: a local file the task's author had
# (~/Downloads/..., ~/.ssh/id_rsa, /tmp/llama/...) or a variable they set is absent here
SKYPILOT_TOO = frozenset({"local path missing", "unset variable in a local path"})
# refusals issue 29 asks for: hardware XyClaw does not drive, files that are no single task
BY_DESIGN = frozenset(
    {
        "AMD GPU (planned)",
        "TPU",
        "Inferentia/Trainium",
        "Gaudi",
        "pool file",
        "job group (execution: parallel)",
        "SkyServe model spec (model:, no run)",
        "cluster-only file",
    }
)


def kind_of(short: str) -> str:
    """Whose refusal it is: SkyPilot's too, XyClaw's by design, or the loader's."""
    if short in SKYPILOT_TOO:
        return "SkyPilot refuses too"
    if short in BY_DESIGN:
        return "by design"
    return "loader"


def reason(message: str) -> str:
    for pattern, short in REASONS:
        if re.search(pattern, message):
            return short
    return message[:60]


def not_a_task(path: Path) -> str | None:
    """What the file is when it is no task file at all (None: a task, or unreadable YAML
    that the dry run should refuse with its reason)."""
    try:
        documents = [d for d in yaml.safe_load_all(path.read_text(encoding="utf-8")) if d]
    except (yaml.YAMLError, UnicodeDecodeError):
        return None
    keys: set[str] = set()
    for document in documents:
        if not isinstance(document, dict):
            return None
        keys |= {str(k) for k in document}
    if {"apiVersion", "kind"} <= keys:
        return "Kubernetes manifest"
    if keys & TASK_KEYS:
        return None
    if "services" in keys:
        return "docker-compose file"
    if "admin_policy" in keys:
        return "SkyPilot admin-policy config"
    if {"type", "size"} <= keys:
        return "SkyPilot volume spec"
    if "model" in keys and len(keys) == 1:
        return None  # a SkyServe model spec: the dry run says what it is
    return "not a task file (no task key)"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", type=Path, help="the folder to run from (a SkyPilot checkout)")
    parser.add_argument("folders", nargs="*", default=["."], help="folders under root")
    parser.add_argument("--table", type=Path, help="also write the per-file table (Markdown)")
    args = parser.parse_args(argv)
    root = args.root.resolve()
    os.chdir(root)
    known = {g.name for g in Catalog.builtin().gpus}
    files = sorted(
        p for folder in args.folders for p in (root / folder).rglob("*.y*ml") if p.is_file()
    )
    accepted = 0
    reasons: Counter[str] = Counter()
    skipped: Counter[str] = Counter()
    rows: list[tuple[str, str, str]] = []
    for path in files:
        shown = path.relative_to(root)
        other = not_a_task(path)
        if other is not None:
            skipped[other] += 1
            rows.append((str(shown), "not a task", other))
            print(f"skipped  {shown}  [{other}]")
            continue
        got = dry_run(path, known_gpus=known)
        if got.accepted:
            accepted += 1
            what = f"{got.nodes} x {got.gpus_per_node} {got.gpu}"
            if got.gpu is None:
                what = f"{got.nodes} node(s), no GPU named"
            if got.tasks:
                what = f"pipeline of {len(got.tasks)} tasks"
            rows.append((str(shown), "accepted", what))
            print(f"ok       {shown}  ({what})")
        else:
            assert got.refusal is not None
            short = reason(got.refusal.message)
            reasons[short] += 1
            where = f"{shown}:{got.refusal.line}" if got.refusal.line else str(shown)
            field = f" `{got.refusal.field}`" if got.refusal.field else ""
            rows.append((where, "refused", f"{short}:{field} {got.refusal.message}"))
            print(f"refused  {where}  {got.refusal.field or ''}  [{short}] {got.refusal.message}")
    total = len(files) - sum(skipped.values())
    print("\nreason | whose | files")
    for short, count in reasons.most_common():
        print(f"{short} | {kind_of(short)} | {count}")
    rate = accepted / total if total else 0.0
    kinds: Counter[str] = Counter()
    for short, count in reasons.items():
        kinds[kind_of(short)] += count
    print(f"\nskipped as not task files: {sum(skipped.values())} {dict(skipped)}")
    print(f"accepted {accepted} of {total} task files ({rate:.1%})")
    print(f"refusals by whose: {dict(kinds)}")
    both = total - kinds["SkyPilot refuses too"]
    print(
        f"accepted {accepted} of the {both} that SkyPilot accepts on this machine "
        f"({accepted / both if both else 0.0:.1%})"
    )
    if args.table is not None:
        write_table(args.table, rows, reasons, skipped, accepted, total)
    summary = {"files": total, "accepted": accepted, "refused": dict(reasons)}
    summary["refused_by_whose"] = dict(kinds)
    summary["not_tasks"] = dict(skipped)
    print(json.dumps(summary))
    return 0


def write_table(
    out: Path,
    rows: list[tuple[str, str, str]],
    reasons: Counter[str],
    skipped: Counter[str],
    accepted: int,
    total: int,
) -> None:
    rate = accepted / total if total else 0.0
    lines = [
        f"accepted {accepted} of {total} task files ({rate:.1%}); "
        f"{sum(skipped.values())} YAML files skipped as not task files",
        "",
        "| refusal reason | whose | files |",
        "| --- | --- | --- |",
        *(f"| {short} | {kind_of(short)} | {count} |" for short, count in reasons.most_common()),
        "",
        "| not a task file | files |",
        "| --- | --- |",
        *(f"| {kind} | {count} |" for kind, count in skipped.most_common()),
        "",
        "| file | result | nodes x GPUs, or why |",
        "| --- | --- | --- |",
        *(f"| {f} | {r} | {w.replace('|', '/')} |" for f, r, w in rows),
    ]
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    sys.exit(main())
