"""Reading what Slurm prints (lines as the loopback Slurm 22.05 printed them, and GRES in the
socket-bound form later versions print) and the [[slurm]] tables of hosts.toml."""

from __future__ import annotations

from pathlib import Path

import pytest

from xyclaw.errors import ConfigError
from xyclaw.providers.own_hosts import load_hosts
from xyclaw.providers.slurm import (
    QueueWait,
    SlurmSite,
    expand_hostlist,
    load_slurm_sites,
    parse_gres,
    parse_minutes,
    parse_node_problems,
    parse_partitions,
    parse_sinfo_nodes,
    parse_squeue,
    partition_offers,
    wait_from_test_only,
)

SINFO = """\
n1|gpu*|mixed|gpu:a800:8|gpu:a800:5(IDX:0-4)|
n1|short|mixed|gpu:a800:8|gpu:a800:5(IDX:0-4)|
n2|gpu*|planned|gpu:a800:8|gpu:a800:0(IDX:N/A)|
n3|gpu*|down*|gpu:a800:8|gpu:a800:0(IDX:N/A)|
"""
SCONTROL_PARTITIONS = (
    "PartitionName=gpu AllowGroups=ALL Default=YES QoS=N/A DefaultTime=00:10:00 "
    "MaxNodes=UNLIMITED MaxTime=01:00:00 MinNodes=0 Nodes=n[1-3] State=UP TotalNodes=3\n"
    "PartitionName=short AllowGroups=ALL Default=NO DefaultTime=NONE MaxTime=00:05:00 "
    "Nodes=n1 State=UP\n"
    "PartitionName=long DefaultTime=NONE MaxTime=UNLIMITED Nodes=n1 State=UP\n"
)


def test_gres_in_the_forms_slurm_prints() -> None:
    assert parse_gres("gpu:a800:8") == ("a800", 8)
    assert parse_gres("gpu:h100:8(S:0-1)") == ("h100", 8)
    assert parse_gres("gpu:4,shard:8") == ("", 4)
    assert parse_gres("gpu:a100:2(S:0),gpu:v100:2(S:1)") == ("a100", 4)
    assert parse_gres("(null)") == ("", 0)


def test_partitions_count_free_gpus_on_usable_nodes_only() -> None:
    parts = {p.name: p for p in parse_partitions(SCONTROL_PARTITIONS, parse_sinfo_nodes(SINFO))}
    gpu = parts["gpu"]
    assert gpu.free_gpus == 3 + 8  # n1 has 5 of 8 busy; n2 idle; n3 down gives nothing
    assert gpu.free_nodes == 1
    assert (gpu.count("idle"), gpu.count("mix"), gpu.count("alloc")) == (0, 1, 0)
    assert (gpu.max_time_min, gpu.default_time_min, gpu.time_limit_min()) == (60, 10, 60)
    assert parts["short"].time_limit_min() == 5
    assert parts["long"].time_limit_min() is None  # UNLIMITED is never asked for


def test_offers_say_what_a_user_compares() -> None:
    parts = parse_partitions(SCONTROL_PARTITIONS, parse_sinfo_nodes(SINFO))
    site = SlurmSite(name="lab", login="login", price_per_gpu_hour_micros=0)
    waits = {"gpu": QueueWait("gpu", 1, 8, 11, 40 * 60)}
    offers = {o.region: o for o in partition_offers(site, parts, waits)}
    assert offers["gpu"].available_gpus == 11 and offers["gpu"].node_counts == (1, 2, 3)
    assert offers["gpu"].note.endswith("one node waits about 40 min")
    assert "long" not in offers  # no node of its own in sinfo's answer: no GPUs


def test_times_wait_and_host_lists() -> None:
    assert parse_minutes("1-02:03:04") == 1440 + 124
    assert parse_minutes("30") == 30 and parse_minutes("UNLIMITED") is None
    answer = "sbatch: Job 31 to start at 2026-12-06T20:07:51 using 2 processors on nodes n[1-2]"
    assert wait_from_test_only(answer, "2026-12-06T20:00:51") == 420
    assert wait_from_test_only("sbatch: error: Batch job submission failed", "x") is None
    assert QueueWait("gpu", 1, 8, 8, 0).words == "runs now"
    assert expand_hostlist("gpu[08-10],login") == ["gpu08", "gpu09", "gpu10", "login"]


