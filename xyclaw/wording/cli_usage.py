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
    "slurm.wait.unknown": ("wait unknown", "等待时间未知"),
    "slurm.wait.now": ("runs now", "现在就能运行"),
    "slurm.wait.about": ("waits about {minutes} min", "约需等待 {minutes} 分钟"),
    # what bounds a job at a Slurm site (xyclaw.providers.slurm), before it is submitted
    "slurm.limit.partition_name": ("partition {name}", "分区 {name}"),
    "slurm.limit.partition": ("partition {name}: {key}={value}", "分区 {name}：{key}={value}"),
    "slurm.limit.unknown": (
        "association and QoS limits unknown: the site's sacctmgr does not answer",
        "关联和 QoS 限制未知：该集群的 sacctmgr 没有应答",
    ),
    "slurm.limit.association": ("association: {shown}", "关联：{shown}"),
    "slurm.limit.qos": ("qos: {line}", "QoS：{line}"),
}
