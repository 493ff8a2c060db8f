"""Shell builtins: the commands that run inside the shell and may change its state."""

from __future__ import annotations

import fnmatch
import re
import shlex
from collections.abc import Callable

from xyclaw.sim.context import Ctx, ShellLike
from xyclaw.sim.limits import STATUS, not_supported
from xyclaw.sim.procs import parse_signal, signal_name
from xyclaw.sim.shellflow import BIN_DIRS, LoopControl, ShellExit
from xyclaw.sim.streams import read_lines

# The builtins take the shell as a ShellLike (sim.context): the shell imports this table to
# dispatch, so naming its class here would close a circle (issue 35).
Shell = ShellLike

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def _cd(sh: Shell, ctx: Ctx) -> int:
    args = [a for a in ctx.args if a not in ("-L", "-P")]
    target = args[0] if args else sh.home
    if target == "-":
        target = sh.vars.get("OLDPWD", sh.cwd)
        ctx.out(target + "\n")
    vpath = ctx.path(target)
    fs = sh.machine.fs
    if not fs.exists(vpath):
        ctx.err(f"bash: cd: {target}: No such file or directory\n")
        return 1
    if not fs.is_dir(vpath):
        ctx.err(f"bash: cd: {target}: Not a directory\n")
        return 1
    sh.vars["OLDPWD"] = sh.cwd
    sh.cwd = vpath
    sh.vars["PWD"] = vpath
    return 0


def _pwd(sh: Shell, ctx: Ctx) -> int:
    ctx.out(sh.cwd + "\n")
    return 0


def _export(sh: Shell, ctx: Ctx) -> int:
    args = ctx.args
    unexport = False
    if args and args[0] in ("-n", "-p"):
        unexport = args[0] == "-n"
        args = args[1:]
    if not args:
        for name in sorted(sh.exported):
            if name in sh.vars:
                ctx.out(f'declare -x {name}="{sh.vars[name]}"\n')
        return 0
    status = 0
    for arg in args:
        name, eq, value = arg.partition("=")
        if not _NAME.match(name):
            ctx.err(f"bash: export: `{arg}': not a valid identifier\n")
            status = 1
            continue
        if eq:
            sh.vars[name] = value
        if unexport:
            sh.exported.discard(name)
        else:
            sh.exported.add(name)
    return status


def _declare(sh: Shell, ctx: Ctx) -> int:
    exported = False
    for arg in ctx.args:
        if arg.startswith("-"):
            if "a" in arg or "A" in arg:  # arrays are outside the listed subset
                ctx.err(not_supported(f"arrays ({ctx.argv[0]} {arg})") + "\n")
                return STATUS
            exported = exported or "x" in arg
            continue
        name, eq, value = arg.partition("=")
        if not _NAME.match(name):
            ctx.err(f"bash: {ctx.argv[0]}: `{arg}': not a valid identifier\n")
            return 1
        if eq:
            sh.vars[name] = value
        else:
            sh.vars.setdefault(name, "")
        if exported:
            sh.exported.add(name)
    return 0


def _unset(sh: Shell, ctx: Ctx) -> int:
    for name in ctx.args:
        if name.startswith("-"):
            continue
        sh.vars.pop(name, None)
        sh.exported.discard(name)
    return 0


def _set(sh: Shell, ctx: Ctx) -> int:
    args = ctx.args
    if not args:
        for name in sorted(sh.vars):
            ctx.out(f"{name}={shlex.quote(sh.vars[name])}\n")
        return 0
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            sh.positional = list(args[i + 1 :])
            return 0
        if arg in ("-o", "+o"):
            on = arg == "-o"
            option = args[i + 1] if i + 1 < len(args) else ""
            if option == "pipefail":
                sh.pipefail = on
            elif option == "errexit":
                sh.errexit = on
            elif option == "nounset":
                sh.nounset = on
            elif option == "xtrace":
                sh.xtrace = on
            i += 2
            continue
        if arg[:1] in "-+" and len(arg) > 1:
            on = arg[0] == "-"
            for flag in arg[1:]:
                if flag == "e":
                    sh.errexit = on
                elif flag == "u":
                    sh.nounset = on
                elif flag == "x":
                    sh.xtrace = on
            i += 1
            continue
        sh.positional = list(args[i:])
        return 0
    return 0


