"""The node's shell: what bootstrap scripts rely on."""

from __future__ import annotations

import threading
import time

import pytest

from xyclaw.sim.machine import Machine


def test_lists_and_conditionals(sh) -> None:
    r = sh("echo a; false && echo no || echo fallback; true && echo yes")
    assert r.out == "a\nfallback\nyes\n"
    assert r.status == 0


def test_exit_status_of_last_command_and_negation(sh) -> None:
    assert sh("true; false").status == 1
    assert sh("! false").status == 0
    assert sh("exit 7").status == 7


def test_unknown_command_answers_like_bash(sh) -> None:
    r = sh("frobnicate --now")
    assert r.status == 127
    assert r.err == "bash: frobnicate: command not found\n"


def test_variables_quoting_and_expansion(sh) -> None:
    r = sh(
        "X=hello; Y='a  b'; export Z=zed; "
        'echo $X "$Y" $Y \'$X\' ${X}-${MISSING:-dflt} ${#X} $((2 * 21)) "$(echo sub)"'
    )
    assert r.out == "hello a  b a b $X hello-dflt 5 42 sub\n"


def test_prefix_assignment_reaches_the_command_only(sh) -> None:
    r = sh("FOO=bar printenv FOO; echo [${FOO}]")
    assert r.out == "bar\n[]\n"


def test_export_reaches_child_commands(sh) -> None:
    assert sh("NCCL_IB_HCA=mlx5_0; printenv NCCL_IB_HCA").status == 1
    r = sh("export NCCL_IB_HCA=mlx5_0; printenv NCCL_IB_HCA")
    assert r.out == "mlx5_0\n"


def test_cd_pwd_and_relative_paths(sh) -> None:
    r = sh("mkdir -p work/sub && cd work && echo x > sub/f && cd sub && pwd && cat f && cd -")
    assert r.out == "/root/work/sub\nx\n/root/work\n"
    assert sh("cd /nowhere").err == "bash: cd: /nowhere: No such file or directory\n"


def test_files_mkdir_ls_cat_rm(sh, machine: Machine) -> None:
    r = sh("mkdir -p /opt/a/b && echo one > /opt/a/b/x && echo two >> /opt/a/b/x && ls /opt/a/b")
    assert r.out == "x\n"
    assert (machine.root / "opt/a/b/x").read_text() == "one\ntwo\n"
    r = sh("cat /opt/a/b/x missing; echo rc=$?")
    assert r.out == "one\ntwo\nrc=1\n"
    assert "cat: missing: No such file or directory" in r.err
    assert sh("rm /opt/a").status == 1
    assert sh("rm -rf /opt/a && test -e /opt/a").status == 1
    assert sh("mkdir /opt/x/y").status == 1


def test_test_and_brackets(sh) -> None:
    r = sh(
        "[ -d /root ] && echo dir; test -f /etc/hostname && echo file; "
        "[ 3 -lt 10 ] && echo lt; [ abc = abc ] && echo eq; [ -z '' ] && echo empty; "
        "[[ node-1 == node-* ]] && echo glob; [ -e /nope ] || echo none"
    )
    assert r.out == "dir\nfile\nlt\neq\nempty\nglob\nnone\n"


def test_if_for_while(sh) -> None:
    r = sh(
        "for h in a b c; do echo host=$h; done\n"
        "i=0; while [ $i -lt 3 ]; do i=$((i+1)); done; echo i=$i\n"
        "if [ -d /nope ]; then echo yes; elif true; then echo elif; else echo no; fi"
    )
    assert r.out == "host=a\nhost=b\nhost=c\ni=3\nelif\n"


def test_pipes_and_text_tools(sh) -> None:
    r = sh("printf 'b\\na\\nc\\n' | sort | head -n 2 | wc -l; echo -e 'x\\ny' | grep -c y")
    assert r.out == "2\n1\n"


def test_redirections_and_here_documents(sh, machine: Machine) -> None:
    r = sh(
        "cat > /tmp/cfg <<EOF\nhost=$(hostname)\nliteral=\\$HOME\nEOF\n"
        "cat /tmp/cfg; ls /nope 2>/dev/null; echo rc=$?"
    )
    assert r.out == "host=node-0\nliteral=$HOME\nrc=2\n"
    r = sh("(echo out; echo err >&2) > /tmp/both 2>&1; cat /tmp/both")
    assert r.out == "out\nerr\n"


