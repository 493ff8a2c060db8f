"""The command line's last English lines (issue 35, c35): what ``xyclaw chat`` prints itself,
an offers file's field errors and the guard's own errors, in the ``[gui] language``.
English entries are the texts the commands printed before."""

from __future__ import annotations

TEXTS: dict[str, tuple[str, str]] = {
    # -- xyclaw chat (and the token line `xyclaw ask` shares) -----------------------------------
    "cli.chat.banner": (
        "XyClaw chat ({brain}), conversation {cid}. /help for commands.",
        "XyClaw 对话（{brain}），对话 {cid}。输入 /help 查看命令。",
    ),
    "cli.chat.conversation": ("conversation {cid}", "对话 {cid}"),
    "cli.chat.pending_mark": (" (approval pending)", "（等待批准）"),
    "cli.chat.switch_usage": ("usage: /switch N", "用法：/switch N"),
    "cli.chat.revoke_usage": ("usage: /revoke N", "用法：/revoke N"),
    "cli.chat.revoked": ("revoked", "已撤销"),
    "cli.chat.interrupted": ("(interrupted)", "（已中断）"),
    "cli.chat.allowance": (
        "{id:>4}  {tool} `{what}` on {cluster} in '{title}'",
        "{id:>4}  {tool} `{what}`，集群 {cluster}，对话“{title}”",
    ),
    "cli.chat.card_elsewhere": (
        "(a card waits in conversation {cid}, {title}: /switch {cid})",
        "（对话 {cid}“{title}”里有一张卡片在等待：/switch {cid}）",
    ),
    "cli.chat.prompt": ("you> ", "你> "),
    "cli.chat.approve_prompt": (
        "approve? [a]pprove / [r]eject / [e]dit > ",
        "批准吗？[a] 批准 / [r] 拒绝 / [e] 修改 > ",
    ),
    "cli.chat.not_remembered": (
        "(only commands and tuning can be remembered; this one asks every time)",
        "（只有命令和调优可以记住；这一项每次都会询问）",
    ),
    "cli.chat.edit_prompt": (
        'new arguments as JSON (e.g. {{"option": 2}}): ',
        '新的参数，JSON 格式（例如 {{"option": 2}}）：',
    ),
    "cli.chat.not_json": ("that is not JSON; nothing changed", "这不是 JSON；没有改动"),
    "cli.chat.not_object": ("give a JSON object", "请给出一个 JSON 对象"),
    "cli.chat.title_new": ("New conversation", "新对话"),
    "cli.chat.title_tour": ("Tour", "导览"),
    "cli.chat.tokens": (
        "({tokens_in} tokens in, {tokens_out} out, {cost})",
        "（输入 {tokens_in} tokens，输出 {tokens_out}，{cost}）",
    ),
    # -- an offers file (`xyclaw plan --offers`), a GPU file: xyclaw.catalog.loader ------------
    "error.catalog.gpu_positive": (
        "GPU {name}: memory, TFLOP/s and bandwidth must be positive",
        "GPU {name}：显存、TFLOP/s 和带宽都必须为正数",
    ),
    "error.catalog.gpu_fp8": (
        "GPU {name}: FP8 TFLOP/s must be positive or absent",
        "GPU {name}：FP8 TFLOP/s 必须为正数或留空",
    ),
    "error.catalog.gpu_interconnect": (
        "GPU {name}: interconnect must be one of {choices}",
        "GPU {name}：interconnect 必须是 {choices} 之一",
    ),
    "error.catalog.offer_needs": (
        "an offer needs a provider, an id, a region and a GPU model",
        "报价单需要平台、编号、地区和 GPU 型号",
    ),
    "error.catalog.offer_gpus_per_node": (
        "offer {offer}: gpus_per_node must be at least 1",
        "报价单 {offer}：gpus_per_node 至少为 1",
    ),
    "error.catalog.offer_nodes_min": (
        "offer {offer}: node counts must be 1 or more",
        "报价单 {offer}：节点数必须为 1 或以上",
    ),
    "error.catalog.offer_nodes_order": (
        "offer {offer}: node counts must be increasing, no repeats",
        "报价单 {offer}：节点数必须递增且不重复",
    ),
    "error.catalog.offer_fabric": (
        "offer {offer}: several nodes need a fabric other than none",
        "报价单 {offer}：多节点需要 none 以外的网络",
    ),
    "error.catalog.offer_kind": (
        "offer {offer}: kind must be one of {choices}",
        "报价单 {offer}：kind 必须是 {choices} 之一",
    ),
    "error.catalog.offer_node_kind": (
        "offer {offer}: a 'node' offer rents exactly one node",
        "报价单 {offer}：'node' 类报价只租一个节点",
    ),
    "error.catalog.offer_price": (
        "offer {offer}: the price cannot be negative",
        "报价单 {offer}：价格不能为负",
    ),
    "error.catalog.offer_price_30d": (
        "offer {offer}: the 30-day price must be in (0, on-demand]",
        "报价单 {offer}：30 天价格必须在 (0, 按需价格] 之内",
    ),
    "error.catalog.offer_currency": (
        "offer {offer}: currency must be a 3-letter code like CNY",
        "报价单 {offer}：货币必须是 CNY 这样的 3 字母代码",
    ),
    "error.catalog.offer_available": (
        "offer {offer}: available GPUs cannot be negative",
        "报价单 {offer}：可用 GPU 数不能为负",
    ),
    "error.catalog.at_line": (
        "{source}, line {line}: {problem}",
        "{source} 第 {line} 行：{problem}",
    ),
    "error.catalog.at_line_column": (
        "{source}, line {line}, column {column}: {problem}",
        "{source} 第 {line} 行，{column} 列：{problem}",
    ),
    "error.catalog.at_row": ("{source}, row {line}: {problem}", "{source} 第 {line} 条：{problem}"),
    "error.catalog.at_row_column": (
        "{source}, row {line}, column {column}: {problem}",
        "{source} 第 {line} 条，{column} 列：{problem}",
    ),
    "error.catalog.hint": (
        "fix that value (the formats are described in docs/planner.md)",
        "请改正这个值（格式见 docs/planner.md）",
    ),
    "error.catalog.empty": ("is empty; a value is required", "为空；这里需要一个值"),
    "error.catalog.not_whole": (
        "{text} is not a whole number XyClaw can use",
        "{text} 不是 XyClaw 能用的整数",
    ),
    "error.catalog.not_number": (
        "{text} is not a number XyClaw can use",
        "{text} 不是 XyClaw 能用的数字",
    ),
    "error.catalog.below": (
        "{text} is below the minimum of {minimum}",
        "{text} 小于最小值 {minimum}",
    ),
    "error.catalog.above": (
        "{text} is above the maximum of {maximum}",
        "{text} 大于最大值 {maximum}",
    ),
    "error.catalog.not_one_of": (
        "{text} is not one of {choices}",
        "{text} 不在可选值 {choices} 中",
    ),
    "error.catalog.fp8_positive": (
        "must be positive, or empty for GPUs without FP8",
        "必须为正数；没有 FP8 的 GPU 请留空",
    ),
    "error.catalog.positive": ("must be positive", "必须为正数"),
    "error.catalog.unknown_gpu": (
        "unknown GPU model {gpu}; known: {names}",
        "未知的 GPU 型号 {gpu}；已知：{names}",
    ),
    "error.catalog.currency": (
        "{text} is not a 3-letter code such as CNY",
        "{text} 不是三个字母的货币代码（如 CNY）",
    ),
    "error.catalog.price_30d": (
        "must be positive and at most the on-demand price",
        "必须为正数，且不高于按需价格",
    ),
    "error.catalog.not_node_counts": (
        "{text} is not a list of node counts such as 2|4|8",
        "{text} 不是节点数列表（例如 2|4|8）",
    ),
    "error.catalog.node_counts_order": (
        "{text}: node counts must be increasing numbers of 1 or more",
        "{text}：节点数必须是递增的、不小于 1 的数",
    ),
    "error.catalog.not_csv": ("not valid CSV ({why})", "不是有效的 CSV（{why}）"),
    "error.catalog.cell_count": (
        "has {cells} values, the header has {header}",
        "有 {cells} 个值，而表头有 {header} 个",
    ),
    "error.catalog.no_header": ("has no header line", "没有表头行"),
    "error.catalog.unknown_column_expected": (
        "unknown column; expected columns: {columns}",
        "未知的列；应为这些列：{columns}",
    ),
    "error.catalog.unknown_column": ("unknown column", "未知的列"),
    "error.catalog.twice": ("appears twice in the header", "在表头中出现了两次"),
    "error.catalog.missing_header": ("is missing from the header", "表头中缺少这一列"),
    "error.catalog.missing": ("is missing", "缺少这一列"),
    # -- the guard's own lines (xyclaw guard, xyclaw guard --once) ------------------------------
    "op.guard.report_error": ("error: {error}", "错误：{error}"),
    "op.guard.report_failed": ("{name}: {error}", "{name}：{error}"),
    "cli.guard.already_exits": (
        "the guard already runs: {text}; this one exits",
        "守护进程已在运行：{text}；这个就退出了",
    ),
    "cli.guard.guarding": (
        "{stamp} guarding {path}: budgets and idle release at the moment they are due, at least"
        " every {interval:.0f} s{then}",
        "{stamp} 正在守护 {path}：预算和空闲释放一到时间就执行，至少每 {interval:.0f} 秒检查一次"
        "{then}",
    ),
    "cli.guard.ends_after": (
        "; ends {minutes:g} min after the last live cluster",
        "；最后一个集群结束 {minutes:g} 分钟后退出",
    ),
    "cli.guard.ctrl_c": ("; Ctrl-C to stop", "；按 Ctrl-C 停止"),
    "cli.guard.folder_gone": (
        "the data folder {path} is gone; the guard stops",
        "数据文件夹 {path} 不见了；守护进程停止",
    ),
    "cli.guard.ends": (
        "{stamp} nothing has been live for {minutes:g} min: the guard ends",
        "{stamp} 已有 {minutes:g} 分钟没有运行中的集群：守护进程退出",
    ),
    "cli.guard.stops_here": (
        "the guard stops here; while clusters are live, one goes on in the background",
        "守护进程在这里停止；只要还有集群在运行，后台会有一个接着守护",
    ),
    "cli.guard.goes_on": ("the guard goes on: {text}", "守护进程继续运行：{text}"),
    "cli.guard.runs_elsewhere": (
        "the guard runs {text}; it checks by itself",
        "守护进程{text}；它会自己检查",
    ),
    "cli.guard.nothing_lately": (
        "it has warned of and released nothing in the last hour",
        "过去一小时里它没有发出提醒，也没有释放任何集群",
    ),
    "cli.guard.starts_again": (
        "while clusters are live, the next xyclaw command starts it again (set [guard] autostart"
        " = false to stop that; budgets then hold only where the provider keeps a deadline)",
        "只要还有集群在运行，下一条 xyclaw 命令会再次启动它（设置 [guard] autostart = false"
        " 可以阻止；那时预算只在提供商设有截止时间的地方有效）",
    ),
    # why the guard's next check comes when it does (xyclaw guard --once, guard status)
    "op.guard.why.still_bills": ("{name} still bills", "{name} 仍在计费"),
    "op.guard.why.reaches_warning": (
        "{name} reaches {fraction:.0%} of its budget",
        "{name} 将用到预算的 {fraction:.0%}",
    ),
    "op.guard.why.reaches_budget": ("{name} reaches its budget", "{name} 将用完预算"),
    "op.guard.why.is_idle": ("{name}: is it idle?", "{name}：是否空闲？"),
    "op.guard.why.nears_idle_limit": ("{name} nears its idle limit", "{name} 接近空闲上限"),
    "op.guard.why.reaches_idle_limit": ("{name} reaches its idle limit", "{name} 将达到空闲上限"),
    "op.guard.why.still_idle": ("{name}: still idle?", "{name}：仍然空闲吗？"),
    # -- the Engine's own refusals, as the CLI shows them ---------------------------------------
    "error.engine.days": ("days must be positive, not {days}", "天数必须为正，而不是 {days}"),
    "error.engine.days_hint": ("e.g. --days 30", "例如 --days 30"),
    "error.engine.no_plan": ("no plan {plan}", "没有规划 {plan}"),
    "error.engine.no_plan_hint": (
        "make one with `xyclaw plan ...`",
        "先用 `xyclaw plan ...` 做一个规划",
    ),
    "error.engine.plan_options": (
        "plan {plan} has options 1 to {count}, not {option}",
        "规划 {plan} 的选项是 1 到 {count}，没有 {option}",
    ),
    "error.engine.plan_empty": (
        "plan {plan} found nothing that fits",
        "规划 {plan} 没有找到合适的选项",
    ),
    "error.engine.plan_again": (
        "`xyclaw plan ...` again with other limits",
        "换些限制条件再运行一次 `xyclaw plan ...`",
    ),
    "error.engine.no_own_hosts": (
        "no free own hosts with {count} x {gpu} for {provider}",
        "{provider} 没有空闲的自有机器带 {count} x {gpu}",
    ),
    "error.engine.local_gpus_hint": (
        "`xyclaw offers --provider local` shows this machine's GPUs",
        "`xyclaw offers --provider local` 会显示本机的 GPU",
    ),
    "error.engine.add_host_hint": (
        "add one to hosts.toml (docs/configuration.md), or release one in use",
        "在 hosts.toml 中添加一台（见 docs/configuration.md），或释放一台正在使用的",
    ),
    "error.engine.no_offer": (
        "no {provider} offer has {count} x {gpu}",
        "{provider} 没有 {count} x {gpu} 的报价",
    ),
    "error.engine.no_offer_in": (
        "no {provider} offer has {count} x {gpu} in {region}",
        "{provider} 在 {region} 没有 {count} x {gpu} 的报价",
    ),
    "error.engine.no_offer_on": (
        "no {provider} offer has {count} x {gpu} on {fabric}",
        "{provider} 没有网络为 {fabric} 的 {count} x {gpu} 报价",
    ),
    "error.engine.no_offer_in_on": (
        "no {provider} offer has {count} x {gpu} in {region} on {fabric}",
        "{provider} 在 {region} 没有网络为 {fabric} 的 {count} x {gpu} 报价",
    ),
    "error.engine.offers_hint": (
        "`xyclaw offers --provider {provider}` lists what it has",
        "`xyclaw offers --provider {provider}` 会列出它有什么",
    ),
    "error.engine.single_node": (
        "{provider} cannot rent a multi-node cluster ({count} GPUs at {per_node} per node)",
        "{provider} 不能租多节点集群（{count} 张 GPU，每节点 {per_node} 张）",
    ),
    "error.engine.single_node_hint": (
        "ask for at most {per_node} GPUs from {provider}, or another provider",
        "向 {provider} 最多要 {per_node} 张 GPU，或换一个平台",
    ),
    "error.engine.no_region": ("{provider} has no region {region}", "{provider} 没有地区 {region}"),
    "error.engine.regions_hint": ("its regions: {regions}", "它的地区：{regions}"),
    "error.engine.no_running_nodes": (
        "cluster {name} is {state} and has no running nodes",
        "集群 {name} {state}，没有运行中的节点",
    ),
    "error.engine.usable_hint": (
        "`xyclaw clusters` shows the ones you can use",
        "`xyclaw clusters` 会显示可以使用的集群",
    ),
    "error.engine.rents_nothing": (
        "job {job} asks for no GPU model, so it rents nothing",
        "作业 {job} 没有要求 GPU 型号，所以不会租用任何东西",
    ),
    "error.engine.on_cluster_hint": (
        "launch it on a cluster you have: --cluster C",
        "在你已有的集群上启动它：--cluster C",
    ),
    "error.engine.not_service": (
        "{job} is a {kind} job, not a service",
        "{job} 是 {kind} 作业，不是服务",
    ),
    "error.engine.not_service_hint": (
        "`xyclaw launch` runs it; `serve` is for specs with kind: service",
        "用 `xyclaw launch` 运行它；`serve` 只用于 kind: service 的规格",
    ),
    "error.engine.no_cluster_no_gpus": (
        "job {job} names no cluster and no GPUs to rent",
        "作业 {job} 既没有指定集群，也没有指定要租的 GPU",
    ),
    "error.engine.no_cluster_hint": (
        "launch it with --cluster C, or add resources.gpu to the spec",
        "用 --cluster C 启动它，或在规格中加上 resources.gpu",
    ),
    "error.engine.not_ready": (
        "cluster {name} is {state}, not ready",
        "集群 {name} {state}，未就绪",
    ),
    "error.engine.ready_hint": (
        "`xyclaw clusters` shows the ready ones",
        "`xyclaw clusters` 会显示就绪的集群",
    ),
    "error.engine.not_live": ("cluster {name} is {state}", "集群 {name} {state}"),
    "error.engine.not_live_hint": ("only live clusters bill", "只有运行中的集群才计费"),
    "error.engine.budget_zero": ("a budget must be more than 0", "预算必须大于 0"),
    "error.engine.budget_zero_hint": ("or remove it", "或者去掉预算"),
    "error.engine.no_job_cluster": (
        "no job {job} with a cluster",
        "没有在集群上运行过的作业 {job}",
    ),
    "error.engine.jobs_hint": ("`xyclaw jobs` lists them", "`xyclaw jobs` 会列出它们"),
    "error.engine.name_one": ("name a cluster or a job", "请指定一个集群或一个作业"),
    "error.engine.name_one_hint": ("--cluster NAME or --job ID", "--cluster NAME 或 --job ID"),
    "error.engine.not_slurm": ("{site} is not a Slurm cluster", "{site} 不是 Slurm 集群"),
    "error.engine.not_slurm_hint": (
        "add it to hosts.toml as a [[slurm]] table (docs/slurm.md)",
        "在 hosts.toml 中以 [[slurm]] 表添加它（见 docs/slurm.md）",
    ),
    "error.engine.which_slurm": ("which Slurm cluster? {sites}", "哪个 Slurm 集群？{sites}"),
    "error.engine.no_slurm": ("none is set up", "还没有设置"),
    "error.engine.which_slurm_hint": ("name one of them", "请指定其中一个"),
    "error.engine.add_slurm_hint": (
        "add a [[slurm]] table to hosts.toml (docs/slurm.md)",
        "在 hosts.toml 中添加一个 [[slurm]] 表（见 docs/slurm.md）",
    ),
    # xyclaw.secrets
    "error.secrets.empty": (
        "refusing to store an empty secret for {key}",
        "拒绝为 {key} 保存空的密钥",
    ),
    # -- a dry run's own notes (xyclaw launch --dry-run, and before a launch) ------------------
    "job.dry.short_of_nodes": (
        "cluster {cluster} has {running} running node(s); the task needs {nodes}: the launch"
        " would stop there",
        "集群 {cluster} 有 {running} 个运行中的节点；任务需要 {nodes} 个：启动会在那里停下",
    ),
    "job.dry.env_missing": (
        "not set on this machine, so a launch would stop: {names}",
        "本机没有设置，启动会因此停下：{names}",
    ),
    "job.dry.hidden": (
        "(from this machine's environment at launch)",
        "（启动时取自本机的环境变量）",
    ),
    # -- a flag's value that is not a number (argparse's gettext, %-style like its own words) --
    "cli.argparse.not_whole": ("%(text)s is not a whole number", "%(text)s 不是整数"),
    "cli.argparse.out_of_range": (
        "%(text)s is out of range (at most %(most)s)",
        "%(text)s 超出范围（最大 %(most)s）",
    ),
    "cli.argparse.not_number": ("%(text)s is not a number", "%(text)s 不是数字"),
    "cli.argparse.not_finite": ("%(text)s is not a finite number", "%(text)s 不是有限的数"),
    "cli.argparse.too_many_gpus": (
        "%(text)s is more GPUs than XyClaw rents; give 1 to %(most)s",
        "%(text)s 张 GPU 超出了 XyClaw 能租的数量；请给出 1 到 %(most)s",
    ),
    # -- a new SSH host key, a login's questions (xyclaw.cli.trust) ----------------------------
    "cli.trust.trusting": (
        "xyclaw: trusting the new host key of {host}: {key_type} {fingerprint} (--trust-new-host)",
        "xyclaw：信任 {host} 的新主机密钥：{key_type} {fingerprint}（--trust-new-host）",
    ),
    "cli.trust.unknown_key": (
        "host key of {host} is not known: {key_type} {fingerprint}; not at a terminal, so nobody"
        " was asked",
        "{host} 的主机密钥未知：{key_type} {fingerprint}；不在终端上，所以没有询问任何人",
    ),
    "cli.trust.unknown_key_hint": (
        "compare the fingerprint with the host's own (`ssh-keygen -lf /etc/ssh/ssh_host_*_key.pub`"
        " on it), then accept it: {commands}",
        "把指纹与主机自己的指纹比对（在主机上运行 `ssh-keygen -lf /etc/ssh/ssh_host_*_key.pub`），"
        "然后接受它：{commands}",
    ),
    "cli.trust.or_again": (
        "{pinned}   (or run it again as: {again})",
        "{pinned}   （或者这样重新运行：{again}）",
    ),
    "cli.trust.ask": (
        "\nThe host key of {host} is not known yet.\n  {key_type} key fingerprint: {fingerprint}\n"
        "Compare it with the one the machine shows (ssh-keygen -lf /etc/ssh/ssh_host_*_key.pub).",
        "\n{host} 的主机密钥还未知。\n  {key_type} 密钥指纹：{fingerprint}\n"
        "请与该机器显示的指纹比对（ssh-keygen -lf /etc/ssh/ssh_host_*_key.pub）。",
    ),
    "cli.trust.question": ("Trust this host and connect? [y/N] ", "信任这台主机并连接吗？[y/N] "),
    "cli.trust.login_refused": (
        "xyclaw: {host} asks a login question (keyboard-interactive, e.g. 2FA); not at a terminal,"
        " so nobody was asked: run the command at a terminal, or log in with a key the server"
        " takes alone",
        "xyclaw：{host} 要求回答登录问题（keyboard-interactive，例如双因素认证）；不在终端上，所以"
        "没有询问任何人：请在终端上运行这条命令，或使用服务器单独接受的密钥登录",
    ),
    "cli.trust.login": ("\n{host} asks you to log in:", "\n{host} 要求你登录："),
    "cli.trust.answer": ("answer", "回答"),
    "cli.trust.not_wanted": (
        "{host} presented {key_type} {fingerprint}, not {wanted}; nothing was trusted",
        "{host} 出示的是 {key_type} {fingerprint}，而不是 {wanted}；没有信任任何密钥",
    ),
    "cli.trust.not_wanted_hint": (
        "do not trust it: check the fingerprint on the machine itself",
        "不要信任它：请在那台机器上核对指纹",
    ),
    # -- xyclaw providers: a Slurm site's row, a plug-in's ------------------------------------
    "cli.provider_slurm": ("a Slurm cluster in {path}", "{path} 中的 Slurm 集群"),
    "cli.provider_plugin": ("a plug-in provider", "插件提供的平台"),
    # -- what is not a XyClaw error (xyclaw.cli.main): one message and the log --------------
    "cli.unexpected": ("xyclaw: error: {what}\n  -> {hint}", "xyclaw：错误：{what}\n  -> {hint}"),
    "cli.unexpected.database": (
        "the history database failed: {error}",
        "历史数据库出错：{error}",
    ),
    "cli.unexpected.database_hint": (
        "run `xyclaw doctor`; it checks the database and says what to do",
        "运行 `xyclaw doctor`；它会检查数据库并告诉你怎么做",
    ),
    "cli.unexpected.os_hint": (
        "check the file or folder named, its permissions and the free disk space",
        "请检查上面提到的文件或文件夹、它的权限以及磁盘剩余空间",
    ),
    "cli.unexpected.internal": (
        "internal error ({kind}: {text})",
        "内部错误（{kind}：{text}）",
    ),
    "cli.unexpected.bug_hint": (
        "this is a bug in XyClaw: please report it with the log ({log})",
        "这是 XyClaw 的缺陷：请附上日志（{log}）报告它",
    ),
    # -- xyclaw exec: what a node's command did ----------------------------------------------
    "cli.exec.exit": ("{node}: exit {code}", "{node}：退出码 {code}"),
    "cli.exec.error": ("{node}: error: {error}", "{node}：错误：{error}"),
    "cli.exec.cut": (
        "{node}: ({streams} cut after {cap} bytes)",
        "{node}：（{streams} 超过 {cap} 字节后被截断）",
    ),
    "cli.exec.both": ("stdout and stderr", "stdout 和 stderr"),
    # -- xyclaw plan --json: the line for a person on stderr --------------------------------
    "cli.plan.nothing_fits_json": (
        "xyclaw plan: nothing fits: {unmatched}",
        "xyclaw plan：没有合适的选项：{unmatched}",
    ),
    # -- xyclaw sim status: no cluster at all ------------------------------------------------
    "cli.sim_no_clusters": ("none", "无"),
}
