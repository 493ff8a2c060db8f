# ruff: noqa: E501  (a table of texts: a Chinese line is not split for width)
"""Wording of the rules brain (issue 35: one catalogue): its questions back, refusals,
the terminal's approval card and its detail names (``agent.label.*``), each
``key: (English, Chinese)`` with ``str.format`` fields in braces."""

from __future__ import annotations

TEXTS: dict[str, tuple[str, str]] = {
    "agent.rules.ask_model_size": (
        'How large is the model? For example: "plan a LoRA fine-tune of a 13B model on 8 GPUs".',
        "模型多大？例如：“用8张卡对130亿参数模型做LoRA微调”。",
    ),
    "agent.rules.ask_task": (
        'What should the {size} model do: pretraining, a full fine-tune, a LoRA fine-tune or inference? For example: "LoRA fine-tune a {size} model on 8 GPUs".',
        "{size} 模型要做什么：预训练、全参微调、LoRA 微调还是推理？例如：“用8张卡LoRA微调{size}模型”。",
    ),
    "agent.rules.unknown_gpu": (
        "{gpu} is not in the catalogue; it has {known}. Ask again with one of them, or without a GPU model and the planner picks one.",
        "目录里没有 {gpu}，现有：{known}。请换其中一种，或者不指定型号，让规划器来选。",
    ),
    "agent.rules.no_plan": (
        'There is no plan in this conversation yet, so there is nothing to rent. Ask for one first, for example: "plan a 7B fine-tune on 8 GPUs".',
        "这个对话里还没有方案，没有可租的。先做个规划，例如：“用8张卡微调7B模型”。",
    ),
    "agent.rules.ask_option": (
        'Which option of plan {plan} should I rent ({choices})? Say for example "rent option 1"; you approve the quote before anything is rented.',
        "要租方案 {plan} 的哪一个（{choices}）？例如说“租方案1”；租之前会先给你看报价并征求同意。",
    ),
    "agent.rules.option_range": (
        "Plan {plan} has {count} option(s); there is no option {option}.",
        "方案 {plan} 只有 {count} 个选项，没有第 {option} 个。",
    ),
    "agent.rules.ask_rent_resources": (
        'What should I rent? Ask for a plan first ("plan a 7B fine-tune on 8 GPUs"), or name the GPU model and count ("rent 8 A800 in Xiamen"){missing}.',
        "要租什么？先做个规划（“用8张卡微调7B模型”），或者说出型号和数量（“在厦门租8张A800”）{missing}。",
    ),
    "agent.rules.ask_cluster": (
        'Which cluster? {choices}. Name it, for example "{verb} {example}".',
        "哪个集群？{choices}。请说出名字，例如“{verb} {example}”。",
    ),
    "agent.rules.no_clusters": (
        "There is no live cluster. Ask for a plan and rent an option first.",
        "现在没有运行中的集群。先做个规划并租一个方案。",
    ),
    "agent.rules.ask_job": (
        'Which job? Name it, for example "{verb} job 3".',
        "哪个作业？请说出编号，例如“{verb}作业3”。",
    ),
    "agent.rules.ask_spec": (
        'Which job spec should I launch? Give its file, for example "launch jobs/train.yaml on {example}".',
        "要启动哪个作业描述文件？请给出路径，例如“在 {example} 上启动 jobs/train.yaml”。",
    ),
    "agent.rules.ask_command": (
        "Which command, on which cluster? Quote the command, for example: run `nvidia-smi` on {example}.",
        "在哪个集群上执行什么命令？请用引号括起命令，例如：在 {example} 上执行 `nvidia-smi`。",
    ),
    "agent.rules.negated": (
        "Understood: I will not {action}. Nothing was changed.",
        "好的，不会{action}，什么都没改动。",
    ),
    "agent.rules.advisory": (
        "I only {action} when you ask for it plainly; nothing was changed. {hint}",
        "只有你明确要求时才会{action}，现在什么都没改动。{hint}",
    ),
    "agent.rules.confirm_option": (
        'Rent option {option}? Say "rent option {option}" and I get its quote; nothing is rented before you approve it.',
        "要租方案{option}吗？说“租方案{option}”，我先取报价，你批准之前不会租用。",
    ),
    "agent.rules.option_info": (
        "Option {option}'s GPUs, time and cost are in the plan's table above. Say \"rent option {option}\" for its exact quote; nothing is rented before you approve it.",
        "方案{option}的配置、时间和费用见上面方案表。说“租方案{option}”获取准确报价；你批准之前不会租用。",
    ),
    "agent.rules.too_long": (
        'That is longer than the built-in rules brain reads ({limit} characters). Ask one thing in a sentence, for example "plan a 7B fine-tune on 8 GPUs"; a model (an LLM preset) can read long text.',
        "这段话超过了内置规则助手能读的长度（{limit} 个字符）。请用一句话问一件事，例如“用8张卡微调7B模型”；长文本可以交给大模型（配置一个 LLM 预设）。",
    ),
    "agent.rules.thanks": (
        'You are welcome. Anything else? Say "help" to see what I understand.',
        "不客气。还需要什么？说“帮助”可以看我能听懂的话。",
    ),
    "agent.rules.unclear": (
        "I am not sure you asked me to {action}, so nothing was changed. {hint}",
        "我不确定你是否要{action}，所以什么都没改动。{hint}",
    ),
    "agent.rules.except_unclear": (
        'I could not tell which clusters to keep and which to {verb}, so nothing was changed. Name the ones to {verb}, for example "{verb} {example}".',
        "没分清哪些集群要保留、哪些要{verb}，所以什么都没改动。请直接说出要{verb}的集群，例如“{verb} {example}”。",
    ),
    "agent.rules.except_nothing_left": (
        "Every live cluster is one you asked to keep ({kept}), so there is nothing to {verb}; nothing was changed.",
        "运行中的集群都是你要保留的（{kept}），没有可{verb}的，什么都没改动。",
    ),
    "agent.rules.one_at_a_time": (
        'One thing at a time, please: first say which to do, for example "{first}".',
        "请一次只做一件事，例如先说“{first}”。",
    ),
    "agent.rules.no_live_cluster": ("there is no live cluster to release", "没有可释放的在用集群"),
    "agent.rules.card_head": (
        "== Approval needed ({effect}) from {agent}: {title}",
        "== 需要你批准（{effect}），来自 {agent}：{title}",
    ),
    "agent.rules.card_flag": (
        "   !! asked after reading remote output: check that you asked for this",
        "   !! 这个请求是在读到远程机器的输出之后提出的：请确认这是你要做的",
    ),
    "agent.rules.card_waiting": (
        "Waiting for your answer: xyclaw ask --conversation {cid} --approve (or --reject)",
        "等你答复：xyclaw ask --conversation {cid} --approve（或 --reject）",
    ),
    "agent.rules.card_answer": (
        "answer a (approve; a! also allows it on this cluster here), r (reject) or e (edit)",
        "请回答 a（批准；a! 表示本对话里这个集群以后都允许）、r（拒绝）或 e（修改）",
    ),
    "agent.rules.proposal": (
        "Proposed: **{label}**. Nothing happens until you approve it.",
        "建议：**{label}**。你批准之前不会执行。",
    ),
    "agent.rules.budget_warning": (
        "{cluster} has spent {spent} of its budget of {budget}; XyClaw releases it there",
        "{cluster} 已花费 {spent}，预算 {budget}；花到预算时 XyClaw 会释放它",
    ),
    "agent.rules.no_replacement_ask": (
        "job {job} is not waiting for a replacement node",
        "作业 {job} 没有在等待替换节点",
    ),
    "agent.label.offer": ("offer", "报价单"),
    "agent.label.provider": ("provider", "平台"),
    "agent.label.shape": ("shape", "规格"),
    "agent.label.region": ("region", "地区"),
    "agent.label.fabric": ("fabric", "网络"),
    "agent.label.price_per_hour": ("price_per_hour", "每小时"),
    "agent.label.hours": ("hours", "预计小时"),
    "agent.label.estimated_total": ("estimated_total", "预计总价"),
    "agent.label.budget": ("budget", "预算"),
    "agent.label.expires_at": ("expires_at", "报价有效至"),
    "agent.label.digest": ("digest", "报价摘要"),
    "agent.label.clusters": ("clusters", "集群"),
    "agent.label.stops_billing": ("stops_billing", "停止计费"),
    "agent.label.lost": ("lost", "会丢失"),
    "agent.label.job": ("job", "作业"),
    "agent.label.lost_nodes": ("lost_nodes", "丢失的节点"),
    "agent.label.cluster": ("cluster", "集群"),
    "agent.label.nodes": ("nodes", "节点"),
    "agent.label.command": ("command", "命令"),
    "agent.label.what_changes": ("what_changes", "会改变"),
    "agent.label.spec": ("spec", "作业描述"),
    "agent.label.adds": ("XyClaw adds", "XyClaw 会加入"),
    "agent.label.sends": ("Sends", "会发送"),
}
