"""`xyclaw tune`'s final report in Chinese (issue 35), on simulated RoCE nodes over real SSH."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.foundation.test_cli_chinese import english_runs
from tests.support.simcluster import sim_cluster
from tests.tuning_live.conftest import TIME_SCALE
from xyclaw.cli.main import main
from xyclaw.engine import Engine
from xyclaw.paths import AppPaths

#: What xyclaw.tuning writes in English only: an expectation's basis, a setting's notes.
_CORE_NOTES = ("注：", "预期：")


def _tune_in_chinese(engine: Engine, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    with sim_cluster(engine, tmp_path, nodes=2, fabric="roce-200", nic_count=2) as sc:
        for node in sc.nodes:
            node.machine.time_scale = TIME_SCALE
        engine.exec(sc.name, "echo NCCL_IB_GID_INDEX=9 >> /etc/environment")
        config = AppPaths.from_environment().config_file
        config.parent.mkdir(parents=True, exist_ok=True)
        config.write_text('[gui]\nlanguage = "zh_CN"\n', encoding="utf-8")
        capsys.readouterr()
        assert main(["tune", sc.name]) == 0
        return capsys.readouterr().out


def test_the_tune_report_is_chinese(
    engine: Engine, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = _tune_in_chinese(engine, tmp_path, capsys)
    assert "调优前：" in out and "已修改：" in out and "这个集群上作业使用的环境变量：" in out
    assert "发现：" in out
    framed = [line for line in out.splitlines() if not line.strip().startswith(_CORE_NOTES)]
    assert not english_runs("\n".join(framed)), english_runs("\n".join(framed))


def test_the_tune_notes_are_chinese(
    engine: Engine, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = _tune_in_chinese(engine, tmp_path, capsys)
    assert not english_runs(out), english_runs(out)
