"""What the simulated node cannot do, said plainly (issue 30).

The node has no network and nothing can be installed on it: package managers, ``git clone``,
downloads and ``conda`` answer with :data:`NO_NETWORK` and fail, never with a fake success.
Its shell is a listed subset of bash (docs/sim-node.md); a construct outside it is refused with
``not supported by the simulated shell: <construct>`` (status 2) before anything runs, instead
of an error real bash would never give. The subset is kept honest by
tests/sim/test_shell_differential.py, which runs setup/run-shaped scripts through both shells.
"""

from __future__ import annotations

import re

from xyclaw.sim.context import Ctx
from xyclaw.sim.vfs import FsError

NO_NETWORK = (
    "simulated node: no network; nothing can be installed here; "
    "use your own host or a provider for real setup"
)
NOT_SUPPORTED = "not supported by the simulated shell: {construct}"
STATUS = 2  # a refusal, as bash's own usage errors


def not_supported(construct: str) -> str:
    return NOT_SUPPORTED.format(construct=construct)


def _no_network(ctx: Ctx) -> int:
    ctx.err(NO_NETWORK + "\n")
    return 1


#: git's subcommands that reach a remote; the others are outside the simulated node.
_GIT_NETWORK = frozenset({"clone", "fetch", "pull", "push", "submodule", "ls-remote", "lfs"})


def git(ctx: Ctx) -> int:
    sub = next((a for a in ctx.args if not a.startswith("-")), "")
    if sub in _GIT_NETWORK or not sub:
        return _no_network(ctx)
    ctx.err(not_supported(f"git {sub}") + "\n")
    return STATUS


#: What the simulated node's image ships (the simulated training and serving processes stand
#: for these): ``pip install`` of nothing but these is answered as pip answers on a node that
#: has them, with a last line saying nothing was installed. Anything else needs the network.
IMAGE_PACKAGES = frozenset(
    {
        "torch",
        "torchvision",
        "numpy",
        "transformers",
        "peft",
        "datasets",
        "accelerate",
        "deepspeed",
        "vllm",
        "sentencepiece",
        "safetensors",
        "tokenizers",
    }
)
IMAGE_NOTE = "simulated node: these come with its image; nothing was installed or downloaded"
_SITE = "/usr/local/lib/python3.10/dist-packages"


def _requirement_name(requirement: str) -> str:
    """The project name of a requirement line (``peft>=0.13``, ``vllm[all]==0.6``)."""
    name = re.split(r"[\s\[<>=!~;@]", requirement.strip(), maxsplit=1)[0]
    return name.lower().replace("_", "-")


def _requirements(ctx: Ctx, args: list[str]) -> list[str] | None:
    """The requirements ``pip install`` was given (named, or read from ``-r FILE``); None
    when a file cannot be read (said on stderr)."""
    wanted: list[str] = []
    rest = iter(args)
    for arg in rest:
        if arg in ("-r", "--requirement"):
            name = next(rest, None)
            try:
                text = ctx.machine.fs.read_text(ctx.path(name or ""))
            except FsError as exc:
                ctx.err(f"ERROR: Could not open requirements file: {exc}\n")
                return None
            for line in text.splitlines():
                line = line.split("#", 1)[0].strip()
                if line and not line.startswith("-"):
                    wanted.append(line)
        elif not arg.startswith("-"):
            wanted.append(arg)
    return wanted


def pip(ctx: Ctx) -> int:
    """``pip install`` / ``pip download``: no network. An install of only what the image
    ships (:data:`IMAGE_PACKAGES`) is answered as pip does where they are present, and says
    that nothing was installed; ``pip --version`` answers."""
    args = ctx.args
    if not args or args[0] in ("--version", "-V"):
        ctx.out("pip 22.0.2 from /usr/lib/python3/dist-packages/pip (python 3.10)\n")
        return 0
    if args[0] == "install":
        wanted = _requirements(ctx, list(args[1:]))
        if wanted is None:
            return 1
        if wanted and all(_requirement_name(r) in IMAGE_PACKAGES for r in wanted):
            for requirement in wanted:
                ctx.out(f"Requirement already satisfied: {requirement} in {_SITE}\n")
            ctx.out(IMAGE_NOTE + "\n")
            return 0
        return _no_network(ctx)
    if args[0] in ("download", "wheel"):
        return _no_network(ctx)
    ctx.err(not_supported(f"pip {args[0]}") + "\n")
    return STATUS


