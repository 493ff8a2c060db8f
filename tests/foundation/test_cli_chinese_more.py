"""The command line's last English lines in a Chinese setting (issue 35, c35): what
``xyclaw chat`` prints itself, an offers file's field errors and the guard's own errors; each
in Chinese under ``[gui] language = "zh_CN"`` and as before in English."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest

from tests.foundation.test_cli_chinese import english_runs
from xyclaw.cli.main import main
from xyclaw.paths import AppPaths


def _set_chinese() -> None:
    config = AppPaths.from_environment().config_file
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('[gui]\nlanguage = "zh_CN"\n', encoding="utf-8")


@pytest.fixture
def chinese(xyclaw_home: Path) -> None:
    _set_chinese()


#: A session at `xyclaw chat`'s prompt: the slash commands, wrong ones included, then a
#: rental asked for and its card answered with a! (not rememberable), an edit that is not
#: JSON, one that is not an object, and a no.
_SESSION = [
    "/help",
    "/new",
    "/list",
    "/switch",
    "/switch x",
    "/revoke",
    "/allowances",
    "用8张卡LoRA微调13B模型，预算500元",
    "租第一个",
    "e",
    "not json",
    "e",
    "[1]",
    "r",
]


def _chat(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> str:
    from xyclaw.sim.cloud import launcher

    monkeypatch.setenv("XYCLAW_SIM_PROVISION_DELAY_S", "0")
    monkeypatch.setattr(sys, "stdin", io.StringIO("\n".join(_SESSION) + "\n"))
    try:
        assert main(["chat"]) == 0
    finally:
        launcher.stop(AppPaths.from_environment().data_dir / "sim")
    captured = capsys.readouterr()
    return captured.out + captured.err


def test_chat_s_own_lines_are_chinese(
    chinese: None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    text = _chat(monkeypatch, capsys)
    assert "XyClaw 对话（" in text and "输入 /help 查看命令" in text, text
    assert "你> " in text and "对话 2" in text
    assert "用法：/switch N" in text and "用法：/revoke N" in text
    assert "   1  新对话" in text and "New conversation" not in text  # /list, before the message
    assert "（等待批准）" not in text.split("租第一个")[0]
    assert "批准吗？[a] 批准 / [r] 拒绝 / [e] 修改 > " in text, text
    assert "这不是 JSON；没有改动" in text and "请给出一个 JSON 对象" in text
    assert not english_runs(text), english_runs(text)


def test_chat_s_own_lines_are_unchanged_in_english(
    xyclaw_home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    text = _chat(monkeypatch, capsys)
    assert "), conversation 1. /help for commands." in text and "XyClaw chat (" in text
    assert "you> " in text and "conversation 2" in text and "   1  New conversation" in text
    assert "usage: /switch N" in text and "usage: /revoke N" in text
    assert "approve? [a]pprove / [r]eject / [e]dit > " in text
    assert "that is not JSON; nothing changed" in text and "give a JSON object" in text


def test_chat_s_revoke_interrupt_and_other_cards_are_chinese(
    chinese: None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A card that waits in another conversation, a turn cut short with Ctrl-C, an allowance
    revoked and a! on a card that asks every time."""
    from types import SimpleNamespace

    from xyclaw.agent.runtime import AgentRuntime
    from xyclaw.cli.commands.agent import _read_decision
    from xyclaw.cli.context import CliContext
    from xyclaw.sim.cloud import launcher

    monkeypatch.setenv("XYCLAW_SIM_PROVISION_DELAY_S", "0")
    monkeypatch.setattr(sys.stdout, "isatty", lambda: False)
    try:  # conversation 1 leaves a rental's card waiting
        assert main(["ask", "用8张卡LoRA微调13B模型，预算500元"]) == 0
        assert main(["ask", "--conversation", "1", "租第一个"]) == 3
        capsys.readouterr()

        def interrupted(*_: object, **__: object) -> None:
            raise KeyboardInterrupt

        revoked: list[int] = []
        monkeypatch.setattr(AgentRuntime, "revoke", lambda _self, n: revoked.append(n))
        session = ["/revoke 7", "/switch 1", "r", "/new", "你好"]
        monkeypatch.setattr(sys, "stdin", io.StringIO("\n".join(session) + "\n"))
        real_send = AgentRuntime.send
        sent: list[str] = []

        def send(self: AgentRuntime, cid: int, line: str, printer: object) -> object:
            sent.append(line)
            if line == "你好":
                interrupted()
            return real_send(self, cid, line, printer)  # type: ignore[arg-type]

        monkeypatch.setattr(AgentRuntime, "send", send)
        assert main(["chat"]) == 0
    finally:
        launcher.stop(AppPaths.from_environment().data_dir / "sim")
    text = capsys.readouterr().out
    out = io.StringIO()
    spend = SimpleNamespace(effect="spend", digest="d")
    decision = _read_decision("a!", spend, CliContext(AppPaths.from_environment(), out=out))  # type: ignore[arg-type]
    assert decision.kind == "approve" and not decision.remember
    text += out.getvalue()
    assert revoked == [7] and "已撤销" in text
    assert "（对话 1“" in text and "”里有一张卡片在等待：/switch 1）" in text, text
    assert "（只有命令和调优可以记住；这一项每次都会询问）" in text
    assert "（已中断）" in text
    assert not english_runs(text), english_runs(text)


