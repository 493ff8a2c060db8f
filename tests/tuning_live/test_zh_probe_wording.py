"""What the fabric probe finds, a tune's stored event and a failed nccl-tests run, in Chinese:
no English word is left but the data (names, NCCL variables, interfaces, a tool's own output),
and the English is what it always was."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.support.simcluster import sim_cluster
from tests.support.zh_words import WORD, english_words
from tests.tuning_live.conftest import TIME_SCALE
from xyclaw.engine import Engine
from xyclaw.engine.compose import Composition
from xyclaw.errors import UsageError
from xyclaw.store.event_log import said_of
from xyclaw.tuning.fabric import FabricReport, GpuNic, IfaceInfo, NodeFabric, PortInfo
from xyclaw.tuning.probe import missing_tools, missing_tools_said, parse_node_probe, summarize
from xyclaw.tuning.runner import MeasureSettings
from xyclaw.tuning.service import TuningError
from xyclaw.wording import Said, said

# A tool's own words and the names a probe reads; everything else must be Chinese.
DATA = {"mlx", "eth", "WARN", "DOWN", "Ethernet", "InfiniBand", "nvidia_peermem"}
DATA |= {"NCCL_IB_GID_INDEX", "NCCL_DEBUG", "INFO", "all_reduce_perf", "mpirun", "nccl"}
DATA |= {"tests", "HCA", "RDMA", "RoCE", "GID", "IPv", "MPI", "PATH", "GPUDirect", "Gb"}
DATA |= {"nccl-tests", "HPC", "Open", "hdr", "roce", "topo", "ibstat"}


class Steps:
    """A progress sink that keeps what a tune said, as the operations panel is handed it."""

    def __init__(self) -> None:
        self.said: list[Said | str] = []

    def update(self, message: Said | str, fraction: float | None = None) -> None:
        self.said.append(message)

    def check_cancelled(self) -> None:
        return None


def _zh_clean(message: Said | str, data: set[str]) -> str:
    assert isinstance(message, Said), f"still a plain sentence: {message!r}"
    zh = message.in_language("zh")
    data = data | set(re.findall(r"NCCL_[A-Z_]+", zh))  # NCCL's variables, as they are set
    left = _without(zh, data)
    assert not english_words(left, data), (zh, english_words(left, data))
    return zh


def _without(text: str, data: set[str]) -> str:
    """``text`` with the names that are more than a word taken out whole (a host name such
    as ``c-node0``, a tool's line); plain words are left to ``english_words``' data."""
    for item in sorted(data, key=len, reverse=True):
        if not re.fullmatch(r"[A-Za-z_]+", item):
            text = text.replace(item, " ")
    return text


def _port(hca: str, state: str, rate: float, layer: str, gid: int | None) -> PortInfo:
    return PortInfo(hca, 1, state, rate, layer, gid, 4, None)


def _node(name: str, ports: tuple[PortInfo, ...], gpus: int = 8, **kw: object) -> NodeFabric:
    return NodeFabric(
        name=name,
        gpu_count=gpus,
        gpu_name="NVIDIA A800-SXM4-80GB",
        nvlinks=8,
        gpu_nics=(GpuNic(0, "mlx5_0", "PIX"),),
        ports=ports,
        **kw,  # type: ignore[arg-type]
    )


def test_every_finding_is_worded_and_its_english_is_unchanged() -> None:
    roce = (
        _port("mlx5_0", "ACTIVE", 100.0, "Ethernet", 3),
        _port("mlx5_1", "ACTIVE", 50.0, "Ethernet", None),
        _port("mlx5_2", "DOWN", 100.0, "Ethernet", 3),
    )
    env = {"NCCL_IB_GID_INDEX": "7", "NCCL_DEBUG": "INFO"}
    eth0 = IfaceInfo("eth0", "10.0.0.1", 24, "up", 25000, 1500, True)
    gone = said("op.tune.no_answer")
    nodes = [
        _node("n0", roce, nccl_env=env, peermem=True, ifaces=(eth0,)),
        _node("n1", roce, gpus=4, nccl_env=env, peermem=False),
        NodeFabric(name="n2", error=gone.english, error_said=gone),
    ]
    s = summarize(nodes, "roce-100")
    assert s.findings == (
        "n2: not probed (no answer)",
        "n0: mlx5_2 port 1 is DOWN",
        "n1: mlx5_2 port 1 is DOWN",
        "ports below the fabric's 100 Gb/s: n0:mlx5_1, n1:mlx5_1",
        "the RoCE v2 GID index differs between ports (3: 2 ports, None: 2 ports); NCCL takes"
        " one index for all, 3 is the most common",
        "nodes have different GPU counts: n0=8, n1=4",
        "nvidia_peermem is not loaded on n1: GPUDirect RDMA may be off (NCCL then copies"
        " through host memory)",
        "no network interface with an address is common to all nodes",
        "the image sets NCCL_DEBUG=INFO, NCCL_IB_GID_INDEX=7",
        "all_reduce_perf (nccl-tests) is not on the PATH of n0, n1",
    )
    assert [f.english for f in s.findings_said] == list(s.findings)
    names = {"n0", "n1", "n2"}
    zh = [_zh_clean(f, DATA | names) for f in s.findings_said]
    assert zh[0] == "n2：未探测（没有应答）"
    assert zh[3] == "低于网络标称 100 Gb/s 的端口：n0:mlx5_1、n1:mlx5_1"
    assert zh[4] == (
        "各端口的 RoCE v2 GID 索引不同（3：2 个端口、无：2 个端口）；NCCL 对所有端口只用一个索引，"
        "最常见的是 3"
    )
    assert zh[-1] == "n0、n1 的 PATH 中没有 all_reduce_perf（nccl-tests）"

    # Nodes whose probe output could not be read: a tool's own words stay as they are.
    failed_gpus = "@@xyclaw-begin gpus\nNVIDIA-SMI has failed\n@@xyclaw-end gpus 9\n"
    garbled = (
        "@@xyclaw-begin gpus\n\n@@xyclaw-end gpus 9\n"
        "@@xyclaw-begin topo\ngarbage\n@@xyclaw-end topo 0\n"
    )
    broken = [
        _node("n0", roce[:1]),
        parse_node_probe("n3", failed_gpus),
        parse_node_probe("n4", "nothing the probe prints"),
        parse_node_probe("n5", garbled),
    ]
    unread = summarize(broken, "roce-100")
    assert unread.findings[:5] == (
        "n3: nvidia-smi -L failed: NVIDIA-SMI has failed",
        "n4: not probed (the probe printed nothing readable)",
        "n5: nvidia-smi -L failed: no output",
        "n5: nvidia-smi topo -m: not nvidia-smi topo -m output: no column header with GPU0\n"
        "  -> pass the output of `nvidia-smi topo -m`",
        "nodes differ in their RDMA link layer: n0=Ethernet, n3=none, n5=none",
    )
    assert unread.findings[5] == "the cluster was rented as roce-100 but its HCAs run None"
    assert [f.english for f in unread.findings_said] == list(unread.findings)
    tool_words = {"NVIDIA-SMI", "has", "failed"}
    for i, finding in enumerate(unread.findings_said):
        if i != 3:  # the parser's own message and hint are English still
            _zh_clean(finding, DATA | tool_words | {"n0", "n3", "n4", "n5"})
    assert unread.findings_said[1].in_language("zh") == "n4：未探测（探测没有输出可读的内容）"
    assert unread.findings_said[4].in_language("zh") == (
        "各节点的 RDMA 链路层不同：n0=Ethernet、n3=无、n5=无"
    )

    # Rented as InfiniBand: Ethernet HCAs, then none at all, then RoCE with no v2 GID.
    ib_ports = (_port("mlx5_0", "ACTIVE", 200.0, "InfiniBand", None),)
    mixed = summarize([_node("n0", roce[:1]), _node("n1", ib_ports)], "ib-hdr-200")
    assert mixed.findings[:2] == (
        "nodes differ in their RDMA link layer: n0=Ethernet, n1=InfiniBand",
        "the cluster was rented as ib-hdr-200 but its HCAs run Ethernet",
    )
    bare = summarize([_node("n0", ()), _node("n1", ())], "ib-hdr-200")
    assert (
        bare.findings[0] == "the cluster was rented as ib-hdr-200 but no node shows an RDMA device"
    )
    no_v2 = (_port("mlx5_0", "ACTIVE", 100.0, "Ethernet", None),)
    nogid = summarize([_node("n0", no_v2)], "roce-100")
    assert nogid.findings[0] == "no port has a RoCE v2 GID on an IPv4 address; RoCE v2 cannot work"
    for summary in (mixed, bare, nogid):
        assert [f.english for f in summary.findings_said] == list(summary.findings)
        for finding in summary.findings_said:
            _zh_clean(finding, DATA | {"n0", "n1"})

    # Stored and read back (the History replay reads a stored report), still worded.
    report = FabricReport(1, "c", "roce-100", "A800", 0.0, tuple(broken), unread)
    again = FabricReport.from_json(json.loads(json.dumps(report.to_json())))
    assert again.summary.worded_findings() == unread.findings_said
    assert again.nodes[1].problems_said == broken[1].problems_said
    assert again.nodes[2].error_said == broken[2].error_said
    # A report stored before findings were worded still shows its English.
    old = report.to_json()
    del old["summary"]["findings_said"]
    assert FabricReport.from_json(old).summary.worded_findings() == unread.findings

    # What a test needs on its first node, worded too.
    lacking = missing_tools_said(nodes[1], multi_node=True)
    assert lacking is not None
    assert missing_tools(nodes[1], multi_node=True) == (
        "all_reduce_perf (nccl-tests) is not on the PATH of n1",
        "build https://github.com/NVIDIA/nccl-tests with MPI=1 on every node and put its "
        "build folder on the PATH",
    )
    for part in lacking:
        _zh_clean(part, DATA | {"n1"})
    with_tests = _node("n1", roce, tools={"all_reduce_perf": "/usr/bin/all_reduce_perf"})
    no_mpi = missing_tools_said(with_tests, multi_node=True)
    assert no_mpi is not None
    assert no_mpi[0].english == "mpirun is not on the PATH of n1; a test across nodes needs MPI"
    assert no_mpi[1].english == "install Open MPI (or HPC-X) on every node"
    for part in no_mpi:
        _zh_clean(part, DATA | {"n1"})


def test_a_tune_in_chinese_has_no_english_but_its_data(
    engine: Engine, parts: Composition, tmp_path: Path
) -> None:
    with sim_cluster(engine, tmp_path, nodes=2, fabric="roce-100", nic_count=2) as sc:
        for node in sc.nodes:
            node.machine.time_scale = TIME_SCALE
        engine.exec(sc.name, "echo NCCL_IB_GID_INDEX=7 >> /etc/environment")
        steps = Steps()
        result = parts.tuning().tune(sc.cluster_id, progress=steps)
        assert result.kept == "recommended"

        names = {sc.name, *(n.name for n in sc.record.nodes), "eth0", "eth1", "eth2", "WARN"}
        # the fabric's terms, as Chinese documentation keeps them, and NCCL's variables
        names |= {"DSCP", "ECN", "PFC", "ECMP", "CPU", "NVLink", "PIX", "PXB", "PHB", "docker"}
        names |= {"NET", "IB", "Socket"}  # NCCL's own INFO line, quoted
        for setting in result.recommended.settings:
            names |= {setting.name, *WORD.findall(setting.value)}
        english = [str(m) for m in steps.said]
        assert "finding: the image sets NCCL_IB_GID_INDEX=7" in english
        chinese = [_zh_clean(m, DATA | names) for m in steps.said]
        assert "发现：镜像设置了 NCCL_IB_GID_INDEX=7" in chinese

        # The event the History timeline words: its Said is stored with it.
        (row,) = [r for r in parts.events.recent(cluster_id=sc.cluster_id) if r["kind"] == "tuning"]
        stored = said_of(row)
        assert stored is not None and stored.english == row["message"]
        assert row["message"].startswith(f"{sc.name}: kept the recommended settings: healthy")
        _zh_clean(stored, DATA | names)

        # A nccl-tests run that fails: XyClaw's sentence worded, the tool's own line kept.
        cluster = sc.record
        head = cluster.nodes[0]
        bad = MeasureSettings(min_bytes="32M", max_bytes="64M", iters=1, warmup=0, repeats=1)
        runner = parts.tuning().runner
        too_many = 99  # GPUs per node: the simulated all_reduce_perf refuses and exits 1
        failed = runner.run(cluster, head, [head.hostname or head.name], too_many, {}, bad)
        assert failed.error is not None and failed.error_said is not None
        assert failed.error == failed.error_said.english
        assert failed.error.startswith(f"all_reduce_perf exited with 1 on {head.name}: ")
        tool_line = failed.error.split(": ", 1)[1]  # the tool's own last line: data
        assert failed.error_said.in_language("zh") == (
            f"all_reduce_perf 在 {head.name} 上退出，退出码 1：{tool_line}"
        )
        # The failed run as the tune's step says it.
        step = said(
            "op.tune.test_failed", label=said("op.tune.label.check"), error=failed.error_said
        )
        assert step.english == f"check: the test failed: {failed.error}"
        assert _zh_clean(step, DATA | names | {tool_line}).startswith("检查：测试失败：")


def test_a_tune_that_cannot_run_says_why_in_chinese(
    engine: Engine, parts: Composition, tmp_path: Path
) -> None:
    with sim_cluster(engine, tmp_path, nodes=1, fabric="roce-100", nic_count=2) as sc:
        sc.nodes[0].machine.command_paths.pop("all_reduce_perf")  # nccl-tests not installed
        steps = Steps()
        with pytest.raises(TuningError) as caught:
            parts.tuning().tune(sc.cluster_id, progress=steps)
        head = sc.record.nodes[0].name
        error = caught.value
        assert error.message == f"all_reduce_perf (nccl-tests) is not on the PATH of {head}"
        assert error.hint == (
            "build https://github.com/NVIDIA/nccl-tests with MPI=1 on every node and put its "
            "build folder on the PATH"
        )
        message, hint = error.in_language("zh")
        assert message == f"{head} 的 PATH 中没有 all_reduce_perf（nccl-tests）"
        assert hint is not None
        assert not english_words(_without(f"{message} {hint}", {head}), DATA)
        # The probe said so first, as a finding, in Chinese too.
        finding = f"finding: all_reduce_perf (nccl-tests) is not on the PATH of {head}"
        assert finding in [str(m) for m in steps.said]
        shown = [_zh_clean(m, DATA | {head, sc.name, "NVLink"}) for m in steps.said]
        assert f"发现：{head} 的 PATH 中没有 all_reduce_perf（nccl-tests）" in shown


def test_what_a_tune_refuses_is_said_in_chinese(
    engine: Engine, parts: Composition, tmp_path: Path
) -> None:
    with sim_cluster(engine, tmp_path, nodes=1, fabric="ib-hdr-200") as sc:
        with pytest.raises(UsageError) as not_nccl:
            parts.tuning().apply(sc.cluster_id, {"LD_PRELOAD": "x.so"}, "no")
        assert str(not_nccl.value) == (
            "LD_PRELOAD is not an NCCL variable\n  -> only NCCL_* variables are kept here"
        )
        assert not_nccl.value.in_language("zh") == (
            "LD_PRELOAD 不是 NCCL 变量",
            "这里只保存 NCCL_* 变量",
        )
        parts.clusters.update(sc.cluster_id, state="released")
        with pytest.raises(UsageError) as released:
            parts.tuning().tune(sc.cluster_id)
        assert released.value.message == (
            f"cluster {sc.name} is released and has no running nodes to tune"
        )
        assert released.value.hint == "`xyclaw clusters` shows the ones you can use"
        message, hint = released.value.in_language("zh")
        assert message == f"集群 {sc.name} 的状态为已释放，没有可调优的运行中节点"
        assert hint == "`xyclaw clusters` 会列出可用的集群"
