# ruff: noqa: E501  (a table of texts: a Chinese line is not split for width)
"""Wording of the command line's help: every command's description and each option's help.

The command modules keep their English ``help=`` texts; :func:`xyclaw.cli.words.translate_parser`
finds each by its English in this table and shows the Chinese (a text missing here stays
English, and ``tests/foundation/test_cli_chinese.py`` names it). ``cli.argparse.*``: argparse's
own words (its msgids, ``%``-style fields).
"""

from __future__ import annotations

TEXTS: dict[str, tuple[str, str]] = {
    "cli.help.xyclaw.1": (
        "XyClaw plans, rents, tunes, runs, watches and releases GPU clusters. With no command it opens the desktop app.",
        "XyClaw 规划、租用、调优、运行、监视并释放 GPU 集群。不带命令时打开桌面应用。",
    ),
    "cli.help.xyclaw.2": (
        "also log debug messages to the log file",
        "同时把调试信息写入日志文件",
    ),
    "cli.help.xyclaw.3": (
        "accept the key of an SSH host XyClaw does not know yet (for scripts; each key is printed); at a terminal you are asked instead",
        "接受 XyClaw 尚不认识的 SSH 主机密钥（用于脚本；每个密钥都会打印出来）；在终端里会先询问你",
    ),
    "cli.help.xyclaw.4": (
        "talk to the agents in this terminal (streaming, approvals)",
        "在这个终端里和智能体对话（流式输出、审批）",
    ),
    "cli.help.xyclaw.5": (
        "one turn with the agents; a pending approval is kept for a later --approve",
        "与智能体进行一轮对话；待审批的操作留待之后用 --approve 处理",
    ),
    "cli.help.xyclaw.6": (
        "the whole flow on the simulated cloud, driven by the rules brain",
        "在模拟云上用规则大脑走完整个流程",
    ),
    "cli.help.xyclaw.7": (
        "store the API key of an LLM preset in the keyring",
        "把某个 LLM 预设的 API 密钥存入密钥环",
    ),
    "cli.help.xyclaw.8": (
        "what the provider rents, at what price, what is free",
        "平台出租什么、价格多少、哪些空闲",
    ),
    "cli.help.xyclaw.9": (
        "rent a plan option or what you name, bootstrap it, print its nodes",
        "租用方案中的一个选项或你指定的机器，完成初始化并打印其节点",
    ),
    "cli.help.xyclaw.10": (
        "your clusters, after reconciling with the providers",
        "你的集群（先与平台核对）",
    ),
    "cli.help.xyclaw.11": (
        "run a command on every node of a cluster",
        "在集群的每个节点上运行一条命令",
    ),
    "cli.help.xyclaw.12": (
        "release a cluster and wait until the provider confirms",
        "释放集群，并等到平台确认",
    ),
    "cli.help.xyclaw.13": (
        "cost per cluster: the app's meter and the provider's ledger",
        "每个集群的费用：本应用的计费和平台的账单",
    ),
    "cli.help.xyclaw.14": (
        "change a live cluster's budget (its provider's deadline moves with it)",
        "修改运行中集群的预算（平台端的截止时间随之调整）",
    ),
    "cli.help.xyclaw.15": (
        "show or check the configuration",
        "显示或检查配置",
    ),
    "cli.help.xyclaw.16": (
        "the local history database",
        "本地历史数据库",
    ),
    "cli.help.xyclaw.17": (
        "read pasted output (nvidia-smi, ibstat, dmesg, nccl-tests, a training log...) and say what it shows",
        "读取粘贴的输出（nvidia-smi、ibstat、dmesg、nccl-tests、训练日志……）并说明它显示了什么",
    ),
    "cli.help.xyclaw.18": (
        "check the installation and say how to fix problems",
        "检查安装情况，并说明如何修复问题",
    ),
    "cli.help.xyclaw.19": (
        "budgets and idle release while no window is open: run, status, start, stop, install",
        "没有打开窗口时的预算与空闲释放：run、status、start、stop、install",
    ),
    "cli.help.xyclaw.20": (
        "your own machines (hosts.toml): list, add, test, trust or forget one",
        "你自己的机器（hosts.toml）：列出、添加、测试、信任或忘记一台",
    ),
    "cli.help.xyclaw.21": (
        "run a job spec on a cluster (renting one first when the spec asks)",
        "在集群上运行作业规格（规格要求时先租用集群）",
    ),
    "cli.help.xyclaw.22": (
        "run a service spec and print its local URL; forwards until Ctrl-C",
        "运行服务规格并打印其本地 URL；一直转发直到按 Ctrl-C",
    ),
    "cli.help.xyclaw.23": (
        "your jobs: state, attempt, progress, ETA, cost",
        "你的作业：状态、尝试次数、进度、预计剩余时间、费用",
    ),
    "cli.help.xyclaw.24": (
        "a job's stored log; -f follows it",
        "作业保存的日志；-f 持续跟踪",
    ),
    "cli.help.xyclaw.25": (
        "stop a job on every node (the cluster stays)",
        "在每个节点上停止作业（集群保留）",
    ),
    "cli.help.xyclaw.26": (
        "`ssh <cluster>-<n>` for your clusters' nodes (XyClaw's SSH config)",
        "为你的集群节点生成 `ssh <cluster>-<n>`（XyClaw 的 SSH 配置）",
    ),
    "cli.help.xyclaw.27": (
        "serve XyClaw's tools to a coding agent over MCP (stdio)",
        "通过 MCP（stdio）把 XyClaw 的工具提供给编程智能体",
    ),
    "cli.help.xyclaw.28": (
        "pick GPU model, count, fabric and provider for a job; show cost and time",
        "为作业选择 GPU 型号、数量、网络和平台；显示费用和时间",
    ),
    "cli.help.xyclaw.29": (
        "the providers: configured (keys, hosts) and reachable (asked for offers)",
        "各平台：是否已配置（密钥、主机）以及能否连通（查询报价）",
    ),
    "cli.help.xyclaw.30": (
        "store API keys (Lambda, AutoDL, Vast.ai, RunPod, LLM) in the keyring",
        "把 API 密钥（Lambda、AutoDL、Vast.ai、RunPod、LLM）存入密钥环",
    ),
    "cli.help.xyclaw.31": (
        "the built-in simulated GPU cloud",
        "内置的模拟 GPU 云",
    ),
    "cli.help.xyclaw.32": (
        "a Slurm cluster from hosts.toml: queue, jobs, submit, cancel",
        "hosts.toml 中的 Slurm 集群：队列、作业、提交、取消",
    ),
    "cli.help.xyclaw.33": (
        "live view of every GPU of a cluster, with the open alerts (like nvitop)",
        "实时查看集群每块 GPU 及未解决的告警（类似 nvitop）",
    ),
    "cli.help.xyclaw.34": (
        "saved GPU and network metrics",
        "已保存的 GPU 与网络指标",
    ),
    "cli.help.xyclaw.35": (
        "NCCL and nccl-tests tools",
        "NCCL 与 nccl-tests 工具",
    ),
    "cli.help.xyclaw.36": (
        "probe a cluster's network, set NCCL right and prove it with nccl-tests",
        "探测集群网络，正确设置 NCCL，并用 nccl-tests 验证",
    ),
    "cli.help.chat.1": (
        "A conversation with XyClaw's agents. Renting, releasing and running commands ask first: answer a (approve), r (reject) or e (edit). Commands: /new, /list, /switch N, /allowances, /revoke N, /quit.",
        "与 XyClaw 智能体对话。租用、释放和运行命令前都会先询问：回答 a（批准）、r（拒绝）或 e（修改）。命令：/new、/list、/switch N、/allowances、/revoke N、/quit。",
    ),
    "cli.help.chat.2": (
        "continue conversation N",
        "继续第 N 个对话",
    ),
    "cli.help.ask.1": (
        "Send one message and print the reply. An action that needs approval is kept pending: answer it later with `xyclaw ask --conversation N --approve CARD` (the card id printed with it) or --reject. Exit 0 on a reply, 3 while an approval is pending, 1 on failure.",
        "发送一条消息并打印回复。需要审批的操作会保持待定：之后用 `xyclaw ask --conversation N --approve CARD`（CARD 为随之打印的卡片编号）或 --reject 回答。有回复时退出码为 0，等待审批时为 3，失败时为 1。",
    ),
    "cli.help.ask.2": (
        "the message (omit with --approve/--reject)",
        "消息内容（使用 --approve/--reject 时省略）",
    ),
    "cli.help.ask.3": (
        "conversation N (new if unset)",
        "第 N 个对话（不指定则新建）",
    ),
    "cli.help.ask.4": (
        "approve the pending card named CARD (its id, as printed with it); refused when the card waiting is another one",
        "批准名为 CARD 的待定卡片（其编号，随卡片打印）；等待中的是另一张卡片时会被拒绝",
    ),
    "cli.help.ask.5": (
        "reject the pending action",
        "拒绝待定的操作",
    ),
    "cli.help.ask.6": (
        "print one JSON object",
        "打印一个 JSON 对象",
    ),
    "cli.help.demo.1": (
        "Plan -> approve -> rent -> tune -> launch -> follow -> release -> history on the built-in simulated cloud, with the rules brain (no key, no tokens). Every step is printed; exit 0 when every step succeeded.",
        "在内置模拟云上依次进行规划 -> 批准 -> 租用 -> 调优 -> 启动 -> 跟踪 -> 释放 -> 历史，使用规则大脑（无需密钥，不耗 token）。每一步都会打印；全部成功时退出码为 0。",
    ),
    "cli.help.demo.2": (
        "a smaller job and no pauses",
        "更小的作业，不停顿",
    ),
    "cli.help.model-key.1": (
        "Read an API key from the terminal (or stdin) and keep it in the keyring.",
        "从终端（或标准输入）读取 API 密钥并保存在密钥环中。",
    ),
    "cli.help.model-key.2": (
        "deepseek, openai, qwen, moonshot, zhipu, siliconflow, custom",
        "deepseek、openai、qwen、moonshot、zhipu、siliconflow、custom",
    ),
    "cli.help.model-key.3": (
        "forget the stored key",
        "忘记已保存的密钥",
    ),
    "cli.help.offers.1": (
        "only this GPU model (e.g. A800)",
        "只看这种 GPU 型号（例如 A800）",
    ),
    "cli.help.offers.2": (
        "provider (default: sim)",
        "平台（默认：sim）",
    ),
    "cli.help.up.1": (
        "rent an option of this plan (see `xyclaw plan`)",
        "租用这个方案中的一个选项（见 `xyclaw plan`）",
    ),
    "cli.help.up.2": (
        "which option of the plan, 1 = the first",
        "方案中的第几个选项，1 = 第一个",
    ),
    "cli.help.up.3": (
        "GPU model, e.g. A800, RTX4090, H100",
        "GPU 型号，例如 A800、RTX4090、H100",
    ),
    "cli.help.up.4": (
        "number of GPUs in all",
        "GPU 总数",
    ),
    "cli.help.up.5": (
        "e.g. Xiamen, Yinchuan, Ulanqab",
        "例如 Xiamen、Yinchuan、Ulanqab",
    ),
    "cli.help.up.6": (
        "ib-hdr-200, ib-ndr-400, roce-100, roce-200, eth-25, none",
        "ib-hdr-200、ib-ndr-400、roce-100、roce-200、eth-25、none",
    ),
    "cli.help.up.7": (
        "stop and release when this much is spent (CNY)",
        "花费达到这个数额时停止并释放（CNY）",
    ),
    "cli.help.up.8": (
        "sim, ssh (your hosts) or local",
        "sim、ssh（你的主机）或 local",
    ),
    "cli.help.up.9": (
        "image setup to run on each node (default: pytorch-2.1 on rented machines, none on your own hosts)",
        "在每个节点上运行的镜像设置（默认：租用的机器为 pytorch-2.1，你自己的主机为 none）",
    ),
    "cli.help.up.10": (
        "a name for the cluster",
        "集群的名称",
    ),
    "cli.help.up.11": (
        "keep the nodes that came up if some fail",
        "部分节点失败时保留已经启动的节点",
    ),
    "cli.help.up.12": (
        "do not ask before renting",
        "租用前不再询问",
    ),
    "cli.help.clusters.1": (
        "include released and gone clusters",
        "包括已释放和已消失的集群",
    ),
    "cli.help.exec.1": (
        "cluster id or name",
        "集群编号或名称",
    ),
    "cli.help.exec.2": (
        "-- COMMAND...",
        "-- 命令……",
    ),
    "cli.help.exec.3": (
        "seconds the command may run",
        "命令可以运行的秒数",
    ),
    "cli.help.down.1": (
        "do not ask",
        "不再询问",
    ),
    "cli.help.forget.0": (
        "forget a cluster its provider no longer lists (check the provider's console first: it may still bill); it is metered until you answer",
        "忘记平台列表中已没有的集群（请先在平台控制台确认：它可能仍在计费）；在你回答之前继续计费",
    ),
    "cli.help.forget.1": (
        "do not ask (you checked the provider's console)",
        "不再询问（你已在平台控制台确认过）",
    ),
    "cli.help.budget.1": (
        "the new budget (e.g. 50 or 50CNY), or `none` to remove it",
        "新的预算（例如 50 或 50CNY），或用 `none` 取消预算",
    ),
    "cli.help.config.1": (
        "the effective settings (file, environment, defaults)",
        "生效的设置（文件、环境变量、默认值）",
    ),
    "cli.help.config.2": (
        "where config.toml and the data live",
        "config.toml 和数据所在的位置",
    ),
    "cli.help.config.3": (
        "read config.toml and hosts.toml and say what is wrong (exit 2)",
        "读取 config.toml 和 hosts.toml 并指出错误（退出码 2）",
    ),
    "cli.help.config.show.1": (
        "print JSON",
        "打印 JSON",
    ),
    "cli.help.db.1": (
        "path, schema version and row counts",
        "路径、结构版本和行数",
    ),
    "cli.help.db.2": (
        "an online copy of the database",
        "数据库的在线副本",
    ),
    "cli.help.db.backup.1": (
        "file (or folder) to write the copy to",
        "副本写入的文件（或文件夹）",
    ),
    "cli.help.db.backup.2": (
        "overwrite an existing file",
        "覆盖已有的文件",
    ),
    "cli.help.diagnose.1": (
        "a file with the output, or - for stdin",
        "包含输出的文件，或用 - 表示标准输入",
    ),
    "cli.help.guard.1": (
        "The guard charges the meter, enforces budgets and releases idle clusters. Commands start it in the background whenever a cluster is live; see docs/guard.md.",
        "守护进程记录计费、执行预算并释放空闲集群。有集群在运行时，各命令会在后台启动它；见 docs/guard.md。",
    ),
    "cli.help.guard.2": (
        "default: run",
        "默认：run",
    ),
    "cli.help.guard.3": (
        "one pass now, print what it did, exit",
        "立即检查一次，打印所做的事，然后退出",
    ),
    "cli.help.guard.4": (
        "status as JSON",
        "以 JSON 输出状态",
    ),
    "cli.help.guard.5": (
        "install without asking",
        "不询问直接安装",
    ),
    "cli.help.hosts.1": (
        "the hosts of hosts.toml, their keys and use",
        "hosts.toml 中的主机、它们的密钥和使用情况",
    ),
    "cli.help.hosts.2": (
        "add a host to hosts.toml (checked first)",
        "向 hosts.toml 添加一台主机（先检查）",
    ),
    "cli.help.hosts.3": (
        "connect as `up` would and show the GPUs found",
        "像 `up` 那样连接，并显示找到的 GPU",
    ),
    "cli.help.hosts.4": (
        "record a host's SSH key in XyClaw's known hosts",
        "把主机的 SSH 密钥记入 XyClaw 的已知主机",
    ),
    "cli.help.hosts.5": (
        "remove a host's key from XyClaw's known-hosts file",
        "从 XyClaw 的已知主机文件中删除主机的密钥",
    ),
    "cli.help.hosts.6": (
        "how each provider, region, node class and host has been for you (issue 36)",
        "每个平台、地区、节点类别和主机对你来说表现如何（issue 36）",
    ),
    "cli.help.hosts.add.1": (
        "an ~/.ssh/config alias or user@host:port",
        "~/.ssh/config 中的别名或 user@host:port",
    ),
    "cli.help.hosts.add.2": (
        "GPU model, e.g. A100-80G, RTX4090",
        "GPU 型号，例如 A100-80G、RTX4090",
    ),
    "cli.help.hosts.add.3": (
        "how many GPUs it has (1)",
        "它有几块 GPU（1）",
    ),
    "cli.help.hosts.add.4": (
        "ib-hdr-200, roce-100, ... (none)",
        "ib-hdr-200、roce-100……（none）",
    ),
    "cli.help.hosts.add.5": (
        "price per GPU-hour, for cost tracking (0)",
        "每 GPU 小时的价格，用于费用统计（0）",
    ),
    "cli.help.hosts.add.6": (
        "currency of the price (CNY)",
        "价格的货币（CNY）",
    ),
    "cli.help.hosts.add.7": (
        "the address, when NAME is only a label",
        "NAME 只是标签时的地址",
    ),
    "cli.help.hosts.add.8": (
        "who to log in as (with --host)",
        "登录所用的用户（配合 --host）",
    ),
    "cli.help.hosts.add.9": (
        "SSH port (with --host)",
        "SSH 端口（配合 --host）",
    ),
    "cli.help.hosts.test.1": (
        "a name from hosts.toml, an ssh alias or user@host:port",
        "hosts.toml 中的名称、ssh 别名或 user@host:port",
    ),
    "cli.help.hosts.trust.1": (
        "accept the key only if it has this fingerprint (for scripts)",
        "只在密钥具有这个指纹时接受（用于脚本）",
    ),
    "cli.help.hosts.history.1": (
        "only this provider",
        "只看这个平台",
    ),
    "cli.help.hosts.history.2": (
        "only this region",
        "只看这个地区",
    ),
    "cli.help.hosts.history.3": (
        "only this host (its host name, machine id or a GPU UUID)",
        "只看这台主机（主机名、机器编号或 GPU UUID）",
    ),
    "cli.help.hosts.history.4": (
        "one summary per provider (default), region, node class or host",
        "每个平台（默认）、地区、节点类别或主机各一条汇总",
    ),
    "cli.help.hosts.history.5": (
        "how far back (90)",
        "回溯多久（90）",
    ),
    "cli.help.launch.1": (
        "a job spec file (docs/jobs.md) or a sample's name",
        "作业规格文件（docs/jobs.md）或示例名称",
    ),
    "cli.help.launch.2": (
        "run on this cluster (id or name)",
        "在这个集群上运行（编号或名称）",
    ),
    "cli.help.launch.3": (
        "rent without asking, if it rents",
        "需要租用时不询问直接租用",
    ),
    "cli.help.launch.4": (
        "print the job as JSON once it runs",
        "作业运行后以 JSON 打印",
    ),
    "cli.help.launch.5": (
        "return once it runs; do not follow",
        "作业运行后立即返回；不跟踪",
    ),
    "cli.help.launch.6": (
        "say what would run where, and the quote; rent and run nothing",
        "说明会在哪里运行什么以及报价；不租用也不运行",
    ),
    "cli.help.jobs.1": (
        "show one job in detail; results: cost per result and MFU per job, then per provider, GPU model and month; why: why a job is stuck (every rank asked for its Flight Recorder dump)",
        "详细显示一个作业；results：每个作业的单位产出费用和 MFU，再按平台、GPU 型号和月份汇总；why：作业为什么卡住（向每个进程索取它的 Flight Recorder 转储）",
    ),
    "cli.help.jobs.2": (
        "the job (id or name) for `show` and `why`",
        "`show` 和 `why` 的作业（编号或名称）",
    ),
    "cli.help.jobs.3": (
        "include finished jobs",
        "包括已结束的作业",
    ),
    "cli.help.logs.1": (
        "job id or name",
        "作业编号或名称",
    ),
    "cli.help.logs.2": (
        "keep printing new lines",
        "持续打印新的行",
    ),
    "cli.help.logs.3": (
        "only this global rank",
        "只看这个全局 rank",
    ),
    "cli.help.logs.4": (
        "only this node (name or node rank)",
        "只看这个节点（名称或节点序号）",
    ),
    "cli.help.logs.5": (
        "only this attempt",
        "只看这次尝试",
    ),
    "cli.help.logs.6": (
        "only the last N lines",
        "只看最后 N 行",
    ),
    "cli.help.logs.7": (
        "the setup's output, not the run's",
        "准备阶段的输出，而不是运行的输出",
    ),
    "cli.help.ssh-config.1": (
        "add the Include line, no asking",
        "添加 Include 行，不再询问",
    ),
    "cli.help.ssh-config.2": (
        "take the Include line out again",
        "再把 Include 行去掉",
    ),
    "cli.help.mcp.1": (
        "A Model Context Protocol server on stdin/stdout for Claude Code, Codex and other agents: plan, offers, quote, clusters, jobs, logs, health, cost and history answer at once; rent, launch, cancel and release return 'pending' with a card that only you answer, in the XyClaw window or `xyclaw chat` at a terminal. stdout carries only the protocol; logs go to XyClaw's log file. See docs/mcp.md.",
        "在标准输入/输出上为 Claude Code、Codex 等智能体提供 Model Context Protocol 服务：plan、offers、quote、clusters、jobs、logs、health、cost 和 history 立即回答；rent、launch、cancel 和 release 返回 'pending' 及一张只有你能回答的卡片，在 XyClaw 窗口或终端里的 `xyclaw chat` 中回答。stdout 只传协议；日志写入 XyClaw 的日志文件。见 docs/mcp.md。",
    ),
    "cli.help.plan.1": (
        "Rank what can be rented for a training or inference job by cost (or time), with the reasons for each option. Exit 0 with options, 1 when nothing fits, 2 on bad input.",
        "按费用（或时间）对可租用的训练或推理选项排序，并给出每个选项的理由。有选项时退出码为 0，没有合适选项时为 1，输入有误时为 2。",
    ),
    "cli.help.plan.2": (
        "one of pretrain, finetune-full, finetune-lora, inference",
        "pretrain、finetune-full、finetune-lora、inference 之一",
    ),
    "cli.help.plan.3": (
        "parameters: 7B, 13b, 1.5e9",
        "参数量：7B、13b、1.5e9",
    ),
    "cli.help.plan.4": (
        "training tokens: 1B, 300M",
        "训练 token 数：1B、300M",
    ),
    "cli.help.plan.5": (
        "dataset tokens (with --epochs)",
        "数据集 token 数（配合 --epochs）",
    ),
    "cli.help.plan.6": (
        "passes over the dataset (with --dataset-tokens)",
        "遍历数据集的轮数（配合 --dataset-tokens）",
    ),
    "cli.help.plan.7": (
        "one of bf16, fp16, fp8, int8, int4 (bf16)",
        "bf16、fp16、fp8、int8、int4 之一（bf16）",
    ),
    "cli.help.plan.8": (
        "context length in tokens (4096)",
        "上下文长度，单位 token（4096）",
    ),
    "cli.help.plan.9": (
        "inference: target requests per second (1)",
        "推理：目标每秒请求数（1）",
    ),
    "cli.help.plan.10": (
        "inference: prompt tokens per request",
        "推理：每个请求的提示 token 数",
    ),
    "cli.help.plan.11": (
        "inference: output tokens per request",
        "推理：每个请求的输出 token 数",
    ),
    "cli.help.plan.12": (
        "inference: how long to serve, e.g. 24h (1h)",
        "推理：服务多久，例如 24h（1h）",
    ),
    "cli.help.plan.13": (
        "GPU count: 8, 8-32 or 16+",
        "GPU 数量：8、8-32 或 16+",
    ),
    "cli.help.plan.14": (
        "GPU model: RTX4090, A800, H100, ...",
        "GPU 型号：RTX4090、A800、H100……",
    ),
    "cli.help.plan.15": (
        "most to spend, e.g. 500 or 500CNY",
        "最多花费，例如 500 或 500CNY",
    ),
    "cli.help.plan.16": (
        "currency of the budget (CNY)",
        "预算的货币（CNY）",
    ),
    "cli.help.plan.17": (
        "training must finish within: 48h, 2d",
        "训练必须在此时间内完成：48h、2d",
    ),
    "cli.help.plan.18": (
        "Xiamen, Yinchuan, Ulanqab, ...",
        "Xiamen、Yinchuan、Ulanqab……",
    ),
    "cli.help.plan.19": (
        "ib, roce, eth, none, or a name such as ib-hdr-200",
        "ib、roce、eth、none，或 ib-hdr-200 这样的名称",
    ),
    "cli.help.plan.20": (
        "only this provider's offers",
        "只看这个平台的报价",
    ),
    "cli.help.plan.21": (
        "rank by time instead of cost",
        "按时间而不是费用排序",
    ),
    "cli.help.plan.22": (
        "options shown (10; 0 = all)",
        "显示的选项数（10；0 = 全部）",
    ),
    "cli.help.plan.23": (
        "also consider the offers in this CSV file (repeatable)",
        "也考虑这个 CSV 文件中的报价（可重复）",
    ),
    "cli.help.plan.24": (
        "rank without your history of hosts and providers (`xyclaw hosts history`)",
        "排序时不参考你的主机和平台历史（`xyclaw hosts history`）",
    ),
    "cli.help.plan.25": (
        "print the plan as JSON",
        "以 JSON 打印方案",
    ),
    "cli.help.providers.1": (
        "only say what is configured; ask no provider",
        "只说明配置了什么；不查询任何平台",
    ),
    "cli.help.secrets.1": (
        "store a secret, read from a hidden prompt or stdin",
        "保存一个密钥，从隐藏提示或标准输入读取",
    ),
    "cli.help.secrets.2": (
        "remove a secret",
        "删除一个密钥",
    ),
    "cli.help.secrets.3": (
        "the secrets XyClaw uses and whether each is set",
        "XyClaw 用到的密钥以及每个是否已设置",
    ),
    "cli.help.secrets.set.1": (
        "lambda_api_key, autodl_token, vastai_api_key, runpod_api_key, llm-api-key:PRESET (e.g. llm-api-key:deepseek) or ssh-password:HOST (the host's ssh alias or address, without user@ and :port)",
        "lambda_api_key、autodl_token、vastai_api_key、runpod_api_key、llm-api-key:PRESET（例如 llm-api-key:deepseek）或 ssh-password:HOST（主机的 ssh 别名或地址，不含 user@ 和 :port）",
    ),
    "cli.help.sim.1": (
        "run the simulated cloud in the foreground",
        "在前台运行模拟云",
    ),
    "cli.help.sim.2": (
        "whether the simulated cloud runs, and where",
        "模拟云是否在运行，以及在哪里",
    ),
    "cli.help.sim.3": (
        "stop the background simulated cloud",
        "停止后台的模拟云",
    ),
    "cli.help.sim.serve.1": (
        "port on 127.0.0.1 (default: the last one, or any)",
        "127.0.0.1 上的端口（默认：上次的端口，或任意）",
    ),
    "cli.help.sim.serve.2": (
        "the cloud's state folder (default: <data folder>/sim)",
        "模拟云的状态文件夹（默认：<数据文件夹>/sim）",
    ),
    "cli.help.sim.serve.3": (
        "provision and release at once (no delays)",
        "立即开通和释放（没有延迟）",
    ),
    "cli.help.sim.serve.4": (
        "seconds a cluster takes to come up (default 8)",
        "集群启动所需的秒数（默认 8）",
    ),
    "cli.help.sim.serve.5": (
        "extra seconds on every reply from a node: the network distance to the region (e.g. 0.03 for a region 30 ms away; default 0)",
        "节点每次回复额外增加的秒数：到该地区的网络距离（例如 30 ms 外的地区为 0.03；默认 0）",
    ),
    "cli.help.sim.stop.1": (
        "seconds before SIGKILL",
        "发送 SIGKILL 前等待的秒数",
    ),
    "cli.help.slurm.1": (
        "the GPUs free now and the wait Slurm expects, per partition",
        "各分区现在空闲的 GPU 以及 Slurm 预计的等待时间",
    ),
    "cli.help.slurm.2": (
        "XyClaw's jobs at the site (never another user's)",
        "XyClaw 在该站点的作业（不含其他用户的）",
    ),
    "cli.help.slurm.3": (
        "submit a job spec or SkyPilot task with sbatch",
        "用 sbatch 提交作业规格或 SkyPilot 任务",
    ),
    "cli.help.slurm.4": (
        "the per-rank output of one of XyClaw's jobs",
        "XyClaw 某个作业每个 rank 的输出",
    ),
    "cli.help.slurm.5": (
        "scancel one of XyClaw's jobs (asks first)",
        "用 scancel 取消 XyClaw 的某个作业（先询问）",
    ),
    # issue 33 (c33): xyclaw slurm probe
    "cli.help.slurm.6": (
        "probe the fabric on the nodes through Slurm and keep NCCL settings (asks)",
        "通过 Slurm 在节点上探测网络并保存 NCCL 设置（先询问）",
    ),
    "cli.help.slurm.probe.1": (
        "default: the one with the most GPUs per node",
        "默认：每节点 GPU 最多的分区",
    ),
    "cli.help.slurm.queue.1": (
        "the [[slurm]] name in hosts.toml",
        "hosts.toml 中的 [[slurm]] 名称",
    ),
    "cli.help.slurm.queue.2": (
        "default: any",
        "默认：任意",
    ),
    "cli.help.slurm.queue.3": (
        "only partitions with this GPU model",
        "只看有这种 GPU 型号的分区",
    ),
    "cli.help.slurm.submit.1": (
        "a job spec file (XyClaw's or a SkyPilot task YAML)",
        "作业规格文件（XyClaw 的或 SkyPilot 任务 YAML）",
    ),
    "cli.help.slurm.submit.2": (
        "default: the first that fits",
        "默认：第一个合适的",
    ),
    "cli.help.slurm.logs.1": (
        "the Slurm job id",
        "Slurm 作业编号",
    ),
    "cli.help.top.1": (
        "cluster id or name (default: the only live one)",
        "集群编号或名称（默认：唯一在运行的那个）",
    ),
    "cli.help.top.2": (
        "print one view and exit",
        "打印一次视图后退出",
    ),
    "cli.help.top.3": (
        "JSON: the latest sample per GPU and the alerts",
        "JSON：每块 GPU 的最新样本和告警",
    ),
    "cli.help.top.4": (
        "seconds between views (default: sample interval)",
        "两次视图之间的秒数（默认：采样间隔）",
    ),
    "cli.help.top.5": (
        "seconds to wait for the first samples",
        "等待首批样本的秒数",
    ),
    "cli.help.metrics.1": (
        "samples or rollups of a cluster or job as CSV or JSON",
        "集群或作业的样本或汇总，以 CSV 或 JSON 输出",
    ),
    "cli.help.metrics.export.1": (
        "job id (its cluster, while it ran)",
        "作业编号（其运行期间所在的集群）",
    ),
    "cli.help.metrics.export.2": (
        "30m, 6h, 2d... or an ISO time (default: everything)",
        "30m、6h、2d……或 ISO 时间（默认：全部）",
    ),
    "cli.help.metrics.export.3": (
        "raw GPU samples (default), NIC rates, or one-minute rollups",
        "原始 GPU 样本（默认）、NIC 速率或每分钟汇总",
    ),
    "cli.help.metrics.export.4": (
        "write to this file instead of standard output",
        "写入这个文件而不是标准输出",
    ),
    "cli.help.nccl.1": (
        "read an nccl-tests log (text or -J JSON) and judge its bus bandwidth",
        "读取 nccl-tests 日志（文本或 -J JSON）并评判其总线带宽",
    ),
    "cli.help.nccl.analyze.1": (
        "Rows, peak and average bus bandwidth, the transport NCCL used and a verdict against what the fabric should give.",
        "各行数据、峰值与平均总线带宽、NCCL 使用的传输方式，以及与网络应有表现相比的结论。",
    ),
    "cli.help.nccl.analyze.2": (
        "the output of all_reduce_perf (or its -J JSON file)",
        "all_reduce_perf 的输出（或其 -J JSON 文件）",
    ),
    "cli.help.nccl.analyze.3": (
        "nodes the test ran on (default: from the log)",
        "测试所用的节点数（默认：从日志读取）",
    ),
    "cli.help.nccl.analyze.4": (
        "GPUs per node (default: from the log)",
        "每个节点的 GPU 数（默认：从日志读取）",
    ),
    "cli.help.nccl.analyze.5": (
        "ib-hdr-200, ib-ndr-400, roce-100, roce-200, eth-25 ...",
        "ib-hdr-200、ib-ndr-400、roce-100、roce-200、eth-25……",
    ),
    "cli.help.nccl.analyze.6": (
        "RDMA NICs per node (default: from NCCL INFO lines)",
        "每个节点的 RDMA 网卡数（默认：从 NCCL INFO 行读取）",
    ),
    "cli.help.nccl.analyze.7": (
        "GPU model when the log does not name it (e.g. A800)",
        "日志未写明时的 GPU 型号（例如 A800）",
    ),
    "cli.help.tune.1": (
        "Probe the fabric, measure with nccl-tests, try the recommended NCCL settings, keep the better and store them for the cluster's jobs. Progress goes to stderr.",
        "探测网络，用 nccl-tests 测量，尝试推荐的 NCCL 设置，保留更好的那个并为集群的作业保存。进度输出到 stderr。",
    ),
    "cli.argparse.usage": ("usage: ", "用法："),
    "cli.argparse.positional": ("positional arguments", "位置参数"),
    "cli.argparse.options": ("options", "选项"),
    "cli.argparse.help": ("show this help message and exit", "显示这条帮助信息并退出"),
    "cli.argparse.version": ("show program's version number and exit", "显示程序的版本号并退出"),
    "cli.argparse.error": ("%(prog)s: error: %(message)s\n", "%(prog)s：错误：%(message)s\n"),
    "cli.argparse.argument": (
        "argument %(argument_name)s: %(message)s",
        "参数 %(argument_name)s：%(message)s",
    ),
    "cli.argparse.required": ("the following arguments are required: %s", "缺少以下参数：%s"),
    "cli.argparse.unrecognized": ("unrecognized arguments: %s", "无法识别的参数：%s"),
    "cli.argparse.invalid_choice": (
        "invalid choice: %(value)r (choose from %(choices)s)",
        "无效的选项：%(value)r（可选：%(choices)s）",
    ),
    "cli.argparse.invalid_value": (
        "invalid %(type)s value: %(value)r",
        "无效的 %(type)s 值：%(value)r",
    ),
    "cli.argparse.one": ("expected one argument", "需要一个参数值"),
    "cli.argparse.at_most_one": ("expected at most one argument", "最多需要一个参数值"),
    "cli.argparse.at_least_one": ("expected at least one argument", "至少需要一个参数值"),
    "cli.argparse.n_one": ("expected %s argument", "需要 %s 个参数值"),
    "cli.argparse.n_many": ("expected %s arguments", "需要 %s 个参数值"),
    "cli.argparse.ambiguous": (
        "ambiguous option: %(option)s could match %(matches)s",
        "有歧义的选项：%(option)s 可以匹配 %(matches)s",
    ),
    "cli.argparse.not_allowed": ("not allowed with argument %s", "不能与参数 %s 一起使用"),
    "cli.argparse.ignored": ("ignored explicit argument %r", "忽略了显式参数 %r"),
    "cli.argparse.one_of": ("one of the arguments %s is required", "需要以下参数之一：%s"),
    "cli.argparse.unknown_parser": (
        "unknown parser %(parser_name)r (choices: %(choices)s)",
        "未知的子命令 %(parser_name)r（可选：%(choices)s）",
    ),
    # issue 32: spot
    "cli.help.sim.serve.spot_rate": (
        "how often the cloud takes a spot cluster back on its own, per hour of its life (default 1/24: about once a day; 0: never)",
        "模拟云自行收回一个竞价集群的频率，按它存活的每小时计（默认 1/24：大约每天一次；0：从不）",
    ),
    "cli.help.sim.serve.spot_notice": (
        "seconds of notice before a spot cluster is taken back (default 30)",
        "收回竞价集群前提前通知的秒数（默认 30）",
    ),
    "cli.help.sim.serve.seed": (
        "seed of the spot preemptions' draws (repeatable)",
        "竞价收回抽签的随机种子（可重现）",
    ),
    "cli.help.up.spot": (
        "rent it as spot where the provider has spot: cheaper, but it may be taken back with a short notice (the quote says the saving and the risk)",
        "在提供商有竞价实例时按竞价实例租用：更便宜，但可能在短暂通知后被收回（报价会写明节省多少和风险）",
    ),
}
