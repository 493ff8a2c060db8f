"""The shell of a simulated node: runs parsed scripts against the node's commands.

One `Shell` per SSH exec request (and per subshell, background job and
command substitution). Commands run as threads; external ones are
registered as processes so `ps`, `kill` and `pkill` see them.
"""

from __future__ import annotations

import ast
import contextlib
import fnmatch
import operator
import posixpath
import re
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from xyclaw.sim.context import Ctx, Stdio
from xyclaw.sim.limits import STATUS, UNSUPPORTED_COMMANDS, not_supported, unsupported_construct
from xyclaw.sim.procs import SIGKILL, SIGPIPE, Proc
from xyclaw.sim.shellflow import BIN_DIRS, Job, LoopControl, ShellExit
from xyclaw.sim.shparse import (
    AndOr,
    CmdList,
    Command,
    For,
    Group,
    If,
    Part,
    Pipeline,
    Redir,
    ShellSyntaxError,
    Simple,
    While,
    Word,
    parse,
)
from xyclaw.sim.streams import (
    BufferOut,
    BytesIn,
    ChannelOut,
    EmptyIn,
    FileIn,
    FileOut,
    InStream,
    NullOut,
    OutStream,
    Pipe,
    PipeIn,
    PipeOut,
    TerminalOut,
)
from xyclaw.sim.vfs import FsError

if TYPE_CHECKING:
    from xyclaw.sim.machine import Machine

_GLOB_CHARS = re.compile(r"[*?\[]")


class ExpansionError(Exception):
    """An expansion failed (`${x:?}`, unbound variable); the text is bash's message."""


Builtin = Callable[["Shell", Ctx], int]