def _exit(sh: Shell, ctx: Ctx) -> int:
    code = sh.last_status
    if ctx.args:
        try:
            code = int(ctx.args[0]) & 0xFF
        except ValueError:
            ctx.err(f"bash: exit: {ctx.args[0]}: numeric argument required\n")
            code = 2
    raise ShellExit(code)


def _return(sh: Shell, ctx: Ctx) -> int:
    raise ShellExit(int(ctx.args[0]) if ctx.args and ctx.args[0].isdigit() else sh.last_status)


def _source(sh: Shell, ctx: Ctx) -> int:
    if not ctx.args:
        ctx.err(f"bash: {ctx.argv[0]}: filename argument required\n")
        return 2
    vpath = ctx.path(ctx.args[0])
    try:
        text = sh.machine.fs.read_text(vpath)
    except Exception:
        ctx.err(f"bash: {ctx.args[0]}: No such file or directory\n")
        return 1
    saved = sh.positional
    if len(ctx.args) > 1:
        sh.positional = list(ctx.args[1:])
    try:
        return sh.run_script(text, ctx.io, name=ctx.args[0])
    finally:
        sh.positional = saved


def _eval(sh: Shell, ctx: Ctx) -> int:
    return sh.run_script(" ".join(ctx.args), ctx.io) if ctx.args else 0


def _true(sh: Shell, ctx: Ctx) -> int:
    return 0


def _false(sh: Shell, ctx: Ctx) -> int:
    return 1


_ECHO_ESCAPES = {
    "n": "\n",
    "t": "\t",
    "r": "\r",
    "a": "\a",
    "b": "\b",
    "e": "\x1b",
    "\\": "\\",
    "0": "\0",
    "v": "\v",
    "f": "\f",
}


def _unescape(text: str) -> tuple[str, bool]:
    """Backslash escapes of echo -e and printf; True when \\c cut the output short."""
    out: list[str] = []
    i = 0
    while i < len(text):
        c = text[i]
        if c == "\\" and i + 1 < len(text):
            nxt = text[i + 1]
            if nxt == "c":
                return "".join(out), True
            if nxt in _ECHO_ESCAPES:
                out.append(_ECHO_ESCAPES[nxt])
                i += 2
                continue
        out.append(c)
        i += 1
    return "".join(out), False


def _echo(sh: Shell, ctx: Ctx) -> int:
    args = ctx.args
    newline = True
    escapes = False
    while args and re.fullmatch(r"-[neE]+", args[0]):
        for flag in args[0][1:]:
            if flag == "n":
                newline = False
            elif flag == "e":
                escapes = True
            else:
                escapes = False
        args = args[1:]
    text = " ".join(args)
    if escapes:
        text, cut = _unescape(text)
        if cut:
            newline = False
    ctx.out(text + ("\n" if newline else ""))
    return 0


_PRINTF_SPEC = re.compile(r"%([-+ 0#]*)(\d+|\*)?(?:\.(\d+))?([sdifgeExXocbu%])")


def _printf(sh: Shell, ctx: Ctx) -> int:
    if not ctx.args:
        ctx.err("printf: usage: printf [-v var] format [arguments]\n")
        return 2
    fmt, values = ctx.args[0], list(ctx.args[1:])
    out: list[str] = []
    status = 0
    while True:
        consumed = 0
        pending = values

        def repl(m: re.Match[str], pending: list[str] = pending) -> str:
            nonlocal consumed, status
            flags, width, precision, conv = m.groups()
            if conv == "%":
                return "%"
            value = pending[consumed] if consumed < len(pending) else ""
            consumed += 1
            spec = "%" + flags + (width or "") + (f".{precision}" if precision is not None else "")
            if conv == "b":
                return _unescape(value)[0]
            if conv in "diouxXc":
                try:
                    number = int(value, 0) if value else 0
                except ValueError:
                    ctx.err(f"bash: printf: {value}: invalid number\n")
                    status = 1
                    number = 0
                return (spec + ("d" if conv in "iu" else conv)) % number
            if conv in "feEgG":
                try:
                    real = float(value) if value else 0.0
                except ValueError:
                    ctx.err(f"bash: printf: {value}: invalid number\n")
                    status = 1
                    real = 0.0
                return (spec + conv) % real
            return (spec + "s") % value

        rendered = _PRINTF_SPEC.sub(repl, _unescape(fmt)[0])
        out.append(rendered)
        values = values[consumed:]
        if not values or consumed == 0:
            break
    ctx.out("".join(out))
    return status


