"""The faces' allow-list: an import-linter contract type, and the script that lists its debt.

The faces (``xyclaw.cli``, ``xyclaw.gui``, ``xyclaw.agent``) may import, of the core, only
the Engine and the shared ground. import-linter's own ``forbidden`` contract is a deny-list:
a module added to the core later would be importable from the faces until someone
remembered to forbid it. The ``allowlist`` contract here turns that round: every direct
import from a source module into another module of its root package must go to a module
named in ``allowed_modules`` (``xyclaw.engine`` is that module only, ``xyclaw.engine.**``
its descendants), to another source module (the faces among themselves are the ``layers``
contract's business), or be listed in ``allowed_imports`` (by design) or
``ignore_imports`` (today's debt, one exact ``a.b -> c.d`` line each, no wildcards).

pyproject.toml registers it (``contract_types``); ``lint-imports`` finds this module
because it puts the current folder on ``sys.path``, so run it from the repository root,
as ``make lint`` does.

Run as a script, it prints the imports the contract has to ignore today, in the form of
its ``ignore_imports`` list, and on stderr how that differs from pyproject.toml::

    python tools/face_imports.py            # the list, to paste over the old one
"""

from __future__ import annotations

import sys
import tomllib
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from grimp import ImportGraph
from importlinter.application import contract_utils, output
from importlinter.application.contract_utils import AlertLevel
from importlinter.domain import fields
from importlinter.domain.contract import Contract, ContractCheck, InvalidContractOptions
from importlinter.domain.helpers import module_expressions_to_modules
from importlinter.domain.imports import ImportExpression, ModuleExpression

CONTRACT_TYPE = "allowlist"


def _in_any(module: str, packages: Iterable[str]) -> bool:
    return any(module == p or module.startswith(p + ".") for p in packages)


def _modules(graph: ImportGraph, expressions: Iterable[ModuleExpression]) -> set[str]:
    return {m.name for m in module_expressions_to_modules(graph, expressions)}


def broken_imports(
    graph: ImportGraph,
    source_modules: Iterable[ModuleExpression],
    allowed_modules: Iterable[ModuleExpression],
) -> list[tuple[str, str]]:
    """Every direct import from a source module that the allow-list does not allow, sorted.

    ``graph`` should already lack the imports that ``allowed_imports`` and ``ignore_imports``
    name (the contract removes them first; the script removes only ``allowed_imports``).
    """
    sources = _modules(graph, source_modules)
    allowed = _modules(graph, allowed_modules)
    roots = {s.split(".")[0] for s in sources}
    broken = []
    for importer in sorted(m for m in graph.modules if _in_any(m, sources)):
        for imported in graph.find_modules_directly_imported_by(importer):
            if imported.split(".")[0] not in roots or imported in allowed:
                continue
            if _in_any(imported, sources):
                continue
            broken.append((importer, imported))
    return sorted(broken)


