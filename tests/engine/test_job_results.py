"""Cost per result and MFU of three recorded jobs against a hand calculation (issue 36).

The jobs (tests/support/result_history.py) are written into the data folder's real SQLite
file through the store's API, as the job runner records them; the engine reads them back.
Every expected figure below is worked out by hand from the recorded facts.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.result_history import write_jobs
from xyclaw.catalog import Catalog
from xyclaw.config import load_config
from xyclaw.engine import Engine
from xyclaw.engine.compose import build_engine
from xyclaw.paths import AppPaths
from xyclaw.providers import ProviderRegistry
from xyclaw.providers.memory import MemoryCloud, MemoryProvider

A800_BF16 = 312e12  # dense BF16 FLOP/s of one A800, as its spec sheet says
CNY_PER_HOUR = 8 * 3.5  # 8 cards at 3.50 per card-hour


@pytest.fixture
def engine() -> Iterator[Engine]:
    paths = AppPaths.from_environment()
    paths.database.parent.mkdir(parents=True, exist_ok=True)
    write_jobs(paths.database)
    registry = ProviderRegistry()
    registry.add(MemoryProvider(MemoryCloud([])))
    eng = build_engine(paths, load_config(paths.config_file), providers=registry)
    yield eng
    eng.close()


def within_1pct(value: float | None, expected: float) -> bool:
    return value is not None and value == pytest.approx(expected, rel=0.01)


def test_the_catalog_has_the_a800s_spec_sheet_peak() -> None:
    assert Catalog.builtin().gpu("A800").bf16_tflops * 1e12 == A800_BF16


def test_full_training_lora_and_a_service_match_the_hand_calculation(engine: Engine) -> None:
    results = {r.name: r for r in engine.job_results()}

    full = results["full-7b"]
    cost = CNY_PER_HOUR * 1.0  # one attempt of an hour: 28 CNY
    tokens = 50 * 60 * 20_000  # 50 intervals of 60 s at 20,000 tokens/s: 60M
    assert within_1pct(full.cost_micros / 1e6, cost)
    assert within_1pct(full.tokens, tokens)
    assert within_1pct(full.cost_per_m_tokens_micros / 1e6, cost / (tokens / 1e6))  # 0.467
    assert within_1pct(full.cost_per_epoch_micros / 1e6, cost / 1.0)
    mfu = 6 * 7e9 * tokens / (3000 * 8 * A800_BF16)  # 6N per token: 0.337
    assert within_1pct(full.mfu, mfu) and full.method == "full"

    lora = results["lora-13b"]
    cost = CNY_PER_HOUR * (1200 + 2400) / 3600  # both attempts' node time: 28 CNY
    # attempt 1: 10,000 -> 14,000 tokens/s over 1,000 s (mean 12,000); attempt 2: 12,000
    # over 2,000 s; the gap between the attempts counts no tokens
    tokens = 12_000 * 1000 + 12_000 * 2000  # 36M
    assert within_1pct(lora.cost_micros / 1e6, cost)
    assert within_1pct(lora.tokens, tokens)
    assert within_1pct(lora.cost_per_m_tokens_micros / 1e6, cost / (tokens / 1e6))  # 0.778
    assert within_1pct(lora.cost_per_epoch_micros / 1e6, cost / 2.0)
    mfu = 4 * 13e9 * tokens / (3000 * 8 * A800_BF16)  # 4N per token for LoRA: 0.25
    assert within_1pct(lora.mfu, mfu) and lora.method == "lora"

    serve = results["serve-7b"]
    cost = CNY_PER_HOUR * 2  # two hours: 56 CNY
    assert within_1pct(serve.cost_micros / 1e6, cost)
    assert serve.requests == 90_000
    assert within_1pct(serve.cost_per_1k_requests_micros / 1e6, cost / 90)  # 0.622
    assert serve.mfu is None and serve.cost_per_m_tokens_micros is None


def test_per_provider_and_gpu_model_over_time(engine: Engine) -> None:
    (trend,) = engine.result_trends()
    assert (trend.provider, trend.gpu, trend.month, trend.jobs) == ("memory", "A800", "2026-04", 3)
    assert within_1pct(trend.cost_per_m_tokens_micros / 1e6, (28 + 28) / 96)  # 0.583 CNY/M
    assert within_1pct(trend.cost_per_1k_requests_micros / 1e6, 56 / 90)
    full_mfu = 6 * 7e9 * 60e6 / (3000 * 8 * A800_BF16)
    lora_mfu = 4 * 13e9 * 36e6 / (3000 * 8 * A800_BF16)
    assert within_1pct(trend.mfu, (full_mfu * 60 + lora_mfu * 36) / 96)  # weighted by tokens


def test_one_job_by_name_and_the_model_read_from_its_spec(
    engine: Engine,
) -> None:
    (one,) = engine.job_results("full-7b")
    assert one.name == "full-7b" and one.to_json()["mfu"] == pytest.approx(one.mfu)
    from xyclaw.jobs.results import basis

    assert basis('{"env": {}}') == (None, None)
    assert basis('{"env": {"XYCLAW_MODEL_PARAMS": "1.5e9", "XYCLAW_TRAINING": "QLoRA"}}') == (
        1.5e9,
        "lora",
    )


def test_xyclaw_jobs_results_prints_each_job_and_each_provider_by_month(
    capsys: pytest.CaptureFixture[str],
) -> None:
    import json

    from xyclaw.cli.main import main

    paths = AppPaths.from_environment()
    paths.database.parent.mkdir(parents=True, exist_ok=True)
    write_jobs(paths.database)
    assert main(["jobs", "results"]) == 0
    lines = capsys.readouterr().out.splitlines()
    full = next(line for line in lines if " full-7b " in line)
    assert "full" in full and "8 x A800" in full and "0.47" in full and "33.7%" in full
    serve = next(line for line in lines if " serve-7b " in line)
    assert "/ 1k requests" in serve
    trend = next(line for line in lines if line.startswith("2026-04"))
    assert trend.split()[1:4] == ["memory", "A800", "3"] and "30.4%" in trend
    assert main(["jobs", "results", "lora-13b", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    (lora,) = data["jobs"]
    assert lora["method"] == "lora" and within_1pct(lora["mfu"], 0.25)
