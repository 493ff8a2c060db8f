"""Words several areas share: states, the plain words of lists, and a rental's quote (said
by the operations, the jobs' replacements, the agents and the CLI)."""

from __future__ import annotations

TEXTS: dict[str, tuple[str, str]] = {
    "common.list_sep": (", ", "、"),
    "common.list": ("{first}, {rest}", "{first}、{rest}"),
    "common.list_semicolon": ("{first}; {rest}", "{first}；{rest}"),
    # the planner's filter that left no offer (``xyclaw plan``, the Plan page, the plan tool)
    "common.unmatched": (
        "no offer has {label}{before}; offered: {offered}",
        "没有报价满足 {label}{before}；现有：{offered}",
    ),
    "common.unmatched_with": (" with {applied}", "（且满足 {applied}）"),
    "common.filter.gpu": ("GPU {gpu}", "GPU {gpu}"),
    "common.filter.region": ("region {region}", "地区 {region}"),
    "common.filter.provider": ("provider {provider}", "平台 {provider}"),
    "common.filter.fabric": ("fabric {fabric}", "网络 {fabric}"),
    "common.filter.gpus_at_least": ("{n}+ GPUs", "至少 {n} 张 GPU"),
    "common.filter.gpus": ("{n} GPUs", "{n} 张 GPU"),
    "common.filter.gpus_between": ("{low}-{high} GPUs", "{low}-{high} 张 GPU"),
    "common.joined": ("{first}{rest}", "{first}{rest}"),
    "common.quote_line": (
        "{gpus} x {gpu} ({nodes} x {per_node}) on {fabric} in {region} from {provider}: "
        "{per_card} per card-hour, {per_hour} per hour, billed per second",
        "{gpus} 张 {gpu}（{nodes} 台 × {per_node} 张），网络 {fabric}，地区 {region}，平台 "
        "{provider}：每卡时 {per_card}，每小时 {per_hour}，按秒计费",
    ),
    "common.quote_total": ("; about {total} for {hours} h", "；{hours} 小时约 {total}"),
    "common.plan_offline": (
        "{provider} could not be reached ({why}); planned from the built-in catalog's {n}"
        " offer(s) for it, which may be out of date",
        "无法连接 {provider}（{why}）；按内置目录里它的 {n} 个报价规划，价格可能已过时",
    ),
    "common.plan_left_out": (
        "{provider} left out {n} offer(s): {why}",
        "{provider} 略去了 {n} 个报价：{why}",
    ),
    "common.plan_unknown_gpus": (
        "left out offers of GPU models the planner has no figures for: {gpus}",
        "略去了规划器没有参数的 GPU 型号的报价：{gpus}",
    ),
    "common.plan_memory_ranked_down": (
        "your history ranked {n} option(s) down (each says why); plan with --no-memory for"
        " the plain ranking",
        "根据你的历史记录，{n} 个方案被排后（每个都写明原因）；加 --no-memory 可按原始排序规划",
    ),
    "common.quote_budget": ("; released at a budget of {budget}", "；花到预算 {budget} 时自动释放"),
    "common.quote_note": ("; {note}", "；{note}"),
    "common.quote_spot_figures": (
        "; spot: {saved} an hour less than on demand (-{percent}%); the provider may take it"
        " back with a short notice, about {rate} times a day",
        "；竞价实例：每小时比按需便宜 {saved}（-{percent}%）；提供商可能在短暂通知后收回，"
        "大约每天 {rate} 次",
    ),
    "common.quote_spot": (
        "; spot: the provider may take it back with a short notice",
        "；竞价实例：提供商可能在短暂通知后收回",
    ),
    "common.quote_not_plan_tier": (
        "the plan priced this at {provider}'s 30-day tier, {plan_price} per GPU-hour"
        " ({plan_total} in all); {provider} rents it on demand, so this asks for {price} per"
        " GPU-hour ({change}, {percent}) and {total} in all ({total_change})",
        "规划按 {provider} 的 30 天档计价：每卡时 {plan_price}（共 {plan_total}）；{provider}"
        " 只按需出租，所以这里按每卡时 {price}（{change}，{percent}）、共 {total}（{total_change}）"
        "请求批准",
    ),
    "common.quote_price_moved": (
        "the live price moved since the plan: {plan_price} -> {price} per GPU-hour ({change},"
        " {percent}); this asks for the new price, {total} in all ({total_change} against the"
        " plan's {plan_total})",
        "规划之后实时价格变了：每卡时 {plan_price} → {price}（{change}，{percent}）；这里按新价格"
        "请求批准，共 {total}（比规划的 {plan_total} {total_change}）",
    ),
    "common.quote_host": ("{provider} host: {host}", "{provider} 主机：{host}"),
    "common.quote_host_community": (
        "a community host on {provider} ({host}): its owner is not {provider} and can see "
        "what runs there; XyClaw sends it only the secrets the job names",
        "{provider} 上的社区主机（{host}）：其所有者不是 {provider}，能看到上面运行的内容；"
        "XyClaw 只向它发送作业指定的密钥",
    ),
    "common.quote_over_horizon": (
        "the run is planned for {days} days, longer than the {horizon}-day horizon: prices,"
        " capacity and the job itself may change before it ends",
        "计划运行 {days} 天，超过 {horizon} 天的规划期限：结束之前价格、容量和作业本身都可能变化",
    ),
    "common.plan_over_horizon": (
        "{count} option(s) run longer than the {horizon}-day horizon (the longest {days} days):"
        " prices, capacity and the job itself may change before they end",
        "{count} 个方案的运行时间超过 {horizon} 天的规划期限（最长 {days} 天）：结束之前价格、"
        "容量和作业本身都可能变化",
    ),
}
