"""What the parsers of command output say when pasted or fetched text is not what they read
(issue 35, a35): ``xyclaw diagnose``, ``xyclaw nccl analyze`` and the window's paste box show
these in the ``[gui] language``. Quoted lines of the text itself stay as they were."""

from __future__ import annotations

TEXTS: dict[str, tuple[str, str]] = {
    # xyclaw.parsers.guard: whatever slips past a parser's own checks
    "error.parse.unreadable": (
        "{what}: unreadable input ({error})",
        "{what}：无法读取的输入（{error}）",
    ),
    "error.parse.what.ibstat": ("ibstat", "ibstat"),
    "error.parse.what.ibv_devinfo": ("ibv_devinfo", "ibv_devinfo"),
    "error.parse.what.show_gids": ("show_gids", "show_gids"),
    "error.parse.what.gid_sysfs": ("GID sysfs", "GID sysfs"),
    "error.parse.what.nccl_tests": ("nccl-tests output", "nccl-tests 输出"),
    "error.parse.what.nccl_tests_json": ("nccl-tests JSON", "nccl-tests JSON"),
    "error.parse.what.nvsmi_list": ("nvidia-smi -L", "nvidia-smi -L"),
    "error.parse.what.nvsmi_query": ("nvidia-smi -q", "nvidia-smi -q"),
    "error.parse.what.nvsmi_topo": ("nvidia-smi topo -m", "nvidia-smi topo -m"),
    "error.parse.what.nvsmi_table": ("nvidia-smi table", "nvidia-smi 表格"),
    "error.parse.what.proc_net_dev": ("/proc/net/dev", "/proc/net/dev"),
    "error.parse.what.ib_counters": ("InfiniBand counters", "InfiniBand 计数器"),
    "error.parse.what.flight_recorder": ("Flight Recorder dump", "Flight Recorder 转储"),
    # what to pass instead
    "error.parse.hint.pass": ("pass the output of `{command}`", "请传入 `{command}` 的输出"),
    "error.parse.hint.pass_short": ("pass `{command}` output", "请传入 `{command}` 的输出"),
    "error.parse.hint.pass_unchanged": (
        "pass the output of `{command}` unchanged",
        "请原样传入 `{command}` 的输出",
    ),
    "error.parse.hint.ibv_devinfo_v": (
        "pass the output of `ibv_devinfo` (or `-v`)",
        "请传入 `ibv_devinfo`（或 `-v`）的输出",
    ),
    "error.parse.hint.ibv_devinfo": (
        "pass the output of `ibv_devinfo` (or `ibv_devinfo -v`)",
        "请传入 `ibv_devinfo`（或 `ibv_devinfo -v`）的输出",
    ),
    "error.parse.hint.ibv_devinfo_short": ("pass `ibv_devinfo`", "请传入 `ibv_devinfo` 的输出"),
    "error.parse.hint.gid_sysfs": (
        "pass `grep -H . /sys/class/infiniband/*/ports/*/gids/*` and gid_attrs",
        "请传入 `grep -H . /sys/class/infiniband/*/ports/*/gids/*` 的输出和 gid_attrs",
    ),
    "error.parse.hint.gid_sysfs_lines": (
        "expected '/sys/class/infiniband/DEV/ports/N/gids/I:GID' style lines",
        "应为 '/sys/class/infiniband/DEV/ports/N/gids/I:GID' 形式的行",
    ),
    "error.parse.hint.ib_counters": (
        "pass `grep -H . /sys/class/infiniband/*/ports/*/counters/*`",
        "请传入 `grep -H . /sys/class/infiniband/*/ports/*/counters/*` 的输出",
    ),
    "error.parse.hint.ib_counter_lines": (
        "expected '/sys/class/infiniband/DEV/ports/N/counters/NAME:VALUE' lines",
        "应为 '/sys/class/infiniband/DEV/ports/N/counters/NAME:VALUE' 形式的行",
    ),
    "error.parse.hint.ib_both_counters": (
        "read both data counters of every port",
        "请读取每个端口的两个数据计数器",
    ),
    "error.parse.hint.proc_net_dev_lines": (
        "expected 'IFACE: 16 counters' lines as in `cat /proc/net/dev`",
        "应为 `cat /proc/net/dev` 中那样的 'IFACE: 16 个计数器' 行",
    ),
    "error.parse.hint.nccl_stdout": (
        "pass the stdout of an nccl-tests binary",
        "请传入 nccl-tests 程序的标准输出",
    ),
    "error.parse.hint.nccl_stdout_long": (
        "pass the stdout of an nccl-tests binary such as all_reduce_perf "
        "(with -J, pass the JSON file to the JSON reader)",
        "请传入 nccl-tests 程序（如 all_reduce_perf）的标准输出"
        "（用了 -J 时，把 JSON 文件交给 JSON 读取）",
    ),
    "error.parse.hint.nccl_json": (
        "pass the file written by an nccl-tests binary's -J option",
        "请传入 nccl-tests 程序的 -J 选项写出的文件",
    ),
    "error.parse.hint.nccl_json_again": (
        "the file may be damaged; run the test again with -J",
        "文件可能已损坏；请用 -J 重新运行测试",
    ),
    "error.parse.hint.nvsmi_plain": (
        "pass the output of plain `nvidia-smi`",
        "请传入不带参数的 `nvidia-smi` 的输出",
    ),
    "error.parse.hint.nvsmi_plain_whole": (
        "pass the whole output of plain `nvidia-smi`, from its banner line on",
        "请传入不带参数的 `nvidia-smi` 的完整输出，从它的标题行开始",
    ),
    "error.parse.hint.nvsmi_csv": (
        "run nvidia-smi --query-gpu=FIELDS --format=csv and pass its output; "
        "give the field list when the output has no header",
        "请运行 nvidia-smi --query-gpu=FIELDS --format=csv 并传入其输出；"
        "输出没有表头时请给出字段列表",
    ),
    "error.parse.hint.nvsmi_list_lines": (
        "expected 'GPU N: NAME (UUID: GPU-...)' lines",
        "应为 'GPU N: NAME (UUID: GPU-...)' 形式的行",
    ),
    "error.parse.hint.topo_garbled": (
        "the output looks cut or garbled; run `nvidia-smi topo -m` again",
        "输出看起来被截断或已损坏；请重新运行 `nvidia-smi topo -m`",
    ),
    "error.parse.hint.topo_cut": (
        "the output looks cut; run `nvidia-smi topo -m` again",
        "输出看起来被截断；请重新运行 `nvidia-smi topo -m`",
    ),
    "error.parse.hint.flight_recorder": (
        "pass the JSON form of a Flight Recorder dump (torch._C._distributed_c10d."
        "_dump_fr_trace_json(), or the pickle turned into JSON on the node that wrote it); "
        "XyClaw never opens the pickle form",
        "请传入 Flight Recorder 转储的 JSON 形式（torch._C._distributed_c10d."
        "_dump_fr_trace_json()，或在写出它的节点上把 pickle 转成 JSON）；"
        "XyClaw 从不打开 pickle 形式",
    ),
    "error.parse.hint.pytorch_24": (
        "upgrade PyTorch on the cluster to 2.4 or newer",
        "请把集群上的 PyTorch 升级到 2.4 或更新版本",
    ),
    # the messages
    "error.parse.ibstat_before_ca": (
        "not ibstat output: {line} before any \"CA 'name'\" line",
        "不是 ibstat 的输出：在任何 \"CA 'name'\" 行之前出现了 {line}",
    ),
    "error.parse.ibstat_line": (
        "ibstat: unreadable line {line} in CA {name}",
        "ibstat：CA {name} 中有无法读取的行 {line}",
    ),
    "error.parse.ibstat_no_ca": (
        "not ibstat output: no \"CA 'name'\" line",
        "不是 ibstat 的输出：没有 \"CA 'name'\" 行",
    ),
    "error.parse.devinfo_before_hca": (
        "not ibv_devinfo output: {line} before any 'hca_id:' line",
        "不是 ibv_devinfo 的输出：在任何 'hca_id:' 行之前出现了 {line}",
    ),
    "error.parse.devinfo_no_hca": (
        "not ibv_devinfo output: no 'hca_id:' line",
        "不是 ibv_devinfo 的输出：没有 'hca_id:' 行",
    ),
    "error.parse.gids_row": ("show_gids: unreadable row {line}", "show_gids：无法读取的行 {line}"),
    "error.parse.gids_none": (
        "not show_gids output: no 'DEV PORT INDEX GID' header or rows",
        "不是 show_gids 的输出：没有 'DEV PORT INDEX GID' 表头或数据行",
    ),
    "error.parse.gid_sysfs_line": (
        "GID sysfs: unreadable line {line}",
        "GID sysfs：无法读取的行 {line}",
    ),
    "error.parse.nccl_none": (
        "not nccl-tests output: no '# nThread ...' header, no 'size count type ...' "
        "column header and no result rows",
        "不是 nccl-tests 的输出：没有 `# nThread ...` 表头、没有 `size count type ...` 列标题，"
        "也没有结果行",
    ),
    "error.parse.nccl_json_deep": (
        "not nccl-tests JSON output: nested too deeply to read",
        "不是 nccl-tests 的 JSON 输出：嵌套太深，无法读取",
    ),
    "error.parse.nccl_json_bad": (
        "not nccl-tests JSON output: {error} at line {lineno}",
        "不是 nccl-tests 的 JSON 输出：第 {lineno} 行出错（{error}）",
    ),
    "error.parse.nccl_json_no_results": (
        "not nccl-tests JSON output: no top-level 'results' list",
        "不是 nccl-tests 的 JSON 输出：没有顶层的 'results' 列表",
    ),
    "error.parse.nccl_json_result": (
        "nccl-tests JSON: unreadable result: {error}",
        "nccl-tests JSON：无法读取的结果：{error}",
    ),
    "error.parse.netdev_line": (
        "/proc/net/dev: unreadable line {line}",
        "/proc/net/dev：无法读取的行 {line}",
    ),
    "error.parse.netdev_number": (
        "/proc/net/dev: non-numeric counter in {line}",
        "/proc/net/dev：{line} 中有非数字的计数器",
    ),
    "error.parse.netdev_none": (
        "not /proc/net/dev content: no interface lines",
        "不是 /proc/net/dev 的内容：没有网卡行",
    ),
    "error.parse.ib_line": (
        "InfiniBand counters: unreadable line {line}",
        "InfiniBand 计数器：无法读取的行 {line}",
    ),
    "error.parse.ib_number": (
        "InfiniBand counters: {name} is not a number in {line}",
        "InfiniBand 计数器：{line} 中的 {name} 不是数字",
    ),
    "error.parse.ib_data": (
        "InfiniBand counters: {dev} port {port} lacks port_xmit_data/port_rcv_data",
        "InfiniBand 计数器：{dev} 端口 {port} 缺少 port_xmit_data/port_rcv_data",
    ),
    "error.parse.nvsmi_csv": (
        "not nvidia-smi --query-gpu CSV output ({count} unreadable lines; last: {last})",
        "不是 nvidia-smi --query-gpu 的 CSV 输出（{count} 行无法读取；最后一处：{last}）",
    ),
    "error.parse.nvsmi_list_line": (
        "nvidia-smi -L: unreadable line {line}",
        "nvidia-smi -L：无法读取的行 {line}",
    ),
    "error.parse.nvsmi_list_none": (
        "not nvidia-smi -L output: no 'GPU N: NAME (UUID: ...)' line",
        "不是 nvidia-smi -L 的输出：没有 'GPU N: NAME (UUID: ...)' 行",
    ),
    "error.parse.nvsmi_query_none": (
        "not nvidia-smi -q output: no '==NVSMI LOG==' banner and no 'GPU 00000000:..' section",
        "不是 nvidia-smi -q 的输出：没有 '==NVSMI LOG==' 标题，也没有 'GPU 00000000:..' 段",
    ),
    "error.parse.topo_no_header": (
        "not nvidia-smi topo -m output: no column header with GPU0",
        "不是 nvidia-smi topo -m 的输出：没有含 GPU0 的列标题",
    ),
    "error.parse.topo_row_label": (
        "nvidia-smi topo -m: row {label} is not one of the columns {columns}",
        "nvidia-smi topo -m：行 {label} 不是任何一列（{columns}）",
    ),
    "error.parse.topo_row_short": (
        "nvidia-smi topo -m: row {label} has {cells} cells, expected {expected}",
        "nvidia-smi topo -m：行 {label} 有 {cells} 个单元格，应为 {expected} 个",
    ),
    "error.parse.topo_cell": (
        "nvidia-smi topo -m: row {label}, column {dev}: {cell} is not a "
        "link kind (X, NV#, PIX, PXB, PHB, NODE, SYS)",
        "nvidia-smi topo -m：行 {label}、列 {dev}：{cell} 不是一种连接类型"
        "（X、NV#、PIX、PXB、PHB、NODE、SYS）",
    ),
    "error.parse.topo_no_rows": (
        "nvidia-smi topo -m: a header but no matrix rows",
        "nvidia-smi topo -m：有表头但没有矩阵行",
    ),
    "error.parse.table_none": (
        "not the plain nvidia-smi table: no GPU box (a line like "
        "'|   0  NVIDIA H100 ...  On  |   00000000:18:00.0 Off |   0 |')",
        "不是不带参数的 nvidia-smi 表格：没有 GPU 框（形如 "
        "'|   0  NVIDIA H100 ...  On  |   00000000:18:00.0 Off |   0 |' 的行）",
    ),
    "error.parse.fr_pickle": (
        "Flight Recorder dump of rank {rank} is a pickle: not opened "
        "(unpickling a file from a rented host would run its code here)",
        "rank {rank} 的 Flight Recorder 转储是 pickle 格式：没有打开"
        "（反序列化租用主机上的文件会在本机运行它的代码）",
    ),
    "error.parse.fr_not_json": (
        "Flight Recorder dump of rank {rank}: not JSON ({error})",
        "rank {rank} 的 Flight Recorder 转储不是 JSON（{error}）",
    ),
    "error.parse.fr_no_entries": (
        "Flight Recorder dump of rank {rank}: no 'version' and 'entries'",
        "rank {rank} 的 Flight Recorder 转储没有 'version' 和 'entries'",
    ),
    "error.parse.fr_old": (
        "Flight Recorder dump of rank {rank} is version {version}: older than PyTorch "
        "2.4's format, not read",
        "rank {rank} 的 Flight Recorder 转储版本为 {version}：早于 PyTorch 2.4 的格式，没有读取",
    ),
}
