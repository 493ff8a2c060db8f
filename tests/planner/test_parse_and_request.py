from __future__ import annotations

import pytest

from xyclaw.catalog import parse_amount
from xyclaw.planner import (
    PlanRequest,
    Precision,
    RequestError,
    Task,
    parse_budget,
    parse_duration,
    parse_gpu_range,
    parse_size,
)


@pytest.mark.parametrize(
    ("text", "params"),
    [
        ("7B", 7_000_000_000),
        ("13b", 13_000_000_000),
        ("70B", 70_000_000_000),
        ("1.5e9", 1_500_000_000),
        ("350M", 350_000_000),
        ("1.1T", 1_100_000_000_000),
        (" 7 B ", 7_000_000_000),
    ],
)
def test_model_sizes_as_people_write_them(text: str, params: int) -> None:
    assert parse_size(text) == params


@pytest.mark.parametrize("text", ["7X", "", "B", "-7B", "seven", "7", "0B"])
def test_bad_sizes_say_what_was_expected(text: str) -> None:
    with pytest.raises(ValueError, match=r"7B|more than zero"):
        parse_size(text)


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("48h", 172_800), ("2d", 172_800), ("1d12h", 129_600), ("90m", 5_400), ("1.5h", 5_400)],
)
def test_durations(text: str, seconds: int) -> None:
    assert parse_duration(text) == seconds


@pytest.mark.parametrize("text", ["48", "h", "2 days", "-1h", "0h"])
def test_bad_durations(text: str) -> None:
    with pytest.raises(ValueError):
        parse_duration(text)


def test_gpu_ranges() -> None:
    assert parse_gpu_range("8") == (8, 8)
    assert parse_gpu_range("8-32") == (8, 32)
    assert parse_gpu_range("16+") == (16, None)
    for bad in ("32-8", "0", "a", "8-"):
        with pytest.raises(ValueError):
            parse_gpu_range(bad)


def test_budgets_are_exact_micro_units() -> None:
    assert parse_budget("500") == (500_000_000, None)
    assert parse_budget("0.1 CNY") == (100_000, "CNY")
    assert parse_amount("1.9") == 1_900_000
    # 0.1 + 0.2 as floats is not 0.3; as micro-units it is.
    assert parse_amount("0.1") + parse_amount("0.2") == parse_amount("0.3")
    with pytest.raises(ValueError, match="6 decimal"):
        parse_amount("0.0000001")


def test_request_parse_names_the_field_at_fault() -> None:
    cases = {
        "model_size": {"model_size": "7X"},
        "task": {"task": "train"},
        "gpus": {"gpus": "32-8"},
        "deadline": {"deadline": "48"},
        "precision": {"precision": "fp4"},
        "budget": {"budget": "lots"},
        "fabric": {"fabric": "infiniband"},
    }
    for field, change in cases.items():
        kwargs = {"task": "finetune-lora", "model_size": "7B", **change}
        with pytest.raises(RequestError) as info:
            PlanRequest.parse(**kwargs)
        assert info.value.field == field
        assert info.value.exit_code == 2


def test_full_training_cannot_use_int4_but_lora_can() -> None:
    with pytest.raises(RequestError, match="int4"):
        PlanRequest.parse(task="finetune-full", model_size="7B", precision="int4")
    request = PlanRequest.parse(task="finetune-lora", model_size="7B", precision="int4")
    assert request.precision is Precision.INT4


def test_tokens_from_dataset_and_epochs_and_defaults() -> None:
    request = PlanRequest.parse(
        task="finetune-full", model_size="7B", dataset_tokens="300M", epochs="3"
    )
    assert request.training_tokens == 900_000_000
    assert not request.tokens_assumed
    pretrain = PlanRequest(task=Task.PRETRAIN, params=7_000_000_000)
    assert pretrain.training_tokens == 140_000_000_000  # Chinchilla: 20 tokens per parameter
    assert pretrain.tokens_assumed
    with pytest.raises(RequestError):
        PlanRequest.parse(task="finetune-full", model_size="7B", dataset_tokens="300M")


def test_request_normalises_names_and_serialises() -> None:
    request = PlanRequest.parse(
        task="inference",
        model_size="13B",
        gpu="rtx 4090",
        fabric="IB",
        budget="20 cny",
        gpus="1-8",
    )
    assert request.gpu == "RTX4090"
    assert request.fabric == "ib"
    assert request.currency == "CNY"
    data = request.to_json()
    assert data["model_size"] == 13_000_000_000
    assert data["budget"] == 20.0
    assert data["gpus_min"] == 1 and data["gpus_max"] == 8
    assert data["rate_assumed"] is True
