"""Words several areas share: states, and the plain words of lists."""

from __future__ import annotations

TEXTS: dict[str, tuple[str, str]] = {
    "common.list_sep": (", ", "、"),
    "common.list": ("{first}, {rest}", "{first}、{rest}"),
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
}
