"""``xyclaw doctor``: check what the app needs and say how to fix what is wrong."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from xyclaw.config import Config
from xyclaw.errors import XyclawError
from xyclaw.paths import AppPaths

# What is set up (the Settings page's line too) lives below the Engine and this module (issue
# 35): the window asks the Engine, `xyclaw doctor` the same function.
from xyclaw.providers.setup_facts import PROVIDER_KEYS, SetupFacts, setup_facts  # noqa: F401
from xyclaw.secrets import SecretStore, keyring_usable
from xyclaw.store import LATEST_VERSION, peek_schema_version
from xyclaw.wording import Said, said


@dataclass(frozen=True)
class CheckResult:
    """One check. ``said``/``fix_said`` are kept worded (issue 35) so the CLI and the window
    show them in their language; ``detail``/``fix`` are the English (``--json``, logs)."""

    name: str
    ok: bool
    required: bool
    said: Said | str
    fix_said: Said | str = ""

    @property
    def detail(self) -> str:
        return str(self.said)

    @property
    def fix(self) -> str:
        return str(self.fix_said)


def _failed(name: str, exc: XyclawError, required: bool = True) -> CheckResult:
    """A XyClaw error as a FAIL line, keeping its worded message and hint where it has them."""
    return CheckResult(
        name, False, required, exc.said or exc.message, exc.hint_said or exc.hint or ""
    )


Check = Callable[[AppPaths, Config], CheckResult]


def check_python(paths: AppPaths, config: Config) -> CheckResult:
    ok = sys.version_info >= (3, 11)
    return CheckResult(
        "python",
        ok,
        True,
        said("op.doctor.python", version=sys.version.split()[0], executable=sys.executable),
        "" if ok else said("op.doctor.python.fix"),
    )


NO_DISPLAY_FIX = said("op.doctor.no_display.fix")


def check_qt(paths: AppPaths, config: Config) -> CheckResult:
    """Start a Qt application in a child process (the core itself never imports Qt)."""
    return qt_check(dict(os.environ))


def _headless(environ: dict[str, str]) -> bool:
    if not sys.platform.startswith("linux") or environ.get("QT_QPA_PLATFORM"):
        return False
    return not (environ.get("DISPLAY") or environ.get("WAYLAND_DISPLAY"))


def _qt_said(stderr: str) -> str:
    """Qt's own words when it gave up (it aborts the process, printing to stderr)."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    qpa = [line for line in lines if line.startswith("qt.qpa")]
    said = "; ".join(qpa or lines[-1:]) or "no output"
    return said if len(said) <= 300 else said[:297] + "..."


def qt_check(environ: dict[str, str]) -> CheckResult:
    """The Qt check in ``environ`` (DISPLAY, QT_QPA_PLATFORM... decide what Qt can open)."""
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "xyclaw.gui.probe"],
            capture_output=True,
            text=True,
            timeout=30,
            env=environ,
        )
    except (subprocess.TimeoutExpired, OSError) as exc:
        return CheckResult(
            "qt",
            False,
            False,
            said("op.doctor.qt.no_answer", error=str(exc)),
            said("op.doctor.qt.no_answer.fix"),
        )
    lines = proc.stdout.strip().splitlines()
    try:
        report = json.loads(lines[-1]) if lines else None
    except ValueError:
        report = None
    if not isinstance(report, dict):
        # Qt aborted before the probe could report: most often there is no display.
        if _headless(environ):
            return CheckResult(
                "qt",
                False,
                False,
                said("op.doctor.qt.no_display"),
                NO_DISPLAY_FIX,
            )
        return CheckResult(
            "qt",
            False,
            False,
            said("op.doctor.qt.cannot_open_exit", code=proc.returncode, said=_qt_said(proc.stderr)),
            said("op.doctor.qt.libraries.fix"),
        )
    if report.get("ok"):
        qt, platform = str(report["qt"]), str(report["platform"])
        return CheckResult("qt", True, False, said("op.doctor.qt.ok", qt=qt, platform=platform))
    return CheckResult(
        "qt",
        False,
        False,
        said("op.doctor.qt.cannot_open", error=_error_of(report)),
        NO_DISPLAY_FIX,
    )