def test_the_token_line_is_chinese_and_the_english_unchanged(xyclaw_home: Path) -> None:
    """A model's turn (the rules brain spends none): tokens and cost, in each language."""
    from xyclaw.agent.types import TurnResult
    from xyclaw.cli.commands.agent import _Printer
    from xyclaw.cli.context import CliContext

    result = TurnResult(1, "operator", "ok", [], None, 1200, 85, 4300, "CNY")
    out = io.StringIO()
    _Printer(CliContext(AppPaths.from_environment(), out=out), stream=False).finish(result)
    assert "(1200 tokens in, 85 out, 0.0043 CNY)" in out.getvalue()
    _set_chinese()
    out = io.StringIO()
    _Printer(CliContext(AppPaths.from_environment(), out=out), stream=False).finish(result)
    assert "（输入 1200 tokens，输出 85，0.0043 CNY）" in out.getvalue(), out.getvalue()
    assert not english_runs(out.getvalue())


# -- an offers file's field errors (`xyclaw plan --offers`) -------------------------------------
_HEADER = "provider,offer_id,region,gpu,kind,gpus_per_node,nodes,fabric,price_per_gpu_hour,currency"
_PLAN = ["plan", "--task", "finetune-lora", "--model-size", "7B", "--gpus", "8", "--offers"]


@pytest.mark.parametrize(
    ("row", "english", "chinese"),
    [
        ("me,o1,r,A800,node,8,1,none,abc,CNY", "'abc' is not an amount", "'abc' 不是"),
        ("me,o1,r,A800,node,x,1,none,3.5,CNY", "'x' is not a whole number", "'x' 不是"),
        ("me,o1,r,A800,node,8,1,none,,CNY", "is empty; a value is required", "为空"),
        ("me,o1,r,A800,node,8,1,infiniband,3.5,CNY", "'infiniband' is not a fabric", "网络"),
        ("me,o1,r,A800,node,8,1,none,3.5,yuan", "'YUAN' is not a 3-letter code", "货币代码"),
        ("me,o1,r,A800,box,8,1,none,3.5,CNY", "'box' is not one of", "不在可选值"),
        ("me,o1,r,A800,cluster,8,4|2,none,3.5,CNY", "node counts must be increasing", "递增"),
        ("me,o1,r,Z900,node,8,1,none,3.5,CNY", "unknown GPU model 'Z900'", "未知的 GPU 型号"),
        ("me,o1,r,A800,node,8,1,none,3.5", "has 9 values, the header has 10", "表头有 10 个"),
        # a rule across columns (the offer's own invariant), not one field's
        ("me,o1,r,A800,cluster,8,1|2,none,3.5,CNY", "need a fabric other than none", "多节点"),
        ("me,o1,r,A800,node,8,1|2,ib-hdr-200,3.5,CNY", "offer rents exactly one node", "只租一个"),
    ],
)
def test_an_offers_file_s_field_errors_are_chinese_and_the_english_unchanged(
    xyclaw_home: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    row: str,
    english: str,
    chinese: str,
) -> None:
    offers = tmp_path / "offers.csv"
    offers.write_text(f"{_HEADER}\n{row}\n", encoding="utf-8")
    assert main([*_PLAN, str(offers)]) == 2
    said = capsys.readouterr().err
    assert f"{offers}, line 2" in said and english in said, said
    assert "fix that value (the formats are described in docs/planner.md)" in said
    _set_chinese()
    assert main([*_PLAN, str(offers)]) == 2
    said = capsys.readouterr().err
    assert f"{offers} 第 2 行" in said and chinese in said, said
    assert "请改正这个值（格式见 docs/planner.md）" in said
    assert not english_runs(said), english_runs(said)