def test_squeue_and_node_problems() -> None:
    jobs = parse_squeue(
        "3|PENDING|Resources|gpu|wrap|2||2026-12-06T19:51:55|2:00\n"
        "2|RUNNING|None|gpu|wrap|1|n1|2026-12-06T19:49:55|2:00\n"
    )
    assert [(j.job_id, j.state, j.reason, j.nodes) for j in jobs] == [
        ("3", "PENDING", "Resources", 2),
        ("2", "RUNNING", "None", 1),
    ]
    problems = parse_node_problems(
        "n1|idle|none|\nn2|draining|maintenance window|\nn2|draining|maintenance window|\n"
        "n3|idle*|Not responding|\n"
    )
    assert [p.words for p in problems.values()] == [
        "n2 draining: maintenance window",
        "n3 idle*: Not responding",
    ]


def test_hosts_toml_takes_slurm_tables_beside_hosts(tmp_path: Path) -> None:
    path = tmp_path / "hosts.toml"
    path.write_text(
        '[[host]]\nname = "gpu1"\ngpu = "A100"\n\n'
        '[[slurm]]\nname = "lab"\nlogin = "me@login.lab.edu"\naccount = "proj42"\n'
        'partitions = ["gpu"]\ngpu = "a100-80g"\nfabric = "ib-hdr-200"\n'
    )
    assert [h.name for h in load_hosts(path)] == ["gpu1"]
    (site,) = load_slurm_sites(path)
    assert (site.name, site.login, site.account, site.partitions) == (
        "lab",
        "me@login.lab.edu",
        "proj42",
        ("gpu",),
    )
    assert (site.gpu, site.fabric, site.price_per_gpu_hour_micros) == ("A100-80G", "ib-hdr-200", 0)


@pytest.mark.parametrize(
    ("table", "said"),
    [
        ('name = "lab"', "login is missing"),
        ('name = "lab"\nlogin = "x"\npartition = ["gpu"]', "unknown key 'partition'"),
        ('name = "lab"\nlogin = "x"\nprice_per_gpu_hour = "free"', "price_per_gpu_hour"),
        ('name = "lab"\nlogin = "x"\nfabric = "fast"', "fabric"),
    ],
)
def test_a_wrong_slurm_table_names_the_key(tmp_path: Path, table: str, said: str) -> None:
    path = tmp_path / "hosts.toml"
    path.write_text(f"[[slurm]]\n{table}\n")
    with pytest.raises(ConfigError, match=said):
        load_slurm_sites(path)


def test_the_batch_script_never_asks_for_unlimited_time() -> None:
    from xyclaw.errors import UsageError
    from xyclaw.jobs.slurm_jobs import build_batch
    from xyclaw.jobs.spec import parse_spec

    parts = {p.name: p for p in parse_partitions(SCONTROL_PARTITIONS, parse_sinfo_nodes(SINFO))}
    task = "name: t\nnum_nodes: 2\nresources:\n  accelerators: A800:8\nrun: python train.py\n"
    spec = parse_spec(task, source_format="skypilot", check_paths=False, on_cluster=True).spec
    batch = build_batch(spec, parts["gpu"], folder="/home/me/.xyclaw/slurm/t", account="p42")
    assert "#SBATCH --time=60\n" in batch.script  # the partition's MaxTime
    assert "#SBATCH --account=p42\n" in batch.script
    assert "#SBATCH --signal=USR1@120\n" in batch.script
    assert "SKYPILOT_NUM_NODES='2'" in batch.files["env.sh"]
    assert "MASTER_ADDR" not in batch.files["env.sh"]  # set per allocation by the script
    with pytest.raises(UsageError, match="no time limit"):
        build_batch(spec, parts["long"], folder="/x")
    timed = parse_spec(
        task + "max_runtime: 2h\n", source_format="skypilot", check_paths=False, on_cluster=True
    ).spec
    with pytest.raises(UsageError, match="allows 60 min"):
        build_batch(timed, parts["gpu"], folder="/x")
    assert "#SBATCH --time=5\n" in build_batch(spec, parts["short"], folder="/x").script


