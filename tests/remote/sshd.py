"""A real OpenSSH server for tests: its own config, keys and free loopback port."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

import paramiko

SSHD = Path("/usr/sbin/sshd")
SSH_KEYGEN = shutil.which("ssh-keygen") or "/usr/bin/ssh-keygen"
MISSING = (
    "/usr/sbin/sshd is not installed: `make test` installs Debian's openssh-server "
    "(or run: apt-get install -y openssh-server)"
)


def keygen(path: Path, kind: str = "ed25519") -> paramiko.PKey:
    """A new unencrypted key pair at ``path`` (+ ``.pub``) made by ssh-keygen."""
    subprocess.run(
        [SSH_KEYGEN, "-q", "-t", kind, "-N", "", "-C", "xyclaw-test", "-f", str(path)],
        check=True,
        stdin=subprocess.DEVNULL,
    )
    return paramiko.PKey.from_path(path)


def public_line(key: paramiko.PKey) -> str:
    return f"{key.get_name()} {key.get_base64()}"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _children(pid: int) -> list[int]:
    """Every descendant of ``pid`` (read from /proc), deepest last."""
    parents: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        parents.setdefault(ppid, []).append(int(entry.name))
    found: list[int] = []
    todo = [pid]
    while todo:
        for child in parents.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


class Sshd:
    """``/usr/sbin/sshd -D -e -f CONFIG`` on 127.0.0.1; ``restart`` keeps port and host key."""

    def __init__(
        self,
        root: Path,
        authorized: list[paramiko.PKey],
        *,
        extra_config: str = "",
        log_level: str = "ERROR",
    ) -> None:
        self.root = root
        root.mkdir(parents=True, exist_ok=True)
        self.host_key_path = root / "ssh_host_ed25519_key"
        self.host_key = keygen(self.host_key_path)
        self.authorized_keys = root / "authorized_keys"
        self.authorized_keys.write_text("".join(public_line(k) + "\n" for k in authorized))
        self.log_path = root / "sshd.log"
        self.extra_config = extra_config
        self.log_level = log_level
        self.port = 0
        self.proc: subprocess.Popen[bytes] | None = None
        #: the program started: sshd itself, or a link to it (see tests/remote/otp_sshd.py)
        self.binary = SSHD

    @property
    def pid(self) -> int | None:
        return None if self.proc is None else self.proc.pid

    def _session_env(self) -> str:
        """Sessions get a HOME of their own: root's ~/.bashrc on this kind of machine runs
        `pyenv init`, whose rehash lock, left behind by a killed session, makes every later
        command wait 60 s; a test server must not depend on the machine's dotfiles."""
        home = self.root / "home"
        home.mkdir(exist_ok=True)
        lines = self.extra_config.splitlines()
        for i, line in enumerate(lines):
            if line.strip().startswith("SetEnv "):
                lines[i] = f"{line.rstrip()} HOME={home}"
                return "\n".join(lines)
        return "\n".join([f"SetEnv HOME={home}", *lines])

    def _write_config(self) -> Path:
        config = self.root / "sshd_config"
        config.write_text(
            f"""Port {self.port}
ListenAddress 127.0.0.1
HostKey {self.host_key_path}
PidFile {self.root / "sshd.pid"}
AuthorizedKeysFile {self.authorized_keys}
StrictModes no
UsePAM no
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
AllowTcpForwarding yes
MaxStartups 100:30:200
MaxSessions 20
Subsystem sftp internal-sftp
LogLevel {self.log_level}
{self._session_env()}
"""
        )
        return config

    def start(self) -> Sshd:
        if os.geteuid() == 0:
            Path("/run/sshd").mkdir(mode=0o755, exist_ok=True)
        keep_port = bool(self.port)  # a restart must come back on the same port
        for _attempt in range(5):
            if not self.port:
                self.port = _free_port()
            config = self._write_config()
            with self.log_path.open("ab") as log:
                self.proc = subprocess.Popen(
                    [str(self.binary), "-D", "-e", "-f", str(config)],
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=log,
                )
            if self._wait_ready():
                return self
            self.stop()
            if keep_port:
                time.sleep(0.1)
            else:
                self.port = 0  # somebody else took the port: pick another
        raise RuntimeError(f"sshd did not start; see {self.log_path}:\n{self.log_path.read_text()}")

    def _wait_ready(self, timeout: float = 5.0) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert self.proc is not None
            if self.proc.poll() is not None:
                return False
            with (
                contextlib.suppress(OSError),
                socket.create_connection(("127.0.0.1", self.port), timeout=1) as s,
            ):
                s.settimeout(1)
                if s.recv(4) == b"SSH-":
                    return True
            time.sleep(0.01)
        return False

    def stop(self) -> None:
        """Like a crash or reboot: the listener and every session it started go away."""
        if self.proc is None:
            return
        descendants = _children(self.proc.pid)
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=5)
        for pid in descendants:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        self.proc = None

    def restart(self) -> Sshd:
        self.stop()
        return self.start()