#: Commands that would install or download: each answers with the one line.
COMMANDS = {
    name: _no_network
    for name in (
        "apt",
        "apt-get",
        "yum",
        "dnf",
        "zypper",
        "apk",
        "conda",
        "mamba",
        "micromamba",
        "wget",
        "huggingface-cli",
        "uv",
        "poetry",
        "npm",
        "snap",
        "docker",
        "rsync",
        "scp",
    )
} | {"git": git, "pip": pip, "pip3": pip}

#: Bash builtins and keywords the simulated shell does not have, by the name they start with.
UNSUPPORTED_COMMANDS = frozenset(
    {"let", "readarray", "mapfile", "coproc", "time", "select", "function", "case", "pushd", "popd"}
)

# -- constructs, found in the script's code (quoted text, comments, here-document bodies out) --

_START = r"(?:^|[;&|({]\s*|\s)"
_CONSTRUCTS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\bfor\s*\(\("), "for ((...)) arithmetic loops"),
    (re.compile(_START + r"function\s+[\w.:-]+"), "functions (function NAME)"),
    (re.compile(_START + r"[A-Za-z_][\w.:-]*\s*\(\s*\)"), "functions (NAME() { ... })"),
    (re.compile(_START + r"case\s+\S+\s+in\b"), "case ... esac"),
    (re.compile(_START + r"select\s+\w+\s+in\b"), "select"),
    (re.compile(r"(?:^|[;&|(\s])\(\("), "(( )) arithmetic commands"),
    (re.compile(_START + r"(?:declare|typeset|local)\s+-\w*[aA]"), "arrays (declare -a/-A)"),
    (
        re.compile(_START + r"(let|readarray|mapfile|coproc|time|pushd|popd)(?=\s|$)"),
        "{0}",
    ),
    (re.compile(r"\b[A-Za-z_]\w*\+?=\("), "arrays"),
    (re.compile(r"\$\{[#!]?[A-Za-z_]\w*\["), "arrays"),
    (re.compile(r"\$\{[A-Za-z_]\w*(?:\^|,)"), "case modification (${VAR^^})"),
    (re.compile(r"[<>]\("), "process substitution (<(...), >(...))"),
    (
        re.compile(r"(?<![$\\\w])\{[^{}\s,;]*(?:\.\.|,)[^{}\s;]*\}"),
        "brace expansion ({a,b}, {1..3})",
    ),
)
_WORDS_RE = re.compile(
    r"\b(?:function|case|select|declare|typeset|local|let|readarray|mapfile|coproc|time|"
    r"pushd|popd)\b"
)
_HEREDOC_RE = re.compile(r"<<-?\s*(['\"]?)([A-Za-z_]\w*)\1")
_QUOTED_RE = re.compile(r"'[^']*'|\"(?:[^\"\\]|\\.)*\"")
_COMMENT_RE = re.compile(r"(?:^|\s)#.*$")


def _code(text: str) -> str:
    """The script without what bash does not parse as code: here-document bodies, quoted
    strings, comments."""
    out: list[str] = []
    ending: list[str] = []
    for line in text.splitlines():
        if ending:
            if line.strip() == ending[0]:
                ending.pop(0)
            continue
        code = _COMMENT_RE.sub("", _QUOTED_RE.sub("''", line))
        ending += [m.group(2) for m in _HEREDOC_RE.finditer(line)]
        out.append(code)
    return "\n".join(out)


def unsupported_construct(text: str) -> str | None:
    """The first construct of ``text`` outside the simulated shell's subset, or None."""
    if not any(c in text for c in "({<>[^,") and not _WORDS_RE.search(text):
        return None  # the common case, a plain command line: no scan
    code = _code(text)
    for rx, what in _CONSTRUCTS:
        m = rx.search(code)
        if m:
            return m.group(1) if what == "{0}" else what
    return None