# -- a config.toml that does not load still says why in its [gui] language ----------------------
def test_a_bad_setting_is_said_in_the_language_the_file_asks_for(
    xyclaw_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = AppPaths.from_environment().config_file
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('[billing]\nidle_release_minutes = "x"\n', encoding="utf-8")
    assert main(["config", "check"]) == 2
    english = capsys.readouterr().err
    assert "billing.idle_release_minutes = 'x' is not valid" in english, english
    config.write_text(
        '[gui]\nlanguage = "zh_CN"\n[billing]\nidle_release_minutes = "x"\n', encoding="utf-8"
    )
    assert main(["config", "check"]) == 2
    chinese = capsys.readouterr().err
    assert chinese.startswith("xyclaw：错误：") and "'x' 无效" in chinese, chinese
    assert not english_runs(chinese), english_runs(chinese)


# -- the Engine's refusals on the simulated cloud ------------------------------------------------
_REFUSALS: list[tuple[list[str], str, str]] = [  # the command, what it says in en, in zh
    (["up", "--plan", "99", "--option", "1", "--yes"], "no plan 99", "没有规划 99"),
    ([*_PLAN[:-1], "--limit", "1"], "", ""),
    (["up", "--plan", "1", "--option", "99", "--yes"], "has options 1 to", "的选项是 1 到"),
    (
        ["up", "--provider", "sim", "--gpu", "A800", "--gpus", "10000", "--yes"],
        "no sim offer has 10000 x A800",
        "sim 没有 10000 x A800 的报价",
    ),
    (
        ["up", "--provider", "sim", "--gpu", "A800", "--gpus", "8", "--region", "Mars", "--yes"],
        "sim has no region 'Mars'",
        "sim 没有地区 'Mars'",
    ),
    (["up", "--plan", "1", "--option", "1", "--yes", "--name", "c1"], "", ""),
    (["sim", "status"], "clusters: 1 running", "集群：1 运行中"),
    (
        ["serve", "resources/examples/plain-python.yaml", "--cluster", "c1"],
        "plain-python is a train job, not a service",
        "plain-python 是 train 作业，不是服务",
    ),
    (["exec", "c1", "--", "echo hi; exit 3"], ": exit 3", "：退出码 3"),
    (["down", "c1", "--yes"], "", ""),
    (["budget", "c1", "5"], "cluster c1 is released", "集群 c1 已释放"),
    (["exec", "c1", "--", "ls"], "has no running nodes", "没有运行中的节点"),
    (
        ["launch", "resources/examples/plain-python.yaml", "--cluster", "c1", "--yes"],
        "cluster c1 is released, not ready",
        "集群 c1 已释放，未就绪",
    ),
    (
        ["metrics", "export", "--job", "99"],
        "no job 99 with a cluster",
        "没有在集群上运行过的作业 99",
    ),
    (
        ["secrets", "set", "hf_token"],
        "refusing to store an empty secret",
        "拒绝为 'hf_token' 保存空的密钥",
    ),
]


@pytest.mark.parametrize("language", ["en", "zh"])
def test_the_engine_s_refusals_are_said_in_each_language(
    xyclaw_home: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    language: str,
) -> None:
    from xyclaw.sim.cloud import launcher

    if language == "zh":
        _set_chinese()
    monkeypatch.setenv("XYCLAW_SIM_PROVISION_DELAY_S", "0")
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))  # an empty secret
    found = {}
    try:
        for command, english, chinese in _REFUSALS:
            code = main(command)
            captured = capsys.readouterr()
            text = captured.out + captured.err
            expected = chinese if language == "zh" else english
            assert (code != 0) == (bool(expected) and command[0] != "sim"), (command, text)
            assert expected in text, (command, text)
            if language == "zh" and english_runs(text):
                found[" ".join(command)] = english_runs(text)
    finally:
        launcher.stop(AppPaths.from_environment().data_dir / "sim")
    assert not found, found


