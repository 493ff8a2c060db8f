"""The command line's main messages in English and Simplified Chinese: one small catalogue.

The CLI speaks the language of the ``[gui] language`` setting (``en``, ``zh_CN``, or
``system``: the ``LC_ALL`` / ``LC_MESSAGES`` / ``LANG`` locale), English by default;
``--json`` output is never translated. The planner's reasons are worded here too
(:data:`REASONS_ZH`, from each reason's rule and figures), for the CLI and the agents.
No Qt: the desktop has its own ``.ts`` catalogues.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

#: key: (English, Chinese); ``str.format`` fields in braces.
CATALOGUE: dict[str, tuple[str, str]] = {
    # xyclaw plan
    "plan_for": ("Plan for {what}", "规划：{what}"),
    "plan_nothing_fits": ("Nothing fits: {why}.", "没有合适的选项：{why}。"),
    "plan_fit": (
        "{fit} of {considered} shapes fit ({order}); showing {shown}. Prices per card-hour; "
        "util = {util}",
        "{considered} 种规格中有 {fit} 种满足（{order}）；显示 {shown} 种。价格按每卡时计；"
        "util = {util}",
    ),
    "plan_fastest": ("fastest first", "最快的在前"),
    "plan_cheapest": ("cheapest first", "最便宜的在前"),
    "plan_util_train": ("MFU x fabric factor.", "MFU × 网络系数。"),
    "plan_util_serve": ("load at the rate.", "按请求速率的负载。"),
    "plan_all_break": (
        "Nothing fits: all {considered} shapes break a limit. The {closest} closest and why:",
        "没有合适的选项：{considered} 种规格都超出某个限制。最接近的 {closest} 种及原因：",
    ),
    "plan_why": ("why", "理由"),
    # issue 32: an option whose offer can also be rented as spot
    "plan_spot": (
        "spot: {cost} (-{percent}%), with about {rate} preemption(s) a day: ~{expected:.1f}"
        " over this run; each loses the work since the last copied checkpoint (spec: spot: true)",
        "竞价：{cost}（-{percent}%），每天约被抢占 {rate} 次：本次运行预计约 {expected:.1f} 次；"
        "每次损失上次复制的检查点之后的工作（规格：spot: true）",
    ),
    "plan_rejected": ("rejected", "不满足"),
    "col_gpu": ("GPU", "GPU"),
    "col_cards": ("cards", "卡数"),
    "col_fabric": ("fabric", "网络"),
    "col_provider_region": ("provider/region", "平台/地区"),
    "col_price_h": ("price/h", "每卡时"),
    "col_hours": ("hours", "小时"),
    "col_cost": ("cost", "费用"),
    "plan_rent_hint": (
        "Plan {id}. Rent an option with: xyclaw up --plan {id} --option 1",
        "方案 {id}。租用其中一个选项：xyclaw up --plan {id} --option 1",
    ),
    # xyclaw up / down
    "up_question": ("Rent it? [y/N] ", "确认租用？[y/N] "),
    "up_nothing": ("nothing rented", "没有租用任何机器"),
    "up_needs_yes": (
        "renting costs money: confirm with --yes when not at a terminal",
        "租用要花钱：不在终端里运行时请加 --yes 确认",
    ),
    "cluster_state": ("cluster {id} {name}: {state}", "集群 {id} {name}：{state}"),
    "node_line": (
        "  node {rank} {name} {state} ssh {where}",
        "  节点 {rank} {name} {state} ssh {where}",
    ),
    "down_question": ("Release {name}? [y/N] ", "确认释放 {name}？[y/N] "),
    "down_needs_yes": (
        "releasing {name} destroys its machines: confirm with --yes",
        "释放 {name} 会销毁它的机器：请加 --yes 确认",
    ),
    # xyclaw clusters / billing
    "col_id": ("id", "编号"),
    "col_name": ("name", "名称"),
    "col_state": ("state", "状态"),
    "col_gpus": ("gpus", "GPU"),
    "col_cost_so_far": ("cost so far", "已花费"),
    "col_meter": ("meter", "本地计费"),
    "col_provider": ("provider", "平台账单"),
    "no_clusters": ("no clusters", "没有集群"),
    "no_clusters_running": (
        "no clusters running (use --all for past ones)",
        "没有运行中的集群（--all 显示以前的）",
    ),
    "billing_total": ("total (meter): {amounts}", "合计（本地计费）：{amounts}"),
    "warning": ("warning: {text}", "警告：{text}"),
    # xyclaw launch / jobs / jobs show / logs / cancel
    "col_try": ("try", "尝试"),
    "col_cluster": ("cluster", "集群"),
    "col_step": ("step", "步数"),
    "col_loss": ("loss", "loss"),
    "col_eta": ("eta", "预计剩余"),
    "no_jobs": ("no jobs", "没有作业"),
    # issue 36: `xyclaw jobs results`
    "per_m_tokens": ("{cost} / M tokens", "{cost} / 百万 token"),
    "per_1k_requests": ("{cost} / 1k requests", "{cost} / 千次请求"),
    "per_epoch": ("{cost} / epoch", "{cost} / 轮"),
    "col_result_kind": ("kind", "类型"),
    "col_result_gpus": ("gpus", "GPU"),
    "col_result_cost": ("cost", "费用"),
    "col_per_result": ("per result", "单位产出费用"),
    "col_mfu": ("mfu", "MFU"),
    "col_month": ("month", "月份"),
    "col_provider_name": ("provider", "平台"),
    "col_result_gpu": ("gpu", "GPU"),
    "col_result_jobs": ("jobs", "作业数"),
    "col_per_m_tokens": ("per M tokens", "每百万 token"),
    "col_per_1k_requests": ("per 1k requests", "每千次请求"),
    "word_full": ("full", "全参"),
    "word_lora": ("lora", "LoRA"),
    "job_rents": ("this job rents: {quote}", "这个作业要租用：{quote}"),
    # a job's and its nodes' states, kinds and causes, as stored (English: the value itself)
    "word_queued": ("queued", "排队中"),
    "word_setting-up": ("setting-up", "准备中"),
    "word_starting": ("starting", "启动中"),
    "word_running": ("running", "运行中"),
    "word_recovering": ("recovering", "恢复中"),
    "word_lost-contact": ("lost-contact", "失去联系"),
    "word_succeeded": ("succeeded", "成功"),
    "word_failed": ("failed", "失败"),
    "word_cancelled": ("cancelled", "已取消"),
    "word_train": ("train", "训练"),
    "word_service": ("service", "服务"),
    "word_exited": ("exited", "已退出"),
    "word_dead": ("dead", "已终止"),
    "word_lost": ("lost", "丢失"),
    "word_unreachable": ("unreachable", "无法连接"),
    "word_error": ("error", "错误"),
    "word_exit_nonzero": ("exit_nonzero", "非零退出"),
    "word_node_lost": ("node_lost", "节点丢失"),
    "word_xid": ("xid", "GPU 错误（XID）"),
    "word_nccl_timeout": ("nccl_timeout", "NCCL 超时"),
    "word_max_runtime": ("max_runtime", "运行时间上限"),
    "word_budget": ("budget", "预算"),
    "word_setup_failed": ("setup_failed", "准备失败"),
    "word_launch_failed": ("launch_failed", "启动失败"),
    "word_cluster_released": ("cluster_released", "集群已释放"),
    # issue 34 (b34): `xyclaw jobs why JOB`
    "why_fresh": ("job {name}, its ranks asked just now:", "作业 {name}，刚刚询问了各进程："),
    "why_recorded": (
        "job {name}, as last recorded at {at}:",
        "作业 {name}，最近一次记录于 {at}：",
    ),
    "why_action": ("what to do: {action}", "建议：{action}"),
    "no_jobs_running": (
        "no jobs running (use --all for past ones)",
        "没有运行中的作业（--all 显示以前的）",
    ),
    "job_launched": (
        "job {id} {name}: {state} on {cluster} (attempt {attempt})",
        "作业 {id} {name}：{state}，在 {cluster} 上（第 {attempt} 次尝试）",
    ),
    "job_follow_hint": ("follow it with `xyclaw logs {id} -f`", "用 `xyclaw logs {id} -f` 跟踪它"),
    "job_state": ("job {id} {name}: {state}", "作业 {id} {name}：{state}"),
    "job_state_why": ("job {id} {name}: {state} ({error})", "作业 {id} {name}：{state}（{error}）"),
    "job_head": (
        "job {id} {name} ({kind}): {state}, attempt {attempt}",
        "作业 {id} {name}（{kind}）：{state}，第 {attempt} 次尝试",
    ),
    "job_cluster_cost": (
        "  cluster: {cluster}   cost so far: {cost}",
        "  集群：{cluster}   目前费用：{cost}",
    ),
    "job_url": ("  url: {url}", "  地址：{url}"),
    "job_progress": ("  progress: {parts}", "  进度：{parts}"),
    "job_step": ("step {step}", "第 {step} 步"),
    "job_loss": ("loss {loss}", "loss {loss}"),
    "job_rate": ("{rate} tokens/s", "{rate} tokens/s"),
    "job_eta": ("ETA {eta}", "预计剩余 {eta}"),
    "job_eta_why": ("ETA: {why}", "预计剩余：{why}"),
    "job_checkpoint": ("  newest checkpoint: step {step}", "  最新检查点：第 {step} 步"),
    "job_error": ("  {cause}: {error}", "  {cause}：{error}"),
    "job_attempt": (
        "  attempt {attempt}: {state}{resumed}",
        "  第 {attempt} 次尝试：{state}{resumed}",
    ),
    "job_resumed": (", resumed at step {step}", "，从第 {step} 步继续"),
    "job_node": (
        "    node {rank} {node} ({ip}): {state}{code}",
        "    节点 {rank} {node}（{ip}）：{state}{code}",
    ),
    "job_node_exit": (" exit {code}", " 退出码 {code}"),
    "job_log_cut": (
        "  log: {kept} lines kept, {cut} cut (the log's cap)",
        "  日志：保留 {kept} 行，截掉 {cut} 行（日志上限）",
    ),
}


def language_of(setting: str, environ: Mapping[str, str] | None = None) -> str:
    """``"zh"`` or ``"en"`` for a ``[gui] language`` value; ``system`` reads the locale."""
    if setting == "zh_CN":
        return "zh"
    if setting != "system":
        return "en"
    env = os.environ if environ is None else environ
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(name)
        if value:
            return "zh" if value.lower().startswith("zh") else "en"
    return "en"


def text(language: str, key: str, **values: object) -> str:
    en, zh = CATALOGUE[key]
    return (zh if language == "zh" else en).format(**values)


#: Chinese wording of a planner reason, by ``rule`` or ``rule/form``; English keeps the
#: planner's own text (:func:`xyclaw.planner.rules.explain` gives the figures).
REASONS_ZH: dict[str, str] = {
    # issue 36: the user's own history of a provider and node class
    "memory-node-class": (
        "你的历史记录：{provider} 在 {region} 的 {gpu} {fabric} 节点近 30 天 {rented} 次租用中"
        "有 {failed} 次出问题（{what_zh}）；已排后"
    ),
    "memory-node-class-once": (
        "你的历史记录：{provider} 在 {region} 的 {gpu} {fabric} 节点近 30 天 {rented} 次租用中"
        "有 {failed} 次出问题（{what_zh}）"
    ),
    "memory-price-drift": (
        "你的历史记录：{provider} 近 30 天 {rented} 次租用中有 {times} 次实际计费高于报价，"
        "最多高 {drift}；已排后"
    ),
    "memory-provider": (
        "你的历史记录：{provider} 近 30 天有 {leaks} 台机器在未察觉时计费，拒绝了 {refusals} 次租用"
    ),
    "small-jobs-roce/roce": (
        "{size} 模型 8 卡以内：RoCE 只比 InfiniBand 慢 {extra}，花钱更少（规则 1）"
    ),
    "small-jobs-roce/ib": (
        "{size} 模型 8 卡以内：InfiniBand 只省 {saved} 的时间，RoCE 更划算（规则 1）"
    ),
    "mid-cluster-ib/ib": (
        "16-32 卡训练 {size}：用 InfiniBand；RoCE 要多用 {longer} 的时间（规则 2）"
    ),
    "mid-cluster-ib/other": (
        "16-32 卡训练 {size} 宜用 InfiniBand：这个选项比 IB 慢 {longer}（规则 2）"
    ),
    "large-cluster-ib-only/ib": "超过 32 卡只有 InfiniBand 撑得住（规则 3）",
    "large-cluster-ib-only/other": (
        "超过 32 卡只有 InfiniBand 撑得住：这个选项耗时是 IB 的 {times} 倍（规则 3）"
    ),
    "cost-sensitive-roce": "预算有限时 RoCE 合适：网络硬件比 IB 省 30-50%（规则 4）",
    "performance-ib": "速度优先：InfiniBand 让 GPU 最忙（规则 5）",
    "gpu-fabric-match/slow": "{gpu} 需要节点间 ≥{wants} Gb/s；{gbps} Gb/s 会拖慢它（规则 6）",
    "gpu-fabric-match/fine": "{gpu} 用 {gbps} Gb/s RoCE 就够（规则 6）",
    "roce-pfc-ecn": "RoCE 交换机要开 PFC 和 ECN，否则延迟抖动（规则 7）",
    "tcp-ethernet": "普通 TCP 以太网：GPU 利用率只有 35-45%，IB 最高可达 92%",
    "single-node": "单机：只走 {link}，没有节点间网络",
    "time": "{formula} = {flops} FLOPs，达到峰值算力的 {util}：约 {hours} 小时（含 10 分钟准备）",
    "memory/train": "每卡用 {used} GiB，可用 {usable} GiB，分片到 {gpus} 张卡",
    "memory/serve": "每卡用 {used} GiB，可用 {usable} GiB（权重和 KV 缓存）",
    "throughput": "{replicas} 个副本，每个 {tp} 张卡，batch {batch}：可承载 {capacity} req/s，"
    "需要 {rate}，每 token {ms} ms",
    "tier-30d/long": "30 天档，每卡时 {price}",
    "tier-30d/short": "30 天档 {price}：包 30 天比按需用 {hours} 小时更便宜",
    "tier-30d-not-rented/listed": (
        "{provider} 标有 30 天档，每卡时 {price}（本次共 {total}），"
        "但只按需出租：这里显示的是按需价"
    ),
    "tier-30d-not-rented/assumed": (
        "{provider} 的 30 天档估计为每卡时 {price}（本次共 {total}），"
        "但只按需出租：这里显示的是按需价"
    ),
    "assumed-price": "价格是估计值，不是平台报价",
    "host/vetted": "{provider}：{host}",
    "host/community": "{provider}：{host}；社区主机的所有者不是平台：尽量不要向它发送密钥",
    "assumed-tokens": "按 {tokens} 训练 token 估算；可用 --tokens 指定",
    "assumed-rate": "按 {rate} req/s 估算；可用 --rate 指定",
}


def reason_in(language: str, rule: str, english: str, figures: Mapping[str, object] | None) -> str:
    """One planner reason in ``language``: the planner's text, or its Chinese form."""
    if language != "zh":
        return english
    figures = figures or {}
    form = figures.get("form")
    template = REASONS_ZH.get(f"{rule}/{form}") or REASONS_ZH.get(rule)
    if template is None:
        return english
    try:
        return template.format(**figures)
    except (KeyError, IndexError, ValueError):  # an older plan without figures: keep its text
        return english
