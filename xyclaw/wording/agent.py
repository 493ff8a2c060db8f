"""Wording of agent: ``key: (English, Chinese)``, ``str.format`` fields in braces.

What the agents' tools write: a tool result's one-line summary (``agent.done.*``), an
approval card's title and rows (``agent.card_*``, also the terminal's card through
:mod:`xyclaw.wording.agent_rules`), and the states those lines name.
"""

from __future__ import annotations

#: Approval cards: the tools word them (title and rows); ``xyclaw ask`` prints the same.
CARDS: dict[str, tuple[str, str]] = {
    "agent.card_rent": (
        "Rent {gpus} x {gpu} ({fabric}) for {per_hour}/h, about {total} in total",
        "租用 {gpus} 张 {gpu}（{fabric}），每小时 {per_hour}，预计共 {total}",
    ),
    "agent.card_shape": (
        "{nodes} nodes x {per_node} {gpu}",
        "{nodes} 台 × 每台 {per_node} 张 {gpu}",
    ),
    "agent.card_shape_one": ("1 node x {per_node} {gpu}", "1 台 × 每台 {per_node} 张 {gpu}"),
    "agent.card_fabric": ("{fabric}", "网络 {fabric}"),
    "agent.card_one_node": ("single node", "单机"),
    "agent.card_release": ("Release {names}", "释放 {names}"),
    "agent.card_release_billing": (
        "billing of {names} stops once the provider confirms",
        "平台确认后，{names} 停止计费",
    ),
    "agent.card_release_job_lost": (
        "job {job} running on {cluster} is stopped",
        "{cluster} 上正在运行的作业 {job} 会被停止",
    ),
    "agent.card_release_disk_lost": (
        "files on the nodes' own disks (copy results and checkpoints off first)",
        "节点本地磁盘上的文件（请先把结果和检查点拷出来）",
    ),
    "agent.card_replace": (
        "Job {job} lost {nodes} of {cluster}: {rent}",
        "作业 {job} 丢失了 {cluster} 的 {nodes}：{rent}",
    ),
    "agent.card_budget": (
        "Set the budget of {cluster} to {budget} (now {current})",
        "把 {cluster} 的预算设为 {budget}（现在是 {current}）",
    ),
    "agent.card_budget_none": ("none", "无"),
    "agent.card_budget_means": (
        "XyClaw releases {cluster} when what it spent reaches {budget}; at {per_hour} that"
        " is about {hours} h more",
        "{cluster} 花到 {budget} 时 XyClaw 会自动释放它；按每小时 {per_hour}，大约还能再用"
        " {hours} 小时",
    ),
    "agent.card_cancel": ("Cancel job {job}", "取消作业 {job}"),
    "agent.card_cancel_billing": (
        "nothing: the cluster keeps billing until released",
        "不会停止计费：集群在释放前一直计费",
    ),
    "agent.card_cancel_lost": (
        "progress since the job's last checkpoint",
        "作业上一个检查点之后的进度",
    ),
    "agent.card_exec": ("Run on {cluster}: {command}", "在 {cluster} 上执行：{command}"),
    "agent.card_all_nodes": ("{cluster} (all nodes)", "{cluster}（全部节点）"),
    "agent.card_tune": ("Tune NCCL on {cluster}", "调优 {cluster} 的 NCCL"),
    "agent.card_tune_command": (
        "fabric probe, nccl-tests all_reduce before and after, NCCL settings",
        "探测网络，调优前后各跑一次 nccl-tests all_reduce，设定 NCCL 参数",
    ),
    "agent.card_tune_changes": (
        "the NCCL environment later jobs on this cluster get",
        "这个集群上之后的作业所用的 NCCL 环境变量",
    ),
    "agent.card_launch": ("Launch {spec}", "启动 {spec}"),
    "agent.card_launch_on": ("Launch {spec} on {cluster}", "在 {cluster} 上启动 {spec}"),
    "agent.card_launch_rent": (
        "Launch {spec}: rent {gpus} x {gpu} for {per_hour}/h, about {total} in total",
        "启动 {spec}：租用 {gpus} 张 {gpu}，每小时 {per_hour}，预计共 {total}",
    ),
    "agent.card_launch_command": (
        "the spec's launch command (torchrun over SSH on every node)",
        "作业描述里的启动命令（通过 SSH 在每个节点上运行 torchrun）",
    ),
    # issue 33 (a33): a job submitted to a lab's Slurm cluster through its scheduler
    "agent.card_slurm_launch": (
        "Submit {spec} to the Slurm cluster {site} (partition {partition}, {nodes} x {gpus} GPU)",
        "把 {spec} 提交到 Slurm 集群 {site}（分区 {partition}，{nodes} × {gpus} 张卡）",
    ),
}

