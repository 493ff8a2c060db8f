"""Wording of alerts: ``key: (English, Chinese)``, ``str.format`` fields in braces.

The alert rules' titles and suggested actions (``alert.title.<rule>``, ``alert.action.<rule>``),
the messages each rule builds with its figures, the XID catalogue's meanings and actions
(``alert.xid.<code>.what`` / ``.do``), why a node's telemetry stopped (``alert.down.*``), and
the guard's budget and idle warnings and releases (``alert.budget.*``, ``alert.idle.*``).
Node names, XID numbers, PCI addresses and commands are figures or stay as they are.
"""

from __future__ import annotations

_APP_ACTION = (
    "application bug: fix or restart the application; the GPU itself is fine",
    "应用程序的问题：修复或重启应用；GPU 本身没有问题",
)
_DRAIN_RESET = ("drain the node and reset the GPU before reuse", "排空该节点，复用前先重置 GPU")
_RESET_GSP = ("reset the GPU (or reboot the node)", "重置 GPU（或重启节点）")

TEXTS: dict[str, tuple[str, str]] = {
    # -- severities, where a message names one -------------------------------------------------
    "alert.severity.info": ("info", "信息"),
    "alert.severity.warning": ("warning", "警告"),
    "alert.severity.error": ("error", "错误"),
    "alert.severity.critical": ("critical", "严重"),
    # -- a cluster's health (the cluster_health tool): an open alert's line, a node's watch ---
    "alert.health.line": (
        "{severity} {rule}{where}: {message}",
        "{severity} {rule}{where}：{message}",
    ),
    "alert.health.gpu": (" gpu{gpu}", " GPU {gpu}"),
    "alert.watch.new": ("new", "尚未连接"),
    "alert.watch.up": ("up", "在线"),
    "alert.watch.down": ("down", "离线"),
    "alert.watch.stopped": ("stopped", "已停止"),
    # -- the rules: titles ---------------------------------------------------------------------
    "alert.title.node.unreachable": ("node not answering", "节点无响应"),
    "alert.title.gpu.missing": ("GPU missing", "GPU 丢失"),
    "alert.title.gpu.xid": ("XID error", "XID 错误"),
    "alert.title.gpu.ecc_uncorrectable": ("uncorrectable ECC error", "不可纠正的 ECC 错误"),
    "alert.title.gpu.thermal_throttle": ("thermal throttling", "过热降频"),
    "alert.title.gpu.power_throttle": ("power throttling", "功率受限降频"),
    "alert.title.gpu.memory_full": ("GPU memory nearly full", "GPU 显存将满"),
    "alert.title.gpu.idle_during_job": ("GPU idle while a job runs", "作业运行时 GPU 空闲"),
    "alert.title.gpu.underused": ("GPU busy but doing little", "GPU 忙碌但几乎没做事"),
    "alert.title.gpu.straggler": ("straggler GPU", "掉队的 GPU"),
    "alert.title.job.rank_straggler": ("straggler rank", "掉队的进程"),
    "alert.title.net.fabric_regression": (
        "job's bus bandwidth below the tuned baseline",
        "作业的总线带宽低于调优时的基线",
    ),
    "alert.title.net.link_regression": (
        "network link slower than its siblings",
        "某条网络链路比同机其他链路慢",
    ),
    "alert.title.node.straggler": ("straggler node", "掉队的节点"),
    "alert.title.net.traffic_collapse": ("network traffic collapsed", "网络流量骤降"),
    "alert.title.job.nccl_timeout": ("NCCL watchdog timeout", "NCCL 看门狗超时"),
    # -- the rules: what to do -----------------------------------------------------------------
    "alert.action.node.unreachable": (
        "check the node in the provider's console; if it does not come back, release it and"
        " rent a replacement (jobs resume from their last checkpoint)",
        "在云服务商的控制台检查该节点；若它没有恢复，释放它并租用替换节点（作业会从最近的检查点继续）",
    ),
    "alert.action.gpu.missing": (
        "the driver lost the GPU (fallen off the bus): drain the node and reboot it, or"
        " replace the node",
        "驱动已失去这块 GPU（已从总线脱落）：排空该节点并重启，或更换节点",
    ),
    "alert.action.gpu.xid": (
        "each XID says what to do: restart the application, drain and reset the GPU, or"
        " replace the node",
        "按 XID 处理：重启应用、排空节点并重置 GPU，或更换节点",
    ),
    "alert.action.gpu.ecc_uncorrectable": (
        "drain the node and reset the GPU before reuse (the job on it has lost its data);"
        " ask for a replacement if it repeats",
        "排空该节点，复用前先重置 GPU（其上的作业已丢失数据）；若反复出现，申请更换",
    ),
    "alert.action.gpu.thermal_throttle": (
        "the GPU is slowed to cool down: ask the provider to check the node's cooling, and"
        " move the job if it persists",
        "GPU 正在降频散热：请云服务商检查该节点的散热；若一直如此，把作业迁走",
    ),
    "alert.action.gpu.power_throttle": (
        "the GPU is held below its default power limit: restore it (nvidia-smi -pl) or ask"
        " the provider why it is capped",
        "GPU 被压在默认功率上限以下：恢复上限（nvidia-smi -pl），或询问云服务商为何限制功率",
    ),
    "alert.action.gpu.memory_full": (
        "the next allocation may fail with CUDA out of memory: lower the batch size or"
        " sequence length, or turn on activation checkpointing",
        "下一次分配可能因 CUDA 显存不足而失败：减小批大小或序列长度，或开启激活重计算",
    ),
    "alert.action.net.fabric_regression": (
        "the fabric gives the job less than nccl-tests proved when the cluster was tuned:"
        " check the named link (`ibstat`, port errors, PFC pauses) and that the job runs"
        " with the tuned NCCL variables; move the job off a bad node if it persists",
        "网络给作业的带宽低于调优时测得的基线：检查所指链路（`ibstat`、端口错误、"
        "流控暂停），并确认作业使用调优后的 NCCL 变量；若持续，把作业移出有问题的节点",
    ),
    "alert.action.net.link_regression": (
        "one RDMA link of the node carries much less of the job's traffic than the others:"
        " check it with `ibstat` and the port counters (errors, PFC pauses, a lower rate);"
        " move the job off the node if it persists",
        "该节点有一条高速网络链路承载的作业流量远少于其他链路：用 `ibstat` 和端口计数器检查它"
        "（错误、流控暂停、速率降低）；若持续，把作业移出该节点",
    ),
    "alert.action.job.rank_straggler": (
        "one rank computes slower than its peers and every synchronous step waits for it:"
        " check its GPU's clocks and temperature; exclude or replace its node if it persists",
        "有一个进程计算比其他进程慢，每个同步步骤都要等它：检查其 GPU 的频率和温度；"
        "若持续，排除或更换其节点",
    ),
    "alert.action.gpu.underused": (
        "utilization counts any kernel running, not work done: look for a rank spinning in"
        " a hung collective or a busy-wait; stop the job if it does not recover",
        "利用率只统计是否有内核在运行，而非做了多少工作：检查是否有进程在挂起的集合通信或忙等待中空转；"
        "若不恢复，停止作业",
    ),
    "alert.action.gpu.idle_during_job": (
        "you are paying for an idle GPU: check the job log (stuck data loading, a hung or"
        " crashed rank); stop the job and release the GPUs if it has ended",
        "你在为空闲的 GPU 付费：查看作业日志（数据加载卡住、某个进程挂起或崩溃）；"
        "若作业已结束，停止它并释放 GPU",
    ),
    "alert.action.gpu.straggler": (
        "a slow GPU holds back every synchronous step: check its clocks and temperature"
        " (nvidia-smi -q -d PERFORMANCE); exclude or replace the node if it persists",
        "一块慢 GPU 会拖慢每个同步步骤：检查它的频率和温度（nvidia-smi -q -d PERFORMANCE）；"
        "若一直如此，排除或更换该节点",
    ),
    "alert.action.node.straggler": (
        "a slow node holds back the whole job: check its GPUs, CPU load and data loading;"
        " replace the node if it persists",
        "一个慢节点会拖慢整个作业：检查它的 GPU、CPU 负载和数据加载；若一直如此，更换该节点",
    ),
    "alert.action.net.traffic_collapse": (
        "the job may be stuck in a collective: look for NCCL errors in the job log and ports"
        " down in `ibstat`; restart from the last checkpoint if it does not recover",
        "作业可能卡在集合通信中：在作业日志里找 NCCL 错误，用 `ibstat` 查看有无端口断开；"
        "若没有恢复，从最近的检查点重启",
    ),
    "alert.action.job.nccl_timeout": (
        "a rank died or hung, or the network stalled: read the other ranks' logs and the"
        " node alerts, then restart from the last checkpoint without the faulty node",
        "某个进程崩溃或挂起，或网络停滞：查看其他进程的日志和节点告警，"
        "然后去掉故障节点，从最近的检查点重启",
    ),
    # -- the rules' messages -------------------------------------------------------------------
    "alert.gpu_missing": ("{node}: GPU {gpu} is missing", "{node}：GPU {gpu} 丢失"),
    "alert.gpu_missing_count": (
        "{node}: GPU {gpu} is missing ({visible} of {expected} GPUs visible)",
        "{node}：GPU {gpu} 丢失（可见 {visible} / {expected} 块 GPU）",
    ),
    "alert.fabric_regression_link": (
        "{node}: the job gets {got:.1f} GB/s of bus bandwidth, {below:.0f}% below the "
        "{baseline:.1f} GB/s nccl-tests proved at tuning; likely cause: link {link} carries "
        "{percent:.0f}% of its siblings' traffic (a link flapping or trained down, or PFC pauses)",
        "{node}：作业的总线带宽为 {got:.1f} GB/s，比调优时测得的基线 {baseline:.1f} GB/s "
        "低 {below:.0f}%；可能原因：链路 {link} 的流量只有同机其他链路的 {percent:.0f}%"
        "（链路抖动或降速，或流控暂停）",
    ),
    "alert.fabric_regression_down": (
        "{node}: the job gets {got:.1f} GB/s of bus bandwidth, {below:.0f}% below the "
        "{baseline:.1f} GB/s nccl-tests proved at tuning; likely cause: link {link} carries "
        "nothing (a NIC down)",
        "{node}：作业的总线带宽为 {got:.1f} GB/s，比调优时测得的基线 {baseline:.1f} GB/s "
        "低 {below:.0f}%；可能原因：链路 {link} 没有流量（网卡掉线）",
    ),
    "alert.fabric_regression": (
        "{node}: the job gets {got:.1f} GB/s of bus bandwidth, {below:.0f}% below the "
        "{baseline:.1f} GB/s nccl-tests proved at tuning; no link carries less than its "
        "siblings: look for a changed NCCL variable (tuned: {tuned}) or PFC pauses on the switch",
        "{node}：作业的总线带宽为 {got:.1f} GB/s，比调优时测得的基线 {baseline:.1f} GB/s "
        "低 {below:.0f}%；没有哪条链路比同机其他链路慢：检查 NCCL 变量是否被改动"
        "（调优值：{tuned}）或交换机上的流控暂停",
    ),
    "alert.fabric_regression_env": (
        "{node}: the job gets {got:.1f} GB/s of bus bandwidth, {below:.0f}% below the "
        "{baseline:.1f} GB/s nccl-tests proved at tuning; likely cause: a changed NCCL "
        "variable: {changes}",
        "{node}：作业的总线带宽为 {got:.1f} GB/s，比调优时测得的基线 {baseline:.1f} GB/s "
        "低 {below:.0f}%；可能原因：NCCL 变量被改动：{changes}",
    ),
    "alert.fabric_regression_flapping": (
        "{node}: the job gets {got:.1f} GB/s of bus bandwidth, {below:.0f}% below the "
        "{baseline:.1f} GB/s nccl-tests proved at tuning; likely cause: link {link} is "
        "flapping (it went down and retrained {downs} times lately: link_downed)",
        "{node}：作业的总线带宽为 {got:.1f} GB/s，比调优时测得的基线 {baseline:.1f} GB/s "
        "低 {below:.0f}%；可能原因：链路 {link} 反复断开重连（最近 {downs} 次，link_downed）",
    ),
    "alert.fabric_regression_pauses": (
        "{node}: the job gets {got:.1f} GB/s of bus bandwidth, {below:.0f}% below the "
        "{baseline:.1f} GB/s nccl-tests proved at tuning; likely cause: PFC pauses on link "
        "{link} (port_xmit_wait grew by {wait})",
        "{node}：作业的总线带宽为 {got:.1f} GB/s，比调优时测得的基线 {baseline:.1f} GB/s "
        "低 {below:.0f}%；可能原因：链路 {link} 上的流控暂停（port_xmit_wait 增加了 {wait}）",
    ),
    "alert.fabric_estimated": (
        "{message} (estimated without NCCL's Inspector, from the step time and the NIC "
        "counters: {gb:.2f} GB a step, about {comm:.2f} s of the {step:.2f} s step spent "
        "communicating; the fastest step was {best:.2f} s)",
        "{message}（未使用 NCCL Inspector，根据步时和网卡计数器估算：每步 {gb:.2f} GB，"
        "{step:.2f} 秒的一步中约 {comm:.2f} 秒用于通信；最快一步为 {best:.2f} 秒）",
    ),
    "alert.link_regression": (
        "{node}: link {link} carries {rate}, {percent:.0f}% of its siblings' {typical}",
        "{node}：链路 {link} 流量 {rate}，只有同机其他链路（{typical}）的 {percent:.0f}%",
    ),
    "alert.rank_straggler": (
        "rank {rank} computes a step in {seconds:.3f} s: {relative:.0f}% of the best rank's "
        "speed, {individual:.0f}% of its own best",
        "{rank} 号进程每步计算 {seconds:.3f} 秒：速度为最快进程的 {relative:.0f}%，"
        "为自身最佳的 {individual:.0f}%",
    ),
    "alert.underused_power": (
        "{node}: GPU {gpu} shows {util}% utilization but draws {power:.0f} W of its "
        "{board:.0f} W: a busy loop or a wait, not work",
        "{node}：GPU {gpu} 利用率 {util}%，功耗却只有 {power:.0f} W（额定 {board:.0f} W）："
        "是空转或等待，不是在计算",
    ),
    "alert.underused_dcgm": (
        "{node}: GPU {gpu} shows {util}% utilization but DCGM counts {sm:.0f}% of its SMs "
        "active and its tensor pipe {tensor:.0f}% busy: a busy loop or a wait, not work",
        "{node}：GPU {gpu} 利用率 {util}%，但 DCGM 显示 SM 活跃仅 {sm:.0f}%、"
        "张量管线忙碌 {tensor:.0f}%：是空转或等待，不是在计算",
    ),
    "alert.gpu_idle": (
        "{node}: GPU {gpu} is idle ({util}% utilization) while a job runs",
        "{node}：作业运行中 GPU {gpu} 空闲（利用率 {util}%）",
    ),
    "alert.thermal": (
        "{node}: GPU {gpu} is thermally throttled (clocks {mhz} MHz)",
        "{node}：GPU {gpu} 过热降频（频率 {mhz} MHz）",
    ),
    "alert.thermal_at": (
        "{node}: GPU {gpu} is thermally throttled at {temp} C (clocks {mhz} MHz)",
        "{node}：GPU {gpu} 在 {temp} °C 时过热降频（频率 {mhz} MHz）",
    ),
    "alert.power_brake": (
        "{node}: GPU {gpu} is power throttled (hardware power brake)",
        "{node}：GPU {gpu} 功率受限降频（硬件功率制动）",
    ),
    "alert.power_capped": (
        "{node}: GPU {gpu} is power throttled (power capped at {limit} W of {default:.0f} W"
        " default)",
        "{node}：GPU {gpu} 功率受限降频（功率上限 {limit} W，默认 {default:.0f} W）",
    ),
    "alert.ecc": (
        "{node}: GPU {gpu} has {count} uncorrectable ECC error(s)",
        "{node}：GPU {gpu} 有 {count} 个不可纠正的 ECC 错误",
    ),
    "alert.memory_full": (
        "{node}: GPU {gpu} memory is {percent:.0f}% full ({used} of {total} MiB)",
        "{node}：GPU {gpu} 显存已用 {percent:.0f}%（{used} / {total} MiB）",
    ),
    "alert.gpu_straggler": (
        "{node}: GPU {gpu} lags its peers ({util:.0f}% utilization, {power:.0f} W;"
        " peers {peer_util:.0f}%, {peer_power:.0f} W)",
        "{node}：GPU {gpu} 落后于同伴（利用率 {util:.0f}%，{power:.0f} W；"
        "同伴 {peer_util:.0f}%，{peer_power:.0f} W）",
    ),
    "alert.node_straggler": (
        "{node} lags the other nodes ({util:.0f}% mean GPU utilization; others {peer_util:.0f}%)",
        "{node} 落后于其他节点（GPU 平均利用率 {util:.0f}%；其他节点 {peer_util:.0f}%）",
    ),
    "alert.traffic": (
        "{node}: network traffic fell to {rate} from {baseline} while training runs",
        "{node}：训练运行中网络流量从 {baseline} 降到 {rate}",
    ),
    "alert.unreachable": (
        "{node} has not answered for {silent:.0f} s",
        "{node} 已 {silent:.0f} 秒无响应",
    ),
    "alert.unreachable_why": (
        "{node} has not answered for {silent:.0f} s ({why})",
        "{node} 已 {silent:.0f} 秒无响应（{why}）",
    ),
    "alert.xid": (
        "{node}: GPU {gpu} reported XID {code} ({what})",
        "{node}：GPU {gpu} 报告 XID {code}（{what}）",
    ),
    "alert.xid_at_pci": (
        "{node}: the GPU at PCI {pci} reported XID {code} ({what})",
        "{node}：PCI 地址 {pci} 上的 GPU 报告 XID {code}（{what}）",
    ),
    "alert.nccl_timeout": (
        "NCCL watchdog timed out on {rank} ({op}, SeqNum {seq}){after}{job}",
        "NCCL 看门狗在{rank}上超时（{op}，SeqNum {seq}）{after}{job}",
    ),
    "alert.nccl.rank": ("rank {rank}", "第 {rank} 号进程"),
    "alert.nccl.a_rank": ("a rank", "某个进程"),
    "alert.nccl.a_collective": ("a collective", "某个集合通信"),
    "alert.nccl.after": (" after {seconds:.0f} s", "，已运行 {seconds:.0f} 秒"),
    "alert.nccl.in_job": (" in job {job}", "，作业 {job}"),
    # -- the XID catalogue ---------------------------------------------------------------------
    "alert.xid.13.what": ("graphics engine exception", "图形引擎异常"),
    "alert.xid.13.do": _APP_ACTION,
    "alert.xid.31.what": ("GPU memory page fault", "GPU 显存页错误"),
    "alert.xid.31.do": _APP_ACTION,
    "alert.xid.43.what": ("GPU stopped processing", "GPU 停止处理"),
    "alert.xid.43.do": ("restart the application", "重启应用"),
    "alert.xid.45.what": ("preemptive cleanup", "抢占式清理"),
    "alert.xid.45.do": ("usually benign: none needed", "通常无害：无需处理"),
    "alert.xid.48.what": ("double-bit ECC error", "双比特 ECC 错误"),
    "alert.xid.48.do": _DRAIN_RESET,
    "alert.xid.63.what": (
        "ECC page retirement or row remap recorded",
        "已记录 ECC 页退役或行重映射",
    ),
    "alert.xid.63.do": (
        "watch the GPU; the remap takes effect after the next GPU reset",
        "留意这块 GPU；重映射在下次重置 GPU 后生效",
    ),
    "alert.xid.64.what": ("ECC page retirement or row remap failure", "ECC 页退役或行重映射失败"),
    "alert.xid.64.do": (
        "drain the node; ask for a replacement (RMA) if it repeats",
        "排空该节点；若反复出现，申请更换（RMA）",
    ),
    "alert.xid.74.what": ("NVLink error", "NVLink 错误"),
    "alert.xid.74.do": ("drain the node and check NVLink", "排空该节点并检查 NVLink"),
    "alert.xid.79.what": ("GPU has fallen off the bus", "GPU 已从总线脱落"),
    "alert.xid.79.do": (
        "node unusable: replace the node (or reboot and inspect the GPU)",
        "节点已不可用：更换节点（或重启后检查 GPU）",
    ),
    "alert.xid.92.what": ("high single-bit ECC error rate", "单比特 ECC 错误率高"),
    "alert.xid.92.do": ("watch the GPU's ECC counts", "留意这块 GPU 的 ECC 计数"),
    "alert.xid.94.what": ("contained ECC error", "已隔离的 ECC 错误"),
    "alert.xid.94.do": (
        "restart the affected application; the GPU can keep working",
        "重启受影响的应用；GPU 可以继续使用",
    ),
    "alert.xid.95.what": ("uncontained ECC error", "未隔离的 ECC 错误"),
    "alert.xid.95.do": _DRAIN_RESET,
    "alert.xid.119.what": ("GSP RPC timeout", "GSP RPC 超时"),
    "alert.xid.119.do": _RESET_GSP,
    "alert.xid.120.what": ("GSP error", "GSP 错误"),
    "alert.xid.120.do": _RESET_GSP,
    # XIDs of NVIDIA's catalog that XyClaw has no words of its own for (issue 30)
    "alert.xid.catalog.what": (
        "{description} (NVIDIA's XID catalog)",
        "{description}（NVIDIA XID 目录）",
    ),
    "alert.xid.bucket.restart_app": ("restart the application", "重启应用"),
    "alert.xid.bucket.reset_gpu": (
        "reset the GPU (or reboot the node) before reuse",
        "重置这块 GPU（或重启节点）后再用",
    ),
    "alert.xid.bucket.restart_bm": (
        "reboot the node; replace it if the XID comes back",
        "重启节点；如果该 XID 再次出现，更换节点",
    ),
    "alert.xid.bucket.restart_vm": ("restart the virtual machine", "重启虚拟机"),
    "alert.xid.bucket.ignore": (
        "none needed on its own; read the XIDs logged around it",
        "单独出现无需处理；请查看它前后记录的 XID",
    ),
    "alert.xid.bucket.contact_support": (
        "contact the provider's or NVIDIA's support if it repeats",
        "如果反复出现，联系云厂商或 NVIDIA 支持",
    ),
    "alert.xid.bucket.check_mechanicals": (
        "check the GPU board's power cables and seating",
        "检查 GPU 板卡的供电线缆和插接",
    ),
    "alert.xid.bucket.update_swfw": ("update the driver and firmware", "更新驱动和固件"),
    "alert.xid.bucket.check_uvm": (
        "check the application's unified-memory use",
        "检查应用对统一内存的使用",
    ),
    "alert.xid.bucket.xid_154": (
        "do the recovery action XID {code} names (a GPU reset or a node reboot)",
        "执行 XID {code} 给出的恢复动作（重置 GPU 或重启节点）",
    ),
    "alert.xid.bucket.workflow": (
        "follow NVIDIA's {bucket} procedure for XID {code} in the XID catalog",
        "按 NVIDIA XID 目录中 XID {code} 的 {bucket} 流程处理",
    ),
    "alert.xid.unknown.what": (
        "XID not in NVIDIA's catalog as XyClaw knows it",
        "XyClaw 所知的 NVIDIA XID 目录中没有这个 XID",
    ),
    "alert.xid.unknown.do": (
        "look up XID {code} in NVIDIA's XID catalog; watch the GPU",
        "在 NVIDIA 的 XID 目录中查找 XID {code}；留意这块 GPU",
    ),
    # -- why a node's telemetry stopped ----------------------------------------------------------
    "alert.down.no_samples": ("no samples for {silent:.0f} s", "{silent:.0f} 秒没有读数"),
    "alert.down.not_connected": ("not connected", "未连接"),
    "alert.down.connection_lost": ("connection lost", "连接已断开"),
    "alert.down.smi_exited": ("nvidia-smi exited with {code}", "nvidia-smi 以 {code} 退出"),
    "alert.down.smi_exited_unread": (
        "nvidia-smi exited with {code} ({unread})",
        "nvidia-smi 以 {code} 退出（{unread}）",
    ),
    "alert.down.smi_unreadable": (
        "nvidia-smi printed lines XyClaw cannot read ({unread})",
        "nvidia-smi 输出了 XyClaw 读不懂的行（{unread}）",
    ),
    # -- durations the guard words -------------------------------------------------------------
    "alert.dur.s": ("{n:.0f} s", "{n:.0f} 秒"),
    "alert.dur.min": ("{n:.0f} min", "{n:.0f} 分钟"),
    "alert.dur.h": ("{n:.1f} h", "{n:.1f} 小时"),
    # -- the guard: budget ---------------------------------------------------------------------
    "alert.budget.warn": (
        "{name} has spent {fraction:.0%} of its budget ({spent} of {limit})",
        "{name} 已花掉预算的 {fraction:.0%}（{spent} / {limit}）",
    ),
    "alert.budget.spent_still_bills": (
        "{name} has spent its budget ({spent} of {limit}) and still bills"
        " ([billing] on_budget_exhausted is warn)",
        "{name} 已花完预算（{spent} / {limit}），仍在计费（设置为预算用完时只警告）",
    ),
    "alert.budget.spent_action": ("xyclaw down {name}", "释放它：xyclaw down {name}"),
    "alert.budget.released": (
        "released {name}: budget {limit} spent, {charged} charged",
        "已释放 {name}：预算 {limit} 已用完，共计费 {charged}",
    ),
    # -- the guard: idle -----------------------------------------------------------------------
    "alert.idle.releasing": (
        "{name} has been idle for {idle} with no job; releasing it",
        "{name} 已空闲 {idle}，没有作业；正在释放",
    ),
    "alert.idle.warn": (
        "{name} is idle (GPUs below {percent:.0f}%, no job); it will be released in {left}",
        "{name} 空闲中（GPU 利用率低于 {percent:.0f}%，没有作业）；将在 {left}后释放",
    ),
    "alert.idle.warn_action": ("start a job to keep it", "启动一个作业即可保留它"),
    "alert.idle.released": (
        "released {name}: idle for {idle} with no job, {charged} charged",
        "已释放 {name}：空闲 {idle}，没有作业，共计费 {charged}",
    ),
    "alert.guard.warned": ("warned {what}", "已提醒：{what}"),
    "alert.guard.failed": (
        "could not act on {name}: {error}; retrying at the next check",
        "无法处理 {name}：{error}；下次检查时重试",
    ),
}
