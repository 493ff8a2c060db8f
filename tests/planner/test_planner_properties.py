"""Properties that must hold for any request on the built-in catalog."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from xyclaw.catalog import Catalog
from xyclaw.planner import PlanRequest, Precision, Task, plan
from xyclaw.planner.memory import (
    ModelShape,
    activation_bytes,
    inference_weight_bytes,
    training_state_bytes,
    usable_bytes,
)

CATALOG = Catalog.builtin()
SETTINGS = settings(max_examples=60, deadline=None, derandomize=True)

params = st.integers(min_value=100_000_000, max_value=200_000_000_000)
tokens = st.integers(min_value=1_000_000, max_value=2_000_000_000_000)
budgets = st.integers(min_value=1_000_000, max_value=10**12)  # 1 to 1,000,000 CNY
deadlines = st.integers(min_value=3600, max_value=200 * 86400)
gpu_ranges = st.sampled_from([(1, None), (1, 8), (8, 8), (8, 32), (16, 128), (32, 32), (64, None)])


@st.composite
def requests(draw: st.DrawFn, *, training_only: bool = False) -> PlanRequest:
    task = draw(st.sampled_from([t for t in Task if t.training or not training_only]))
    precision = draw(
        st.sampled_from(
            [Precision.BF16, Precision.FP8]
            if task in (Task.PRETRAIN, Task.FINETUNE_FULL)
            else list(Precision)
        )
    )
    low, high = draw(gpu_ranges)
    return PlanRequest(
        task=task,
        params=draw(params),
        tokens=draw(tokens) if task.training else None,
        precision=precision,
        context=draw(st.sampled_from([1024, 4096, 8192])),
        rate=None if task.training else draw(st.floats(min_value=0.1, max_value=200)),
        gpus_min=low,
        gpus_max=high,
        budget_micro=draw(st.none() | budgets),
        deadline_seconds=draw(st.none() | deadlines),
        fastest=draw(st.booleans()),
    )


@SETTINGS
@given(requests())
def test_a_plan_never_exceeds_the_budget_or_the_deadline(request: PlanRequest) -> None:
    for option in plan(request, CATALOG).options:
        if request.budget_micro is not None:
            assert option.cost_micro <= request.budget_micro
        if request.deadline_seconds is not None and request.task.training:
            assert option.seconds <= request.deadline_seconds
        assert request.gpus_min <= option.gpus <= (request.gpus_max or option.gpus)


@SETTINGS
@given(requests(), st.integers(min_value=1, max_value=10**12))
def test_more_budget_never_removes_an_option(request: PlanRequest, extra: int) -> None:
    tight = request.replace(budget_micro=request.budget_micro or 1_000_000)
    loose = tight.replace(budget_micro=tight.budget_micro + extra)
    before = {o.key for o in plan(tight, CATALOG).options}
    after = {o.key for o in plan(loose, CATALOG).options}
    assert before <= after
    assert before <= {o.key for o in plan(tight.replace(budget_micro=None), CATALOG).options}


@SETTINGS
@given(requests(training_only=True), st.integers(min_value=1, max_value=10**12))
def test_more_tokens_never_shortens_the_time(request: PlanRequest, extra: int) -> None:
    free = request.replace(budget_micro=None, deadline_seconds=None)
    fewer = {o.key: o.seconds for o in plan(free, CATALOG).options}
    more = {
        o.key: o.seconds for o in plan(free.replace(tokens=free.tokens + extra), CATALOG).options
    }
    assert fewer.keys() == more.keys()  # memory does not depend on tokens
    for key, seconds in fewer.items():
        assert more[key] >= seconds


@SETTINGS
@given(requests())
def test_no_option_places_a_model_on_gpus_that_cannot_hold_it(request: PlanRequest) -> None:
    shape = ModelShape.from_params(request.params)
    for option in plan(request, CATALOG).options:
        gpu = CATALOG.gpu(option.gpu)
        usable = usable_bytes(gpu.memory_bytes)
        assert option.memory_per_gpu_bytes <= option.memory_usable_bytes <= gpu.memory_bytes
        if request.task.training:
            # Recomputed from the formula, independently of what the option reports.
            state = training_state_bytes(request.task, request.precision, request.params)
            assert state / option.gpus + activation_bytes(shape, request.context) <= usable
        else:
            # At least the weights, split over one replica's GPUs inside one node.
            assert option.tensor_parallel <= option.gpus_per_node
            weights = inference_weight_bytes(request.precision, request.params)
            assert weights / option.tensor_parallel <= usable
            assert option.capacity_rps >= request.target_rate