#: A tool result's one line (the tool card's summary; the model reads the English).
DONE: dict[str, tuple[str, str]] = {
    "agent.done.plan": (
        "plan {plan}: {count} options, best {gpus} x {gpu} at {cost}",
        "方案 {plan}：{count} 个选项，最优 {gpus} × {gpu}，{cost}",
    ),
    "agent.done.plan_nothing": (
        "plan {plan}: nothing fits ({why})",
        "方案 {plan}：没有合适的（{why}）",
    ),
    "agent.done.plan_see_rejected": ("see the rejected", "见被排除的选项"),
    "agent.done.offers": ("{count} offers", "{count} 个报价"),
    "agent.done.clusters": ("{count} clusters: {names}", "{count} 个集群：{names}"),
    "agent.done.none": ("none", "无"),
    "agent.done.health": ("health of {cluster}", "{cluster} 的健康状况"),
    "agent.done.job": ("job {job}: {state}", "作业 {job}：{state}"),
    "agent.done.jobs": ("{count} jobs", "{count} 个作业"),
    "agent.done.logs": ("{count} log lines of job {job}", "作业 {job} 的 {count} 行日志"),
    "agent.done.why_stuck": ("job {job}: {verdict}", "作业 {job}：{verdict}"),
    "agent.done.why_stuck_action": (
        "job {job}: {verdict}. What to do: {action}",
        "作业 {job}：{verdict}。建议：{action}",
    ),
    "agent.done.spent": ("spent {amounts}", "已花费 {amounts}"),
    "agent.done.spent_nothing": ("spent nothing", "没有花费"),
    "agent.done.history.clusters": ("{count} clusters", "{count} 个集群"),
    "agent.done.history.jobs": ("{count} jobs", "{count} 个作业"),
    "agent.done.history.events": ("{count} events", "{count} 条事件"),
    "agent.done.history.plans": ("{count} plans", "{count} 个方案"),
    "agent.done.history.conversations": ("{count} conversations", "{count} 个对话"),
    "agent.done.alerts_open": ("{count} open alerts", "{count} 条未处理的告警"),
    "agent.done.alerts": ("{count} alerts", "{count} 条告警"),
    "agent.done.track_record": ("{rentals} rentals remembered", "记得 {rentals} 次租用"),
    "agent.done.rented": ("rented {cluster} ({state})", "已租用 {cluster}（{state}）"),
    "agent.done.replacement": (
        "approved the replacement for job {job}: {quote}",
        "已批准作业 {job} 的替换节点：{quote}",
    ),
    "agent.done.budget": ("budget of {cluster}: {budget}", "{cluster} 的预算：{budget}"),
    "agent.done.released": ("released {names}", "已释放 {names}"),
    "agent.done.cancelled": ("cancelled job {job}", "已取消作业 {job}"),
    "agent.done.ran": (
        "ran on {nodes} nodes, {failed} failed",
        "在 {nodes} 个节点上执行，{failed} 个失败",
    ),
    "agent.done.tuned": ("tuned {cluster}", "已调优 {cluster}"),
    "agent.done.launched": ("launched job {job}", "已启动作业 {job}"),
    # issue 33 (a33)
    "agent.done.slurm_submitted": (
        "submitted job {job} to {site}, partition {partition}",
        "已把作业 {job} 提交到 {site} 的分区 {partition}",
    ),
    "agent.done.slurm_queue": (
        "the queue at {sites}: {waits}",
        "{sites} 的排队情况：{waits}",
    ),
    # "Rent this" on a plan card, as the user's request
    "agent.rent_option": ("Rent option {option} of plan {plan}", "租用方案 {plan} 的选项 {option}"),
    # a name and its state in a list, and the list itself ("a (ready), b (released)")
    "agent.done.named_state": ("{name} ({state})", "{name}（{state}）"),
    # why a call did not run (the tool card's line)
    "agent.not_run.rejected_by_user": ("rejected by user", "你已拒绝"),
    "agent.not_run.rejected_by": ("rejected by {by}", "已拒绝（{by}）"),
    "agent.not_run.nobody": (
        "nobody to ask (no window or terminal is open), so the answer is no",
        "没有人可以询问（没有打开窗口或终端），所以答案是否",
    ),
    "agent.not_run.edited": ("edited", "已修改参数，重新询问"),
    "agent.card_bound": (
        "card {card}: a yes is for exactly this card (xyclaw ask --approve {card})",
        "卡片 {card}：批准只对这张卡片有效（xyclaw ask --approve {card}）",
    ),
    "agent.card_targets": ("acts on {targets}", "作用于 {targets}"),
    "agent.card_asked_by": ("asked by {who}", "提出者：{who}"),
    "agent.card_target.cluster": ("cluster {name} (id {id})", "集群 {name}（编号 {id}）"),
    "agent.card_target.node": ("node {name} (id {id})", "节点 {name}（编号 {id}）"),
    "agent.card_target.job": ("job {name} (id {id})", "作业 {name}（编号 {id}）"),
    "agent.card_target.instance": ("instance {name} (id {id})", "实例 {name}（编号 {id}）"),
    "agent.asker.user": ("you", "你"),
    "agent.asker.agent": ("an agent", "智能体"),
    "agent.asker.suggestion": ("a suggestion of XyClaw's", "XyClaw 的建议"),
    "agent.asker.recovery": ("a job's recovery", "作业的恢复流程"),
    "agent.asker.mcp client": ("an MCP client", "MCP 客户端"),
    "agent.not_run.answered_elsewhere": (
        "this card was already answered elsewhere ({status}); nothing was done here",
        "这张卡片已在别处回答（{status}）；这里什么都没有做",
    ),
    "agent.not_run.interrupted": (
        "XyClaw stopped while this ran (its process ended), so it may have been done in part;"
        " it is not run again: check `xyclaw clusters` and `xyclaw jobs`",
        "运行期间 XyClaw 停止了（其进程已结束），所以它可能只完成了一部分；不会再次运行："
        "请用 `xyclaw clusters` 和 `xyclaw jobs` 查看",
    ),
    "agent.closing": ("the agents are shutting down", "智能体正在关闭"),
    "agent.closing_hint": ("open XyClaw again to go on", "重新打开 XyClaw 后继续"),
    "agent.not_run.not_this_card": (
        "the yes named card {card}, but card {waiting} is waiting; nothing was done",
        "你批准的是卡片 {card}，但正在等待的是卡片 {waiting}；什么都没有做",
    ),
    "agent.taint.not_typed": (
        "{arg} was written by the model after remote output entered this conversation, and"
        " is not text you typed",
        "{arg} 是模型在本对话读到远程输出之后写的，而不是你输入的文字",
    ),
    "agent.taint.appears": (
        "{arg} appears in the output of {tool} (line {line})",
        "{arg} 出现在 {tool} 的输出中（第 {line} 行）",
    ),
    "agent.not_run.failed": ("{message} ({hint})", "{message}（{hint}）"),
    # -- issue 37: an MCP client asks, never answers ------------------------------------------
    "agent.asker.named": ("{who} ({name})", "{who}（{name}）"),
    "agent.taint.mcp": (
        "{arg} was sent by an MCP client (another program), not typed by you",
        "{arg} 是 MCP 客户端（另一个程序）发来的，不是你输入的",
    ),
    "agent.mcp.title": ("MCP: {name}", "MCP：{name}"),
    "agent.mcp.asks": (
        "An MCP client ({name}) asks for {tool}: {args}",
        "MCP 客户端（{name}）请求 {tool}：{args}",
    ),
}

#: Cluster and job states as the summaries name them.
STATES: dict[str, tuple[str, str]] = {
    f"agent.state.{state}": (state, chinese)
    for state, chinese in {
        "requested": "已请求",
        "provisioning": "开通中",
        "bootstrapping": "初始化中",
        "ready": "就绪",
        "releasing": "释放中",
        "released": "已释放",
        "failed": "失败",
        "gone": "已消失",
        "queued": "排队中",
        "setting-up": "准备中",
        "starting": "启动中",
        "running": "运行中",
        "succeeded": "成功",
        "cancelled": "已取消",
        "recovering": "恢复中",
        "lost-contact": "失去联系",
        "pending": "等待中",  # a node's
        "terminating": "终止中",
        "terminated": "已终止",
        "unknown": "未知",
    }.items()
}

TEXTS: dict[str, tuple[str, str]] = {**CARDS, **DONE, **STATES}