class Shell:
    """Variables, working directory, options and jobs of one shell."""

    def __init__(
        self,
        machine: Machine,
        *,
        env: dict[str, str],
        cwd: str,
        session: int = 0,
        hup_check: Callable[[], bool] | None = None,
        pid: int = 0,
    ) -> None:
        self.machine = machine
        self.vars: dict[str, str] = dict(env)
        self.exported: set[str] = set(env)
        self.cwd = cwd
        self.session = session
        self.hup_check = hup_check
        self.pid = pid
        self.positional: list[str] = []
        self.argv0 = "bash"
        self.last_status = 0
        self.last_bg = ""
        self.errexit = False
        self.nounset = False
        self.pipefail = False
        self.xtrace = False
        self.jobs: list[Job] = []
        # every background job started by this shell or its subshells (bash -c, scripts)
        self.all_jobs: list[Job] = []
        self.exited = False  # `exit` ran: an interactive session ends here
        self.traps: dict[int, str] = {}  # signal number (0: EXIT) -> action
        self._cond_depth = 0
        self._jobs_lock = threading.Lock()

    @property
    def home(self) -> str:
        return self.vars.get("HOME", "/root")

    # -- entry points --------------------------------------------------------------------------

    def run_script(self, text: str, io: Stdio, *, name: str = "-c") -> int:
        """Parse and run a script; syntax errors answer as bash does, with status 2, and a
        construct outside the listed subset is refused by name before anything runs."""
        construct = unsupported_construct(text)
        if construct is not None:
            _write(io.stderr, not_supported(construct) + "\n")
            self.last_status = STATUS
            return STATUS
        try:
            tree = parse(text)
        except ShellSyntaxError as exc:
            _write(io.stderr, f"bash: {name}: line 1: {exc}\n")
            self.last_status = 2
            return 2
        try:
            return self.run_list(tree, io)
        except ShellExit as done:
            self.last_status = done.status
            self.exited = True
            return done.status
        except LoopControl:
            return self.last_status

    def run_exit_trap(self, io: Stdio, status: int) -> int:
        """The EXIT trap, when the shell ends with `status`; returns the final status."""
        action = self.traps.pop(0, None)
        if not action:
            return status
        self.last_status = status
        self.exited = False  # only an `exit` in the trap itself changes the status
        self.run_script(action, io)
        return self.last_status if self.exited else status

    def subshell(self, *, hup_check: Callable[[], bool] | None = None) -> Shell:
        child = Shell(
            self.machine,
            env={},
            cwd=self.cwd,
            session=self.session,
            hup_check=hup_check if hup_check is not None else self.hup_check,
            pid=self.pid,
        )
        child.vars = dict(self.vars)
        child.exported = set(self.exported)
        child.positional = list(self.positional)
        child.argv0 = self.argv0
        child.last_status = self.last_status
        child.last_bg = self.last_bg
        child.all_jobs = self.all_jobs
        child._jobs_lock = self._jobs_lock
        child.errexit, child.nounset = self.errexit, self.nounset
        child.pipefail, child.xtrace = self.pipefail, self.xtrace
        return child

    def environment(self) -> dict[str, str]:
        return {k: v for k, v in self.vars.items() if k in self.exported}

    def output_jobs(self) -> list[threading.Thread]:
        """Background jobs still writing to this shell's own output (they keep a channel open)."""
        with self._jobs_lock:
            return [j.thread for j in self.all_jobs if j.holds_output and j.thread.is_alive()]

    # -- lists and pipelines -------------------------------------------------------------------

    def run_list(self, node: CmdList, io: Stdio) -> int:
        status = self.last_status
        for and_or, background in node.items:
            if background:
                self._start_background(and_or, io)
                status = 0
                self.last_status = 0
                continue
            status = self._run_and_or(and_or, io)
            self.last_status = status
            self._check_signals(io)
            if (
                status != 0
                and self.errexit
                and self._cond_depth == 0
                and not and_or.rest
                and not and_or.first.negate
            ):
                raise ShellExit(status)
        return status

    def _check_signals(self, io: Stdio) -> None:
        """After a command: a signal sent to this shell runs its trap, or ends the shell."""
        if not self.pid:
            return
        proc = self.machine.procs.get(self.pid)
        sig = proc.signalled if proc is not None else None
        if proc is None or sig is None:
            return
        action = self.traps.get(sig)
        if action is None or sig == SIGKILL:
            raise ShellExit(128 + sig)
        proc.clear_signal()
        saved = self.last_status
        self.run_script(action, io)
        if not self.exited:
            self.last_status = saved

    def _run_and_or(self, node: AndOr, io: Stdio) -> int:
        if node.rest:
            self._cond_depth += 1
            try:
                status = self._run_pipeline(node.first, io)
            finally:
                self._cond_depth -= 1
        else:
            status = self._run_pipeline(node.first, io)
        for index, (op, pipeline) in enumerate(node.rest):
            self.last_status = status
            if (op == "&&") != (status == 0):
                continue
            last = index == len(node.rest) - 1
            if not last:
                self._cond_depth += 1
            try:
                status = self._run_pipeline(pipeline, io)
            finally:
                if not last:
                    self._cond_depth -= 1
        return status

    def _run_pipeline(self, node: Pipeline, io: Stdio) -> int:
        if node.negate:
            self._cond_depth += 1
        try:
            if len(node.cmds) == 1:
                status = self.run_command(node.cmds[0], io)
            else:
                status = self._run_multi(node.cmds, io)
        finally:
            if node.negate:
                self._cond_depth -= 1
        return (1 if status == 0 else 0) if node.negate else status

    def _run_multi(self, cmds: list[Command], io: Stdio) -> int:
        statuses: list[int] = [0] * len(cmds)
        threads: list[threading.Thread] = []
        stdin: InStream = io.stdin
        readers: list[PipeIn] = []
        for index, cmd in enumerate(cmds[:-1]):
            pipe = Pipe()
            out = PipeOut(pipe)
            stage_io = Stdio(stdin, out, io.stderr)
            sub = self.subshell()

            def run_stage(
                sub: Shell = sub, cmd: Command = cmd, stage_io: Stdio = stage_io, i: int = index
            ) -> None:
                try:
                    statuses[i] = sub.run_command(cmd, stage_io)
                except ShellExit as done:
                    statuses[i] = done.status
                finally:
                    stage_io.stdout.close()
                    if isinstance(stage_io.stdin, PipeIn):
                        stage_io.stdin.close()

            thread = threading.Thread(target=run_stage, daemon=True, name="sim-pipe")
            thread.start()
            threads.append(thread)
            reader = PipeIn(pipe)
            readers.append(reader)
            stdin = reader
        last_io = Stdio(stdin, io.stdout, io.stderr)
        try:
            statuses[-1] = self.subshell().run_command(cmds[-1], last_io)
        except ShellExit as done:
            statuses[-1] = done.status
        finally:
            for reader in readers:
                reader.close()
        for thread in threads:
            thread.join()
        if self.pipefail:
            return next((s for s in reversed(statuses) if s != 0), 0)
        return statuses[-1]

    def _start_background(self, node: AndOr, io: Stdio) -> None:
        sub = self.subshell()
        sub.hup_check = None  # a background job does not get the session's hangup
        single = (
            node.first.cmds[0]
            if not node.rest
            and len(node.first.cmds) == 1
            and isinstance(node.first.cmds[0], Simple)
            else None
        )
        text = single.text if single is not None else "bash"
        proc = self.machine.procs.spawn(
            text.split() or ["bash"], ppid=self.pid or 612, session=self.session
        )
        # only output that still goes to the SSH channel keeps the session open
        holds = _holds_output(node) and any(
            isinstance(stream, (ChannelOut, TerminalOut)) for stream in (io.stdout, io.stderr)
        )

        def run() -> None:
            try:
                if single is not None:
                    sub.run_simple(single, io, proc=proc)
                else:
                    sub.pid = proc.pid
                    sub._run_and_or(node, io)
            except (ShellExit, LoopControl):
                pass
            except BrokenPipeError:
                pass
            finally:
                self.machine.procs.reap(proc)

        thread = threading.Thread(target=run, daemon=True, name=f"sim-job-{proc.pid}")
        job = Job(thread, proc, holds)
        with self._jobs_lock:
            self.jobs.append(job)
            self.all_jobs.append(job)
        self.last_bg = str(proc.pid)
        thread.start()

    # -- commands ------------------------------------------------------------------------------

    def run_command(self, node: Command, io: Stdio) -> int:
        if isinstance(node, Simple):
            return self.run_simple(node, io)
        opened: list[InStream | OutStream] = []
        try:
            io = self._apply_redirs(node.redirs, io, opened)
        except (FsError, ExpansionError) as exc:
            _write(io.stderr, f"{exc}\n")
            return 1
        try:
            if isinstance(node, Group):
                if node.subshell:
                    try:
                        return self.subshell().run_list(node.body, io)
                    except ShellExit as done:
                        return done.status
                return self.run_list(node.body, io)
            if isinstance(node, If):
                return self._run_if(node, io)
            if isinstance(node, For):
                return self._run_for(node, io)
            return self._run_while(node, io)
        finally:
            for stream in opened:
                stream.close()

    def _cond(self, node: CmdList, io: Stdio) -> int:
        self._cond_depth += 1
        try:
            return self.run_list(node, io)
        finally:
            self._cond_depth -= 1

    def _run_if(self, node: If, io: Stdio) -> int:
        for cond, body in node.branches:
            if self._cond(cond, io) == 0:
                return self.run_list(body, io)
        if node.orelse is not None:
            return self.run_list(node.orelse, io)
        return 0

    def _run_for(self, node: For, io: Stdio) -> int:
        items = self.expand_words(node.words, io) if node.words is not None else self.positional
        status = 0
        for item in items:
            self.vars[node.var] = item
            try:
                status = self.run_list(node.body, io)
            except LoopControl as ctl:
                if ctl.levels > 1:
                    raise LoopControl(ctl.kind, ctl.levels - 1) from None
                if ctl.kind == "break":
                    break
        return status

    def _run_while(self, node: While, io: Stdio) -> int:
        status = 0
        guard = self._signal_guard()
        while True:
            ok = self._cond(node.cond, io) == 0
            if ok == node.until:
                break
            try:
                status = self.run_list(node.body, io)
            except LoopControl as ctl:
                if ctl.levels > 1:
                    raise LoopControl(ctl.kind, ctl.levels - 1) from None
                if ctl.kind == "break":
                    break
            if guard():
                return 129
        return status

    def _signal_guard(self) -> Callable[[], bool]:
        hup = self.hup_check
        return (lambda: bool(hup())) if hup is not None else (lambda: False)

    def run_simple(self, node: Simple, io: Stdio, *, proc: Proc | None = None) -> int:
        try:
            assigns = [(name, self.expand_str(value, io)) for name, value in node.assigns]
            argv = self.expand_words(node.words, io)
        except ExpansionError as exc:
            _write(io.stderr, f"{exc}\n")
            return 1
        opened: list[InStream | OutStream] = []
        try:
            io = self._apply_redirs(node.redirs, io, opened)
        except (FsError, ExpansionError) as exc:
            _write(io.stderr, f"{exc}\n")
            for stream in opened:
                stream.close()
            return 1
        try:
            if not argv:
                for name, value in assigns:
                    self.vars[name] = value
                return self.last_status if node.words else 0
            if self.xtrace:
                _write(io.stderr, "+ " + " ".join(argv) + "\n")
            return self.dispatch(argv, io, assigns=assigns, proc=proc)
        finally:
            for stream in opened:
                stream.close()

    def dispatch(
        self,
        argv: list[str],
        io: Stdio,
        *,
        assigns: list[tuple[str, str]] | None = None,
        proc: Proc | None = None,
    ) -> int:
        """Run one command line that is already expanded."""
        from xyclaw.sim.builtins import BUILTINS

        name = argv[0]
        builtin = BUILTINS.get(name)
        if builtin is not None and "/" not in name:
            env = self.environment()
            for key, value in assigns or []:
                env[key] = value
            return builtin(self, Ctx(self.machine, self, argv, env, io, proc))
        command = self._lookup(name, io)
        if isinstance(command, int):
            return command
        env = self.environment()
        for key, value in assigns or []:
            env[key] = value
        own = proc is None
        if proc is None:
            proc = self.machine.procs.spawn(
                argv, ppid=self.pid or 612, session=self.session, hup_check=self.hup_check
            )
        else:
            proc.argv = list(argv)
        ctx = Ctx(self.machine, self, argv, env, io, proc)
        try:
            status = command(ctx)
        except BrokenPipeError:
            status = 128 + SIGPIPE
        finally:
            if own:
                self.machine.procs.reap(proc)
        sig = proc.signalled
        if sig is not None and status == 0:
            status = 128 + sig
        return status

    def _lookup(self, name: str, io: Stdio) -> Callable[[Ctx], int] | int:
        commands = self.machine.commands
        if "/" in name:
            vpath = self.machine.fs.norm(name, self.cwd)
            if self.machine.fs.is_file(vpath):
                return _script_runner(vpath)
            base = posixpath.basename(vpath)
            if posixpath.dirname(vpath) in BIN_DIRS and base in commands:
                return commands[base]
            if self.machine.fs.is_dir(vpath):
                _write(io.stderr, f"bash: {name}: Is a directory\n")
                return 126
            _write(io.stderr, f"bash: {name}: No such file or directory\n")
            return 127
        command = commands.get(name)
        if command is None and name in UNSUPPORTED_COMMANDS:
            _write(io.stderr, not_supported(name) + "\n")
            return STATUS
        if command is None:
            _write(io.stderr, f"bash: {name}: command not found\n")
            return 127
        return command

    # -- redirections --------------------------------------------------------------------------

    def _apply_redirs(
        self, redirs: list[Redir], io: Stdio, opened: list[InStream | OutStream]
    ) -> Stdio:
        if not redirs:
            return io
        ins: dict[int, InStream] = {0: io.stdin}
        outs: dict[int, OutStream] = {1: io.stdout, 2: io.stderr}
        fs = self.machine.fs
        for redir in redirs:
            if redir.op == "<<":
                doc = redir.heredoc
                assert doc is not None
                body = self.expand_str(doc.word, io) if doc.word is not None else doc.body
                ins[redir.fd] = BytesIn(body.encode())
                continue
            assert redir.target is not None
            target = self.expand_str(redir.target, io)
            if redir.op == "<<<":
                ins[redir.fd] = BytesIn((target + "\n").encode())
                continue
            if redir.op in (">&", "<&") and (target.isdigit() or target == "-"):
                if target == "-":
                    if redir.op == "<&":
                        ins[redir.fd] = EmptyIn()
                    else:
                        outs[redir.fd] = NullOut()
                elif redir.op == "<&" and int(target) in ins:
                    ins[redir.fd] = ins[int(target)]
                elif redir.op == ">&" and int(target) in outs:
                    outs[redir.fd] = outs[int(target)]
                else:
                    raise FsError(f"bash: {target}: Bad file descriptor")
                continue
            vpath = fs.norm(
                self.home + target[1:] if target == "~" or target.startswith("~/") else target,
                self.cwd,
            )
            if redir.op == "<":
                try:
                    source = FileIn(fs, vpath)
                except FsError as exc:
                    raise FsError(f"bash: {target}: {exc}") from None
                opened.append(source)
                ins[redir.fd] = source
                continue
            append = redir.op in (">>", "&>>")
            try:
                stream = FileOut(fs, vpath, append=append)
            except FsError as exc:
                raise FsError(f"bash: {target}: {exc}") from None
            opened.append(stream)
            if redir.op in ("&>", "&>>") or (redir.op == ">&" and redir.fd == 1):
                outs[1] = stream
                outs[2] = stream
            else:
                outs[redir.fd] = stream
        return Stdio(ins[0], outs[1], outs[2])

    # -- expansion -----------------------------------------------------------------------------

    def expand_words(self, words: list[Word], io: Stdio) -> list[str]:
        out: list[str] = []
        for word in words:
            out.extend(self._expand_fields(word, io))
        return out

    def expand_str(self, word: Word | None, io: Stdio) -> str:
        if word is None:
            return ""
        text = "".join(self._part_value(p, io, first=i == 0) for i, p in enumerate(word.parts))
        return text

    def _expand_fields(self, word: Word, io: Stdio) -> list[str]:
        static = word.static_text()
        if static is not None and not any(
            p.kind == "lit" and not p.quoted and (_GLOB_CHARS.search(p.text) or p.text[:1] == "~")
            for p in word.parts
        ):
            return [static]
        fields: list[str] = []
        cur: str | None = None
        globbable = False
        for index, part in enumerate(word.parts):
            value = self._part_value(part, io, first=index == 0)
            if part.kind == "lit" or part.quoted:
                cur = (cur or "") + value
                if part.kind == "lit" and not part.quoted and _GLOB_CHARS.search(value):
                    globbable = True
                continue
            if not value:
                continue
            pieces = value.split()
            if not pieces:
                if cur is not None:
                    fields.append(cur)
                    cur = None
                continue
            if value[0].isspace() and cur is not None:
                fields.append(cur)
                cur = None
            for k, piece in enumerate(pieces):
                if k == 0:
                    cur = (cur or "") + piece
                else:
                    assert cur is not None
                    fields.append(cur)
                    cur = piece
            if value[-1].isspace():
                assert cur is not None
                fields.append(cur)
                cur = None
        if cur is not None:
            fields.append(cur)
        if not globbable:
            return fields
        out: list[str] = []
        for item in fields:
            matches = self._glob(item) if _GLOB_CHARS.search(item) else []
            out.extend(matches or [item])
        return out

    def _glob(self, pattern: str) -> list[str]:
        fs = self.machine.fs
        absolute = pattern.startswith("/")
        segments = [s for s in pattern.split("/") if s]
        bases = ["/" if absolute else ""]
        for segment in segments:
            nxt: list[str] = []
            for base in bases:
                vdir = fs.norm(base or ".", self.cwd)
                if _GLOB_CHARS.search(segment):
                    try:
                        names = fs.listdir(vdir)
                    except FsError:
                        continue
                    for name in names:
                        if name.startswith(".") and not segment.startswith("."):
                            continue
                        if fnmatch.fnmatchcase(name, segment):
                            nxt.append(posixpath.join(base, name) if base else name)
                else:
                    candidate = posixpath.join(base, segment) if base else segment
                    if fs.exists(fs.norm(candidate, self.cwd)):
                        nxt.append(candidate)
            bases = nxt
        return sorted(bases)

    def _part_value(self, part: Part, io: Stdio, *, first: bool) -> str:
        if part.kind == "lit":
            text = part.text
            if first and not part.quoted and (text == "~" or text.startswith("~/")):
                return self.home + text[1:]
            return text
        if part.kind == "cmd":
            return self._command_substitution(part.text, io)
        if part.kind == "arith":
            return str(self._arith(self._expand_inline(part.text, io)))
        return self._param(part, io)

    def _expand_inline(self, text: str, io: Stdio) -> str:
        from xyclaw.sim.shparse import parse_heredoc_body

        return self.expand_str(parse_heredoc_body(text), io)

    def _command_substitution(self, script: str, io: Stdio) -> str:
        buffer = BufferOut()
        sub = self.subshell()
        status = sub.run_script(script, Stdio(EmptyIn(), buffer, io.stderr))
        self.last_status = status
        return buffer.text().rstrip("\n")

    def get_var(self, name: str) -> str | None:
        if name == "?":
            return str(self.last_status)
        if name == "$":
            return str(self.pid or 612)
        if name == "!":
            return self.last_bg
        if name == "#":
            return str(len(self.positional))
        if name in ("@", "*"):
            return " ".join(self.positional)
        if name == "0":
            return self.argv0
        if name == "-":
            return "hB"
        if name.isdigit():
            index = int(name) - 1
            return self.positional[index] if index < len(self.positional) else None
        if name == "PWD":
            return self.cwd
        if name == "RANDOM":
            return str(self.machine.rng.randrange(32768))
        return self.vars.get(name)

    def _param(self, part: Part, io: Stdio) -> str:
        name = part.text
        value = self.get_var(name)
        op = part.op
        if op == "len":
            return str(len(value or ""))
        if not op:
            if value is None:
                if self.nounset and not name.isdigit() and name not in ("@", "*"):
                    raise ExpansionError(f"bash: {name}: unbound variable")
                return ""
            return value
        unset = value is None
        empty = unset or value == ""
        if op in (":-", "-"):
            return (
                self.expand_str(part.arg, io) if (empty if op == ":-" else unset) else value or ""
            )
        if op in (":=", "="):
            if empty if op == ":=" else unset:
                value = self.expand_str(part.arg, io)
                self.vars[name] = value
            return value or ""
        if op in (":+", "+"):
            return "" if (empty if op == ":+" else unset) else self.expand_str(part.arg, io)
        if op in (":?", "?"):
            if empty if op == ":?" else unset:
                message = self.expand_str(part.arg, io) or "parameter null or not set"
                raise ExpansionError(f"bash: {name}: {message}")
            return value or ""
        text = value or ""
        pattern = self.expand_str(part.arg, io)
        if op in ("#", "##"):
            cuts = range(len(text) + 1) if op == "#" else range(len(text), -1, -1)
            for cut in cuts:
                if fnmatch.fnmatchcase(text[:cut], pattern):
                    return text[cut:]
            return text
        cuts = range(len(text), -1, -1) if op == "%" else range(len(text) + 1)
        for cut in cuts:
            if fnmatch.fnmatchcase(text[cut:], pattern):
                return text[:cut]
        return text

    def _arith(self, expr: str) -> int:
        expr = expr.strip()
        if not expr:
            return 0

        def lookup(match: re.Match[str]) -> str:
            raw = self.get_var(match.group(0)) or "0"
            return raw if re.fullmatch(r"-?\d+", raw.strip()) else "0"

        substituted = re.sub(r"[A-Za-z_][A-Za-z0-9_]*", lookup, expr)
        substituted = substituted.replace("&&", " and ").replace("||", " or ")
        substituted = re.sub(r"!(?!=)", " not ", substituted)
        try:
            tree = ast.parse(substituted, mode="eval")
            return int(_eval_arith(tree.body))
        except (SyntaxError, ValueError, ZeroDivisionError, TypeError) as exc:
            raise ExpansionError(f"bash: {expr}: syntax error in expression") from exc


