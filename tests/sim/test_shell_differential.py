"""Issue 30 point 3: the simulated shell's listed subset of bash (docs/sim-node.md), run by
real bash (/bin/bash) and by the simulated shell over setup/run-shaped scripts: same output,
same status. What is outside the subset is refused by name, where bash runs it.

Only harmless commands run here (files in a temp folder, text tools): real bash executes
every script on this machine.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from xyclaw.sim.context import Stdio
from xyclaw.sim.limits import NO_NETWORK
from xyclaw.sim.machine import Machine
from xyclaw.sim.shell import Shell
from xyclaw.sim.streams import BufferOut, BytesIn

BASH = shutil.which("bash") or "/bin/bash"

#: Setup and run blocks as job specs write them, each using constructs of the listed subset.
SCRIPTS = {
    "setup_dirs_and_loop": """set -euo pipefail
export RUN_DIR=out
mkdir -p "$RUN_DIR/ckpt"
for f in a b c; do echo "$f" > "$RUN_DIR/$f.txt"; done
ls "$RUN_DIR" | sort
cat "$RUN_DIR"/b.txt
""",
    "heredoc_config": """set -eu
cat > cfg.yaml <<EOF
lr: ${LR:-0.001}
steps: $((10 * 3))
name: "${RUN_NAME:-demo}"
EOF
cat cfg.yaml
""",
    "quoted_heredoc": """cat <<'EOF' > run.sh
echo "$HOME" $((1+1))
EOF
cat run.sh
wc -l < run.sh
""",
    "double_brackets": """N=${NODES:-2}
if [[ "$N" -gt 1 && -n "${N}" ]]; then echo multi; else echo single; fi
[[ "train.py" == *.py ]] && echo python-file
[[ ! -e no-such-file ]] && echo absent
""",
    "while_read_pipeline": """printf '%s\\n' 3 1 2 | sort | while read -r n; do echo "n=$n"; done
""",
    "trap_exit_status": """trap 'echo cleanup' EXIT
echo working
exit 3
""",
    "errexit": """set -e
echo before
false
echo after
""",
    "pipefail": """set -o pipefail
false | true
echo "status=$?"
true | true
echo "status=$?"
""",
    "parameter_expansion": """F=model.tar.gz
echo "${F%.gz}" "${F%%.*}" "${F#model.}" "${#F}" "${MISSING:-fallback}"
echo "$(basename /a/b/c.txt .txt)" "$(dirname /a/b/c.txt)"
""",
    "until_arithmetic": """i=0
until [ "$i" -ge 3 ]; do i=$((i + 1)); done
echo "i=$i" $(( (i * 7) % 4 ))
""",
    "groups_and_subshells": """test -f missing.txt || { echo missing; }
mkdir -p sub
( cd sub && echo "$(basename "$(pwd)")" )
basename "$(pwd)" >/dev/null && echo back
""",
    "nounset_default": """set -u
echo "${UNSET_VAR:-default}"
""",
    "here_string_read": """read -r a b <<< "x y"
echo "$b-$a"
""",
    "and_or_not": """! false && echo negated
false || echo recovered
true && false || echo either
""",
    "glob_loop": """mkdir -p logs && touch logs/1.log logs/2.log logs/x.txt
