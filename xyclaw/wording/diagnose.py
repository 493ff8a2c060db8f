"""What ``xyclaw diagnose`` and a paste into the chat say about pasted command output (issue 30)."""

from __future__ import annotations

TEXTS: dict[str, tuple[str, str]] = {
    "op.diag.kind": ("This is the output of {kind}.", "这是 {kind} 的输出。"),
    "op.diag.nothing_wrong": (
        "Nothing in it needs action.",
        "其中没有需要处理的问题。",
    ),
    "op.diag.point": ("[{severity}] {what}", "[{severity}] {what}"),
    "op.diag.do": ("  what to do: {do}", "  处理办法：{do}"),
    "op.diag.severity.info": ("info", "提示"),
    "op.diag.severity.warning": ("warning", "警告"),
    "op.diag.severity.error": ("error", "错误"),
    "op.diag.severity.critical": ("critical", "严重"),
    "op.diag.raw": ("{text}", "{text}"),
    "op.diag.detail": ("details: {text}", "详情：{text}"),
    "op.diag.gpus": ("{count} GPU(s): {names}", "{count} 块 GPU：{names}"),
    "op.diag.driver": ("driver {driver}, CUDA {cuda}", "驱动 {driver}，CUDA {cuda}"),
    "op.diag.mig": ("{count} MIG device(s)", "{count} 个 MIG 设备"),
    "op.diag.processes": ("{count} process(es) on the GPUs", "GPU 上有 {count} 个进程"),
    "op.diag.processes_not_shown": (
        "the process list is not in the text",
        "文本中没有进程列表",
    ),
    "op.diag.remap_failed": (
        "GPU {gpu}: a row remapping failed",
        "GPU {gpu}：行重映射失败",
    ),
    "op.diag.remap_pending": (
        "GPU {gpu}: a row remap waits for a GPU reset",
        "GPU {gpu}：有行重映射等待 GPU 重置",
    ),
    "op.diag.do_rma": (
        "drain the node and ask the provider to replace the GPU",
        "排空该节点，请云厂商更换这块 GPU",
    ),
    "op.diag.do_reset": ("reset the GPU when no job runs on it", "在没有任务运行时重置这块 GPU"),
    "op.diag.no_gpus": ("the CSV has no GPU line", "这份 CSV 中没有 GPU 行"),
    "op.diag.topo": (
        "{gpus} GPU(s), {nics} NIC(s); {nvlinked} of {pairs} GPU pair(s) joined by NVLink",
        "{gpus} 块 GPU，{nics} 个网卡；{pairs} 对 GPU 中有 {nvlinked} 对通过 NVLink 相连",
    ),
    "op.diag.no_nvlink": (
        "no GPU pair is joined by NVLink: GPU-to-GPU traffic crosses PCIe",
        "没有任何一对 GPU 通过 NVLink 相连：GPU 之间的流量走 PCIe",
    ),
    "op.diag.do_no_nvlink": (
        "expect lower all-reduce bandwidth in the node; pick an SXM/NVLink offer for "
        "tensor parallelism",
        "节点内 all-reduce 带宽会偏低；做张量并行请选 SXM/NVLink 机型",
    ),
    "op.diag.cross_socket": (
        "these GPU pairs talk across CPU sockets (SYS): {pairs}",
        "这些 GPU 对之间跨 CPU 插槽通信（SYS）：{pairs}",
    ),
    "op.diag.hcas": (
        "{hcas} HCA(s), {ports} port(s): {active} active, {roce} RoCE (Ethernet)",
        "{hcas} 个 HCA，{ports} 个端口：{active} 个活动，{roce} 个 RoCE（以太网）",
    ),
    "op.diag.port_down": (
        "port {port} is not active (state {state}, physical {phys})",
        "端口 {port} 不在活动状态（状态 {state}，物理状态 {phys}）",
    ),
    "op.diag.do_port_down": (
        "check the cable and the switch port; leave this HCA out of NCCL_IB_HCA until it is up",
        "检查线缆和交换机端口；恢复前不要把这个 HCA 放进 NCCL_IB_HCA",
    ),
    "op.diag.mixed_rates": (
        "the active ports run at different rates: {rates} Gb/s",
        "活动端口的速率不一致：{rates} Gb/s",
    ),
    "op.diag.do_mixed_rates": (
        "a slow port holds back every ring through it: check its cable and link width",
        "慢端口会拖慢经过它的每个环：检查它的线缆和链路宽度",
    ),
    "op.diag.gids": (
        "{count} GID(s), {v2} of them RoCE v2",
        "{count} 个 GID，其中 {v2} 个是 RoCE v2",
    ),
    "op.diag.no_roce_v2": ("no RoCE v2 GID is configured", "没有配置 RoCE v2 GID"),
    "op.diag.do_no_roce_v2": (
        "give the interface an IPv4 address so the driver adds a RoCE v2 GID, then set "
        "NCCL_IB_GID_INDEX to it",
        "给网卡配置 IPv4 地址，让驱动生成 RoCE v2 GID，再把 NCCL_IB_GID_INDEX 设为它",
    ),
    "op.diag.no_xid": (
        "the kernel log has no NVIDIA XID line",
        "内核日志中没有 NVIDIA XID 行",
    ),
    "op.diag.xids": ("{count} XID event(s): XID {codes}", "{count} 个 XID 事件：XID {codes}"),
    "op.diag.xid_info": ("XID {code}: {what}", "XID {code}：{what}"),
    "op.diag.xid_gpus": ("on {count} GPU(s): {pcis}", "涉及 {count} 块 GPU：{pcis}"),
    "op.diag.nvrm_no_xid": (
        "NVIDIA driver messages, none of them an XID error",
        "NVIDIA 驱动消息，其中没有 XID 错误",
    ),
    "op.diag.topo_cut": (
        "the matrix is cut: {rows} of {gpus} GPU rows are in the text",
        "矩阵不完整：文本中只有 {gpus} 行 GPU 中的 {rows} 行",
    ),
    "op.diag.nccl_ranks": (
        "{ranks} rank(s) on {nodes} node(s)",
        "{nodes} 个节点上共 {ranks} 个 rank",
    ),
    "op.diag.nccl_error": ("NCCL error: {text}", "NCCL 错误：{text}"),
    "op.diag.do_nccl_error": (
        "rerun with NCCL_DEBUG=INFO and read the first NCCL WARN line",
        "用 NCCL_DEBUG=INFO 重新运行，查看第一条 NCCL WARN",
    ),
    "op.diag.cuda_oom": ("the GPU ran out of memory: {text}", "GPU 显存不足：{text}"),
    "op.diag.do_oom": (
        "lower the micro-batch size, turn on gradient checkpointing, or shard more (ZeRO/FSDP)",
        "减小微批大小、开启梯度检查点，或加大切分（ZeRO/FSDP）",
    ),
    "op.diag.cuda_error": ("CUDA error: {text}", "CUDA 错误：{text}"),
    "op.diag.do_cuda_error": (
        "look in the node's kernel log (dmesg) for an XID at the same time",
        "在节点内核日志（dmesg）中查找同一时间的 XID",
    ),
    "op.diag.exit": ("a process exited with code {code}", "有进程以代码 {code} 退出"),
    "op.diag.nccl_net": (
        "NCCL {version} moved data over: {transport}",
        "NCCL {version} 使用的数据通道：{transport}",
    ),
    "op.diag.socket_fallback": (
        "NCCL sent data over TCP sockets, not RDMA: inter-node traffic is slow",
        "NCCL 通过 TCP 套接字而不是 RDMA 传数据：节点间通信很慢",
    ),
    "op.diag.do_socket_fallback": (
        "check that the IB/RoCE devices are up and visible in the container, NCCL_IB_DISABLE is "
        "not set, and NCCL_IB_HCA names existing HCAs",
        "检查 IB/RoCE 设备已启用且在容器中可见、未设置 NCCL_IB_DISABLE、NCCL_IB_HCA 指向存在的 HCA",
    ),
    "op.diag.progress": ("last step {step}, loss {loss}", "最后一步 {step}，loss {loss}"),
    "op.diag.no_progress": ("no training step in the text", "文本中没有训练步"),
    "op.diag.log_unread": (
        "nothing in the log was recognised",
        "日志中没有能识别的内容",
    ),
    "op.diag.empty": ("the text is empty", "文本为空"),
    "op.diag.unknown": (
        "XyClaw does not recognise this text as the output of a command it reads",
        "XyClaw 无法把这段文本识别为它能读取的命令输出",
    ),
    "op.diag.unreadable": (
        "it looks like {kind} output, but it cannot be read: {why}",
        "它看起来是 {kind} 的输出，但无法读取：{why}",
    ),
    "op.diag.expected": (
        "paste the whole output of one of: nvidia-smi (the table, -q, -L, --query-gpu CSV, "
        "topo -m), ibstat, ibv_devinfo, show_gids, dmesg (NVRM Xid lines), an nccl-tests run "
        "(all_reduce_perf ...), or a training log or NCCL watchdog trace",
        "请粘贴以下命令之一的完整输出：nvidia-smi（表格、-q、-L、--query-gpu CSV、topo -m）、"
        "ibstat、ibv_devinfo、show_gids、dmesg（NVRM Xid 行）、一次 nccl-tests 运行"
        "（all_reduce_perf 等），或训练日志、NCCL watchdog 报错",
    ),
    "op.diag.cli.unreadable_file": ("cannot read {path}: {why}", "无法读取 {path}：{why}"),
    "op.diag.cli.file_hint": (
        "give the path of a text file with the output, or - to read it from stdin",
        "请给出保存输出的文本文件路径，或用 - 从标准输入读取",
    ),
    "op.diag.kindname.training log": ("a training log", "训练日志"),
    "op.diag.kindname.watchdog trace": ("an NCCL watchdog trace", "NCCL watchdog 报错"),
    "op.diag.cut": (
        "only the first {chars} characters were read",
        "只读取了前 {chars} 个字符",
    ),
}
