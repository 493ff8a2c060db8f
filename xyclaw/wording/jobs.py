"""Wording of jobs: ``key: (English, Chinese)``, ``str.format`` fields in braces.

How an attempt ended (its cause's sentence, stored beside the attempt), why the job gets
no other attempt, and the events the job runtime records in the history. Node names,
paths, URLs and the spec's field names stay as they are in every language."""

from __future__ import annotations

TEXTS: dict[str, tuple[str, str]] = {
    # how one node's process ended (xyclaw.jobs.recovery.node_failure)
    "job.exit_code_on": ("exit code {code} on {node}", "{node} 上的进程退出码为 {code}"),
    "job.node_came_back_empty": (
        "{node} stopped answering and came back without the job's processes",
        "{node} 失去响应，恢复后作业的进程已不在",
    ),
    "job.killed_without_code": (
        "the job's processes on {node} were killed without an exit code (SIGKILL or the"
        " out-of-memory killer)",
        "{node} 上作业的进程被杀死，没有退出码（SIGKILL 或内存耗尽时被系统杀死）",
    ),
    # why there is (no) other attempt (xyclaw.jobs.recovery.decide)
    "job.succeeded": ("succeeded", "成功"),
    "job.not_retried": (
        "{message}; a failure of the command itself is not retried (add exit_nonzero to"
        " recovery.on to retry it)",
        "{message}；命令本身失败不会重试（在 recovery.on 中加上 exit_nonzero 才会重试）",
    ),
    "job.cause_not_listed": (
        "{message}; recovery.on does not list {cause}",
        "{message}；recovery.on 中没有 {cause}",
    ),
    "job.no_restarts_left": (
        "{message}; no restarts left ({allowed} allowed)",
        "{message}；重启次数已用完（最多 {allowed} 次）",
    ),
    "job.from_step_0_no_dir": (
        "attempt {attempt} starts again from step 0: the spec has no checkpoint_dir",
        "第 {attempt} 次尝试从第 0 步重新开始：规格中没有 checkpoint_dir",
    ),
    "job.from_step_0_none_yet": (
        "attempt {attempt} starts again from step 0: no complete checkpoint in {folder} yet",
        "第 {attempt} 次尝试从第 0 步重新开始：{folder} 中还没有完整的检查点",
    ),
    # how an attempt ended (xyclaw.jobs.runner)
    "job.cancelled": ("cancelled", "已取消"),
    "job.cancelled_before_start": ("cancelled before it started", "开始前已取消"),
    "job.cancelled_before_cluster": ("cancelled before it had a cluster", "分配集群前已取消"),
    "job.slurm_cancel_there": (
        "job {name} runs through the Slurm scheduler of {site} (Slurm job {job})",
        "作业 {name} 通过 {site} 的 Slurm 调度器运行（Slurm 作业 {job}）",
    ),
    "job.slurm_cancel_there.fix": (
        "cancel it there, after a yes: xyclaw slurm cancel {site} {job}",
        "在那里取消（需确认）：xyclaw slurm cancel {site} {job}",
    ),
    "job.cancelled_waiting_node": (
        "cancelled while waiting for a lost node",
        "等待丢失的节点时已取消",
    ),
    "job.cancelled_in_setup": ("cancelled during setup", "准备阶段已取消"),
    "job.cancelled_before_run": ("cancelled before the run started", "运行开始前已取消"),
    "job.node_does_not_answer": ("{node} does not answer: {error}", "{node} 无响应：{error}"),
    "job.no_replacement_for_alert": (
        "{alert}: the node still has it, and there is no replacement for it (drain or"
        " replace the node, then launch the job again)",
        "{alert}：节点上的问题仍在，也没有可替换的节点（请停用或更换该节点，再重新启动作业）",
    ),
    "job.fault_on": ("{what} on {node}", "{node} 上出现 {what}"),
    "job.fault_on_gpu": ("{what} on {node} (GPU {gpu})", "{node} 的 GPU {gpu} 上出现 {what}"),
    "job.alert_on_node": ("{alert} (on {node})", "{alert}（在 {node} 上）"),
    "job.could_not_start": (
        "could not start the run on {node}: {error}",
        "无法在 {node} 上启动运行：{error}",
    ),
    "job.nccl_timeout": (
        "NCCL watchdog timeout on {who} ({node})",
        "{who}（{node}）的 NCCL 看门狗超时",
    ),
    "job.rank": ("rank {rank}", "{rank} 号进程"),
    "job.a_rank": ("a rank", "某个进程"),
    "job.silent_for": ("{node} did not answer for {seconds} s", "{node} 已 {seconds} 秒无响应"),
    "job.all_exited_0": (
        "every node's process exited with code 0",
        "所有节点的进程都以退出码 0 结束",
    ),
    "job.max_runtime": (
        "stopped: it ran for its max_runtime of {seconds} s",
        "已停止：运行时间达到 max_runtime 的 {seconds} 秒",
    ),
    "job.over_budget": (
        "stopped: it cost {cost} {currency}, its budget is {budget}",
        "已停止：已花费 {cost} {currency}，预算为 {budget}",
    ),
    "job.service_not_ready": (
        "the service did not answer GET {path} within {seconds} s (last: {last})",
        "服务在 {seconds} 秒内没有响应 GET {path}（最后一次：{last}）",
    ),
    "job.stopped_with": ("{message} (stopped: {verdict})", "{message}（停止：{verdict}）"),
    "job.then": ("{first}, {rest}", "{first}；{rest}"),
    "job.node_left": ("{node}: {left}", "{node}：{left}"),
    "job.left_not_started": ("not started", "未启动"),
    "job.left_none": ("no process left", "没有剩下的进程"),
    "job.left_already_ended": ("already ended", "已经结束"),
    "job.left_some": ("{count} process(es) left", "还剩 {count} 个进程"),
    "job.left_unreadable": ("unreadable answer", "回答无法读取"),
    "job.left_unreachable": ("unreachable ({error})", "无法连接（{error}）"),
    # what a launch reports on its way (the operations panel)
    "job.checking_nodes": ("checking {nodes} node(s)", "检查 {nodes} 个节点"),
    "job.detach_needs_guard": (
        "a job launched with --detach or --json needs a follower once this command ends,"
        " and the background guard is not running ({status})",
        "用 --detach 或 --json 启动的作业在本命令结束后需要有进程跟踪，"
        "但后台守护进程没有运行（{status}）",
    ),
    "job.detach_needs_guard_hint": (
        "start it with `xyclaw guard start` (or set [guard] autostart = true), or launch"
        " without --detach and --json to follow the job from this terminal",
        "用 `xyclaw guard start` 启动它（或设置 [guard] autostart = true），或者不带 --detach"
        " 和 --json 启动，在本终端跟踪作业",
    ),
    "job.launch_interrupted": (
        "the process that launched job {name} ended before the job got a cluster; nothing"
        " of it runs (launch it again)",
        "启动作业 {name} 的进程在作业拿到集群之前就结束了；作业没有运行（请重新启动它）",
    ),
    "job.not_watched": (
        "job {name} was not watched for {seconds} s (no XyClaw process followed it); its"
        " nodes' records say what happened meanwhile",
        "作业 {name} 有 {seconds} 秒无人跟踪（没有 XyClaw 进程在跟踪它）；"
        "这段时间发生的事以节点上的记录为准",
    ),
    "job.reattached": (
        "reattached to attempt {attempt} on {nodes} node(s)",
        "已重新接上第 {attempt} 次尝试（{nodes} 个节点）",
    ),
    "job.uploading": (
        "uploading {files} file(s) to {nodes} node(s)",
        "向 {nodes} 个节点上传 {files} 个文件",
    ),
    "job.uploaded": ("{node}: uploaded {file}", "{node}：已上传 {file}"),
    "job.uploaded_changed": (
        "{node}: {sent} of {files} file(s) were new or changed",
        "{node}：{files} 个文件中有 {sent} 个是新的或有改动",
    ),
    "job.running_setup": ("running setup on {nodes} node(s)", "在 {nodes} 个节点上运行准备命令"),
    "job.setup_done": ("setup done on every node", "所有节点的准备命令已完成"),
    "job.starting_run": ("starting the run on {nodes} node(s)", "在 {nodes} 个节点上开始运行"),
    "job.hint_logs": ("`xyclaw logs {job}` shows its output", "`xyclaw logs {job}` 显示它的输出"),
    # the job's events in the history
    "job.note": ("job {name}: {note}", "作业 {name}：{note}"),
    "job.service_ready": ("service {name} is ready at {url}", "服务 {name} 已就绪：{url}"),
    "job.attempt_ended_retry": (
        "job {name}: attempt {attempt} ended ({message}); starting attempt {next}",
        "作业 {name}：第 {attempt} 次尝试结束（{message}）；开始第 {next} 次尝试",
    ),
    "job.ended.succeeded": ("job {name} succeeded", "作业 {name} 成功完成"),
    "job.ended.failed": ("job {name} failed", "作业 {name} 失败"),
    "job.ended.cancelled": ("job {name} cancelled", "作业 {name} 已取消"),
    "job.ended.succeeded_because": (
        "job {name} succeeded: {error}",
        "作业 {name} 成功完成：{error}",
    ),
    "job.ended.failed_because": ("job {name} failed: {error}", "作业 {name} 失败：{error}"),
    "job.ended.cancelled_because": ("job {name} cancelled: {error}", "作业 {name} 已取消：{error}"),
    "job.releasing_its_cluster": (
        "job {name} ended: releasing its cluster (release_when_done)",
        "作业 {name} 已结束：释放它的集群（release_when_done）",
    ),
    "job.release_failed": (
        "releasing the cluster of job {name} failed: {error}",
        "释放作业 {name} 的集群失败：{error}",
    ),
    # a cluster going away stops its jobs (xyclaw.jobs.service)
    "job.cluster_gone.releasing": (
        "its cluster {cluster} is releasing",
        "它的集群 {cluster} 正在释放",
    ),
    "job.cluster_gone.released": ("its cluster {cluster} is released", "它的集群 {cluster} 已释放"),
    "job.cluster_gone.gone": ("its cluster {cluster} is gone", "它的集群 {cluster} 已不存在"),
    "job.cluster_gone.failed": ("its cluster {cluster} is failed", "它的集群 {cluster} 已失败"),
    "job.is_stopped": ("job {name} is stopped: {why}", "作业 {name} 已停止：{why}"),
    "job.stopped_because": ("stopped: {why}", "已停止：{why}"),
    "job.warning": ("warning: {text}", "警告：{text}"),
    "job.gpu_differs": (
        "the task asks for {gpu} but cluster {cluster} has {has}: it runs there on {has}",
        "任务要求 {gpu}，但集群 {cluster} 的 GPU 是 {has}：它将在 {has} 上运行",
    ),
    "job.renting_failed": ("renting its cluster failed: {error}", "租用它的集群失败：{error}"),
    # replacements for lost nodes (xyclaw.engine)
    "job.renting_replacement": (
        "job {name}: renting a replacement for {nodes}: {quote} (recovery.allow_spend)",
        "作业 {name}：为 {nodes} 租用替换节点：{quote}（recovery.allow_spend）",
    ),
    "job.no_replacement": (
        "job {name}: no replacement for {nodes}: {error}",
        "作业 {name}：{nodes} 没有替换节点：{error}",
    ),
    "job.replacement_ask": (
        "job {id} {job}: {nodes} of {cluster} is lost; a replacement rents {quote}",
        "作业 {id} {job}：{cluster} 的 {nodes} 已丢失；替换节点将租用 {quote}",
    ),
    # issue 34: a replacement a hang's verdict asks for, with the checkpoint it resumes from
    "job.replacement_ask.blamed": (
        "job {id} {job}: {reason}; replacing {nodes} of {cluster} rents {quote}",
        "作业 {id} {job}：{reason}；更换 {cluster} 的 {nodes} 将租用 {quote}",
    ),
    "job.replacement_ask.resume": (
        "{ask}; the job then resumes from {path} (step {step})",
        "{ask}；随后作业从 {path}（第 {step} 步）继续",
    ),
    "job.replacement_ask.no_checkpoint": (
        "{ask}; the job has no checkpoint yet: it starts over",
        "{ask}；作业尚无检查点：将从头开始",
    ),
    "job.replacement_waits": (
        "{ask}; it waits for your approval (the spec does not allow the spend:"
        " recovery.allow_spend)",
        "{ask}；等待你的批准（规格不允许自行花费：recovery.allow_spend）",
    ),
    "job.no_replacement_rented": (
        "job {name}: no replacement rented for {nodes} ({why})",
        "作业 {name}：没有为 {nodes} 租用替换节点（{why}）",
    ),
    "job.replacement.declined": ("you declined it", "你拒绝了"),
    "job.replacement.expired": ("no answer before its quote expired", "报价过期前没有回答"),
    "job.replacement.cancelled": ("the job was cancelled", "作业已取消"),
    # -- issue 34: what the Flight Recorder dumps say after a watchdog timeout ----------------
    "job.hang.explained": ("{timeout}: {verdict}", "{timeout}：{verdict}"),
    "job.hang.not_joined": (
        "rank {ranks} on {nodes} never entered {op} #{seq} of group {group}; "
        "{waiting} other rank(s) waited in it",
        "{nodes} 上的 {ranks} 号进程始终没有进入 {group} 组的第 {seq} 次 {op}；"
        "另有 {waiting} 个进程在其中等待",
    ),
    "job.hang.silent": (
        "{verdict} (no dump from rank {ranks}: its process or node died)",
        "{verdict}（{ranks} 号进程没有留下记录：进程或节点已失效）",
    ),
    "job.hang.mismatch": (
        "rank {ranks} on {nodes} called another collective than its peers at {op} #{seq} "
        "of group {group}",
        "{nodes} 上的 {ranks} 号进程在 {group} 组第 {seq} 次 {op} 处调用了与其他进程不同的集合通信",
    ),
    "job.hang.all_stuck": (
        "every rank entered {op} #{seq} of group {group} and none finished it: the fabric or "
        "a GPU, not one rank",
        "所有进程都进入了 {group} 组第 {seq} 次 {op} 且都未完成："
        "问题在网络或某块 GPU，而非某个进程",
    ),
    "job.hang.unknown": (
        "the Flight Recorder dumps name no rank ({files} of {world} read)",
        "Flight Recorder 记录未指出具体进程（读到 {files}/{world} 份）",
    ),
    "job.hang.with_alert": (
        "{verdict}; before that, at {at}: {alert}",
        "{verdict}；此前在 {at}：{alert}",
    ),
    # the XID the blamed node's driver logged, read from its kernel log (not the merged alert)
    "job.hang.with_xid": (
        "{verdict}; {node} logged XID {code} ({what}) at {at}",
        "{verdict}；{node} 在 {at} 记录了 XID {code}（{what}）",
    ),
    "job.hang.none": (
        "every rank finished every collective it started ({files} of {world} dumps read): "
        "no rank holds the others in a collective",
        "每个进程都完成了它开始的全部集合通信（读到 {files}/{world} 份记录）："
        "没有进程在集合通信中拖住其他进程",
    ),
    # what XyClaw adds to a train job, on its launch card (issue 34, b34)
    "job.adds.step_timer": (
        "XyClaw adds a per-rank step timer: a sitecustomize put first on PYTHONPATH times "
        "each optimizer.step() on every rank and prints one line per rank every {every} "
        'steps (XYCLAW_STEP_TIMES: "0" in the spec\'s env turns it off)',
        "XyClaw 会加入逐进程步长计时：放在 PYTHONPATH 最前面的 sitecustomize 为每个进程的每次"
        "优化器更新计时，每 {every} 步每个进程打印一行（在规格的环境变量中设 "
        'XYCLAW_STEP_TIMES: "0" 可关闭）',
    ),
    "job.adds.step_timer_off": (
        'the per-rank step timer is off (the spec\'s env sets XYCLAW_STEP_TIMES to "{value}")',
        '逐进程步长计时已关闭（规格的环境变量把 XYCLAW_STEP_TIMES 设为 "{value}"）',
    ),
    "job.adds.flight_recorder": (
        "XyClaw adds PyTorch's Flight Recorder variables and its debug pipe, so a hang names "
        'its rank (XYCLAW_FLIGHT_RECORDER: "0" in the spec\'s env turns them off)',
        "XyClaw 会加入 PyTorch 的 Flight Recorder 变量及其调试管道，卡住时可指出具体进程"
        '（在规格的环境变量中设 XYCLAW_FLIGHT_RECORDER: "0" 可关闭）',
    ),
    "job.adds.flight_recorder_off": (
        "PyTorch's Flight Recorder is off (the spec's env sets XYCLAW_FLIGHT_RECORDER to "
        '"{value}")',
        "PyTorch 的 Flight Recorder 已关闭"
        '（规格的环境变量把 XYCLAW_FLIGHT_RECORDER 设为 "{value}"）',
    ),
    # what a job sends to its nodes, on its launch card (issue 31)
    "job.sends.secrets": (
        "Sends these secrets from this machine to every node: {names} (values never stored "
        "or logged)",
        "会把本机的这些密钥发送到每个节点：{names}（值从不保存，也不写入日志）",
    ),
    "job.sends.no_secrets": (
        "Sends no secret from this machine (the spec names none)",
        "不发送本机的任何密钥（规格未指定）",
    ),
    "job.sends.variables": (
        "Sets the spec's own variables: {names}",
        "设置规格自带的变量：{names}",
    ),
    "job.adds.inspector": (
        "XyClaw loads NCCL's Inspector plugin where a node has it "
        "(libnccl-profiler-inspector.so), so the fabric-regression warning reads the bus "
        "bandwidth of the job's own collectives from {folder} "
        '(XYCLAW_NCCL_INSPECTOR: "0" in the spec\'s env turns it off)',
        "节点上有 NCCL Inspector 插件（libnccl-profiler-inspector.so）时，XyClaw 会加载它，"
        "网络性能下降告警据此从 {folder} 读取作业自身集合通信的总线带宽"
        '（在规格的环境变量中设 XYCLAW_NCCL_INSPECTOR: "0" 可关闭）',
    ),
    "job.adds.inspector_off": (
        "NCCL's Inspector is off (the spec's env sets XYCLAW_NCCL_INSPECTOR to \"{value}\"): "
        "fabric regression is estimated from step times and NIC counters",
        'NCCL Inspector 已关闭（规格的环境变量把 XYCLAW_NCCL_INSPECTOR 设为 "{value}"）：'
        "网络性能下降根据步时和网卡计数器估算",
    ),
    "job.adds.inspector_own": (
        "the spec loads its own NCCL profiler plugin ({plugin}), so XyClaw does not add "
        "the Inspector: fabric regression is estimated from step times and NIC counters",
        "规格自带 NCCL 性能分析插件（{plugin}），因此 XyClaw 不加入 Inspector："
        "网络性能下降根据步时和网卡计数器估算",
    ),
    "job.hang.moving": (
        "not stuck: its log showed step {step} {seconds} s ago, within its usual pace; "
        "the ranks' dumps of a running job are a moving snapshot, so they name no rank",
        "没有卡住：日志在 {seconds} 秒前显示到第 {step} 步，节奏正常；"
        "运行中作业的记录只是各进程各自时刻的快照，因此不指认进程",
    ),
    "job.hang.stall": (
        "no progress past the usual step time and no watchdog line yet; every rank was "
        "asked for its dump: {verdict}",
        "进度停滞已超过通常的步长时间，尚无看门狗超时；已请每个进程写出记录：{verdict}",
    ),
    "job.hang.xid": (
        "a GPU error ended the attempt; every rank was asked for its dump: {verdict}",
        "GPU 错误使本次尝试结束；已请每个进程写出记录：{verdict}",
    ),
    "job.hang.asked": (
        "every rank was asked for its dump: {verdict}",
        "已请每个进程写出记录：{verdict}",
    ),
    "job.hang.action": (
        "replace {nodes} and resume from the last checkpoint",
        "更换 {nodes} 并从最近的检查点继续",
    ),
    # outputs copied off the nodes (issue 32, xyclaw.jobs.outputs)
    "job.outputs.copied_file": ("{node}: copied {file}", "{node}：已复制 {file}"),
    "job.outputs.copied": (
        "job {name}: copied {files} new output file(s) ({size}) to {folder}",
        "作业 {name}：已将 {files} 个新的输出文件（{size}）复制到 {folder}",
    ),
    "job.outputs.over_limit": (
        "job {name}: {files} output file(s) ({size}) not copied: the copies would pass"
        " outputs.max_size ({limit})",
        "作业 {name}：{files} 个输出文件（{size}）未复制：复制后会超过 outputs.max_size（{limit}）",
    ),
    "job.outputs.restored": (
        "job {name}: uploaded the checkpoint copied to this machine at step {step} ({size}) to"
        " {path}; the attempt resumes from it",
        "作业 {name}：已把复制到本机的第 {step} 步检查点（{size}）上传到 {path}；本次尝试从它继续",
    ),
    # before a release (issue 32, xyclaw.jobs.release_outputs)
    "job.outputs.release.job_end": ("its job ended", "作业已结束"),
    "job.outputs.release.idle": ("it was idle", "集群空闲"),
    "job.outputs.release.budget": ("its budget is spent", "预算已用完"),
    "job.outputs.release.user": ("you asked", "你要求释放"),
    "job.outputs.release.copied": (
        "{files} new file(s) ({size}) copied to {folder}, {held} of outputs there in all",
        "{files} 个新文件（{size}）已复制到 {folder}，那里共有 {held} 的输出",
    ),
    "job.outputs.release.lost": (
        "{files} file(s) ({size}) not copied; nodes that did not answer, their outputs not"
        " listed: {nodes}",
        "{files} 个文件（{size}）未复制；没有响应、输出无法列出的节点：{nodes}",
    ),
    "job.outputs.release.note": (
        "before releasing {cluster} ({why}), job {job}: {copied}; none of its outputs is left"
        " only on the cluster",
        "释放 {cluster} 之前（{why}），作业 {job}：{copied}；它的输出没有只留在集群上的",
    ),
    "job.outputs.release.note_lost": (
        "before releasing {cluster} ({why}), job {job}: {copied}; lost with the cluster: {left}",
        "释放 {cluster} 之前（{why}），作业 {job}：{copied}；随集群一起丢失：{left}",
    ),
    "job.cluster_taken_back": (
        "the provider took {cluster} back (spot preemption or reclaimed host); its nodes are lost",
        "提供商收回了 {cluster}（竞价实例被抢占或主机被收回）；它的节点已丢失",
    ),
    # a spot cluster's preemption notice, acted on at once (issue 32, xyclaw.jobs.spot_watch)
    "job.spot.notice": (
        "job {name}: the provider takes spot cluster {cluster} back in about {seconds} s;"
        " copying the outputs and the newest checkpoint now",
        "作业 {name}：提供商约 {seconds} 秒后收回竞价集群 {cluster}；正在立即复制输出和最新检查点",
    ),
    "job.spot.notice_no_outputs": (
        "job {name}: the provider takes spot cluster {cluster} back in about {seconds} s;"
        " the job has no outputs or checkpoint_dir to copy, so a new attempt starts from step 0",
        "作业 {name}：提供商约 {seconds} 秒后收回竞价集群 {cluster}；作业没有可复制的 outputs"
        " 或 checkpoint_dir，新的尝试将从第 0 步开始",
    ),
    "job.spot.copied": (
        "job {name}: before {cluster} is taken back, copied {files} new file(s) ({size}); the"
        " newest checkpoint on this machine is step {step}, which the recovery resumes from",
        "作业 {name}：在 {cluster} 被收回前复制了 {files} 个新文件（{size}）；本机最新的检查点是第"
        " {step} 步，恢复时从它继续",
    ),
    "job.spot.copied_no_checkpoint": (
        "job {name}: before {cluster} is taken back, copied {files} new file(s) ({size}); no"
        " complete checkpoint yet, so the recovery starts from step 0",
        "作业 {name}：在 {cluster} 被收回前复制了 {files} 个新文件（{size}）；还没有完整的检查点，"
        "恢复时从第 0 步开始",
    ),
}