def evaluate_test(sh: Shell, args: list[str], *, extended: bool = False) -> bool:
    """`test` / `[` / `[[` expressions: files, strings, integers, ! -a -o and parentheses."""
    fs = sh.machine.fs
    pos = 0

    def peek() -> str | None:
        return args[pos] if pos < len(args) else None

    def take() -> str:
        nonlocal pos
        pos += 1
        return args[pos - 1]

    def primary() -> bool:
        token = peek()
        if token is None:
            return False
        if token == "!":
            take()
            return not primary()
        if token == "(":
            take()
            value = expr()
            if peek() == ")":
                take()
            return value
        remaining = len(args) - pos
        if remaining >= 3 and args[pos + 1] in _BINARY:
            left, op, right = take(), take(), take()
            return _binary(left, op, right, extended)
        if token.startswith("-") and len(token) == 2 and remaining >= 2:
            op, operand = take(), take()
            vpath = fs.norm(operand, sh.cwd)
            if op in ("-e", "-a"):
                return fs.exists(vpath)
            if op == "-f":
                return fs.is_file(vpath)
            if op == "-d":
                return fs.is_dir(vpath)
            if op == "-s":
                return fs.is_file(vpath) and (fs.size(vpath) > 0 or vpath.startswith("/proc"))
            if op in ("-r", "-w", "-x", "-O", "-G"):
                return fs.exists(vpath) or (
                    op == "-x"
                    and posixpath_dir(vpath) in BIN_DIRS
                    and vpath.rsplit("/", 1)[-1] in sh.machine.commands
                )
            if op in ("-L", "-h", "-p", "-S", "-b", "-c"):
                return False
            if op == "-z":
                return operand == ""
            if op == "-n":
                return operand != ""
            if op == "-v":
                return operand in sh.vars
            raise ValueError(f"{op}: unary operator expected")
        return take() != ""

    def conj() -> bool:
        value = primary()
        while peek() in ("-a", "&&"):
            take()
            rhs = primary()
            value = value and rhs
        return value

    def expr() -> bool:
        value = conj()
        while peek() in ("-o", "||"):
            take()
            rhs = conj()
            value = value or rhs
        return value

    result = expr()
    if pos != len(args):
        raise ValueError("too many arguments")
    return result


def posixpath_dir(vpath: str) -> str:
    return vpath.rsplit("/", 1)[0] or "/"


_BINARY = frozenset(
    {"=", "==", "!=", "-eq", "-ne", "-lt", "-le", "-gt", "-ge", "=~", "<", ">", "-nt", "-ot"}
)


def _binary(left: str, op: str, right: str, extended: bool) -> bool:
    if op in ("=", "=="):
        return fnmatch.fnmatchcase(left, right) if extended else left == right
    if op == "!=":
        return not fnmatch.fnmatchcase(left, right) if extended else left != right
    if op == "=~":
        return re.search(right, left) is not None
    if op == "<":
        return left < right
    if op == ">":
        return left > right
    if op in ("-nt", "-ot"):
        return False
    try:
        a, b = int(left.strip()), int(right.strip())
    except ValueError as exc:
        bad = left if not left.strip().lstrip("-").isdigit() else right
        raise ValueError(f"{bad}: integer expression expected") from exc
    return {
        "-eq": a == b,
        "-ne": a != b,
        "-lt": a < b,
        "-le": a <= b,
        "-gt": a > b,
        "-ge": a >= b,
    }[op]


def _test(sh: Shell, ctx: Ctx) -> int:
    args = list(ctx.args)
    name = ctx.argv[0]
    if name == "[":
        if not args or args[-1] != "]":
            ctx.err("bash: [: missing `]'\n")
            return 2
        args = args[:-1]
    extended = name == "[["
    if extended:
        if not args or args[-1] != "]]":
            ctx.err("bash: syntax error in conditional expression\n")
            return 2
        args = args[:-1]
    try:
        return 0 if evaluate_test(sh, args, extended=extended) else 1
    except ValueError as exc:
        ctx.err(f"bash: {name}: {exc}\n")
        return 2