def _error_of(report: dict[str, object]) -> Said | str:
    """The probe's error (Qt's own English words), or "unknown error" in the catalogue."""
    return str(report["error"]) if "error" in report else said("op.doctor.qt.unknown_error")


def check_data_folder(paths: AppPaths, config: Config) -> CheckResult:
    try:
        paths.ensure()
        with tempfile.NamedTemporaryFile(dir=paths.data_dir):
            pass
    except OSError as exc:
        return CheckResult(
            "data folder",
            False,
            True,
            said(
                "op.doctor.data_folder.not_writable", folder=str(paths.data_dir), error=exc.strerror
            ),
            said("op.doctor.data_folder.not_writable.fix"),
        )
    return CheckResult("data folder", True, True, str(paths.data_dir))


def check_schema(paths: AppPaths, config: Config) -> CheckResult:
    try:
        version = peek_schema_version(paths.database, check=True)
    except XyclawError as exc:
        return _failed("database", exc)
    if version > LATEST_VERSION:
        return CheckResult(
            "database",
            False,
            True,
            said("op.doctor.database.newer", version=version, latest=LATEST_VERSION),
            said("op.doctor.database.newer.fix"),
        )
    if version == 0:
        created = said("op.doctor.database.created", path=str(paths.database))
        return CheckResult("database", True, True, created)
    note = (
        ""
        if version == LATEST_VERSION
        else said("op.doctor.database.migrates", latest=LATEST_VERSION)
    )
    detail = said(
        "op.doctor.database.version", path=str(paths.database), version=version, note=note
    )
    return CheckResult("database", True, True, detail)


def check_keyring(paths: AppPaths, config: Config) -> CheckResult:
    mode = config.secrets.backend
    if mode == "file" or (mode == "auto" and not keyring_usable()):
        try:  # reading it checks its mode: a file others can read is refused
            SecretStore.choose("file", paths.secrets_file).get("doctor-probe")
        except XyclawError as exc:
            return _failed("secrets", exc)
        return CheckResult(
            "secrets",
            True,
            True,
            said("op.doctor.secrets.file", path=str(paths.secrets_file)),
        )
    try:
        store = SecretStore.choose(mode, paths.secrets_file)
        store.get("doctor-probe")
    except XyclawError as exc:
        return _failed("secrets", exc)
    return CheckResult(
        "secrets", True, True, said("op.doctor.secrets.keyring", name=str(store.backend.name))
    )


def check_ssh_keys(paths: AppPaths, config: Config) -> CheckResult:
    ssh_dir = Path.home() / ".ssh"
    keys = sorted(p.name for p in ssh_dir.glob("id_*") if not p.name.endswith(".pub"))
    agent = bool(os.environ.get("SSH_AUTH_SOCK"))
    if keys and agent:
        found = said("op.doctor.ssh.found_keys_and_agent", keys=", ".join(keys))
    elif keys:
        found = said("op.doctor.ssh.found_keys", keys=", ".join(keys))
    else:
        found = said("op.doctor.ssh.found_agent")
    if keys or agent:
        return CheckResult("ssh keys", True, False, found)
    return CheckResult(
        "ssh keys",
        False,
        False,
        said("op.doctor.ssh.none", folder=str(ssh_dir)),
        said("op.doctor.ssh.none.fix"),
    )


def check_llm(paths: AppPaths, config: Config) -> CheckResult:
    llm = config.llm
    if llm.preset == "rules":
        return CheckResult("llm", True, False, said("op.doctor.llm.rules"))
    if not llm.base_url:
        return CheckResult("llm", True, False, said("op.doctor.llm.preset", preset=llm.preset))
    import httpx

    # The name the agents read it under (xyclaw.agent.presets.key_secret_name).
    name = f"llm-api-key:{llm.preset}"
    try:
        key = SecretStore.choose(config.secrets.backend, paths.secrets_file).get(name)
    except XyclawError as exc:
        return _failed("llm", exc, required=False)
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    url = llm.base_url.rstrip("/") + "/models"
    try:
        response = httpx.get(url, headers=headers, timeout=5.0)
    except httpx.HTTPError as exc:
        return CheckResult(
            "llm",
            False,
            False,
            said("op.doctor.llm.no_answer", url=llm.base_url, error=type(exc).__name__),
            said("op.doctor.llm.no_answer.fix"),
        )
    if response.status_code in (401, 403):
        what = "op.doctor.llm.refused" if key else "op.doctor.llm.wants_key"
        return CheckResult(
            "llm",
            False,
            False,
            said(what, url=llm.base_url),
            said("op.doctor.llm.store_key.fix", name=name),
        )
    if response.status_code >= 400:
        return CheckResult(
            "llm",
            False,
            False,
            said("op.doctor.llm.http", url=url, status=response.status_code),
            said("op.doctor.llm.http.fix"),
        )
    return CheckResult("llm", True, False, said("op.doctor.llm.ok", url=llm.base_url))


