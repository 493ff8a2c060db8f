"""The last English error texts of the agents, the secrets and node access (issue 35, d35a):
each said in Chinese under ``[gui] language = "zh_CN"`` (or by ``in_language("zh")`` where no
command reaches it quickly), and the English exactly as it was."""

from __future__ import annotations

import io
import json
import stat
import sys
import threading
from pathlib import Path

import paramiko
import pytest

from tests.agent import fake_llm as f
from tests.agent.conftest import MakeRuntime, make_runtime, world  # noqa: F401  (fixtures)
from tests.foundation.test_cli_chinese import english_runs
from xyclaw.agent.brain import AgentProfile, Price, ToolDef
from xyclaw.agent.llm import LlmBrain
from xyclaw.agent.mcp_server import McpTools
from xyclaw.agent.presets import Endpoint
from xyclaw.agent.profiles import load_agents, parse_profile
from xyclaw.agent.tools import spend_period
from xyclaw.cli.main import main
from xyclaw.engine.surface import Effect
from xyclaw.errors import AgentError, SecretError, UsageError, XyclawError
from xyclaw.paths import AppPaths
from xyclaw.remote.node_access import load_or_create_app_key
from xyclaw.secrets import FileSecretBackend


def _set_chinese() -> None:
    config = AppPaths.from_environment().config_file
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('[gui]\nlanguage = "zh_CN"\n', encoding="utf-8")


def _both(error: XyclawError) -> tuple[str, str]:
    """(English, Chinese) of an error, message and hint on one line each."""
    en_message, en_hint = error.in_language("en")
    zh_message, zh_hint = error.in_language("zh")
    return f"{en_message} {en_hint or ''}".strip(), f"{zh_message} {zh_hint or ''}".strip()


