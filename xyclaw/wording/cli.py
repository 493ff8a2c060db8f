"""Wording of the command line: ``key: (English, Chinese)``, ``str.format`` fields in braces.

The CLI speaks the language of the ``[gui] language`` setting (:func:`xyclaw.wording.language_of`);
``--json`` output is never translated. ``cli.word_*`` entries word a stored state, kind or cause
(English: the value itself).
"""

from __future__ import annotations

TEXTS: dict[str, tuple[str, str]] = {
    # xyclaw plan
    "cli.plan_for": ("Plan for {what}", "规划：{what}"),
    "cli.plan_nothing_fits": ("Nothing fits: {why}.", "没有合适的选项：{why}。"),
    "cli.plan_fit": (
        "{fit} of {considered} shapes fit ({order}); showing {shown}. Prices per card-hour; "
        "util = {util}",
        "{considered} 种规格中有 {fit} 种满足（{order}）；显示 {shown} 种。价格按每卡时计；"
        "util = {util}",
    ),
    "cli.plan_fastest": ("fastest first", "最快的在前"),
    "cli.plan_cheapest": ("cheapest first", "最便宜的在前"),
    "cli.plan_util_train": ("MFU x fabric factor.", "MFU × 网络系数。"),
    "cli.plan_util_serve": ("load at the rate.", "按请求速率的负载。"),
    "cli.plan_all_break": (
        "Nothing fits: all {considered} shapes break a limit. The {closest} closest and why:",
        "没有合适的选项：{considered} 种规格都超出某个限制。最接近的 {closest} 种及原因：",
    ),
    "cli.plan_why": ("why", "理由"),
    # issue 32: an option whose offer can also be rented as spot
    "cli.plan_spot": (
        "spot: {cost} (-{percent}%), with about {rate} preemption(s) a day: ~{expected:.1f}"
        " over this run; each loses the work since the last copied checkpoint (spec: spot: true)",
        "竞价：{cost}（-{percent}%），每天约被抢占 {rate} 次：本次运行预计约 {expected:.1f} 次；"
        "每次损失上次复制的检查点之后的工作（规格：spot: true）",
    ),
    "cli.plan_rejected": ("rejected", "不满足"),
    "cli.col_gpu": ("GPU", "GPU"),
    "cli.col_cards": ("cards", "卡数"),
    "cli.col_fabric": ("fabric", "网络"),
    "cli.col_provider_region": ("provider/region", "平台/地区"),
    "cli.col_price_h": ("price/h", "每卡时"),
    "cli.col_hours": ("hours", "小时"),
    "cli.col_cost": ("cost", "费用"),
    "cli.plan_rent_hint": (
        "Plan {id}. Rent an option with: xyclaw up --plan {id} --option 1",
        "方案 {id}。租用其中一个选项：xyclaw up --plan {id} --option 1",
    ),
    # xyclaw up / down
    "cli.up_question": ("Rent it? [y/N] ", "确认租用？[y/N] "),
    "cli.up_nothing": ("nothing rented", "没有租用任何机器"),
    "cli.up_needs_yes": (
        "renting costs money: confirm with --yes when not at a terminal",
        "租用要花钱：不在终端里运行时请加 --yes 确认",
    ),
    "cli.cluster_state": ("cluster {id} {name}: {state}", "集群 {id} {name}：{state}"),
    "cli.node_line": (
        "  node {rank} {name} {state} ssh {where}",
        "  节点 {rank} {name} {state} ssh {where}",
    ),
    "cli.down_question": ("Release {name}? [y/N] ", "确认释放 {name}？[y/N] "),
    "cli.down_needs_yes": (
        "releasing {name} destroys its machines: confirm with --yes",
        "释放 {name} 会销毁它的机器：请加 --yes 确认",
    ),
    # xyclaw clusters / billing
    "cli.col_id": ("id", "编号"),
    "cli.col_name": ("name", "名称"),
    "cli.col_state": ("state", "状态"),
    "cli.col_gpus": ("gpus", "GPU"),
    "cli.col_cost_so_far": ("cost so far", "已花费"),
    "cli.col_meter": ("meter", "本地计费"),
    "cli.col_provider": ("provider", "平台账单"),
    "cli.no_clusters": ("no clusters", "没有集群"),
    "cli.no_clusters_running": (
        "no clusters running (use --all for past ones)",
        "没有运行中的集群（--all 显示以前的）",
    ),
    "cli.billing_total": ("total (meter): {amounts}", "合计（本地计费）：{amounts}"),
    "cli.warning": ("warning: {text}", "警告：{text}"),
    # xyclaw launch / jobs / jobs show / logs / cancel
    "cli.col_try": ("try", "尝试"),
    "cli.col_cluster": ("cluster", "集群"),
    "cli.col_step": ("step", "步数"),
    "cli.col_loss": ("loss", "loss"),
    "cli.col_eta": ("eta", "预计剩余"),
    "cli.no_jobs": ("no jobs", "没有作业"),
    # issue 36: `xyclaw jobs results`
    "cli.per_m_tokens": ("{cost} / M tokens", "{cost} / 百万 token"),
    "cli.per_1k_requests": ("{cost} / 1k requests", "{cost} / 千次请求"),
    "cli.per_epoch": ("{cost} / epoch", "{cost} / 轮"),
    "cli.col_result_kind": ("kind", "类型"),
    "cli.col_result_gpus": ("gpus", "GPU"),
    "cli.col_result_cost": ("cost", "费用"),
    "cli.col_per_result": ("per result", "单位产出费用"),
    "cli.col_mfu": ("mfu", "MFU"),
    "cli.col_month": ("month", "月份"),
    "cli.col_provider_name": ("provider", "平台"),
    "cli.col_result_gpu": ("gpu", "GPU"),
    "cli.col_result_jobs": ("jobs", "作业数"),
    "cli.col_per_m_tokens": ("per M tokens", "每百万 token"),
    "cli.col_per_1k_requests": ("per 1k requests", "每千次请求"),
    "cli.word_full": ("full", "全参"),
    "cli.word_lora": ("lora", "LoRA"),
    "cli.job_rents": ("this job rents: {quote}", "这个作业要租用：{quote}"),
    # a job's and its nodes' states, kinds and causes, as stored (English: the value itself)
    "cli.word_queued": ("queued", "排队中"),
    "cli.word_setting-up": ("setting-up", "准备中"),
    "cli.word_starting": ("starting", "启动中"),
    "cli.word_running": ("running", "运行中"),
    "cli.word_recovering": ("recovering", "恢复中"),
    "cli.word_lost-contact": ("lost-contact", "失去联系"),
    "cli.word_succeeded": ("succeeded", "成功"),
    "cli.word_failed": ("failed", "失败"),
    "cli.word_cancelled": ("cancelled", "已取消"),
    "cli.word_train": ("train", "训练"),
    "cli.word_service": ("service", "服务"),
    "cli.word_exited": ("exited", "已退出"),
    "cli.word_dead": ("dead", "已终止"),
    "cli.word_lost": ("lost", "丢失"),
    "cli.word_unreachable": ("unreachable", "无法连接"),
    "cli.word_error": ("error", "错误"),
    "cli.word_exit_nonzero": ("exit_nonzero", "非零退出"),
    "cli.word_node_lost": ("node_lost", "节点丢失"),
    "cli.word_xid": ("xid", "GPU 错误（XID）"),
    "cli.word_nccl_timeout": ("nccl_timeout", "NCCL 超时"),
    "cli.word_max_runtime": ("max_runtime", "运行时间上限"),
    "cli.word_budget": ("budget", "预算"),
    "cli.word_setup_failed": ("setup_failed", "准备失败"),
    "cli.word_launch_failed": ("launch_failed", "启动失败"),
    "cli.word_cluster_released": ("cluster_released", "集群已释放"),
    "cli.no_jobs_running": (
        "no jobs running (use --all for past ones)",
        "没有运行中的作业（--all 显示以前的）",
    ),
    "cli.job_launched": (
        "job {id} {name}: {state} on {cluster} (attempt {attempt})",
        "作业 {id} {name}：{state}，在 {cluster} 上（第 {attempt} 次尝试）",
    ),
    "cli.job_follow_hint": (
        "follow it with `xyclaw logs {id} -f`",
        "用 `xyclaw logs {id} -f` 跟踪它",
    ),
    "cli.job_state": ("job {id} {name}: {state}", "作业 {id} {name}：{state}"),
    "cli.job_state_why": (
        "job {id} {name}: {state} ({error})",
        "作业 {id} {name}：{state}（{error}）",
    ),
    "cli.job_head": (
        "job {id} {name} ({kind}): {state}, attempt {attempt}",
        "作业 {id} {name}（{kind}）：{state}，第 {attempt} 次尝试",
    ),
    "cli.job_cluster_cost": (
        "  cluster: {cluster}   cost so far: {cost}",
        "  集群：{cluster}   目前费用：{cost}",
    ),
    "cli.job_url": ("  url: {url}", "  地址：{url}"),
    "cli.job_progress": ("  progress: {parts}", "  进度：{parts}"),
    "cli.job_step": ("step {step}", "第 {step} 步"),
    "cli.job_loss": ("loss {loss}", "loss {loss}"),
    "cli.job_rate": ("{rate} tokens/s", "{rate} tokens/s"),
    "cli.job_eta": ("ETA {eta}", "预计剩余 {eta}"),
    "cli.job_eta_why": ("ETA: {why}", "预计剩余：{why}"),
    "cli.job_checkpoint": ("  newest checkpoint: step {step}", "  最新检查点：第 {step} 步"),
    "cli.job_error": ("  {cause}: {error}", "  {cause}：{error}"),
    "cli.job_attempt": (
        "  attempt {attempt}: {state}{resumed}",
        "  第 {attempt} 次尝试：{state}{resumed}",
    ),
    "cli.job_resumed": (", resumed at step {step}", "，从第 {step} 步继续"),
    "cli.job_node": (
        "    node {rank} {node} ({ip}): {state}{code}",
        "    节点 {rank} {node}（{ip}）：{state}{code}",
    ),
    "cli.job_node_exit": (" exit {code}", " 退出码 {code}"),
    # xyclaw tune's report and nccl analyze's verdict
    "cli.tune_cluster": (
        "cluster {name} ({fabric}, {nodes} node(s))",
        "集群 {name}（{fabric}，{nodes} 个节点）",
    ),
    "cli.tune_fabric": (
        "  fabric: {transport}, HCAs {hcas}{rest}",
        "  网络：{transport}，HCA {hcas}{rest}",
    ),
    "cli.tune_none": ("none", "无"),
    "cli.tune_rate": (" at {gbps} Gb/s", "，{gbps} Gb/s"),
    "cli.tune_gid": (", RoCE v2 GID {gid}", "，RoCE v2 GID {gid}"),
    "cli.tune_gdr": (", GPU-NIC {distance}", "，GPU-网卡 {distance}"),
    "cli.tune_finding": ("  finding: {text}", "  发现：{text}"),
    "cli.tune_before": ("before:", "调优前："),
    "cli.tune_recommended": ("recommended:", "推荐："),
    "cli.tune_changed": ("changed:", "已修改："),
    "cli.tune_environment": (
        "environment for jobs on this cluster:",
        "这个集群上作业使用的环境变量：",
    ),
    "cli.tune_no_environment": (
        "  (none: the nodes' own defaults)",
        "  （无：使用节点自己的默认值）",
    ),
    "cli.tune_note": ("note: {text}", "注：{text}"),
    "cli.tune_defaults": (
        "{title} the nodes' own defaults{image}",
        "{title} 节点自己的默认值{image}",
    ),
    "cli.tune_image": (" (the image sets {image})", "（镜像设置了 {image}）"),
    "cli.verdict": ("{indent}verdict: {text}", "{indent}结论：{text}"),
    "cli.verdict_expected": ("{indent}  expected: {text}", "{indent}  预期：{text}"),
    "cli.verdict_cause": (
        "{indent}  likely cause: {title}: {detail}",
        "{indent}  可能的原因：{title}：{detail}",
    ),
    "cli.verdict_fix": ("{indent}    fix: {fix}", "{indent}    解决：{fix}"),
    "cli.verdict_note": ("{indent}  note: {text}", "{indent}  注：{text}"),
    "cli.job_log_cut": (
        "  log: {kept} lines kept, {cut} cut (the log's cap)",
        "  日志：保留 {kept} 行，截掉 {cut} 行（日志上限）",
    ),
}
