"""The selection model: memory fit, time from FLOPs, cost, ranked options with reasons.

``plan(PlanRequest.parse(task="finetune-lora", model_size="13B", gpus="8"), Catalog.builtin())``
returns a :class:`PlanResult` whose ``options`` are ranked :class:`PlanOption` objects.
The formulas are in :mod:`xyclaw.planner.memory`, :mod:`xyclaw.planner.compute`,
:mod:`xyclaw.planner.fabric_model` and :mod:`xyclaw.planner.costing`; docs/planner.md
sums them up.
"""

from xyclaw.planner.parse import (
    parse_budget,
    parse_count,
    parse_duration,
    parse_gpu_range,
    parse_size,
)
from xyclaw.planner.ranking import CHECKS, plan
from xyclaw.planner.request import PlanRequest, Precision, RequestError, Task
from xyclaw.planner.result import PlanOption, PlanResult, RejectedOption, pareto_front

__all__ = [
    "CHECKS",
    "PlanOption",
    "PlanRequest",
    "PlanResult",
    "Precision",
    "RejectedOption",
    "RequestError",
    "Task",
    "pareto_front",
    "parse_budget",
    "parse_count",
    "parse_duration",
    "parse_gpu_range",
    "parse_size",
    "plan",
]
