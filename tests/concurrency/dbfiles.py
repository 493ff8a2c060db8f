"""Finding code that opens the history's SQLite files (``*.db``, ``-wal``, ``-shm``) by any
means but SQLite: ``open``, ``Path.open``/``read_bytes``/``write_*``, ``os.open``,
``shutil.copy*``, ``unlink``/``os.replace``... (issue 23). Closing a descriptor that Python
opened on such a file drops every SQLite lock the process holds on it.

The check is static and errs on the side of noticing: an expression "names a database file"
when it holds a string such as ``.db``, ``-wal`` or ``-shm``, reads ``.database`` or
``.agent_checkpoints`` (the AppPaths properties), is a variable assigned from such an
expression earlier in the same function, or, inside ``xyclaw/store/`` (where ``path`` is the
database), is the ``path`` parameter or ``self.path``."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

DB_TEXT = re.compile(r"\.db($|[-.\W])|-wal\b|-shm\b|-journal\b", re.IGNORECASE)
DB_ATTRS = frozenset({"database", "agent_checkpoints"})
DB_NAMES = frozenset({"database", "db_path", "database_path", "checkpoint_db"})
STORE_DB_NAMES = frozenset({"path", "db_file"})
#: functions (module.attr) that open, copy, move or remove a file behind SQLite's back
OPENING_FUNCTIONS = frozenset(
    {
        "open",
        "io.open",
        "os.open",
        "os.remove",
        "os.unlink",
        "os.replace",
        "os.rename",
        "os.truncate",
        "shutil.copy",
        "shutil.copy2",
        "shutil.copyfile",
        "shutil.copyfileobj",
        "shutil.move",
        "tempfile.NamedTemporaryFile",
    }
)
#: Path methods that open (or remove, rewrite) the file
OPENING_METHODS = frozenset(
    {"open", "read_bytes", "read_text", "write_bytes", "write_text", "unlink", "rename", "touch"}
)


@dataclass(frozen=True)
class Finding:
    where: str
    line: int
    call: str

    def __str__(self) -> str:
        return f"{self.where}:{self.line}: {self.call}"


def _dotted(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = _dotted(node.value)
        return f"{inner}.{node.attr}" if inner else node.attr
    return ""


class _Function(ast.NodeVisitor):
    """One function body (or a module's top level), read in order."""

    def __init__(self, in_store: bool, params: set[str], where: str, found: list[Finding]):
        self.in_store = in_store
        self.tainted: set[str] = set(params)
        self.where = where
        self.found = found

    def names_db(self, node: ast.AST | None) -> bool:
        if node is None:
            return False
        for sub in ast.walk(node):
            if isinstance(sub, ast.Constant) and isinstance(sub.value, str):
                if DB_TEXT.search(sub.value):
                    return True
            elif isinstance(sub, ast.Attribute):
                if sub.attr in DB_ATTRS:
                    return True
                if self.in_store and _dotted(sub) in {"self.path", "self._path"}:
                    return True
            elif isinstance(sub, ast.Name) and (sub.id in self.tainted or sub.id in DB_NAMES):
                return True
        return False

    def _taint(self, target: ast.AST) -> None:
        for sub in ast.walk(target):
            if isinstance(sub, ast.Name):
                self.tainted.add(sub.id)

    def visit_Assign(self, node: ast.Assign) -> None:
        self.generic_visit(node)
        if self.names_db(node.value):
            for target in node.targets:
                self._taint(target)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        self.generic_visit(node)
        if self.names_db(node.value):
            self._taint(node.target)

    def visit_NamedExpr(self, node: ast.NamedExpr) -> None:
        self.generic_visit(node)
        if self.names_db(node.value):
            self._taint(node.target)

    def visit_For(self, node: ast.For) -> None:
        if self.names_db(node.iter):
            self._taint(node.target)
        self.generic_visit(node)

    def visit_comprehension(self, node: ast.comprehension) -> None:
        if self.names_db(node.iter):
            self._taint(node.target)
        self.generic_visit(node)

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        _check_function(node, self.in_store, self.where, self.found)

    visit_AsyncFunctionDef = visit_FunctionDef  # type: ignore[assignment]

    def visit_Lambda(self, node: ast.Lambda) -> None:
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        for comp in getattr(node, "generators", ()):
            self.visit(comp)
        self.generic_visit(node)
        name = _dotted(node.func)
        opened: ast.AST | None = None
        if name in OPENING_FUNCTIONS:
            opened = ast.Tuple(elts=[*node.args, *(k.value for k in node.keywords)])
        elif isinstance(node.func, ast.Attribute) and node.func.attr in OPENING_METHODS:
            opened = node.func.value
            if name.startswith(("os.", "shutil.")):
                opened = None
        if opened is not None and self.names_db(opened):
            self.found.append(Finding(self.where, node.lineno, ast.unparse(node)[:120]))


def _check_function(
    node: ast.FunctionDef | ast.AsyncFunctionDef, in_store: bool, where: str, found: list[Finding]
) -> None:
    args = node.args
    params = {
        a.arg
        for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)
        if a.arg in DB_NAMES or (in_store and a.arg in STORE_DB_NAMES)
    }
    visitor = _Function(in_store, params, f"{where}:{node.name}", found)
    for statement in node.body:
        visitor.visit(statement)


def check_source(source: str, where: str, *, in_store: bool = False) -> list[Finding]:
    """Every call in ``source`` that opens a database file other than through SQLite."""
    found: list[Finding] = []
    visitor = _Function(in_store, set(), where, found)
    for statement in ast.parse(source).body:
        visitor.visit(statement)
    return found


def check_package(package: Path) -> list[Finding]:
    found: list[Finding] = []
    for path in sorted(package.rglob("*.py")):
        rel = path.relative_to(package.parent).as_posix()
        in_store = rel.startswith("xyclaw/store/")
        found += check_source(path.read_text(encoding="utf-8"), rel, in_store=in_store)
    return found
