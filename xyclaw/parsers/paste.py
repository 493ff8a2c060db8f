"""What a person's paste carries around the command output, taken off before any parser reads it.

People paste output from a terminal, an issue thread or a chat: with the prompt and the command
they typed (``$ ibstat``, ``root@h:~# ibv_devinfo``), a shell trace of it (``+ ibstat``), the
MPI launcher's rank prefix on every line (``[1,0]<stdout>:``), Windows line ends, a Markdown
fence, and the indentation of a quote or a list. :func:`read_paste` takes all of that off and
says which command the prompt named, so every parser reads one clean shape
(:func:`clean_paste` is the text alone). It never raises and keeps every output line.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Iterable
from dataclasses import dataclass

#: ``user@host:~/dir$ cmd``, ``root@h:~# cmd``, ``(venv) user@h:~$ cmd``, ``[user@h dir]$ cmd``:
#: a prompt is known by the user@host before its ``$``/``#`` (a bare ``# `` starts nccl-tests'
#: header lines, so it is not one).
_HOST_PROMPT_RE = re.compile(
    r"^(?:\([\w.-]{1,64}\)\s{1,4})?"
    r"(?:\[?[\w.-]{1,64}@[\w.-]{1,253}(?::[^\s$#]{0,512})?(?:\s{1,4}[^\s\]$#]{1,512})?\]?)"
    r"\s{0,4}[$#%>]\s{0,4}(?P<cmd>.*)$"
)
#: ``$ cmd``, ``% cmd``: the shell's own sign then a command; PowerShell's ``PS C:\\x> cmd`` and
#: cmd.exe's ``C:\\x>cmd``.
_BARE_PROMPT_RE = re.compile(
    r"^(?:[$%]\s{1,4}|(?:PS )?[A-Za-z]:\\[^>\n]{0,512}>\s{0,4})(?P<cmd>\S.*)$"
)
_QUOTE_RE = re.compile(r"^\s{0,3}> ?")
#: ``set -x`` traces: ``+ ibstat``, ``++ hostname``.
_TRACE_RE = re.compile(r"^\+{1,8} (?P<cmd>\S.*)$")
#: Open MPI's ``--tag-output``: ``[1,0]<stdout>:``; Slurm's ``srun --label``: ``0: ``.
_MPI_PREFIX_RE = re.compile(r"^\[\d{1,6},\d{1,6}\]<std(?:out|err)>: ?")
_FENCE_RE = re.compile(r"^\s{0,12}(?:```|~~~)[\w+-]{0,32}\s*$")
_ANSI_RE = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b[@-Z\\-_]")


@dataclass(frozen=True, slots=True)
class Pasted:
    """A paste made plain: the output lines alone, and the commands its prompts named."""

    text: str
    commands: tuple[str, ...] = ()
    mpi_prefixed: bool = False

    @property
    def command(self) -> str | None:
        """The first command the paste shows being typed (``nvidia-smi -q``), if any."""
        return self.commands[0] if self.commands else None


def read_paste(text: str | Iterable[str]) -> Pasted:
    """The output in ``text`` without prompts, command lines, traces, MPI rank prefixes,
    Markdown fences, CR line ends, colour codes and common indentation."""
    if not isinstance(text, str):
        text = "\n".join(line.rstrip("\r\n") for line in text)
    text = _ANSI_RE.sub("", text.replace("\r\n", "\n").replace("\r", "\n"))
    lines = text.split("\n")
    if all(_QUOTE_RE.match(line) for line in lines if line.strip()):  # a Markdown quote
        lines = [_QUOTE_RE.sub("", line, count=1) for line in lines]
    commands: list[str] = []
    kept: list[str] = []
    mpi = False
    for raw in lines:
        line = raw
        m = _MPI_PREFIX_RE.match(line.lstrip())
        if m:
            mpi = True
            line = line.lstrip()[m.end() :]
        probe = line.strip()
        if _FENCE_RE.match(line):
            continue
        pm = _HOST_PROMPT_RE.match(probe) or _BARE_PROMPT_RE.match(probe)
        tm = None if pm else _TRACE_RE.match(probe)
        if pm or tm:
            cmd = ((pm or tm).group("cmd") if (pm or tm) else "").strip()  # type: ignore[union-attr]
            if cmd:
                commands.append(cmd)
            continue
        kept.append(line.rstrip())
    while kept and not kept[0].strip():
        kept.pop(0)
    while kept and not kept[-1].strip():
        kept.pop()
    body = textwrap.dedent("\n".join(kept))
    return Pasted(body + "\n" if body else "", tuple(commands), mpi)


def clean_paste(text: str | Iterable[str]) -> str:
    """:func:`read_paste`'s text alone: what every parser of pasted output reads."""
    return read_paste(text).text