def check_guard(paths: AppPaths, config: Config) -> CheckResult:
    """Whether the guard runs: what holds budgets and idle release while no window is open."""
    from xyclaw.billing.guard_process import guard_status, service_unit_path

    status = guard_status(paths)
    unit = service_unit_path(paths)
    service: Said | str = (
        said("op.doctor.guard.service", unit=str(unit))
        if unit.exists()
        else (said("op.doctor.guard.install") if sys.platform == "linux" else "")
    )
    if status.running:
        running = said("op.doctor.guard.running", status=status.describe_said(), service=service)
        return CheckResult("guard", True, False, running)
    if not config.guard.autostart:
        return CheckResult(
            "guard",
            False,
            False,
            said("op.doctor.guard.off"),
            said("op.doctor.guard.off.fix"),
        )
    return CheckResult(
        "guard",
        True,
        False,
        said("op.doctor.guard.auto", service=service),
    )


def check_hosts(paths: AppPaths, config: Config) -> CheckResult:
    """hosts.toml, your own machines: read as `up --provider ssh` reads it. A file that is
    there but wrong is a FAIL (every command that uses it stops on it); none is fine."""
    from xyclaw.providers.own_hosts import load_hosts
    from xyclaw.providers.slurm import load_slurm_sites

    path = paths.config_dir / "hosts.toml"
    try:
        hosts = load_hosts(path)
        sites = load_slurm_sites(path)  # a bad [[slurm]] table: the site is missing from all lists
    except XyclawError as exc:
        return _failed("hosts.toml", exc)
    if not path.exists():
        return CheckResult("hosts.toml", True, False, said("op.doctor.hosts.none", path=str(path)))
    count = (
        said("op.doctor.hosts.count_sites", n=len(hosts), sites=len(sites), path=str(path))
        if sites
        else said("op.doctor.hosts.count", n=len(hosts), path=str(path))
    )
    return CheckResult("hosts.toml", True, False, count)


CHECKS: tuple[Check, ...] = (
    check_python,
    check_data_folder,
    check_schema,
    check_keyring,
    check_qt,
    check_ssh_keys,
    check_hosts,
    check_llm,
    check_guard,
)


_NAMES: dict[Check, str] = {
    check_schema: "database",
    check_keyring: "secrets",
    check_ssh_keys: "ssh keys",
}


def run_checks(paths: AppPaths, config: Config) -> list[CheckResult]:
    """Every check; one that fails with a XyClaw error is a FAIL line with its fix, never
    the end of the report."""
    results = []
    for check in CHECKS:
        try:
            results.append(check(paths, config))
        except XyclawError as exc:
            name = _NAMES.get(check, check.__name__.removeprefix("check_").replace("_", " "))
            results.append(_failed(name, exc))
    return results


def next_steps(paths: AppPaths, config: Config) -> list[Said]:
    """What a user could set up next, from what is set up now (docs/getting-started.md):
    their own SSH host, a model for the agents, a real provider."""
    facts = setup_facts(paths, config)
    steps: list[Said] = []
    if facts.hosts == 0:
        steps.append(said("op.doctor.next.hosts"))
    if facts.preset == "rules":
        steps.append(said("op.doctor.next.model"))
    if not facts.provider_keys:
        steps.append(said("op.doctor.next.cloud"))
    return steps


def results_json(results: list[CheckResult], steps: list[Said] | None = None) -> dict[str, object]:
    """The English report (its keys and texts as before the checks were worded)."""
    return {
        "ok": all(r.ok for r in results if r.required),
        "checks": [
            {"name": r.name, "ok": r.ok, "required": r.required, "detail": r.detail, "fix": r.fix}
            for r in results
        ],
        "next": [str(step) for step in steps or []],
    }
