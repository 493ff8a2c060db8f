"""The value types the faces (CLI, window, agents) take from the core, in one public module.

A face imports the Engine and this module, never a part (``planner``, ``jobs``,
``telemetry`` ...): so a part can change its insides without breaking a face, and what the
CLI shows cannot drift from what the window and the agents show. Each name here is the
part's own class, re-exported unchanged; a face that needs behaviour, not a value, asks the
Engine for it.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# --- values the CLI and the agents take -------------------------------------------------
#
# (issue 35, the CLI and agent faces: add imports in this block)
#
#


# --- values the window takes ------------------------------------------------------------
# (issue 35, b35: the window's face.) Loaded on first use (PEP 562, as ``xyclaw.engine``
# does): the window opens before it needs the planner, the specs or the telemetry, and an
# import of this module must not pull them all in (the start-up time is measured).
if TYPE_CHECKING:
    pass

#: Name -> the module that defines it (each a frozen value, an enum, a constant or a pure
#: function of them; ``Catalog.builtin()`` is the bundled, read-only catalogue).
_WINDOW_VALUES = {
    "billed_spans": "xyclaw.billing.meter",
    "cost_so_far": "xyclaw.billing.meter",
    "Catalog": "xyclaw.catalog",
    "JobKind": "xyclaw.jobs.spec",
    "JobSpec": "xyclaw.jobs.spec",
    "SpecWarning": "xyclaw.jobs.specyaml",
    "SETUP_SECONDS": "xyclaw.planner.compute",
    "IB_DAYS": "xyclaw.planner.fabric_model",
    "IB_UTILIZATION": "xyclaw.planner.fabric_model",
    "ROCE_DAYS": "xyclaw.planner.fabric_model",
    "SEED_CARDS": "xyclaw.planner.fabric_model",
    "parse_budget": "xyclaw.planner.parse",
    "describe_request": "xyclaw.planner.report",
    "worded_reasons": "xyclaw.planner.report",
    "side_by_side": "xyclaw.planner.report",
    "starts_text": "xyclaw.planner.report",
    "PlanRequest": "xyclaw.planner.request",
    "RequestError": "xyclaw.planner.request",
    "Task": "xyclaw.planner.request",
    "PlanOption": "xyclaw.planner.result",
    "PlanResult": "xyclaw.planner.result",
    "RejectedOption": "xyclaw.planner.result",
    "size_label": "xyclaw.planner.rules",
    "SetupFacts": "xyclaw.providers.setup_facts",
    "ClusterRecord": "xyclaw.records.clusters",
    "NodeRecord": "xyclaw.records.clusters",
    "JobRecord": "xyclaw.records.jobs",
    "LogLine": "xyclaw.records.jobs",
    "Store": "xyclaw.store",  # as a type: the window is handed the app's store
    "said_of": "xyclaw.store.event_log",
    "Alert": "xyclaw.telemetry.alerts",
    "LiveBuffers": "xyclaw.telemetry.live",
    "NodeLive": "xyclaw.telemetry.live",
    "empty_slots": "xyclaw.telemetry.pack",
    "rule_title": "xyclaw.telemetry.rules",
    "TelemetryService": "xyclaw.telemetry.service",  # as a type: ``engine.telemetry``
}


def __getattr__(name: str) -> Any:
    module = _WINDOW_VALUES.get(name)
    if module is None:
        raise AttributeError(f"module 'xyclaw.engine.values' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


__all__: list[str] = [*_WINDOW_VALUES]
