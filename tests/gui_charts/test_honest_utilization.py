"""The Monitor shows nvidia-smi's utilization beside DCGM's SM, tensor pipe and DRAM
activity (issue 34): a busy loop reads 100% with idle SMs; nodes without DCGM say what
stands in. In both languages."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from tests.gui_charts.conftest import NOW, Clock, Fleet
from xyclaw.gui.monitor_page import MonitorPage
from xyclaw.store.samples import empty_dcgm_records

pytestmark = pytest.mark.gui


def _dcgm(fleet: Fleet, index: int, sm: int, tensor: int, dram: int) -> None:
    rec = empty_dcgm_records(fleet.gpus)
    rec["sm_active"], rec["tensor_active"], rec["dram_active"] = sm, tensor, dram
    fleet.live.get(1, fleet.node_id(index)).add_dcgm(int(NOW * 1000), rec)


def _shown(page: MonitorPage) -> str:
    page.tick()
    page._refresh_slow(page.source, page.source.snapshot(1), NOW)  # type: ignore[arg-type]
    return page.honest.text()


def test_a_busy_loop_reads_full_utilization_beside_idle_sms(
    make_page: Callable[..., MonitorPage],
) -> None:
    fleet = Fleet()
    fleet.fill(5, lambda node, gpu, t: 100)
    _dcgm(fleet, 0, sm=20, tensor=0, dram=8)
    _dcgm(fleet, 1, sm=40, tensor=0, dram=12)
    page = make_page(fleet, Clock(NOW))
    text = _shown(page)
    assert "GPU utilization 100% (nvidia-smi)" in text
    assert "SM active 3% · tensor pipe 0% · DRAM 1% (DCGM)" in text
    assert "without DCGM" not in text


def test_nodes_without_dcgm_say_the_power_stands_in(
    make_page: Callable[..., MonitorPage],
) -> None:
    fleet = Fleet()
    fleet.fill(5, lambda node, gpu, t: 97)
    page = make_page(fleet, Clock(NOW))
    assert "no DCGM on these nodes" in _shown(page)
    _dcgm(fleet, 1, sm=800, tensor=450, dram=300)
    text = _shown(page)
    assert "SM active 80% · tensor pipe 45%" in text and "1 of 2 nodes without DCGM" in text
    assert np.isclose(float(text.split("GPU utilization ")[1].split("%")[0]), 97)


def test_the_line_reads_in_chinese(make_page: Callable[..., MonitorPage]) -> None:
    from xyclaw.gui import i18n

    fleet = Fleet()
    fleet.fill(5, lambda node, gpu, t: 100)
    _dcgm(fleet, 0, sm=20, tensor=0, dram=8)
    try:
        assert i18n.install("zh_CN") == "zh_CN"
        page = make_page(fleet, Clock(NOW))
        text = _shown(page)
        assert "GPU 利用率 100%（nvidia-smi）" in text
        assert "SM 活跃 2% · 张量管线 0% · 显存带宽 1%（DCGM）" in text
        assert "2 个节点中有 1 个没有 DCGM" in text
    finally:
        i18n.install("en")
