"""Configuration: defaults < ``config.toml`` < environment < command-line flags.

Every setting is a dataclass field with its documentation and its allowed
values in ``metadata``; the loader validates each value and names the key,
the value and what is allowed. Environment overrides are
``XYCLAW_<SECTION>_<KEY>`` in upper case (``XYCLAW_TELEMETRY_SAMPLE_INTERVAL_S=2``).
Secrets never live here: see :mod:`xyclaw.secrets`.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from xyclaw.errors import ConfigError
from xyclaw.files import locked, write_private
from xyclaw.wording import Said, said

ENV_PREFIX = "XYCLAW_"
_RESERVED_ENV = {"XYCLAW_HOME"}


def setting(default: Any, doc: str, **rules: Any) -> Any:
    """A config field: default, one line of documentation, and validation rules."""
    return field(default=default, metadata={"doc": doc, **rules})


@dataclass(frozen=True)
class GeneralSettings:
    log_level: str = setting(
        "INFO", "Level of the rotating log file.", choices=("DEBUG", "INFO", "WARNING", "ERROR")
    )
    currency: str = setting("CNY", "Currency shown for totals when offers do not say.")


@dataclass(frozen=True)
class StoreSettings:
    raw_retention_hours: float = setting(
        72.0, "How long full-rate GPU and NIC samples are kept before only rollups remain.", min=1
    )
    rollup_retention_days: float = setting(
        365.0, "How long one-minute rollups are kept for the history.", min=1
    )


@dataclass(frozen=True)
class TelemetrySettings:
    sample_interval_s: float = setting(
        1.0, "Seconds between GPU and NIC samples on each node.", min=0.1, max=60
    )
    live_window_minutes: int = setting(
        15, "Minutes of full-rate samples kept in memory for live charts.", min=1, max=240
    )


@dataclass(frozen=True)
class BillingSettings:
    default_budget: float = setting(
        0.0, "Budget per cluster in its currency when none is given (0: no default).", min=0
    )
    warn_fraction: float = setting(
        0.8, "Share of a budget at which a warning is raised.", min=0.05, max=1.0
    )
    on_budget_exhausted: str = setting(
        "release",
        "What the engine does when a cluster's budget is spent.",
        choices=("release", "stop-jobs", "warn"),
    )
    idle_release_minutes: float = setting(
        30.0, "Minutes of idle GPUs with no job before a cluster is released (0: never).", min=0
    )
    idle_utilization_percent: float = setting(
        5.0, "GPU utilization below which a GPU counts as idle.", min=0, max=100
    )
    quote_valid_minutes: float = setting(
        10.0,
        "Minutes a rent quote (offer, price, total) stays valid for approval before a new one "
        "is needed.",
        min=0.1,
        max=1440,
    )
    plan_horizon_days: float = setting(
        30.0,
        "Days beyond which a plan option and its quote say the run is longer than can be"
        " priced with confidence.",
        min=1,
        max=3650,
    )


@dataclass(frozen=True)
class GuardSettings:
    autostart: bool = setting(
        True,
        "Start the background guard (budgets, idle release) whenever a cluster is live and no"
        " guard runs; false: only the desktop app and `xyclaw guard` enforce them.",
    )
    interval_s: float = setting(
        60.0,
        "Most seconds between two budget and idle checks; checks also come at the moment a"
        " cluster reaches its budget's warning level, its budget or its idle limit.",
        min=1,
    )
    poll_s: float = setting(
        2.0,
        "Seconds between the guard's looks at the history for new clusters and changed budgets.",
        min=0.1,
        max=60,
    )
    linger_minutes: float = setting(
        10.0, "Minutes the background guard stays after the last live cluster is gone.", min=0
    )
    deadline_grace_s: float = setting(
        5.0,
        "Seconds after its budget at which a provider that can terminates a cluster by itself"
        " (the guard releases at the budget; the deadline holds when no XyClaw process runs).",
        min=0,
    )


@dataclass(frozen=True)
class SshSettings:
    connect_timeout_s: float = setting(10.0, "Seconds to wait for an SSH connection.", min=0.5)
    command_timeout_s: float = setting(120.0, "Default seconds a remote command may run.", min=0.5)
    keepalive_s: float = setting(15.0, "Seconds between SSH keepalive packets (0: off).", min=0)
    max_parallel: int = setting(
        32, "Hosts contacted at once for cluster-wide commands.", min=1, max=512
    )
    use_ssh_config: bool = setting(True, "Honour ~/.ssh/config (aliases, ProxyJump, keys).")


@dataclass(frozen=True)
class ReconcileSettings:
    interval_s: float = setting(
        60.0, "Seconds between checks of providers' instances against the store.", min=5
    )
    orphan_policy: str = setting(
        "release-after-notice",
        "What to do with an instance that bills but the store does not expect.",
        choices=("release-after-notice", "alert-only"),
    )
    provider_timeout_s: float = setting(
        10.0,
        "Seconds a provider may take to list its instances for that check; one that takes"
        " longer is reported as unreachable (its clusters stay as last seen) and asked again"
        " next time, so no command waits on it.",
        min=0.5,
    )


@dataclass(frozen=True)
class JobsSettings:
    log_head_lines: int = setting(
        100_000,
        "Log lines of a job kept from its start when its log outgrows the cap (head + tail"
        " lines); the lines between are cut and the cut is marked.",
        min=0,
        max=100_000_000,
    )
    log_tail_lines: int = setting(
        900_000,
        "Newest log lines of a job kept when its log outgrows the cap.",
        min=100,
        max=100_000_000,
    )


@dataclass(frozen=True)
class SimSettings:
    port: int = setting(
        0, "Port of the simulated cloud's API (0: any free port).", min=0, max=65535
    )
    provision_delay_s: float = setting(
        8.0, "Seconds the simulated cloud takes to provision a node.", min=0
    )


@dataclass(frozen=True)
class LlmSettings:
    preset: str = setting(
        "rules",
        "The agents' brain: the built-in rules brain, or an OpenAI-compatible endpoint"
        " (docs/agents.md lists each preset's URL, model and price).",
        choices=(
            "rules",
            "openai",
            "deepseek",
            "qwen",
            "moonshot",
            "zhipu",
            "siliconflow",
            "ollama",
            "vllm",
            "lmstudio",
            "custom",
        ),
    )
    base_url: str = setting("", "Base URL of the OpenAI-compatible API (empty: the preset's).")
    model: str = setting("", "Model name (empty: the preset's default).")
    timeout_s: float = setting(60.0, "Seconds to wait for the model's answer.", min=1)
    price_in_per_million: float = setting(
        -1.0, "Model price per million input tokens (-1: the preset's price).", min=-1
    )
    price_out_per_million: float = setting(
        -1.0, "Model price per million output tokens (-1: the preset's price).", min=-1
    )
    price_currency: str = setting("", "Currency of the model's prices (empty: the preset's).")
    max_retries: int = setting(
        3, "Retries with backoff when the endpoint answers 429 or 5xx.", min=0, max=10
    )
    max_tokens: int = setting(
        4096,
        "Most tokens the model may write in one answer (sent as max_tokens); the whole answer"
        " must also arrive within timeout_s.",
        min=16,
        max=1_000_000,
    )


@dataclass(frozen=True)
class AgentSettings:
    spend_allowance: float = setting(
        0.0,
        "Rentals whose estimated total is at most this amount (in the offer's currency) run"
        " without asking (0: always ask). Releasing always asks.",
        min=0,
    )
    heartbeat_interval_s: float = setting(
        60.0, "Seconds between the monitor agent's checks of live clusters and jobs.", min=5
    )
    max_tool_rounds: int = setting(
        8, "Tool calls an agent may make in one turn before it must answer.", min=1, max=50
    )
    remote_output_chars: int = setting(
        4000, "Characters of remote output (logs, command output) shown to a model.", min=200
    )


@dataclass(frozen=True)
class GuiSettings:
    theme: str = setting("system", "Colour theme.", choices=("system", "light", "dark"))
    chart_fps: int = setting(10, "Frames per second of live charts.", min=1, max=60)
    close_to_tray: bool = setting(
        True,
        "Closing the window keeps XyClaw in the tray, so maintenance and monitoring go on"
        " (Quit from the tray menu); false: closing quits.",
    )
    language: str = setting(
        "system",
        "Language of the desktop app and of the command line's main messages (plan, up, down,"
        " clusters, billing, launch, jobs, logs, cancel; --json is never translated): the"
        " system's, English (en) or Simplified Chinese (zh_CN).",
        choices=("system", "en", "zh_CN"),
    )


@dataclass(frozen=True)
class SecretsSettings:
    backend: str = setting(
        "auto",
        "Where secrets go: the OS keyring, a 0600 file, or auto (keyring if one works).",
        choices=("auto", "keyring", "file"),
    )


@dataclass(frozen=True)
class Config:
    general: GeneralSettings = field(default_factory=GeneralSettings)
    store: StoreSettings = field(default_factory=StoreSettings)
    telemetry: TelemetrySettings = field(default_factory=TelemetrySettings)
    billing: BillingSettings = field(default_factory=BillingSettings)
    guard: GuardSettings = field(default_factory=GuardSettings)
    ssh: SshSettings = field(default_factory=SshSettings)
    reconcile: ReconcileSettings = field(default_factory=ReconcileSettings)
    jobs: JobsSettings = field(default_factory=JobsSettings)
    sim: SimSettings = field(default_factory=SimSettings)
    llm: LlmSettings = field(default_factory=LlmSettings)
    agents: AgentSettings = field(default_factory=AgentSettings)
    gui: GuiSettings = field(default_factory=GuiSettings)
    secrets: SecretsSettings = field(default_factory=SecretsSettings)


_SECTION_TYPES: dict[str, type[Any]] = {
    "general": GeneralSettings,
    "store": StoreSettings,
    "telemetry": TelemetrySettings,
    "billing": BillingSettings,
    "guard": GuardSettings,
    "ssh": SshSettings,
    "reconcile": ReconcileSettings,
    "jobs": JobsSettings,
    "sim": SimSettings,
    "llm": LlmSettings,
    "agents": AgentSettings,
    "gui": GuiSettings,
    "secrets": SecretsSettings,
}


@dataclass(frozen=True)
class SettingInfo:
    section: str
    key: str
    type: type
    default: Any
    doc: str
    rules: Mapping[str, Any]

    @property
    def env_name(self) -> str:
        return f"{ENV_PREFIX}{self.section}_{self.key}".upper()

    def allowed(self) -> str:
        if "choices" in self.rules:
            return "one of " + ", ".join(repr(c) for c in self.rules["choices"])
        parts = [self.type.__name__ if self.type is not bool else "true or false"]
        if "min" in self.rules:
            parts.append(f">= {self.rules['min']}")
        if "max" in self.rules:
            parts.append(f"<= {self.rules['max']}")
        return " ".join(parts)

    def allowed_said(self) -> Said:
        """:meth:`allowed`, worded (its English is the same text)."""
        if "choices" in self.rules:
            values = ", ".join(repr(c) for c in self.rules["choices"])
            return said("error.config.one_of", values=values)
        bounds = ""
        if "min" in self.rules:
            bounds += f" >= {self.rules['min']}"
        if "max" in self.rules:
            bounds += f" <= {self.rules['max']}"
        kind = said(f"error.config.type_{self.type.__name__}")
        return said("error.config.kind_bounds", kind=kind, bounds=bounds)


_TYPES = {"str": str, "int": int, "float": float, "bool": bool}


def describe_settings() -> list[SettingInfo]:
    """Every setting with its documentation, in file order (used by docs and tests)."""
    infos: list[SettingInfo] = []
    for section in dataclasses.fields(Config):
        for f in dataclasses.fields(_SECTION_TYPES[section.name]):
            rules = {k: v for k, v in f.metadata.items() if k != "doc"}
            infos.append(
                SettingInfo(
                    section=section.name,
                    key=f.name,
                    type=_TYPES[str(f.type)],
                    default=f.default,
                    doc=f.metadata["doc"],
                    rules=rules,
                )
            )
    return infos


def _coerce(info: SettingInfo, raw: Any, origin: str | Said) -> Any:
    where = f"{info.section}.{info.key}"

    def bad() -> ConfigError:
        return ConfigError(
            said("error.config.invalid", origin=origin, setting=where, value=repr(raw)),
            hint=said("error.config.must_be", setting=where, allowed=info.allowed_said()),
        )

    value: Any
    if info.type is bool:
        if isinstance(raw, bool):
            value = raw
        elif isinstance(raw, str) and raw.strip().lower() in {"1", "true", "yes", "on"}:
            value = True
        elif isinstance(raw, str) and raw.strip().lower() in {"0", "false", "no", "off"}:
            value = False
        else:
            raise bad()
    elif info.type is int:
        if isinstance(raw, bool):
            raise bad()
        try:
            value = int(raw) if not isinstance(raw, float) or raw.is_integer() else None
        except (TypeError, ValueError):
            value = None
        if value is None:
            raise bad()
    elif info.type is float:
        if isinstance(raw, bool):
            raise bad()
        try:
            value = float(raw)
        except (TypeError, ValueError):
            raise bad() from None
        if value != value:  # NaN
            raise bad()
    else:
        if not isinstance(raw, str):
            raise bad()
        value = raw
    if "choices" in info.rules and value not in info.rules["choices"]:
        raise bad()
    if "min" in info.rules and value < info.rules["min"]:
        raise bad()
    if "max" in info.rules and value > info.rules["max"]:
        raise bad()
    return value


def read_config_file(path: Path) -> dict[str, Any]:
    """Parse config.toml; a missing file is an empty configuration."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise ConfigError(
            said("error.config.unreadable", path=str(path), reason=str(exc.strerror)),
            hint=said("error.config.permissions"),
        ) from exc
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(
            said("error.config.not_utf8", path=str(path), byte=raw[exc.start], offset=exc.start),
            hint=said("error.config.utf8_hint"),
        ) from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(
            said("error.config.not_toml", path=str(path), reason=str(exc)),
            hint=said("error.config.not_toml_hint"),
        ) from exc


