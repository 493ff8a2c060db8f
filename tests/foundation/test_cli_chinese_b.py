"""The last English error texts a person can meet, in the user's language (issue 35, d35b):
hosts.toml's own-host and [[slurm]] entries, Slurm's refusals and probes, `xyclaw nccl
analyze`'s options, a node's job folder and log reads, a history opened for review, a report's
period, the job runner's cluster checks, the in-memory provider and a node's bootstrap. Each
is said in Chinese with no run of three English words, and in English as before."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.foundation.test_cli_chinese import english_runs
from xyclaw.cli.main import main
from xyclaw.errors import XyclawError
from xyclaw.paths import AppPaths


def _set_chinese() -> None:
    config = AppPaths.from_environment().config_file
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('[gui]\nlanguage = "zh_CN"\n', encoding="utf-8")


def _both(error: XyclawError) -> tuple[str, str]:
    """(English, Chinese) of an error as a person reads it: message and hint together."""
    message, hint = error.in_language("zh")
    return f"{error.message}\n{error.hint or ''}", f"{message}\n{hint or ''}"


def _chinese_only(text: str) -> None:
    assert not english_runs(text), english_runs(text)


# -- own hosts (xyclaw.providers.own_hosts), through `xyclaw hosts list` ------------------------
def test_an_own_host_typed_wrong_in_hosts_toml_is_said_in_chinese(
    xyclaw_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    paths = AppPaths.from_environment()
    paths.config_dir.mkdir(parents=True, exist_ok=True)
    hosts = paths.config_dir / "hosts.toml"
    hosts.write_text('[[host]]\nname = "me@box:99999"\ngpu = "A100"\n', encoding="utf-8")
    assert main(["hosts", "list"]) == 2
    english = capsys.readouterr().err
    assert f"{hosts}: [[host]] #1: name = 'me@box:99999' has port '99999'" in english, english
    assert "a port is a number from 1 to 65535: user@host:port" in english
    _set_chinese()
    assert main(["hosts", "list"]) == 2
    chinese = capsys.readouterr().err
    assert "name = 'me@box:99999' 里的端口 '99999' 无效" in chinese, chinese
    _chinese_only(chinese)
    hosts.write_text('[[host]]\nname = "box"\ngpu = "A100"\nuser = "me"\n', encoding="utf-8")
    assert main(["hosts", "list"]) == 2
    chinese = capsys.readouterr().err
    assert "user 和 port 要和 host 一起写" in chinese, chinese
    _chinese_only(chinese)
    hosts.write_text('[[host]]\nname = "box"\ngpu = "A100"\nfabric = 7\n', encoding="utf-8")
    assert main(["hosts", "list"]) == 2
    chinese = capsys.readouterr().err
    assert "fabric：7 不是互联名称" in chinese, chinese
    _chinese_only(chinese)


def test_own_hosts_too_few_free_is_said_in_chinese(tmp_path: Path) -> None:
    from xyclaw.providers.base import ClusterOrder
    from xyclaw.providers.own_hosts import OwnHostsProvider

    hosts = tmp_path / "hosts.toml"
    hosts.write_text('[[host]]\nname = "a"\ngpu = "A100"\ngpus = 8\n', encoding="utf-8")
    provider = OwnHostsProvider(hosts, tmp_path / "own-hosts.json")
    order = ClusterOrder(
        gpu="A100", gpu_count=16, region=None, fabric=None, idempotency_key="k", ssh_public_key=""
    )
    with pytest.raises(XyclawError) as caught:
        provider.create(order)
    english, chinese = _both(caught.value)
    assert "only 1 free own hosts with 8 x A100; 2 needed" in english, english
    assert f"add hosts to {hosts} or ask for fewer GPUs" in english
    assert "带 8 x A100 的空闲自有主机只有 1 台；需要 2 台" in chinese, chinese
    _chinese_only(chinese)


# -- [[slurm]] tables and Slurm's answers (xyclaw.providers.slurm) ----------------------------
def test_a_slurm_table_typed_wrong_is_said_in_chinese(tmp_path: Path) -> None:
    from xyclaw.providers.slurm import load_slurm_sites

    hosts = tmp_path / "hosts.toml"
    hosts.write_text(
        '[[slurm]]\nname = "lab"\nlogin = "me@h"\nlogin_shell = "yes"\n', encoding="utf-8"
    )
    with pytest.raises(XyclawError) as caught:
        load_slurm_sites(hosts)
    english, chinese = _both(caught.value)
    assert f"{hosts}, [[slurm]] #1: login_shell = 'yes'" in english, english
    assert "login_shell: run Slurm's commands in a login shell (true by default" in english
    assert "login_shell = 'yes' 无效" in chinese and "在登录 shell 里运行 Slurm 命令" in chinese
    _chinese_only(chinese)
    hosts.write_text(
        '[[slurm]]\nname = "lab"\nlogin = "a"\n[[slurm]]\nname = "lab"\nlogin = "b"\n',
        encoding="utf-8",
    )
    with pytest.raises(XyclawError) as caught:
        load_slurm_sites(hosts)
    english, chinese = _both(caught.value)
    assert f"{hosts}, [[slurm]] #2: the name 'lab' is used twice" in english, english
    assert "名字 'lab' 用了两次" in chinese and "给每个 Slurm 集群起不同的名字" in chinese
    _chinese_only(chinese)


def test_slurm_s_refusal_and_a_rent_at_a_slurm_site_are_said_in_chinese() -> None:
    from xyclaw.providers.base import ClusterOrder
    from xyclaw.providers.slurm import ShellResult, SlurmClient, SlurmProvider, SlurmSite

    site = SlurmSite(name="lab", login="me@h", login_shell=False)
    client = SlurmClient(
        site, lambda line, timeout: ShellResult(1, "", "sbatch: error: Invalid account")
    )
    with pytest.raises(XyclawError) as caught:
        client.run("sbatch x.sh")
    english, chinese = _both(caught.value)
    assert "Slurm at lab refused `sbatch`: sbatch: error: Invalid account" in english, english
    assert "this is Slurm's own answer; check the spec" in english
    assert "lab 的 Slurm 拒绝了 `sbatch`：sbatch: error: Invalid account" in chinese, chinese
    # Slurm's own line is data: only the rest must be Chinese
    _chinese_only(chinese.replace("sbatch: error: Invalid account", ""))
    order = ClusterOrder(
        gpu="A800", gpu_count=8, region=None, fabric=None, idempotency_key="k", ssh_public_key=""
    )
    with pytest.raises(XyclawError) as caught:
        SlurmProvider(client).create(order)
    english, chinese = _both(caught.value)
    assert "lab is a Slurm cluster: nodes are not rented there" in english, english
    assert "lab 是 Slurm 集群：那里的节点不用租" in chinese, chinese
    _chinese_only(chinese)


# -- a kept probe's file (xyclaw.engine.slurm) ----------------------------------------------
def test_a_damaged_probe_file_is_said_in_chinese(tmp_path: Path) -> None:
    from xyclaw.engine.slurm import kept_probe

    state = tmp_path / "slurm-probes.json"
    state.write_text("{not json", encoding="utf-8")
    with pytest.raises(XyclawError) as caught:
        kept_probe(state, "lab")
    english, chinese = _both(caught.value)
    assert f"{state} is damaged" in english and "move it away and probe the site again" in english
    assert f"{state} 已损坏" in chinese and "请把它移走，再探测一次站点" in chinese, chinese
    _chinese_only(chinese)


# -- `xyclaw nccl analyze` (xyclaw.tuning.analyze) -------------------------------------------
def test_nccl_analyze_s_options_are_said_in_chinese(
    xyclaw_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "all_reduce.log"
    log.write_text("hello\n", encoding="utf-8")
    assert main(["nccl", "analyze", str(log), "--nodes", "0"]) == 2
    assert "--nodes must be at least 1, not 0" in capsys.readouterr().err
    assert main(["nccl", "analyze", str(log), "--fabric", "bogus"]) == 2
    assert "e.g. --fabric ib-hdr-200 or roce-100" in capsys.readouterr().err
    _set_chinese()
    assert main(["nccl", "analyze", str(log), "--nodes", "0"]) == 2
    chinese = capsys.readouterr().err
    assert "--nodes 至少为 1，不能是 0" in chinese, chinese
    _chinese_only(chinese)
    assert main(["nccl", "analyze", str(log), "--fabric", "bogus"]) == 2
    chinese = capsys.readouterr().err
    assert "例如 --fabric ib-hdr-200 或 roce-100" in chinese, chinese
    _chinese_only(chinese)


# -- a job's folder and log reads on a node (xyclaw.jobs.node_commands) ------------------------
def test_a_job_folder_and_a_log_read_out_of_range_are_said_in_chinese() -> None:
    from xyclaw.jobs.node_commands import NodeTask, read_log, tail_log

    with pytest.raises(XyclawError) as caught:
        NodeTask(job_id="../etc", attempt=1, rank=0)
    english, chinese = _both(caught.value)
    assert "job id '../etc' cannot name a folder on the node" in english, english
    assert "作业编号 '../etc' 不能用作节点上的文件夹名" in chinese, chinese
    _chinese_only(chinese)
    task = NodeTask(job_id="j1", attempt=1, rank=0)
    calls: list[tuple[Callable[[], str], str, str]] = [
        (lambda: tail_log(task, lines=0), "0 lines is out of range", "0 行超出范围"),
        (lambda: read_log(task, -1), "log offset -1 is negative", "日志偏移 -1 是负数"),
    ]
    for call, english_text, chinese_text in calls:
        with pytest.raises(XyclawError) as caught:
            call()
        english, chinese = _both(caught.value)
        assert english_text in english and chinese_text in chinese, (english, chinese)
        _chinese_only(chinese)


# -- a history opened for review (xyclaw.store.replay) ----------------------------------------
def test_a_missing_history_to_review_is_said_in_chinese(tmp_path: Path) -> None:
    from xyclaw.store.replay import ReadOnlyStore

    missing = tmp_path / "history.db"
    with pytest.raises(XyclawError) as caught:
        ReadOnlyStore(missing)
    english, chinese = _both(caught.value)
    assert f"there is no history database at {missing}" in english, english
    assert "it is made on the first run of XyClaw; check the data folder in Settings" in english
    assert f"{missing} 没有历史数据库" in chinese and "请在设置里检查数据文件夹" in chinese
    _chinese_only(chinese)


# -- a report's period (xyclaw.engine.reports) -----------------------------------------------
def test_a_report_s_period_wrong_is_said_in_chinese() -> None:
    from xyclaw.engine.reports import period_bounds

    with pytest.raises(XyclawError) as caught:
        period_bounds("yesterday", 1_700_000_000.0)
    english, chinese = _both(caught.value)
    assert "unknown period 'yesterday'" in english and "one of: today, month" in english
    assert "未知的时段 'yesterday'" in chinese and "可选：today, month" in chinese, chinese
    _chinese_only(chinese)
    with pytest.raises(XyclawError) as caught:
        period_bounds((2.0, 1.0), 3.0)
    english, chinese = _both(caught.value)
    assert "a period's end must come after its start" in english
    assert "时段的结束必须在开始之后" in chinese
    _chinese_only(chinese)


# -- the in-memory provider (xyclaw.providers.memory) ------------------------------------------
def test_the_memory_provider_s_missing_gpu_is_said_in_chinese() -> None:
    from xyclaw.providers.base import ClusterOrder
    from xyclaw.providers.memory import MemoryCloud, MemoryProvider

    provider = MemoryProvider(MemoryCloud([]))
    order = ClusterOrder(
        gpu="H100", gpu_count=8, region=None, fabric=None, idempotency_key="k", ssh_public_key=""
    )
    with pytest.raises(XyclawError) as caught:
        provider.create(order)
    english, chinese = _both(caught.value)
    assert "no H100 here" in english and "ask for another GPU model" in english
    assert "这里没有 H100" in chinese and "请换一种 GPU 型号" in chinese
    _chinese_only(chinese)


# -- a node's bootstrap (xyclaw.engine.bootstrap) -------------------------------------------
def test_a_node_s_unreadable_nvidia_smi_is_said_in_chinese() -> None:
    from xyclaw.engine.bootstrap import NodeExpectation, check_driver
    from xyclaw.remote.result import CommandResult

    def run(command: str) -> CommandResult:
        return CommandResult(host="n1", command=command, exit_code=0, stdout="garbage\n", stderr="")

    with pytest.raises(XyclawError) as caught:
        check_driver(run, NodeExpectation(gpu="A800", gpus=8, fabric="none"), "n1")
    english, chinese = _both(caught.value)
    assert "n1: driver check failed: not nvidia-smi -q output: no '==NVSMI LOG==' banner" in english
    assert "n1：驱动检查未通过：不是 nvidia-smi -q 的输出" in chinese, chinese
    _chinese_only(chinese)


# -- the job runner's cluster checks (xyclaw.jobs.runner) ---------------------------------------
def test_a_job_on_a_cluster_that_is_gone_is_said_in_chinese() -> None:
    """The runner's own node choice, on a cluster record that is no longer live (the rest of
    the runner is not needed to reach it: its parts are only asked for the cluster)."""
    from types import SimpleNamespace

    from xyclaw.jobs.runner import JobRunner

    cluster = SimpleNamespace(name="c-7", state="terminated", live=False, running_nodes=[])
    runner = SimpleNamespace(parts=SimpleNamespace(clusters={7: cluster}))
    job = SimpleNamespace(cluster_id=7, attempt=1, attempts=[])
    with pytest.raises(XyclawError) as caught:
        JobRunner._choose_nodes(runner, job, None)  # type: ignore[arg-type]
    english, chinese = _both(caught.value)
    assert "cluster c-7 is terminated" in english, english
    assert "launch the job on a live cluster (`xyclaw clusters`)" in english
    assert "集群 c-7 的状态是 terminated" in chinese, chinese
    assert "请在运行中的集群上启动作业（`xyclaw clusters`）" in chinese
    _chinese_only(chinese)