def _wait(sh: Shell, ctx: Ctx) -> int:
    wanted = {a for a in ctx.args if a.isdigit()}
    status = 0
    for job in list(sh.jobs):
        if wanted and str(job.proc.pid) not in wanted:
            continue
        while job.thread.is_alive():
            job.thread.join(0.1)
            if ctx.proc is not None and ctx.proc.signalled is not None:
                return ctx.killed_status()
            if sh.hup_check is not None and sh.hup_check():
                return 129
    return status


def _type(sh: Shell, ctx: Ctx) -> int:
    status = 0
    args = [a for a in ctx.args if not a.startswith("-")]
    verbose = ctx.argv[0] == "type" or "-V" in ctx.args
    for name in args:
        path = command_path(sh, name)
        if path is None:
            if verbose:
                ctx.err(f"bash: type: {name}: not found\n")
            status = 1
        elif verbose:
            ctx.out(f"{name} is a shell builtin\n" if path == name else f"{name} is {path}\n")
        else:
            ctx.out(path + "\n")
    return status


def command_path(sh: Shell, name: str) -> str | None:
    """Where a command lives on the node, as `command -v` prints it."""
    if name in BUILTINS:
        return name
    if "/" in name:
        return name if sh.machine.fs.exists(sh.machine.fs.norm(name, sh.cwd)) else None
    return sh.machine.command_paths.get(name)


def _command(sh: Shell, ctx: Ctx) -> int:
    args = ctx.args
    if args and args[0] in ("-v", "-V"):
        return _type(sh, ctx)
    if not args:
        return 0
    return sh.dispatch(args, ctx.io)


def _shift(sh: Shell, ctx: Ctx) -> int:
    count = int(ctx.args[0]) if ctx.args and ctx.args[0].isdigit() else 1
    if count > len(sh.positional):
        return 1
    sh.positional = sh.positional[count:]
    return 0


def _loop(kind: str) -> Callable[[Shell, Ctx], int]:
    def run(sh: Shell, ctx: Ctx) -> int:
        levels = int(ctx.args[0]) if ctx.args and ctx.args[0].isdigit() else 1
        raise LoopControl(kind, levels)

    return run


def _exec(sh: Shell, ctx: Ctx) -> int:
    if not ctx.args:
        return 0
    raise ShellExit(sh.dispatch(ctx.args, ctx.io))


def _read(sh: Shell, ctx: Ctx) -> int:
    names: list[str] = []
    args = list(ctx.args)
    while args:
        arg = args.pop(0)
        if arg in ("-p", "-t", "-n", "-d", "-u"):
            if args:
                args.pop(0)
            continue
        if arg.startswith("-"):
            continue
        names.append(arg)
    line = next(iter(read_lines(_LineReader(ctx))), None)
    if line is None:
        return 1
    text = line.decode("utf-8", errors="replace").rstrip("\n")
    names = names or ["REPLY"]
    fields = text.split(None, len(names) - 1) if names != ["REPLY"] else [text]
    for index, name in enumerate(names):
        sh.vars[name] = fields[index] if index < len(fields) else ""
    return 0


class _LineReader:
    """Reads one byte at a time so `read` leaves the rest of stdin to the next command."""

    def __init__(self, ctx: Ctx) -> None:
        self._ctx = ctx
        self._done = False

    def read(self, size: int = -1) -> bytes:
        if self._done:
            return b""
        out = bytearray()
        while True:
            ch = self._ctx.io.stdin.read(1)
            if not ch:
                self._done = True
                break
            out += ch
            if ch == b"\n":
                self._done = True
                break
        return bytes(out)

    def close(self) -> None:
        self._done = True


def _ulimit(sh: Shell, ctx: Ctx) -> int:
    if not ctx.args or ctx.args[-1].startswith("-"):
        ctx.out("unlimited\n")
    return 0


def _umask(sh: Shell, ctx: Ctx) -> int:
    if not ctx.args:
        ctx.out("0022\n")
    return 0


