"""The command line's usage errors and the ``xyclaw slurm`` lines (issue 35, a35): what a
person sees when a command's arguments are wrong, and a lab's Slurm cluster at the terminal
(with the limits :mod:`xyclaw.providers.slurm` reads there), in the ``[gui] language``.
English entries are the texts the commands printed before."""

from __future__ import annotations

TEXTS: dict[str, tuple[str, str]] = {
    # xyclaw model-key / ask
    "cli.usage.not_a_preset": ("{preset} is not a preset", "{preset} 不是预设"),
    "cli.usage.one_of": ("one of {choices}", "可选：{choices}"),
    "cli.usage.no_key": ("no key given", "没有给出密钥"),
    "cli.usage.answer_needs_conversation": (
        "--approve and --reject need --conversation N",
        "--approve 和 --reject 需要 --conversation N",
    ),
    "cli.usage.say_something": (
        'say something: xyclaw ask "plan a LoRA fine-tune of a 13B model"',
        "请说点什么：xyclaw ask “规划一次 13B 模型的 LoRA 微调”",
    ),
    "cli.usage.message_or_answer": (
        "give either a message or --approve/--reject, not both",
        "请给出一条消息或 --approve/--reject，不要同时给出",
    ),
    # xyclaw sim serve
    "cli.usage.not_valid": ("{flag} {value} is not valid", "{flag} {value} 无效"),
    "cli.usage.zero_or_more": ("give 0 or more", "请给出 0 或更大的数"),
    "cli.usage.not_a_port": ("--port {port} is not a port", "--port {port} 不是端口号"),
    "cli.usage.port_hint": ("use 1-65535, or 0 for any", "请使用 1-65535，或用 0 表示任意端口"),
    "cli.usage.not_a_delay": ("{flag} {value} is not a delay", "{flag} {value} 不是有效的延迟"),
    "cli.usage.seconds_hint": ("give seconds, 0 or more", "请给出秒数，0 或更大"),
    "cli.usage.zero_or_more_short": ("0 or more", "0 或更大"),
    # xyclaw nccl analyze
    "cli.usage.nccl_subcommand": (
        "`xyclaw nccl` needs a subcommand",
        "`xyclaw nccl` 需要一个子命令",
    ),
    "cli.usage.nccl_try": ("try: xyclaw nccl analyze LOGFILE", "试试：xyclaw nccl analyze LOGFILE"),
    "cli.usage.no_such_file": ("{path}: no such file", "{path}：没有这个文件"),
    "cli.usage.nccl_log_hint": (
        "pass the path of an nccl-tests log",
        "请传入一个 nccl-tests 日志的路径",
    ),
    "cli.usage.cannot_read": ("{path}: cannot be read ({why})", "{path}：无法读取（{why}）"),
    "cli.usage.in_file": ("{path}: {message}", "{path}：{message}"),
    "cli.usage.nccl_output_hint": (
        "pass the output of an nccl-tests binary such as all_reduce_perf, or the "
        "JSON file its -J option wrote",
        "请传入 nccl-tests 程序（如 all_reduce_perf）的输出，或其 -J 选项写出的 JSON 文件",
    ),
    # xyclaw secrets, top, metrics export, jobs, up, exec, guard install, hosts, plan
    "cli.usage.not_a_secret_name": ("{name} is not a secret name", "{name} 不是有效的密钥名"),
    "cli.usage.secret_name_hint": (
        "use letters, digits and _ . : @ - (e.g. lambda_api_key)",
        "请使用字母、数字和 _ . : @ -（例如 lambda_api_key）",
    ),
    "cli.usage.no_cluster_ready": ("no cluster is ready", "没有就绪的集群"),
    "cli.usage.rent_one": ("rent one with `xyclaw up`", "用 `xyclaw up` 租一个"),
    "cli.usage.several_ready": (
        "several clusters are ready ({names})",
        "有多个集群就绪（{names}）",
    ),
    "cli.usage.name_one_top": ("name one: `xyclaw top NAME`", "请指定一个：`xyclaw top NAME`"),
    "cli.usage.cannot_write": ("cannot write {path}: {why}", "无法写入 {path}：{why}"),
    "cli.usage.another_file": ("choose another file", "请换一个文件"),
    "cli.usage.renting_confirm": (
        "renting costs money: confirm with --yes when not at a terminal",
        "租用要花钱：不在终端里运行时请加 --yes 确认",
    ),
    "cli.usage.which_job": ("which job?", "哪个作业？"),
    "cli.usage.unknown_jobs_action": ("unknown jobs action {action}", "未知的 jobs 操作 {action}"),
    "cli.usage.plan_or_gpu": (
        "give either --plan with --option, or --gpu with --gpus, not both",
        "请给出 --plan 加 --option，或 --gpu 加 --gpus，不要同时给出",
    ),
    "cli.usage.what_to_rent": (
        "say what to rent: --plan ID --option N, or --gpu MODEL --gpus N",
        "请说明要租什么：--plan ID --option N，或 --gpu MODEL --gpus N",
    ),
    "cli.usage.plan_shows": (
        "`xyclaw plan ...` shows options and their plan id",
        "`xyclaw plan ...` 会列出选项及其规划编号",
    ),
    "cli.usage.gpus_one_or_more": ("--gpus must be 1 or more", "--gpus 必须大于等于 1"),
    "cli.usage.unexpected_before": (
        "unexpected {words} before --",
        "-- 之前出现了意外的 {words}",
    ),
    "cli.usage.no_command": ("no command given", "没有给出命令"),
    "cli.usage.timeout_seconds": (
        "--timeout: {text} is not a number of seconds above 0",
        "--timeout：{text} 不是大于 0 的秒数",
    ),
    "cli.usage.install_confirm": (
        "installing a login service changes your session: confirm with --yes",
        "安装登录服务会改变你的会话：请加 --yes 确认",
    ),
    "cli.guard_install_ask": ("Install it? [y/N] ", "安装吗？[y/N] "),
    "cli.guard_install_linux_only": (
        "a login service is written for Linux (systemd) only; docs/guard.md says how to run"
        " `xyclaw guard` from login on macOS (launchd) and Windows (Task Scheduler)",
        "登录服务只为 Linux（systemd）编写；在 macOS（launchd）和 Windows（任务计划程序）上"
        "如何在登录时运行 `xyclaw guard`，见 docs/guard.md",
    ),
    "cli.guard_install_writes": ("this writes {target}:", "将写入 {target}："),
    "cli.guard_install_home": (
        "(XYCLAW_HOME is set, so the unit goes under it, not into your real home; copy it"
        " to ~/.config/systemd/user/ to use it)",
        "（设置了 XYCLAW_HOME，所以服务单元写在它下面，而不是你真正的主目录；"
        "要使用它，请复制到 ~/.config/systemd/user/）",
    ),
    "cli.guard_install_wrote": ("wrote {target}", "已写入 {target}"),
    "cli.guard_install_start": (
        "start it now and at every login with:\n"
        "  systemctl --user daemon-reload\n"
        "  systemctl --user enable --now {unit}\n"
        "(to keep it running while you are logged out: loginctl enable-linger $USER)",
        "用以下命令立即启动，并在每次登录时启动：\n"
        "  systemctl --user daemon-reload\n"
        "  systemctl --user enable --now {unit}\n"
        "（要在你退出登录后继续运行：loginctl enable-linger $USER）",
    ),
    "cli.guard_no_service": ("no user service at {target}", "{target} 处没有用户服务"),
    "cli.guard_removed": ("removed {target}", "已删除 {target}"),
    "cli.guard_also_run": (
        "also run: systemctl --user disable --now {unit}",
        "还请运行：systemctl --user disable --now {unit}",
    ),
    "cli.guard_nothing_installed": ("nothing installed", "没有安装"),
    "cli.usage.host_exists": ("{name} is already in {path}", "{name} 已在 {path} 中"),
    "cli.usage.host_exists_hint": (
        "edit the file to change it, or give another name",
        "要修改请编辑该文件，或换一个名字",
    ),
    "cli.usage.not_a_fingerprint": (
        "--fingerprint {value} is not a SHA256 fingerprint",
        "--fingerprint {value} 不是 SHA256 指纹",
    ),
    "cli.usage.fingerprint_hint": (
        "it looks like SHA256:3a9...; `ssh-keygen -lf` on the host prints it",
        "它形如 SHA256:3a9...；在该主机上运行 `ssh-keygen -lf` 可以看到",
    ),
    "cli.usage.limit_count": (
        "--limit: {text} is not a count; expected 0 (all) or more",
        "--limit：{text} 不是数量；应为 0（全部）或更大",
    ),
    # the history's "not found" (xyclaw.records), which most commands naming one can meet
    "error.record.no_cluster": ("no cluster {ref}", "没有集群 {ref}"),
    "error.record.clusters": ("`xyclaw clusters` lists them", "`xyclaw clusters` 会列出它们"),
    "error.record.no_job": ("no job {ref}", "没有作业 {ref}"),
    "error.record.jobs": ("`xyclaw jobs --all` lists them", "`xyclaw jobs --all` 会列出它们"),
    # xyclaw slurm
    "cli.slurm_no_shape": ("no partition has that shape", "没有分区有这种规格"),
    "cli.slurm_any": ("any", "任意"),
    "cli.slurm_shape": ("{nodes} x {gpus} GPU(s)", "{nodes} × {gpus} 张 GPU"),
    "cli.slurm_queue_line": (
        "{partition}: {free} GPU(s) free; {shape} {words}",
        "{partition}：空闲 {free} 张 GPU；{shape} {words}",
    ),
    "cli.slurm_starts_about": (" starts about {when}", "，预计开始于 {when}"),
    "cli.slurm_gpu_hours": (", {hours:.2f} GPU-hours", "，{hours:.2f} GPU 小时"),
    "cli.slurm_job_line": (
        "{job_id}  {name}  {state}{reason}  {partition}  {nodes} node(s){hours}",
        "{job_id}  {name}  {state}{reason}  {partition}  {nodes} 个节点{hours}",
    ),
    "cli.slurm_submit_confirm": (
        "submitting runs the job on the lab's nodes: confirm with --yes when not at a terminal",
        "提交会在实验室的节点上运行作业：不在终端里运行时请加 --yes 确认",
    ),
    "cli.slurm_submit_ask": ("Submit it? [y/N] ", "提交吗？[y/N] "),
    "cli.slurm_nothing_submitted": ("nothing submitted", "没有提交"),
    "cli.slurm_submitted": (
        "submitted job {job_id} to {site}, partition {partition}",
        "已提交作业 {job_id} 到 {site}，分区 {partition}",
    ),
    "cli.slurm_folder": (
        "  its folder on the login node: {folder}",
        "  它在登录节点上的文件夹：{folder}",
    ),
    "cli.slurm_setting": (
        "  {name}={value}  ({reason})",
        "  {name}={value}（{reason}）",
    ),
    "cli.slurm_cancel_confirm": (
        "cancelling stops the job: confirm with --yes when not at a terminal",
        "取消会停止作业：不在终端里运行时请加 --yes 确认",
    ),
    "cli.slurm_cancel_ask": ("Cancel it? [y/N] ", "取消它吗？[y/N] "),
    "cli.slurm_nothing_cancelled": ("nothing cancelled", "没有取消"),
    # how long a shape waits in a partition (xyclaw.providers.slurm.QueueWait)
    "op.slurm_wait.unknown": ("wait unknown", "等待时间未知"),
    "op.slurm_wait.now": ("runs now", "现在就能运行"),
    "op.slurm_wait.about": ("waits about {minutes} min", "约需等待 {minutes} 分钟"),
    # what bounds a job at a Slurm site (xyclaw.providers.slurm), before it is submitted
    "op.slurm_limit.partition_name": ("partition {name}", "分区 {name}"),
    "op.slurm_limit.partition": ("partition {name}: {key}={value}", "分区 {name}：{key}={value}"),
    "op.slurm_limit.unknown": (
        "association and QoS limits unknown: the site's sacctmgr does not answer",
        "关联和 QoS 限制未知：该集群的 sacctmgr 没有应答",
    ),
    "op.slurm_limit.association": ("association: {shown}", "关联：{shown}"),
    "op.slurm_limit.qos": ("qos: {line}", "QoS：{line}"),
}
