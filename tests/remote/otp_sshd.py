"""A real OpenSSH server that asks for a one-time code after the key (a lab's 2FA).

Debian's OpenSSH (9.2) answers keyboard-interactive only through PAM, and names its PAM
service after the program's name: a link to /usr/sbin/sshd called ``xyclaw-otp-NNN`` reads
``/etc/pam.d/xyclaw-otp-NNN``, a stack of its own, so the machine's own ``sshd`` service is
never touched. The stack is ``pam_exec`` with ``expose_authtok``: a small script takes the
code the user typed from its standard input, accepts it when it is in the server's codes
file, and strikes it out (a one-time code works once). The server's config asks for
``publickey,keyboard-interactive``: the key first, then the code, as labs set 2FA up.

Writing to /etc/pam.d needs root: :func:`otp_unavailable` says why when it cannot be done.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

import paramiko

from tests.remote.sshd import SSHD, Sshd

PAM_DIR = Path("/etc/pam.d")
PAM_EXEC = Path("/lib/x86_64-linux-gnu/security/pam_exec.so")

CHECK = """#!/bin/sh
# pam_exec expose_authtok: the code the user typed comes on stdin (NUL-terminated)
code=$(tr -d '\\000\\n')
codes="$1"
[ -n "$code" ] && grep -qxF -- "$code" "$codes" || exit 1
grep -vxF -- "$code" "$codes" > "$codes.new"
mv "$codes.new" "$codes"
"""


def otp_unavailable() -> str | None:
    """Why a 2FA test server cannot run here (None: it can)."""
    if not SSHD.exists():
        return "/usr/sbin/sshd is not installed (apt-get install -y openssh-server)"
    if os.geteuid() != 0:
        return "a 2FA test sshd needs root: its PAM stack is a file in /etc/pam.d"
    if not PAM_EXEC.exists() and not any(Path("/lib").glob("*/security/pam_exec.so")):
        return "pam_exec.so is missing (Debian's libpam-modules)"
    return None


class OtpSshd(Sshd):
    """sshd asking for the key and then a one-time code from ``codes`` (one a line)."""

    def __init__(self, root: Path, authorized: list[paramiko.PKey], **kwargs: object) -> None:
        super().__init__(root, authorized, **kwargs)  # type: ignore[arg-type]
        self.service = f"xyclaw-otp-{os.getpid()}-{abs(hash(root)) % 100000}"
        self.binary = root / self.service
        self.codes = root / "codes"
        self.codes.write_text("")
        self.check = root / "check-code.sh"
        self.pam_file = PAM_DIR / self.service

    def add_code(self, code: str) -> None:
        with self.codes.open("a") as f:
            f.write(code + "\n")

    def unused_codes(self) -> list[str]:
        return self.codes.read_text().split()

    def _write_config(self) -> Path:
        config = super()._write_config()
        text = config.read_text()
        text = text.replace("UsePAM no", "UsePAM yes")
        text = text.replace("KbdInteractiveAuthentication no", "KbdInteractiveAuthentication yes")
        # sshd hands PAM a wrong password for root unless root may log in with one
        text = text.replace("PermitRootLogin prohibit-password", "PermitRootLogin yes")
        config.write_text(text + "AuthenticationMethods publickey,keyboard-interactive\n")
        return config

    def start(self) -> Sshd:
        if not self.binary.exists():
            self.binary.symlink_to(SSHD)
        self.check.write_text(CHECK)
        self.check.chmod(0o755)
        self.root.chmod(0o755)
        self.pam_file.write_text(
            f"auth required pam_exec.so expose_authtok quiet {self.check} {self.codes}\n"
            "auth optional pam_permit.so\n"
            "account required pam_permit.so\n"
            "session required pam_permit.so\n"
        )
        return super().start()

    def stop(self) -> None:
        super().stop()
        with contextlib.suppress(FileNotFoundError):
            self.pam_file.unlink()