_BINOPS: dict[type[ast.operator], Callable[[int, int], int]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: lambda a, b: int(a / b) if b else _raise_zero(),
    ast.FloorDiv: lambda a, b: int(a / b) if b else _raise_zero(),
    ast.Mod: lambda a, b: a - b * int(a / b) if b else _raise_zero(),
    ast.Pow: operator.pow,
    ast.LShift: operator.lshift,
    ast.RShift: operator.rshift,
    ast.BitAnd: operator.and_,
    ast.BitOr: operator.or_,
    ast.BitXor: operator.xor,
}
_CMPOPS: dict[type[ast.cmpop], Callable[[int, int], bool]] = {
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
}


def _raise_zero() -> int:
    raise ZeroDivisionError


def _eval_arith(node: ast.expr) -> int:
    if isinstance(node, ast.Constant) and isinstance(node.value, int):
        return int(node.value)
    if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
        return _BINOPS[type(node.op)](_eval_arith(node.left), _eval_arith(node.right))
    if isinstance(node, ast.UnaryOp):
        value = _eval_arith(node.operand)
        if isinstance(node.op, ast.USub):
            return -value
        if isinstance(node.op, ast.UAdd):
            return value
        if isinstance(node.op, ast.Not):
            return int(not value)
        if isinstance(node.op, ast.Invert):
            return ~value
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in _CMPOPS:
        return int(
            _CMPOPS[type(node.ops[0])](_eval_arith(node.left), _eval_arith(node.comparators[0]))
        )
    if isinstance(node, ast.BoolOp):
        values = [_eval_arith(v) for v in node.values]
        return int(all(values) if isinstance(node.op, ast.And) else any(values))
    if isinstance(node, ast.IfExp):
        return _eval_arith(node.body) if _eval_arith(node.test) else _eval_arith(node.orelse)
    raise ValueError("unsupported expression")