def load_config(
    path: Path | None = None,
    environ: Mapping[str, str] | None = None,
    overrides: Mapping[str, Any] | None = None,
) -> Config:
    """Build the configuration from defaults, the file, the environment, then ``overrides``.

    ``overrides`` maps ``"section.key"`` to a value (what command-line flags set).
    """
    env = os.environ if environ is None else environ
    file_values = read_config_file(path) if path is not None else {}
    infos = {(i.section, i.key): i for i in describe_settings()}
    sections = {i.section for i in infos.values()}
    origin = str(path) if path is not None else "config"

    chosen: dict[str, dict[str, Any]] = {s: {} for s in sections}
    for section, table in file_values.items():
        if section not in sections:
            raise ConfigError(
                said("error.config.unknown_section", origin=origin, section=section),
                hint=said("error.config.known_sections", sections=", ".join(sorted(sections))),
            )
        if not isinstance(table, dict):
            raise ConfigError(said("error.config.not_table", origin=origin, section=section))
        for key, raw in table.items():
            info = infos.get((section, key))
            if info is None:
                known = sorted(k for s, k in infos if s == section)
                raise ConfigError(
                    said("error.config.unknown_key", origin=origin, setting=f"{section}.{key}"),
                    hint=said("error.config.known_keys", section=section, keys=", ".join(known)),
                )
            chosen[section][key] = _coerce(info, raw, origin)

    env_names = {info.env_name: info for info in infos.values()}
    for name, raw in env.items():
        if not name.startswith(ENV_PREFIX) or name in _RESERVED_ENV:
            continue
        info = env_names.get(name)
        if info is None:
            continue
        chosen[info.section][info.key] = _coerce(info, raw, f"environment {name}")

    for dotted, raw in (overrides or {}).items():
        section, _, key = dotted.partition(".")
        info = infos.get((section, key))
        if info is None:
            raise ConfigError(said("error.config.unknown_setting", setting=dotted))
        chosen[section][key] = _coerce(info, raw, said("error.config.command_line"))

    built: dict[str, Any] = {}
    for section_field in dataclasses.fields(Config):
        built[section_field.name] = _SECTION_TYPES[section_field.name](**chosen[section_field.name])
    return Config(**built)


