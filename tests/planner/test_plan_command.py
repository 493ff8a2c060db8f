from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from xyclaw.cli.main import main

ROOT = Path(__file__).resolve().parents[2]


def test_plan_prints_a_table_with_a_line_of_reasons(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["plan", "--task", "finetune-lora", "--model-size", "7B", "--gpus", "8"])
    out = capsys.readouterr().out
    assert code == 0
    lines = out.splitlines()
    header = next(i for i, line in enumerate(lines) if "provider/region" in line)
    first, why = lines[header + 1], lines[header + 2]
    assert first.split()[0] == "1" and "CNY" in first
    assert why.strip().startswith("why:") and "one node" in why
    assert "tokens assumed" in out  # no --tokens: the default is said, not hidden


def test_plan_json_and_limit(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        [
            "plan",
            "--task=pretrain",
            "--model-size=70B",
            "--tokens=5B",
            "--gpus=32",
            "--json",
            "--limit=3",
        ]
    )
    data = json.loads(capsys.readouterr().out)
    assert code == 0
    assert data["request"]["model_size"] == 70_000_000_000
    assert len(data["options"]) == 3
    assert data["options"][0]["fabric"].startswith("ib")
    rules = [r["rule"] for r in data["options"][0]["reasons"]]
    assert "mid-cluster-ib" in rules


def test_plan_exits_1_and_explains_when_nothing_fits(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["plan", "--task", "inference", "--model-size", "70B", "--gpus", "1"])
    out = capsys.readouterr().out
    assert code == 1
    assert "Nothing fits" in out
    assert "rejected: needs" in out and "GiB usable" in out
    code = main(
        ["plan", "--task", "pretrain", "--model-size", "7B", "--gpu", "H100", "--region", "Xiamen"]
    )
    out = capsys.readouterr().out
    assert code == 1 and "offered: Ulanqab" in out


@pytest.mark.parametrize(
    ("args", "flag", "expected"),
    [
        (["--model-size", "7X"], "--model-size", "7B"),
        (["--gpus", "32-8"], "--gpus", "8-32"),
        (["--deadline", "48"], "--deadline", "48h"),
        (["--task", "train"], "--task", "finetune-lora"),
        (["--gpu", "Z100"], "--gpu", "A800"),
        (["--budget", "lots"], "--budget", "500"),
        (["--limit", "-1"], "--limit", "0"),
        (["--fabric", "wifi"], "--fabric", "ib-hdr-200"),
    ],
)
def test_bad_input_exits_2_naming_the_flag_and_what_was_expected(
    capsys: pytest.CaptureFixture[str], args: list[str], flag: str, expected: str
) -> None:
    base = {"--task": "finetune-lora", "--model-size": "7B"}
    base.update(dict(zip(args[::2], args[1::2], strict=True)))
    argv = ["plan", *[part for pair in base.items() for part in pair]]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert flag in err and expected in err


def test_a_required_flag_missing_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["plan", "--model-size", "7B"])
    assert info.value.code == 2
    assert "--task" in capsys.readouterr().err


def test_extra_offers_from_a_file_join_the_plan(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    offers = tmp_path / "acme.csv"
    offers.write_text(
        "provider,offer_id,region,gpu,gpus_per_node,nodes,fabric,price_per_gpu_hour,currency\n"
        "acme,cheap-a800,Oslo,A800,8,1,none,0.5,CNY\n",
        encoding="utf-8",
    )
    argv = ["plan", "--task", "finetune-lora", "--model-size", "7B", "--gpus", "8", "--json"]
    assert main([*argv, "--offers", str(offers)]) == 0
    best = json.loads(capsys.readouterr().out)["options"][0]
    assert (best["provider"], best["region"], best["price_per_gpu_hour"]) == ("acme", "Oslo", 0.5)
    offers.write_text(
        "provider,offer_id,region,gpu,gpus_per_node,nodes,fabric,price_per_gpu_hour,currency\n"
        "acme,bad,Oslo,A800,8,1,none,free,CNY\n",
        encoding="utf-8",
    )
    assert main([*argv, "--offers", str(offers)]) == 2
    err = capsys.readouterr().err
    assert "--offers" in err and "line 2" in err and "price_per_gpu_hour" in err


def test_plan_from_the_installed_command() -> None:
    exe = Path(sys.executable).with_name("xyclaw")
    if not exe.exists():
        pytest.skip("the xyclaw console script is not installed in this environment")
    proc = subprocess.run(
        [
            str(exe),
            "plan",
            "--task",
            "finetune-full",
            "--model-size",
            "7B",
            "--tokens",
            "1B",
            "--gpu",
            "A800",
            "--gpus",
            "8",
            "--json",
        ],
        capture_output=True,
        text=True,
        env=dict(os.environ),
        cwd=ROOT,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    best = json.loads(proc.stdout)["options"][0]
    assert best["gpu"] == "A800" and best["gpus"] == 8
    assert 7.8 < best["hours"] < 13.6
