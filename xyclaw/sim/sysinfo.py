"""System commands of a simulated node: hostname, uname, free, df, uptime, dmesg, ps, pkill."""

from __future__ import annotations

import time

from xyclaw.sim.context import Command, Ctx
from xyclaw.sim.coreutils import human_size, parse_flags
from xyclaw.sim.kernel import LogLine
from xyclaw.sim.procs import SIGTERM, Proc, parse_signal
from xyclaw.sim.specs import KERNEL_RELEASE

_GIB = 1024**3


def hostname(ctx: Ctx) -> int:
    machine = ctx.machine
    if "-I" in ctx.args or "--all-ip-addresses" in ctx.args:
        ips = [i.ipv4 for i in machine.net.ifaces if i.kind != "loopback"]
        ctx.out(" ".join(ips) + " \n")
    elif "-i" in ctx.args or "--ip-address" in ctx.args:
        ctx.out(machine.net.ifaces[1].ipv4 + "\n")
    elif ctx.args and not ctx.args[0].startswith("-"):
        ctx.err("hostname: you must be root to change the host name\n")
        return 1
    else:
        name = machine.hostname
        ctx.out((name.split(".")[0] if "-s" in ctx.args else name) + "\n")
    return 0


def uname(ctx: Ctx) -> int:
    flags, _, _ = parse_flags(ctx.args)
    fields = {
        "s": "Linux",
        "n": ctx.machine.hostname,
        "r": KERNEL_RELEASE,
        "v": "#132-Ubuntu SMP Thu Aug 29 13:45:52 UTC 2024",
        "m": "x86_64",
        "p": "x86_64",
        "i": "x86_64",
        "o": "GNU/Linux",
    }
    if "a" in flags or "all" in flags:
        chosen = "snrvmpio"
    else:
        chosen = "".join(f for f in "snrvmpio" if f in flags) or "s"
    ctx.out(" ".join(fields[f] for f in chosen) + "\n")
    return 0


def nproc(ctx: Ctx) -> int:
    count = ctx.machine.shape.cpus
    if "--all" not in ctx.args:
        omp = ctx.env.get("OMP_NUM_THREADS", "").split(",")[0]
        if omp.isdigit() and int(omp) > 0:
            count = int(omp)
    ctx.out(f"{count}\n")
    return 0