def config_as_dict(config: Config) -> dict[str, dict[str, Any]]:
    return dataclasses.asdict(config)


def settings_markdown() -> str:
    """docs/configuration.md's table of settings, generated so the docs cannot drift."""
    lines: list[str] = []
    section = None
    for info in describe_settings():
        if info.section != section:
            section = info.section
            lines += [
                "",
                f"### [{section}]",
                "",
                "| key | default | allowed | meaning | environment |",
            ]
            lines.append("|---|---|---|---|---|")
        default = (
            repr(info.default) if not isinstance(info.default, bool) else str(info.default).lower()
        )
        lines.append(
            f"| `{info.key}` | `{default}` | {info.allowed()} | {info.doc} | `{info.env_name}` |"
        )
    return "\n".join(lines).lstrip("\n") + "\n"


@functools.cache
def _settings_by_key() -> dict[str, SettingInfo]:
    """describe_settings() by ``"section.key"``, made once: the schema is fixed at import,
    and describing it took 15-20 ms, once per field the Settings page built (12 of them)."""
    return {f"{i.section}.{i.key}": i for i in describe_settings()}


def setting_info(dotted: str) -> SettingInfo:
    """The schema entry of ``"section.key"``; ConfigError naming the known keys if none."""
    found = _settings_by_key().get(dotted)
    if found is not None:
        return found
    known = sorted(_settings_by_key())
    raise ConfigError(
        said("error.config.unknown_setting", setting=dotted),
        hint=said("error.config.known_settings", settings=", ".join(known)),
    )


