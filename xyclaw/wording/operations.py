"""Wording of operations: ``key: (English, Chinese)``, ``str.format`` fields in braces."""

from __future__ import annotations

TEXTS: dict[str, tuple[str, str]] = {
    # The runner's own words for every operation.
    "op.started": ("started", "已开始"),
    "op.done": ("done", "完成"),
    "op.cancelled": ("{title} was cancelled", "{title}已取消"),
    "op.unexpected": ("{kind}: {text}", "意外错误 {kind}：{text}"),
    # Titles.
    "op.title.rent": ("rent {gpus} x {gpu} from {provider}", "租用 {gpus} x {gpu}（{provider}）"),
    "op.title.release": ("release {cluster}", "释放 {cluster}"),
    "op.title.tune": ("tune {cluster}", "调优 {cluster}"),
    "op.title.launch": ("launch {job}", "启动作业 {job}"),
    # Steps, as the panel's step column and the node details name them.
    "op.step.rent": ("rent", "租用"),
    "op.step.guard": ("guard", "守护"),
    "op.step.provision": ("provision", "开通"),
    "op.step.ssh": ("ssh", "SSH"),
    "op.step.driver": ("driver", "驱动"),
    "op.step.gpus": ("gpus", "GPU"),
    "op.step.fabric": ("fabric", "网络"),
    "op.step.disk": ("disk", "磁盘"),
    "op.step.setup": ("setup", "设置"),
    "op.step.bootstrap": ("bootstrap", "初始化"),
    "op.step.SSH": ("SSH", "SSH"),
    "op.step.failed": ("failed", "失败"),
    # A provider's node states.
    "op.pstate.pending": ("pending", "排队中"),
    "op.pstate.provisioning": ("provisioning", "开通中"),
    "op.pstate.running": ("running", "运行中"),
    "op.pstate.failed": ("failed", "失败"),
    "op.pstate.terminating": ("terminating", "终止中"),
    "op.pstate.terminated": ("terminated", "已终止"),
    # What enforces the budget and idle release, said before renting.
    "op.guard.here": ("in this process", "在本进程中"),
    "op.guard.not_running": ("not running", "未运行"),
    "op.guard.unnamed": (
        "running (it has not said which process it is yet)",
        "正在运行（还没有报告它是哪个进程）",
    ),
    "op.guard.running_for": (
        "running {holder} (pid {pid}, for {age})",
        "{holder}运行（进程号 {pid}，已运行 {age}）",
    ),
    "op.guard.last_check": ("{text}; last check {age} ago", "{text}；上次检查在 {age}前"),
    "op.guard.next": ("{text}, next in {due}", "{text}，下次在 {due}后"),
    "op.guard.next_why": ("{text}, next in {due} ({reason})", "{text}，下次在 {due}后（{reason}）"),
    "op.duration.s": ("{n} s", "{n} 秒"),
    "op.duration.min": ("{n} min", "{n} 分钟"),
    "op.duration.h": ("{n} h", "{n} 小时"),
    "op.guard.holder.background": ("in the background", "在后台"),
    "op.guard.holder.desktop": ("in the desktop app", "在桌面应用中"),
    "op.guard.holder.foreground": ("as `xyclaw guard`", "以 `xyclaw guard` 方式"),
    "op.guard.idle_running": (
        "idle release needs XyClaw's guard running: it is ({where})",
        "空闲释放需要 XyClaw 守护进程运行：它正在运行（{where}）",
    ),
    "op.guard.idle_stopped": (
        "idle release needs XyClaw's guard running: it is not: start it with `xyclaw guard start`",
        "空闲释放需要 XyClaw 守护进程运行：它没有运行，请用 `xyclaw guard start` 启动",
    ),
    "op.guard.budget_running": (
        "budget enforcement needs XyClaw's guard running: it is ({where})",
        "执行预算需要 XyClaw 守护进程运行：它正在运行（{where}）",
    ),
    "op.guard.budget_stopped": (
        "budget enforcement needs XyClaw's guard running: it is not: start it with"
        " `xyclaw guard start`",
        "执行预算需要 XyClaw 守护进程运行：它没有运行，请用 `xyclaw guard start` 启动",
    ),
    "op.guard.deadline_running": (
        "{provider} ends the cluster by itself once its budget is spent (a deadline XyClaw"
        " moves with the budget); XyClaw's guard, which releases it at the budget itself,"
        " runs ({where})",
        "预算用完时 {provider} 会自行结束集群（XyClaw 随预算调整截止时间）；"
        "XyClaw 守护进程也会在预算用完时释放它，它正在运行（{where}）",
    ),
    "op.guard.deadline_stopped": (
        "{provider} ends the cluster by itself once its budget is spent (a deadline XyClaw"
        " moves with the budget); XyClaw's guard, which releases it at the budget itself,"
        " is not running: start it with `xyclaw guard start`",
        "预算用完时 {provider} 会自行结束集群（XyClaw 随预算调整截止时间）；"
        "XyClaw 守护进程也会在预算用完时释放它，但它没有运行，请用 `xyclaw guard start` 启动",
    ),
    # Renting.
    "op.trying": (
        "trying {gpu} in {region} from {provider}",
        "尝试 {provider} 在 {region} 的 {gpu}",
    ),
    "op.renting": (
        "renting {gpus} x {gpu} from {provider} in {region}",
        "正在租用 {gpus} x {gpu}（{provider}，{region}）",
    ),
    "op.asking": (
        "asking {provider} for {gpus} x {gpu}",
        "正在向 {provider} 申请 {gpus} x {gpu}",
    ),
    # What one node did: "{node}: " then the step's own words (the node details show those).
    "op.on_node": ("{node}: {what}", "{node}：{what}"),
    "op.provisioning": (
        "provisioning: {running}/{total} nodes running",
        "开通中：{running}/{total} 个节点已运行",
    ),
    "op.ssh_ok": ("SSH answers", "SSH 已连通"),
    "op.ssh_all": ("all nodes answer SSH", "所有节点 SSH 均已连通"),
    "op.step_ok": ("{step} ok ({seen})", "{step}正常（{seen}）"),
    "op.bootstrapped": (
        "bootstrapped {done}/{total} nodes",
        "已初始化 {done}/{total} 个节点",
    ),
    "op.ready": ("{cluster} is ready: {nodes} nodes", "{cluster} 已就绪：{nodes} 个节点"),
    # What each bootstrap step saw.
    "op.boot.driver": ("driver {driver}, CUDA {cuda}", "驱动 {driver}，CUDA {cuda}"),
    "op.boot.gpus": ("{count} x {gpu}", "{count} x {gpu}"),
    "op.boot.no_rdma": ("{fabric}: no RDMA fabric to check", "{fabric}：没有要检查的 RDMA 网络"),
    "op.boot.ports": ("{count} active {layer} ports", "{count} 个活动的 {layer} 端口"),
    "op.boot.ports_rate": (
        "{count} active {layer} ports at {rates} Gb/s",
        "{count} 个活动的 {layer} 端口，速率 {rates} Gb/s",
    ),
    "op.boot.layer.InfiniBand": ("InfiniBand", "InfiniBand"),
    "op.boot.layer.Ethernet": ("Ethernet", "以太网"),
    "op.boot.disk": ("{gib} GiB free", "可用 {gib} GiB"),
    "op.boot.setup": ("{count} setup commands", "{count} 条设置命令"),
    "op.boot.no_setup": ("no setup commands", "没有设置命令"),
    # A bootstrap step that failed.
    "op.boot.failed": (
        "{host}: {step} check failed: {message}",
        "{host}：{step}检查未通过：{message}",
    ),
    "op.boot.exited": ("`{command}` exited {code}: {tail}", "`{command}` 退出码 {code}：{tail}"),
    "op.boot.no_versions": (
        "nvidia-smi -q names no driver or CUDA version",
        "nvidia-smi -q 没有给出驱动或 CUDA 版本",
    ),
    "op.boot.no_versions_hint": (
        "the image lacks the NVIDIA driver or CUDA; choose another image",
        "镜像缺少 NVIDIA 驱动或 CUDA，请换一个镜像",
    ),
    "op.boot.gpu_count": (
        "{count} GPUs answer, {ordered} were ordered",
        "{count} 块 GPU 有响应，订购的是 {ordered} 块",
    ),
    "op.boot.gpu_count_hint": (
        "a GPU may have fallen off the bus (XID 79); ask the provider for another node",
        "可能有 GPU 掉卡（XID 79），请向服务商换一个节点",
    ),
    "op.boot.gpu_model": ("found {found}, ordered {ordered}", "发现 {found}，订购的是 {ordered}"),
    "op.boot.no_port": (
        "no active {layer} port ({count} found, none ACTIVE)",
        "没有活动的 {layer} 端口（找到 {count} 个，均非 ACTIVE）",
    ),
    "op.boot.no_port_hint": (
        "the node's network is not up; release it and rent another",
        "节点的网络没有起来，请释放它并另租一个",
    ),
    "op.boot.df_unreadable": ("cannot read df's output: {text}", "无法读取 df 的输出：{text}"),
    "op.boot.disk_low": (
        "{free} GiB free, {needed} GiB needed",
        "可用 {free} GiB，需要 {needed} GiB",
    ),
    "op.boot.disk_low_hint": (
        "free space on the node or rent one with a larger disk",
        "请清理节点上的空间，或租用磁盘更大的节点",
    ),
    # A cluster that did not come up, and what the user is told of clusters.
    "op.not_brought_up": (
        "cluster {cluster} could not be brought up: {error}",
        "集群 {cluster} 未能启动：{error}",
    ),
    "op.nodes_failed": (
        "{failed} of {total} nodes failed: {names}",
        "{total} 个节点中有 {failed} 个失败：{names}",
    ),
    "op.nodes_failed_why": (
        "{failed} of {total} nodes failed: {names} ({why})",
        "{total} 个节点中有 {failed} 个失败：{names}（{why}）",
    ),
    "op.nodes_failed_step": (
        "{failed} of {total} nodes failed {step}: {detail}",
        "{total} 个节点中有 {failed} 个{step}失败：{detail}",
    ),
    "op.nodes_failed_unused": (
        "{cluster}: {failed} nodes failed {step} and are not used: {detail}",
        "{cluster}：{failed} 个节点{step}失败，不再使用：{detail}",
    ),
    "op.partial_kept": (
        "{cluster}: {failed} nodes failed; keeping the {usable} that came up, as asked",
        "{cluster}：{failed} 个节点失败；按要求保留已启动的 {usable} 个",
    ),
    "op.ssh_timeout": (
        "{node} did not answer SSH within {seconds}s ({error})",
        "{node} 在 {seconds} 秒内没有 SSH 响应（{error}）",
    ),
    "op.lost_while_provisioning": (
        "the provider lost cluster {cluster} while provisioning it",
        "服务商在开通时丢失了集群 {cluster}",
    ),
    "op.terminated_while_provisioning": (
        "the provider terminated cluster {cluster} while provisioning",
        "服务商在开通时终止了集群 {cluster}",
    ),
    "op.not_running_after": (
        "cluster {cluster} was not running after {seconds}s",
        "集群 {cluster} 在 {seconds} 秒后仍未运行",
    ),
    "op.cancelled_by_user": ("cancelled by the user", "已被用户取消"),
    "op.notice.ready": (
        "cluster {cluster} is ready ({gpus} x {gpu}, {fabric})",
        "集群 {cluster} 已就绪（{gpus} x {gpu}，{fabric}）",
    ),
    "op.notice.released": (
        "cluster {cluster} released; it no longer bills",
        "集群 {cluster} 已释放，不再计费",
    ),
    "op.notice.release_failed": (
        "cluster {cluster} failed ({why}) and its release failed too: {error}; XyClaw will retry",
        "集群 {cluster} 失败（{why}），释放也失败了：{error}；XyClaw 会重试",
    ),
    # Releasing.
    "op.releasing": ("releasing {cluster}", "正在释放 {cluster}"),
    "op.release_wait": (
        "waiting for {provider} to confirm ({state})",
        "等待 {provider} 确认（{state}）",
    ),
    "op.released": ("{cluster} released", "{cluster} 已释放"),
    "op.release_unconfirmed": (
        "{provider} has not confirmed the release of {cluster} after {seconds}s; it may still bill",
        "{provider} 在 {seconds} 秒后仍未确认释放 {cluster}；它可能仍在计费",
    ),
    "op.release_unconfirmed_hint": (
        "XyClaw retries at every start and every minute; check `xyclaw clusters`",
        "XyClaw 每次启动和每分钟都会重试；请查看 `xyclaw clusters`",
    ),
    # What was undone after a failed rent, and what to do.
    "op.hint.undone_rented": (
        "its machines were released and stop billing",
        "它的机器已释放，不再计费",
    ),
    "op.hint.retry_rented": (
        "try again, or another region (`xyclaw offers --provider {provider}`)",
        "请重试，或换一个地区（`xyclaw offers --provider {provider}`）",
    ),
    "op.hint.undone_own": (
        "your hosts were handed back (nothing was rented, nothing bills)",
        "你的主机已交还（没有租用，不计费）",
    ),
    "op.hint.retry_own": (
        "check the host and try again (`xyclaw hosts test NAME`)",
        "请检查主机后重试（`xyclaw hosts test NAME`）",
    ),
    "op.hint.settled": ("{hint}. ({undone})", "{hint}。（{undone}）"),
    "op.hint.unsettled": ("{hint}. ({undone}; {retry})", "{hint}。（{undone}；{retry}）"),
    "op.hint.plain": ("{undone}; {retry}", "{undone}；{retry}"),
    # Lists of messages.
    "op.semi_join": ("{first}; {then}", "{first}；{then}"),
    # Tuning NCCL: the verdict of a measurement.
    "op.tune.status.healthy": ("healthy", "健康"),
    "op.tune.status.low": ("low", "偏低"),
    "op.tune.status.unstable": ("unstable", "不稳定"),
    "op.tune.status.failed": ("failed", "失败"),
    "op.tune.status.unknown": ("unknown", "未知"),
    "op.tune.no_busbw": ("{status}: no bus bandwidth measured", "{status}：没有测到总线带宽"),
    "op.tune.peak": (
        "{status}: peak bus bandwidth {peak} GB/s",
        "{status}：峰值总线带宽 {peak} GB/s",
    ),
    "op.tune.of_expected": (
        "{head} = {ratio} of {expected} GB/s (healthy from {healthy})",
        "{head}，为 {expected} GB/s 的 {ratio}（{healthy} 及以上为健康）",
    ),
    "op.tune.jitter": (
        "{head}, jitter {jitter} over {runs} runs",
        "{head}，{runs} 次运行抖动 {jitter}",
    ),
    # Tuning NCCL: its steps.
    "op.tune.probing": (
        "probing the fabric on {count} node(s) of {cluster}",
        "正在探测 {cluster} 的 {count} 个节点的网络",
    ),
    "op.tune.unreachable": ("{node}: not reachable ({error})", "{node}：无法连接（{error}）"),
    "op.tune.no_answer": ("no answer", "没有应答"),
    "op.tune.hcas": (
        "{count} {transport} HCA(s) at {rate} Gb/s",
        "{count} 个 {transport} HCA，速率 {rate} Gb/s",
    ),
    "op.tune.no_rdma": ("no RDMA", "没有 RDMA"),
    "op.tune.fabric": (
        "fabric: {nics}, {gpus} GPU(s) per node{nvlink}{gid}",
        "网络：{nics}，每节点 {gpus} 块 GPU{nvlink}{gid}",
    ),
    "op.tune.nvlink": (", NVLink x{count}", "，NVLink x{count}"),
    "op.tune.gid": (", RoCE v2 GID {index}", "，RoCE v2 GID {index}"),
    "op.tune.finding": ("finding: {finding}", "发现：{finding}"),
    "op.tune.label.as it is": ("as it is", "现状"),
    "op.tune.label.current settings": ("current settings", "当前设置"),
    "op.tune.label.recommended": ("recommended", "推荐设置"),
    "op.tune.label.check": ("check", "检查"),
    "op.tune.run": (
        "{label}: nccl-tests all_reduce_perf on {nodes} node(s) x {gpus} GPU(s),"
        " run {n} of {total}",
        "{label}：nccl-tests all_reduce_perf，{nodes} 个节点 x {gpus} 块 GPU，第 {n}/{total} 次",
    ),
    "op.tune.test_failed": ("{label}: the test failed: {error}", "{label}：测试失败：{error}"),
    "op.tune.peak_run": (
        "{label}: peak bus bandwidth {peak} GB/s{ratio}{transport}",
        "{label}：峰值总线带宽 {peak} GB/s{ratio}{transport}",
    ),
    "op.tune.ratio": (" ({ratio} of the fabric's figure)", "（网络标称值的 {ratio}）"),
    "op.tune.over": (", over {transport}", "，经由 {transport}"),
    "op.tune.transport.socket": ("socket", "套接字"),
    "op.tune.transport.mixed": ("mixed", "混合传输"),
    "op.tune.far_below": (
        "{label}: far below the fabric's figure; no need to repeat",
        "{label}：远低于网络标称值，无需重复",
    ),
    "op.tune.verdict": ("{label}: {headline}", "{label}：{headline}"),
    "op.tune.cause": (
        "{label}: likely cause: {title} ({detail})",
        "{label}：可能的原因：{title}（{detail}）",
    ),
    "op.tune.recommended": ("recommended: {settings}", "推荐：{settings}"),
    "op.tune.expected": ("expected: {basis}", "预期：{basis}"),
    "op.tune.trying": ("trying the recommended settings", "正在试用推荐设置"),
    "op.tune.left": ("left as it is: {headline}", "保持现状：{headline}"),
    "op.tune.already": (
        "the cluster already runs the recommended settings; nothing else to try: {headline}",
        "集群已在使用推荐设置，没有别的可试：{headline}",
    ),
    "op.tune.kept_recommended": (
        "kept the recommended settings: {headline} (before: {before})",
        "保留推荐设置：{headline}（之前：{before}）",
    ),
    "op.tune.kept_current": (
        "kept the settings as they were: the recommended ones measured no better"
        " ({headline} against {before})",
        "保留原有设置：推荐设置测得并不更好（{headline}，对比 {before}）",
    ),
    "op.tune.changed": ("changed {change}", "已更改 {change}"),
    "op.tune.decided": ("{cluster}: {decision}", "{cluster}：{decision}"),
    # Tuning NCCL: what it refuses.
    "op.tune.no_nodes": (
        "cluster {cluster} is {state} and has no running nodes to tune",
        "集群 {cluster} 的状态为{state}，没有可调优的运行中节点",
    ),
    "op.tune.no_nodes.fix": (
        "`xyclaw clusters` shows the ones you can use",
        "`xyclaw clusters` 会列出可用的集群",
    ),
    "op.tune.not_nccl": ("{name} is not an NCCL variable", "{name} 不是 NCCL 变量"),
    "op.tune.not_nccl.fix": ("only NCCL_* variables are kept here", "这里只保存 NCCL_* 变量"),
    "op.tune.no_probe_answer": (
        "no node of {cluster} answered the probe",
        "{cluster} 没有节点响应探测",
    ),
    "op.tune.no_probe_answer.fix": (
        "check `xyclaw exec CLUSTER -- hostname`",
        "请用 `xyclaw exec CLUSTER -- hostname` 检查",
    ),
    # Tuning NCCL: what the fabric probe finds (xyclaw.tuning.probe).
    "op.probe.not_probed": ("{node}: not probed ({error})", "{node}：未探测（{error}）"),
    "op.probe.node": ("{node}: {problem}", "{node}：{problem}"),
    "op.probe.unreadable": ("the probe printed nothing readable", "探测没有输出可读的内容"),
    "op.probe.tool_error": ("{tool}: {error}", "{tool}：{error}"),
    "op.probe.with_hint": ("{message}\n  -> {hint}", "{message}\n  -> {hint}"),
    "op.probe.gid_table": ("GID table: {error}", "GID 表：{error}"),
    "op.probe.gpus_failed": ("nvidia-smi -L failed: {line}", "nvidia-smi -L 失败：{line}"),
    "op.probe.no_output": ("no output", "没有输出"),
    "op.probe.is": ("{name}={value}", "{name}={value}"),
    "op.probe.none": ("none", "无"),
    "op.probe.mixed": (
        "nodes differ in their RDMA link layer: {nodes}",
        "各节点的 RDMA 链路层不同：{nodes}",
    ),
    "op.probe.port_state": (
        "{node}: {hca} port {port} is {state}",
        "{node}：{hca} 端口 {port} 的状态为 {state}",
    ),
    "op.probe.not_active": ("not active", "未激活"),
    "op.probe.no_rdma_device": (
        "the cluster was rented as {fabric} but no node shows an RDMA device",
        "集群按 {fabric} 租用，但没有节点显示 RDMA 设备",
    ),
    "op.probe.wrong_layer": (
        "the cluster was rented as {fabric} but its HCAs run {layer}",
        "集群按 {fabric} 租用，但其 HCA 运行的是 {layer}",
    ),
    "op.probe.slow_ports": (
        "ports below the fabric's {gbps} Gb/s: {ports}{more}",
        "低于网络标称 {gbps} Gb/s 的端口：{ports}{more}",
    ),
    "op.probe.more": (" and {count} more", "，另有 {count} 个"),
    "op.probe.gid_differs": (
        "the RoCE v2 GID index differs between ports ({counts}); NCCL takes one index for all,"
        " {index} is the most common",
        "各端口的 RoCE v2 GID 索引不同（{counts}）；NCCL 对所有端口只用一个索引，"
        "最常见的是 {index}",
    ),
    "op.probe.gid_ports": ("{index}: {count} ports", "{index}：{count} 个端口"),
    "op.probe.null": ("None", "无"),
    "op.probe.no_roce_gid": (
        "no port has a RoCE v2 GID on an IPv4 address; RoCE v2 cannot work",
        "没有端口在 IPv4 地址上有 RoCE v2 GID，RoCE v2 无法工作",
    ),
    "op.probe.gpu_counts": (
        "nodes have different GPU counts: {nodes}",
        "各节点的 GPU 数量不同：{nodes}",
    ),
    "op.probe.no_peermem": (
        "nvidia_peermem is not loaded on {nodes}: GPUDirect RDMA may be off (NCCL then copies"
        " through host memory)",
        "{nodes} 上没有加载 nvidia_peermem：GPUDirect RDMA 可能未启用（NCCL 会经主机内存中转）",
    ),
    "op.probe.no_common_iface": (
        "no network interface with an address is common to all nodes",
        "没有所有节点共有且带地址的网络接口",
    ),
    "op.probe.image_env": ("the image sets {env}", "镜像设置了 {env}"),
    "op.probe.no_tool": (
        "{tool} (nccl-tests) is not on the PATH of {nodes}",
        "{nodes} 的 PATH 中没有 {tool}（nccl-tests）",
    ),
    "op.probe.no_mpirun": (
        "mpirun is not on the PATH of {node}; a test across nodes needs MPI",
        "{node} 的 PATH 中没有 mpirun；跨节点测试需要 MPI",
    ),
    "op.probe.no_tool.fix": (
        "build https://github.com/NVIDIA/nccl-tests with MPI=1 on every node and put its build"
        " folder on the PATH",
        "在每个节点上用 MPI=1 构建 https://github.com/NVIDIA/nccl-tests，并把构建目录加入 PATH",
    ),
    "op.probe.no_mpirun.fix": (
        "install Open MPI (or HPC-X) on every node",
        "在每个节点上安装 Open MPI（或 HPC-X）",
    ),
    # Tuning NCCL: a nccl-tests run that did not give figures (xyclaw.tuning.runner).
    "op.nccltest.no_output": (
        "{binary} printed no nccl-tests output ({error})",
        "{binary} 没有输出 nccl-tests 的结果（{error}）",
    ),
    "op.nccltest.exited": (
        "{binary} exited with {code} on {node}: {last}",
        "{binary} 在 {node} 上退出，退出码 {code}：{last}",
    ),
    "op.nccltest.no_rows": (
        "{binary} printed no result rows on {node}",
        "{binary} 在 {node} 上没有输出结果行",
    ),
    "op.nccltest.no_run": ("no run", "没有运行"),
    # Reconciling with the providers at start (clusters XyClaw did not finish, or lost).
    "op.cstate.requested": ("requested", "已申请"),
    "op.cstate.provisioning": ("provisioning", "开通中"),
    "op.cstate.bootstrapping": ("bootstrapping", "初始化中"),
    "op.cstate.ready": ("ready", "就绪"),
    "op.cstate.releasing": ("releasing", "释放中"),
    "op.cstate.released": ("released", "已释放"),
    "op.cstate.failed": ("failed", "失败"),
    "op.cstate.gone": ("gone", "已消失"),
    "op.orphan.unknown": (
        "{provider} cluster {cluster} ({gpus} x {gpu}) bills but XyClaw has no record of it{then}",
        "{provider} 的集群 {cluster}（{gpus} x {gpu}）在计费，但 XyClaw 没有它的记录{then}",
    ),
    "op.orphan.known": (
        "{provider} cluster {cluster} ({gpus} x {gpu}) bills but {name} was {state}{then}",
        "{provider} 的集群 {cluster}（{gpus} x {gpu}）在计费，但 {name} 的状态是{state}{then}",
    ),
    "op.orphan.releasing": ("; releasing it now", "；现在释放它"),
    "op.orphan.release_it": ("; release it if it is not yours", "；如果它不是你的，请释放它"),
    "op.interrupted": (
        "{cluster} was being set up when XyClaw stopped; releasing it so it does not bill unused",
        "XyClaw 停止时 {cluster} 正在设置；现在释放它，以免空置计费",
    ),
    "op.interrupted_setup": ("interrupted while it was being set up", "设置过程中被中断"),
    "op.orphan_found": ("orphan found by reconciliation", "对账时发现的孤儿集群"),
    "op.interrupted_before": (
        "interrupted before the provider created it",
        "在服务商创建它之前被中断",
    ),
    "op.gone": (
        "{provider} no longer has {cluster}{terminated}; last seen {ago}. Marked gone.",
        "{provider} 已没有 {cluster}{terminated}；上次看到：{ago}。已标记为消失。",
    ),
    "op.gone.terminated": (" (it terminated it)", "（服务商已终止它）"),
    "op.state_unknown": (
        "{provider}'s state is unknown ({why}); its {n} cluster(s) stay live and metered, "
        "nothing is marked gone, and XyClaw asks again every minute",
        "{provider} 的状态未知（{why}）；其 {n} 个集群保持在线并继续计费，"
        "不会被标记为消失，XyClaw 每分钟重新查询",
    ),
    # Issue 31: a readable listing no longer shows a cluster XyClaw did not release.
    "op.unlisted": (
        "{provider} no longer lists {external} (cluster {cluster}), which XyClaw did not "
        "release; it stays live and metered. Forget it? Check {provider}'s console first: "
        "`xyclaw forget {cluster}`",
        "{provider} 的列表中已没有 {external}（集群 {cluster}），而 XyClaw 并未释放它；"
        "它保持在线并继续计费。要忘记它吗？请先在 {provider} 的控制台确认："
        "`xyclaw forget {cluster}`",
    ),
    "op.unlisted.back": (
        "{provider} lists cluster {cluster} again; the question whether to forget it is withdrawn",
        "{provider} 的列表中又出现了集群 {cluster}；是否忘记它的询问已撤回",
    ),
    "op.forgotten": (
        "cluster {cluster} forgotten after your yes ({provider} no longer listed it since "
        "{since}); the meter stopped counting it now",
        "经你确认，已忘记集群 {cluster}（自 {since} 起 {provider} 的列表中已没有它）；"
        "本地计费已停止计算它",
    ),
    "op.forget.card_stops": (
        "XyClaw stops metering {cluster}; if {external} still runs at {provider}, it still bills "
        "there (check {provider}'s console first)",
        "XyClaw 停止对 {cluster} 的本地计费；如果 {external} 仍在 {provider} 运行，它仍在计费"
        "（请先在 {provider} 的控制台确认）",
    ),
    "op.forget.card_lost": (
        "XyClaw's record that {cluster} is live: it no longer checks {external} or warns about it",
        "XyClaw 对 {cluster} 在线的记录：它不再检查 {external}，也不再为它告警",
    ),
    "op.ago.never": ("never", "从未"),
    "op.ago.seconds": ("{seconds} s ago", "{seconds} 秒前"),
    # Failing over to the plan's next option when a region is full.
    "op.failover.none": ("no option to try", "没有可尝试的选项"),
    "op.failover.plain": ("{text}", "{text}"),
    "op.failover.then": ("{first} -> {then}", "{first} → {then}"),
    "op.failover.where_change": ("{where}, {change}", "{where}，{change}"),
    "op.failover.same_price": ("same price", "同价"),
    "op.failover.more": ("{amount}/GPU-h more", "每 GPU 小时贵 {amount}"),
    "op.failover.cheaper": ("{amount}/GPU-h cheaper", "每 GPU 小时便宜 {amount}"),
    "op.failover.out_of": ("{where} out of {gpu}", "{where} 的 {gpu} 已售罄"),
    "op.failover.over_quota": ("{where} over quota", "{where} 超出配额"),
    "op.failover.asking": ("{where}: {reason}; asking", "{where}：{reason}；需要你确认"),
    "op.failover.stopped": ("{where} failed: {reason}; stopped", "{where} 失败：{reason}；已停止"),
    "op.failover.exhausted": ("no option left", "没有剩余选项"),
    "op.failover.not_offered": ("no longer offered", "已不再提供"),
    "op.failover.short": ("{free} free, {needed} needed", "空闲 {free}，需要 {needed}"),
    "op.failover.currency": (
        "quotes in {quoted}; {approved} was approved",
        "报价币种为 {quoted}；批准的是 {approved}",
    ),
    "op.failover.counts": (
        "rents {counts} GPUs, not the {approved} approved",
        "只租 {counts} 块 GPU，不是批准的 {approved} 块",
    ),
    "op.failover.dearer": (
        "quotes {quoted}, above the approved {approved}",
        "报价 {quoted}，高于批准的 {approved}",
    ),
    "op.failover.not_rented": ("not rented: {story}", "未租用：{story}"),
    "op.failover.requote_hint": (
        "plan again and approve the new quote; nothing was rented",
        "请重新规划并批准新的报价；没有租用任何机器",
    ),
    "op.failover.later_hint": (
        "try again later, or plan with another GPU model or size",
        "请稍后重试，或换一种 GPU 型号或规模重新规划",
    ),
    # A budget changed on a live cluster.
    "op.budget_deadline_refused": (
        "{cluster}'s new budget is set, but {provider} did not take its new deadline ({error});"
        " XyClaw's guard enforces it",
        "{cluster} 的新预算已设置，但 {provider} 没有接受新的截止时间（{error}）；"
        "由 XyClaw 守护进程执行",
    ),
    # Why each NCCL setting is chosen (the tune's changes say it).
    "op.tune.change_removed": (
        "{name}: {old} removed ({reason})",
        "{name}：{old} 已移除（{reason}）",
    ),
    "op.tune.change_set": ("{name}={was}{new}: {reason}", "{name}={was}{new}：{reason}"),
    "op.nccl.not_recommended": ("not recommended", "不在推荐之列"),
    "op.nccl.image_sets": (
        "{reason} (the image sets {name}={was})",
        "{reason}（镜像设置的是 {name}={was}）",
    ),
    "op.nccl.hca": (
        "the {count} active {kind} HCA(s) found on every node, as an exact list:"
        " '=' stops mlx5_1 from also matching mlx5_10..mlx5_19",
        "每个节点上都有的 {count} 个活动 {kind} HCA，写成精确列表："
        "'=' 使 mlx5_1 不会同时匹配 mlx5_10..mlx5_19",
    ),
    "op.nccl.hca_left_out": (
        "{reason}; {count} port(s) left out because they are not active",
        "{reason}；{count} 个端口未激活，已排除",
    ),
    "op.nccl.ib_enable": (
        "the nodes have RDMA HCAs; NCCL must not skip them",
        "节点有 RDMA HCA；NCCL 不能跳过它们",
    ),
    "op.nccl.net_ib": (
        "the nodes have RDMA HCAs; sockets would carry the data",
        "节点有 RDMA HCA；否则数据会走套接字",
    ),
    "op.nccl.gid": (
        "GID {index} is RoCE v2 on the port's IPv4 address; a RoCE v1 or missing index leaves"
        " NCCL without RDMA (TCP sockets, several times slower)",
        "GID {index} 是端口 IPv4 地址上的 RoCE v2；用 RoCE v1 或不设索引，NCCL 就用不上 RDMA"
        "（改走 TCP 套接字，慢好几倍）",
    ),
    "op.nccl.tc": (
        "traffic class 106 (DSCP 26, ECN-capable): the lossless class RoCE switches give PFC"
        " and ECN; in the default class RoCE loses packets under load and retransmits (jitter"
        " between runs)",
        "流量类别 106（DSCP 26，支持 ECN）：RoCE 交换机为它提供 PFC 和 ECN 的无损类别；"
        "在默认类别中，RoCE 在负载下会丢包重传（各次运行之间抖动）",
    ),
    "op.nccl.qps": (
        "four queue pairs per connection spread each flow over more ECMP paths of the Ethernet"
        " fabric (default 1)",
        "每个连接四个队列对，把每条流分散到以太网更多的 ECMP 路径上（默认 1）",
    ),
    "op.nccl.timeout": (
        "a queue pair waits 4.096 us x 2^22 (about 17 s) before it fails: rides out link flaps"
        " and congestion on large fabrics (default 20 since NCCL 2.23, 18 before)",
        "队列对失败前等待 4.096 us x 2^22（约 17 秒）：扛得住大型网络中的链路抖动和拥塞"
        "（NCCL 2.23 起默认 20，之前为 18）",
    ),
    "op.nccl.gdr_pxb": (
        "every GPU reaches its nearest HCA without crossing the CPU (at worst {gdr}):"
        " GPUDirect RDMA moves data straight between GPU and NIC",
        "每块 GPU 不经过 CPU 就能到达最近的 HCA（最差为 {gdr}）："
        "GPUDirect RDMA 在 GPU 和网卡之间直接传输数据",
    ),
    "op.nccl.gdr_phb": (
        "the nearest HCA of some GPUs is behind the CPU's host bridge (PHB): allow GPUDirect"
        " RDMA up to it",
        "部分 GPU 最近的 HCA 在 CPU 的主桥（PHB）之后：允许 GPUDirect RDMA 到达主桥",
    ),
    "op.nccl.gdr_image": (
        "the image turns GPUDirect RDMA off (LOC); allow it up to the host bridge",
        "镜像关闭了 GPUDirect RDMA（LOC）；允许它到达主桥",
    ),
    "op.nccl.ib_disable": (
        "no node has an RDMA device: NCCL goes straight to TCP sockets",
        "没有节点有 RDMA 设备：NCCL 直接使用 TCP 套接字",
    ),
    "op.nccl.socket_oob": (
        "NCCL's bootstrap and out-of-band traffic on {iface}, the interface every node has in"
        " one subnet (not docker or loopback)",
        "NCCL 的引导和带外流量走 {iface}，这是每个节点都有、位于同一子网的接口"
        "（不是 docker 或回环接口）",
    ),
    "op.nccl.socket_data": (
        "TCP sockets carry all of NCCL's data here: {iface}{speed} is the fastest interface"
        " every node has in one subnet",
        "这里 NCCL 的全部数据都走 TCP 套接字：{iface}{speed} 是每个节点都有、"
        "位于同一子网的最快接口",
    ),
    "op.nccl.speed": (" ({gbps} Gb/s)", "（{gbps} Gb/s）"),
    "op.nccl.debug": (
        "warnings (a fallback to sockets, a failing HCA) reach the job's log without INFO noise",
        "警告（退回套接字、HCA 故障）会进入作业日志，而没有 INFO 级别的噪声",
    ),
    # What a healthy all-reduce reaches on this shape (the tune's expectation).
    "op.expect.nvlink": (
        "{n}x {gpu} over NVLink: {per_gpu} GB/s per GPU both ways = {link} GB/s one way",
        "{n}x {gpu} 走 NVLink：每块 GPU 双向 {per_gpu} GB/s = 单向 {link} GB/s",
    ),
    "op.expect.pcie": (
        "{n}x {gpu} over PCIe (no NVLink): {gbs} GB/s one way (PCIe 4.0 x16)",
        "{n}x {gpu} 走 PCIe（没有 NVLink）：单向 {gbs} GB/s（PCIe 4.0 x16）",
    ),
    "op.expect.rdma": (
        "{used} x {rate} Gb/s {kind} NIC(s) per node = {gbs} GB/s",
        "每节点 {used} x {rate} Gb/s {kind} 网卡 = {gbs} GB/s",
    ),
    "op.expect.socket": (
        "TCP sockets over a {speed} Gb/s interface = {gbs} GB/s",
        "TCP 套接字走 {speed} Gb/s 接口 = {gbs} GB/s",
    ),
    "op.expect.below": (
        "{basis} (below the network's {gbs} GB/s)",
        "{basis}（低于网络的 {gbs} GB/s）",
    ),
    # Likely causes of a slow or failed all-reduce: a title, what was seen, what to do.
    "op.cause.set": ("set {setting}", "设置 {setting}"),
    "op.cause.over": (" (over {what})", "（经由 {what}）"),
    "op.cause.ib_disabled": ("InfiniBand verbs are switched off", "InfiniBand verbs 被关闭了"),
    "op.cause.ib_disabled.detail": (
        "NCCL_IB_DISABLE={value} in the environment",
        "环境中有 NCCL_IB_DISABLE={value}",
    ),
    "op.cause.ib_disabled.fix": (
        "unset it or set NCCL_IB_DISABLE=0",
        "去掉它，或设置 NCCL_IB_DISABLE=0",
    ),
    "op.cause.hca_none": (
        "NCCL_IB_HCA names no HCA these nodes have",
        "NCCL_IB_HCA 指定的 HCA 这些节点都没有",
    ),
    "op.cause.hca_none.detail": (
        "NCCL_IB_HCA={value}, but the active HCAs are {hcas}",
        "NCCL_IB_HCA={value}，但活动的 HCA 是 {hcas}",
    ),
    "op.cause.gid": ("wrong RoCE GID index", "RoCE GID 索引不对"),
    "op.cause.gid.detail": (
        "NCCL_IB_GID_INDEX={value}{good}{ignored}",
        "NCCL_IB_GID_INDEX={value}{good}{ignored}",
    ),
    "op.cause.gid.good": (
        ", but RoCE v2 on IPv4 is GID {good} on these ports",
        "，但这些端口上 IPv4 的 RoCE v2 是 GID {good}",
    ),
    "op.cause.gid.ignored": ("; NCCL ignored every HCA for it", "；NCCL 因此忽略了所有 HCA"),
    "op.cause.gid.find": (
        "find the RoCE v2 GID with show_gids and set NCCL_IB_GID_INDEX to it",
        "用 show_gids 找到 RoCE v2 的 GID，并把 NCCL_IB_GID_INDEX 设为它",
    ),
    "op.cause.no_active_hca": (
        "no HCA port is active on every node",
        "没有在每个节点上都活动的 HCA 端口",
    ),
    "op.cause.no_active_hca.detail": ("ibstat shows none", "ibstat 一个也没显示"),
    "op.cause.no_active_hca.fix": (
        "check cables and the subnet manager (ibstat: State Active, LinkUp)",
        "检查线缆和子网管理器（ibstat：State Active，LinkUp）",
    ),
    "op.cause.no_results": ("the test printed no result rows", "测试没有输出结果行"),
    "op.cause.no_results.detail": (
        "the output ends before the first message size",
        "输出在第一个消息大小之前就结束了",
    ),
    "op.cause.no_results.fix": (
        "run it by hand with NCCL_DEBUG=INFO and read the first error",
        "用 NCCL_DEBUG=INFO 手动运行，看第一个错误",
    ),
    "op.cause.test_failure": (
        "the test stopped on an error",
        "测试因错误而中止",
    ),
    "op.cause.test_failure.fix": (
        "rerun with NCCL_DEBUG=INFO and read the NCCL WARN lines before the failure",
        "用 NCCL_DEBUG=INFO 重新运行，查看失败前的 NCCL WARN 行",
    ),
    "op.cause.socket_fallback": ("NCCL fell back to TCP sockets", "NCCL 退回到了 TCP 套接字"),
    "op.cause.socket_fallback.detail": (
        "NCCL INFO says NET/Socket{over}: the HCAs carried nothing",
        "NCCL INFO 显示 NET/Socket{over}：HCA 没有承载任何数据",
    ),
    "op.cause.socket_fallback.fix": (
        "NCCL_DEBUG=INFO prints why NET/IB found no device; check NCCL_IB_HCA,"
        " NCCL_IB_GID_INDEX (RoCE) and NCCL_IB_DISABLE",
        "NCCL_DEBUG=INFO 会打印 NET/IB 为何找不到设备；检查 NCCL_IB_HCA、"
        "NCCL_IB_GID_INDEX（RoCE）和 NCCL_IB_DISABLE",
    ),
    "op.cause.hca_fewer": (
        "NCCL used fewer HCAs than the nodes have",
        "NCCL 用的 HCA 比节点上的少",
    ),
    "op.cause.hca_fewer.detail": ("NCCL used {used} of {hcas}", "NCCL 只用了 {hcas} 中的 {used}"),
    "op.cause.hca_left_out": ("NCCL_IB_HCA leaves HCAs out", "NCCL_IB_HCA 漏掉了部分 HCA"),
    "op.cause.hca_left_out.detail": (
        "NCCL_IB_HCA={value} selects {chosen} of {hcas}",
        "NCCL_IB_HCA={value} 只选中了 {hcas} 中的 {chosen}",
    ),
    "op.cause.gdr_off": ("GPUDirect RDMA is off", "GPUDirect RDMA 已关闭"),
    "op.cause.gdr_off.detail": (
        "{why}: data bounces through host memory",
        "{why}：数据要绕道主机内存",
    ),
    "op.cause.gdr_off.channels": (
        "NCCL's channels run over NET/IB without GDRDMA",
        "NCCL 的通道走 NET/IB，但没有 GDRDMA",
    ),
    "op.cause.gdr_off.fix": (
        "set NCCL_NET_GDR_LEVEL=PXB (or PHB) and load nvidia_peermem",
        "设置 NCCL_NET_GDR_LEVEL=PXB（或 PHB），并加载 nvidia_peermem",
    ),
    "op.cause.gdr_maybe_off": ("GPUDirect RDMA may be off", "GPUDirect RDMA 可能已关闭"),
    "op.cause.gdr_maybe_off.detail": (
        "nvidia_peermem is not loaded on every node",
        "不是每个节点都加载了 nvidia_peermem",
    ),
    "op.cause.gdr_maybe_off.fix": (
        "run `modprobe nvidia_peermem` on every node",
        "在每个节点上运行 `modprobe nvidia_peermem`",
    ),
    "op.cause.pfc_ecn_jitter": (
        "RoCE without PFC/ECN: bus bandwidth jitters between runs",
        "RoCE 没有 PFC/ECN：各次运行之间总线带宽抖动",
    ),
    "op.cause.pfc_ecn_jitter.detail": (
        "large messages varied by {jitter} between {runs} runs (healthy fabrics stay under"
        " {limit}){tc}",
        "大消息在 {runs} 次运行之间相差 {jitter}（健康的网络低于 {limit}）{tc}",
    ),
    "op.cause.no_tc": (
        "; no NCCL_IB_TC is set, so RoCE rides the lossy default class",
        "；没有设置 NCCL_IB_TC，RoCE 走的是会丢包的默认类别",
    ),
    "op.cause.pfc_ecn_jitter.fix": (
        "set NCCL_IB_TC to the lossless class (e.g. 106) and check PFC/ECN on the switches",
        "把 NCCL_IB_TC 设为无损类别（例如 106），并检查交换机上的 PFC/ECN",
    ),
    "op.cause.jitter": ("bus bandwidth jitters between runs", "各次运行之间总线带宽抖动"),
    "op.cause.jitter.detail": (
        "large messages varied by {jitter} between {runs} runs",
        "大消息在 {runs} 次运行之间相差 {jitter}",
    ),
    "op.cause.jitter.fix": (
        "look for other jobs on the nodes or the fabric, and for congestion",
        "检查节点或网络上是否有别的作业，以及是否拥塞",
    ),
    "op.cause.port_down": ("HCA ports are down", "HCA 端口断开了"),
    "op.cause.port_down.fix": (
        "reseat or replace the cable; ask the provider",
        "重新插好或更换线缆；请联系服务商",
    ),
    "op.cause.link_rate_low": ("ports run below the fabric's rate", "端口速率低于网络的标称速率"),
    "op.cause.link_rate_low.fix": (
        "check cables and transceivers; ask the provider",
        "检查线缆和光模块；请联系服务商",
    ),
    "op.cause.wrong_results": ("the test found wrong values", "测试发现了错误的数值"),
    "op.cause.wrong_results.detail": (
        "#wrong is not zero or out-of-bounds values were reported",
        "#wrong 不为零，或报告了越界的数值",
    ),
    "op.cause.wrong_results.fix": (
        "do not trust this cluster for training until a rerun passes; drain the node",
        "在重跑通过之前不要用这个集群训练；把该节点撤下",
    ),
    "op.cause.unexplained": (
        "slower than the fabric allows, for no reason the tests can see",
        "比网络应有的速度慢，但测试看不出原因",
    ),
    "op.cause.unexplained.detail": (
        "{peak} GB/s against {expected} GB/s",
        "{peak} GB/s，对比 {expected} GB/s",
    ),
    "op.cause.unexplained.fix": (
        "rerun with NCCL_ALGO=RING to measure the network alone; check for other jobs on the"
        " nodes and for errors in the HCA counters",
        "用 NCCL_ALGO=RING 重跑以单独测量网络；检查节点上是否有别的作业，以及 HCA 计数器里的错误",
    ),
    "op.cause.test_failed": ("nccl-tests did not complete", "nccl-tests 没有完成"),
    "op.cause.test_failed.fix": (
        "run it by hand on the first node with NCCL_DEBUG=INFO",
        "在第一个节点上用 NCCL_DEBUG=INFO 手动运行",
    ),
    # issue 32: before a release
    "op.release_outputs": (
        "copying the outputs still only on {cluster} before releasing it",
        "释放 {cluster} 之前，先复制只在它上面的输出",
    ),
    # issue 33 (c33): the fabric probe run on a Slurm site's nodes through its scheduler
    "op.slurm_probe.title": ("probing the fabric of {site}", "正在探测 {site} 的网络"),
    "op.slurm_probe.submitted": (
        "probe job {job_id} submitted to {site} ({nodes} node(s) of partition {partition}); "
        "waiting for Slurm to run it",
        "探测作业 {job_id} 已提交到 {site}（分区 {partition} 的 {nodes} 个节点）；"
        "正在等待 Slurm 运行它",
    ),
    "op.slurm_probe.read": (
        "read the probe of {count} node(s): {transport}",
        "已读取 {count} 个节点的探测结果：{transport}",
    ),
}
