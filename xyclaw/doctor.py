"""``xyclaw doctor``: check what the app needs and say how to fix what is wrong."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

from xyclaw.config import Config
from xyclaw.errors import XyclawError
from xyclaw.paths import AppPaths

# What is set up (the Settings page's line too) lives below the Engine and this module (issue
# 35): the window asks the Engine, `xyclaw doctor` the same function.
from xyclaw.providers.setup_facts import PROVIDER_KEYS, SetupFacts, setup_facts  # noqa: F401
from xyclaw.secrets import SecretStore, keyring_usable
from xyclaw.store import LATEST_VERSION, peek_schema_version


@dataclass(frozen=True)
class CheckResult:
    name: str
    ok: bool
    required: bool
    detail: str
    fix: str = ""


Check = Callable[[AppPaths, Config], CheckResult]


def check_python(paths: AppPaths, config: Config) -> CheckResult:
    ok = sys.version_info >= (3, 11)
    return CheckResult(
        "python",
        ok,
        True,
        f"Python {sys.version.split()[0]} at {sys.executable}",
        "" if ok else "install Python 3.11 or newer",
    )


NO_DISPLAY_FIX = (
    "on a machine with no display run `xvfb-run -a xyclaw`, or set QT_QPA_PLATFORM=offscreen; "
    "the command-line tools work without one"
)


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
            "qt", False, False, f"the Qt probe did not answer ({exc})", "reinstall: make run"
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
                "there is no display here (DISPLAY and WAYLAND_DISPLAY are not set), "
                "so the desktop app cannot open",
                NO_DISPLAY_FIX,
            )
        return CheckResult(
            "qt",
            False,
            False,
            f"Qt cannot open a window (exit {proc.returncode}): {_qt_said(proc.stderr)}",
            "install the system libraries Qt names (on Debian/Ubuntu from a checkout: "
            "`make system-deps`), or set QT_QPA_PLATFORM=offscreen",
        )
    if report.get("ok"):
        return CheckResult("qt", True, False, f"Qt {report['qt']} platform {report['platform']}")
    return CheckResult(
        "qt",
        False,
        False,
        f"Qt cannot open a window: {report.get('error', 'unknown error')}",
        NO_DISPLAY_FIX,
    )


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
            f"{paths.data_dir} is not writable ({exc.strerror})",
            "fix its permissions, or set XYCLAW_HOME to a writable folder",
        )
    return CheckResult("data folder", True, True, str(paths.data_dir))


def check_schema(paths: AppPaths, config: Config) -> CheckResult:
    try:
        version = peek_schema_version(paths.database, check=True)
    except XyclawError as exc:
        return CheckResult("database", False, True, exc.message, exc.hint or "")
    if version > LATEST_VERSION:
        return CheckResult(
            "database",
            False,
            True,
            f"schema version {version} is newer than this XyClaw ({LATEST_VERSION})",
            "upgrade XyClaw",
        )
    if version == 0:
        return CheckResult("database", True, True, f"{paths.database} will be created on first use")
    note = "" if version == LATEST_VERSION else f" (migrates to {LATEST_VERSION} on next start)"
    return CheckResult("database", True, True, f"{paths.database}, schema version {version}{note}")


def check_keyring(paths: AppPaths, config: Config) -> CheckResult:
    mode = config.secrets.backend
    if mode == "file" or (mode == "auto" and not keyring_usable()):
        try:  # reading it checks its mode: a file others can read is refused
            SecretStore.choose("file", paths.secrets_file).get("doctor-probe")
        except XyclawError as exc:
            return CheckResult("secrets", False, True, exc.message, exc.hint or "")
        return CheckResult(
            "secrets",
            True,
            True,
            f"no OS keyring in use; secrets go to {paths.secrets_file} (mode 0600)",
        )
    try:
        store = SecretStore.choose(mode, paths.secrets_file)
        store.get("doctor-probe")
    except XyclawError as exc:
        return CheckResult("secrets", False, True, exc.message, exc.hint or "")
    return CheckResult("secrets", True, True, f"OS keyring: {store.backend.name}")


def check_ssh_keys(paths: AppPaths, config: Config) -> CheckResult:
    ssh_dir = Path.home() / ".ssh"
    keys = sorted(p.name for p in ssh_dir.glob("id_*") if not p.name.endswith(".pub"))
    agent = bool(os.environ.get("SSH_AUTH_SOCK"))
    if keys or agent:
        parts = ([", ".join(keys)] if keys else []) + (["an SSH agent"] if agent else [])
        return CheckResult("ssh keys", True, False, "found " + " and ".join(parts))
    return CheckResult(
        "ssh keys",
        False,
        False,
        f"no private key in {ssh_dir} and no SSH agent",
        "only needed for your own hosts: run `ssh-keygen -t ed25519` (the simulated cloud "
        "needs none)",
    )


def check_llm(paths: AppPaths, config: Config) -> CheckResult:
    llm = config.llm
    if llm.preset == "rules":
        return CheckResult("llm", True, False, "built-in rules brain (no LLM endpoint set)")
    if not llm.base_url:
        return CheckResult("llm", True, False, f"preset {llm.preset} with its default endpoint")
    import httpx

    # The name the agents read it under (xyclaw.agent.presets.key_secret_name).
    name = f"llm-api-key:{llm.preset}"
    try:
        key = SecretStore.choose(config.secrets.backend, paths.secrets_file).get(name)
    except XyclawError as exc:
        return CheckResult("llm", False, False, exc.message, exc.hint or "")
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    url = llm.base_url.rstrip("/") + "/models"
    try:
        response = httpx.get(url, headers=headers, timeout=5.0)
    except httpx.HTTPError as exc:
        return CheckResult(
            "llm",
            False,
            False,
            f"{llm.base_url} did not answer ({type(exc).__name__})",
            "check [llm] base_url and that the server is running",
        )
    if response.status_code in (401, 403):
        what = "refused the API key" if key else "wants an API key and none is stored"
        return CheckResult(
            "llm",
            False,
            False,
            f"{llm.base_url} {what}",
            f"store it: `xyclaw secrets set {name}` (or in the app's Settings)",
        )
    if response.status_code >= 400:
        return CheckResult(
            "llm",
            False,
            False,
            f"{url} answered HTTP {response.status_code}",
            "check [llm] base_url (it should end in /v1 for most servers)",
        )
    return CheckResult("llm", True, False, f"{llm.base_url} answers")


def check_guard(paths: AppPaths, config: Config) -> CheckResult:
    """Whether the guard runs: what holds budgets and idle release while no window is open."""
    from xyclaw.billing.guard_process import guard_status, service_unit_path

    status = guard_status(paths)
    unit = service_unit_path(paths)
    service = (
        f"; user service {unit}"
        if unit.exists()
        else ("; to run it from login: `xyclaw guard install`" if sys.platform == "linux" else "")
    )
    if status.running:
        return CheckResult("guard", True, False, status.describe() + service)
    if not config.guard.autostart:
        return CheckResult(
            "guard",
            False,
            False,
            "not running, and [guard] autostart is off: budgets and idle release hold only"
            " while the desktop app or `xyclaw guard` runs",
            "set [guard] autostart = true, or `xyclaw guard install` (docs/guard.md)",
        )
    return CheckResult(
        "guard",
        True,
        False,
        "not running; it starts by itself whenever a cluster is live" + service,
    )


def check_hosts(paths: AppPaths, config: Config) -> CheckResult:
    """hosts.toml, your own machines: read as `up --provider ssh` reads it. A file that is
    there but wrong is a FAIL (every command that uses it stops on it); none is fine."""
    from xyclaw.providers.own_hosts import load_hosts

    path = paths.config_dir / "hosts.toml"
    try:
        hosts = load_hosts(path)
    except XyclawError as exc:
        return CheckResult("hosts.toml", False, True, exc.message, exc.hint or "")
    if not path.exists():
        return CheckResult("hosts.toml", True, False, f"none at {path} (your own machines)")
    return CheckResult("hosts.toml", True, False, f"{len(hosts)} host(s) in {path}")


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
            results.append(CheckResult(name, False, True, exc.message, exc.hint or ""))
    return results


def next_steps(paths: AppPaths, config: Config) -> list[str]:
    """What a user could set up next, from what is set up now (docs/getting-started.md):
    their own SSH host, a model for the agents, a real provider."""
    facts = setup_facts(paths, config)
    steps: list[str] = []
    if facts.hosts == 0:
        steps.append(
            "your own GPU machine over SSH: `xyclaw hosts add gpu1 --host 10.0.0.5 --user root "
            "--gpu A100-80G --gpus 8`, then `xyclaw hosts test gpu1`"
        )
    if facts.preset == "rules":
        steps.append(
            "a model for the agents (the rules agent answers now): `xyclaw model-key deepseek` "
            '(or openai, qwen, ...), then `[llm] preset = "deepseek"` in config.toml or the '
            "app's Settings, Model"
        )
    if not facts.provider_keys:
        steps.append(
            "a real cloud: `xyclaw secrets set lambda_api_key` (Lambda Cloud), "
            "`vastai_api_key` (Vast.ai), `runpod_api_key` (RunPod) or "
            "`autodl_token` (AutoDL); see docs/providers.md"
        )
    return steps


def results_json(results: list[CheckResult], steps: list[str] | None = None) -> dict[str, object]:
    return {
        "ok": all(r.ok for r in results if r.required),
        "checks": [asdict(r) for r in results],
        "next": list(steps or []),
    }