def validate_setting(dotted: str, raw: Any) -> Any:
    """``raw`` checked and converted with the same rules as config.toml (ConfigError with the
    key, the value and what is allowed)."""
    return _coerce(setting_info(dotted), raw, said("error.config.settings"))


def write_setting(path: Path, dotted: str, raw: Any) -> Any:
    """Validate one setting and write it to config.toml, keeping every other line and its
    comments (tomlkit), then check that the whole file still loads. Returns the value
    written. Secrets never come here: they go to :mod:`xyclaw.secrets`."""
    info = setting_info(dotted)
    value = _coerce(info, raw, "settings")
    try:
        # Under the file's lock, read, change and replace: a setting another process saves
        # at the same moment is kept, and a reader sees the old file or the new one.
        with locked(path):
            _write_setting_locked(path, dotted, info, value)
    except OSError as exc:
        raise ConfigError(
            said("error.config.unwritable", path=str(path), reason=str(exc.strerror)),
            hint=said("error.config.folder_permissions"),
        ) from exc
    return value


def _write_setting_locked(path: Path, dotted: str, info: SettingInfo, value: Any) -> None:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        text = ""
    except OSError as exc:
        raise ConfigError(
            said("error.config.unreadable", path=str(path), reason=str(exc.strerror)),
            hint=said("error.config.permissions"),
        ) from exc
    except UnicodeDecodeError:
        raise ConfigError(
            said("error.config.not_utf8_unwritten", path=str(path)),
            hint=said("error.config.utf8_hint"),
        ) from None
    new_text = _set_in_toml(text, info.section, info.key, value, path)
    try:
        parsed = tomllib.loads(new_text)
    except tomllib.TOMLDecodeError as exc:  # pragma: no cover - the writers emit valid TOML
        raise ConfigError(
            said("error.config.would_break", setting=dotted, path=str(path), reason=str(exc))
        ) from exc
    _check_file_values(parsed, str(path))
    mode = path.stat().st_mode & 0o777 if path.exists() else 0o644
    write_private(path, new_text, mode=mode)


