"""The value types the faces (CLI, window, agents) take from the core, in one public module.

A face imports the Engine and this module, never a part (``planner``, ``jobs``,
``telemetry`` ...): so a part can change its insides without breaking a face, and what the
CLI shows cannot drift from what the window and the agents show. Each name here is the
part's own class, re-exported unchanged; a face that needs behaviour, not a value, asks the
Engine for it.
"""

from __future__ import annotations

# --- values the CLI and the agents take -------------------------------------------------
#
# (issue 35, the CLI and agent faces: add imports in this block)
#
# Loaded on first use (PEP 562, as xyclaw.engine's own names): a command that needs one
# name does not import every part. ``Store`` is the history database's handle, which a
# face opens with ``Engine.open_store`` and only passes on (to the Engine, to the agents).
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    pass

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


def __getattr__(name: str) -> Any:
    import importlib

    module = _CLI_AND_AGENTS.get(name)
    if module is None:
        raise AttributeError(f"module 'xyclaw.engine.values' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


# --- values the window takes ------------------------------------------------------------
#
# (issue 35, the window's face: add imports in this block)
#
#


__all__: list[str] = [*_CLI_AND_AGENTS]