def _kill(sh: Shell, ctx: Ctx) -> int:
    args = list(ctx.args)
    sig = 15
    if args and args[0] == "-l":
        from xyclaw.sim.procs import SIGNALS

        ctx.out(" ".join(f"{v}) SIG{k}" for k, v in sorted(SIGNALS.items(), key=lambda kv: kv[1])))
        ctx.out("\n")
        return 0
    if args and args[0] in ("-s", "-n") and len(args) > 1:
        parsed = parse_signal(args[1])
        if parsed is None:
            ctx.err(f"bash: kill: {args[1]}: invalid signal specification\n")
            return 1
        sig = parsed
        args = args[2:]
    elif args and args[0].startswith("-") and args[0] != "--":
        parsed = parse_signal(args[0])
        if parsed is None:
            ctx.err(f"bash: kill: {args[0][1:]}: invalid signal specification\n")
            return 1
        sig = parsed
        args = args[1:]
    if args and args[0] == "--":
        args = args[1:]
    if not args:
        ctx.err(
            "kill: usage: kill [-s sigspec | -n signum | -sigspec] pid | jobspec ... or kill -l\n"
        )
        return 2
    status = 0
    procs = sh.machine.procs
    for target in args:
        if target.startswith("-") and target[1:].isdigit():
            # a process group, as kill(2) takes a negative pid
            members = procs.group(int(target[1:]))
            if not members:
                ctx.err(f"bash: kill: ({target}) - No such process\n")
                status = 1
            for member in members:
                sh.machine.signal_pid(member.pid, sig)
            continue
        if target.startswith("%"):
            index = int(target[1:]) - 1 if target[1:].isdigit() else len(sh.jobs) - 1
            pids = [sh.jobs[index].proc.pid] if 0 <= index < len(sh.jobs) else []
        elif target.isdigit():
            pids = [int(target)]
        else:
            ctx.err(f"bash: kill: {target}: arguments must be process or job IDs\n")
            status = 1
            continue
        for pid in pids:
            proc = procs.get(pid)
            if proc is None or not sh.machine.signal_pid(pid, sig):
                if proc is None:
                    ctx.err(f"bash: kill: ({pid}) - No such process\n")
                else:
                    ctx.err(f"bash: kill: ({pid}) - Operation not permitted\n")
                status = 1
    return status


def _noop(sh: Shell, ctx: Ctx) -> int:
    return 0


def _trap(sh: Shell, ctx: Ctx) -> int:
    """`trap ACTION SIG...`: a handler runs after the current command; `''` ignores the
    signal (children inherit that); `-` restores the default. EXIT runs when the shell ends."""
    args = list(ctx.args)
    if args and args[0] == "--":
        args = args[1:]
    if not args or args[0] in ("-p", "-l"):
        for number, action in sorted(sh.traps.items()):
            name = "EXIT" if number == 0 else signal_name(number)[3:]
            ctx.out(f"trap -- {shlex.quote(action)} {name}\n")
        return 0
    if len(args) == 1:
        action, names = "-", args
    else:
        action, names = args[0], args[1:]
    proc = sh.machine.procs.get(sh.pid) if sh.pid else None
    status = 0
    for name in names:
        parsed = 0 if name.upper() in ("EXIT", "0") else parse_signal(name)
        if parsed is None:
            ctx.err(f"bash: trap: {name}: invalid signal specification\n")
            status = 1
            continue
        number = parsed
        if action == "-":
            sh.traps.pop(number, None)
            if proc is not None:
                proc.ignored.discard(number)
        elif action == "" and number != 0:
            sh.traps.pop(number, None)
            if proc is not None:
                proc.ignored.add(number)
        else:
            sh.traps[number] = action
            if proc is not None:
                proc.ignored.discard(number)
    return status


BUILTINS: dict[str, Callable[[Shell, Ctx], int]] = {
    "cd": _cd,
    "pwd": _pwd,
    "export": _export,
    "declare": _declare,
    "typeset": _declare,
    "local": _declare,
    "readonly": _declare,
    "unset": _unset,
    "set": _set,
    "exit": _exit,
    "return": _return,
    "source": _source,
    ".": _source,
    "eval": _eval,
    ":": _true,
    "true": _true,
    "false": _false,
    "echo": _echo,
    "printf": _printf,
    "test": _test,
    "[": _test,
    "[[": _test,
    "wait": _wait,
    "type": _type,
    "command": _command,
    "hash": _noop,
    "shift": _shift,
    "break": _loop("break"),
    "continue": _loop("continue"),
    "exec": _exec,
    "read": _read,
    "ulimit": _ulimit,
    "umask": _umask,
    "trap": _trap,
    "shopt": _noop,
    "alias": _noop,
    "unalias": _noop,
    "kill": _kill,
}
