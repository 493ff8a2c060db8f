"""The GUI's translation catalogues: extract, build and check them.

    .venv/bin/python tools/i18n.py update    # sources -> resources/i18n/xyclaw_<lang>.ts
    .venv/bin/python tools/i18n.py release   # .ts -> .qm (what the app loads)
    .venv/bin/python tools/i18n.py check     # fails on a string missing or unfinished
    .venv/bin/python tools/i18n.py translate words.json   # fill translations from a file

The sources are every ``tr()`` / ``QCoreApplication.translate`` / ``QT_TRANSLATE_NOOP``
call under ``xyclaw/gui`` and every string of the forms in ``ui/``. ``update`` keeps the
translations already made (edit them with ``pyside6-linguist``) and drops the ones whose
source text is gone; ``release`` writes the ``.qm`` files next to the ``.ts``; ``check``
lists what a language lacks and exits 1 if anything does. The tools are Qt's own
(``pyside6-lupdate``, ``pyside6-lrelease``, from PySide6-Essentials).
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CATALOGUES = ROOT / "resources" / "i18n"
LANGUAGES = ("zh_CN",)


def tool(name: str) -> str:
    """A Qt tool from this interpreter's environment (.venv/bin), else from PATH."""
    here = Path(sys.executable).parent / name
    if here.exists():
        return str(here)
    found = shutil.which(name)
    if found is None:
        raise SystemExit(f"i18n: {name} not found; install PySide6-Essentials (pip install -e .)")
    return found


def sources(root: Path = ROOT) -> list[Path]:
    gui = sorted((root / "xyclaw" / "gui").rglob("*.py"))
    forms = sorted((root / "ui").glob("*.ui"))
    return [*gui, *forms]


def catalogue(language: str, suffix: str = ".ts") -> Path:
    return CATALOGUES / f"xyclaw_{language}{suffix}"


def extract(target: Path, root: Path = ROOT) -> None:
    """Run lupdate over the sources into ``target`` (kept translations stay)."""
    files = [str(p.relative_to(root)) for p in sources(root)]
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile("w", suffix=".lst", delete=False) as lst:
        lst.write("\n".join(files))
    try:
        subprocess.run(
            [tool("pyside6-lupdate"), "-no-obsolete", "-locations", "none", f"@{lst.name}",
             "-ts", str(target)],
            cwd=root, check=True, capture_output=True, text=True,
        )  # fmt: skip
    finally:
        Path(lst.name).unlink(missing_ok=True)


def release(ts: Path, qm: Path) -> None:
    subprocess.run(
        [tool("pyside6-lrelease"), "-silent", str(ts), "-qm", str(qm)],
        check=True,
        capture_output=True,
        text=True,
    )


@dataclass(frozen=True)
class Message:
    context: str
    source: str
    translation: str
    finished: bool


def messages(ts: Path) -> list[Message]:
    """Every message of a .ts file with its translation and whether it is finished."""
    out = []
    for context in ET.parse(ts).getroot().iter("context"):
        name = context.findtext("name") or ""
        for message in context.iter("message"):
            source = message.findtext("source") or ""
            node = message.find("translation")
            forms = [] if node is None else list(node.iter("numerusform"))
            text = "".join(f.text or "" for f in forms) if forms else (
                "" if node is None else node.text or "")  # fmt: skip
            kind = "" if node is None else node.get("type", "")
            done = kind not in ("unfinished", "vanished", "obsolete") and bool(text.strip())
            out.append(Message(name, source, text, done))
    return out


def missing(language: str, root: Path = ROOT) -> list[Message]:
    """Source strings the language's catalogue lacks or leaves unfinished."""
    with tempfile.TemporaryDirectory() as folder:
        fresh = Path(folder) / "fresh.ts"
        extract(fresh, root)
        wanted = {(m.context, m.source) for m in messages(fresh)}
    have = {(m.context, m.source): m for m in messages(catalogue(language))}
    lacking = []
    for context, source in sorted(wanted):
        found = have.get((context, source))
        if found is None or not found.finished:
            lacking.append(found or Message(context, source, "", False))
    return lacking


def translate(ts: Path, words: dict[str, dict[str, str]]) -> int:
    """Fill ``{context: {source: translation}}`` into ``ts`` (after ``update`` has added the
    sources); returns how many were set. A source the catalogue lacks is an error: run
    ``update`` first, or the context or text differs from the code's."""
    tree = ET.parse(ts)
    found: set[tuple[str, str]] = set()
    for context in tree.getroot().iter("context"):
        name = context.findtext("name") or ""
        wanted = words.get(name, {})
        for message in context.iter("message"):
            source = message.findtext("source") or ""
            if source not in wanted:
                continue
            node = message.find("translation")
            if node is None:
                node = ET.SubElement(message, "translation")
            node.text = wanted[source]
            node.attrib.pop("type", None)
            found.add((name, source))
    lacking = [(c, s) for c, texts in words.items() for s in texts if (c, s) not in found]
    if lacking:
        raise SystemExit(f"i18n: not in {ts.name} (run update first): {lacking}")
    tree.write(ts, encoding="utf-8", xml_declaration=True)
    return len(found)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("action", choices=("update", "release", "check", "translate"))
    parser.add_argument("words", nargs="?", help="for translate: a JSON file of "
                        "{language: {context: {source: translation}}}")  # fmt: skip
    args = parser.parse_args(argv)
    for language in LANGUAGES:
        ts = catalogue(language)
        if args.action == "translate":
            import json

            if not args.words:
                parser.error("translate needs the JSON file of translations")
            table = json.loads(Path(args.words).read_text(encoding="utf-8")).get(language, {})
            print(f"{ts.relative_to(ROOT)}: {translate(ts, table)} translations set")
        elif args.action == "update":
            extract(ts)
            unfinished = sum(1 for m in messages(ts) if not m.finished)
            print(f"{ts.relative_to(ROOT)}: {len(messages(ts))} strings, {unfinished} to translate")
        elif args.action == "release":
            release(ts, catalogue(language, ".qm"))
            print(catalogue(language, ".qm").relative_to(ROOT))
        else:
            lacking = missing(language)
            for m in lacking:
                print(f"{language}: [{m.context}] {m.source!r}")
            if lacking:
                print(f"{language}: {len(lacking)} strings missing or unfinished", file=sys.stderr)
                return 1
            print(f"{language}: complete")
    return 0


if __name__ == "__main__":
    sys.exit(main())