def _write(stream: OutStream, text: str) -> None:
    with contextlib.suppress(BrokenPipeError):
        stream.write(text.encode())


def _redirected(redirs: list[Redir]) -> tuple[bool, bool]:
    """Whether stdout and stderr end up somewhere other than the inherited streams."""
    out = err = False
    for redir in redirs:
        if redir.op in ("&>", "&>>"):
            out = err = True
        elif redir.op in (">", ">>") and redir.fd == 1:
            out = True
        elif redir.op in (">", ">>") and redir.fd == 2:
            err = True
        elif redir.op == ">&":
            target = redir.target.static_text() if redir.target is not None else None
            if target == "1" and redir.fd == 2:
                err = out
            elif target == "2" and redir.fd == 1:
                out = err
            elif target == "-":
                if redir.fd == 1:
                    out = True
                else:
                    err = True
            elif target is not None and not target.isdigit() and redir.fd == 1:
                out = err = True
    return out, err


def _holds_output(node: AndOr) -> bool:
    """Whether a background job keeps writing to the shell's own stdout/stderr."""

    def command_holds(cmd: Command, last: bool) -> bool:
        out, err = _redirected(cmd.redirs)
        if out and err:
            return False
        if isinstance(cmd, Simple):
            return not err or (last and not out)
        if isinstance(cmd, Group):
            return any(_holds_output(item) for item, _ in cmd.body.items)
        return True

    pipelines = [node.first] + [p for _, p in node.rest]
    for pipeline in pipelines:
        for index, cmd in enumerate(pipeline.cmds):
            if command_holds(cmd, index == len(pipeline.cmds) - 1):
                return True
    return False


def _script_runner(vpath: str) -> Callable[[Ctx], int]:
    """Run a file of the node: a shell script, or a Python script through the python command."""

    def run(ctx: Ctx) -> int:
        fs = ctx.machine.fs
        try:
            text = fs.read_text(vpath)
        except FsError as exc:
            ctx.err(f"bash: {ctx.argv[0]}: {exc}\n")
            return 126
        first = text.split("\n", 1)[0]
        if first.startswith("#!") and "python" in first:
            python = ctx.machine.commands["python3"]
            ctx.argv = ["python3", vpath, *ctx.argv[1:]]
            return python(ctx)
        sub = ctx.shell.subshell()
        sub.positional = list(ctx.argv[1:])
        sub.vars.update(ctx.env)
        if ctx.proc is not None:
            sub.pid = ctx.proc.pid
        status = sub.run_script(text, ctx.io, name=ctx.argv[0])
        return sub.run_exit_trap(ctx.io, status)

    return run
