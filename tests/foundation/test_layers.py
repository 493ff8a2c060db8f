"""The core's layers hold: no package imports one above it, and no modules import in a cycle."""

from __future__ import annotations

import grimp


def test_no_import_cycles_between_core_modules() -> None:
    graph = grimp.build_graph("xyclaw", exclude_type_checking_imports=True)
    core = sorted(
        m
        for m in graph.modules
        if not m.startswith(("xyclaw.gui", "xyclaw.agent", "xyclaw.sim", "xyclaw._bundled"))
    )
    cycles = []
    for module in core:
        for imported in graph.find_modules_directly_imported_by(module):
            if imported == module or not imported.startswith("xyclaw."):
                continue
            back = graph.find_shortest_chain(importer=imported, imported=module)
            if back:
                cycles.append(" -> ".join([module, *back]))
    assert not cycles, "import cycles:\n" + "\n".join(sorted(set(cycles))[:20])