for f in logs/*.log; do echo "$f"; done
""",
    "export_env": """export XY_A=1 XY_B="two words"
env | grep '^XY_' | sort
""",
    "printf_formats": """printf '%05.1f|%-4s|%x|%s\\n' 3.14159 ab 255 "q r"
""",
    "if_elif_else": """RANK=${NODE_RANK:-1}
if [ "$RANK" = 0 ]; then echo head; elif [ "$RANK" -lt 4 ]; then echo worker; else echo other; fi
""",
    "stderr_redirect": """echo to-err >&2
echo both 2>&1
ls no-such-dir 2>/dev/null || echo "ls failed"
""",
    "head_tail_cut": """seq 1 20 > n.txt
head -n 3 n.txt | tail -n 1
printf 'a,b,c\\n1,2,3\\n' | cut -d, -f2
grep -c 1 n.txt
""",
}

#: Real bash constructs outside the subset, each refused by name in the simulated shell.
OUTSIDE = {
    "for ((i=0; i<2; i++)); do echo $i; done": "for ((...)) arithmetic loops",
    "greet() { echo hi; }; greet": "functions (NAME() { ... })",
    "function greet { echo hi; }; greet": "functions (function NAME)",
    "case x in x) echo yes;; esac": "case ... esac",
    "(( 3 > 2 )) && echo yes": "(( )) arithmetic commands",
    "a=(1 2 3); echo ok": "arrays",
    "x=ab; echo ${x^^}": "case modification (${VAR^^})",
    "cat <(echo hi)": "process substitution (<(...), >(...))",
    "echo {1..3}": "brace expansion ({a,b}, {1..3})",
    "let i=1+2; echo $i": "let",
    "declare -A m; echo ok": "arrays (declare -a/-A)",
}


def _bash(script: str, cwd: Path) -> tuple[int, str, str]:
    done = subprocess.run(
        [BASH, "-c", script],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": str(cwd)},
        timeout=30,
        stdin=subprocess.DEVNULL,
    )
    return done.returncode, done.stdout, done.stderr


def _sim(machine: Machine, script: str) -> tuple[int, str, str]:
    out, err = BufferOut(), BufferOut()
    shell = Shell(machine, env=machine.base_env("root"), cwd="/root")
    io = Stdio(BytesIn(b""), out, err)
    status = shell.run_exit_trap(io, shell.run_script(script, io))  # as a session runs it
    return status, out.text(), err.text()


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_the_listed_subset_answers_as_real_bash(
    name: str, machine: Machine, tmp_path: Path
) -> None:
    script = SCRIPTS[name]
    real = tmp_path / "real"
    real.mkdir()
    got = _sim(machine, script)
    want = _bash(script, real)
    assert got[:2] == want[:2], f"{name}: simulated {got} vs bash {want}"
    assert bool(got[2]) == bool(want[2]), f"{name}: stderr {got[2]!r} vs {want[2]!r}"


@pytest.mark.parametrize("script", sorted(OUTSIDE))
def test_outside_the_subset_is_refused_by_name(
    script: str, machine: Machine, tmp_path: Path
) -> None:
    status, out, err = _sim(machine, script)
    assert (status, out) == (2, "")
    assert err == f"not supported by the simulated shell: {OUTSIDE[script]}\n"
    real, _, real_err = _bash(script, tmp_path)
    assert real == 0 and not real_err  # real bash has it: the refusal is the simulator's limit


@pytest.mark.parametrize(
    "command",
    [
        "pip install flash-attn",  # what the simulated image ships is said so: test_sim_training
        "pip3 install bitsandbytes",
        "python -m pip install trl",
        "apt-get install -y git",
        "apt update",
        "yum install -y htop",
        "conda create -n env python=3.10",
        "git clone https://github.com/NVIDIA/nccl-tests",
        "wget https://example.com/model.bin",
        "curl -fsSL https://example.com/install.sh",
        "huggingface-cli download meta-llama/Llama-3-8B",
    ],
)
def test_installs_and_downloads_say_what_the_node_is(command: str, machine: Machine) -> None:
    # never run through real bash: these would install on this machine
    status, out, err = _sim(machine, f"{command} && echo done")
    assert status != 0 and out == ""
    assert err == NO_NETWORK + "\n"


def test_what_the_node_lacks_is_named_not_imitated(machine: Machine) -> None:
    assert _sim(machine, "python -m http.server 8000") == (
        2,
        "",
        "not supported by the simulated shell: python -m http.server\n",
    )
    assert _sim(machine, "git status")[2] == "not supported by the simulated shell: git status\n"
    # what is supported still works, quoted text is not mistaken for a construct
    assert _sim(machine, "echo 'f() { x; }' \"{1..3}\" $((2 + 3))") == (
        0,
        "f() { x; } {1..3} 5\n",
        "",
    )
    script = "cat <<'EOF'\ndef f(x=(1, 2)):\n    return {1, 2}\nEOF\n"
    assert _sim(machine, script) == (0, "def f(x=(1, 2)):\n    return {1, 2}\n", "")