class AllowListContract(Contract):
    """Source modules import, of their own root package, only what is allowed.

    Configuration options:
        - source_modules:  the importers, each with its descendants.
        - allowed_modules: module expressions, matched exactly (``a.b`` is that module only;
                           ``a.b.**`` its descendants, ``a.b.*`` its children).
        - allowed_imports: import expressions allowed by design (wildcards welcome).
        - ignore_imports:  today's exceptions, each an exact ``a.b -> c.d`` (no wildcards,
                           so that a new import never hides behind an old line).
        - unmatched_ignore_imports_alerting: "error" (default), "warn" or "none", for a line
                           of either list that matches no import any more.
    """

    type_name = CONTRACT_TYPE

    source_modules = fields.SetField(subfield=fields.ModuleExpressionField())
    allowed_modules = fields.SetField(subfield=fields.ModuleExpressionField())
    allowed_imports = fields.SetField(subfield=fields.ImportExpressionField(), required=False)
    ignore_imports = fields.SetField(subfield=fields.ImportExpressionField(), required=False)
    unmatched_ignore_imports_alerting = fields.EnumField(AlertLevel, default=AlertLevel.ERROR)

    def validate(self) -> None:
        wild = sorted(str(e) for e in self.ignore_imports or () if "*" in str(e))
        if wild:
            raise InvalidContractOptions(
                {"ignore_imports": f"each line names one import exactly; no wildcards: {wild}"}
            )

    def check(self, graph: ImportGraph, verbose: bool) -> ContractCheck:
        alerting = self.unmatched_ignore_imports_alerting
        by_design = contract_utils.remove_ignored_imports_and_report(
            graph=graph,
            ignore_imports=list(self.allowed_imports or ()),
            unmatched_alerting=alerting,
        )
        debt = contract_utils.remove_ignored_imports_and_report(
            graph=graph,
            ignore_imports=list(self.ignore_imports or ()),
            unmatched_alerting=alerting,
        )
        broken = broken_imports(graph, self.source_modules, self.allowed_modules)
        details = [
            {
                "importer": importer,
                "imported": imported,
                "line_numbers": sorted(
                    d["line_number"]
                    for d in graph.get_import_details(importer=importer, imported=imported)
                ),
            }
            for importer, imported in broken
        ]
        return ContractCheck(
            kept=not broken,
            warnings=[*by_design.warnings, *debt.warnings],
            ignored_import_count=debt.ignored_import_count,
            metadata={"broken": details},
        )

    def render_broken_contract(self, check: ContractCheck) -> None:
        for item in check.metadata["broken"]:
            lines = ", ".join(f"l.{n}" for n in item["line_numbers"])
            output.print_error(f"{item['importer']} -> {item['imported']} ({lines})", bold=True)
        output.new_line()
        output.print(
            "Reach the part through an Engine method (or a module of the allow-list) instead. "
            "Only if the import really must stay: add its exact line to ignore_imports and "
            "raise the count in tests/foundation/test_face_imports.py, for the review to see."
        )
        output.new_line()


# --- the script -------------------------------------------------------------------------


def _contract_options(pyproject: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    config = tomllib.loads(pyproject.read_text())["tool"]["importlinter"]
    contract = next(c for c in config["contracts"] if c["type"] == CONTRACT_TYPE)
    return config, contract


def _import_expression(text: str) -> ImportExpression:
    parsed: ImportExpression = fields.ImportExpressionField().parse(text)
    return parsed


def current_lines(pyproject: Path) -> list[str]:
    """The ignore lines the allow-list contract in ``pyproject`` needs for the code as it is."""
    import grimp

    session, contract = _contract_options(pyproject)
    graph = grimp.build_graph(
        *session["root_packages"],
        include_external_packages=bool(session.get("include_external_packages", False)),
        exclude_type_checking_imports=bool(session.get("exclude_type_checking_imports", False)),
        cache_dir=None,
    )
    contract_utils.remove_ignored_imports(
        graph,
        [_import_expression(e) for e in contract.get("allowed_imports", [])],
        AlertLevel.NONE,
    )
    sources = [ModuleExpression(e) for e in contract["source_modules"]]
    allowed = [ModuleExpression(e) for e in contract["allowed_modules"]]
    return [f"{a} -> {b}" for a, b in broken_imports(graph, sources, allowed)]


def main(argv: list[str]) -> int:
    pyproject = Path(argv[1]) if len(argv) > 1 else Path(__file__).parents[1] / "pyproject.toml"
    lines = current_lines(pyproject)
    _, contract = _contract_options(pyproject)
    listed = set(contract.get("ignore_imports", []))
    for line in lines:
        print(f'    "{line}",')
    new, gone = sorted(set(lines) - listed), sorted(listed - set(lines))
    print(
        f"{len(lines)} lines; pyproject.toml lists {len(listed)} "
        f"(+{len(new)} new, -{len(gone)} gone)",
        file=sys.stderr,
    )
    for line in new:
        print(f"  + {line}", file=sys.stderr)
    for line in gone:
        print(f"  - {line}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).parents[1]))
    raise SystemExit(main(sys.argv))
