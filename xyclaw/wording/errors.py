"""Wording of errors: ``key: (English, Chinese)``, ``str.format`` fields in braces."""

from __future__ import annotations

TEXTS: dict[str, tuple[str, str]] = {
    # -- SSH: a node that is down or does not answer (what a lost node's alert says) -------------
    "error.ssh.refused": ("{host} refused the connection", "{host} 拒绝了连接"),
    "error.ssh.refused.hint": (
        "is the machine up and sshd listening on that port? check Port in your ssh config",
        "机器是否开着、sshd 是否在该端口监听？检查 ssh 配置中的 Port",
    ),
    "error.ssh.no_answer": (
        "no answer from {host} within {seconds} s",
        "{host} 在 {seconds} 秒内没有应答",
    ),
    "error.ssh.no_answer.hint": (
        "check that the machine is running and the address is right; a firewall may drop the"
        " packets; raise ssh.connect_timeout_s on slow links",
        "检查机器是否在运行、地址是否正确；防火墙可能丢弃了数据包；链路慢时调大"
        " ssh.connect_timeout_s",
    ),
    # -- any error --------------------------------------------------------------------------
    "error.unexpected": ("unexpected error: {kind}", "意外错误：{kind}"),
    "error.unexpected_with_text": ("unexpected error: {kind}: {text}", "意外错误：{kind}：{text}"),
    "error.unexpected_hint": (
        "this is a bug in XyClaw; the log file has the details (xyclaw doctor shows where)",
        "这是 XyClaw 的缺陷；日志文件里有详情（xyclaw doctor 会显示日志在哪里）",
    ),
    # -- a job spec: where, and the frame of every message ------------------------------------
    "error.spec.file": ("job spec", "作业规格"),
    "error.spec.stored": ("stored job spec", "保存的作业规格"),
    "error.spec.at_line": ("{file}:{line}", "{file} 第 {line} 行"),
    "error.spec.field_problem": ("{where}: {field}: {problem}", "{where}：{field}：{problem}"),
    "error.spec.problem": ("{where}: {problem}", "{where}：{problem}"),
    "error.spec.allowed": ("allowed: {allowed}", "允许的值：{allowed}"),
    "error.spec.fix_hint": (
        "fix the spec file (docs/jobs.md lists every field) and try again",
        "请修改规格文件后重试（docs/jobs.md 列出了所有字段）",
    ),
    # -- reading the file ------------------------------------------------------------------
    "error.spec.not_utf16": ("is not valid UTF-16 text", "不是有效的 UTF-16 文本"),
    "error.spec.save_utf8": ("save the spec as UTF-8 text", "请把作业规格存为 UTF-8 文本"),
    "error.spec.binary": (
        "is a binary file (a NUL byte at offset {offset}), not YAML text",
        "是二进制文件（偏移 {offset} 处有 NUL 字节），不是 YAML 文本",
    ),
    "error.spec.binary_hint": (
        "pass the job spec (a .yaml text file), not an archive or program",
        "请选择作业规格（.yaml 文本文件），而不是压缩包或程序",
    ),
    "error.spec.not_utf8": (
        "is not UTF-8 text (byte 0x{byte:02x} at offset {offset})",
        "不是 UTF-8 文本（偏移 {offset} 处的字节 0x{byte:02x}）",
    ),
    "error.spec.not_utf8_hint": (
        "save the spec as UTF-8 (most editors: File > Save with encoding > UTF-8)",
        "请把作业规格存为 UTF-8（多数编辑器：文件 > 以指定编码保存 > UTF-8）",
    ),
    "error.spec.too_big": (
        "is {size:,} bytes; a job spec is at most {limit:,}",
        "有 {size:,} 字节；作业规格最多 {limit:,} 字节",
    ),
    "error.spec.too_big_hint": (
        "pass the job's spec file, not its data",
        "请选择规格文件，而不是作业的数据",
    ),
    "error.spec.folder": ("is a folder, not a spec file", "是文件夹，不是规格文件"),
    "error.spec.missing": ("does not exist", "不存在"),
    "error.spec.missing_hint": (
        "check the path (examples: resources/examples/)",
        "请检查路径（示例在 resources/examples/）",
    ),
    "error.spec.unreadable": ("cannot be read ({reason})", "无法读取（{reason}）"),
    "error.spec.unreadable_hint": (
        "check that the file exists and you may read it",
        "请确认文件存在且你有读取权限",
    ),
    "error.spec.bad_character": (
        "is not valid YAML: character {character} is not allowed in a YAML file",
        "不是有效的 YAML：YAML 文件里不能有字符 {character}",
    ),
    "error.spec.bad_character_hint": (
        "remove the control character (or quote it as an escape in double quotes)",
        "请删除这个控制字符（或在双引号里写成转义序列）",
    ),
    "error.spec.remove_character": ("remove the control character", "请删除这个控制字符"),
    "error.spec.two_documents": (
        "holds more than one YAML document (a second `---`)",
        "包含多个 YAML 文档（出现了第二个 `---`）",
    ),
    "error.spec.two_documents_hint": (
        "a SkyPilot pipeline runs with `xyclaw launch FILE` (its tasks in order); here, put "
        "one job in a spec file",
        "SkyPilot 流水线请用 `xyclaw launch 文件` 运行（按顺序执行各任务）；"
        "此处一个规格文件只写一个作业",
    ),
    "error.spec.empty": ("is empty", "是空的"),
    "error.spec.empty_hint": (
        "a job spec needs at least `run:` (docs/jobs.md)",
        "作业规格至少需要 `run:`（见 docs/jobs.md）",
    ),
    "error.spec.not_yaml": ("is not valid YAML: {problem}", "不是有效的 YAML：{problem}"),
    "error.spec.not_yaml_hint": (
        "check the indentation and quoting on that line (a YAML linter helps)",
        "请检查这一行的缩进和引号（YAML 检查工具能帮上忙）",
    ),
    "error.spec.too_deep": ("nests too deeply to be a job spec", "嵌套太深，不像作业规格"),
    "error.spec.not_mapping": (
        "holds {kind} at the top; a job spec is a mapping of fields",
        "顶层是{kind}；作业规格应当是字段的映射",
    ),
    "error.spec.not_mapping_hint": (
        "start with `name: my-job` and `run: python train.py` (docs/jobs.md)",
        "请以 `name: my-job` 和 `run: python train.py` 开头（见 docs/jobs.md）",
    ),
    "error.spec.kind_list": ("a list", "一个列表"),
    "error.spec.kind_nothing": ("nothing", "空值"),
    "error.spec.kind_text": ("the text {text}", "文本 {text}"),
    "error.spec.too_many_values": (
        "expands to more than {limit:,} values (aliases used over and over?)",
        "展开后超过 {limit:,} 个值（别名被反复引用？）",
    ),
    "error.spec.too_many_levels": (
        "nests more than {limit} levels deep (a recursive alias?)",
        "嵌套超过 {limit} 层（递归的别名？）",
    ),
    "error.spec.key_not_name": (
        "a key must be a plain name, not a list or mapping",
        "键必须是普通名称，不能是列表或映射",
    ),
    "error.spec.twice": (
        "appears twice (first on line {line})",
        "出现了两次（第一次在第 {line} 行）",
    ),
    "error.spec.twice_hint": (
        "keep one of the two; YAML would silently use the last",
        "请只保留一个；YAML 会悄悄使用后一个",
    ),
    "error.spec.value_unreadable": ("cannot be read: {problem}", "无法读取：{problem}"),
    "error.spec.value_unreadable_hint": (
        "write plain values (no !!python tags)",
        "请写普通的值（不要用 !!python 标签）",
    ),
    "error.spec.value_bad": ("{value} cannot be read ({reason})", "无法读取 {value}（{reason}）"),
    "error.spec.quote_hint": (
        "quote the value to keep it as text",
        "给这个值加上引号，把它当作文本",
    ),
    # -- the fields of a spec ----------------------------------------------------------------
    "error.spec.job_file": ("job {name}", "作业 {name}"),
    "error.spec.env_missing": (
        "{names} must be set in this machine's environment (the spec takes them from here and "
        "never stores them)",
        "本机环境里必须设置 {names}（作业规格从这里读取，从不保存）",
    ),
    "error.spec.env_missing_hint": (
        "export {name}=... before launching, keep it in the keyring with `xyclaw secrets set"
        " job-env:{name}` (the window asks for it), or give the value in the spec",
        "启动前先 export {name}=...，或用 `xyclaw secrets set job-env:{name}` 存进钥匙串"
        "（窗口会询问），或在作业规格里写明这个值",
    ),
    "error.spec.did_you_mean": (
        "did you mean `{close}`? allowed: {allowed}",
        "是不是想写 `{close}`？允许的值：{allowed}",
    ),
    "error.spec.unknown_field_in": ("unknown field in {what}", "{what} 里没有这个字段"),
    "error.spec.unknown_field": ("unknown field", "没有这个字段"),
    "error.spec.expected_mapping_of": (
        "expected a mapping ({keys}), got {kind}",
        "应为映射（{keys}），实际是{kind}",
    ),
    "error.spec.expected_mapping": ("expected a mapping, got {kind}", "应为映射，实际是{kind}"),
    "error.spec.expected_text": ("expected text, got {kind}", "应为文本，实际是{kind}"),
    "error.spec.expected_command": ("expected a command, got {kind}", "应为命令，实际是{kind}"),
    "error.spec.expected_value": ("expected a value, got {kind}", "应为一个值，实际是{kind}"),
    "error.spec.one_line": ("must be one line", "必须只有一行"),
    "error.spec.not_whole": ("{value} is not a whole number", "{value} 不是整数"),
    "error.spec.out_of_range": ("{value} is out of range", "{value} 超出范围"),
    "error.spec.not_bool": ("{value} is not true or false", "{value} 不是 true 或 false"),
    "error.spec.bool": ("true or false", "true 或 false"),
    "error.spec.not_job_name": ("{name} is not a job name", "{name} 不是有效的作业名"),
    "error.spec.unknown_kind": ("unknown kind {kind}", "未知的类型 {kind}"),
    "error.spec.no_run": (
        "no `run` command: a job needs the command to run on every node",
        "没有 `run` 命令：作业需要在每个节点上运行的命令",
    ),
    "error.spec.no_latest": ("{arg} has no {latest}", "{arg} 里没有 {latest}"),
    "error.spec.needs_checkpoint_dir": (
        "needs checkpoint_dir: XyClaw looks there for the newest checkpoint",
        "需要 checkpoint_dir：XyClaw 在那里找最新的检查点",
    ),
    "error.spec.unknown_gpu": (
        "{gpu} is not a GPU model XyClaw knows",
        "XyClaw 不认识 GPU 型号 {gpu}",
    ),
    "error.spec.unknown_gpu.hint": (
        "known models: {known}; another model runs on a cluster that has it (name it with "
        "--cluster or resources.cluster)",
        "已知型号：{known}；其他型号可在拥有它的集群上运行"
        "（用 --cluster 或 resources.cluster 指定）",
    ),
    "error.spec.gpu_refused": (
        "{gpu} cannot be launched on: {reason}",
        "{gpu} 不能用于启动作业：{reason}",
    ),
    "error.spec.gpu_refused.amd": (
        "AMD GPUs are planned but not launched yet; telemetry (nvidia-smi) and NCCL tuning are "
        "NVIDIA-only today",
        "AMD GPU 已在计划中但暂不支持启动；目前遥测（nvidia-smi）和 NCCL 调优仅支持 NVIDIA",
    ),
    "error.spec.gpu_refused.tpu": (
        "Google TPUs are not GPUs: XyClaw rents and tunes NVIDIA GPU nodes only",
        "Google TPU 不是 GPU：XyClaw 只租用和调优 NVIDIA GPU 节点",
    ),
    "error.spec.gpu_refused.neuron": (
        "AWS Inferentia and Trainium chips need the Neuron SDK, which XyClaw does not drive",
        "AWS Inferentia 和 Trainium 芯片需要 Neuron SDK，XyClaw 不支持",
    ),
    "error.spec.gpu_refused.gaudi": (
        "Intel Gaudi accelerators are not supported: telemetry and tuning are NVIDIA-only",
        "不支持 Intel Gaudi 加速卡：遥测和调优仅支持 NVIDIA",
    ),
    "error.spec.gpu_refused.hint": (
        "ask for an NVIDIA GPU (for example H100:8 or A100-80GB:8)",
        "请改用 NVIDIA GPU（例如 H100:8 或 A100-80GB:8）",
    ),
    "error.spec.warn_gpu_not_in_catalog": (
        "{gpu} is not in XyClaw's GPU catalog: it runs on the cluster that has it, but time and "
        "cost estimates are missing",
        "{gpu} 不在 XyClaw 的 GPU 目录中：可以在拥有它的集群上运行，但缺少时间和费用估算",
    ),
    "error.spec.gpus_per_node": ("{count} GPUs per node", "每节点 {count} 块 GPU"),
    "error.spec.count_disagrees": (
        "{value} disagrees with the count in gpu ({count})",
        "{value} 与 gpu 里的数量（{count}）不一致",
    ),
    "error.spec.count_once": (
        "give the count once: `gpu: A100:8` or `gpus_per_node: 8`",
        "数量只写一处：`gpu: A100:8` 或 `gpus_per_node: 8`",
    ),
    "error.spec.allowed_cluster": ("an existing cluster's name", "已有集群的名称"),
    "error.spec.allowed_provider": (
        "a provider name such as sim or ssh",
        "提供方名称，例如 sim 或 ssh",
    ),
    "error.spec.allowed_region": ("a region name of the provider", "提供方的区域名称"),
    "error.spec.not_name": ("{text} is not a name", "{text} 不是有效的名称"),
    "error.spec.allowed_image": (
        "a container image reference such as nvcr.io/nvidia/pytorch:24.05-py3",
        "容器镜像引用，例如 nvcr.io/nvidia/pytorch:24.05-py3",
    ),
    "error.spec.not_image": ("{text} is not an image reference", "{text} 不是镜像引用"),
    "error.spec.allowed_local_folder": (
        "a folder on this machine, relative to the spec file or absolute",
        "本机上的文件夹，相对于规格文件或绝对路径",
    ),
    "error.spec.workdir_not_git": (
        "only a local folder can be a workdir (a git URL is not supported)",
        "workdir 只能是本地文件夹（不支持 git 地址）",
    ),
    "error.spec.workdir_not_git_hint": (
        "clone the repository locally and point workdir at it",
        "请先把仓库克隆到本地，再让 workdir 指向它",
    ),
    "error.spec.empty_path": ("an empty path", "路径为空"),
    "error.spec.path_missing": ("{path} does not exist", "{path} 不存在"),
    "error.spec.unset_variable": (
        "uses ${name}, which has no value here",
        "用到了 ${name}，但这里没有它的值",
    ),
    "error.spec.unset_variable_hint": (
        "give {name} a value under `envs:` in the task file, or write `{name}: null` there "
        "and export {name}=... in the shell you run the command from (a null value under "
        "`envs:` is read from this machine's environment)",
        "请在任务文件的 `envs:` 中为 {name} 赋值；或在那里写上 `{name}: null`，并在运行命令的 "
        "shell 中 export {name}=...（`envs:` 中值为 null 的变量从本机环境读取）",
    ),
    "error.spec.path_from_cwd": (
        "a SkyPilot task's relative path is read from the folder you run the command in "
        "({cwd}), as SkyPilot does; run it from the folder that holds the path, or write it "
        "absolute",
        "SkyPilot 任务中的相对路径按运行命令时所在的文件夹（{cwd}）解析，与 SkyPilot 一致；"
        "请在包含该路径的文件夹中运行，或写成绝对路径",
    ),
    "error.spec.warn_path_beside": (
        "not found from the folder the command runs in ({cwd}), where SkyPilot looks; "
        "the one beside the spec is used: {path}",
        "在运行命令的文件夹（{cwd}，SkyPilot 查找的位置）中找不到；改用任务文件旁边的：{path}",
    ),
    "error.spec.not_folder": ("{path} is not a folder", "{path} 不是文件夹"),
    "error.spec.allowed_remote_dir": (
        "an absolute path on the cluster's shared volume, e.g. /shared/ckpt/run1",
        "集群共享卷上的绝对路径，例如 /shared/ckpt/run1",
    ),
    "error.spec.not_absolute": ("{text} is not an absolute path", "{text} 不是绝对路径"),
    "error.spec.allowed_env": (
        "NAME: value pairs; a null value is taken from this machine's environment",
        "NAME: 值 的键值对；值为 null 时从本机环境读取",
    ),
    "error.spec.not_variable": ("{name} is not a variable name", "{name} 不是有效的变量名"),
    "error.spec.nul": ("holds a NUL character", "含有 NUL 字符"),
    "error.spec.allowed_mounts": (
        "`/path/on/node: local/path` pairs (local files or folders)",
        "`/节点上的路径: 本地路径` 键值对（本地文件或文件夹）",
    ),
    "error.spec.not_node_path": ("{path} is not a path on the node", "{path} 不是节点上的路径"),
    "error.spec.mount_not_local": (
        "only local files and folders can be mounted (no buckets or storage)",
        "只能挂载本地文件和文件夹（不支持存储桶或云存储）",
    ),
    "error.spec.mount_not_local_hint": (
        "copy the data to the cluster's shared volume in setup instead",
        "请改在 setup 里把数据复制到集群的共享卷",
    ),
    "error.spec.unknown_cause": ("unknown cause {cause}", "未知的原因 {cause}"),
    "error.spec.job_group": (
        "is a SkyPilot job group (`execution: parallel`: its tasks run at the same time and "
        "talk to each other); XyClaw runs a file's tasks one after another, so it would wait "
        "forever",
        "是 SkyPilot 的作业组（`execution: parallel`：各任务同时运行并互相通信）；XyClaw "
        "按顺序逐个运行文件里的任务，会一直等下去",
    ),
    "error.spec.job_group_hint": (
        "launch each task of the group as its own job, on one cluster or several",
        "请把作业组里的每个任务分别作为一个作业启动，可在同一集群或多个集群上",
    ),
    "error.spec.serve_model": (
        "is a SkyServe model spec (`model: {model}`: SkyPilot picks the engine and the "
        "command), not a task: it has no `run`",
        "是 SkyServe 的模型规格（`model: {model}`：由 SkyPilot 选择推理引擎和命令），"
        "不是任务：没有 `run`",
    ),
    "error.spec.serve_model_hint": (
        "write the serving command as `run:` (e.g. `vllm serve {model} --port 8000`) with "
        "`resources.ports: 8000`",
        "请把推理服务的命令写成 `run:`（例如 `vllm serve {model} --port 8000`），并加上 "
        "`resources.ports: 8000`",
    ),
    "error.spec.service_needs_port": (
        "a service needs `service: {{port: N}}`: the port it listens on",
        "服务需要 `service: {{port: N}}`：它监听的端口",
    ),
    "error.spec.service_only": ("is only for `kind: service`", "只用于 `kind: service`"),
    "error.spec.service_only_hint": (
        "add `kind: service` or remove service",
        "请加上 `kind: service`，或删掉 service",
    ),
    "error.spec.no_port": ("no port", "没有端口"),
    "error.spec.not_http_path": ("{path} is not an HTTP path", "{path} 不是 HTTP 路径"),
    "error.spec.kind_mapping": ("a mapping", "映射"),
    "error.spec.kind_null": ("nothing (null)", "空值（null）"),
    "error.spec.kind_bool": ("{value} (a boolean)", "{value}（布尔值）"),
    "error.spec.not_allowed": ("{what} is not allowed", "不允许 {what}"),
    # -- what a field takes --------------------------------------------------------------
    "error.spec.allowed_name": (
        "1-63 letters, digits, '.', '_' or '-', starting with a letter or digit",
        "1-63 个字母、数字、'.'、'_' 或 '-'，以字母或数字开头",
    ),
    "error.spec.allowed_run": (
        "a shell command (use `|` for several lines)",
        "一条 shell 命令（多行时用 `|`）",
    ),
    "error.spec.allowed_env_names": (
        "variable names of letters, digits and '_', not starting with a digit",
        "由字母、数字和 '_' 组成、不以数字开头的变量名",
    ),
    "error.spec.allowed_whole": (
        "a whole number from {low} to {high}",
        "{low} 到 {high} 之间的整数",
    ),
    "error.spec.allowed_budget": (
        "an amount above 0, e.g. `500`, `500 CNY` or `{{amount: 500, currency: CNY}}`",
        "大于 0 的金额，例如 `500`、`500 CNY` 或 `{{amount: 500, currency: CNY}}`",
    ),
    "error.spec.allowed_currency": (
        "a three-letter currency code such as CNY or USD",
        "三个字母的货币代码，例如 CNY 或 USD",
    ),
    "error.spec.allowed_service": (
        "`kind: service` with `service: {{port: 8000}}`; no service section on a train job",
        "`kind: service` 加上 `service: {{port: 8000}}`；训练作业不写 service 部分",
    ),
    "error.spec.allowed_port": ("a port from 1 to 65535", "1 到 65535 之间的端口"),
    "error.spec.allowed_http_path": (
        "an HTTP path starting with '/', e.g. /health",
        "以 '/' 开头的 HTTP 路径，例如 /health",
    ),
    "error.spec.allowed_timeout": (
        "a duration such as 600, '10m' or '1h'",
        "时长，例如 600、'10m' 或 '1h'",
    ),
    "error.spec.allowed_resume_arg": (
        "text with {latest}, e.g. `--resume_from_checkpoint {latest}`, and a checkpoint_dir",
        "含 {latest} 的文本，例如 `--resume_from_checkpoint {latest}`，并需要 checkpoint_dir",
    ),
    "error.spec.allowed_duration": (
        "a duration such as 3600, '90m', '2h' or '1h30m'",
        "时长，例如 3600、'90m'、'2h' 或 '1h30m'",
    ),
    "error.spec.allowed_accelerators": (
        "`A100:8`, `H100` (1 GPU), or `{{A100: 8}}`: a GPU model and a whole count",
        "`A100:8`、`H100`（1 块 GPU）或 `{{A100: 8}}`：GPU 型号和整数数量",
    ),
    # -- values ----------------------------------------------------------------------------
    "error.spec.not_duration": ("{value} is not a duration", "{value} 不是时长"),
    "error.spec.not_positive_duration": (
        "{value} is not a positive duration",
        "{value} 不是正的时长",
    ),
    "error.spec.empty_duration": ("an empty duration", "时长为空"),
    "error.spec.budget_needs_amount": ("a budget mapping needs `amount`", "预算映射需要 `amount`"),
    "error.spec.budget_key": ("unknown budget key {name}", "未知的预算键 {name}"),
    "error.spec.not_currency": ("{code} is not a currency code", "{code} 不是货币代码"),
    "error.spec.not_amount": ("{value} is not an amount", "{value} 不是金额"),
    "error.spec.budget_negative": ("a budget of {text} is negative", "预算 {text} 是负数"),
    "error.spec.two_currencies": (
        "{text} names two currencies ({codes})",
        "{text} 写了两种货币（{codes}）",
    ),
    "error.spec.budget_zero": (
        "a budget of {text} stops the job before it starts",
        "预算 {text} 会让作业还没开始就停下",
    ),
    "error.spec.no_gpu_model": ("{text} names no GPU model", "{text} 没有写 GPU 型号"),
    "error.spec.not_gpu_count": ("{count} is not a GPU count", "{count} 不是 GPU 数量"),
    "error.spec.whole_gpus": (
        "{count} GPUs per node: XyClaw rents whole GPUs",
        "每节点 {count} 块 GPU：XyClaw 只租用整块 GPU",
    ),
    "error.spec.not_gpu_name": ("{name} is not a GPU model name", "{name} 不是 GPU 型号名"),
    # -- warnings: read, but not done as written ------------------------------------------------
    "error.spec.warn_no_checkpoint_dir": (
        "no checkpoint_dir: a restarted attempt starts again from step 0",
        "没有 checkpoint_dir：重启后的尝试会从第 0 步重新开始",
    ),
    "error.spec.warn_no_resume_arg": (
        "no resume_arg: a restarted attempt is not told where the newest checkpoint is (add "
        "resume_arg, or read $XYCLAW_LATEST_CHECKPOINT in the script)",
        "没有 resume_arg：重启后的尝试不知道最新检查点在哪里（请加上 resume_arg，或在脚本里读取"
        " $XYCLAW_LATEST_CHECKPOINT）",
    ),
    "error.spec.warn_resume_not_placeable": (
        "the last line of run is not a command the resume argument can be appended to; put "
        "$XYCLAW_RESUME_ARG where the script takes it",
        "run 的最后一行不是能追加恢复参数的命令；请把 $XYCLAW_RESUME_ARG 放在脚本接收它的位置",
    ),
    "error.spec.warn_runtime_env": (
        "is set by XyClaw on every node; this value is replaced",
        "由 XyClaw 在每个节点上设置；这里的值会被替换",
    ),
    "error.spec.warn_no_gpu": (
        "no GPU model: launch it on an existing cluster (--cluster C) or add resources.gpu to "
        "rent one",
        "没有 GPU 型号：请在已有集群上启动（--cluster C），或加上 resources.gpu 来租用",
    ),
    # -- a plan request ----------------------------------------------------------------------
    "error.plan.not_choice": (
        "{value} is not a {field}; expected one of {choices}",
        "{value} 不是有效的 {field}；应为以下之一：{choices}",
    ),
    "error.plan.too_small": (
        "{params} parameters is too small a model",
        "{params} 个参数的模型太小了",
    ),
    "error.plan.tokens_positive": (
        "expected more than zero tokens, got {value}",
        "token 数应大于零，实际是 {value}",
    ),
    "error.plan.epochs_positive": (
        "expected a positive number of epochs, got {value}",
        "轮数应为正数，实际是 {value}",
    ),
    "error.plan.tokens_and_epochs": (
        "dataset tokens and epochs go together; give both",
        "数据集 token 数和轮数要一起给出",
    ),
    "error.plan.tokens_or_dataset": (
        "give either tokens or dataset tokens with epochs",
        "请只给 token 总数，或给数据集 token 数加轮数",
    ),
    "error.plan.precision": (
        "{task} cannot run in {precision}; use {allowed}",
        "{task} 不能用 {precision} 精度；请用 {allowed}",
    ),
    "error.plan.context_range": (
        "expected a context of 128 to 1048576 tokens",
        "上下文长度应为 128 到 1048576 个 token",
    ),
    "error.plan.one_token": (
        "expected at least 1 token, got {value}",
        "至少应为 1 个 token，实际是 {value}",
    ),
    "error.plan.exceeds_context": (
        "prompt ({prompt}) plus output ({output}) tokens exceed the {context}-token context",
        "提示（{prompt}）加输出（{output}）的 token 数超过了 {context} 的上下文长度",
    ),
    "error.plan.rate_positive": (
        "expected a positive request rate, got {value}",
        "请求速率应为正数，实际是 {value}",
    ),
    "error.plan.duration_positive": ("expected a positive serving time", "服务时长应为正数"),
    "error.plan.gpu_range": (
        "expected a GPU count of at least 1, low to high",
        "GPU 数量至少为 1，并按从少到多写",
    ),
    "error.plan.budget_positive": ("expected a budget above zero", "预算应大于零"),
    "error.plan.currency": (
        "{code} is not a currency code like CNY",
        "{code} 不是 CNY 这样的货币代码",
    ),
    "error.plan.deadline_positive": ("expected a deadline above zero", "期限应大于零"),
    "error.plan.two_currencies": (
        "the budget is in {budget} but --currency says {currency}",
        "预算的货币是 {budget}，但 --currency 写的是 {currency}",
    ),
    # -- files: backups -----------------------------------------------------------------------
    "error.backup.exists": ("{path} already exists", "{path} 已经存在"),
    "error.backup.exists_hint": (
        "choose a new file name, or remove the old one",
        "请换一个文件名，或删掉原来的文件",
    ),
    "error.backup.live": (
        "the backup target is the live database itself",
        "备份目标就是正在使用的数据库本身",
    ),
    "error.backup.live_part": (
        "{path} is one of the live database's own files (its -wal, -shm or -journal)",
        "{path} 是正在使用的数据库自己的文件（-wal、-shm 或 -journal）",
    ),
    "error.backup.failed": (
        "backing up to {path} failed: {reason}",
        "备份到 {path} 失败：{reason}",
    ),
    # -- quotes ---------------------------------------------------------------------------
    "error.quote.changed": ("this quote was changed after it was made", "这份报价在生成后被改动过"),
    "error.quote.changed_hint": (
        "ask for a new quote; an approval covers exactly what it showed",
        "请重新报价；批准只对应它当时显示的内容",
    ),
    "error.quote.expired": (
        "the quote for {count} x {gpu} expired {seconds} s ago",
        "{count} × {gpu} 的报价已在 {seconds} 秒前过期",
    ),
    "error.quote.expired_hint": (
        "quote again (prices and stock change); the new quote needs a new approval",
        "请重新报价（价格和库存会变）；新报价需要重新批准",
    ),
    "error.quote.no_spot": (  # issue 32
        "{provider} rents no spot capacity: {why}",
        "{provider} 不提供竞价实例：{why}",
    ),
    "error.quote.no_spot_offer": (
        "{provider} has no spot price for offer {offer}",
        "{provider} 的报价 {offer} 没有竞价价格",
    ),
    "error.quote.no_spot_spec_hint": (
        "drop spot: true from the spec, or choose a provider that has spot",
        "从规格中删去 spot: true，或选择提供竞价实例的平台",
    ),
    "error.quote.no_spot_hint": (
        "rent option {option} of plan {plan} on demand, or choose an option whose plan line"
        " shows spot",
        "按需租用方案 {plan} 的第 {option} 个选项，或选择方案中标有竞价价格的选项",
    ),
    "error.quote.gone": (
        "{provider} no longer offers {gpu} in {region} (offer {offer})",
        "{provider} 在 {region} 已不再提供 {gpu}（报价 {offer}）",
    ),
    "error.quote.gone_hint": (
        "plan again: `xyclaw plan ...` or `xyclaw offers`",
        "请重新规划：`xyclaw plan ...` 或 `xyclaw offers`",
    ),
    "error.quote.price_changed": (
        "the price of {gpu} in {region} changed from {before} to {after} per card-hour since you "
        "approved",
        "你批准后，{region} 的 {gpu} 每卡时价格从 {before} 变成了 {after}",
    ),
    "error.quote.plan_again": ("plan again; nothing was rented", "请重新规划；没有租用任何机器"),
    "error.quote.not_the_plan": (
        "this quote says plan {plan} option {option} showed {price} per GPU-hour and {total}"
        " in all, but the plan shows {plan_price} and {plan_total}",
        "这份报价说方案 {plan} 的第 {option} 项是每卡时 {price}、共 {total}，但方案里是"
        "每卡时 {plan_price}、共 {plan_total}",
    ),
    "error.quote.shape_changed": (
        "offer {offer} changed shape since the quote",
        "报价后，offer {offer} 的配置变了",
    ),
    "error.quote.sold_out": (
        "only {free} {gpu} are free in {region} now, the quote needs {count}",
        "{region} 现在只有 {free} 块空闲的 {gpu}，报价需要 {count} 块",
    ),
    "error.quote.sold_out_hint": (
        "plan again for another region or size; nothing was rented",
        "请换个区域或规模重新规划；没有租用任何机器",
    ),
    # -- bound approvals (issue 25): what was approved is no longer what would run ----------
    "error.approval.ask_again_hint": (
        "nothing was done; ask again to see a new card",
        "什么都没有做；请重新提出，查看新的审批卡片",
    ),
    "error.approval.tampered": (
        "this approval was changed after it was shown: ask again",
        "这个审批在显示之后被改动过：请重新提出",
    ),
    "error.approval.changed": (
        "this is not the action you approved: ask again",
        "这不是你批准的操作：请重新提出",
    ),
    "error.approval.cluster_new": (
        "{name} was rented after you approved: ask again",
        "{name} 是在你批准之后才租用的：请重新提出",
    ),
    "error.approval.cluster_replaced": (
        "{name} is now cluster id {new}, not the id {old} you approved: ask again",
        "{name} 现在是集群 {new}，不是你批准的 {old}：请重新提出",
    ),
    "error.approval.cluster_gone": (
        "{name} (id {id}) is no longer live: ask again",
        "{name}（编号 {id}）已不在运行：请重新提出",
    ),
    # Issue 31: forgetting a cluster its provider no longer lists.
    "error.forget.listed": (
        "cluster {cluster} is not waiting to be forgotten: its provider lists it (or XyClaw "
        "released it)",
        "集群 {cluster} 并不在等待被忘记：服务商仍列出它（或 XyClaw 已释放它）",
    ),
    "error.forget.listed_hint": (
        "`xyclaw clusters` shows it; release it with `xyclaw down` if you no longer need it",
        "`xyclaw clusters` 会显示它；如果不再需要，请用 `xyclaw down` 释放它",
    ),
    "error.approval.job_new": (
        "job {name} (id {id}) started after you approved: ask again",
        "作业 {name}（编号 {id}）是在你批准之后才启动的：请重新提出",
    ),
    "error.approval.job_replaced": (
        "job {name} is now id {new}, not the id {old} you approved: ask again",
        "作业 {name} 现在是编号 {new}，不是你批准的 {old}：请重新提出",
    ),
    "error.approval.job_gone": (
        "job {name} (id {id}) is no longer there: ask again",
        "作业 {name}（编号 {id}）已经不在了：请重新提出",
    ),
    "error.approval.instance_new": (
        "instance {name} (id {id}) appeared after you approved: ask again",
        "实例 {name}（编号 {id}）是在你批准之后才出现的：请重新提出",
    ),
    "error.approval.instance_replaced": (
        "instance {name} is now id {new}, not the id {old} you approved: ask again",
        "实例 {name} 现在是编号 {new}，不是你批准的 {old}：请重新提出",
    ),
    "error.approval.instance_gone": (
        "instance {name} (id {id}) is no longer there: ask again",
        "实例 {name}（编号 {id}）已经不在了：请重新提出",
    ),
    "error.approval.nodes_changed": (
        "the running nodes of {cluster} changed after you approved: ask again",
        "{cluster} 的运行节点在你批准之后变了：请重新提出",
    ),
    "error.approval.command_changed": (
        "the command, its folder or its environment changed after you approved: ask again",
        "命令、其目录或环境变量在你批准之后变了：请重新提出",
    ),
    "error.approval.price_changed": (
        "the figures you approved changed ({fields}): ask again",
        "你批准的数字变了（{fields}）：请重新提出",
    ),
    "error.approval.quote_changed": (
        "the quote is not the one you approved: ask again",
        "报价不是你批准的那一份：请重新提出",
    ),
    "error.approval.prefix_unsafe": (
        "'{prefix}' cannot be remembered: it holds a shell character or is empty",
        "无法记住 '{prefix}'：它为空或含有 shell 特殊字符",
    ),
    "error.approval.prefix_not_of": (
        "'{prefix}' is not how the approved command '{command}' begins",
        "'{prefix}' 不是所批准命令 '{command}' 的开头",
    ),
    "error.approval.prefix_hint": (
        "remember the exact command, or the first words of it, without ; | & $ ` > <",
        "请记住完整命令，或它开头的几个词（不含 ; | & $ ` > <）",
    ),
    "error.approval.no_card": (
        "conversation {cid} has nothing waiting for approval",
        "对话 {cid} 没有等待批准的操作",
    ),
    "error.approval.no_card_hint": (
        "it may have been answered already (`xyclaw chat`, then /switch N)",
        "它可能已经被回答了（`xyclaw chat`，然后 /switch N）",
    ),
    "error.approval.name_a_card": (
        "say which card you approve: waiting in conversation {cid}: {cards}",
        "请指明你批准哪一张卡片：对话 {cid} 中等待的有：{cards}",
    ),
    "error.approval.name_a_card_hint": (
        "xyclaw ask --conversation {cid} --approve {card}",
        "xyclaw ask --conversation {cid} --approve {card}",
    ),
    "error.approval.not_this_card": (
        "card {card} is not the one waiting in conversation {cid}; waiting: {cards}",
        "卡片 {card} 不是对话 {cid} 中正在等待的；正在等待的是：{cards}",
    ),
    "error.approval.card_line": ("{card} ({effect}: {title})", "{card}（{effect}：{title}）"),
    # -- SSH: connecting, logging in, host keys --------------------------------------------------
    "error.ssh.no_name": (
        "cannot resolve host name {name} for {alias}",
        "无法解析 {alias} 的主机名 {name}",
    ),
    "error.ssh.no_name_hint": (
        "check HostName for this host in your ssh config, and your DNS",
        "请检查 ssh 配置里这台主机的 HostName，以及你的 DNS",
    ),
    "error.ssh.unreachable": ("cannot reach {host}: {reason}", "无法连到 {host}：{reason}"),
    "error.ssh.unreachable_hint": (
        "check the network path to the machine and its address",
        "请检查到这台机器的网络和它的地址",
    ),
    "error.ssh.refused_credentials": (
        "{host} refused every credential for user {user}; tried: {tried}",
        "{host} 拒绝了用户 {user} 的所有凭据；试过：{tried}",
    ),
    "error.ssh.refused_credentials_hint": (
        "check User and IdentityFile for this host in your ssh config, that your public key is "
        "in ~/.ssh/authorized_keys on the host, or store the host's password in XyClaw",
        "请检查 ssh 配置里这台主机的 User 和 IdentityFile，确认你的公钥在主机的"
        " ~/.ssh/authorized_keys 里，或在 XyClaw 里保存这台主机的密码",
    ),
    "error.ssh.revoked": (
        "{host} presented host key {fingerprint}, which is marked @revoked at {where}",
        "{host} 出示的主机密钥 {fingerprint} 在 {where} 被标为 @revoked",
    ),
    "error.ssh.revoked_hint": (
        "do not connect; ask the machine's owner for its current key",
        "不要连接；请向机器的所有者索取它现在的密钥",
    ),
    "error.ssh.key_changed": (
        "host key of {host} has CHANGED: expected {expected}; the host presented {kind} "
        "{fingerprint}",
        "{host} 的主机密钥变了：应为 {expected}；主机出示的是 {kind} {fingerprint}",
    ),
    "error.ssh.key_changed_hint": (
        "someone may be intercepting the connection, or the machine was re-installed. Check "
        "the new fingerprint with the provider; if the change is expected, remove the old line "
        "it names (ssh-keygen -R '{name}' for ~/.ssh/known_hosts) and connect again",
        "可能有人在截获连接，也可能机器重装过。请向提供方核对新的指纹；如果这次变化在预料之中，"
        "删掉它指出的旧记录（~/.ssh/known_hosts 用 ssh-keygen -R '{name}'）后再连接",
    ),
    "error.ssh.key_unknown": (
        "host key of {host} is not known: {kind} {fingerprint}",
        "{host} 的主机密钥未知：{kind} {fingerprint}",
    ),
    "error.ssh.key_unknown_hint": (
        "compare that fingerprint with the one your provider shows (or run ssh-keygen -lf on "
        "the host's /etc/ssh/ssh_host_*_key.pub), then accept it: --trust-new-host on the "
        "command line, or the trust dialog in the app",
        "请把这个指纹和提供方显示的对比（或在主机上对 /etc/ssh/ssh_host_*_key.pub 运行"
        " ssh-keygen -lf），然后接受它：命令行用 --trust-new-host，应用里用信任对话框",
    ),
    # -- a model endpoint (Settings' Test) --------------------------------------------------
    "error.endpoint.no_url": ("no base URL is set for this endpoint", "这个端点没有设置基础 URL"),
    "error.endpoint.no_url_hint": (
        "enter the API's address, e.g. http://127.0.0.1:8000/v1",
        "请填写 API 的地址，例如 http://127.0.0.1:8000/v1",
    ),
    "error.endpoint.bad_url": ("{url} is not a web address", "{url} 不是网址"),
    "error.endpoint.bad_url_hint": (
        "it starts with http:// or https://, e.g. https://api.deepseek.com",
        "网址以 http:// 或 https:// 开头，例如 https://api.deepseek.com",
    ),
    "error.endpoint.no_name": ("the name {host} does not resolve", "无法解析名称 {host}"),
    "error.endpoint.no_name_hint": (
        "check the spelling of the base URL, and that this computer is online",
        "请检查基础 URL 的拼写，并确认这台电脑已联网",
    ),
    "error.endpoint.refused": (
        "nothing answers at {host}:{port} (the connection was refused)",
        "{host}:{port} 上没有服务应答（连接被拒绝）",
    ),
    "error.endpoint.refused_hint": (
        "start the model server, or correct the port in the base URL",
        "请启动模型服务，或改正基础 URL 里的端口",
    ),
    "error.endpoint.timeout": (
        "{host}:{port} gave no answer within {seconds:g} s",
        "{host}:{port} 在 {seconds:g} 秒内没有应答",
    ),
    "error.endpoint.timeout_hint": (
        "check that the server is up and reachable (a proxy or firewall may hold it)",
        "请确认服务在运行且能访问（代理或防火墙可能拦住了请求）",
    ),
    "error.endpoint.transport": (
        "talking to {host}:{port} failed: {kind}",
        "与 {host}:{port} 通信失败：{kind}",
    ),
    "error.endpoint.transport_hint": (
        "check the base URL; http and https are not interchangeable",
        "请检查基础 URL；http 和 https 不能混用",
    ),
    "error.endpoint.bad_key": (
        "{url} refused the API key (HTTP {status})",
        "{url} 拒绝了这个 API 密钥（HTTP {status}）",
    ),
    "error.endpoint.no_key": (
        "{url} wants an API key (HTTP {status})",
        "{url} 需要 API 密钥（HTTP {status}）",
    ),
    "error.endpoint.bad_key_hint": (
        "check the key: a copied space or an expired key is the usual cause",
        "请检查密钥：常见原因是复制时多了空格或密钥已过期",
    ),
    "error.endpoint.no_key_hint": (
        "paste the key the service gave you and press Test again",
        "请粘贴服务给你的密钥，再按“测试”",
    ),
    "error.endpoint.not_found": (
        "{url} does not exist (HTTP 404): this is not the API's base URL",
        "{url} 不存在（HTTP 404）：这不是 API 的基础 URL",
    ),
    "error.endpoint.not_found_hint": (
        "OpenAI-compatible APIs usually end in /v1, e.g. http://127.0.0.1:8000/v1",
        "兼容 OpenAI 的 API 通常以 /v1 结尾，例如 http://127.0.0.1:8000/v1",
    ),
    "error.endpoint.http": (
        "{url} answered HTTP {status}: {said}",
        "{url} 返回 HTTP {status}：{said}",
    ),
    "error.endpoint.http_hint": (
        "the server's own words are above; try again later or check the service",
        "上面是服务器自己的话；请稍后重试或检查服务",
    ),
    "error.endpoint.not_json": (
        "{url} answered, but not with JSON: it is not an OpenAI-compatible API",
        "{url} 有应答，但不是 JSON：它不是兼容 OpenAI 的 API",
    ),
    "error.endpoint.not_json_hint": (
        "check the base URL (a web page answered instead of the API)",
        "请检查基础 URL（应答的是网页，而不是 API）",
    ),
    "error.endpoint.no_list": (
        "{url} answered without a model list: it is not an OpenAI-compatible API",
        "{url} 有应答，但没有模型列表：它不是兼容 OpenAI 的 API",
    ),
    "error.endpoint.no_list_hint": (
        "check the base URL; it should be the API's, ending in /v1 for most servers",
        "请检查基础 URL；它应当是 API 的地址，多数服务以 /v1 结尾",
    ),
    # -- settings: config.toml and the Settings page ----------------------------------------------
    "error.config.invalid": (
        "{origin}: {setting} = {value} is not valid",
        "{origin}：{setting} = {value} 无效",
    ),
    "error.config.must_be": ("{setting} must be {allowed}", "{setting} 必须是{allowed}"),
    "error.config.one_of": ("one of {values}", "以下之一：{values}"),
    "error.config.kind_bounds": ("{kind}{bounds}", "{kind}{bounds}"),
    "error.config.type_int": ("int", "整数"),
    "error.config.type_float": ("float", "数值"),
    "error.config.type_str": ("str", "文本"),
    "error.config.type_bool": ("true or false", "true 或 false"),
    "error.config.settings": ("settings", "设置"),
    "error.config.command_line": ("command line", "命令行"),
    "error.config.unreadable": ("cannot read {path}: {reason}", "无法读取 {path}：{reason}"),
    "error.config.permissions": ("check the file's permissions", "请检查文件的权限"),
    "error.config.not_utf8": (
        "{path} is not UTF-8 text (byte 0x{byte:02x} at offset {offset})",
        "{path} 不是 UTF-8 文本（偏移 {offset} 处的字节 0x{byte:02x}）",
    ),
    "error.config.utf8_hint": (
        "save it as UTF-8, or move it aside to use the defaults",
        "请存为 UTF-8，或把它移走以使用默认值",
    ),
    "error.config.not_toml": (
        "{path} is not valid TOML: {reason}",
        "{path} 不是有效的 TOML：{reason}",
    ),
    "error.config.not_toml_hint": (
        "fix the line named above, or move the file aside to use the defaults",
        "请修改上面指出的那一行，或把文件移走以使用默认值",
    ),
    "error.config.unknown_section": (
        "{origin}: unknown section [{section}]",
        "{origin}：未知的部分 [{section}]",
    ),
    "error.config.known_sections": ("known sections: {sections}", "已知的部分：{sections}"),
    "error.config.unknown_key": ("{origin}: unknown key {setting}", "{origin}：未知的键 {setting}"),
    "error.config.known_keys": ("keys of [{section}]: {keys}", "[{section}] 的键：{keys}"),
    "error.config.not_table": (
        "{origin}: {section} must be a table ([{section}])",
        "{origin}：{section} 必须是一个表（[{section}]）",
    ),
    "error.config.unknown_setting": ("unknown setting {setting}", "未知的设置 {setting}"),
    "error.config.known_settings": ("known settings: {settings}", "已知的设置：{settings}"),
    "error.config.unwritable": ("cannot write {path}: {reason}", "无法写入 {path}：{reason}"),
    "error.config.folder_permissions": (
        "check the folder's permissions",
        "请检查文件夹的权限",
    ),
    "error.config.not_utf8_unwritten": (
        "{path} is not UTF-8 text; nothing was written",
        "{path} 不是 UTF-8 文本；没有写入任何内容",
    ),
    "error.config.would_break": (
        "writing {setting} would break {path}: {reason}",
        "写入 {setting} 会破坏 {path}：{reason}",
    ),
    "error.config.fix_first": ("fix it first", "请先修好它"),
    # -- providers ------------------------------------------------------------------------
    "error.provider.unknown": ("unknown provider {name}", "未知的提供方 {name}"),
    "error.provider.known": ("known providers: {names}", "已知的提供方：{names}"),
    "error.provider.known_not_loaded": (
        "{known}; not loaded: {why}",
        "{known}；未能载入：{why}",
    ),
    # -- a host as typed, and ~/.ssh/config -----------------------------------------------------
    "error.host.empty": ("an empty host name was given", "给出的主机名是空的"),
    "error.host.empty_hint": ("name a host or an ssh alias", "请写主机名或 ssh 别名"),
    "error.host.unclosed": ("bad host {host}: unclosed '['", "主机 {host} 有误：'[' 没有闭合"),
    "error.host.bad": ("bad host {host}", "主机 {host} 有误"),
    "error.host.v6_hint": ("write [address]:port", "请写成 [地址]:端口"),
    "error.host.no_name": ("bad host {host}: no host name", "主机 {host} 有误：没有主机名"),
    "error.host.form_hint": ("write [user@]host[:port]", "请写成 [用户@]主机[:端口]"),
    "error.host.bad_port": ("bad port in {host}", "{host} 里的端口有误"),
    "error.host.port_hint": (
        "a port is a number from 1 to 65535",
        "端口是 1 到 65535 之间的数字",
    ),
    "error.host.jump_deep": (
        "ProxyJump for {host} nests more than {most} hosts deep",
        "{host} 的 ProxyJump 嵌套超过 {most} 层",
    ),
    "error.host.jump_loop_hint": (
        "look for a ProxyJump loop in {path}",
        "请检查 {path} 里是否有 ProxyJump 循环",
    ),
    "error.host.config_port": (
        "Port {port} for host {host} in {path} is not a port number",
        "{path} 里主机 {host} 的 Port {port} 不是端口号",
    ),
    "error.host.jump_self": (
        "host {host} lists itself in its ProxyJump",
        "主机 {host} 的 ProxyJump 里有它自己",
    ),
    "error.host.jump_self_hint": (
        "fix the ProxyJump line for {host} in {path}",
        "请修改 {path} 里 {host} 的 ProxyJump 行",
    ),
    # -- hosts.toml (your own machines) ---------------------------------------------------------
    "error.hosts.about_name": (
        'an ~/.ssh/config alias or user@host:port, e.g. name = "gpu1"',
        '~/.ssh/config 里的别名或 user@host:port，例如 name = "gpu1"',
    ),
    "error.hosts.about_host": (
        'the address to connect to when the name is only a label, e.g. host = "10.0.0.5"',
        '名称只是标签时要连接的地址，例如 host = "10.0.0.5"',
    ),
    "error.hosts.about_user": (
        'who to log in as (with host), e.g. user = "root"',
        '以哪个用户登录（与 host 一起写），例如 user = "root"',
    ),
    "error.hosts.about_port": (
        "the SSH port (with host): a number from 1 to 65535",
        "SSH 端口（与 host 一起写）：1 到 65535 之间的数",
    ),
    "error.hosts.about_gpu": (
        'the GPU model, e.g. gpu = "A100-80G"',
        'GPU 型号，例如 gpu = "A100-80G"',
    ),
    "error.hosts.about_gpus": (
        "how many GPUs the host has: a whole number, 1 or more",
        "这台主机的 GPU 数量：1 或更大的整数",
    ),
    "error.hosts.about_fabric": (
        'what links it to the others, e.g. fabric = "ib-hdr-200"; "none" for one machine',
        '它与其他机器之间的网络，例如 fabric = "ib-hdr-200"；单机写 "none"',
    ),
    "error.hosts.about_price_per_gpu_hour": (
        "an amount of 0 or more, e.g. price_per_gpu_hour = 1.5 (0: free)",
        "0 或更大的金额，例如 price_per_gpu_hour = 1.5（0 表示免费）",
    ),
    "error.hosts.about_currency": (
        'three letters, e.g. currency = "CNY"',
        '三个字母，例如 currency = "CNY"',
    ),
    "error.hosts.invalid": (
        "{where}: {name} = {value} is not valid",
        "{where}：{name} = {value} 无效",
    ),
    "error.hosts.about": ("{name}: {about}", "{name}：{about}"),
    "error.hosts.unknown_key": ("{where}: unknown key {name}", "{where}：未知的键 {name}"),
    "error.hosts.entry_keys": ("a [[host]] entry has {names}", "[[host]] 条目的键有：{names}"),
    "error.hosts.needs": ("{where} needs a {name}", "{where} 需要 {name}"),
    "error.hosts.unreadable": ("{path} cannot be read: {reason}", "无法读取 {path}：{reason}"),
    "error.hosts.save_utf8": ("save it as UTF-8", "请存为 UTF-8"),
    "error.hosts.not_toml_hint": (
        "fix the line named above, or remove the file",
        "请修改上面指出的那一行，或删掉这个文件",
    ),
    "error.hosts.tables": (
        "hosts.toml holds [[host]] tables, one per machine (docs/configuration.md)",
        "hosts.toml 由 [[host]] 表组成，每台机器一个（见 docs/configuration.md）",
    ),
    "error.hosts.not_tables": (
        "{path}: host = {value} is not a list of [[host]] tables",
        "{path}：host = {value} 不是 [[host]] 表的列表",
    ),
    "error.hosts.not_tables_hint": (
        'write each machine as [[host]] with name = "..." and gpu = "..." below it',
        '每台机器写一个 [[host]]，下面写 name = "..." 和 gpu = "..."',
    ),
    "error.hosts.twice": (
        "{path}: [[host]] #{index}: {name} is listed twice",
        "{path}：[[host]] #{index}：{name} 列了两次",
    ),
    "error.hosts.twice_hint": ("list each machine once", "每台机器只列一次"),
    "error.hosts.entry": ("{path}: [[host]] #{index}", "{path}：[[host]] #{index}"),
    "error.hosts.named": ("{where} ({name})", "{where}（{name}）"),
    # -- a job that could not start ------------------------------------------------------------
    "error.job.no_output": ("    (no output)", "    （没有输出）"),
    "error.job.killed": ("was killed", "被终止了"),
    "error.job.exited": ("exited with code {code}", "以退出码 {code} 结束"),
    "error.job.setup_failed": (
        "setup failed on {node}: it {how}; its last lines:\n{lines}",
        "{node} 上的 setup 失败：它{how}；最后几行：\n{lines}",
    ),
    "error.job.setup_failed_hint": (
        "fix the spec's setup (try it with `xyclaw exec CLUSTER -- ...`) and launch again",
        "请修改作业规格的 setup（可用 `xyclaw exec CLUSTER -- ...` 试一试）后再启动",
    ),
    "error.job.needs_approval": (
        "launching this job rents a cluster first: {quote}",
        "启动这个作业要先租用集群：{quote}",
    ),
    "error.job.needs_approval_hint": (
        "approve that quote to rent the cluster and start the job (the window and `xyclaw "
        "launch` ask; --yes answers for you), or launch it on a cluster you already have",
        "批准这个报价即可租用集群并启动作业（窗口和 `xyclaw launch` 会先问你；--yes 代你回答），"
        "或在已有的集群上启动它",
    ),
    "error.job.no_spec": (
        'no job spec "{spec}": it is neither a file nor a bundled sample (the samples: {samples})',
        "没有作业规格“{spec}”：它既不是文件，也不是自带的示例（示例有：{samples}）",
    ),
    "error.job.no_spec_hint": (
        "give the path of a YAML spec (docs/jobs.md), or a sample's name, e.g. plain-python",
        "请给出 YAML 作业规格的路径（见 docs/jobs.md），或示例的名字，例如 plain-python",
    ),
    # -- issue 34 (b34): "why is it stuck" ----------------------------------------------------
    "error.job.no_replacement_ask": (
        "job {name} waits for no replacement now: there is nothing to replace and resume",
        "作业 {name} 目前没有等待中的替换：没有可更换并继续的节点",
    ),
    "error.job.no_replacement_ask_hint": (
        "a job asks only while its recovery waits for a new node (xyclaw jobs show JOB)",
        "只有作业恢复在等待新节点时才会询问（xyclaw jobs show JOB）",
    ),
    "error.job.why_fr_off": (
        "job {name} runs without the Flight Recorder (its spec's env sets "
        "XYCLAW_FLIGHT_RECORDER off), so its ranks cannot be asked for their dumps",
        "作业 {name} 未开启 Flight Recorder（其规格的 env 关闭了 XYCLAW_FLIGHT_RECORDER），"
        "无法请各进程写出记录",
    ),
    "error.job.why_fr_off_hint": (
        "read its logs (xyclaw logs JOB), or launch it again without XYCLAW_FLIGHT_RECORDER "
        'set to "0"',
        '请查看其日志（xyclaw logs 作业），或去掉 XYCLAW_FLIGHT_RECORDER 为 "0" 的设置后重新启动',
    ),
    "error.job.why_service": (
        "job {name} is a service: its ranks run no training collectives to ask about",
        "作业 {name} 是服务：其进程没有可询问的训练集合通信",
    ),
    "error.job.why_service_hint": (
        "read its logs (xyclaw logs JOB) or its latency on the Jobs page",
        "请查看其日志（xyclaw logs 作业）或作业页上的延迟",
    ),
    "error.job.why_nothing": (
        "job {name} is {state} and not followed by this XyClaw, and no hang of it was recorded",
        "作业 {name} 状态为 {state}，不由本 XyClaw 跟踪，也没有记录过它的卡住",
    ),
    "error.job.why_nothing_hint": (
        "ask while it runs and this XyClaw follows it (xyclaw attach JOB), or read its logs",
        "请在它运行且由本 XyClaw 跟踪时再问（xyclaw attach 作业），或查看其日志",
    ),
    # -- issue 37: cards an MCP client asked for ------------------------------------------------
    "error.approval.mcp_where": (
        "card {card} was asked for by an MCP client: it can be answered only by you, in the"
        " XyClaw window or in `xyclaw chat` at a terminal, not {face}",
        "卡片 {card} 是 MCP 客户端请求的：只能由你在 XyClaw 窗口中或在终端里的"
        " `xyclaw chat` 中回答，不能{face}",
    ),
    "error.approval.mcp_where_hint": (
        "open the XyClaw window, or run `xyclaw chat --conversation {cid}` in a terminal",
        "打开 XyClaw 窗口，或在终端中运行 `xyclaw chat --conversation {cid}`",
    ),
    "error.approval.not_through_mcp": (
        "card {card} cannot be answered through MCP: an MCP client may ask, never answer;"
        " only you can, in the XyClaw window or in `xyclaw chat` at a terminal",
        "卡片 {card} 不能通过 MCP 回答：MCP 客户端只能请求，不能回答；只有你可以在 XyClaw"
        " 窗口中或在终端里的 `xyclaw chat` 中回答",
    ),
    "error.approval.face.ask": (
        "with `xyclaw ask --approve`",
        "用 `xyclaw ask --approve` 回答",
    ),
    "error.approval.face.no_terminal": (
        "from a process without a terminal",
        "在没有终端的进程中回答",
    ),
    "error.mcp.card_waits": (
        "card {card} (asked for by this MCP client) still waits for the user's answer; ask"
        " again once it is answered",
        "卡片 {card}（此 MCP 客户端请求的）仍在等待用户回答；回答之后再请求",
    ),
    "error.mcp.card_waits_hint": (
        "call card_status with card {card} to see its fate",
        "用 card_status 查询卡片 {card} 的结果",
    ),
    "error.mcp.no_card": (
        "no card {card} was asked for by this MCP client",
        "此 MCP 客户端没有请求过卡片 {card}",
    ),
    "error.mcp.no_card_hint": (
        "give the card id that a rent, release, cancel or launch returned",
        "请给出 rent、release、cancel 或 launch 返回的卡片编号",
    ),
    # outputs: (issue 32, xyclaw.jobs.specoutputs)
    "error.spec.outputs_nodes": ("{value} is not head or all", "{value} 不是 head 或 all"),
    "error.spec.outputs_size": ("{value} is not a size", "{value} 不是大小"),
    "error.spec.outputs_size_allowed": (
        "a size such as 20 GB, 500 MiB or a number of bytes",
        "大小，例如 20 GB、500 MiB 或字节数",
    ),
    "error.spec.outputs_paths_allowed": (
        "absolute paths on the nodes (or under ~/), one or a list",
        "节点上的绝对路径（或 ~/ 下的路径），一个或一个列表",
    ),
    "error.spec.outputs_path": (
        "{text} is not an absolute path on the node",
        "{text} 不是节点上的绝对路径",
    ),
    # -- conversations, allowances and agent files (xyclaw.agent) ------------------------------
    "error.chat.no_conversation": ("there is no conversation {cid}", "没有对话 {cid}"),
    "error.chat.no_conversation_hint": (
        "`xyclaw chat` then /list",
        "运行 `xyclaw chat`，再输入 /list",
    ),
    "error.chat.empty": ("the message is empty", "消息是空的"),
    "error.chat.no_allowance": (
        "there is no allowance {id} in force",
        "没有生效中的许可 {id}",
    ),
    "error.chat.not_asking": ("{tool} is not a tool that asks", "{tool} 不是需要询问的工具"),
    "error.chat.bug_hint": ("this is a bug", "这是一个缺陷"),
    "error.chat.cancelled": ("Stopped: the turn was cancelled.", "已停止：本轮已取消。"),
    "error.chat.crashed": (
        "The agent failed unexpectedly ({kind}); see the log.",
        "智能体意外失败（{kind}）；请查看日志。",
    ),
    "error.agent_file.no_front": ("{source}: no YAML front matter", "{source}：没有 YAML 头部"),
    "error.agent_file.no_front_hint": (
        "start the file with a '---' line, the fields, and another '---' line",
        "文件开头写一行 '---'，然后是各字段，再写一行 '---'",
    ),
    "error.agent_file.bad_yaml": (
        "{source}: the front matter is not valid YAML ({why})",
        "{source}：头部不是有效的 YAML（{why}）",
    ),
    "error.agent_file.not_mapping": (
        "{source}: the front matter must be a mapping of fields",
        "{source}：头部必须是字段的映射",
    ),
    "error.agent_file.bad_name": (
        "{source}: name {name} is not valid",
        "{source}：名称 {name} 无效",
    ),
    "error.agent_file.name_hint": (
        "lower-case letters, digits, - and _, starting with a letter",
        "小写字母、数字、- 和 _，以字母开头",
    ),
    "error.agent_file.no_description": (
        "{source}: description is missing",
        "{source}：缺少 description",
    ),
    "error.agent_file.description_hint": ("one line saying what it does", "用一行说明它做什么"),
    "error.agent_file.tools_list": (
        "{source}: tools must be a list of tool names",
        "{source}：tools 必须是工具名的列表",
    ),
    "error.agent_file.unknown_tools": (
        "{source}: unknown tools {tools}",
        "{source}：未知的工具 {tools}",
    ),
    "error.agent_file.known_tools": ("known tools: {tools}", "已知的工具：{tools}"),
    "error.agent_file.model": (
        "{source}: model must be a model name",
        "{source}：model 必须是模型名",
    ),
    "error.agent_file.empty_prompt": (
        "{source}: the system prompt (the body) is empty",
        "{source}：系统提示（正文）是空的",
    ),
    "error.agent_file.no_supervisor": ("no supervisor agent", "没有 supervisor 智能体"),
    "error.agent_file.no_supervisor_hint": (
        "reinstall XyClaw: agents/supervisor.md",
        "请重新安装 XyClaw：agents/supervisor.md",
    ),
    # -- the agents' tools --------------------------------------------------------------------
    "error.tool.bad_period": ("{text} is not a period", "{text} 不是时间段"),
    "error.tool.period_hint": (
        "today, month, last_month, all, YYYY-MM or YYYY-MM-DD",
        "today、month、last_month、all、YYYY-MM 或 YYYY-MM-DD",
    ),
    "error.tool.create_needs": (
        "create_cluster needs a plan_id and option, or gpu and gpus",
        "create_cluster 需要 plan_id 和 option，或 gpu 和 gpus",
    ),
    "error.tool.create_needs_hint": (
        "plan first, then rent an option: 'rent option 1'",
        "先做规划，再租用一个选项：'rent option 1'",
    ),
    "error.tool.offer_changed": (
        "the offer changed since you approved it: {changes}",
        "你批准之后报价变了：{changes}",
    ),
    "error.tool.offer_changed_hint": (
        "nothing was rented; plan again to see the new price",
        "没有租用任何东西；请重新规划以查看新价格",
    ),
    "error.tool.no_ask_hint": (
        "a job asks only while its recovery waits for a new node (see job_status)",
        "作业只在恢复过程等待新节点时才会询问（见 job_status）",
    ),
    "error.tool.not_the_quote": (
        "that is not the replacement quote the job waits for",
        "这不是该作业在等待的替换报价",
    ),
    "error.tool.not_the_quote_hint": (
        "nothing was rented; the job's ask names its quote (its digest)",
        "没有租用任何东西；作业的请求里写明了它的报价（摘要）",
    ),
    "error.tool.bad_budget": (
        "a budget must be a positive amount, not {value}",
        "预算必须是正数，而不是 {value}",
    ),
    "error.tool.budget_hint": ("e.g. 750 (CNY)", "例如 750（CNY）"),
    "error.tool.not_live": ("cluster {name} is {state}", "集群 {name} 处于{state}状态"),
    "error.tool.not_live_hint": ("only live clusters bill", "只有在运行的集群才计费"),
    "error.mcp.no_tool": ("there is no tool {name}", "没有工具 {name}"),
    "error.mcp.tools_hint": ("list the tools: {names}", "可用的工具：{names}"),
    "error.mcp.bad_args": ("{name}: {problems}", "{name}：{problems}"),
    "error.mcp.schema_hint": ("see the tool's schema", "请查看该工具的参数格式"),
    # -- a model endpoint that failed (openai's errors, translated where they enter) ----------
    "error.llm.key_refused": (
        "the model endpoint {url} refused the API key",
        "模型端点 {url} 拒绝了 API 密钥",
    ),
    "error.llm.key_refused_hint": (
        "store the right key with `xyclaw model-key {preset}`",
        "请用 `xyclaw model-key {preset}` 存入正确的密钥",
    ),
    "error.llm.no_model": (
        "the model {model} does not exist at {url}",
        "{url} 上没有模型 {model}",
    ),
    "error.llm.no_model_hint": (
        "set [llm] model to one the server lists (GET /v1/models), or check [llm] base_url",
        "把 [llm] model 设为服务器列出的模型（GET /v1/models），或检查 [llm] base_url",
    ),
    "error.llm.timeout": (
        "{where} gave no answer within {seconds} s",
        "{where} 在 {seconds} 秒内没有回答",
    ),
    "error.llm.timeout_hint": (
        "try again, raise [llm] timeout_s, or pick a faster model",
        "请重试、调大 [llm] timeout_s，或换一个更快的模型",
    ),
    "error.llm.unreachable": (
        "cannot reach the model endpoint {url}",
        "无法连接模型端点 {url}",
    ),
    "error.llm.unreachable_hint": (
        "check [llm] base_url and that the server is running",
        "请检查 [llm] base_url，并确认服务器在运行",
    ),
    "error.llm.rate_limited": (
        "{where} is rate limiting (429) after {retries} retries",
        "{where} 在重试 {retries} 次后仍在限流（429）",
    ),
    "error.llm.rate_limited_hint": (
        "wait a minute, or raise [llm] max_retries; check the account's quota",
        "请等一分钟，或调大 [llm] max_retries；并检查账户配额",
    ),
    "error.llm.http": (
        "{where} answered HTTP {status}: {text}",
        "{where} 返回 HTTP {status}：{text}",
    ),
    "error.llm.http_hint": (
        "the server's own message is above; try again later",
        "上面是服务器自己的消息；请稍后重试",
    ),
    "error.llm.failed": ("{where} failed: {kind}", "{where} 失败：{kind}"),
    "error.llm.failed_hint": ("see the log", "请查看日志"),
    # -- secrets and the app's SSH key ---------------------------------------------------------
    "error.secrets.file_open": (
        "the secrets file {path} can be read by other users",
        "其他用户可以读取密钥文件 {path}",
    ),
    "error.secrets.chmod_hint": ("run: chmod 600 {path}", "请运行：chmod 600 {path}"),
    "error.secrets.file_unreadable": (
        "the secrets file {path} cannot be read",
        "无法读取密钥文件 {path}",
    ),
    "error.secrets.file_unreadable_hint": (
        "fix or remove it, then enter the secrets again in Settings",
        "请修复或删除它，然后在设置中重新输入密钥",
    ),
    "error.secrets.file_not_object": (
        "the secrets file {path} is not a JSON object",
        "密钥文件 {path} 不是 JSON 对象",
    ),
    "error.secrets.keyring_read": (
        "the OS keyring refused to read a secret",
        "系统密钥环拒绝读取密钥",
    ),
    "error.secrets.keyring_write": (
        "the OS keyring refused to store a secret",
        "系统密钥环拒绝保存密钥",
    ),
    "error.secrets.keyring_hint": (
        'unlock the keyring, or set [secrets] backend = "file" in config.toml',
        '请解锁密钥环，或在 config.toml 中设置 [secrets] backend = "file"',
    ),
    "error.secrets.no_keyring": ("no working OS keyring was found", "没有找到可用的系统密钥环"),
    "error.secrets.no_keyring_hint": (
        'install and unlock one, or set [secrets] backend = "file"',
        '请安装并解锁一个，或设置 [secrets] backend = "file"',
    ),
    "error.secrets.key_open": (
        "the SSH key {path} can be read by other users",
        "其他用户可以读取 SSH 密钥 {path}",
    ),
    "error.secrets.key_unreadable": (
        "the SSH key {path} cannot be read",
        "无法读取 SSH 密钥 {path}",
    ),
    "error.secrets.key_unreadable_hint": (
        "move it aside; XyClaw makes a new one (rented machines get it next time)",
        "请把它移开；XyClaw 会生成新的密钥（租用的机器下次会拿到它）",
    ),
    # -- a node: a local command and an address not yet known ---------------------------------
    "error.node.local_timeout": (
        "`{command}` ran longer than {seconds}s on this machine",
        "`{command}` 在本机运行超过 {seconds} 秒",
    ),
    "error.node.no_address": (
        "node {node} of cluster {cluster} has no SSH address yet",
        "集群 {cluster} 的节点 {node} 还没有 SSH 地址",
    ),
    "error.node.no_address_hint": (
        "wait until it is running (`xyclaw clusters`)",
        "请等它运行起来（`xyclaw clusters`）",
    ),
    # -- Slurm sites (d35b: xyclaw.providers.slurm, xyclaw.engine.slurm) --------------------------
    "error.slurm.about_name": (
        "the provider's name, one word (`xyclaw offers --provider NAME`)",
        "提供方的名字，一个词（`xyclaw offers --provider NAME`）",
    ),
    "error.slurm.about_login": (
        "the login node: an ~/.ssh/config alias or user@host:port",
        "登录节点：~/.ssh/config 里的别名或 user@host:port",
    ),
    "error.slurm.about_account": (
        "the Slurm account to charge (sbatch --account), optional",
        "记账用的 Slurm 账户（sbatch --account），可不写",
    ),
    "error.slurm.about_qos": (
        "the QoS to ask for (sbatch --qos), optional",
        "要申请的 QoS（sbatch --qos），可不写",
    ),
    "error.slurm.about_partitions": (
        "a list of partition names to use; all of them when absent",
        "要用的分区名列表；不写则全部使用",
    ),
    "error.slurm.about_gpu": (
        "the GPU model when the site's GRES does not name one, e.g. A100-80G",
        "站点的 GRES 没写型号时的 GPU 型号，例如 A100-80G",
    ),
    "error.slurm.about_price_per_gpu_hour": (
        "what one GPU-hour costs you; 0 (the default) for a lab's own GPUs",
        "每 GPU 小时的价格；实验室自有 GPU 写 0（默认）",
    ),
    "error.slurm.about_currency": ("three letters, e.g. CNY or USD", "三个字母，例如 CNY 或 USD"),
    "error.slurm.about_fabric": (
        "what links the nodes, e.g. ib-hdr-200 or roce-100 (eth-25 when absent)",
        "节点之间的互联，例如 ib-hdr-200 或 roce-100（不写则为 eth-25）",
    ),
    "error.slurm.about_login_shell": (
        "run Slurm's commands in a login shell (true by default: site modules load)",
        "在登录 shell 里运行 Slurm 命令（默认 true：会加载站点的模块）",
    ),
    "error.slurm.value": ("{where}: {key} = {value}", "{where}：{key} = {value} 无效"),
    "error.slurm.about": ("{key}: {about}", "{key}：{about}"),
    "error.slurm.unknown_key": ("{where}: unknown key {key}", "{where}：未知的键 {key}"),
    "error.slurm.keys": ("a [[slurm]] table takes: {keys}", "[[slurm]] 表可用的键：{keys}"),
    "error.slurm.missing": ("{where}: {key} is missing", "{where}：缺少 {key}"),
    "error.slurm.fabric": ("{where}: fabric: {reason}", "{where}：fabric：{reason}"),
    "error.slurm.entry": ("{path}, [[slurm]] #{index}", "{path}，[[slurm]] #{index}"),
    "error.slurm.not_tables": ("{path}: slurm = {value}", "{path}：slurm = {value} 无效"),
    "error.slurm.not_tables_hint": (
        "write each Slurm cluster as a [[slurm]] table",
        "每个 Slurm 集群写成一个 [[slurm]] 表",
    ),
    "error.slurm.twice": (
        "{where}: the name {name} is used twice",
        "{where}：名字 {name} 用了两次",
    ),
    "error.slurm.twice_hint": (
        "give each Slurm cluster its own name",
        "给每个 Slurm 集群起不同的名字",
    ),
    "error.slurm.unreadable": ("{path}: {reason}", "{path}：{reason}"),
    "error.slurm.sites_not_loaded": (
        "the [[slurm]] tables of hosts.toml: {why} ({hint})",
        "hosts.toml 的 [[slurm]] 表：{why}（{hint}）",
    ),
    "error.slurm.unreadable_hint": (
        "fix hosts.toml (docs/slurm.md)",
        "请修正 hosts.toml（见 docs/slurm.md）",
    ),
    "error.slurm.refused": (
        "Slurm at {site} refused `{command}`: {answer}",
        "{site} 的 Slurm 拒绝了 `{command}`：{answer}",
    ),
    "error.slurm.exit_code": ("exit code {code}", "退出码 {code}"),
    "error.slurm.refused_hint": (
        "this is Slurm's own answer; check the spec, the partition or your limits",
        "这是 Slurm 自己的回答；请检查作业说明、分区或你的配额",
    ),
    "error.slurm.not_rented": (
        "{name} is a Slurm cluster: nodes are not rented there",
        "{name} 是 Slurm 集群：那里的节点不用租",
    ),
    "error.slurm.not_rented_hint": (
        "submit the job to it: xyclaw slurm submit --site {name} SPEC",
        "请把作业提交给它：xyclaw slurm submit --site {name} SPEC",
    ),
    "error.slurm.nothing_rented": (
        "{name} is a Slurm cluster: there is nothing rented to release",
        "{name} 是 Slurm 集群：没有租来的东西可释放",
    ),
    "error.slurm.nothing_rented_hint": (
        "cancel the job instead (scancel through an approval)",
        "请改为取消作业（经审批后 scancel）",
    ),
    "error.slurm.card_cancel": (
        "this card does not cancel a job on {site}",
        "这张卡片不是取消 {site} 上作业的",
    ),
    "error.slurm.card_submit": (
        "this card does not submit to {site}",
        "这张卡片不是向 {site} 提交作业的",
    ),
    "error.slurm.card_probe": ("this card does not probe {site}", "这张卡片不是探测 {site} 的"),
    "error.slurm.ask_again": ("ask again", "请重新请求"),
    "error.slurm.no_partition": (
        "{site} has no partition {partition}",
        "{site} 没有分区 {partition}",
    ),
    "error.slurm.partitions": ("partitions: {names}", "分区：{names}"),
    "error.slurm.none_up": (
        "{site} has no partition that is up",
        "{site} 没有正常运行的分区",
    ),
    "error.slurm.none_up_hint": ("ask the site's admins", "请联系站点管理员"),
    "error.slurm.probe_slow": (
        "the probe job {job} did not end within {seconds} s at {site}",
        "{site} 上的探测作业 {job} 在 {seconds} 秒内没有结束",
    ),
    "error.slurm.probe_slow_hint": (
        "the partition may be busy: probe again later or name a freer partition",
        "分区可能很忙：请稍后再探测，或指定一个较空的分区",
    ),
    "error.slurm.state_damaged": ("{path} is damaged", "{path} 已损坏"),
    "error.slurm.state_damaged_hint": (
        "move it away and probe the site again",
        "请把它移走，再探测一次站点",
    ),
    # -- own hosts and the memory provider (d35b) -------------------------------------------
    "error.hosts.name_port": (
        "{where}: name = {value} has port {port}",
        "{where}：name = {value} 里的端口 {port} 无效",
    ),
    "error.hosts.name_port_hint": (
        "a port is a number from 1 to 65535: user@host:port",
        "端口是 1 到 65535 之间的数字：user@host:port",
    ),
    "error.hosts.fabric": ("{where}: fabric: {reason}", "{where}：fabric：{reason}"),
    "error.hosts.price": (
        "{where}: price_per_gpu_hour: {reason}",
        "{where}：price_per_gpu_hour：{reason}",
    ),
    "error.hosts.not_fabric": ("{value} is not a fabric name", "{value} 不是互联名称"),
    "error.hosts.user_port_alone": (
        "{where}: user and port go with host",
        "{where}：user 和 port 要和 host 一起写",
    ),
    "error.hosts.user_port_alone_hint": (
        'add host = "ADDRESS", or write name = "user@host:port"',
        '请加上 host = "ADDRESS"，或写成 name = "user@host:port"',
    ),
    "error.hosts.state_damaged_hint": (
        "remove it; your hosts are not affected",
        "请删除它；你的主机不受影响",
    ),
    "error.hosts.none_free": (
        "no free own hosts with {gpu} for {count} GPUs",
        "没有空闲的自有主机带 {gpu}，凑不出 {count} 张 GPU",
    ),
    "error.hosts.list_them": ("list your machines in {path}", "请在 {path} 里列出你的机器"),
    "error.hosts.too_few": (
        "only {free} free own hosts with {per_node} x {gpu}; {needed} needed",
        "带 {per_node} x {gpu} 的空闲自有主机只有 {free} 台；需要 {needed} 台",
    ),
    "error.hosts.too_few_hint": (
        "add hosts to {path} or ask for fewer GPUs",
        "请在 {path} 里加主机，或要更少的 GPU",
    ),
    "error.hosts.no_cluster": ("no own-hosts cluster {id}", "没有自有主机集群 {id}"),
    "error.memory.no_gpu": ("no {gpu} here", "这里没有 {gpu}"),
    "error.memory.no_gpu_hint": ("ask for another GPU model", "请换一种 GPU 型号"),
    # -- commands on a node (d35b: xyclaw.jobs.node_commands) --------------------------------
    "error.node.job_id": (
        "job id {job} cannot name a folder on the node",
        "作业编号 {job} 不能用作节点上的文件夹名",
    ),
    "error.node.job_id_hint": (
        "use letters, digits, '.', '_' and '-' (at most 128), starting with a letter or digit",
        "请用字母、数字、'.'、'_' 和 '-'（最多 128 个），以字母或数字开头",
    ),
    "error.node.attempt": ("attempt {attempt} is not valid", "第 {attempt} 次尝试无效"),
    "error.node.attempt_hint": ("attempts count from 1", "尝试从 1 开始计数"),
    "error.node.rank": ("node rank {rank} is not valid", "节点序号 {rank} 无效"),
    "error.node.rank_hint": ("ranks count from 0", "序号从 0 开始计数"),
    "error.node.kind": ("unknown task kind {kind}", "未知的任务类型 {kind}"),
    "error.node.kind_hint": ("use 'run' or 'setup'", "请用 'run' 或 'setup'"),
    "error.node.base": (
        "job folder base {base} must be absolute or start with ~/",
        "作业文件夹根目录 {base} 必须是绝对路径或以 ~/ 开头",
    ),
    "error.node.base_hint": (
        "for example ~/.xyclaw/jobs or /shared/xyclaw/jobs",
        "例如 ~/.xyclaw/jobs 或 /shared/xyclaw/jobs",
    ),
    "error.node.empty_command": ("the command to launch is empty", "要启动的命令是空的"),
    "error.node.empty_command_hint": ("give the job a run command", "请给作业一个运行命令"),
    "error.node.env_name": (
        "environment variable name {name} is not valid",
        "环境变量名 {name} 无效",
    ),
    "error.node.env_name_hint": (
        "use letters, digits and underscores, not starting with a digit",
        "请用字母、数字和下划线，不以数字开头",
    ),
    "error.node.poll": (
        "poll interval {seconds} s is out of range",
        "轮询间隔 {seconds} 秒超出范围",
    ),
    "error.node.poll_hint": ("use 0.01 to 60 s", "请用 0.01 到 60 秒"),
    "error.node.lines": ("{lines} lines is out of range", "{lines} 行超出范围"),
    "error.node.lines_hint": ("ask for 1 to 10000 lines", "请要 1 到 10000 行"),
    "error.node.grace": (
        "grace period {seconds} s is out of range",
        "宽限期 {seconds} 秒超出范围",
    ),
    "error.node.grace_hint": ("use 0 to 3600 s", "请用 0 到 3600 秒"),
    "error.node.no_checkpoint_dir": ("the checkpoint folder is empty", "检查点文件夹是空的"),
    "error.node.no_checkpoint_dir_hint": (
        "set checkpoint_dir in the spec",
        "请在作业说明里设置 checkpoint_dir",
    ),
    "error.node.offset": ("log offset {offset} is negative", "日志偏移 {offset} 是负数"),
    "error.node.offset_hint": ("offsets count bytes from 0", "偏移按字节从 0 开始计数"),
    "error.node.limit": ("read limit {limit} is out of range", "读取上限 {limit} 超出范围"),
    "error.node.limit_hint": ("use 1 byte to 64 MiB", "请用 1 字节到 64 MiB"),
    # -- a history opened to review (d35b: xyclaw.store.replay) -------------------------------
    "error.replay.no_database": (
        "there is no history database at {path}",
        "{path} 没有历史数据库",
    ),
    "error.replay.no_database_hint": (
        "it is made on the first run of XyClaw; check the data folder in Settings",
        "它在 XyClaw 第一次运行时生成；请在设置里检查数据文件夹",
    ),
    "error.replay.newer": (
        "the database {path} has schema version {version}, newer than this XyClaw knows ({latest})",
        "数据库 {path} 的结构版本是 {version}，比此 XyClaw 认识的（{latest}）更新",
    ),
    "error.replay.newer_hint": ("upgrade XyClaw to review it", "请升级 XyClaw 再查看"),
    "error.replay.read_only": ("this history is open for reading only", "此历史记录以只读方式打开"),
    "error.replay.nothing_changed": ("nothing was changed", "没有改动任何内容"),
    # -- tuning, reports, the job runner, telemetry options (d35b) ---------------------------
    "error.tune.at_least_one": (
        "{name} must be at least 1, not {value}",
        "{name} 至少为 1，不能是 {value}",
    ),
    "error.tune.fabric_hint": (
        "e.g. --fabric ib-hdr-200 or roce-100",
        "例如 --fabric ib-hdr-200 或 roce-100",
    ),
    "error.report.period_order": (
        "a period's end must come after its start",
        "时段的结束必须在开始之后",
    ),
    "error.report.period_unknown": ("unknown period {period}", "未知的时段 {period}"),
    "error.report.periods": ("one of: {names}", "可选：{names}"),
    "error.runner.crashed": ("the job runner crashed: {what}", "作业运行器崩溃了：{what}"),
    "error.runner.no_cluster": ("job {name} has no cluster", "作业 {name} 没有集群"),
    "error.runner.no_cluster_hint": ("launch it with --cluster", "请用 --cluster 启动它"),
    "error.runner.node_gone": (
        "node {node} of the job is no longer in the history",
        "作业的节点 {node} 已不在历史记录里",
    ),
    "error.runner.cluster_state": ("cluster {name} is {state}", "集群 {name} 的状态是 {state}"),
    "error.runner.cluster_state_hint": (
        "launch the job on a live cluster (`xyclaw clusters`)",
        "请在运行中的集群上启动作业（`xyclaw clusters`）",
    ),
    "error.runner.too_few_nodes": (
        "cluster {name} has {count} running node(s); the job needs {want}",
        "集群 {name} 有 {count} 个运行中的节点；作业需要 {want} 个",
    ),
    "error.runner.too_few_nodes_hint": (
        "rent a larger cluster, or lower resources.nodes in the spec",
        "请租更大的集群，或调低作业说明里的 resources.nodes",
    ),
}