def _set_in_toml(text: str, section: str, key: str, value: Any, path: Path) -> str:
    try:
        import tomlkit
    except ImportError:  # keeps the values, loses the comments
        import tomli_w

        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(
                said("error.config.not_toml", path=str(path), reason=str(exc)),
                hint=said("error.config.fix_first"),
            ) from exc
        data.setdefault(section, {})[key] = value
        return tomli_w.dumps(data)
    try:
        doc = tomlkit.parse(text)
    except Exception as exc:  # tomlkit's parse errors have no common base class
        raise ConfigError(
            said("error.config.not_toml", path=str(path), reason=str(exc)),
            hint=said("error.config.not_toml_hint"),
        ) from exc
    table = doc.get(section)
    if table is None:
        table = tomlkit.table()
        doc[section] = table
    elif not isinstance(table, dict):
        raise ConfigError(said("error.config.not_table", origin=str(path), section=section))
    table[key] = value
    return tomlkit.dumps(doc)


def _check_file_values(file_values: Mapping[str, Any], origin: str) -> None:
    """Every section and key known and every value allowed (what load_config checks)."""
    infos = {(i.section, i.key): i for i in describe_settings()}
    for section, table in file_values.items():
        if not isinstance(table, dict):
            raise ConfigError(said("error.config.not_table", origin=origin, section=section))
        for key, raw in table.items():
            info = infos.get((section, key))
            if info is None:
                raise ConfigError(
                    said("error.config.unknown_key", origin=origin, setting=f"{section}.{key}")
                )
            _coerce(info, raw, origin)
