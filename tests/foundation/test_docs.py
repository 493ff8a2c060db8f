"""The newcomer's documents: the set issue 16 promises exists, every relative link in the
README and docs/ points at a file that is there, and every `xyclaw ...` command line that
getting-started and the README show is one the CLI accepts as written
(parsed by the real parser, not run)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from xyclaw.cli.main import build_parser

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
PAGES = [ROOT / "README.md", *sorted(DOCS.glob("*.md")), ROOT / "packaging" / "README.md"]
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


def test_the_newcomers_pages_exist() -> None:
    for name in (
        "getting-started.md",
        "jobs.md",
        "agents.md",
        "approvals.md",
        "sim-api.md",
        "sim-node.md",
        "configuration.md",
        "troubleshooting.md",
    ):
        assert (DOCS / name).is_file(), name
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "make run" in readme and "make test" in readme
    for tool in ("SkyPilot", "dstack", "nvitop", "MLflow"):
        assert tool in readme, tool


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_point_at_files(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    broken = [
        target
        for target in LINK.findall(text)
        if "://" not in target
        and not target.startswith("mailto:")
        and not (page.parent / target).exists()
    ]
    assert not broken, f"{page.name}: {broken}"


def _commands(page: Path) -> list[str]:
    """`xyclaw ...` lines of the page's code blocks and indented examples."""
    found = []
    for raw in page.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line.startswith("xyclaw ") or not raw.startswith(("    ", "\t")):
            continue
        line = line.split("  #", 1)[0].strip()
        if "|" in line or "<" in line or "..." in line:
            continue  # alternatives and placeholders: "jobs | logs JOB", "<its name>"
        found.append(line)
    return found


@pytest.mark.parametrize(
    "page",
    [DOCS / "getting-started.md", ROOT / "README.md"],
    ids=lambda p: p.name,
)
def test_shown_commands_parse(page: Path) -> None:
    commands = _commands(page)
    assert commands, f"no commands found in {page.name}"
    parser = build_parser()
    for line in commands:
        argv = shlex.split(line)[1:]
        if "--" in argv:  # exec CLUSTER -- command: the command is not ours to parse
            argv = argv[: argv.index("--")]
        try:
            parser.parse_args(argv)
        except SystemExit as exc:  # argparse's way of saying no
            pytest.fail(f"{page.name}: `{line}` is refused by the CLI (exit {exc.code})")
