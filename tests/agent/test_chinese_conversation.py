"""A whole conversation in Chinese through `xyclaw ask`: every reply and card is Chinese.

Brand names, GPU models, units, cluster names and commands may stay as they are; an
English sentence may not. The check: no run of three or more English words outside
Markdown code spans (the engine's own error text is quoted in one).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

import pytest

from xyclaw.agent.rules.texts import reason_text
from xyclaw.cli.main import main
from xyclaw.paths import AppPaths
from xyclaw.sim.cloud import launcher
from xyclaw.wording.catalogue import CATALOGUE

_CODE = re.compile(r"``.*?``|`[^`]*`", re.S)
_WORD = r"[A-Za-z][A-Za-z'’]*(?![\w.-])"
_ENGLISH_RUN = re.compile(rf"(?<![\w.-]){_WORD}(?:[ ,]+{_WORD}){{2,}}")


def english_runs(text: str) -> list[str]:
    return _ENGLISH_RUN.findall(_CODE.sub(" ", text))


@pytest.fixture
def cli(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("XYCLAW_SIM_PROVISION_DELAY_S", "0")
    yield
    launcher.stop(AppPaths.from_environment().data_dir / "sim")


def ask(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, dict]:
    """One turn as a person reads it, then the same conversation's state as JSON."""
    code = main(["ask", *args])
    captured = capsys.readouterr()
    return code, captured.out + captured.err, {}


def ask_json(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict]:
    code = main(["ask", "--json", *args])
    return code, json.loads(capsys.readouterr().out)


def test_the_checker_finds_an_english_sentence_and_passes_names_and_commands() -> None:
    assert english_runs("cluster_health 失败：the cluster is released")
    assert english_runs("选项 1 的理由：one node: NVLink only, no inter-node network")
    assert not english_runs("租用 8 张 A100-40G（单机），每小时 23.20 CNY，sim/Yinchuan")
    assert not english_runs("原文：`no job '3' was found here` 和 `` `xyclaw jobs --all` lists ``")


def test_a_chinese_conversation_plan_rent_approve_release_cost_is_all_chinese(
    cli: None, capsys: pytest.CaptureFixture[str]
) -> None:
    code, plan = ask_json(capsys, "用8张卡LoRA微调13B模型，预算500元")
    assert code == 0 and plan["agent"] == "planner"
    cid = str(plan["conversation"])
    texts = [plan["reply"]]
    assert "选项 1 的理由" in plan["reply"]

    code, out, _ = ask(capsys, "--conversation", cid, "租第一个")
    assert code == 3, out
    texts.append(out)
    assert "需要你批准" in out and "预计总价" in out
    code, rent = ask_json(capsys, "--conversation", cid, "--reject")
    assert [c["status"] for c in rent["tool_calls"]] == ["rejected"]
    texts.append(rent["reply"])

    code, rent = ask_json(capsys, "--conversation", cid, "租第一个")
    card = rent["pending_approval"]
    assert code == 3 and card["language"] == "zh" and card["effect"] == "spend"
    texts += [card["title"], *[str(v) for k, v in card["details"].items() if k != "quote"]]
    code, out, _ = ask(capsys, "--conversation", cid, "--approve", card["card"])
    assert code == 0, out
    assert "已租用" in out
    texts.append(out)

    code, out, _ = ask(capsys, "--conversation", cid, "释放全部")
    assert code == 3 and "停止计费" in out, out
    texts.append(out)
    # the terminal's card names itself (卡片 <id>): a yes names it back
    shown = out.split("卡片 ", 1)[1][:8]
    code, out, _ = ask(capsys, "--conversation", cid, "--approve", shown)
    assert code == 0 and "已释放" in out, out
    texts.append(out)

    for request in ("今天花了多少", "看任务3的日志", "集群状态"):
        code, out, _ = ask(capsys, "--conversation", cid, request)
        texts.append(out)
    assert "失败" in texts[-2]  # there is no job 3: the failure is worded in Chinese too

    found = {text: english_runs(text) for text in texts if english_runs(text)}
    assert not found, found


def test_every_card_text_and_planner_reason_has_a_chinese_form() -> None:
    for key, (en, zh) in CATALOGUE.items():
        if key.startswith(("agent.card_", "agent.rules.card_")) and key not in (
            "agent.card_fabric",
            "agent.card_one_node",
        ):
            assert zh != en and any("\u4e00" <= ch <= "\u9fff" for ch in zh), key
    labels = [zh for key, (_, zh) in CATALOGUE.items() if key.startswith("agent.label.")]
    assert len(labels) >= 20
    assert all(any("\u4e00" <= ch <= "\u9fff" for ch in zh) for zh in labels)
    reason = {
        "rule": "single-node",
        "text": "one node: NVLink only, no inter-node network",
        "figures": {"link": "NVLink"},
    }
    assert reason_text(reason, "en") == reason["text"]
    chinese = CATALOGUE["plan.reason.single-node"][1]
    assert reason_text(reason, "zh") == chinese.format(link="NVLink")
    # a plan stored before reasons carried figures keeps its own text rather than failing
    assert reason_text({"rule": "time", "text": "old text"}, "zh") == "old text"
