"""The value types the faces (CLI, window, agents) take from the core, in one public module.

A face imports the Engine and this module, never a part (``planner``, ``jobs``,
``telemetry`` ...): so a part can change its insides without breaking a face, and what the
CLI shows cannot drift from what the window and the agents show. Each name here is the
part's own class, re-exported unchanged; a face that needs behaviour, not a value, asks the
Engine for it.
"""

from __future__ import annotations

import importlib
from typing import Any

# Every name is loaded on first use (PEP 562, as ``xyclaw.engine``'s own names): the window
# opens before it needs the planner, the specs or the telemetry, a command that needs one
# name does not import every part, and an import of this module pulls none of them in
# (the start-up time is measured). ``Store`` is the history database's handle, which a face
# opens with ``Engine.open_store`` or is handed, and only passes on.

# --- values the CLI and the agents take (issue 35, a35) ----------------------------------
_CLI_AND_AGENTS = {
    "ClusterRecord": "xyclaw.records",
    "CommandResult": "xyclaw.remote.result",
    "GuardStatus": "xyclaw.billing.guard_process",
    "Holder": "xyclaw.billing.guard_process",
    "JobRecord": "xyclaw.records.jobs",
    "KnownKey": "xyclaw.remote.known_hosts",
    "LaunchNeedsApproval": "xyclaw.jobs.errors",
    "LogAnalysis": "xyclaw.tuning.analyze",
    "Measurement": "xyclaw.tuning.service",
    "MID_MODEL_MIN": "xyclaw.planner.rules",
    "MOST_GPUS": "xyclaw.planner.parse",
    "OwnHost": "xyclaw.providers.own_hosts",
    "PlanOption": "xyclaw.planner.result",
    "PlanRequest": "xyclaw.planner.request",
    "PlanResult": "xyclaw.planner.result",
    "RejectedOption": "xyclaw.planner.result",
    "RequestError": "xyclaw.planner.request",
    "SMALL_MODEL_MAX": "xyclaw.planner.rules",
    "Store": "xyclaw.store",
    "TrustNewHost": "xyclaw.remote.known_hosts",
    "TuneResult": "xyclaw.tuning.service",
    "Verdict": "xyclaw.tuning.verdict",
}


# --- values the window takes (issue 35, b35) ---------------------------------------------
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


#: Every name of both tables (a name both take is one value, from one module).
_WHERE = {**_CLI_AND_AGENTS, **_WINDOW_VALUES}


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'xyclaw.engine.values' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


__all__: list[str] = [*_WHERE]