def test_gpu_samples_skip_what_is_not_a_reading() -> None:
    from xyclaw.jobs.slurm_jobs import parse_gpu_samples

    samples = parse_gpu_samples(
        1,
        "2026/12/06 20:31:00.123, 0, 97, 61000, 81920, 310.50\n"
        "2026/12/06 20:31:00.123, 1, 88, 60000, 81920, [N/A]\n"
        "2026/12/06 20:31:00.123, 2, [N/A], 60000, 81920, 300\n"
        "2026/12/06 20:31:05.1",
    )
    assert [(s.node_rank, s.gpu, s.utilization_pct, s.power_w) for s in samples] == [
        (1, 0, 97.0, 310.5),
        (1, 1, 88.0, None),
    ]


def test_sampler_lines_become_instants_in_utc_and_queue_states_read_as_any_cluster() -> None:
    from xyclaw.engine.slurm_mirror import queue_state, sample_instants
    from xyclaw.store.samples import MISSING

    text = (
        "2026/12/06 23:00:15.462, 1, 91, 61100, 81920, 311.50\n"
        "2026/12/06 23:00:15.462, 0, 90, 61000, 81920, [N/A]\n"
        "2026/12/06 23:00:20.463, 0, 12, 1000, 81920, 80.25\n"
        "2026/12/06 23:00:2"  # cut short: left out
    )
    (first, t0), (second, t1) = [(ts, r) for ts, r in sample_instants(1, text)]
    assert first == 1796598015462 and second == 1796598020463  # nvidia-smi ran with TZ=UTC
    assert list(t0["gpu"]) == [0, 1] and list(t0["util"]) == [90, 91]
    assert list(t0["mem_used_mib"]) == [61000, 61100] and t0["mem_util"][0] == 74
    assert t0["power_dw"][0] == MISSING["power_dw"] and t0["power_dw"][1] == 3115
    assert list(t1["util"]) == [12]
    assert [queue_state(s) for s in ("PENDING", "REQUEUED", "RUNNING", "COMPLETING")] == [
        "pending",
        "pending",
        "running",
        "ending",
    ]
    assert {queue_state(s) for s in ("COMPLETED", "FAILED", "CANCELLED", "TIMEOUT")} == {"ended"}


def test_a_full_partition_waits_until_enough_running_jobs_end() -> None:
    from xyclaw.providers.slurm import (
        Partition,
        SlurmNode,
        parse_running,
        wait_from_running,
    )

    def node(name: str, used: int, state: str = "mixed") -> SlurmNode:
        return SlurmNode(name, "gpu", state, "a800", 8, used)

    part = Partition("gpu", (node("n1", 8, "allocated"), node("n2", 5)), 60, 10)
    running = parse_running(
        "gpu|10:00|n[1-2]|gres:gpu:3\n"  # 10 min left, 3 GPUs on each node
        "gpu|40:00|n1|gres/gpu:5\n"  # 40 min left (25.x spells it gres/gpu)
        "gpu|UNLIMITED|n2|N/A\n"  # no limit, GPUs not said
    )
    assert running[0].nodes == ("n1", "n2") and running[0].left_s == 600
    assert running[1].gpus_per_node == 5 and running[2].left_s == float("inf")
    assert wait_from_running(part, running, 1, 3) == 0  # n2 has 3 free now
    assert wait_from_running(part, running, 1, 6) == 600  # n2 at 10 min: 3 + 3 free
    assert wait_from_running(part, running, 2, 6) == 2400  # n1 needs the 40-min job to end
    assert wait_from_running(part, running, 2, 8) is None  # n2's unlimited job holds 2
    down = Partition("gpu", (node("n1", 0, "down*"), node("n2", 0)), 60, 10)
    assert wait_from_running(down, [], 2, 8) is None and wait_from_running(down, [], 1, 8) == 0
