"""The house drawing: docs/architecture.md's picture of which package imports which, made
from the code (grimp's import graph, type-only imports included, as the contracts count
them), so that it cannot drift from what import-linter checks.

One box per package of ``xyclaw``, in the layers of pyproject.toml's ``layers`` contract,
top to bottom; an arrow for each pair of packages where a module of one imports a module of
the other. The ground (the modules every layer may import: errors, events, wording, config
...) is one box that every package may use; arrows into it are left out. A face's import of
one of the allow-listed value modules (``catalog.models``, ``records.states`` ...) counts as
ground too. What the faces' allow-list still ignores (its debt) is drawn dashed, and what
the layers contract allows by design (the desktop, the chat commands) is drawn dotted.

    python tools/house_drawing.py            # print the drawing
    python tools/house_drawing.py --write    # write it into docs/architecture.md
    python tools/house_drawing.py --check    # exit 1 when docs/architecture.md is stale
"""

from __future__ import annotations

import functools
import sys
import tomllib
from pathlib import Path
from typing import Any

import grimp

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "architecture.md"
BEGIN = "<!-- house drawing: made by tools/house_drawing.py, do not edit by hand -->"
END = "<!-- end of the house drawing -->"
FACES = ("cli", "gui", "agent")
GROUND = "ground"
#: What each layer is for, top first (docs/design.md's words).
TITLES = (
    "the faces: show, ask, forward",
    "the agents",
    "the facade",
    "what happens on a cluster",
    "where clusters come from, how to reach them",
    "the domain model",
    "what is kept, offered and read",
)


def _config() -> dict[str, Any]:
    config: dict[str, Any] = tomllib.loads((ROOT / "pyproject.toml").read_text())
    return dict(config["tool"]["importlinter"])


def _contract(kind: str) -> dict[str, Any]:
    return next(c for c in _config()["contracts"] if c["type"] == kind)


def _short(module: str) -> str:
    return module.removeprefix("xyclaw.")


def layers() -> list[list[str]]:
    """The layers contract's layers, top first, each a list of package names (no prefix)."""
    return [
        [_short(p.strip()) for p in layer.split("|")] for layer in _contract("layers")["layers"]
    ]


def _allowed_for_faces(module: str) -> bool:
    for allowed in _contract("allowlist")["allowed_modules"]:
        if allowed.endswith(".**") and module.startswith(allowed[:-3] + "."):
            return True
        if module == allowed:
            return True
    return False


def _split(line: str) -> tuple[str, str]:
    importer, imported = (part.strip() for part in line.split("->"))
    return importer, imported


@functools.cache
def edges() -> dict[tuple[str, str], str]:
    """(importer package, imported package) -> "solid", "debt" or "design"."""
    ground = {pkg for layer in layers() for pkg in layer if _is_ground(pkg)}
    debt = {_split(line) for line in _contract("allowlist").get("ignore_imports", [])}
    # By design: what the layers and forbidden contracts let through on purpose (the desktop,
    # the chat commands, starting the simulated cloud) and the faces' allowed_imports.
    by_design = {_split(line) for line in _contract("allowlist").get("allowed_imports", [])}
    for contract in _config()["contracts"]:
        if contract["type"] in ("layers", "forbidden"):
            by_design |= {_split(line) for line in contract.get("ignore_imports", [])}
    graph = grimp.build_graph("xyclaw", exclude_type_checking_imports=False)
    found: dict[tuple[str, str], str] = {}
    for importer in graph.modules:
        source = _short(importer).split(".")[0]
        if source in ("xyclaw", "") or importer == "xyclaw":
            continue
        for imported in graph.find_modules_directly_imported_by(importer):
            target = _short(imported).split(".")[0]
            if imported == "xyclaw" or target == source or target in ground:
                continue
            if source in FACES and target not in FACES and _allowed_for_faces(imported):
                continue  # a value module the faces may take: ground, for them
            kind = "solid"
            if any(_matches(importer, imported, a, b) for a, b in by_design):
                kind = "design"
            elif (importer, imported) in debt:
                kind = "debt"
            key = (source, target)
            found[key] = min(found.get(key, kind), kind, key=("solid", "debt", "design").index)
    return found


def _matches(importer: str, imported: str, a: str, b: str) -> bool:
    def one(module: str, expression: str) -> bool:
        if expression.endswith(".**"):
            return module == expression[:-3] or module.startswith(expression[:-3] + ".")
        return module == expression

    return one(importer, a) and one(imported, b)


def _is_ground(package: str) -> bool:
    """The ground: the last layers, below records/store (every layer may import them)."""
    names = [pkg for lay in layers() for pkg in lay]
    return names.index(package) > names.index("parsers")


def drawing() -> str:
    """The Mermaid flowchart, in a fenced block."""
    lines = ["```mermaid", "flowchart TD"]
    ground: list[str] = []
    for number, layer in enumerate(layers()):
        if all(_is_ground(pkg) for pkg in layer):
            ground += layer
            continue
        title = TITLES[number] if number < len(TITLES) else " "
        lines.append(f'    subgraph L{number}["{title}"]')
        lines.extend(f"        {pkg}[{pkg}]" for pkg in layer)
        lines.append("    end")
    lines.append(f'    {GROUND}["the ground: {", ".join(ground)}"]')
    lines.append("    sim[sim: the simulated cloud, reached over HTTP and SSH]")
    styles = {"solid": "-->", "debt": "-.->|debt|", "design": "-.->|by design|"}
    for (source, target), kind in sorted(edges().items()):
        lines.append(f"    {source} {styles[kind]} {target}")
    lines.append("```")
    return "\n".join(lines) + "\n"


def circles(found: dict[tuple[str, str], str]) -> list[tuple[str, str]]:
    """Pairs of packages that import each other (there should be none)."""
    return sorted((a, b) for (a, b) in found if a < b and (b, a) in found)


def _with_drawing(text: str) -> str:
    start, end = text.index(BEGIN) + len(BEGIN), text.index(END)
    return text[:start] + "\n\n" + drawing() + "\n" + text[end:]


def main(argv: list[str]) -> int:
    if "--write" in argv:
        DOC.write_text(_with_drawing(DOC.read_text()))
        return 0
    if "--check" in argv:
        text = DOC.read_text()
        if _with_drawing(text) != text:
            print(f"{DOC} is stale: run python tools/house_drawing.py --write", file=sys.stderr)
            return 1
        return 0
    sys.stdout.write(drawing())
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
