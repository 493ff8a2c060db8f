"""A new SSH host key at the command line in a Chinese setting (issue 35, c35): refused when
nobody is at a terminal, with the commands that accept it, in the ``[gui] language``; and the
question at a terminal in it too. English as before."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from tests.foundation.test_cli_chinese import english_runs
from tests.remote.sshd import Sshd
from xyclaw.cli.main import main
from xyclaw.cli.trust import TerminalTrust
from xyclaw.paths import AppPaths


def _config(text: str) -> None:
    paths = AppPaths.from_environment()
    paths.config_file.parent.mkdir(parents=True, exist_ok=True)
    paths.config_file.write_text(text, encoding="utf-8")


def test_an_unknown_host_key_not_at_a_terminal_is_refused_in_each_language(
    xyclaw_home: Path, sshd: Sshd, capsys: pytest.CaptureFixture[str]
) -> None:
    _config("")
    hosts = AppPaths.from_environment().config_dir / "hosts.toml"
    hosts.write_text(f'[[host]]\nname = "root@127.0.0.1:{sshd.port}"\ngpu = "A100-80G"\n')
    name = f"root@127.0.0.1:{sshd.port}"
    assert main(["hosts", "test", name]) != 0
    english = capsys.readouterr().err
    assert "is not known: " in english and "not at a terminal, so nobody was asked" in english
    assert "then accept it: xyclaw hosts trust " in english
    assert "(or run it again as: xyclaw --trust-new-host hosts test " in english, english
    _config('[gui]\nlanguage = "zh_CN"\n')
    assert main(["hosts", "test", name]) != 0
    chinese = capsys.readouterr().err
    assert "的主机密钥未知：" in chinese and "不在终端上，所以没有询问任何人" in chinese, chinese
    assert "然后接受它：xyclaw hosts trust " in chinese
    assert "（或者这样重新运行：xyclaw --trust-new-host hosts test " in chinese
    assert not english_runs(chinese), english_runs(chinese)


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(
    ("language", "shown"),
    [
        ("en", ["The host key of gpu1 is not known yet.", "Trust this host and connect? [y/N] "]),
        (
            "zh",
            [
                "gpu1 的主机密钥还未知。",
                "ssh-ed25519 密钥指纹：SHA256:abc",
                "信任这台主机并连接吗？",
            ],
        ),
    ],
)
def test_the_question_at_a_terminal_is_in_the_setting_s_language(
    language: str, shown: list[str]
) -> None:
    err = io.StringIO()
    terminal = TerminalTrust(accept_new=False, stdin=_Terminal("y\n"), err=err, language=language)
    assert terminal("gpu1", "ssh-ed25519", "SHA256:abc") is True
    for line in shown:
        assert line in err.getvalue(), err.getvalue()
    if language == "zh":
        assert not english_runs(err.getvalue()), english_runs(err.getvalue())


def test_a_fingerprint_that_is_not_the_one_named_is_refused_in_chinese(
    xyclaw_home: Path, sshd: Sshd, capsys: pytest.CaptureFixture[str]
) -> None:
    _config('[gui]\nlanguage = "zh_CN"\n')
    hosts = AppPaths.from_environment().config_dir / "hosts.toml"
    hosts.write_text(f'[[host]]\nname = "root@127.0.0.1:{sshd.port}"\ngpu = "A100-80G"\n')
    wanted = "SHA256:" + "A" * 43
    command = ["hosts", "trust", f"root@127.0.0.1:{sshd.port}", "--fingerprint", wanted]
    assert main(command) != 0
    said = capsys.readouterr().err
    assert f"而不是 {wanted}；没有信任任何密钥" in said and "请在那台机器上核对指纹" in said, said
    assert not english_runs(said), english_runs(said)
