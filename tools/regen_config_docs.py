"""Rewrite the settings tables in docs/configuration.md from the configuration schema.

Run after adding or changing a setting: `.venv/bin/python tools/regen_config_docs.py`.
"""

from __future__ import annotations

from pathlib import Path

from xyclaw.config import settings_markdown

DOCS = Path(__file__).resolve().parents[1] / "docs" / "configuration.md"


def main() -> None:
    text = DOCS.read_text(encoding="utf-8")
    start = text.index("### [general]")
    end = text.index("\n## ", start) + 1  # the generated tables run up to the next chapter
    DOCS.write_text(text[:start] + settings_markdown() + "\n" + text[end:], encoding="utf-8")


if __name__ == "__main__":
    main()
