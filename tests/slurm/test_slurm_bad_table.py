"""A [[slurm]] table that does not read is said where the user looks, not only logged.

Before, the site was left out of every list without a word: `xyclaw offers --provider lab`
said "unknown provider 'lab'", and `xyclaw doctor` passed hosts.toml with "0 host(s)"."""

from __future__ import annotations

from tests.slurm.test_slurm_cli import xyclaw
from xyclaw.paths import AppPaths

BROKEN = '[[slurm]]\nname = "lab"\npartitions = ["gpu"]\n'  # no login node


def _hosts(text: str, chinese: bool = False) -> None:
    paths = AppPaths.from_environment()
    paths.ensure()
    (paths.config_dir / "hosts.toml").write_text(text, encoding="utf-8")
    if chinese:
        paths.config_file.write_text('[gui]\nlanguage = "zh_CN"\n', encoding="utf-8")


def test_asking_for_the_site_says_why_it_is_not_there() -> None:
    _hosts(BROKEN)
    done = xyclaw("offers", "--provider", "lab")
    assert done.returncode != 0
    assert "unknown provider 'lab'" in done.stderr
    assert "not loaded: the [[slurm]] tables of hosts.toml" in done.stderr
    assert "login is missing" in done.stderr
    assert "Traceback" not in done.stderr


def test_doctor_fails_hosts_toml_with_the_tables_error() -> None:
    _hosts(BROKEN)
    done = xyclaw("doctor")
    line = next(line for line in done.stdout.splitlines() if "hosts.toml" in line)
    assert line.startswith("[FAIL]") and "login is missing" in line


def test_doctor_counts_the_sites_of_a_good_table() -> None:
    _hosts('[[slurm]]\nname = "lab"\nlogin = "me@127.0.0.1:2222"\npartitions = ["gpu"]\n')
    done = xyclaw("doctor")
    line = next(line for line in done.stdout.splitlines() if "hosts.toml" in line)
    assert line.startswith("[ok") and "0 host(s) and 1 Slurm site(s)" in line


def test_in_chinese_the_reason_is_chinese() -> None:
    _hosts(BROKEN, chinese=True)
    done = xyclaw("offers", "--provider", "lab")
    assert "未知的提供方 'lab'" in done.stderr
    assert "未能载入：hosts.toml 的 [[slurm]] 表" in done.stderr


def test_providers_lists_the_table_that_did_not_read_with_why_and_fails() -> None:
    _hosts(BROKEN, chinese=True)
    done = xyclaw("providers", "--no-check")
    assert done.returncode == 1
    row = next(line for line in done.stdout.splitlines() if line.startswith("slurm "))
    assert "否" in row and "缺少 login" in row and "hosts.toml" in row
    assert "Traceback" not in done.stderr
