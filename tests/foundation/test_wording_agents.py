"""The agents keep no words of their own (issue 35, one catalogue): every line they say in
Chinese comes from :mod:`xyclaw.wording`, so the catalogue's checks (both languages, the same
figures) cover it. This scans the agents' source for Chinese outside docstrings and comments,
so an inline ``"English" if en else "中文"`` pair that grows back fails here."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import xyclaw.agent

AGENT = Path(xyclaw.agent.__file__).parent
CJK = re.compile(r"[\u3000-\u303f\u3400-\u9fff\uff00-\uffef]")

#: A regular expression that reads a Chinese request (an alternation, a word boundary, a group,
#: or one character as the bound of a range): vocabulary of the input, not words said.
PATTERN = re.compile(r"\||\\b|\(\?|^.$", re.DOTALL)

#: Chinese that must stay in the source, with the reason (file relative to xyclaw/agent).
ALLOWED: dict[tuple[str, str], str] = {
    ("rules/numbers.py", "零〇一二两俩三四五六七八九"): "the digits a Chinese number is read with",
    ("rules/numbers.py", "十百千万亿"): "the units a Chinese number is read with",
    ("rules/slots.py", "双卡"): "a GPU count read from a request",
    ("rules/slots.py", "分钟"): "a duration unit read from a request",
    ("rules/slots.py", "小时"): "a duration unit read from a request",
    ("rules/slots.py", "钟头"): "a duration unit read from a request",
    ("rules/slots.py", "星期"): "a duration unit read from a request",
    ("rules/slots.py", "礼拜"): "a duration unit read from a request",
    ("rules/slots.py", "厦门"): "a region's name as a request gives it",
    ("rules/slots.py", "银川"): "a region's name as a request gives it",
    ("rules/slots.py", "乌兰察布"): "a region's name as a request gives it",
    ("rules/summaries.py", " :;,.：；，。"): "punctuation trimmed off the tuner's decision",
}

#: Whole texts that quote Chinese requests as examples for the docs (docs/agents.md is
#: generated from the phrase book): data about the input, by file and opening words.
ALLOWED_OPENINGS: dict[tuple[str, str], str] = {
    ("rules/phrasebook.py", "## The rules brain"): "the phrase book's own page, quoting requests",
    ("rules/phrasebook.py", "\n### How values are read"): "the phrase book's page on numerals",
}


def _docstrings(tree: ast.AST) -> set[int]:
    kinds = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, kinds) and node.body and isinstance(node.body[0], ast.Expr):
            found.add(id(node.body[0].value))
    return found


def _in_patterns(tree: ast.AST) -> set[int]:
    """What sits inside a call of :mod:`re` (``re.compile(...)``, ``re.sub(...)``)."""
    found: set[int] = set()
    for node in ast.walk(tree):
        func = node.func if isinstance(node, ast.Call) else None
        name = func.value if isinstance(func, ast.Attribute) else None
        if isinstance(name, ast.Name) and name.id == "re":
            found.update(id(sub) for sub in ast.walk(node))
    return found


def chinese_in_source(root: Path = AGENT) -> list[str]:
    """``file:line: text`` for each line of the agents with a string literal that holds
    Chinese and is neither a docstring, a pattern that reads requests, nor allowed above."""
    found: dict[tuple[str, int], str] = {}
    for path in sorted(root.rglob("*.py")):
        name = path.relative_to(root).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"))
        skipped = _docstrings(tree) | _in_patterns(tree)
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
                continue
            text = node.value
            if id(node) in skipped or not CJK.search(text) or PATTERN.search(text):
                continue
            if (name, text) in ALLOWED:
                continue
            if any(name == f and text.startswith(o) for f, o in ALLOWED_OPENINGS):
                continue
            found.setdefault((name, node.lineno), f"{name}:{node.lineno}: {text[:60]!r}")
    return [found[where] for where in sorted(found)]


def test_the_agents_say_nothing_in_chinese_outside_the_catalogue() -> None:
    found = chinese_in_source()
    assert not found, "put these in xyclaw/wording/agent_rules.py and call say():\n" + "\n".join(
        found
    )


def test_the_scan_finds_an_inline_pair(tmp_path: Path) -> None:
    """The check itself: an inline pair (a plain one and an f-string) is found, a docstring,
    a comment and a request pattern are not."""
    (tmp_path / "grown.py").write_text(
        '"""说明。"""\n'
        "import re\n"
        "# 注释\n"
        "WORDS = re.compile(r'取消|停止')\n"
        "def line(zh: bool, n: int) -> str:\n"
        '    """帮助。"""\n'
        '    done = "完成" if zh else "done"\n'
        '    return f"还有 {n} 条" if zh else f"{n} more"\n',
        encoding="utf-8",
    )
    found = chinese_in_source(tmp_path)
    assert [f.split(":")[1] for f in found] == ["7", "8"], found


def test_every_allowed_text_is_still_there() -> None:
    """An allowance whose text left the source is removed, so the list does not rot."""
    texts = {}
    for path in sorted(AGENT.rglob("*.py")):
        name = path.relative_to(AGENT).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"))
        texts[name] = [
            n.value
            for n in ast.walk(tree)
            if isinstance(n, ast.Constant) and isinstance(n.value, str)
        ]
    for name, text in ALLOWED:
        assert text in texts.get(name, []), (name, text)
    for name, opening in ALLOWED_OPENINGS:
        assert any(t.startswith(opening) for t in texts.get(name, [])), (name, opening)
