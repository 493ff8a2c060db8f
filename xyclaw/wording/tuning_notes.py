"""What xyclaw.tuning notes beside a verdict, a log analysis and a recommended environment
(issue 35): the lines ``xyclaw tune`` and ``xyclaw nccl analyze`` print after "note:"."""

from __future__ import annotations

TEXTS: dict[str, tuple[str, str]] = {
    # xyclaw.tuning.analyze: reading an nccl-tests log
    "op.note.busbw_off": (
        "{count} row(s) have a busbw that is not algbw x {factor} for "
        "{collective} on {n} ranks (first at {size} bytes)",
        "{count} 行的 busbw 不等于 algbw x {factor}（{collective}，{n} 个 rank；"
        "第一处在 {size} 字节）",
    ),
    "op.note.other_tests": (
        "{count} other test(s) in the log are not judged",
        "日志中另外 {count} 个测试没有评判",
    ),
    "op.note.nodes_differ": (
        "the log's ranks run on {log_nodes} host name(s); --nodes {nodes} is used",
        "日志中的 rank 运行在 {log_nodes} 个主机名上；按 --nodes {nodes} 计算",
    ),
    "op.note.pass_fabric": (
        "pass --fabric (e.g. ib-hdr-200, roce-100) to judge it against the network",
        "传入 --fabric（如 ib-hdr-200、roce-100）才能对照网络评判",
    ),
    "op.note.unknown_gpu": (
        "unknown GPU model: no NVLink/PCIe figure to judge a one-node run by",
        "未知的 GPU 型号：没有 NVLink/PCIe 数值可用来评判单节点运行",
    ),
    "op.note.nodes_unknown": (
        "the log does not say how many nodes ran it: pass --nodes and --gpus-per-node",
        "日志没有说明有几个节点运行：请传入 --nodes 和 --gpus-per-node",
    ),
    "op.note.footer_differs": (
        "the footer's average ({footer}) differs from the rows' ({rows}): the log may be "
        "edited or cut",
        "结尾的平均值（{footer}）与各行算出的（{rows}）不同：日志可能被修改或截断",
    ),
    # xyclaw.tuning.verdict
    "op.note.socket_jitter": (
        "TCP sockets: bus bandwidth varied by {jitter} between runs",
        "TCP 套接字：各次运行之间总线带宽波动了 {jitter}",
    ),
    "op.note.truncated": (
        "a run ended before its footer; its rows are counted as far as they go",
        "有一次运行在结尾之前就结束了；它的各行按已有的部分计算",
    ),
    "op.note.above_ceiling": (
        "above the ceiling: two-node runs use Tree and NVLS can exceed the link figure; "
        "NCCL_ALGO=RING measures the network alone",
        "超过了上限：两节点运行使用 Tree，NVLS 可能超过链路数值；NCCL_ALGO=RING 只测量网络本身",
    ),
    "op.note.cut_off": (
        "the run was cut off at {size} bytes, before the large messages where bus "
        "bandwidth peaks; run it to the end to judge it",
        "运行在 {size} 字节处被截断，还没到总线带宽达到峰值的大消息；请完整运行后再评判",
    ),
    # xyclaw.tuning.expect
    "op.note.nics_assumed": (
        "{count} NICs per node assumed (one per GPU)",
        "假定每个节点 {count} 块网卡（每块 GPU 一块）",
    ),
    # xyclaw.tuning.settings: what NCCL's environment cannot fix
    "op.note.no_roce_gid": (
        "no RoCE v2 GID on an IPv4 address was found: give the RoCE netdevs IPv4 "
        "addresses (the GID table fills in by itself), then tune again",
        "没有找到 IPv4 地址上的 RoCE v2 GID：给 RoCE 网卡配置 IPv4 地址（GID 表会自动填充），"
        "然后重新调优",
    ),
    "op.note.roce_pfc_ecn": (
        "RoCE needs PFC and ECN on the switches for the class NCCL_IB_TC names "
        "({tc}: DSCP 26); ask the provider which class is lossless",
        "RoCE 需要交换机为 NCCL_IB_TC 指定的流量类别（{tc}：DSCP 26）开启 PFC 和 ECN；"
        "请向服务商确认哪个类别是无损的",
    ),
    "op.note.gdr_across_cpu": (
        "some GPUs reach their nearest HCA only across the CPU ({gdr}); NCCL keeps "
        "GPUDirect RDMA off there, which is usually right",
        "部分 GPU 只能经过 CPU 到达最近的 HCA（{gdr}）；NCCL 在那里不启用 GPUDirect RDMA，"
        "这通常是对的",
    ),
    "op.note.no_peermem": (
        "nvidia_peermem is not loaded: run `modprobe nvidia_peermem` on every node, "
        "or GPUDirect RDMA cannot work",
        "nvidia_peermem 没有加载：在每个节点上运行 `modprobe nvidia_peermem`，"
        "否则 GPUDirect RDMA 无法工作",
    ),
    "op.note.image_forces": (
        "the image forces {name}={value}: NCCL's docs advise against forcing it "
        "(slower, or corrupt results with LL128 where unsupported); remove it from the "
        "image",
        "镜像强制设置了 {name}={value}：NCCL 文档建议不要强制设置它"
        "（会更慢，或在不支持 LL128 的地方得到错误结果）；请从镜像中去掉它",
    ),
}
