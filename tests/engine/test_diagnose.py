"""Issue 30 point 2: ``xyclaw diagnose FILE|-`` and Engine.diagnose read pasted output, run the
live rules and verdicts on it, and answer in the configured language; unreadable text is
refused with what was expected. Run as a user runs it: the real command in a subprocess."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from xyclaw.engine.diagnose import DiagnoseError, diagnose_text, recognise
from xyclaw.parsers.paste import read_paste
from xyclaw.paths import AppPaths

PASTED = Path(__file__).resolve().parents[1] / "telemetry" / "fixtures" / "pasted"
TUNING = Path(__file__).resolve().parents[1] / "tuning" / "fixtures"
_HAN = re.compile(r"[\u4e00-\u9fff]")


def xyclaw(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, LANG="C.UTF-8")
    return subprocess.run(
        [sys.executable, "-m", "xyclaw.cli.main", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


def _chinese() -> None:
    paths = AppPaths.from_environment()
    paths.config_file.parent.mkdir(parents=True, exist_ok=True)
    paths.config_file.write_text('[gui]\nlanguage = "zh_CN"\n')


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("ibstat_prompt_crlf.txt", "ibstat"),
        ("ibv_devinfo_root_prompt_indented.txt", "ibv_devinfo"),
        ("nccltests_mpi_lost_hash_failure.txt", "nccl-tests"),
        ("nvsmi_q_610_banner.txt", "nvidia-smi -q"),
        ("dmesg_xid_pci_next_line.txt", "dmesg"),
        ("nvsmi_table_470_4x_v100.txt", "nvidia-smi"),
        ("nvsmi_table_418_rtx_windows.txt", "nvidia-smi"),
        ("nvsmi_table_575_h100_mig.txt", "nvidia-smi"),
    ],
)
def test_each_kind_is_recognised(name: str, kind: str) -> None:
    assert recognise(read_paste((PASTED / name).read_text())) == kind
    assert diagnose_text((PASTED / name).read_text()).kind == kind


def test_the_table_goes_through_the_live_alert_rules() -> None:
    found = diagnose_text((PASTED / "nvsmi_table_470_4x_v100.txt").read_text())
    assert found.worst == "critical" and not found.healthy
    (ecc,) = [p for p in found.points if "uncorrectable ECC" in str(p.what)]
    assert "GPU 2" in str(ecc.what) and ecc.do is not None and "drain" in str(ecc.do)
    assert found.command == "nvidia-smi" and len(found.data["gpus"]) == 4


def test_a_failed_nccl_test_is_a_failed_verdict_with_the_nccl_error() -> None:
    found = diagnose_text((PASTED / "nccltests_mpi_lost_hash_failure.txt").read_text())
    assert found.data["status"] == "failed" and found.worst == "error"
    assert "remote process exited" in found.data["causes"][0]["detail"]
    assert any("ranks missing from the rank list: 14" in str(p.what) for p in found.points)


def test_cli_file_in_english_and_exit_status(tmp_path: Path) -> None:
    done = xyclaw("diagnose", str(PASTED / "dmesg_xid_pci_next_line.txt"))
    assert done.returncode == 1, done.stderr  # something needs action
    out = done.stdout
    assert out.startswith("This is the output of dmesg.\n")
    assert "the GPU at PCI 0000:5d:00 reported XID 79" in out
    assert "XID 109 (Context Switch Timeout Error" in out
    assert "reset the GPU (or reboot the node) before reuse" in out
    healthy = xyclaw("diagnose", str(PASTED / "ibv_devinfo_root_prompt_indented.txt"))
    assert healthy.returncode == 0 and "Nothing in it needs action." in healthy.stdout


def test_cli_stdin_json_and_chinese() -> None:
    text = (PASTED / "ibstat_prompt_crlf.txt").read_text()
    done = xyclaw("diagnose", "-", "--json", stdin=text)
    body = json.loads(done.stdout)
    assert body["recognised"] and body["kind"] == "ibstat" and body["command"] == "ibstat"
    assert body["points"][0]["what"].startswith("port mlx5_1:1 is not active")
    _chinese()
    zh = xyclaw("diagnose", "-", stdin=text)
    first = zh.stdout.splitlines()[0]
    assert first == "这是 ibstat 的输出。"
    assert "端口 mlx5_1:1 不在活动状态" in zh.stdout and "处理办法：" in zh.stdout
    assert json.loads(xyclaw("diagnose", "-", "--json", stdin=text).stdout) == body


def test_unreadable_text_says_what_was_expected() -> None:
    done = xyclaw("diagnose", "-", stdin="Hello, my GPU is slow, any idea?\n")
    assert done.returncode == 2 and done.stdout == ""
    assert "does not recognise this text" in done.stderr
    assert "nvidia-smi (the table, -q, -L, --query-gpu CSV, topo -m), ibstat" in done.stderr
    _chinese()
    zh = xyclaw("diagnose", "-", stdin="   \n")
    assert zh.returncode == 2 and "文本为空" in zh.stderr and "请粘贴" in zh.stderr
    missing = xyclaw("diagnose", "/no/such/file.txt")
    assert missing.returncode != 0 and "Traceback" not in missing.stderr
    assert "/no/such/file.txt" in missing.stderr


def test_a_recognised_kind_that_cannot_be_read_names_it() -> None:
    with pytest.raises(DiagnoseError) as caught:
        diagnose_text("$ ibstat\nibstat: command not found\nCA 'mlx5_0'\n  Port 1: whatever\n")
    assert "ibstat" in caught.value.message


def test_engine_method_is_the_same(tmp_path: Path) -> None:
    from xyclaw.config import load_config
    from xyclaw.engine.compose import build_engine

    paths = AppPaths.from_environment()
    paths.ensure()
    engine = build_engine(paths, load_config(paths.config_file))
    try:
        text = (PASTED / "nvsmi_q_610_banner.txt").read_text()
        found = engine.diagnose(text)
        assert found.data["driver_version"] == "610.57.04"
        assert found.data["cuda_umd_version"] == "13.2"
        assert found.to_json() == diagnose_text(text).to_json()
    finally:
        engine.close()


def test_topo_p2p_is_not_read_as_the_link_matrix() -> None:
    # `nvidia-smi topo -p2p r` prints a capability matrix (OK, CNS...), not -m's links
    p2p = (
        "$ nvidia-smi topo -p2p r\n        GPU0    GPU1\n GPU0   X       CNS\n GPU1   CNS     X\n"
        "\nLegend:\n\n  X    = Self\n  OK   = Status Ok\n  CNS  = Chipset not supported\n"
    )
    with pytest.raises(DiagnoseError, match="does not recognise"):
        diagnose_text(p2p)
    link = (
        "$ nvidia-smi topo -m\n        GPU0    GPU1    CPU Affinity\n"
        "GPU0     X      NV2     0-23\nGPU1    NV2      X      0-23\n"
    )
    found = diagnose_text(link)
    assert found.kind == "nvidia-smi topo -m" and found.data["nvlinked_pairs"] == 1