def _chat(
    lines: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> str:
    monkeypatch.setattr(sys, "stdin", io.StringIO("\n".join(lines) + "\n"))
    main(["chat"])
    captured = capsys.readouterr()
    return captured.out + captured.err


def test_chat_s_unknown_conversation_and_allowance_are_said_in_each_language(
    xyclaw_home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    session = ["/revoke 77", "/switch 99"]  # a conversation that is not there ends the chat
    english = _chat(session, monkeypatch, capsys)
    assert "there is no conversation 99" in english, english
    assert "there is no allowance 77 in force" in english, english
    _set_chinese()
    chinese = _chat(session, monkeypatch, capsys)
    assert "没有对话 99" in chinese and "没有生效中的许可 77" in chinese, chinese
    assert not english_runs(chinese), english_runs(chinese)


def test_an_agent_file_s_errors_are_said_in_each_language(tmp_path: Path) -> None:
    bad = "---\nname: Bad Name\ndescription: x\n---\nbody\n"
    with pytest.raises(AgentError) as caught:
        parse_profile(bad, "mine.md", ["plan"])
    english, chinese = _both(caught.value)
    assert english.startswith("mine.md: name 'Bad Name' is not valid lower-case letters"), english
    assert "mine.md：名称 'Bad Name' 无效" in chinese and "以字母开头" in chinese, chinese
    assert not english_runs(chinese), english_runs(chinese)
    unknown = "---\nname: mine\ndescription: x\ntools: [rent_everything]\n---\nbody\n"
    with pytest.raises(AgentError) as caught:
        parse_profile(unknown, "mine.md", ["plan", "cost"])
    english, chinese = _both(caught.value)
    assert english == "mine.md: unknown tools rent_everything known tools: cost, plan", english
    assert chinese == "mine.md：未知的工具 rent_everything 已知的工具：cost, plan", chinese
    with pytest.raises(AgentError) as caught:
        load_agents([], bundled_dir=tmp_path)
    english, chinese = _both(caught.value)
    assert english == "no supervisor agent reinstall XyClaw: agents/supervisor.md", english
    assert "没有 supervisor 智能体" in chinese and not english_runs(chinese), chinese


def test_a_tool_s_bad_period_is_said_in_each_language() -> None:
    with pytest.raises(UsageError) as caught:
        spend_period("last week")
    english, chinese = _both(caught.value)
    assert english.startswith("'last week' is not a period today, month, last_month"), english
    assert chinese.startswith("'last week' 不是时间段 today、month、last_month"), chinese
    assert not english_runs(chinese.replace("'last week'", "")), chinese


def test_an_mcp_client_s_unknown_tool_and_bad_arguments_are_said_in_each_language(
    make_runtime: MakeRuntime,  # noqa: F811
) -> None:
    tools = McpTools(make_runtime())
    with pytest.raises(UsageError) as caught:
        tools.call("rent_everything", {}, "codex")
    english, chinese = _both(caught.value)
    assert english.startswith("there is no tool 'rent_everything' list the tools: "), english
    assert chinese.startswith("没有工具 'rent_everything' 可用的工具："), chinese
    with pytest.raises(UsageError) as caught:
        tools.call("plan", {"gpus": "eight"}, "codex")
    english, chinese = _both(caught.value)
    assert english.startswith("plan: ") and english.endswith("see the tool's schema"), english
    assert chinese.startswith("plan：") and chinese.endswith("请查看该工具的参数格式"), chinese


def test_a_model_endpoint_s_refusals_are_said_in_each_language() -> None:
    def brain(llm: f.FakeLLM, **changes: object) -> LlmBrain:
        fields: dict[str, object] = {"key": f.API_KEY, "model": "fake-model", "timeout": 5.0}
        fields.update(changes)
        endpoint = Endpoint(
            "custom",
            llm.base_url,
            str(fields["model"]),
            str(fields["key"]),
            float(str(fields["timeout"])),
            0,
            Price(2_000_000, 8_000_000, "CNY"),
        )
        return LlmBrain(endpoint, backoff_s=0.01)

    agent = AgentProfile("planner", "plans", ("plan",), "You plan.")
    plan = ToolDef("plan", "plan a job", {"type": "object", "properties": {}}, Effect.READ)

    def step(b: LlmBrain) -> None:
        b.step(agent, [{"role": "user", "content": "hi"}], [plan], {}, lambda k, t: None)

    with f.FakeLLM([]) as llm:
        with pytest.raises(AgentError) as wrong:
            step(brain(llm, key="sk-wrong-secret"))
        english, chinese = _both(wrong.value)
        assert english == (
            f"the model endpoint {llm.base_url} refused the API key"
            " store the right key with `xyclaw model-key custom`"
        ), english
        assert f"模型端点 {llm.base_url} 拒绝了 API 密钥" in chinese, chinese
        assert "请用 `xyclaw model-key custom` 存入正确的密钥" in chinese, chinese
        assert "sk-wrong-secret" not in english + chinese
        with pytest.raises(AgentError) as missing:
            step(brain(llm, model="no-such-model"))
        english, chinese = _both(missing.value)
        assert english.startswith(f"the model 'no-such-model' does not exist at {llm.base_url}")
        assert f"{llm.base_url} 上没有模型 'no-such-model'" in chinese, chinese
        assert not english_runs(chinese), english_runs(chinese)


def test_a_secrets_file_others_can_read_is_said_in_each_language(tmp_path: Path) -> None:
    path = tmp_path / "secrets.json"
    path.write_text(json.dumps({"a": "b"}), encoding="utf-8")
    path.chmod(0o644)
    with pytest.raises(SecretError) as caught:
        FileSecretBackend(path).get("a")
    english, chinese = _both(caught.value)
    assert english == (
        f"the secrets file {path} can be read by other users run: chmod 600 {path}"
    ), english
    assert chinese == f"其他用户可以读取密钥文件 {path} 请运行：chmod 600 {path}", chinese
    path.chmod(0o600)
    path.write_text("[1, 2]", encoding="utf-8")
    with pytest.raises(SecretError) as caught:
        FileSecretBackend(path).get("a")
    assert caught.value.in_language("zh")[0] == f"密钥文件 {path} 不是 JSON 对象"
    assert caught.value.message == f"the secrets file {path} is not a JSON object"


def test_the_app_s_ssh_key_others_can_read_is_said_in_each_language(tmp_path: Path) -> None:
    path = tmp_path / "id_xyclaw"
    load_or_create_app_key(path)
    path.chmod(path.stat().st_mode | stat.S_IRGRP)
    with pytest.raises(SecretError) as caught:
        load_or_create_app_key(path)
    english, chinese = _both(caught.value)
    assert english == f"the SSH key {path} can be read by other users run: chmod 600 {path}"
    assert chinese == f"其他用户可以读取 SSH 密钥 {path} 请运行：chmod 600 {path}", chinese
    path.chmod(0o600)
    path.write_text("not a key\n", encoding="utf-8")
    with pytest.raises(SecretError) as caught:
        load_or_create_app_key(path)
    english, chinese = _both(caught.value)
    assert english.startswith(f"the SSH key {path} cannot be read move it aside;"), english
    assert chinese.startswith(f"无法读取 SSH 密钥 {path} 请把它移开；"), chinese
    assert not english_runs(chinese), english_runs(chinese)
    assert isinstance(load_or_create_app_key(tmp_path / "fresh")[0], paramiko.PKey)


def test_a_stopped_turn_is_said_in_the_language_it_was_asked_in(
    make_runtime: MakeRuntime,  # noqa: F811
) -> None:
    runtime = make_runtime()
    stop = threading.Event()
    stop.set()  # the user pressed Stop before the first step came back
    cid = runtime.new_conversation()
    english = runtime.send(cid, "how much did I spend today", lambda e: None, cancel=stop)
    assert english.reply == "Stopped: the turn was cancelled.", english.reply
    chinese = runtime.send(cid, "我今天花了多少钱", lambda e: None, cancel=stop)
    assert chinese.reply == "已停止：本轮已取消。", chinese.reply
