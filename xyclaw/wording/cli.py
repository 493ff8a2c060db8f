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
    # issue 34 (b34): `xyclaw jobs why JOB`
    "cli.why_fresh": ("job {name}, its ranks asked just now:", "作业 {name}，刚刚询问了各进程："),
    "cli.why_recorded": (
        "job {name}, as last recorded at {at}:",
        "作业 {name}，最近一次记录于 {at}：",
    ),
    "cli.why_action": ("what to do: {action}", "建议：{action}"),
    # issue 33: a Slurm partition beside rented offers, when each would start
    "cli.col_starts": ("starts", "开始"),
    "cli.plan_starts_now": ("now", "现在"),
    "cli.plan_starts_wait": ("~{minutes} min", "约 {minutes} 分钟"),
    "cli.plan_starts_unknown": ("queued", "排队"),
    "cli.plan_when_now": ("now", "现在就能跑"),
    "cli.plan_when_wait": ("in about {minutes} min", "约 {minutes} 分钟后开始"),
    "cli.plan_when_unknown": ("after a wait the site does not say", "要排队，集群没说多久"),
    "cli.plan_side_by_side": (
        "side by side: {queue_provider}'s {queue_gpus} {queue_gpu} {queue_when} for"
        " {queue_cost}, or {rent_provider}'s {rent_gpus} {rent_gpu} now for {rent_cost}",
        "对比：{queue_provider} 的 {queue_gpus} 张 {queue_gpu} {queue_when}，费用 {queue_cost}；"
        "或 {rent_provider} 的 {rent_gpus} 张 {rent_gpu} 现在就能用，费用 {rent_cost}",
    ),
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
    "cli.forget_question": (
        "{provider} no longer lists {external} ({name}), which may still bill {per_hour}/h. "
        "Did you check {provider}'s console? Forget it? [y/N] ",
        "{provider} 的列表中已没有 {external}（{name}），它可能仍按每小时 {per_hour} 计费。"
        "你已在 {provider} 的控制台确认过吗？要忘记它吗？[y/N] ",
    ),
    "cli.forget_needs_yes": (
        "forgetting {name} stops metering a cluster that may still bill: check the provider's "
        "console, then confirm with --yes",
        "忘记 {name} 会停止对一个可能仍在计费的集群的本地计费：请先在平台控制台确认，再加 --yes",
    ),
    "cli.forget_kept": (
        "{name} is kept and metered; XyClaw checks its provider's listing again every minute",
        "{name} 已保留并继续计费；XyClaw 每分钟重新查看平台的列表",
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
    "cli.cluster_community": (
        "{name} runs on a community host on {provider} ({host}): its owner is not {provider} "
        "and can see what runs there",
        "{name} 运行在 {provider} 的社区主机上（{host}）：其所有者不是 {provider}，能看到上面运行"
        "的内容",
    ),
    "cli.cluster_error": ("{name}: {error}", "{name}：{error}"),
    "cli.billing_bandwidth": (
        "{name}: bandwidth {amount} (billed per GB by {provider}, apart from GPU time)",
        "{name}：流量费 {amount}（{provider} 按 GB 计费，不含在 GPU 时长内）",
    ),
    "cli.billing_storage": (
        "{name}: storage while stopped {amount} ({provider} bills the disk until it is released)",
        "{name}：停机期间的存储费 {amount}（{provider} 在释放之前一直按磁盘计费）",
    ),
    "cli.billing_compare": (
        "{name}: XyClaw metered {metered}, {provider} charged {charged}",
        "{name}：XyClaw 本地计费 {metered}，{provider} 收费 {charged}",
    ),
    "cli.billing_differs": (
        "{name}: XyClaw metered {metered} but {provider} charged {charged}, more than "
        "{share}% apart: compare the price on its console with `xyclaw clusters --json`",
        "{name}：XyClaw 本地计费 {metered}，但 {provider} 收费 {charged}，相差超过 {share}%："
        "请对照平台控制台上的价格和 `xyclaw clusters --json`",
    ),
    "cli.billing_no_charges": (
        "{name}: XyClaw metered {metered}; {provider} does not report charges through its API",
        "{name}：XyClaw 本地计费 {metered}；{provider} 的 API 不提供收费记录",
    ),
    "cli.billing_charges_unavailable": (
        "{name}: XyClaw metered {metered}; {provider}'s charges could not be read now",
        "{name}：XyClaw 本地计费 {metered}；暂时无法读取 {provider} 的收费记录",
    ),
    "cli.billing_no_line": (
        "{name}: XyClaw metered {metered}; {provider}'s charges have no line for it yet "
        "(not billed yet, or older than 90 days)",
        "{name}：XyClaw 本地计费 {metered}；{provider} 的收费记录中还没有它"
        "（尚未计费，或已超过 90 天）",
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
    # a cluster's and a node's states, as stored (English: the value itself)
    "cli.word_requested": ("requested", "已申请"),
    "cli.word_provisioning": ("provisioning", "开通中"),
    "cli.word_bootstrapping": ("bootstrapping", "初始化中"),
    "cli.word_ready": ("ready", "就绪"),
    "cli.word_releasing": ("releasing", "释放中"),
    "cli.word_released": ("released", "已释放"),
    "cli.word_gone": ("gone", "已消失"),
    "cli.word_pending": ("pending", "等待中"),
    "cli.word_terminating": ("terminating", "终止中"),
    "cli.word_terminated": ("terminated", "已关停"),
    "cli.word_unknown": ("unknown", "未知"),
    # xyclaw budget
    "cli.budget_none": (
        "{name} has no budget now ({spent} spent so far)",
        "{name} 现在没有预算（目前已花费 {spent}）",
    ),
    "cli.budget_set": (
        "{name}: budget {amount}, {spent} spent so far",
        "{name}：预算 {amount}，目前已花费 {spent}",
    ),
    # xyclaw top
    "cli.top_head": (
        "  {gpus} GPUs, {alerts} open alert(s)",
        "  {gpus} 块 GPU，{alerts} 个未解决的告警",
    ),
    "cli.top_gpus": ("{gpus} GPUs, ", "{gpus} 块 GPU，"),
    "cli.top_alerts": ("{alerts} open alert(s)", "{alerts} 个未解决的告警"),
    "cli.top_open_alerts": ("open alerts:", "未解决的告警："),
    "cli.top_no_alerts": ("no open alerts", "没有未解决的告警"),
    "cli.top_no_samples": ("no samples yet", "还没有样本"),
    "cli.top_col_node": ("node", "节点"),
    "cli.top_col_util": ("util", "利用率"),
    "cli.top_col_mem": ("mem GiB", "显存 GiB"),
    "cli.top_col_temp": ("temp", "温度"),
    "cli.top_col_power": ("power W", "功率 W"),
    "cli.top_col_sm": ("sm MHz", "SM MHz"),
    "cli.top_col_throttle": ("throttle", "降频"),
    "cli.top_not_every_node": (
        "xyclaw: not every node of {cluster} answered within {wait} s",
        "xyclaw：{cluster} 并非每个节点都在 {wait} 秒内应答",
    ),
    # xyclaw hosts history
    "cli.track_rentals": ("rentals", "租用"),
    "cli.track_failed": ("failed", "失败"),
    "cli.track_no_up": ("no-up", "未起"),
    "cli.track_refused": ("refused", "拒绝"),
    "cli.track_leaks": ("leaks", "漏计"),
    "cli.track_drift": ("drift", "价差"),
    "cli.track_ready": ("ready", "就绪"),
    "cli.track_title": ("the last {days} days", "近 {days} 天"),
    "cli.track_marks": ("what happened (newest last):", "发生过的事（最新的在最后）："),
    "cli.track_by_provider": ("provider", "平台"),
    "cli.track_by_region": ("region", "地区"),
    "cli.track_by_node_class": ("node class", "节点类别"),
    "cli.track_by_host": ("host", "主机"),
    # xyclaw db
    "cli.db_path": ("database:       {path}", "数据库：        {path}"),
    "cli.db_version": (
        "schema version: {version} (this XyClaw: {latest})",
        "结构版本：      {version}（本 XyClaw：{latest}）",
    ),
    "cli.db_size": ("size:           {size} MB", "大小：          {size} MB"),
    "cli.db_backed_up": ("backed up {path} to {target}", "已把 {path} 备份到 {target}"),
    # xyclaw secrets
    "cli.secret_for_provider": ("{title} ({name} provider)", "{title}（{name} 平台）"),
    "cli.secret_llm": ("the LLM preset {preset}", "LLM 预设 {preset}"),
    "cli.secret_ssh": ("the SSH password of {host}", "{host} 的 SSH 密码"),
    "cli.secret_job": ("a job's secret variable {name}", "作业的秘密变量 {name}"),
    "cli.secret_yours": ("stored by you", "由你保存"),
    "cli.secret_set": ("set", "已设置"),
    "cli.secret_not_set": ("not set", "未设置"),
    "cli.secret_stored": (
        "stored {name} in the {backend} secret store",
        "已把 {name} 存入 {backend} 密钥库",
    ),
    "cli.secret_check": ("check it with `xyclaw providers`", "用 `xyclaw providers` 检查"),
    "cli.secret_was_not_set": (
        "{name} was not set: nothing removed (`xyclaw secrets list` shows the names)",
        "{name} 没有设置：没有删除任何内容（`xyclaw secrets list` 列出名称）",
    ),
    "cli.secret_removed": ("removed {name}", "已删除 {name}"),
    # xyclaw hosts
    "cli.hosts_empty": (
        "no hosts in {path}: add one with `xyclaw hosts add NAME --gpu G`",
        "{path} 中没有主机：用 `xyclaw hosts add NAME --gpu G` 添加一台",
    ),
    "cli.hosts_key_unknown": (
        "not known yet (`xyclaw hosts trust`)",
        "尚未记录（`xyclaw hosts trust`）",
    ),
    "cli.hosts_used_by": ("used by {cluster}", "被 {cluster} 使用"),
    "cli.hosts_free": ("free", "空闲"),
    "cli.hosts_line": (
        "{name} {gpus} x {gpu} {fabric} {price}/GPU-h  {use}",
        "{name} {gpus} x {gpu} {fabric} {price}/GPU-h  {use}",
    ),
    "cli.hosts_address": ("  address:  {address}", "  地址：    {address}"),
    "cli.hosts_host_key": ("  host key: {key}", "  主机密钥：{key}"),
    "cli.hosts_added": (
        "added {name} ({gpus} x {gpu}, {fabric}) to {path}",
        "已把 {name}（{gpus} x {gpu}，{fabric}）添加到 {path}",
    ),
    "cli.hosts_next": ("next: `xyclaw hosts test {name}`", "下一步：`xyclaw hosts test {name}`"),
    "cli.hosts_login_hint": (
        "add XyClaw's public key to ~/.ssh/authorized_keys on the host: {key}",
        "把 XyClaw 的公钥加到该主机的 ~/.ssh/authorized_keys：{key}",
    ),
    "cli.hosts_answers": (
        "{host} answers ({seconds} s): {count} GPU(s)",
        "{host} 已应答（{seconds} 秒）：{count} 块 GPU",
    ),
    "cli.hosts_matches": (
        "matches hosts.toml ({gpus} x {gpu})",
        "与 hosts.toml 一致（{gpus} x {gpu}）",
    ),
    "cli.hosts_mismatch": (
        "hosts.toml says {gpus} x {gpu} for {name}: correct it in {path}",
        "hosts.toml 中 {name} 写的是 {gpus} x {gpu}：请在 {path} 中改正",
    ),
    "cli.hosts_login_failed": (
        "xyclaw: the key is recorded, but logging in failed: {message}",
        "xyclaw：密钥已记录，但登录失败：{message}",
    ),
    "cli.hosts_trusted": (
        "trusted {host}: {key_type} {fingerprint}",
        "已信任 {host}：{key_type} {fingerprint}",
    ),
    "cli.hosts_trusted_in": (
        "trusted {host}: {key_type} {fingerprint} (in {path})",
        "已信任 {host}：{key_type} {fingerprint}（记录在 {path}）",
    ),
    "cli.hosts_already": ("{host} is already trusted: {shown}", "{host} 已被信任：{shown}"),
    "cli.hosts_key_on_record": ("its key is on record", "它的密钥已有记录"),
    "cli.hosts_removed": (
        "removed {count} key line(s) of {host} from {path}",
        "已从 {path} 删除 {host} 的 {count} 行密钥",
    ),
    "cli.hosts_not_known": ("{host} was not in {path}", "{host} 不在 {path} 中"),
    "cli.hosts_still_known": (
        "{host} is still known from {where}, which XyClaw never changes; to forget it there:"
        " ssh-keygen -R '{name}'",
        "{where} 中仍有 {host}，XyClaw 从不修改那里；要在那里忘记它：ssh-keygen -R '{name}'",
    ),
    # xyclaw offers, hosts history
    "cli.col_region": ("region", "地区"),
    "cli.col_per_card_h": ("per card-h", "每卡时"),
    "cli.col_free": ("free", "空闲"),
    "cli.no_offers": ("no offers", "没有报价"),
    "cli.no_offers_for": ("no offers for {gpu}", "没有 {gpu} 的报价"),
    "cli.no_rentals": ("no rentals in the last {days} days", "近 {days} 天没有租用记录"),
    # every command's error line
    "cli.error": ("xyclaw: error: {message}", "xyclaw：错误：{message}"),
    "cli.error_hint": ("  -> {hint}", "  -> {hint}"),
    "cli.interrupted": ("xyclaw: interrupted", "xyclaw：已中断"),
    # xyclaw doctor (the checks' own texts: xyclaw.wording.doctor)
    "cli.doctor_fix": ("       fix: {fix}", "       解决：{fix}"),
    "cli.doctor_passed": ("all required checks passed", "所有必需的检查都通过了"),
    "cli.doctor_failed": ("some required checks failed", "有必需的检查没有通过"),
    "cli.doctor_next": ("next, when you want them:", "之后需要时可以："),
    # xyclaw config
    "cli.config_changed_mark": ("   # changed", "   # 已修改"),
    "cli.config_file": ("config file: {path}", "配置文件：{path}"),
    "cli.config_data": ("data folder: {path}", "数据文件夹：{path}"),
    "cli.config_database": ("database:    {path}", "数据库：    {path}"),
    "cli.config_log": ("log file:    {path}", "日志文件：  {path}"),
    "cli.config_ok": (
        "config.toml: ok ({path}, {changed} setting(s) changed)",
        "config.toml：正常（{path}，修改了 {changed} 项设置）",
    ),
    "cli.config_none": (
        "config.toml: none at {path}; the defaults apply",
        "config.toml：{path} 不存在；使用默认设置",
    ),
    "cli.hosts_ok": (
        "hosts.toml: ok ({path}, {count} host(s))",
        "hosts.toml：正常（{path}，{count} 台主机）",
    ),
    "cli.hosts_none": (
        "hosts.toml: none at {path} (your own machines go there)",
        "hosts.toml：{path} 不存在（你自己的机器写在这里）",
    ),
    # xyclaw guard status / start / stop
    "cli.guard_status": ("guard: {text}", "守护进程：{text}"),
    "cli.guard_autostarts": (
        "  it starts by itself when a cluster is live",
        "  有集群运行时它会自动启动",
    ),
    "cli.guard_autostart_off": (
        "  [guard] autostart is off: start it with `xyclaw guard start`",
        "  [guard] autostart 已关闭：用 `xyclaw guard start` 启动它",
    ),
    "cli.guard_log": ("  log: {path}", "  日志：{path}"),
    "cli.guard_unit": ("  user service: {path}", "  用户服务：{path}"),
    "cli.guard_install_hint": (
        "  to run it from login: `xyclaw guard install`",
        "  要在登录时运行它：`xyclaw guard install`",
    ),
    "cli.guard_already": ("the guard already runs: {text}", "守护进程已在运行：{text}"),
    "cli.guard_started": ("started the guard: {text}", "已启动守护进程：{text}"),
    "cli.guard_not_running": ("the guard is not running", "守护进程没有运行"),
    "cli.guard_stopped": (
        "stopped the guard (pid {pid}, {holder})",
        "已停止守护进程（进程号 {pid}，{holder}）",
    ),
    # xyclaw sim status / stop
    "cli.sim_not_running": (
        "the simulated cloud is not running (state {path})",
        "模拟云没有运行（状态文件夹 {path}）",
    ),
    "cli.sim_runs": (
        "the simulated cloud runs at {url} (pid {pid})",
        "模拟云运行在 {url}（进程号 {pid}）",
    ),
    "cli.sim_state": ("state: {path}", "状态文件夹：{path}"),
    "cli.sim_clusters": ("clusters: {listed}", "集群：{listed}"),
    "cli.sim_billed": ("billed so far: {amount}", "目前计费：{amount}"),
    "cli.sim_stopped": ("stopped the simulated cloud of {path}", "已停止 {path} 的模拟云"),
    "cli.sim_none_running": (
        "no simulated cloud was running for {path}",
        "{path} 没有在运行的模拟云",
    ),
    # xyclaw providers
    "cli.providers_title": ("Providers", "平台"),
    "cli.col_configured": ("configured", "已配置"),
    "cli.col_reachable": ("reachable", "可连通"),
    "cli.col_detail": ("detail", "详情"),
    "cli.yes": ("yes", "是"),
    "cli.no": ("no", "否"),
    "cli.provider_offers": ("{count} offer(s)", "{count} 个报价"),
    "cli.provider_secret_set": ("{secret} is set ({currency})", "{secret} 已设置（{currency}）"),
    "cli.provider_secret_missing": (
        "run `xyclaw secrets set {secret}`; needs {account}",
        "运行 `xyclaw secrets set {secret}`；需要 {account}",
    ),
    "cli.provider_sim": (
        "built in: the simulated cloud (`xyclaw sim status`)",
        "内置：模拟云（`xyclaw sim status`）",
    ),
    "cli.provider_local": ("this machine", "本机"),
    "cli.provider_hosts": ("{count} host(s) in {path}", "{path} 中有 {count} 台主机"),
    "cli.provider_no_hosts": (
        "list your machines in {path} (docs/configuration.md)",
        "在 {path} 中列出你的机器（docs/configuration.md）",
    ),
    # xyclaw nccl analyze
    "cli.nccl_head": (
        "{path}: nccl-tests {collective}, {shape}",
        "{path}：nccl-tests {collective}，{shape}",
    ),
    "cli.nccl_ranks": ("{count} rank(s)", "{count} 个 rank"),
    "cli.nccl_ranks_unknown": ("ranks unknown", "rank 数未知"),
    "cli.nccl_on_nodes": (" on {count} node(s)", "，{count} 个节点"),
    "cli.nccl_per_node": (", {count} GPU(s) per node", "，每个节点 {count} 块 GPU"),
    "cli.nccl_transport": (
        "  transport: {transport} ({devices}), GPUDirect RDMA {gdr}",
        "  传输方式：{transport}（{devices}），GPUDirect RDMA {gdr}",
    ),
    "cli.nccl_gdr_on": ("on", "开"),
    "cli.nccl_gdr_off": ("off", "关"),
    "cli.nccl_gdr_unknown": ("not shown", "未显示"),
    "cli.nccl_socket": (
        "  NCCL used TCP sockets (NET/Socket): no RDMA",
        "  NCCL 用的是 TCP 套接字（NET/Socket）：没有 RDMA",
    ),
    "cli.nccl_no_transport": (
        "  transport: not in the log (run with NCCL_DEBUG=INFO to see it)",
        "  传输方式：日志中没有（用 NCCL_DEBUG=INFO 运行才能看到）",
    ),
    "cli.nccl_header": (
        "  {size:>10} {count:>12} {type:>8} {out:>10} {inp:>10} {wrong:>7}",
        "  {size:>10} {count:>12} {type:>8} {out:>10} {inp:>10} {wrong:>7}",
    ),
    "cli.nccl_col_size": ("size", "大小"),
    "cli.nccl_col_count": ("count", "元素数"),
    "cli.nccl_col_type": ("type", "类型"),
    "cli.nccl_col_out": ("out busbw", "异地 busbw"),
    "cli.nccl_col_in": ("in busbw", "原地 busbw"),
    "cli.nccl_col_wrong": ("#wrong", "#错误"),
    "cli.nccl_peak": ("  peak bus bandwidth:    {value}{at}", "  峰值总线带宽：    {value}{at}"),
    "cli.nccl_peak_at": (" (at {size})", "（在 {size}）"),
    "cli.nccl_average": (
        "  average bus bandwidth: {footer}; from the rows: {rows}",
        "  平均总线带宽：    {footer}；按各行计算：{rows}",
    ),
    "cli.nccl_cut_off": ("none (cut off)", "无（被截断）"),
    "cli.nccl_bounds": (
        "  out of bounds values:  {count} {state}",
        "  越界值：          {count} {state}",
    ),
    "cli.nccl_truncated": (
        "  the log ends before the footer: the run was cut off",
        "  日志在结尾统计之前就结束了：这次运行被截断",
    ),
    "cli.nccl_runs": (
        "  {count} runs of this test in the log, judged together",
        "  日志中有 {count} 次这个测试的运行，一起评判",
    ),
    # what each real cloud's account needs (English: xyclaw.providers.real's own text)
    "cli.account_lambda": (
        "a Lambda Cloud account (individual or team) with a payment method; an API key from https://cloud.lambdalabs.com/api-keys",
        "Lambda Cloud 账户（个人或团队）并绑定付款方式；API 密钥在 https://cloud.lambdalabs.com/api-keys",
    ),
    "cli.account_autodl": (
        "an enterprise-verified AutoDL account (企业认证: the elastic deployment API is closed to"
        " personal accounts); the developer token from 控制台 -> 设置 -> 开发者Token",
        "经过企业认证的 AutoDL 账户（企业认证：弹性部署 API 不对个人账户开放）；"
        "开发者令牌在 控制台 -> 设置 -> 开发者Token",
    ),
    "cli.account_vastai": (
        "a Vast.ai account with credit; an API key from https://cloud.vast.ai/manage-keys/",
        "有余额的 Vast.ai 账户；API 密钥在 https://cloud.vast.ai/manage-keys/",
    ),
    "cli.account_runpod": (
        "a RunPod account with credit; an API key (read/write) from https://www.runpod.io/console/user/settings",
        "有余额的 RunPod 账户；API 密钥（读/写）在 https://www.runpod.io/console/user/settings",
    ),
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
    # issue 33 (c33): `xyclaw slurm probe SITE`
    "cli.slurm_probe_confirm": (
        "probing runs XyClaw's probe on the lab's nodes as a Slurm job: confirm with --yes when "
        "not at a terminal",
        "探测会以 Slurm 作业的形式在实验室的节点上运行 XyClaw 的探测脚本："
        "不在终端时请用 --yes 确认",
    ),
    "cli.slurm_probe_ask": ("Run the probe? [y/N] ", "运行探测吗？[y/N] "),
    "cli.slurm_probe_nothing": ("nothing submitted", "没有提交任何作业"),
    "cli.slurm_probe_done": (
        "{site}: probed {nodes} (job {job_id}), transport {transport}",
        "{site}：已探测 {nodes}（作业 {job_id}），传输方式 {transport}",
    ),
    "cli.slurm_probe_kept": (
        "kept for {site}: every job submitted there gets these NCCL variables",
        "已为 {site} 保存：之后提交到那里的每个作业都会带上这些 NCCL 变量",
    ),
    "cli.slurm_probe_none": (
        "the probe recommends no NCCL variable: jobs run with NCCL's own defaults",
        "探测没有推荐任何 NCCL 变量：作业使用 NCCL 自己的默认值",
    ),
    # issue 35 (e35): metrics export and ssh-config
    "cli.metrics_wrote": ("wrote {count} rows to {path}", "已把 {count} 行写入 {path}"),
    "cli.metrics_none": (
        "xyclaw: no {kind} samples saved for {cluster}",
        "xyclaw：{cluster} 没有保存 {kind} 样本",
    ),
    "cli.ssh_config_removed": (
        "removed XyClaw's Include line from {user_config}",
        "已从 {user_config} 删除 XyClaw 的 Include 行",
    ),
    "cli.ssh_config_ask": (
        "Add one line to {user_config} so that `ssh <cluster>-<n>` works"
        " (Include {config})? [y/N] ",
        "在 {user_config} 中添加一行，让 `ssh <cluster>-<n>` 可用（Include {config}）吗？[y/N] ",
    ),
    "cli.ssh_config_no_hosts": (
        "no live cluster has nodes to ssh into",
        "没有可以 ssh 登录的在用集群节点",
    ),
    "cli.ssh_config_included": (
        "{user_config} includes {config}",
        "{user_config} 已包含 {config}",
    ),
    "cli.ssh_config_not_included": (
        "not included from {user_config}: `ssh -F {config} HOST`, or"
        " `xyclaw ssh-config --install` adds one Include line",
        "{user_config} 尚未包含它：使用 `ssh -F {config} HOST`，或运行"
        " `xyclaw ssh-config --install` 添加一行 Include",
    ),
    # issue 35 (e35): launch --dry-run
    "cli.dry_refused": ("refused: {where}: {message}", "被拒绝：{where}：{message}"),
    "cli.dry_pipeline": (
        "a pipeline of {count} tasks, run in order:",
        "由 {count} 个任务组成的流水线，按顺序运行：",
    ),
    "cli.dry_task": ("-- task {index} of {count}", "-- 第 {index}/{count} 个任务"),
    "cli.dry_nothing": ("nothing was rented, uploaded or run", "没有租用、上传或运行任何东西"),
    "cli.dry_new_cluster": ("a new cluster (rented first)", "新集群（先租用）"),
    "cli.dry_gpus": ("{count} x {gpu} per node", "每节点 {count} x {gpu}"),
    "cli.dry_no_gpu": ("no GPU", "无 GPU"),
    "cli.dry_job": ("job {name} ({format} spec)", "作业 {name}（{format} 规格）"),
    "cli.dry_where": (
        "  where: {place}, {nodes} node(s), {gpus}",
        "  位置：{place}，{nodes} 个节点，{gpus}",
    ),
    "cli.dry_upload": (
        "  upload: {source} -> {target} ({files} file(s), {bytes} bytes) to every node",
        "  上传：{source} -> {target}（{files} 个文件，{bytes} 字节）到每个节点",
    ),
    "cli.dry_environment": ("  environment (node rank 0):", "  环境变量（节点 rank 0）："),
    "cli.dry_setup": ("  setup (as each node runs it):", "  准备命令（每个节点运行的内容）："),
    "cli.dry_run": ("  run (as each node runs it):", "  运行命令（每个节点运行的内容）："),
    "cli.dry_warning": ("warning: {where}: {message}", "警告：{where}：{message}"),
    "cli.dry_quote": (
        "quote it would ask you to approve: {quote}",
        "将请你批准的报价：{quote}",
    ),
    "cli.dry_no_quote": ("no quote: {problem}", "没有报价：{problem}"),
    # issue 35 (e35): guard run --once and model-key
    "cli.guard_nothing_to_do": (
        "nothing to do: {checked} live cluster(s), none at its budget's warning level or idle"
        " limit",
        "无需处理：{checked} 个在用集群，没有一个达到预算警告线或空闲上限",
    ),
    "cli.guard_next_check": ("next check due in {due:.0f} s", "{due:.0f} 秒后下次检查"),
    "cli.guard_next_check_why": (
        "next check due in {due:.0f} s ({why})",
        "{due:.0f} 秒后下次检查（{why}）",
    ),
    "cli.model_key_forgot": ("forgot the key of {preset}", "已删除 {preset} 的密钥"),
    "cli.model_key_ask": ("API key for {preset} (not shown): ", "{preset} 的 API 密钥（不显示）："),
    "cli.model_key_stored": (
        "stored the key of {preset} ({store} store)",
        "已保存 {preset} 的密钥（{store} 存储）",
    ),
    # issue 35 (e35): sim serve
    "cli.sim_listening": ("simulated cloud listening on {url}", "模拟云正在监听 {url}"),
    "cli.sim_serve_state": (
        "state: {path} (token and URL in {file})",
        "状态文件夹：{path}（令牌和 URL 在 {file} 中）",
    ),
    "cli.sim_state_gone": (
        "the state folder {path} is gone; stopping",
        "状态文件夹 {path} 已不存在；正在停止",
    ),
    "cli.sim_serve_stopped": ("simulated cloud stopped", "模拟云已停止"),
    # issue 35 (e35): why a job has no ETA (xyclaw.parsers.joblog.EtaEstimate.reason)
    "cli.eta_ok": ("ok", "正常"),
    "cli.eta_warming_up": ("warming up", "预热中"),
    "cli.eta_total_steps_unknown": ("total steps unknown", "总步数未知"),
    "cli.eta_no_progress_yet": ("no progress yet", "尚无进度"),
    "cli.eta_done": ("done", "已完成"),
    # issue 35 (e35): launch, serve and a job's recovery at the terminal
    "cli.job_rent_ask": ("Rent it and launch? [y/N] ", "租用并启动吗？[y/N] "),
    "cli.job_nothing_rented": ("nothing rented", "没有租用任何东西"),
    "cli.job_task": ("task {index} of {count}: {name}", "第 {index}/{count} 个任务：{name}"),
    "cli.job_pipeline_stopped": (
        "pipeline stopped at task {index} of {count}",
        "流水线停在第 {index}/{count} 个任务",
    ),
    "cli.job_service_ready": (
        "job {id} {name} is ready at {url}",
        "作业 {id} {name} 已就绪：{url}",
    ),
    "cli.job_forwarding": (
        "forwarding while this runs (Ctrl-C stops forwarding; the service keeps running;"
        " `xyclaw cancel {id}` stops it)",
        "本命令运行期间持续转发（Ctrl-C 停止转发，服务继续运行；`xyclaw cancel {id}` 停止服务）",
    ),
    "cli.job_stopped_following": (
        "stopped following; job {id} keeps running (`xyclaw logs {id} -f`)",
        "已停止跟踪；作业 {id} 继续运行（`xyclaw logs {id} -f`）",
    ),
    "cli.job_replacement_no_terminal": (
        "not at a terminal: no replacement rented (follow the job at a terminal or in the"
        " desktop app to approve one, or allow it in the spec: recovery.allow_spend: true)",
        "不在终端：没有租用替换节点（在终端或桌面应用中跟踪该作业以批准，"
        "或在规格中允许：recovery.allow_spend: true）",
    ),
    "cli.job_replacement_ask": (
        "Rent the replacement and resume the job? [y/N] ",
        "租用替换节点并恢复作业吗？[y/N] ",
    ),
    "cli.job_replacement_renting": ("renting the replacement", "正在租用替换节点"),
    "cli.job_replacement_none": ("no replacement rented", "没有租用替换节点"),
    "cli.job_replacement_too_late": ("too late: {message}", "为时已晚：{message}"),
    # issue 35 (c35p): `xyclaw offers --provider vastai|runpod`, what the marketplace left out
    "cli.offer_left_out": (
        "left out: {provider} offer {offer}: {why}",
        "已略去：{provider} 的报价 {offer}：{why}",
    ),
}
