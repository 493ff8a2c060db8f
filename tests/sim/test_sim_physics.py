"""GPU physics: utilization follows the work, power sits between idle and the limit, heat lags."""

from __future__ import annotations

import pytest

from xyclaw.sim.gpu import AMBIENT_C, GpuBoard, Load
from xyclaw.sim.specs import GPU_MODELS


class FakeClock:
    def __init__(self) -> None:
        self.now = 5_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def board() -> tuple[GpuBoard, FakeClock]:
    clock = FakeClock()
    return GpuBoard(GPU_MODELS["H100"], 2, hostname="h", clock=clock), clock


def test_idle_gpu_is_cool_and_near_idle_power(board) -> None:
    gpus, clock = board
    clock.now += 600
    gpus.advance()
    gpu = gpus.gpus[0]
    assert gpu.util == 0
    assert gpu.power_w == pytest.approx(GPU_MODELS["H100"].idle_power_w, rel=0.05)
    assert AMBIENT_C < gpu.temp_c < 40


def test_utilization_follows_the_load_within_a_second(board) -> None:
    gpus, clock = board
    gpus.add_load(0, Load(1, "python3", 95.0, 40000))
    clock.now += 1.5
    gpus.advance()
    assert gpus.gpus[0].util > 90
    assert gpus.gpus[1].util == 0
    assert gpus.gpus[0].memory_used_mib == 40000
    gpus.remove_pid(1)
    clock.now += 1.5
    gpus.advance()
    assert gpus.gpus[0].util < 5
    assert gpus.gpus[0].memory_used_mib == 0


def test_power_between_idle_and_limit_and_temperature_lags(board) -> None:
    gpus, clock = board
    model = GPU_MODELS["H100"]
    gpus.add_load(0, Load(1, "python3", 100.0, 1000, intensity=1.0))
    clock.now += 3
    gpus.advance()
    gpu = gpus.gpus[0]
    hot_power = gpu.power_w
    early_temp = gpu.temp_c
    assert model.idle_power_w < hot_power <= model.power_limit_w
    assert gpu.reasons() & 0x4  # SW power cap at full intensity
    clock.now += 120
    gpus.advance()
    late_temp = gpu.temp_c
    assert late_temp > early_temp + 15  # temperature catches up with power over minutes
    assert late_temp < 80


def test_lower_power_limit_caps_draw(board) -> None:
    gpus, clock = board
    gpus.gpus[0].power_limit_w = 300.0
    gpus.add_load(0, Load(1, "python3", 100.0, 1000, intensity=0.9))
    clock.now += 5
    gpus.advance()
    assert gpus.gpus[0].power_w <= 300.0
    assert gpus.gpus[0].sm_clock() < GPU_MODELS["H100"].sm_clock_max


def test_reset_brings_everything_back(board) -> None:
    gpus, _ = board
    gpus.gpus[1].lost = True
    gpus.gpus[0].thermal_fault = True
    assert [g.index for g in gpus.visible()] == [0]
    gpus.reset()
    assert [g.index for g in gpus.visible()] == [0, 1]
    assert gpus.gpus[0].reasons() == 0x1