def test_set_e_stops_at_first_failure(sh) -> None:
    r = sh("set -e; echo one; false; echo two")
    assert r.out == "one\n"
    assert r.status == 1


def test_syntax_error(sh) -> None:
    r = sh("if then fi")
    assert r.status == 2
    assert "syntax error" in r.err


def test_stdin_reaches_commands(sh) -> None:
    assert sh("cat > /tmp/in && wc -c < /tmp/in", stdin=b"12345").out == "5\n"


def test_system_information(sh, machine: Machine) -> None:
    assert sh("hostname").out == "node-0\n"
    assert sh("uname -a").out.startswith("Linux node-0 5.15.0-")
    assert sh("nproc").out == f"{machine.shape.cpus}\n"
    free = sh("free -b").out.splitlines()
    assert free[0].split() == ["total", "used", "free", "shared", "buff/cache", "available"]
    assert int(free[1].split()[1]) == machine.shape.ram_gib * 1024**3
    df = sh("df -B1 /root /shared").out.splitlines()
    assert df[0].split()[:2] == ["Filesystem", "1B-blocks"]
    assert df[1].split()[-1] == "/" and df[2].split()[-1] == "/shared"


def test_ps_kill_and_nohup_background(sh, machine: Machine) -> None:
    r = sh("nohup sleep 30 > /tmp/sleep.log 2>&1 & echo $!")
    pid = int(r.out.strip())
    assert pid in {p.pid for p in machine.procs.all()}
    assert "sleep 30" in sh("ps aux").out
    assert sh(f"kill {pid}").status == 0
    deadline = time.monotonic() + 5
    while machine.procs.get(pid) is not None and time.monotonic() < deadline:
        time.sleep(0.02)
    assert machine.procs.get(pid) is None
    assert sh(f"kill {pid}").err == f"bash: kill: ({pid}) - No such process\n"


def test_pkill_by_full_command_line(sh, machine: Machine) -> None:
    sh("sleep 60 & sleep 61 &")
    assert len(machine.procs.match("sleep 6", full=True)) == 2
    assert sh("pkill -f 'sleep 6'").status == 0
    deadline = time.monotonic() + 5
    while machine.procs.match("sleep 6", full=True) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert machine.procs.match("sleep 6", full=True) == []
    assert sh("pkill -f 'sleep 6'").status == 1


def test_sleep_is_interrupted_by_a_signal(sh, machine: Machine) -> None:
    result: list[int] = []
    thread = threading.Thread(target=lambda: result.append(sh("sleep 30").status))
    thread.start()
    deadline = time.monotonic() + 5
    while not machine.procs.match("^sleep", full=True) and time.monotonic() < deadline:
        time.sleep(0.01)
    for proc in machine.procs.match("^sleep", full=True):
        machine.signal_pid(proc.pid, 15)
    thread.join(5)
    assert result == [143]


def test_timeout_and_bash_c(sh) -> None:
    assert sh("timeout 0.1 sleep 5").status == 124
    r = sh("bash -c 'echo $0-$1; exit 3' name arg")
    assert r.out == "name-arg\n"
    assert r.status == 3


def test_scripts_run_from_files(sh) -> None:
    sh("printf 'echo from-script $1\\nexit 4\\n' > /root/s.sh")
    r = sh("bash /root/s.sh x; echo rc=$?")
    assert r.out == "from-script x\nrc=4\n"


def test_dmesg_shows_kernel_lines(sh) -> None:
    lines = sh("dmesg").out.splitlines()
    assert any("NVRM: loading NVIDIA UNIX" in line for line in lines)
    assert all(line.startswith("[") for line in lines)


@pytest.mark.parametrize("command", ["which nvidia-smi", "command -v all_reduce_perf"])
def test_tools_are_on_the_path(sh, command: str) -> None:
    r = sh(command)
    assert r.status == 0
    assert r.out.startswith("/")
