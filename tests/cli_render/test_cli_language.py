"""The CLI's main messages follow ``[gui] language``: Chinese with zh_CN, English by default.

Each command runs as a user runs it (a subprocess, output in a pipe), on the simulated
cloud; ``--json`` output is the same in both languages.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator

import pytest

from xyclaw.paths import AppPaths
from xyclaw.sim.cloud import launcher

PLAN = ["plan", "--task", "finetune-lora", "--model", "7B", "--gpus", "8"]


def xyclaw(*args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, XYCLAW_SIM_PROVISION_DELAY_S="0", LANG="C.UTF-8")
    env.pop("LC_ALL", None)
    return subprocess.run(
        [sys.executable, "-m", "xyclaw.cli.main", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=180,
        stdin=subprocess.DEVNULL,
    )


@pytest.fixture(autouse=True)
def stop_the_simulated_cloud() -> Iterator[None]:
    yield
    launcher.stop(AppPaths.from_environment().data_dir / "sim")


def set_language(value: str) -> None:
    config = AppPaths.from_environment().config_file
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(f'[gui]\nlanguage = "{value}"\n', encoding="utf-8")


def test_zh_cn_plan_up_clusters_billing_down_speak_chinese() -> None:
    set_language("zh_CN")
    plan = xyclaw(*PLAN)
    assert plan.returncode == 0, plan.stderr
    assert "种规格中有" in plan.stdout and "最便宜的在前" in plan.stdout
    assert "理由: " in plan.stdout and "卡数" in plan.stdout and "why:" not in plan.stdout
    assert "租用其中一个选项：xyclaw up --plan 1 --option 1" in plan.stdout

    refused = xyclaw("up", "--plan", "1", "--option", "1")  # no terminal, no --yes
    assert refused.returncode != 0 and "租用要花钱" in refused.stderr
    assert "每卡时" in refused.stderr and "按秒计费" in refused.stderr  # the quote, in Chinese

    up = xyclaw("up", "--plan", "1", "--option", "1", "--yes")
    assert up.returncode == 0, up.stderr
    assert up.stdout.startswith("集群 1 ") and "  节点 0 " in up.stdout

    clusters = xyclaw("clusters")
    assert clusters.stdout.split()[:4] == ["编号", "名称", "状态", "GPU"], clusters.stdout
    billing = xyclaw("billing")
    assert "本地计费" in billing.stdout and "合计（本地计费）：" in billing.stdout

    down = xyclaw("down", "1")
    assert down.returncode != 0 and "会销毁它的机器" in down.stderr
    down = xyclaw("down", "1", "--yes")
    assert down.returncode == 0 and down.stdout.startswith("集群 1 "), down.stderr
    assert xyclaw("clusters").stdout.strip() == "没有运行中的集群（--all 显示以前的）"

    zh_json = json.loads(xyclaw(*PLAN, "--json").stdout)
    set_language("en")
    en_json = json.loads(xyclaw(*PLAN, "--json").stdout)
    assert zh_json["options"] == en_json["options"]  # --json is never translated


def test_by_default_the_messages_stay_english() -> None:
    plan = xyclaw(*PLAN)
    assert plan.returncode == 0, plan.stderr
    assert "shapes fit (cheapest first)" in plan.stdout and "why:" in plan.stdout
    assert "Rent an option with: xyclaw up --plan 1 --option 1" in plan.stdout
    assert not any("\u4e00" <= ch <= "\u9fff" for ch in plan.stdout)
    assert xyclaw("clusters").stdout.strip() == "no clusters running (use --all for past ones)"
