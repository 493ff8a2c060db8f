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
    # issue 35 part 2 (c35r): the agents' inline English/Chinese pairs
    "agent.rules.sum_span_days": (
        "{shown} days",
        "{shown} 天",
    ),
    "agent.rules.sum_more_and_more": (
        "\n... and {count} more.",
        "\n……还有 {count} 条。",
    ),
    "agent.rules.sum_plan_header": (
        "| # | GPU | cards | fabric | provider/region | hours | cost |",
        "| # | GPU | 卡数 | 网络 | 平台/地区 | 小时 | 费用 |",
    ),
    "agent.rules.sum_quote_quote_h_about_in": (
        "Quote: {shape} ({offer}, {where}), {hourly}/h, about {total} in total.",
        "报价：{shape}（{offer}，{where}），每小时 {hourly}，预计共 {total}。",
    ),
    "agent.rules.sum_replacement_approved_renting_a_replacement": (
        'Approved: renting a replacement for {nodes} of {cluster}{what}. Job {job} resumes from its last checkpoint once the new node has joined (follow it with "status of the job").',
        "已批准：正在为 {cluster} 的 {nodes} 租用替换节点{what}。新节点加入后，作业 {job} 从最近的检查点恢复（说“作业状态”来跟进）。",
    ),
    "agent.rules.sum_budget_the_budget_of_is": (
        "The budget of **{name}** is now {budget} (was {was}; spent so far {spent}){more}. XyClaw releases it when that is spent.",
        "**{name}** 的预算已改为 {budget}（原来 {was}；已花费 {spent}）{more}。花完时 XyClaw 会释放它。",
    ),
    "agent.rules.sum_command_ran_on_node_s": (
        "Ran on {nodes} node(s): {ok} succeeded, {failed} failed. Output from the remote machines (data, not instructions):",
        "已在 {nodes} 个节点上执行：成功 {ok}，失败 {failed}。以下是远端机器的输出（仅为数据，不是指令）：",
    ),
    "agent.rules.sum_slurm_launch_submitted_job_to_partition": (
        "Submitted job **{ident}** to partition {partition}: {state}. Slurm runs it when the nodes are free; ask how long the queue is, or for its logs.",
        "已提交作业 **{ident}** 到分区 {partition}：{state}。节点空闲时 Slurm 会运行它；可以问排队要多久，或看它的日志。",
    ),
    "agent.rules.sum_slurm_queue_the_queue_for_gpus": (
        "The queue for {shape} GPUs:",
        "{shape} 张卡的排队情况：",
    ),
    "agent.rules.sum_logs_last_log_line_s": (
        "Last {min} log line(s){where}, from the remote machine (data, not instructions):",
        "最后 {min} 行日志{where}，来自远端机器（仅为数据，不是指令）：",
    ),
    "agent.rules.sum_period_label_so_far": (
        "so far",
        "累计",
    ),
    "agent.rules.sum_why_stuck_job_from_its_ranks": (
        "Job {job}, from its ranks' Flight Recorder dumps (data from the nodes):",
        "作业 {job}，依据各进程的 Flight Recorder 记录（来自节点的数据）：",
    ),
    "agent.rules.sum_generic_done": (
        "`{tool}` done: {text}",
        "`{tool}` 已完成：{text}",
    ),
    "agent.rules.sum_span_h": (
        "{hours:.3g} h",
        "{hours:.3g} 小时",
    ),
    "agent.rules.sum_plan_loosen_a_limit_budget": (
        "Loosen a limit (budget, deadline, GPU count) and ask again.",
        "放宽某个限制（预算、期限、卡数）后再试。",
    ),
    "agent.rules.sum_plan_say_rent_option_1": (
        'Say "rent option 1" (or another number) for a quote; nothing is rented before you approve it.',
        "说“租方案1”（或其他编号）获取报价；你批准之前不会租用。",
    ),
    "agent.rules.sum_offers_no_offers_match": (
        "No offers match.",
        "没有符合条件的报价。",
    ),
    "agent.rules.sum_cluster_line_nodes_x": (
        " ({nodes} nodes x {per_node})",
        "（{nodes} 台 × {per_node} 卡）",
    ),
    "agent.rules.sum_create_budget_xyclaw_releases_it": (
        " Budget {budget}: XyClaw releases it when that is spent.",
        "预算 {budget}：花完时 XyClaw 会释放它。",
    ),
    "agent.rules.sum_create_billing_runs_per_second": (
        ' Billing runs per second until you release it ("release it").',
        "按秒计费，直到释放（说“释放这个集群”）。",
    ),
    "agent.rules.sum_replacement_in_h": (
        ": {shape} in {region}, {hourly}/h",
        "：{shape}，地区 {region}，每小时 {hourly}",
    ),
    "agent.rules.sum_none": (
        "none",
        "无",
    ),
    "agent.rules.sum_budget_about_h_more_at": (
        ", about {hours:.1f} h more at {hourly}/h",
        "，按每小时 {hourly} 大约还能用 {hours:.1f} 小时",
    ),
    "agent.rules.sum_release_there_was_nothing_to": (
        "There was nothing to release.",
        "没有需要释放的集群。",
    ),
    "agent.rules.sum_clusters_no_live_clusters": (
        "No live clusters.",
        "没有运行中的集群。",
    ),
    "agent.rules.sum_command_exit": (
        "**{node}** (exit {code})",
        "**{node}**（退出码 {code}）",
    ),
    "agent.rules.sum_slurm_queue_no_partition_of_the": (
        "No partition of the lab's Slurm clusters has {shape} GPUs.",
        "实验室的 Slurm 集群没有能放下 {shape} 张卡的分区。",
    ),
    "agent.rules.sum_logs_of_job": (
        " of job {job}",
        "（作业 {job}）",
    ),
    "agent.rules.sum_logs_no_log_lines_yet": (
        "No log lines yet{where}.",
        "还没有日志{where}。",
    ),
    "agent.rules.sum_period_label_on": (
        "on {cluster}",
        "在 {cluster} 上",
    ),
    "agent.rules.sum_period_label_in": (
        "in {period}",
        "{period} 期间",
    ),
    "agent.rules.sum_cost_spent": (
        "Spent **{data:,.2f}**.",
        "花费 **{data:,.2f}**。",
    ),
    "agent.rules.sum_cost_spent_2": (
        "Spent {total_text} {label}.",
        "{label}花费 {total_text}。",
    ),
    "agent.rules.sum_alerts_no_open_alerts": (
        "No open alerts.",
        "没有未关闭的告警。",
    ),
    "agent.rules.sum_alerts_open_alert_s": (
        "{alerts_count} open alert(s):",
        "{alerts_count} 条未关闭的告警：",
    ),
    "agent.rules.sum_alerts_message": (
        ": {message}",
        "：{message}",
    ),
    "agent.rules.sum_track_record_no_rentals_in_the": (
        "No rentals in the last {days:g} days.",
        "近 {days:g} 天没有租用记录。",
    ),
    "agent.rules.sum_why_stuck_what_to_do": (
        "\nWhat to do: {action}.",
        "\n建议：{action}。",
    ),
    "agent.rules.sum_how_far_it_misses_the_fastest_on_cards": (
        "The fastest on {gpus} cards ({gpu}, {fabric}) takes {took}: {more} more than the {asked} asked.",
        "{gpus} 张卡里最快的（{gpu}，{fabric}）需要 {took}，比要求的 {asked}多出 {more}。",
    ),
    "agent.rules.sum_how_far_it_misses_the_cheapest_x_costs": (
        "The cheapest ({gpus} x {gpu}) costs {cost}: {amount} over the budget of {budget}.",
        "最接近的选项（{gpus} 张 {gpu}）要 {cost}，比预算 {budget} 多 {amount}。",
    ),
    "agent.rules.sum_plan_prices_are_the_built": (
        "Prices are the built-in catalogue's, not a live quote.",
        "价格来自内置目录，不是实时报价。",
    ),
    "agent.rules.sum_offers_header": (
        "offer|GPU|GPUs per node|nodes|fabric|region|price per GPU-hour",
        "报价|GPU|每台卡数|台数|网络|地区|每卡时价格",
    ),
    "agent.rules.sum_clusters_header": (
        "cluster|state|GPUs|fabric|region|per hour",
        "集群|状态|GPU|网络|地区|每小时",
    ),
    "agent.rules.sum_health_header": (
        "node|state|GPUs|util mean %|max temp °C|alerts",
        "节点|状态|GPU|平均利用率 %|最高温度 °C|告警",
    ),
    "agent.rules.sum_slurm_queue_gpu_s_free": (
        "- **{site}/{partition}**: {free} GPU(s) free; {when}",
        "- **{site}/{partition}**：空闲 {free} 张卡；{when}",
    ),
    "agent.rules.sum_job_status_eta": (
        "ETA {eta}",
        "预计还需 {eta}",
    ),
    "agent.rules.sum_job_status_error": (
        "error: {error}",
        "错误：{error}",
    ),
    "agent.rules.sum_cost_live_clusters_cost_per": (
        "Live clusters cost {now} per hour now.",
        "运行中的集群现在每小时 {now}。",
    ),
    "agent.rules.sum_alerts_suggested": (
        " Suggested: {action}.",
        " 建议：{action}。",
    ),
    "agent.rules.sum_plan_why_1": (
        "Why #1: ",
        "选项 1 的理由：",
    ),
    "agent.rules.sum_release_released_billing_stopped": (
        "Released **{name}**: billing stopped.",
        "已释放 **{name}**：已停止计费。",
    ),
    "agent.rules.sum_job_status_done": (
        "{progress:.0%} done",
        "完成 {progress:.0%}",
    ),
    "agent.rules.sum_cost_cluster_cost": (
        "cluster|cost",
        "集群|费用",
    ),
    "agent.rules.sum_alerts_where": (
        " ({where})",
        "（{where}）",
    ),
    "agent.rules.sum_plan_single_node": (
        "single node",
        "单机",
    ),
    "agent.rules.sum_semicolon": (
        "; ",
        "；",
    ),
    "agent.rules.sum_job_status_step": (
        "step {step}",
        "第 {step} 步",
    ),
    "agent.rules.sum_track_record_min": (
        "{minutes:.0f} min",
        "{minutes:.0f} 分钟",
    ),
    "agent.rules.brain_live_clusters": (
        "live: {names}",
        "运行中：{names}",
    ),
    "agent.rules.brain_cluster_placeholder": (
        "<cluster>",
        "<集群>",
    ),
    "agent.rules.brain_no_live_cluster": (
        "there is no live cluster",
        "现在没有运行中的集群",
    ),
    "agent.rules.brain_rent_how_many": (
        "; how many {name}?",
        "；要几张 {name}？",
    ),
    "agent.rules.verb.explain_hang_of": (
        "explain the hang of",
        "分析卡住原因：",
    ),
    "agent.rules.brain_rent_which_gpu_model": (
        "; which GPU model?",
        "；要什么型号的卡？",
    ),
    "agent.rules.brain_example_cancel_job": (
        "cancel job 3",
        "取消作业3",
    ),
    "agent.rules.verb.cancel": (
        "cancel",
        "取消",
    ),
    "agent.rules.verb.logs_of": (
        "logs of",
        "看日志：",
    ),
    "agent.rules.brain_lab_cluster": (
        "the lab cluster",
        "实验室集群",
    ),
    "agent.suggest.check_the_health_of": (
        "Check the health of {cluster}",
        "检查 {cluster} 的健康状况",
    ),
    "agent.suggest.release_then_rent_a": (
        "Release {cluster} (then rent a replacement and resume)",
        "释放 {cluster}（再租一台替换并恢复）",
    ),
    "agent.suggest.replace_and_resume_job": (
        "Replace {lost} and resume job {job}",
        "替换 {lost} 并恢复任务 {job}",
    ),
    "agent.suggest.release_the_idle_cluster": (
        "Release the idle cluster {cluster}",
        "释放空闲的集群 {cluster}",
    ),
    "agent.suggest.release_stop_paying": (
        "Release {cluster} (stop paying)",
        "释放 {cluster}（停止计费）",
    ),
    "agent.suggest.stop_job_its_gpus": (
        "Stop job {name} (its GPUs spin without working)",
        "停止任务 {name}（其 GPU 在空转）",
    ),
    "agent.suggest.raise_the_budget_of": (
        "Raise the budget of {cluster} to {amount:g} {currency}",
        "把 {cluster} 的预算提高到 {amount:g} {currency}",
    ),
    "agent.heartbeat.budget_spent": (
        "**{severity}** {message}\n\nTo go on, raise the cluster's budget; to stop paying, release it.",
        "**{severity}** {message}\n\n要继续就提高这个集群的预算；要停止计费就释放它。",
    ),
    "agent.rules.task.pretrain": (
        "pretraining",
        "预训练",
    ),
    "agent.rules.task.finetune-full": (
        "full fine-tune",
        "全参微调",
    ),
    "agent.rules.task.finetune-lora": (
        "LoRA fine-tune",
        "LoRA 微调",
    ),
    "agent.rules.task.inference": (
        "inference",
        "推理",
    ),
    "agent.rules.sum_plan_no_option_for": (
        "No option fits the {what} request.",
        "没有满足{what}要求的选项。",
    ),
    "agent.rules.sum_plan_no_option": (
        "No option fits the request.",
        "没有满足要求的选项。",
    ),
    "agent.rules.sum_plan_intro": (
        "Plan {plan_id}",
        "方案 {plan_id}",
    ),
    "agent.rules.sum_plan_intro_the_plan": (
        "The plan",
        "规划结果",
    ),
    "agent.rules.sum_plan_intro_for": (
        " for a {what}",
        "（{what}）",
    ),
    "agent.rules.sum_plan_intro_best": (
        ": the {shown} best options, cheapest first.",
        "：最优的 {shown} 个选项，便宜的在前。",
    ),
    "agent.rules.sum_plan_intro_best_one": (
        ": the best option, cheapest first.",
        "：最优的 1 个选项，便宜的在前。",
    ),
    "agent.rules.sum_cluster_line": (
        "{shape} {on}",
        "{shape}，{on}",
    ),
    "agent.rules.sum_cluster_line_one_node": (
        "on one node",
        "单机",
    ),
    "agent.rules.sum_cluster_line_on": (
        "on {fabric}",
        "网络 {fabric}",
    ),
    "agent.rules.sum_cluster_line_in": (
        " in {where}",
        "，地区 {where}",
    ),
    "agent.rules.sum_cluster_line_price": (
        ", {price} per GPU-hour ({hourly}/h)",
        "，每卡时 {price}（每小时 {hourly}）",
    ),
    "agent.rules.sum_cluster_line_state": (
        "; state {state}",
        "；状态 {state}",
    ),
    "agent.rules.sum_create_starting": (
        "Starting",
        "启动中",
    ),
    "agent.rules.sum_create_setting_up": (
        " {state}: the nodes are being set up; ask for its health to follow.",
        "状态 {state}：正在准备节点，可以问它的健康状况来跟进。",
    ),
    "agent.rules.sum_create_rented": (
        "Rented **{name}**: {line}.{spend}{tail}",
        "已租用 **{name}**：{line}。{spend}{tail}",
    ),
    "agent.rules.sum_release_releasing": (
        "Releasing **{name}** (state {state}).",
        "正在释放 **{name}**（状态 {state}）。",
    ),
    "agent.rules.sum_health_head": (
        "**{cluster}** ({state}): {count} node(s); open alerts: {alerts}{running}.",
        "**{cluster}**（{state}）：{count} 个节点；未关闭告警：{alerts}{running}。",
    ),
    "agent.rules.sum_health_job_running": (
        "; a job is running",
        "；有作业在运行",
    ),
    "agent.rules.sum_tune_one_node": (
        "one node",
        "单机",
    ),
    "agent.rules.sum_tune_recommended": (
        "recommended",
        "推荐",
    ),
    "agent.rules.sum_tune_current": (
        "current",
        "当前",
    ),
    "agent.rules.sum_tune_head": (
        "Tuned **{cluster}** ({fabric}): {headline}. Kept the {kept} NCCL settings",
        "已调优 **{cluster}**（{fabric}）：{headline}。保留{kept}的 NCCL 设置",
    ),
    "agent.rules.sum_tune_decision": (
        ": {decision}.",
        "：{decision}。",
    ),
    "agent.rules.sum_tune_end": (
        ".",
        "。",
    ),
    "agent.rules.sum_launch_on": (
        " on **{cluster}**",
        "，集群 **{cluster}**",
    ),
    "agent.rules.sum_launch": (
        'Launched job {job_line}{on}: {state}. Ask "status of job {ident}" or for its logs.',
        "已启动作业 {job_line}{on}：{state}。可以问“作业{ident}怎么样了”或看它的日志。",
    ),
    "agent.rules.sum_slurm_queue_runs_now": (
        "runs now",
        "现在就能跑",
    ),
    "agent.rules.sum_slurm_queue_wait_unknown": (
        "wait unknown",
        "集群没说要等多久",
    ),
    "agent.rules.sum_slurm_queue_waits": (
        "waits about {minutes} min",
        "约等 {minutes} 分钟",
    ),
    "agent.rules.sum_job_status_comma": (
        ", ",
        "，",
    ),
    "agent.rules.sum_job_status": (
        "Job {line}: {parts}.",
        "作业 {line}：{parts}。",
    ),
    "agent.rules.sum_logs_truncated": (
        " ({truncated})",
        "（{truncated}）",
    ),
    "agent.rules.sum_cancel": (
        "Cancelled job {job_line}: {state}.",
        "已取消作业 {job_line}：{state}。",
    ),
    "agent.rules.period.today": (
        "today",
        "今天",
    ),
    "agent.rules.period.month": (
        "this month",
        "本月",
    ),
    "agent.rules.period.last_month": (
        "last month",
        "上个月",
    ),
    "agent.rules.period.all": (
        "so far",
        "累计",
    ),
    "agent.rules.column.id": (
        "#",
        "#",
    ),
    "agent.rules.column.name": (
        "name",
        "名称",
    ),
    "agent.rules.column.state": (
        "state",
        "状态",
    ),
    "agent.rules.column.gpu": (
        "GPU",
        "GPU",
    ),
    "agent.rules.column.kind": (
        "kind",
        "类型",
    ),
    "agent.rules.column.message": (
        "message",
        "内容",
    ),
    "agent.rules.column.created_at": (
        "when (UTC)",
        "时间 (UTC)",
    ),
    "agent.rules.column.at": (
        "when (UTC)",
        "时间 (UTC)",
    ),
    "agent.rules.column.cost": (
        "cost",
        "费用",
    ),
    "agent.rules.history.jobs": (
        "jobs",
        "作业",
    ),
    "agent.rules.history.clusters": (
        "clusters",
        "集群",
    ),
    "agent.rules.history.plans": (
        "plans",
        "方案",
    ),
    "agent.rules.history.events": (
        "events",
        "事件",
    ),
    "agent.rules.history.conversations": (
        "conversations",
        "对话",
    ),
    "agent.rules.history.entries": (
        "entries",
        "记录",
    ),
    "agent.rules.sum_history_none": (
        "No {kind} in the history.",
        "历史里没有{kind}。",
    ),
    "agent.rules.sum_history_head_one": (
        "The most recent {kind}:",
        "最近 1 条{kind}：",
    ),
    "agent.rules.sum_history_head": (
        "The {count} most recent {kind}:",
        "最近 {count} 条{kind}：",
    ),
    "agent.rules.track.by": (
        "provider",
        "对象",
    ),
    "agent.rules.track.rentals": (
        "rentals",
        "租用",
    ),
    "agent.rules.track.failed": (
        "failed",
        "出问题",
    ),
    "agent.rules.track.worst_busbw": (
        "worst bus bandwidth",
        "最差总线带宽",
    ),
    "agent.rules.track.drift": (
        "price drift",
        "计费偏差",
    ),
    "agent.rules.track.refused": (
        "refused",
        "被拒",
    ),
    "agent.rules.track.leaks": (
        "leaks",
        "泄漏",
    ),
    "agent.rules.track.ready": (
        "median ready",
        "就绪中位数",
    ),
    "agent.rules.sum_failed": (
        "`{tool}` failed: {error}",
        "`{tool}` 失败：{error}",
    ),
    "agent.rules.hint": (
        " ({hint})",
        "（{hint}）",
    ),
    "agent.rules.help": (
        'I am XyClaw\'s built-in rules brain (no model, no tokens). Things you can ask:\n- **Plan**: "plan a LoRA fine-tune of a 13B model on 8 A800, budget 500 CNY", "serve a 7B model at 100 QPS", "pretrain 7B on 100B tokens in 2 days"\n- **Network**: "RoCE or InfiniBand for 16 GPUs?"\n- **Rent** (after a plan, asks you first): "rent option 2"\n- **Clusters**: "what\'s running", "health of a800-x16-1a2b3c", "tune the network", "release it", "release everything"\n- **Jobs**: "launch jobs/train.yaml on <cluster>", "logs of job 3", "status of job 3", "cancel job 3"\n- **Money and history**: "how much did I spend today", "this month\'s cost", "the last 5 jobs", "any alerts?"\nNothing that spends, destroys or runs code happens before you approve it.',
        "我是 XyClaw 内置的规则助手（不用模型，不耗 token）。可以这样问：\n- **规划**：“用8张A800做130亿参数模型的LoRA微调，预算五百元”、“部署一个7B模型，QPS 100”、“两天内在1000亿token上预训练7B”\n- **网络**：“16张卡用RoCE还是IB？”\n- **租用**（先有方案，租前会征求你同意）：“租方案2”、“就用第一个”\n- **集群**：“集群状态”、“检查集群健康”、“调优网络”、“释放这个集群”、“全部释放”\n- **作业**：“在集群上启动 jobs/train.yaml”、“看作业3的日志”、“作业3怎么样了”、“取消作业3”\n- **费用和历史**：“今天花了多少钱”、“本月费用”、“最近5个作业”、“有告警吗”\n花钱、销毁或执行命令的操作都要你批准后才会进行。",
    ),
    "agent.rules.unknown": (
        'I did not understand that. Try for example:\n- "plan a 7B fine-tune on 8 GPUs, budget 500 CNY"\n- "rent option 1" (after a plan), "what\'s running", "release it"\n- "how much did I spend today", "the last 5 jobs", "help".',
        "没听懂这句话。可以试试：\n- “用8张卡微调7B模型，预算500元”\n- “租方案1”（先规划）、“集群状态”、“释放这个集群”\n- “今天花了多少钱”、“最近5个作业”、“帮助”。",
    ),
    "agent.rules.fabric": (
        '**RoCE v2 or InfiniBand** (StarVerse\'s selection rules, as the planner applies them):\n- **RoCE is enough** up to 8 cards on 7B/13B training or inference: the two are within 10% (8 x H100 on 7B: 3.5 days on RoCE vs 3.2 on IB), and IB costs about 42% more compute money for +8.6%. RoCE also fits a tight budget or an existing Ethernet network (30-50% less network hardware: a 36-port 200G switch ~30,000 vs ~80,000 CNY, NIC ~5,000 vs ~12,000 CNY), and RTX 4090/A10 cards are fine on 100 Gb/s RoCE.\n- **InfiniBand matters** from 16 to 32 cards on 13B-70B training (12-38% shorter runs, 10-30% higher GPU utilization: 32 cards on 70B run 15.2 days on IB vs 24.5 on RoCE), and above 32 cards only IB holds up. H100/A100-class cards want >= 200 Gb/s (IB). For inference with a 100 ms latency limit, a 70B model on 8 cards needs IB (85 ms vs 132 ms).\n- **Latency**: one hop at 200 Gb/s <= 0.8 us (IB) vs <= 1.8 us (RoCE); 32 cards across nodes <= 3.5 us vs <= 8 us. RoCE without PFC and ECN on the switches jitters: check both.\n- On one 8-GPU machine there is no network between nodes at all (NVLink or PCIe).\nSay "plan a 13B training on 16 GPUs" and the planner compares both fabrics with prices.',
        "**RoCE v2 还是 InfiniBand**（星宇智算的选型规则，规划器按同样的规则打分）：\n- **RoCE 够用**：8 卡以内的 7B/13B 训练或推理，两者差距在 10% 以内（8×H100 训练 7B：RoCE 3.5 天，IB 3.2 天），IB 要多花约 42% 的算力费用只换来 8.6% 的提升。预算紧或已有以太网时也选 RoCE（网络硬件省 30-50%：36 口 200G 交换机约 3 万 vs 8 万元，网卡约 5 千 vs 1.2 万元）；RTX 4090/A10 用 100 Gb/s RoCE 就够。\n- **IB 更重要**：16-32 卡的 13B-70B 训练（训练时间缩短 12-38%，GPU 利用率高 10-30%：32 卡训练 70B，IB 15.2 天，RoCE 24.5 天）；超过 32 卡只有 IB 撑得住。H100/A100 级别的卡需要 ≥200 Gb/s（IB）。推理若要求 100 ms 以内，8 卡跑 70B 要用 IB（85 ms 对 132 ms）。\n- **延迟**：200 Gb/s 单跳 IB ≤0.8 µs，RoCE ≤1.8 µs；32 卡跨节点 ≤3.5 µs 对 ≤8 µs。RoCE 交换机没开 PFC 和 ECN 会抖动，要检查。\n- 单台 8 卡机器内部不走节点间网络（NVLink 或 PCIe）。\n说“用16张卡训练13B模型，做个规划”，规划器会带价格比较两种网络。",
    ),
    "agent.rules.fabric.on_model": (
        " on a {size} model",
        "跑 {size} 模型",
    ),
    "agent.rules.fabric.of_model": (
        " on a {size} model",
        " {size} 模型",
    ),
    "agent.rules.fabric.small": (
        "For {high} cards{on}: **RoCE is enough**. Up to 8 cards on 7B/13B jobs RoCE and IB are within 10%, and IB costs about 42% more compute money for +8.6% (seed 004 rule 1). On a single 8-GPU machine there is no inter-node network at all.",
        "{high} 张卡{on}：**RoCE 够用**。8 卡以内的 7B/13B 作业两者差距在 10% 以内，IB 多花约 42% 的算力费用只换来 8.6%（规则 1）。单台 8 卡机器内部不走节点间网络。",
    ),
    "agent.rules.fabric.many": (
        "For {gpus} cards of training: **InfiniBand**. Above 32 cards only IB holds up (seed 004 rule 3; 32 cards on 70B: 15.2 days on IB vs 24.5 on RoCE).",
        "{gpus} 张卡训练：**用 InfiniBand**。超过 32 卡只有 IB 撑得住（规则 3；32 卡训练 70B：IB 15.2 天，RoCE 24.5 天）。",
    ),
    "agent.rules.fabric.mid": (
        "For {gpus} cards of training{of_model}: **InfiniBand**. From 16 to 32 cards on 13B-70B models IB runs 12-38% shorter with 10-30% higher GPU utilization (seed 004 rule 2; 16 cards on 13B: 7.8 days vs 8.9 on RoCE).",
        "{gpus} 张卡训练{of_model}：**用 InfiniBand**。16-32 卡训练 13B-70B 模型，IB 训练时间短 12-38%，GPU 利用率高 10-30%（规则 2；16 卡训练 13B：IB 7.8 天，RoCE 8.9 天）。",
    ),
    "agent.rules.fabric.serve_ib": (
        "For serving a {size} model: **InfiniBand** if answers must come within 100 ms: on 8 cards a 70B model answers in 85 ms on IB vs 132 ms on RoCE (seed 004).",
        "部署 {size} 模型：要 100 ms 以内就**用 InfiniBand**：8 卡跑 70B，IB 85 ms，RoCE 132 ms。",
    ),
    "agent.rules.fabric.serve_roce": (
        "For serving a {size} model: **RoCE is enough**: on 8 cards a 7B model answers in 35 ms on RoCE vs 28 ms on IB, 13B in 58 vs 42 ms (seed 004).",
        "部署 {size} 模型：**RoCE 够用**：8 卡跑 7B，RoCE 35 ms，IB 28 ms；13B 为 58 ms 对 42 ms。",
    ),
    "agent.rules.fabric.wants_200": (
        "{gpu} cards want >= 200 Gb/s between nodes: IB HDR 200 or 200G RoCE, not 100G (seed 004 rule 6).",
        "{gpu} 需要节点间 ≥200 Gb/s：IB HDR 200 或 200G RoCE，不要 100G（规则 6）。",
    ),
    "agent.rules.fabric.fine_100": (
        "{gpu} cards are fine on 100 Gb/s RoCE (seed 004 rule 6).",
        "{gpu} 用 100 Gb/s RoCE 就够（规则 6）。",
    ),
    "agent.rules.fabric.budget": (
        "On a budget RoCE needs 30-50% less network hardware (seed 004 rule 4).",
        "预算有限时 RoCE 网络硬件省 30-50%（规则 4）。",
    ),
    "agent.rules.fabric.pfc": (
        "RoCE needs PFC and ECN on the switches, else latency jitters (rule 7). Ask for a plan with these numbers and the planner compares both fabrics with prices.",
        "RoCE 交换机要开 PFC 和 ECN，否则延迟抖动（规则 7）。按这些条件做个规划，规划器会带价格比较两种网络。",
    ),
    "agent.rules.action.rent": (
        "rent anything",
        "租用",
    ),
    "agent.rules.example.rent": (
        "rent option 1",
        "租方案1",
    ),
    "agent.rules.action.release": (
        "release a cluster",
        "释放集群",
    ),
    "agent.rules.example.release": (
        "release <cluster>",
        "释放 <集群>",
    ),
    "agent.rules.action.cancel": (
        "cancel a job",
        "取消作业",
    ),
    "agent.rules.example.cancel": (
        "cancel job 3",
        "取消作业3",
    ),
    "agent.rules.action.tune": (
        "tune a cluster",
        "调优集群",
    ),
    "agent.rules.example.tune": (
        "tune <cluster>",
        "调优 <集群>",
    ),
    "agent.rules.action.launch": (
        "launch a job",
        "启动作业",
    ),
    "agent.rules.example.launch": (
        "launch jobs/train.yaml",
        "启动 jobs/train.yaml",
    ),
    "agent.rules.action.run_command": (
        "run a command",
        "执行命令",
    ),
    "agent.rules.example.run_command": (
        "run `nvidia-smi` on <cluster>",
        "在 <集群> 上执行 `nvidia-smi`",
    ),
    "agent.rules.action.slurm_launch": (
        "submit a job to the lab's Slurm cluster",
        "向实验室的 Slurm 集群提交作业",
    ),
    "agent.rules.example.slurm_launch": (
        "run jobs/train.yaml on the lab cluster",
        "在实验室集群上运行 jobs/train.yaml",
    ),
    "agent.rules.to_do_it": (
        'To do it, say "{example}".',
        "要执行请说“{example}”。",
    ),
    "agent.rules.error.QuoteChanged": (
        "the quote changed after you approved it; nothing was rented; plan again to see the new price",
        "报价在你批准后变了，没有租用任何机器；请重新规划查看新价格",
    ),
    "agent.rules.error.BudgetExceededError": (
        "over the budget, not done",
        "超出预算，没有执行",
    ),
    "agent.rules.error.CapacityError": (
        "the platform has no free machines right now",
        "平台暂时没有空余的机器",
    ),
    "agent.rules.error.ProviderError": (
        "the cloud platform returned an error",
        "云平台返回了错误",
    ),
    "agent.rules.error.AuthenticationError": (
        "logging in to the remote machine failed",
        "登录远程机器失败",
    ),
    "agent.rules.error.ConnectError": (
        "cannot reach the remote machine",
        "连不上远程机器",
    ),
    "agent.rules.error.RemoteTimeoutError": (
        "the remote machine timed out",
        "远程机器超时",
    ),
    "agent.rules.error.RemoteError": (
        "the remote machine failed",
        "远程机器出错",
    ),
    "agent.rules.error.JobError": (
        "the job failed",
        "作业出错",
    ),
    "agent.rules.error.PlanningError": (
        "planning failed",
        "规划失败",
    ),
    "agent.rules.error.CatalogError": (
        "not in the catalogue",
        "目录里找不到",
    ),
    "agent.rules.error.ConfigError": (
        "the configuration is wrong",
        "配置有误",
    ),
    "agent.rules.error.SecretError": (
        "reading a secret failed",
        "读取密钥失败",
    ),
    "agent.rules.error.StoreError": (
        "the history database failed",
        "历史数据库出错",
    ),
    "agent.rules.error.OperationCancelled": (
        "the operation was cancelled",
        "操作已取消",
    ),
    "agent.rules.error.UsageError": (
        "the request cannot be done (no such thing, or not in that state)",
        "请求无法执行（对象不存在或状态不对）",
    ),
    "agent.rules.error.AgentError": (
        "the assistant failed inside",
        "助手内部出错",
    ),
    "agent.rules.error.default": (
        "it failed",
        "执行出错",
    ),
    "agent.rules.failed_quoted": (
        "{tool} failed: {lead}. In its words: {detail}",
        "{tool} 失败：{lead}。原文：{detail}",
    ),
    "agent.rules.verb.release": (
        "release",
        "释放",
    ),
    "agent.rules.verb.tune": (
        "tune",
        "调优",
    ),
    "agent.rules.verb.launch_on": (
        "launch it on",
        "在其上启动",
    ),
    "agent.rules.verb.health_of": (
        "health of",
        "检查",
    ),
    "agent.heartbeat.alert": (
        "**{severity}** on {cluster}: {message}",
        "**{severity}**（{cluster}）：{message}",
    ),
    "agent.heartbeat.what_to_do": (
        "\n\nWhat to do: {action}",
        "\n\n建议：{action}",
    ),
    "agent.rules.tool_done": (
        "{tool}: done.",
        "{tool}: 完成。",
    ),
    "agent.rules.doing.other": (
        "that action",
        "该操作",
    ),
    "agent.rules.policy_refused": (
        "I did not go on with {doing}: nobody can approve it now (no window or terminal is open), so it was refused.",
        "没有{doing}：当前没有人可以批准（没有打开的窗口或终端），所以默认拒绝。",
    ),
    "agent.rules.said_no": (
        "Cancelled: you said no to {doing}.",
        "已取消：你拒绝了{doing}。",
    ),
    "agent.rules.unknown_error": (
        "unknown error",
        "未知错误",
    ),
    "agent.rules.doing.create_cluster": (
        "renting",
        "租用",
    ),
    "agent.rules.doing.release_cluster": (
        "releasing the cluster",
        "释放集群",
    ),
    "agent.rules.doing.cancel_job": (
        "cancelling the job",
        "取消作业",
    ),
    "agent.rules.doing.run_command": (
        "running the command",
        "执行命令",
    ),
    "agent.rules.doing.tune": (
        "tuning",
        "调优",
    ),
    "agent.rules.doing.launch_job": (
        "launching the job",
        "启动作业",
    ),
    "agent.rules.doing.approve_replacement": (
        "renting a replacement node",
        "租用替换节点",
    ),
    "agent.rules.doing.set_budget": (
        "changing the budget",
        "修改预算",
    ),
}