def test_a_dry_run_s_own_notes_are_said_in_each_language(
    xyclaw_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A variable the spec takes from this machine, unset here: how its value is shown and
    the warning that a launch would stop."""
    spec = tmp_path / "envcheck.yaml"
    spec.write_text(
        "name: envcheck\nresources:\n  gpu: A800\n  nodes: 1\n  gpus_per_node: 8\n"
        "run: echo hi\ncheckpoint_dir: /shared/ckpt\nenv:\n  XYC_NOT_SET_ANYWHERE:\n",
        encoding="utf-8",
    )
    assert main(["launch", str(spec), "--dry-run"]) == 0
    english = capsys.readouterr()
    assert "XYC_NOT_SET_ANYWHERE=(from this machine's environment at launch)" in english.out
    assert "not set on this machine, so a launch would stop: XYC_NOT_SET_ANYWHERE" in (
        english.out + english.err
    )
    _set_chinese()
    assert main(["launch", str(spec), "--dry-run"]) == 0
    captured = capsys.readouterr()
    chinese = captured.out + captured.err
    assert "XYC_NOT_SET_ANYWHERE=（启动时取自本机的环境变量）" in chinese, chinese
    assert "本机没有设置，启动会因此停下：XYC_NOT_SET_ANYWHERE" in chinese, chinese
    assert not english_runs(chinese), english_runs(chinese)


# -- a flag's value that is no number ------------------------------------------------------------
@pytest.mark.parametrize(
    ("command", "english", "chinese"),
    [
        (["logs", "1", "--tail", "x"], "'x' is not a whole number", "'x' 不是整数"),
        (
            ["logs", "1", "--tail", "9" * 23],
            f"'{'9' * 23}' is out of range (at most 9,223,372,036,854,775,807)",
            f"'{'9' * 23}' 超出范围（最大 9,223,372,036,854,775,807）",
        ),
        (["up", "--gpus", "x"], "'x' is not a whole number", "'x' 不是整数"),
        (
            ["up", "--gpus", "999999999"],
            "999999999 is more GPUs than XyClaw rents; give 1 to 100,000",
            "999999999 张 GPU 超出了 XyClaw 能租的数量；请给出 1 到 100,000",
        ),
    ],
)
def test_a_flag_s_value_that_is_no_number_is_said_in_each_language(
    xyclaw_home: Path,
    capsys: pytest.CaptureFixture[str],
    command: list[str],
    english: str,
    chinese: str,
) -> None:
    with pytest.raises(SystemExit):
        main(command)
    assert english in capsys.readouterr().err
    _set_chinese()
    with pytest.raises(SystemExit):
        main(command)
    said = capsys.readouterr().err
    assert chinese in said, said
    assert not english_runs(said), english_runs(said)


# -- a paste that is not there; a Slurm site in the providers' table -----------------------------
def test_diagnose_says_a_missing_file_in_each_language(
    xyclaw_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "none.txt"
    assert main(["diagnose", str(missing)]) == 2
    assert f"cannot read {missing}: No such file or directory" in capsys.readouterr().err
    _set_chinese()
    assert main(["diagnose", str(missing)]) == 2
    said = capsys.readouterr().err
    assert f"无法读取 {missing}：没有这个文件或目录" in said, said
    assert not english_runs(said), english_runs(said)


def test_a_slurm_site_s_row_in_providers_is_said_in_each_language(
    xyclaw_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    paths = AppPaths.from_environment()
    paths.config_dir.mkdir(parents=True, exist_ok=True)
    (paths.config_dir / "hosts.toml").write_text(
        '[[slurm]]\nname = "lab"\nlogin = "me@127.0.0.1:1"\n', encoding="utf-8"
    )
    assert main(["providers", "--no-check"]) == 0
    assert f"a Slurm cluster in {paths.config_dir / 'hosts.toml'}" in capsys.readouterr().out
    _set_chinese()
    assert main(["providers", "--no-check"]) == 0
    said = capsys.readouterr().out
    assert f"{paths.config_dir / 'hosts.toml'} 中的 Slurm 集群" in said, said


# -- what is not a XyClaw error: a bug, said with the log and never as a traceback ---------------
def test_an_unexpected_error_is_said_in_each_language(
    xyclaw_home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def broken(self: AppPaths) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(AppPaths, "ensure", broken)
    assert main(["config", "path"]) == 1
    english = capsys.readouterr().err
    assert english.startswith("xyclaw: error: internal error (RuntimeError: boom)\n"), english
    assert "  -> this is a bug in XyClaw: please report it with the log (" in english
    _set_chinese()
    assert main(["config", "path"]) == 1
    said = capsys.readouterr().err
    assert said.startswith("xyclaw：错误：内部错误（RuntimeError：boom）\n"), said
    assert "这是 XyClaw 的缺陷：请附上日志（" in said and "Traceback" not in said
    assert not english_runs(said), english_runs(said)


def test_hosts_add_with_a_bad_value_is_said_in_each_language(
    xyclaw_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    add = ["hosts", "add", "gpu1", "--host", "10.0.0.5", "--port", "99999", "--gpu", "A100-80G"]
    assert main(add) == 2
    english = capsys.readouterr().err
    assert "xyclaw: error: gpu1 (gpu1): port = 99999 is not valid" in english, english
    _set_chinese()
    assert main(add) == 2
    said = capsys.readouterr().err
    assert "gpu1（gpu1）：port = 99999 无效" in said and "1 到 65535 之间的数" in said, said
    assert not english_runs(said), english_runs(said)


def test_plan_json_s_line_for_a_person_is_said_in_each_language(
    xyclaw_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--json keeps stdout for programs; the line on stderr is for a person."""
    plan = [*_PLAN[:-1], "--gpu", "B200", "--provider", "sim", "--json"]
    main(plan)
    assert "xyclaw plan: nothing fits: no offer" in capsys.readouterr().err
    _set_chinese()
    main(plan)
    said = capsys.readouterr().err
    assert said.startswith("xyclaw plan：没有合适的选项：没有报价满足 GPU B200"), said
    assert not english_runs(said), english_runs(said)


def test_a_section_that_is_not_a_table_is_said_in_chinese(
    xyclaw_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = AppPaths.from_environment().config_file
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('billing = 3\n[gui]\nlanguage = "en"\n', encoding="utf-8")
    assert main(["config", "check"]) == 2
    english = capsys.readouterr().err
    assert "billing must be a table ([billing])" in english, english
    config.write_text('billing = 3\n[gui]\nlanguage = "zh_CN"\n', encoding="utf-8")
    assert main(["config", "check"]) == 2
    chinese = capsys.readouterr().err
    assert "billing 必须是一个表（[billing]）" in chinese, chinese
    assert not english_runs(chinese), english_runs(chinese)


def test_the_settings_page_s_writes_say_what_went_wrong_in_chinese(tmp_path: Path) -> None:
    """What Settings shows when a save cannot go through: a setting it does not know, a
    file that is not TOML, one that is not UTF-8; the English as before."""
    from xyclaw.config import write_setting
    from xyclaw.errors import ConfigError

    path = tmp_path / "config.toml"
    cases = [
        ("nosuch.key", "", "unknown setting nosuch.key", "未知的设置 nosuch.key"),
        ("gui.language", "[gui\n", "is not valid TOML", "不是有效的 TOML"),
        ("gui.language", b"\xff\xfe", "is not UTF-8 text; nothing was written", "不是 UTF-8 文本"),
    ]
    for setting, content, english, chinese in cases:
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
        with pytest.raises(ConfigError) as caught:
            write_setting(path, setting, "zh_CN")
        assert english in caught.value.message, caught.value.message
        message, hint = caught.value.in_language("zh")
        assert chinese in message, message
        assert not english_runs(f"{message} {hint or ''}"), (message, hint)


def test_a_host_typed_wrong_is_said_in_chinese(
    xyclaw_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    add = ["hosts", "trust", "root@10.0.0.5:99999"]
    assert main(add) == 2
    english = capsys.readouterr().err
    assert "bad port in 'root@10.0.0.5:99999'" in english, english
    _set_chinese()
    assert main(add) == 2
    chinese = capsys.readouterr().err
    assert "'root@10.0.0.5:99999' 里的端口有误" in chinese and "端口是 1 到 65535" in chinese
    assert not english_runs(chinese), english_runs(chinese)
