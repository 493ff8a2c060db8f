"""The command line in Chinese: every command's --help and a representative run of commands
that need no cloud, with ``[gui] language = "zh_CN"``, leave no run of three English words.

The word check (no word list is installed on this machine, so a documented heuristic):
a word is a run of two or more ASCII letters standing alone (not part of an identifier
such as ``ib-hdr-200``, ``lambda_api_key`` or ``config.toml``), in small letters (a word in
capitals is a metavar, ``NAME``, ``GPU``; one with a capital first letter a name, ``Xiamen``,
``Claude Code``), not inside backticks (a command), not after ``-``/``--`` (an option), not in
a path, and not one of the names, units and commands in :data:`ALLOWED` or the CLI's own
command words; a finding is three or more such words in a row, with only
spaces or commas between them.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

import pytest

from xyclaw.cli.main import build_parser, main
from xyclaw.paths import AppPaths

#: Names, units and file formats a Chinese user reads as they are.
ALLOWED = {
    "xyclaw", "nccl", "csv", "json", "ssh", "llm", "api", "url", "cny", "usd", "gpu", "gpus",
    "mib", "gib", "gb", "mb", "ms", "rdma", "roce", "ib", "nvlink", "pcie", "sim", "local",
    "lambda", "autodl", "vast", "ai", "runpod", "nvitop", "sbatch", "scancel", "slurm",
    "skypilot", "yaml", "toml", "stdio",
    "stdin", "stdout", "stderr", "sigkill", "ctrl", "include", "info", "uuid", "iso",
    "deepseek", "openai", "qwen", "moonshot", "zhipu", "siliconflow", "custom", "mcp", "all",
    "reduce", "perf", "pytorch", "none", "hosts", "xiamen", "yinchuan", "ulanqab", "ibstat",
    "dmesg", "nvidia", "smi", "tokens", "token", "mfu", "eta", "loss", "pending", "util",
    "bf", "fp", "int", "lora", "usage", "keyring", "sqlite", "pid", "hca", "hcas", "gid",
    "pretrain", "finetune", "full", "inference", "epochs", "rate", "rank", "batch", "tcp",
    "eth", "flops", "kv", "req", "ok", "http", "https", "id", "gdr",
    "ollama", "vllm", "lmstudio",  # presets, beside deepseek and qwen (a35)
}  # fmt: skip

_SKIP = re.compile(r"`[^`]*`|(?<![\w-])--?[A-Za-z][\w-]*|\S*[/\\]\S*|https?://\S+")
_WORD = r"(?<![\w@-])(?<!\w[.:])[A-Za-z]{2,}(?![\w@-])(?![.:]\w)"


def _command_words() -> set[str]:
    words: set[str] = set()
    stack = [build_parser(None)]
    while stack:
        parser = stack.pop()
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, child in action.choices.items():
                    words.update(w.lower() for w in re.split(r"[-_ ]", name) if w)
                    stack.append(child)
    return words


_ALLOWED_NOW = ALLOWED | _command_words()


def _is_word(token: str) -> bool:
    return token.islower() and token not in _ALLOWED_NOW


def english_runs(text: str) -> list[str]:
    """Runs of three or more English words in ``text`` (see the module's docstring)."""
    found = []
    for line in _SKIP.sub(" \0 ", text).splitlines():
        run: list[str] = []
        for piece in re.split(r"(" + _WORD + r")", line):
            if re.fullmatch(_WORD, piece) and _is_word(piece):
                run.append(piece)
            elif piece and not re.fullmatch(r"[ ,]*", piece):
                if len(run) >= 3:
                    found.append(" ".join(run))
                run = []
        if len(run) >= 3:
            found.append(" ".join(run))
    return found


def test_the_checker_finds_english_and_passes_names_commands_and_identifiers() -> None:
    assert english_runs("集群：the cluster is released")
    assert english_runs("  --gpu GPU            the model of the card")
    assert english_runs("  peak bus bandwidth:    184.93 GB/s")
    assert not english_runs("用法：xyclaw hosts add [-h] --gpu GPU NAME")
    assert not english_runs("网络：ib-hdr-200，价格 3.20 CNY/GPU-h，lambda_api_key 已设置")
    assert not english_runs("运行 `xyclaw hosts add NAME --gpu G` 添加一台")
    assert not english_runs("Claude Code、Codex 提供 Model Context Protocol 服务")


@pytest.fixture
def chinese(xyclaw_home: Path) -> Path:
    config = AppPaths.from_environment().config_file
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('[gui]\nlanguage = "zh_CN"\n', encoding="utf-8")
    return config


def _every_command() -> list[list[str]]:
    commands: list[list[str]] = [[]]
    stack: list[tuple[list[str], argparse.ArgumentParser]] = [([], build_parser(None))]
    while stack:
        path, parser = stack.pop()
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, child in dict(action.choices).items():
                    commands.append([*path, name])
                    stack.append(([*path, name], child))
    return sorted(commands)


@pytest.mark.parametrize("command", _every_command(), ids=lambda c: " ".join(c) or "xyclaw")
def test_every_help_is_chinese(
    chinese: Path, command: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as done:
        main([*command, "--help"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    assert "用法：" in out and "选项" in out
    assert not english_runs(out), english_runs(out)


def test_argparse_errors_are_chinese(chinese: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["hosts", "add"])
    err = capsys.readouterr().err
    assert "错误" in err and "缺少以下参数" in err, err
    assert not english_runs(err), english_runs(err)


def test_a_run_in_english_is_unchanged(
    xyclaw_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        main(["hosts", "--help"])
    out = capsys.readouterr().out
    assert out.startswith("usage: xyclaw hosts") and "show this help message and exit" in out


#: A representative run of each command that needs no cloud, no host and no key.
RUNS = [
    ["doctor"],
    ["config", "path"],
    ["config", "show"],
    ["config", "check"],
    ["db", "info"],
    ["hosts", "list"],
    ["guard", "status"],
    ["secrets", "list"],
    ["providers", "--no-check"],
    ["sim", "status"],
    ["clusters"],
    ["jobs"],
    ["billing"],
]


@pytest.mark.parametrize("command", RUNS, ids=lambda c: " ".join(c))
def test_a_representative_run_is_chinese(
    chinese: Path, command: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    main(command)
    captured = capsys.readouterr()
    text = captured.out + captured.err
    assert text.strip(), "the command printed nothing"
    assert not english_runs(text), english_runs(text)


#: What xyclaw.tuning itself writes in English only (a verdict's and a log analysis's notes,
#: an expectation's basis): the CLI shows them after "注：" / "预期：".
_CORE_NOTES = ("注：", "预期：")


def _nccl_analyze(capsys: pytest.CaptureFixture[str]) -> str:
    log = Path(__file__).parents[1] / "tuning" / "fixtures" / "nccl_allreduce_2node_16gpu_ib.txt"
    main(["nccl", "analyze", str(log), "--fabric", "ib-hdr-200"])
    captured = capsys.readouterr()
    return captured.out + captured.err


def test_nccl_analyze_is_chinese(chinese: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = _nccl_analyze(capsys)
    assert "结论：健康" in text and "峰值总线带宽" in text
    framed = [line for line in text.splitlines() if not line.strip().startswith(_CORE_NOTES)]
    assert not english_runs("\n".join(framed)), english_runs("\n".join(framed))


def test_nccl_analyze_notes_are_chinese(chinese: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = _nccl_analyze(capsys)
    assert not english_runs(text), english_runs(text)


def test_the_analysis_notes_are_chinese_and_the_english_unchanged(
    xyclaw_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A log judged without --fabric and with a --nodes the log disagrees with: the analysis's
    own notes (not the verdict's), in each language (issue 35, d35)."""
    log = Path(__file__).parents[1] / "tuning" / "fixtures" / "nccl_allreduce_2node_16gpu_ib.txt"
    main(["nccl", "analyze", str(log), "--nodes", "3"])
    english = capsys.readouterr().out
    assert "note: the log's ranks run on 2 host name(s); --nodes 3 is used" in english
    assert "note: pass --fabric (e.g. ib-hdr-200, roce-100) to judge it" in english
    config = AppPaths.from_environment().config_file
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('[gui]\nlanguage = "zh_CN"\n', encoding="utf-8")
    main(["nccl", "analyze", str(log), "--nodes", "3"])
    chinese = capsys.readouterr().out
    assert "注：日志中的 rank 运行在 2 个主机名上；按 --nodes 3 计算" in chinese
    assert "注：传入 --fabric" in chinese
    assert not english_runs(chinese), english_runs(chinese)


def test_doctor_json_stays_english_in_a_chinese_setting(
    chinese: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--json is for programs: its texts keep the English a Chinese run words (d35)."""
    main(["doctor", "--json"])
    report = json.loads(capsys.readouterr().out)
    llm = next(c for c in report["checks"] if c["name"] == "llm")
    assert llm["detail"] == "built-in rules brain (no LLM endpoint set)"
    assert report["next"][0].startswith("your own GPU machine over SSH: ")
    main(["doctor"])
    out = capsys.readouterr().out
    assert "内置规则大脑（没有设置 LLM 端点）" in out and "通过 SSH 使用你自己的 GPU 机器" in out


def test_hosts_add_list_and_forget_are_chinese(
    chinese: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    add = ["hosts", "add", "gpu1", "--host", "10.0.0.5", "--user", "root", "--gpu", "A100-80G"]
    for command in (add, ["hosts", "list"], ["hosts", "forget", "gpu1"]):
        assert main(command) == 0, command
        captured = capsys.readouterr()
        text = captured.out + captured.err
        assert re.search("[\u4e00-\u9fff]", text), text
        assert not english_runs(text), (command, english_runs(text))


def test_a_rental_on_the_simulated_cloud_is_chinese(
    chinese: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """plan, offers, up, clusters, exec, billing, budget and down, as a person reads them."""
    from xyclaw.sim.cloud import launcher

    monkeypatch.setenv("XYCLAW_SIM_PROVISION_DELAY_S", "0")
    walk = [
        ["plan", "--task", "finetune-lora", "--model-size", "7B", "--gpus", "8", "--limit", "2"],
        ["offers", "--gpu", "A800"],
        ["up", "--plan", "1", "--option", "1", "--yes", "--name", "c1"],
        ["clusters"],
        ["exec", "c1", "--", "echo", "hi"],
        ["billing"],
        ["top", "c1", "--once", "--wait", "5"],
        ["budget", "c1", "50"],
        ["down", "c1", "--yes"],
        ["clusters", "--all"],
    ]
    found = {}
    try:
        for command in walk:
            code = main(command)
            assert code == 0 or (command[0] == "top" and code == 1), command  # 1: no sample yet
            captured = capsys.readouterr()
            text = captured.out + captured.err
            if english_runs(text):
                found[" ".join(command)] = english_runs(text)
    finally:
        launcher.stop(AppPaths.from_environment().data_dir / "sim")
    assert "已释放" in text
    assert not found, found


def test_a_job_on_the_simulated_cloud_is_chinese(
    chinese: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """launch (a dry run of a bundled sample, then that sample cut short), jobs show, results,
    why, logs, metrics export and ssh-config on one simulated cluster, as a person reads them
    (issue 35, e35). What is data is not checked: a job's log lines (the job's own text) and
    the CSV that metrics export writes to stdout; the lines for a person go to stderr."""
    from xyclaw.sim.cloud import launcher

    monkeypatch.setenv("XYCLAW_SIM_PROVISION_DELAY_S", "0")
    examples = Path(__file__).parents[2] / "resources" / "examples"
    short = tmp_path / "plain-python-short.yaml"
    short.write_text(  # the sample, 20 steps instead of 200: seconds, not a quarter minute
        (examples / "plain-python.yaml")
        .read_text(encoding="utf-8")
        .replace("--max_steps 200", "--max_steps 20")
        .replace("workdir: plain", f"workdir: {examples / 'plain'}"),
        encoding="utf-8",
    )
    walk: list[tuple[list[str], int, bool]] = [  # the command, its exit code, stdout is data
        (["plan", "--task", "finetune-lora", "--model-size", "7B", "--gpus", "8"], 0, False),
        (["up", "--plan", "1", "--option", "1", "--yes", "--name", "c1"], 0, False),
        (["launch", "plain-python", "--cluster", "c1", "--dry-run"], 0, False),
        (["launch", str(short), "--cluster", "c1", "--yes"], 0, True),
        (["jobs", "show", "1"], 0, False),
        (["jobs", "results"], 0, False),
        (["jobs", "why", "1"], 2, False),  # finished, no hang recorded: said as an error
        (["logs", "1", "--tail", "5"], 0, True),
        (["metrics", "export", "--cluster", "c1", "--format", "csv"], 0, True),
        (["ssh-config"], 0, False),
    ]
    found = {}
    said = {}
    try:
        for command, expected, data in walk:
            code = main(command)
            captured = capsys.readouterr()
            assert code == expected, (command, captured.out + captured.err)
            text = captured.err if data else captured.out + captured.err
            said[" ".join(command[:2])] = text
            if english_runs(text):
                found[" ".join(command)] = english_runs(text)
        main(["down", "c1", "--yes"])
        capsys.readouterr()
    finally:
        launcher.stop(AppPaths.from_environment().data_dir / "sim")
    assert "作业 1 plain-python" in said["jobs show"] and "预计剩余：已完成" in said["jobs show"]
    assert "没有记录过它的卡住" in said["jobs why"]
    assert "状态为 成功" in said["jobs why"]  # the jobs table's word for its state (a35)
    assert "没有保存 gpu 样本" in said["metrics export"] or not said["metrics export"]
    assert "ssh c1-0" in said["ssh-config"] and "尚未包含" in said["ssh-config"]
    assert not found, found


def test_ssh_config_is_unchanged_in_english(
    xyclaw_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The lines e35 moved into the catalogue read as before in English."""
    assert main(["ssh-config"]) == 0
    captured = capsys.readouterr()
    assert "no live cluster has nodes to ssh into" in captured.out
    assert "not included from " in captured.err
    assert "`xyclaw ssh-config --install` adds one Include line" in captured.err


def _said_not_quoted(text: str, source: str) -> list[str]:
    """The English runs of ``text`` that are not quoted from ``source``, the pasted output:
    a log's own error message is data, shown as it was written."""
    pasted = " ".join(re.findall(r"[A-Za-z]+", source))
    return [run for run in english_runs(text) if run not in pasted]


_FIXTURES = Path(__file__).parents[1] / "telemetry" / "fixtures"


@pytest.mark.parametrize(
    "fixture", ["dmesg_xid_mixed.txt", "train_plain_watchdog.log", "nvsmi_q_v100_ecc_throttle.txt"]
)
def test_diagnose_is_chinese(
    chinese: Path, fixture: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """xyclaw diagnose FILE: its framing, findings and advice (issue 35, e35); what it quotes
    from the file (an NCCL error's own message) is the file's text."""
    main(["diagnose", str(_FIXTURES / fixture)])
    captured = capsys.readouterr()
    text = captured.out + captured.err
    assert "处理办法" in text
    source = (_FIXTURES / fixture).read_text(encoding="utf-8", errors="replace")
    assert not _said_not_quoted(text, source), _said_not_quoted(text, source)


def test_the_quoted_text_of_a_paste_is_the_only_english_let_through() -> None:
    source = "NCCL error: Some NCCL operations have failed or timed out."
    assert not _said_not_quoted("错误：Some NCCL operations have failed or timed out", source)
    assert _said_not_quoted("the node is broken", source) == ["the node is broken"]


@pytest.mark.parametrize(
    "command",
    [["guard", "run", "--once"], ["model-key", "deepseek", "--delete"]],
    ids=lambda c: " ".join(c),
)
def test_guard_once_and_model_key_are_chinese(
    chinese: Path, command: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(command) == 0
    captured = capsys.readouterr()
    text = captured.out + captured.err
    assert re.search("[\u4e00-\u9fff]", text), text
    assert not english_runs(text), english_runs(text)


def test_guard_once_and_model_key_are_unchanged_in_english(
    xyclaw_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["guard", "run", "--once"]) == 0
    assert capsys.readouterr().out == (
        "nothing to do: 0 live cluster(s), none at its budget's warning level or idle limit\n"
    )
    assert main(["model-key", "deepseek", "--delete"]) == 0
    assert capsys.readouterr().out == "forgot the key of deepseek\n"


def test_sim_serve_is_chinese(
    chinese: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """sim serve's lines: it listens, says where its state is, and stops once its state
    folder is removed (here, as soon as it listens) (issue 35, e35)."""
    import shutil
    import threading
    import time

    state = tmp_path / "sim-state"

    def remove_once_listening() -> None:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and not (state / "server.json").exists():
            time.sleep(0.05)
        shutil.rmtree(state, ignore_errors=True)

    remover = threading.Thread(target=remove_once_listening, daemon=True)
    remover.start()
    assert main(["sim", "serve", "--fast", "--port", "0", "--state", str(state)]) == 0
    remover.join()
    captured = capsys.readouterr()
    text = captured.out + captured.err
    assert "模拟云正在监听" in text and "已不存在" in text and "模拟云已停止" in text, text
    assert not english_runs(text), english_runs(text)


# -- issue 35, a35: the demo, usage errors and the parsers' errors ---------------------------


@pytest.mark.timeout(360)  # a whole flow with a real job on the simulated cloud
def test_the_demo_is_chinese(
    chinese: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """xyclaw demo --fast in a Chinese setting: the requests, the rules brain's replies, the
    tool-call lines, the cards and the demo's frame. The job's log lines come in a fenced
    block (the checker skips backticks): the job's own text."""
    from xyclaw.sim.cloud import launcher

    monkeypatch.setenv("XYCLAW_SIM_PROVISION_DELAY_S", "0")
    try:
        code = main(["demo", "--fast"])
    finally:
        launcher.stop(AppPaths.from_environment().data_dir / "sim")
    captured = capsys.readouterr()
    out = captured.out + captured.err
    assert code == 0, out[-3000:]
    steps = [line.split("：")[0] for line in out.splitlines() if line.startswith("-- ")]
    assert list(dict.fromkeys(steps)) == [
        "-- 规划", "-- 租用", "-- 调优", "-- 启动", "-- 跟踪", "-- 释放", "-- 历史",
    ]  # fmt: skip
    for effect in ("花钱", "执行命令", "销毁"):
        assert f"需要批准（{effect}）" in out
    assert "launch_job：完成（已启动作业 qwen7b-lora-1node）" in out  # the planned 7B LoRA
    assert "job_status：完成（作业 qwen7b-lora-1node：成功）" in out
    assert "保留当前的 NCCL 设置" in out and "演示完成，用时" in out.splitlines()[-1]
    assert not english_runs(out), english_runs(out)


#: Bad arguments, as a person might type them: (the command, its exit code).
USAGE_ERRORS = [
    (["model-key", "nope"], 2),
    (["sim", "serve", "--port", "70000"], 2),
    (["sim", "serve", "--link-delay", "-1"], 2),
    (["sim", "serve", "--provision-delay", "-2"], 2),
    (["sim", "serve", "--spot-rate", "-1"], 2),
    (["nccl"], 2),
    (["nccl", "analyze", "/no/such/log.txt"], 2),
    (["ask"], 2),
    (["ask", "--approve"], 2),
    (["secrets", "set", "bad name!"], 2),
    (["top"], 2),
    (["jobs", "show"], 2),
    (["jobs", "show", "99"], 2),
    (["up"], 2),
    (["up", "--gpu", "A100", "--gpus", "0"], 2),
    (["exec", "c1"], 2),
    (["exec", "c1", "--timeout", "x", "--", "ls"], 2),
    (["plan", "--task", "finetune-lora", "--model-size", "7B", "--limit", "-1"], 2),
    (["down", "nope", "--yes"], 2),
    (["hosts", "trust", "gpu1", "--fingerprint", "bad"], 2),
    # the planner's own complaints and `up --budget` (issue 35, b35)
    (["plan", "--task", "finetune-lora", "--model-size", "7", "--gpus", "8"], 2),
    (["plan", "--task", "finetune-lora", "--model-size", "7B", "--gpus", "abc"], 2),
    (["plan", "--task", "finetune-lora", "--model-size", "7B", "--tokens", "1e30"], 2),
    (["plan", "--task", "finetune-lora", "--model-size", "7B", "--epochs", "x"], 2),
    (["plan", "--task", "finetune-lora", "--model-size", "7B", "--deadline", "soon"], 2),
    (["plan", "--task", "finetune-lora", "--model-size", "7B", "--budget", "12,x"], 2),
    (["plan", "--task", "finetune-lora", "--model-size", "7B", "--gpu", "NOPE"], 2),
    (["up", "--gpu", "A100", "--gpus", "8", "--budget", "-3"], 2),
    (["plan", "--task", "finetune-lora", "--model-size", "7B", "--fabric", "zzz"], 2),
    (["plan", "--task", "finetune-lora", "--model-size", "7B", "--fabric", "ib-hdr-100"], 2),
    (["plan", "--task", "finetune-lora", "--model-size", "7B", "--offers", "/no/such.csv"], 2),
]


@pytest.mark.parametrize(
    ("command", "code"), USAGE_ERRORS, ids=[" ".join(c) for c, _ in USAGE_ERRORS]
)
def test_usage_errors_are_chinese(
    chinese: Path, command: list[str], code: int, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(command) == code
    err = capsys.readouterr().err
    assert err.startswith("xyclaw：错误：") and re.search("[\u4e00-\u9fff]", err[10:]), err
    if command[0] in ("plan", "up") and len(command) > 5:  # b35: the flag, then the planner's words
        assert re.match(r"xyclaw：错误：--[a-z-]+：.*[\u4e00-\u9fff]", err), err
    assert not english_runs(err), english_runs(err)


def test_guard_install_and_uninstall_are_chinese(
    chinese: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The unit file it would write is data (a file's text); the lines around it are said."""
    assert main(["guard", "install"]) == 2  # not at a terminal, no --yes
    captured = capsys.readouterr()
    said = [line for line in captured.out.splitlines() if not re.match(r"\[|\w+=", line)]
    text = "\n".join(said) + captured.err
    assert "将写入" in text and "设置了 XYCLAW_HOME" in text and "请加 --yes 确认" in text, text
    assert not english_runs(text), english_runs(text)
    assert main(["guard", "uninstall"]) == 0
    out = capsys.readouterr().out
    assert "处没有用户服务" in out and not english_runs(out), out


def test_usage_errors_are_unchanged_in_english(
    xyclaw_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    expected = {
        ("model-key", "nope"): "xyclaw: error: 'nope' is not a preset\n  -> one of openai, ",
        ("sim", "serve", "--port", "70000"): (
            "xyclaw: error: --port 70000 is not a port\n  -> use 1-65535, or 0 for any\n"
        ),
        ("sim", "serve", "--link-delay", "-1"): (
            "xyclaw: error: --link-delay -1 is not a delay\n  -> 0 or more\n"
        ),
        ("ask",): (
            'xyclaw: error: say something: xyclaw ask "plan a LoRA fine-tune of a 13B model"\n'
        ),
        ("down", "nope", "--yes"): (
            "xyclaw: error: no cluster 'nope'\n  -> `xyclaw clusters` lists them\n"
        ),
        ("jobs", "show", "99"): "xyclaw: error: no job '99'\n  -> `xyclaw jobs --all` lists them\n",
        ("up", "--gpu", "A100", "--gpus", "0"): "xyclaw: error: --gpus must be 1 or more\n",
        ("plan", "--task", "finetune-lora", "--model-size", "7B", "--gpus", "abc"): (
            "xyclaw: error: --gpus: 'abc' is not a GPU count; expected N, MIN-MAX or N+,"
            " such as 8-32\n"
        ),
        ("plan", "--task", "finetune-lora", "--model-size", "7B", "--gpu", "NOPE"): (
            "xyclaw: error: --gpu: unknown GPU model 'NOPE'\n  -> known: "
        ),
        ("up", "--gpu", "A100", "--gpus", "8", "--budget", "-3"): (
            "xyclaw: error: --budget: '-3' is negative; expected an amount of 0 or more\n"
        ),
        ("plan", "--task", "finetune-lora", "--model-size", "7B", "--fabric", "ib-hdr-100"): (
            "xyclaw: error: --fabric: 'ib-hdr-100': InfiniBand HDR runs at 200 Gb/s; a family"
            " (ib, roce, eth, none) also works\n"
        ),
        ("plan", "--task", "finetune-lora", "--model-size", "7B", "--offers", "/no/such.csv"): (
            "xyclaw: error: --offers: cannot read the catalog file /no/such.csv: No such file or"
            " directory\n  -> check that the file exists and is readable\n"
        ),
    }
    for command, start in expected.items():
        assert main(list(command)) == 2
        assert capsys.readouterr().err.startswith(start), command


@pytest.mark.parametrize("kind", ["text", "json"])
def test_a_malformed_nccl_log_is_said_in_chinese(
    chinese: Path, kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """nccl analyze on a file that is not nccl-tests output: the parser's own error, and the
    file's name before it, in Chinese; the English as before."""
    log = tmp_path / f"bad.{'txt' if kind == 'text' else 'json'}"
    log.write_text("hello, this is no log\n" if kind == "text" else '{"results": [1')
    assert main(["nccl", "analyze", str(log)]) == 1
    err = capsys.readouterr().err
    said = "不是 nccl-tests 的输出" if kind == "text" else "不是 nccl-tests 的 JSON 输出"
    assert f"{log}：{said}" in err and "请传入 nccl-tests 程序" in err, err
    assert not english_runs(err), english_runs(err)
    AppPaths.from_environment().config_file.write_text('[gui]\nlanguage = "en"\n', "utf-8")
    assert main(["nccl", "analyze", str(log)]) == 1
    english = capsys.readouterr().err
    said = "not nccl-tests output: no '# nThread" if kind == "text" else "not nccl-tests JSON"
    assert english.startswith(f"xyclaw: error: {log}: {said}"), english
    assert "  -> pass the output of an nccl-tests binary such as all_reduce_perf" in english


#: Pasted text a parser cannot read, and what it said in English before issue 35's a35.
PARSER_ERRORS = [
    ("ibparse", "parse_ibstat", "hello\n",
     "not ibstat output: 'hello' before any \"CA 'name'\" line", "pass the output of `ibstat`"),
    ("ibparse", "parse_ibstat", "CA 'mlx5_0'\n\tgarbage line\n",
     "ibstat: unreadable line 'garbage line' in CA mlx5_0",
     "pass the output of `ibstat` unchanged"),
    ("ibparse", "parse_show_gids", "mlx5_0 x y z\n",
     "show_gids: unreadable row 'mlx5_0 x y z'", "pass the output of `show_gids` unchanged"),
    ("nccltests", "parse_nccl_tests_json", '{"x": 1}',
     "not nccl-tests JSON output: no top-level 'results' list",
     "pass the file written by an nccl-tests binary's -J option"),
    ("nic", "parse_proc_net_dev", "eth0: 1 2 3\n", "/proc/net/dev: unreadable line 'eth0: 1 2 3'",
     "expected 'IFACE: 16 counters' lines as in `cat /proc/net/dev`"),
    ("nic", "parse_ib_counters", "garbage\n", "InfiniBand counters: unreadable line 'garbage'",
     "expected '/sys/class/infiniband/DEV/ports/N/counters/NAME:VALUE' lines"),
    ("nvsmi", "parse_list", "GPU 0: NVIDIA A100 garbage\n",
     "nvidia-smi -L: unreadable line 'GPU 0: NVIDIA A100 garbage'",
     "expected 'GPU N: NAME (UUID: GPU-...)' lines"),
    ("nvsmi", "parse_topology", "hello\n",
     "not nvidia-smi topo -m output: no column header with GPU0",
     "pass the output of `nvidia-smi topo -m`"),
    ("nvsmi_table", "parse_table", "hello\n",
     "not the plain nvidia-smi table: no GPU box (a line like "
     "'|   0  NVIDIA H100 ...  On  |   00000000:18:00.0 Off |   0 |')",
     "pass the whole output of plain `nvidia-smi`, from its banner line on"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("module", "function", "text", "english", "hint"),
    PARSER_ERRORS,
    ids=[f"{p[1]}-{n}" for n, p in enumerate(PARSER_ERRORS)],
)
def test_a_parser_error_is_chinese_and_the_english_unchanged(
    module: str, function: str, text: str, english: str, hint: str
) -> None:
    """What a person sees when pasted output is malformed (xyclaw diagnose, the window's paste
    box, nccl analyze): the parser's error in each language; the quoted line is the paste's."""
    import importlib

    from xyclaw.errors import ParseError

    parse = getattr(importlib.import_module(f"xyclaw.parsers.{module}"), function)
    with pytest.raises(ParseError) as raised:
        parse(text)
    assert (raised.value.message, raised.value.hint) == (english, hint)
    message, chinese_hint = raised.value.in_language("zh")
    for said in (message, chinese_hint or ""):
        assert re.search("[\u4e00-\u9fff]", said), said
        assert not _said_not_quoted(said, text), _said_not_quoted(said, text)


def test_diagnose_says_a_malformed_paste_in_chinese(
    chinese: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    paste = tmp_path / "ibstat.txt"
    paste.write_text("CA 'mlx5_0'\n\tCA type: MT4123\n\tgarbage line\n", encoding="utf-8")
    assert main(["diagnose", str(paste)]) == 2
    captured = capsys.readouterr()
    text = captured.out + captured.err
    assert "ibstat：CA mlx5_0 中有无法读取的行 'garbage line'" in text, text
    assert "请原样传入 `ibstat` 的输出" in text
    assert not _said_not_quoted(text, paste.read_text()), _said_not_quoted(text, "")


# -- issue 35, b35: the last English lines in a Chinese setting ---------------------------------


def test_ask_words_a_tool_s_status_and_a_card_s_effect(
    chinese: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """xyclaw ask at a terminal: the tool call's line says its status (完成, not done) and the
    card its effect (花钱, not spend), in the demo's words."""
    import sys

    from xyclaw.sim.cloud import launcher

    monkeypatch.setenv("XYCLAW_SIM_PROVISION_DELAY_S", "0")
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)  # the lines of a terminal
    try:
        assert main(["ask", "用8张卡LoRA微调13B模型，预算500元"]) == 0
        planned = capsys.readouterr().out
        assert main(["ask", "--conversation", "1", "租第一个"]) == 3
        card = capsys.readouterr().out
    finally:
        launcher.stop(AppPaths.from_environment().data_dir / "sim")
    assert "<- plan: 完成 (" in planned, planned
    assert "需要你批准（花钱）" in card, card
    assert "done" not in planned and "spend" not in card


def _a_reconcile_with_news() -> object:
    """What a reconcile may report: a provider that did not answer, one that failed with a
    said error, and a name in each of the lists the CLI warns about."""
    from xyclaw.engine.reconcile import ReconcileReport
    from xyclaw.wording import said

    report = ReconcileReport(
        orphans_released=["o1"],
        orphans_reported=["o2"],
        interrupted_released=["c3"],
        releases_completed=["c4"],
        gone=["c5"],
    )
    report.add_error("vastai", said("error.typed.reconcile_no_answer", seconds="5"))
    report.add_error("runpod", said("error.typed.unknown_gpu", gpu="'X'"))
    return report


@pytest.mark.parametrize("command", [["clusters"], ["billing"]], ids=" ".join)
def test_the_reconcile_warnings_are_chinese_and_the_english_unchanged(
    xyclaw_home: Path,
    command: list[str],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The lines a command that reconciles first prints about what the reconcile found (b35);
    the report is made here (a provider that does not answer is slow to stage)."""
    from xyclaw.engine import Engine

    monkeypatch.setattr(Engine, "reconcile", lambda self: _a_reconcile_with_news())
    assert main(command) == 0
    english = capsys.readouterr().err
    assert (
        "warning: could not check vastai: it did not answer within 5 s; its clusters are shown"
        " as last seen\n" in english
    )
    assert "warning: could not check runpod: unknown GPU model 'X'\n" in english
    assert "released orphan o1 (it billed but XyClaw did not expect it)" in english
    assert "ORPHAN o2 bills but is not XyClaw's: release it if it is not yours" in english
    assert "released c3: its set-up was interrupted" in english
    assert "finished releasing c4" in english and "c5 is gone from its provider" in english
    config = AppPaths.from_environment().config_file
    config.write_text('[gui]\nlanguage = "zh_CN"\n', encoding="utf-8")
    assert main(command) == 0
    chinese = capsys.readouterr().err
    assert "警告：无法核对 vastai：5 秒内没有应答" in chinese
    assert "警告：无法核对 runpod：未知的 GPU 型号 'X'" in chinese
    assert "已释放孤儿实例 o1" in chinese and "孤儿实例 o2 在计费" in chinese
    assert "已完成释放 c4" in chinese and "c5 已不在它的提供商处" in chinese
    assert not english_runs(chinese), english_runs(chinese)


def test_an_orphan_s_name_cannot_draw_over_the_terminal(
    xyclaw_home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """An orphan's name is its provider's text: its escape codes are shown, not obeyed (a
    name that clears the screen could draw a fake card over the real one)."""
    from xyclaw.engine import Engine
    from xyclaw.engine.reconcile import ReconcileReport

    hostile = "o9\x1b[2J\x1b[Hrelease approved"
    report = ReconcileReport(orphans_reported=[hostile])
    monkeypatch.setattr(Engine, "reconcile", lambda self: report)
    assert main(["clusters"]) == 0
    err = capsys.readouterr().err
    assert "\x1b" not in err and "ORPHAN o9" in err


def test_a_tune_s_causes_name_the_ports_a_probe_found_down_in_chinese(xyclaw_home: Path) -> None:
    """A verdict on a 2-node IB cluster whose only ports are down (NCCL fell back to
    sockets): the causes' details quote the probe's findings, which are worded (b35)."""
    import io
    import time

    from xyclaw.cli.commands.tuning import _print_verdict
    from xyclaw.cli.context import CliContext
    from xyclaw.parsers.nccltests import parse_nccl_tests
    from xyclaw.tuning.fabric import FabricReport, GpuNic, NodeFabric, PortInfo
    from xyclaw.tuning.probe import summarize
    from xyclaw.tuning.verdict import judge

    down = (PortInfo("mlx5_0", 1, "DOWN", 200.0, "InfiniBand", None, 4, None),)
    nodes = tuple(
        NodeFabric(name=n, gpu_count=8, gpu_name="NVIDIA A800-SXM4-80GB", nvlinks=8,
                   gpu_nics=(GpuNic(0, "mlx5_0", "PIX"),), ports=down)
        for n in ("n0", "n1")
    )  # fmt: skip
    report = FabricReport(1, "c1", "ib-hdr-200", "A800", time.time(), nodes,
                          summarize(nodes, "ib-hdr-200"))  # fmt: skip
    log = Path(__file__).parents[1] / "tuning" / "fixtures"
    run = parse_nccl_tests((log / "nccl_allreduce_2node_socket_fallback.txt").read_text())
    verdict = judge([run], None, report=report)
    assert {"no_active_hca", "port_down"} <= {c.code for c in verdict.causes}
    shown = {}
    for setting in ("en", "zh_CN"):
        out = io.StringIO()
        paths = AppPaths.from_environment()
        _print_verdict(CliContext(paths, overrides={"gui.language": setting}, out=out), verdict)
        shown[setting] = out.getvalue()
    assert "n0: mlx5_0 port 1 is DOWN; n1: mlx5_0 port 1 is DOWN" in shown["en"]
    assert "n0：mlx5_0 端口 1 的状态为 DOWN；n1：mlx5_0 端口 1 的状态为 DOWN" in shown["zh_CN"]
    assert not english_runs(shown["zh_CN"]), english_runs(shown["zh_CN"])


def test_plan_s_notes_are_chinese_and_the_english_unchanged(
    xyclaw_home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """plan's notes (a provider offline, memory ranking down): the real plan, with a note
    the Engine words as it does for a provider that did not answer (b35)."""
    import dataclasses

    from xyclaw.engine import Engine
    from xyclaw.wording import said

    real_plan = Engine.plan

    def plan_with_a_note(self: Engine, *args: object, **kwargs: object) -> object:
        outcome = real_plan(self, *args, **kwargs)  # type: ignore[arg-type]
        note = said("common.plan_unknown_gpus", gpus="Z9000")
        return dataclasses.replace(outcome, notes=[str(note)], notes_said=[note])

    monkeypatch.setattr(Engine, "plan", plan_with_a_note)
    argv = ["plan", "--task", "finetune-lora", "--model-size", "7B", "--gpus", "8"]
    assert main(argv) == 0
    english = capsys.readouterr().err
    assert "xyclaw plan: left out offers of GPU models the planner has no figures for: Z9000" in (
        english
    )
    config = AppPaths.from_environment().config_file
    config.write_text('[gui]\nlanguage = "zh_CN"\n', encoding="utf-8")
    assert main(argv) == 0
    chinese = capsys.readouterr()
    assert "xyclaw plan：略去了规划器没有参数的 GPU 型号的报价：Z9000" in chinese.err
    text = chinese.out + chinese.err
    assert not english_runs(text), english_runs(text)