def free(ctx: Ctx) -> int:
    flags, _, _ = parse_flags(ctx.args)
    total, used, shared, cache = ctx.machine.memory()
    free_b = max(0, total - used - cache)
    available = free_b + int(cache * 0.9)
    values = [total, used, free_b, shared, cache, available]
    if "b" in flags or "bytes" in flags:
        scale = 1
    elif "m" in flags or "mebi" in flags:
        scale = 1024**2
    elif "g" in flags or "gibi" in flags:
        scale = _GIB
    else:
        scale = 1024

    def show(value: int) -> str:
        if "h" in flags or "human" in flags:
            return _human_free(value)
        return str(value // scale)

    headers = ["total", "used", "free", "shared", "buff/cache", "available"]
    ctx.out(" " * 7 + "".join(f" {h:>11}" for h in headers) + "\n")
    ctx.out(f"{'Mem:':<7}" + "".join(f" {show(v):>11}" for v in values) + "\n")
    ctx.out(f"{'Swap:':<7}" + "".join(f" {show(0):>11}" for _ in range(3)) + "\n")
    return 0


def _human_free(value: int) -> str:
    size = float(value)
    for unit in ("B", "Ki", "Mi", "Gi", "Ti", "Pi"):
        if size < 1024 or unit == "Pi":
            return f"{size:.0f}{unit}" if unit == "B" else f"{size:.1f}{unit}"
        size /= 1024
    return f"{size:.1f}Pi"


def df(ctx: Ctx) -> int:
    flags, values, paths = parse_flags(ctx.args, with_value="Bt")
    machine = ctx.machine
    mounts = machine.mounts()
    chosen = mounts
    if paths:
        chosen = []
        for target in paths:
            vpath = ctx.path(target)
            if not machine.fs.exists(vpath):
                ctx.err(f"df: {target}: No such file or directory\n")
                return 1
            best = max(
                (
                    m
                    for m in mounts
                    if vpath == m.mount or vpath.startswith(m.mount.rstrip("/") + "/")
                ),
                key=lambda m: len(m.mount),
            )
            chosen.append(best)
    block = values.get("B", "")
    human = "h" in flags or "human-readable" in flags
    if block in ("1", "1B"):
        unit, header = 1, "1B-blocks"
    elif human:
        unit, header = 1, "Size"
    elif block.upper() in ("M", "1M"):
        unit, header = 1024**2, "1M-blocks"
    elif block.upper() in ("G", "1G"):
        unit, header = _GIB, "1G-blocks"
    else:
        unit, header = 1024, "1K-blocks"
    show_type = "T" in flags or "print-type" in flags
    rows = [
        [
            "Filesystem",
            *(["Type"] if show_type else []),
            header,
            "Used",
            "Avail" if human else "Available",
            "Use%",
            "Mounted on",
        ]
    ]
    for m in chosen:
        used = m.used()
        avail = max(0, m.size - used)
        pct = f"{-(-used * 100 // m.size) if m.size else 0}%"

        def fmt(value: int) -> str:
            return human_size(value) if human else str(-(-value // unit))

        rows.append(
            [
                m.source,
                *([m.fstype] if show_type else []),
                fmt(m.size),
                fmt(used),
                fmt(avail),
                pct,
                m.mount,
            ]
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for row in rows:
        cells = []
        for i, cell in enumerate(row):
            last = i == len(row) - 1
            first_cols = 2 if show_type else 1
            if last:
                cells.append(cell)
            elif i < first_cols:
                cells.append(cell.ljust(widths[i]))
            else:
                cells.append(cell.rjust(widths[i]))
        ctx.out(" ".join(cells).rstrip() + "\n")
    return 0


def uptime(ctx: Ctx) -> int:
    machine = ctx.machine
    now = machine.now()
    up = int(now - machine.boot_time)
    days, rem = divmod(up, 86400)
    hours, minutes = rem // 3600, rem % 3600 // 60
    load = machine.load_average()
    day_text = f"{days} day{'s' if days != 1 else ''}, " if days else ""
    ctx.out(
        f" {time.strftime('%H:%M:%S', time.gmtime(now))} up {day_text}{hours:2d}:{minutes:02d},"
        f"  1 user,  load average: {load:.2f}, {load:.2f}, {load:.2f}\n"
    )
    return 0


def dmesg(ctx: Ctx) -> int:
    flags, values, _ = parse_flags(ctx.args, with_value="l")
    kernel = ctx.machine.kernel
    human = "T" in flags or "ctime" in flags or values.get("time-format") == "ctime"
    iso = values.get("time-format") == "iso"
    decode = "x" in flags or "decode" in flags
    wanted = (
        set(values["l"].split(",")) if "l" in values else set(values.get("level", "").split(","))
    )
    wanted.discard("")

    def render(lines: list[LogLine]) -> None:
        for line in lines:
            ctx.out(kernel.render_line(line, human_time=human, iso=iso, levels=decode) + "\n")

    lines = [ln for ln in kernel.lines() if not wanted or ln.level in wanted]
    if "C" in flags or "clear" in flags:
        kernel.clear()
        return 0
    render(list(lines))
    if "c" in flags or "read-clear" in flags:
        kernel.clear()
    if "w" in flags or "follow" in flags:
        seen = len(kernel.lines())
        while not ctx.wait(0.2):
            current = kernel.lines()
            if len(current) > seen:
                render([ln for ln in current[seen:] if not wanted or ln.level in wanted])
            seen = len(current)
        return ctx.killed_status()
    return 0


def _etime(seconds: float) -> str:
    seconds = max(0, int(seconds))
    days, rem = divmod(seconds, 86400)
    hours, rem = divmod(rem, 3600)
    minutes, secs = divmod(rem, 60)
    if days:
        return f"{days}-{hours:02d}:{minutes:02d}:{secs:02d}"
    if hours:
        return f"{hours:02d}:{minutes:02d}:{secs:02d}"
    return f"{minutes:02d}:{secs:02d}"


def ps(ctx: Ctx) -> int:
    machine = ctx.machine
    args = list(ctx.args)
    bsd = bool(args) and not args[0].startswith("-") and set(args[0]) <= set("auxwef")
    fields: list[str] | None = None
    pids: set[int] | None = None
    names: set[str] | None = None
    headers = True
    full = False
    i = 0
    while i < len(args):
        arg = args[i]
        if arg in ("-o", "--format", "o", "-eo", "-ao", "-axo", "axo") and i + 1 < len(args):
            fields = (fields or []) + args[i + 1].replace(" ", ",").split(",")
            i += 2
            continue
        if arg.startswith("-o") and len(arg) > 2:
            fields = (fields or []) + arg[2:].split(",")
        elif arg in ("-p", "--pid", "p") and i + 1 < len(args):
            pids = {int(p) for p in args[i + 1].split(",") if p.strip().isdigit()}
            i += 2
            continue
        elif arg == "-C" and i + 1 < len(args):
            names = set(args[i + 1].split(","))
            i += 2
            continue
        elif arg in ("--no-headers", "--no-heading", "h"):
            headers = False
        elif arg.startswith("-") and "f" in arg:
            full = True
        i += 1
    now = machine.now()
    procs = machine.procs.all()
    if pids is not None:
        procs = [p for p in procs if p.pid in pids]
    if names is not None:
        procs = [p for p in procs if p.comm in names]
    if fields is not None:
        return _ps_custom(ctx, procs, fields, headers, now)
    mem_total = machine.shape.ram_gib * _GIB / 1024
    if bsd:
        if headers:
            ctx.out("USER         PID %CPU %MEM    VSZ   RSS TTY      STAT START   TIME COMMAND\n")
        for p in procs:
            start = time.strftime(
                "%H:%M" if now - p.started < 86400 else "%b%d", time.gmtime(p.started)
            )
            cpu_time = _cpu_time(p, now)
            ctx.out(
                f"{'root':<8} {p.pid:>7} {p.cpu_percent:>4.1f} {p.rss_kib * 100 / mem_total:>4.1f} "
                f"{p.rss_kib * 4:>6} {p.rss_kib:>5} {'?':<8} {'Ssl' if p.system else 'Sl':<4} "
                f"{start:>5} {cpu_time // 60:>3}:{cpu_time % 60:02d} {p.cmdline}\n"
            )
        return 0
    if full:
        if headers:
            ctx.out("UID          PID    PPID  C STIME TTY          TIME CMD\n")
        for p in procs:
            stime = time.strftime(
                "%H:%M" if now - p.started < 86400 else "%b%d", time.gmtime(p.started)
            )
            cpu_time = _cpu_time(p, now)
            ctx.out(
                f"{'root':<8} {p.pid:>7} {p.ppid:>7} {min(99, int(p.cpu_percent)):>2} {stime:<5} "
                f"{'?':<8} {cpu_time // 3600:02d}:{cpu_time % 3600 // 60:02d}:{cpu_time % 60:02d} "
                f"{p.cmdline}\n"
            )
        return 0
    if headers:
        ctx.out("    PID TTY          TIME CMD\n")
    for p in procs:
        cpu_time = _cpu_time(p, now)
        ctx.out(
            f"{p.pid:>7} {'?':<8} {cpu_time // 3600:02d}:{cpu_time % 3600 // 60:02d}:"
            f"{cpu_time % 60:02d} {p.comm}\n"
        )
    return 0


def _cpu_time(p: Proc, now: float) -> int:
    return int(max(0.0, now - p.started) * p.cpu_percent / 100.0)


_PS_FIELDS = {
    "pid": ("PID", 7),
    "ppid": ("PPID", 7),
    "pgid": ("PGID", 7),
    "pgrp": ("PGRP", 7),
    "user": ("USER", -8),
    "uid": ("UID", 5),
    "comm": ("COMMAND", -15),
    "args": ("COMMAND", 0),
    "cmd": ("CMD", 0),
    "command": ("COMMAND", 0),
    "etime": ("ELAPSED", 11),
    "etimes": ("ELAPSED", 7),
    "%cpu": ("%CPU", 4),
    "pcpu": ("%CPU", 4),
    "%mem": ("%MEM", 4),
    "pmem": ("%MEM", 4),
    "rss": ("RSS", 5),
    "vsz": ("VSZ", 6),
    "stat": ("STAT", -4),
    "tty": ("TT", -8),
    "time": ("TIME", 8),
}


def _ps_custom(ctx: Ctx, procs: list[Proc], fields: list[str], headers: bool, now: float) -> int:
    columns: list[tuple[str, str, int]] = []
    for spec in fields:
        if not spec:
            continue
        name, eq, label = spec.partition("=")
        if name not in _PS_FIELDS:
            ctx.err(f'error: unknown user-defined format specifier "{name}"\n')
            return 1
        default_label, width = _PS_FIELDS[name]
        columns.append((name, label if eq else default_label, width))
    show_header = headers and any(label for _, label, _ in columns)
    mem_total = ctx.machine.shape.ram_gib * _GIB / 1024

    def value(p: Proc, name: str) -> str:
        if name == "pid":
            return str(p.pid)
        if name == "ppid":
            return str(p.ppid)
        if name in ("pgid", "pgrp"):
            return str(p.pgid)
        if name in ("user",):
            return "root"
        if name == "uid":
            return "0"
        if name == "comm":
            return p.comm
        if name in ("args", "cmd", "command"):
            return p.cmdline
        if name == "etime":
            return _etime(now - p.started)
        if name == "etimes":
            return str(int(now - p.started))
        if name in ("%cpu", "pcpu"):
            return f"{p.cpu_percent:.1f}"
        if name in ("%mem", "pmem"):
            return f"{p.rss_kib * 100 / mem_total:.1f}"
        if name == "rss":
            return str(p.rss_kib)
        if name == "vsz":
            return str(p.rss_kib * 4)
        if name == "stat":
            return "Ssl" if p.system else "Sl"
        if name == "tty":
            return "?"
        cpu_time = _cpu_time(p, now)
        return f"{cpu_time // 3600:02d}:{cpu_time % 3600 // 60:02d}:{cpu_time % 60:02d}"

    def row(cells: list[str]) -> str:
        out = []
        for (_, _, width), cell in zip(columns, cells, strict=True):
            if width > 0:
                out.append(cell.rjust(width))
            elif width < 0:
                out.append(cell.ljust(-width))
            else:
                out.append(cell)
        return " ".join(out).rstrip() + "\n"

    if show_header:
        ctx.out(row([label for _, label, _ in columns]))
    for p in procs:
        ctx.out(row([value(p, name) for name, _, _ in columns]))
    return 0


def _pkill_common(ctx: Ctx, *, kill: bool) -> int:
    args = list(ctx.args)
    sig = SIGTERM
    full = exact = newest = oldest = list_name = list_full = False
    pattern: str | None = None
    while args:
        arg = args.pop(0)
        if arg == "--signal" and args:
            parsed = parse_signal(args.pop(0))
            if parsed is None:
                ctx.err(f"{ctx.name}: invalid signal\n")
                return 2
            sig = parsed
        elif arg in ("-u", "-U", "-g", "-G", "-P", "-s", "-t") and args:
            args.pop(0)
        elif (
            arg.startswith("-")
            and len(arg) > 1
            and kill
            and parse_signal(arg) is not None
            and not set(arg[1:]) <= set("fxnoe")
        ):
            sig = parse_signal(arg) or SIGTERM
        elif arg.startswith("--"):
            full = full or arg == "--full"
            exact = exact or arg == "--exact"
        elif arg.startswith("-") and len(arg) > 1:
            for flag in arg[1:]:
                full = full or flag == "f"
                exact = exact or flag == "x"
                newest = newest or flag == "n"
                oldest = oldest or flag == "o"
                list_name = list_name or flag == "l"
                list_full = list_full or flag == "a"
        else:
            pattern = arg
    if pattern is None:
        ctx.err(
            f"{ctx.name}: no matching criteria specified\n"
            f"Try `{ctx.name} --help' for more information.\n"
        )
        return 2
    own = ctx.machine.procs.ancestors(ctx.proc.pid) if ctx.proc is not None else set()
    regex = f"^(?:{pattern})$" if exact else pattern
    matches = ctx.machine.procs.match(regex, full=full, exclude=own)
    if newest and matches:
        matches = [max(matches, key=lambda p: p.pid)]
    if oldest and matches:
        matches = [min(matches, key=lambda p: p.pid)]
    if not matches:
        return 1
    for p in matches:
        if kill:
            ctx.machine.signal_pid(p.pid, sig)
        elif list_full:
            ctx.out(f"{p.pid} {p.cmdline}\n")
        elif list_name:
            ctx.out(f"{p.pid} {p.comm}\n")
        else:
            ctx.out(f"{p.pid}\n")
    return 0


def pkill(ctx: Ctx) -> int:
    return _pkill_common(ctx, kill=True)


def pgrep(ctx: Ctx) -> int:
    return _pkill_common(ctx, kill=False)


def _cpu_model(ctx: Ctx) -> str:
    return ctx.machine.cpu_model


def lscpu(ctx: Ctx) -> int:
    cpus = ctx.machine.shape.cpus
    ctx.out(
        "Architecture:            x86_64\n"
        "  CPU op-mode(s):        32-bit, 64-bit\n"
        "  Byte Order:            Little Endian\n"
        f"CPU(s):                  {cpus}\n"
        f"  On-line CPU(s) list:   0-{cpus - 1}\n"
        "Vendor ID:               GenuineIntel\n"
        f"  Model name:            {_cpu_model(ctx)}\n"
        "    Thread(s) per core:  2\n"
        f"    Core(s) per socket:  {max(1, cpus // 4)}\n"
        "    Socket(s):           2\n"
        "NUMA:\n"
        "  NUMA node(s):          2\n"
        f"  NUMA node0 CPU(s):     0-{cpus // 4 - 1},{cpus // 2}-{cpus * 3 // 4 - 1}\n"
        f"  NUMA node1 CPU(s):     {cpus // 4}-{cpus // 2 - 1},{cpus * 3 // 4}-{cpus - 1}\n"
    )
    return 0


COMMANDS: dict[str, Command] = {
    "hostname": hostname,
    "uname": uname,
    "nproc": nproc,
    "free": free,
    "df": df,
    "uptime": uptime,
    "dmesg": dmesg,
    "ps": ps,
    "pkill": pkill,
    "pgrep": pgrep,
    "lscpu": lscpu,
}
