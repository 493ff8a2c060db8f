"""The Settings page: the model the agents use, your own hosts, the simulated cloud, money
and approval defaults with the remembered allowances, language and theme, and the data.

Every value is checked with the same rules as ``config.toml`` (:func:`xyclaw.config.
write_setting`) and written there; an API key goes to the OS keyring (or the 0600 secrets
file) and nowhere else. "Test" buttons ask the endpoint for its models and connect to a
host (trusting its key only after you confirmed the fingerprint). Everything that touches
the network, SSH or the disk runs on the worker.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any, NamedTuple

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QEvent, Qt, Signal
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from xyclaw.config import Config, SettingInfo, load_config, setting_info, write_setting
from xyclaw.engine.host_test import HostReport, HostTester, hosts_file, own_hosts
from xyclaw.errors import (
    AuthenticationError,
    ConfigError,
    ConnectError,
    HostKeyChangedError,
    RemoteTimeoutError,
    UnknownHostKeyError,
    XyclawError,
)
from xyclaw.gui import i18n, themes
from xyclaw.gui.bridge import ErrorInfo, Worker
from xyclaw.gui.formatting import error_text, fabric_text, message_language
from xyclaw.gui.widgets import DATA_ROLE, plain_label, plain_tip

log = logging.getLogger(__name__)
CTX = "SettingsPage"

PRESET_LABELS = {
    "rules": QT_TRANSLATE_NOOP("SettingsPage", "Built-in rules brain (no model, no key)"),
    "openai": QT_TRANSLATE_NOOP("SettingsPage", "OpenAI"),
    "deepseek": QT_TRANSLATE_NOOP("SettingsPage", "DeepSeek"),
    "qwen": QT_TRANSLATE_NOOP("SettingsPage", "Qwen (DashScope, compatible mode)"),
    "moonshot": QT_TRANSLATE_NOOP("SettingsPage", "Moonshot (Kimi)"),
    "zhipu": QT_TRANSLATE_NOOP("SettingsPage", "Zhipu (GLM)"),
    "siliconflow": QT_TRANSLATE_NOOP("SettingsPage", "SiliconFlow"),
    "ollama": QT_TRANSLATE_NOOP("SettingsPage", "Ollama on this computer"),
    "vllm": QT_TRANSLATE_NOOP("SettingsPage", "vLLM server (OpenAI-compatible)"),
    "lmstudio": QT_TRANSLATE_NOOP("SettingsPage", "LM Studio on this computer"),
    "custom": QT_TRANSLATE_NOOP("SettingsPage", "Any OpenAI-compatible endpoint"),
}
BUDGET_ACTIONS = {
    "release": QT_TRANSLATE_NOOP("SettingsPage", "release the cluster"),
    "stop-jobs": QT_TRANSLATE_NOOP("SettingsPage", "stop its jobs, keep the cluster"),
    "warn": QT_TRANSLATE_NOOP("SettingsPage", "only warn"),
}
THEMES = {
    "system": QT_TRANSLATE_NOOP("SettingsPage", "like the system"),
    "light": QT_TRANSLATE_NOOP("SettingsPage", "light"),
    "dark": QT_TRANSLATE_NOOP("SettingsPage", "dark"),
}
#: The money and approval defaults the page edits, in the order shown.
MONEY_KEYS = (
    "billing.default_budget",
    "billing.warn_fraction",
    "billing.on_budget_exhausted",
    "billing.idle_release_minutes",
    "billing.idle_utilization_percent",
    "agents.spend_allowance",
)


def t(text: str) -> str:
    return QCoreApplication.translate(CTX, text)


def allowed(info: SettingInfo) -> str:
    """What a setting accepts, in the GUI's language."""
    rules = info.rules
    if "choices" in rules:
        return QCoreApplication.translate("SettingsPage", "one of {values}").format(
            values=", ".join(str(c) for c in rules["choices"])
        )
    parts = []
    if "min" in rules:
        parts.append(
            QCoreApplication.translate("SettingsPage", "at least {n}").format(n=rules["min"])
        )
    if "max" in rules:
        parts.append(
            QCoreApplication.translate("SettingsPage", "at most {n}").format(n=rules["max"])
        )
    return ", ".join(parts) or QCoreApplication.translate("SettingsPage", "a {kind}").format(
        kind=info.type.__name__
    )


def endpoint_problem(error: BaseException) -> tuple[str, str]:
    """(what is wrong, what to do) for a failed endpoint test, in the GUI's language."""
    code = getattr(error, "code", None)
    p: dict[str, Any] = getattr(error, "params", {}) or {}
    words = {
        "no_url": (
            QCoreApplication.translate("SettingsPage", "No base URL is set."),
            QCoreApplication.translate(
                "SettingsPage", "Enter the API's address, e.g. http://127.0.0.1:8000/v1."
            ),
        ),
        "bad_url": (
            QCoreApplication.translate("SettingsPage", "{url} is not a web address.").format(
                url=p.get("url")
            ),
            QCoreApplication.translate("SettingsPage", "It starts with http:// or https://."),
        ),
        "no_name": (
            QCoreApplication.translate("SettingsPage", "The name {host} does not resolve.").format(
                host=p.get("host")
            ),
            QCoreApplication.translate(
                "SettingsPage", "Check the spelling, and that this computer is online."
            ),
        ),
        "refused": (
            QCoreApplication.translate(
                "SettingsPage", "Nothing answers at {host}:{port}: the connection was refused."
            ).format(host=p.get("host"), port=p.get("port")),
            QCoreApplication.translate(
                "SettingsPage", "Start the model server, or correct the port in the base URL."
            ),
        ),
        "timeout": (
            QCoreApplication.translate(
                "SettingsPage", "{host}:{port} gave no answer within {s} s."
            ).format(host=p.get("host"), port=p.get("port"), s=p.get("seconds")),
            QCoreApplication.translate(
                "SettingsPage",
                "Check that the server is up; a proxy or firewall may hold the request.",
            ),
        ),
        "transport": (
            QCoreApplication.translate("SettingsPage", "Talking to {host}:{port} failed.").format(
                host=p.get("host"), port=p.get("port")
            ),
            QCoreApplication.translate(
                "SettingsPage", "Check the base URL: http and https are not interchangeable."
            ),
        ),
        "bad_key": (
            QCoreApplication.translate(
                "SettingsPage", "{url} refused the API key (HTTP {status})."
            ).format(url=p.get("url"), status=p.get("status")),
            QCoreApplication.translate(
                "SettingsPage",
                "Check the key: a copied space or an expired key is the usual cause.",
            ),
        ),
        "no_key": (
            QCoreApplication.translate(
                "SettingsPage", "{url} wants an API key (HTTP {status})."
            ).format(url=p.get("url"), status=p.get("status")),
            QCoreApplication.translate(
                "SettingsPage", "Paste the key the service gave you and press Test again."
            ),
        ),
        "not_found": (
            QCoreApplication.translate(
                "SettingsPage", "{url} does not exist (HTTP 404): this is not the API's base URL."
            ).format(url=p.get("url")),
            QCoreApplication.translate(
                "SettingsPage", "OpenAI-compatible APIs usually end in /v1."
            ),
        ),
        "http": (
            QCoreApplication.translate(
                "SettingsPage", "{url} answered HTTP {status}: {said}"
            ).format(url=p.get("url"), status=p.get("status"), said=p.get("said")),
            QCoreApplication.translate(
                "SettingsPage", "The server's own words are above; try again later."
            ),
        ),
        "not_json": (
            QCoreApplication.translate(
                "SettingsPage",
                "{url} answered, but not with JSON: it is not an OpenAI-compatible API.",
            ).format(url=p.get("url")),
            QCoreApplication.translate(
                "SettingsPage", "Check the base URL: a web page answered instead of the API."
            ),
        ),
        "no_list": (
            QCoreApplication.translate(
                "SettingsPage",
                "{url} answered without a model list: it is not an OpenAI-compatible API.",
            ).format(url=p.get("url")),
            QCoreApplication.translate(
                "SettingsPage",
                "Check the base URL: it is the API's, ending in /v1 for most servers.",
            ),
        ),
    }
    if code in words:
        return words[code]
    return _worded_error(error)


def _worded_error(error: BaseException) -> tuple[str, str]:
    """(message, hint) of any error in the GUI's language."""
    message = error_text(error, with_hint=False)
    hint = error.in_language(message_language())[1] if isinstance(error, XyclawError) else None
    return message, hint or ""


def _endpoint_text(error: BaseException) -> str:
    what, todo = endpoint_problem(error)
    return what + ("\n" + todo if todo else "")


def _host_text(error: BaseException, host: str) -> str:
    what, todo = host_problem(error, host)
    return what + ("\n" + todo if todo else "")


def _config_text(error: BaseException, dotted: str) -> str:
    if isinstance(error, ConfigError):
        try:
            info = setting_info(dotted)
        except ConfigError:
            return error_text(error, with_hint=False)
        return QCoreApplication.translate(
            "SettingsPage", "Not saved: {key} must be {rule}."
        ).format(key=dotted, rule=allowed(info))
    return error_text(error, with_hint=False)


def host_problem(error: BaseException, host: str) -> tuple[str, str]:
    """(what is wrong, what to do) for a failed host test, in the GUI's language."""
    if isinstance(error, UnknownHostKeyError):
        return (
            QCoreApplication.translate(
                "SettingsPage",
                "You did not trust the host key of {host}, so XyClaw did not log in.",
            ).format(host=host),
            QCoreApplication.translate(
                "SettingsPage", "Press Test again and compare the fingerprint with the machine's."
            ),
        )
    if isinstance(error, HostKeyChangedError):
        return (
            QCoreApplication.translate(
                "SettingsPage", "The host key of {host} has CHANGED: the connection was refused."
            ).format(host=host),
            QCoreApplication.translate(
                "SettingsPage",
                "Someone may be intercepting the connection, or the machine was re-installed; "
                "check with its owner before removing the old key.",
            ),
        )
    if isinstance(error, AuthenticationError):
        return (
            QCoreApplication.translate(
                "SettingsPage", "{host} refused every key XyClaw offered."
            ).format(host=host),
            QCoreApplication.translate(
                "SettingsPage",
                "Add XyClaw's public key or yours to the host's ~/.ssh/authorized_keys.",
            ),
        )
    if isinstance(error, RemoteTimeoutError):
        return (
            QCoreApplication.translate("SettingsPage", "{host} did not answer in time.").format(
                host=host
            ),
            QCoreApplication.translate(
                "SettingsPage", "Check that it is on and reachable from here."
            ),
        )
    if isinstance(error, ConnectError):
        return (
            QCoreApplication.translate("SettingsPage", "Cannot connect to {host}.").format(
                host=host
            ),
            QCoreApplication.translate(
                "SettingsPage", "Check the name, the port and that its SSH server runs."
            ),
        )
    return _worded_error(error)


class _TabParts(NamedTuple):
    """A tab of the page: its builder, its words, the settings it shows."""

    build: Callable[[], QWidget]
    words: Callable[[], None]
    config: Callable[[Config], None] | None


class SettingsPage(QWidget):
    """``engine`` gives the paths, the secrets, the history and the backup; ``runtime()``
    the agents once they started (for the allowances)."""

    saved = Signal(str, object)  # "section.key", value (after config.toml was written)
    language_changed = Signal(str)
    theme_changed = Signal(str)

    def __init__(
        self,
        engine: Any,
        worker: Worker,
        *,
        runtime: Callable[[], Any | None] | None = None,
        prompter: Any | None = None,
        host_tester: HostTester | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("page_settings")
        self.engine = engine
        self.paths = engine.paths
        self.worker = worker
        self.runtime = runtime or (lambda: None)
        self.config: Config = engine.config
        self.loading = 0
        self._loaded = False
        self._worded_notes: dict[int, tuple[QLabel, Callable[[], str]]] = {}
        if prompter is None:
            from xyclaw.gui.host_keys import HostKeyPrompter

            prompter = HostKeyPrompter()
        self.prompter = prompter
        if hasattr(prompter, "attach"):
            prompter.attach(self)
        self.host_tester = host_tester or HostTester(
            self.paths, self.config, engine.secrets, prompter
        )
        self.hosts: list[Any] = []
        self.models: list[str] = []
        self.last_host_report: HostReport | None = None
        self.allowances: list[Any] = []

        self.title = plain_label()
        self.title.setProperty("role", "title")
        self.subtitle = plain_label()
        self.subtitle.setProperty("role", "muted")
        self.subtitle.setWordWrap(True)
        self.tabs = QTabWidget()
        self.tabs.setObjectName("settingsTabs")
        # The first tab is built now, each other one when first shown (issue 28: all six
        # took 80-130 ms of the main thread on the page's first open, the first a third).
        self._tab_parts = (
            _TabParts(self._llm_tab, self._llm_words, self._llm_config),
            _TabParts(self._hosts_tab, self._hosts_words, None),
            _TabParts(self._sim_tab, self._sim_words, self._sim_config),
            _TabParts(self._money_tab, self._money_words, self._money_config),
            _TabParts(self._look_tab, self._look_words, self._look_config),
            _TabParts(self._data_tab, self._data_words, None),
        )
        self._built_tabs: set[int] = set()
        # What the page read for a tab not built yet (its data is read on the page's first
        # show, as before): shown when the tab is built, so it opens complete.
        self._for_tab: dict[int, dict[str, Callable[[], None]]] = {}
        for _part in self._tab_parts:
            self.tabs.addTab(self._scroll(), "")
        self.build_tab(0)
        self.tabs.currentChanged.connect(self.build_tab)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(20, 14, 20, 10)
        head = QHBoxLayout()
        head.addWidget(self.title)
        head.addSpacing(12)
        head.addWidget(self.subtitle, 1)
        layout.addLayout(head)
        from xyclaw.gui.setup_status import SetupStatus

        # What is set up, what is next (the config as this page last saved it).
        self.setup_status = SetupStatus(engine, lambda: self.config, worker)
        self.saved.connect(lambda _key, _value: self.setup_status.refresh())
        layout.addWidget(self.setup_status)
        layout.addWidget(self.tabs, 1)
        self.retranslate()

    # -- building ----------------------------------------------------------------------------------
    @staticmethod
    def _scroll() -> QScrollArea:
        area = QScrollArea()
        area.setWidgetResizable(True)
        area.setFrameShape(QScrollArea.Shape.NoFrame)
        return area

    def tab_built(self, index: int) -> bool:
        return index in self._built_tabs

    def build_tab(self, index: int) -> None:
        """Build tab ``index`` if it is not yet (on its first show): its widgets, its words,
        the settings it shows and what was read for it meanwhile."""
        if index in self._built_tabs or not 0 <= index < len(self._tab_parts):
            return
        self._built_tabs.add(index)
        parts = self._tab_parts[index]
        content = parts.build()
        content.setMaximumWidth(980)  # forms read better than full-width fields
        area = self.tabs.widget(index)
        assert isinstance(area, QScrollArea)
        area.setWidget(content)
        parts.words()
        if parts.config is not None:
            parts.config(self.config)
        for show in self._for_tab.pop(index, {}).values():
            show()

    def _on_tab(self, index: int, what: str, show: Callable[[], None]) -> None:
        """``show`` now if tab ``index`` is built, else when it is (the latest ``what``)."""
        if index in self._built_tabs:
            show()
        else:
            self._for_tab.setdefault(index, {})[what] = show

    def __getattr__(self, name: str) -> Any:
        """A widget of a tab not built yet (asked for by code outside the page, or a test):
        the tabs not built yet are built in order until one has it."""
        built = self.__dict__.get("_built_tabs")
        if built is not None and not name.startswith("__"):
            for index in range(len(self._tab_parts)):
                if index not in built:
                    self.build_tab(index)
                    if name in self.__dict__:
                        return self.__dict__[name]
        raise AttributeError(name)

    @staticmethod
    def _note(role: str = "muted") -> QLabel:
        label = plain_label()
        label.setProperty("role", role)
        label.setWordWrap(True)
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        return label

    def _llm_tab(self) -> QWidget:
        tab = QWidget()
        self.llm_intro = self._note()
        self.preset = QComboBox()
        self.preset.setObjectName("llmPreset")
        self.preset.currentIndexChanged.connect(self._preset_picked)
        self.base_url = QLineEdit()
        self.base_url.setObjectName("llmBaseUrl")
        self.base_url.setProperty("data", True)
        self.model = QComboBox()
        self.model.setObjectName("llmModel")
        self.model.setEditable(True)
        self.model.setProperty("data", True)
        self.api_key = QLineEdit()
        self.api_key.setObjectName("llmKey")
        self.api_key.setEchoMode(QLineEdit.EchoMode.Password)
        self.key_where = self._note()
        self.llm_test = QPushButton()
        self.llm_test.setObjectName("llmTest")
        self.llm_test.clicked.connect(self.test_endpoint)
        self.llm_save = QPushButton()
        self.llm_save.setObjectName("llmSave")
        self.llm_save.setProperty("role", "primary")
        self.llm_save.clicked.connect(self.save_llm)
        self.llm_forget = QPushButton()
        self.llm_forget.setObjectName("llmForget")
        self.llm_forget.setProperty("role", "danger")
        self.llm_forget.clicked.connect(self.forget_key)
        self.llm_result = self._note("body")
        self.llm_result.setObjectName("llmResult")
        self.llm_error = self._note("error")
        self.llm_error.setObjectName("llmError")
        self.llm_error.setVisible(False)
        self.llm_form = QFormLayout()
        self.llm_labels = [plain_label() for _ in range(4)]
        for label, field in zip(
            self.llm_labels, (self.preset, self.base_url, self.model, self.api_key), strict=True
        ):
            label.setBuddy(field)
            self.llm_form.addRow(label, field)
        buttons = QHBoxLayout()
        buttons.addWidget(self.llm_test)
        buttons.addWidget(self.llm_save)
        buttons.addWidget(self.llm_forget)
        buttons.addStretch(1)
        layout = QVBoxLayout(tab)
        layout.addWidget(self.llm_intro)
        layout.addLayout(self.llm_form)
        layout.addWidget(self.key_where)
        layout.addLayout(buttons)
        layout.addWidget(self.llm_error)
        layout.addWidget(self.llm_result)
        layout.addStretch(1)
        QWidget.setTabOrder(self.preset, self.base_url)
        QWidget.setTabOrder(self.base_url, self.model)
        QWidget.setTabOrder(self.model, self.api_key)
        QWidget.setTabOrder(self.api_key, self.llm_test)
        QWidget.setTabOrder(self.llm_test, self.llm_save)
        return tab

    def _hosts_tab(self) -> QWidget:
        tab = QWidget()
        self.hosts_intro = self._note()
        self.hosts_table = QTableWidget(0, 5)
        self.hosts_table.setObjectName("hostsTable")
        self.hosts_table.verticalHeader().setVisible(False)
        self.hosts_table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.hosts_table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.hosts_table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.hosts_table.horizontalHeader().setStretchLastSection(True)
        self.hosts_table.setMinimumHeight(120)
        self.hosts_table.setMaximumHeight(220)
        self.hosts_table.itemSelectionChanged.connect(self._host_selected)
        self.host_test = QPushButton()
        self.host_test.setObjectName("hostTest")
        self.host_test.setProperty("role", "primary")
        self.host_test.clicked.connect(lambda: self.test_host())
        self.hosts_reload = QPushButton()
        self.hosts_reload.setObjectName("hostsReload")
        self.hosts_reload.clicked.connect(self.load_hosts)
        self.hosts_empty = self._note()
        self.host_error = self._note("error")
        self.host_error.setObjectName("hostError")
        self.host_error.setVisible(False)
        self.host_result = self._note("body")
        self.host_result.setObjectName("hostResult")
        self.host_gpus = QTableWidget(0, 3)
        self.host_gpus.setObjectName("hostGpus")
        self.host_gpus.verticalHeader().setVisible(False)
        self.host_gpus.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.host_gpus.horizontalHeader().setStretchLastSection(True)
        self.host_gpus.setVisible(False)
        self.host_gpus.setMinimumHeight(120)
        self.host_gpus.setMaximumHeight(300)
        buttons = QHBoxLayout()
        buttons.addWidget(self.host_test)
        buttons.addWidget(self.hosts_reload)
        buttons.addStretch(1)
        layout = QVBoxLayout(tab)
        layout.addWidget(self.hosts_intro)
        layout.addWidget(self.hosts_table)
        layout.addWidget(self.hosts_empty)
        layout.addLayout(buttons)
        layout.addWidget(self.host_error)
        layout.addWidget(self.host_result)
        layout.addWidget(self.host_gpus)
        layout.addStretch(1)
        return tab

    def _sim_tab(self) -> QWidget:
        tab = QWidget()
        self.sim_intro = self._note()
        self.sim_status = self._note("body")
        self.sim_status.setObjectName("simStatus")
        self.sim_start = QPushButton()
        self.sim_start.setObjectName("simStart")
        self.sim_start.setProperty("role", "primary")
        self.sim_start.clicked.connect(self.start_sim)
        self.sim_stop = QPushButton()
        self.sim_stop.setObjectName("simStop")
        self.sim_stop.setProperty("role", "danger")
        self.sim_stop.clicked.connect(self.stop_sim)
        self.sim_refresh = QPushButton()
        self.sim_refresh.setObjectName("simRefresh")
        self.sim_refresh.clicked.connect(self.refresh_sim)
        self.sim_delay = QDoubleSpinBox()
        self.sim_delay.setMaximumWidth(160)
        self.sim_delay.setObjectName("simDelay")
        self._ranged(self.sim_delay, "sim.provision_delay_s", 1)
        self.sim_delay_label = plain_label()
        self.sim_delay_label.setBuddy(self.sim_delay)
        self.sim_save = QPushButton()
        self.sim_save.setObjectName("simSave")
        self.sim_save.clicked.connect(
            lambda: self.save_setting(
                "sim.provision_delay_s", self.sim_delay.value(), self.sim_note
            )
        )
        self.sim_note = self._note()
        self.sim_error = self._note("error")
        self.sim_error.setVisible(False)
        buttons = QHBoxLayout()
        buttons.addWidget(self.sim_start)
        buttons.addWidget(self.sim_stop)
        buttons.addWidget(self.sim_refresh)
        buttons.addStretch(1)
        speed = QHBoxLayout()
        speed.addWidget(self.sim_delay_label)
        speed.addWidget(self.sim_delay)
        speed.addWidget(self.sim_save)
        speed.addStretch(1)
        layout = QVBoxLayout(tab)
        layout.addWidget(self.sim_intro)
        layout.addWidget(self.sim_status)
        layout.addLayout(buttons)
        layout.addLayout(speed)
        layout.addWidget(self.sim_note)
        layout.addWidget(self.sim_error)
        layout.addStretch(1)
        return tab

    def _ranged(self, box: QDoubleSpinBox, dotted: str, decimals: int, scale: float = 1.0) -> None:
        """The same limits as config.toml's (``scale``: shown as a percentage)."""
        info = setting_info(dotted)
        box.setDecimals(decimals)
        box.setRange(
            float(info.rules.get("min", 0)) * scale, float(info.rules.get("max", 1e9)) * scale
        )
        box.setProperty("setting", dotted)

    def _money_tab(self) -> QWidget:
        tab = QWidget()
        self.money_group = QGroupBox()
        form = QFormLayout(self.money_group)
        self.money_fields: dict[str, Any] = {}
        self.money_labels: dict[str, QLabel] = {}
        self.money_errors: dict[str, QLabel] = {}
        for dotted in MONEY_KEYS:
            if dotted == "billing.on_budget_exhausted":
                field: Any = QComboBox()
            else:
                field = QDoubleSpinBox()
                scale = 100.0 if dotted == "billing.warn_fraction" else 1.0
                self._ranged(field, dotted, 0 if scale == 100 else 2, scale)
                if dotted in ("billing.default_budget", "agents.spend_allowance"):
                    field.setMaximum(1e9)
            field.setObjectName("setting_" + dotted.replace(".", "_"))
            field.setMaximumWidth(260)
            label = plain_label()
            label.setBuddy(field)
            error = self._note("error")
            error.setVisible(False)
            box = QVBoxLayout()
            box.setSpacing(2)
            box.addWidget(field)
            box.addWidget(error)
            form.addRow(label, box)
            self.money_fields[dotted] = field
            self.money_labels[dotted] = label
            self.money_errors[dotted] = error
        self.money_save = QPushButton()
        self.money_save.setObjectName("moneySave")
        self.money_save.setProperty("role", "primary")
        self.money_save.clicked.connect(lambda: self.save_money())
        self.money_note = self._note()
        self.allow_group = QGroupBox()
        allow = QVBoxLayout(self.allow_group)
        self.allow_intro = self._note()
        self.allow_table = QTableWidget(0, 4)
        self.allow_table.setObjectName("allowances")
        self.allow_table.verticalHeader().setVisible(False)
        self.allow_table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.allow_table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.allow_table.horizontalHeader().setStretchLastSection(True)
        self.allow_table.setMinimumHeight(110)
        self.allow_table.setMaximumHeight(240)
        self.revoke = QPushButton()
        self.revoke.setObjectName("allowanceRevoke")
        self.revoke.setProperty("role", "danger")
        self.revoke.clicked.connect(self.revoke_selected)
        self.allow_status = self._note()
        allow.addWidget(self.allow_intro)
        allow.addWidget(self.allow_table)
        row = QHBoxLayout()
        row.addWidget(self.revoke)
        row.addWidget(self.allow_status, 1)
        allow.addLayout(row)
        save_row = QHBoxLayout()
        save_row.addWidget(self.money_save)
        save_row.addWidget(self.money_note, 1)
        layout = QVBoxLayout(tab)
        layout.addWidget(self.money_group)
        layout.addLayout(save_row)
        layout.addWidget(self.allow_group)
        layout.addStretch(1)
        return tab

    def _look_tab(self) -> QWidget:
        tab = QWidget()
        self.language = QComboBox()
        self.language.setObjectName("language")
        self.theme = QComboBox()
        self.theme.setObjectName("theme")
        self.tray = QCheckBox()
        self.tray.setObjectName("closeToTray")
        self.look_labels = [plain_label(), plain_label()]
        self.look_labels[0].setBuddy(self.language)
        self.look_labels[1].setBuddy(self.theme)
        self.look_note = self._note()
        form = QFormLayout()
        form.addRow(self.look_labels[0], self.language)
        form.addRow(self.look_labels[1], self.theme)
        form.addRow(plain_label(), self.tray)
        self.language.activated.connect(lambda _i: self.set_language(self.language.currentData()))
        self.theme.activated.connect(lambda _i: self.set_theme(self.theme.currentData()))
        self.tray.clicked.connect(
            lambda on: self.save_setting("gui.close_to_tray", bool(on), self.look_note)
        )
        self.shortcuts_label = plain_label()
        self.shortcuts_label.setProperty("role", "card-title")
        self.shortcuts = self._note()
        layout = QVBoxLayout(tab)
        layout.addLayout(form)
        layout.addWidget(self.look_note)
        layout.addSpacing(12)
        layout.addWidget(self.shortcuts_label)
        layout.addWidget(self.shortcuts)
        layout.addStretch(1)
        return tab

    def _data_tab(self) -> QWidget:
        tab = QWidget()
        self.data_form = QFormLayout()
        self.data_values: dict[str, QLabel] = {}
        self.data_labels: dict[str, QLabel] = {}
        for key in ("folder", "database", "size", "schema", "rows"):
            label, value = plain_label(), self._note("fact")
            value.setObjectName(f"data_{key}")
            if key in ("folder", "database"):
                value.setProperty("data", True)
            self.data_form.addRow(label, value)
            self.data_labels[key] = label
            self.data_values[key] = value
        self.backup_button = QPushButton()
        self.backup_button.setObjectName("backup")
        self.backup_button.setProperty("role", "primary")
        self.backup_button.clicked.connect(self.backup_dialog)
        self.data_refresh = QPushButton()
        self.data_refresh.setObjectName("dataRefresh")
        self.data_refresh.clicked.connect(self.refresh_data)
        self.data_note = self._note()
        self.data_error = self._note("error")
        self.data_error.setVisible(False)
        row = QHBoxLayout()
        row.addWidget(self.backup_button)
        row.addWidget(self.data_refresh)
        row.addStretch(1)
        layout = QVBoxLayout(tab)
        layout.addLayout(self.data_form)
        layout.addLayout(row)
        layout.addWidget(self.data_note)
        layout.addWidget(self.data_error)
        layout.addStretch(1)
        return tab

    # -- words -------------------------------------------------------------------------------------
    def retranslate(self) -> None:
        self.title.setText(self.tr("Settings"))
        self.subtitle.setText(
            self.tr(
                "Saved to config.toml with the same checks as the file; API keys go to the "
                "system keyring, or without one to a file only you can read, never to "
                "config.toml."
            )
        )
        for index, text in enumerate(
            (
                self.tr("Model"),
                self.tr("Own hosts"),
                self.tr("Simulated cloud"),
                self.tr("Money and approvals"),
                self.tr("Language and theme"),
                self.tr("Data"),
            )
        ):
            self.tabs.setTabText(index, text)
        for index in sorted(self._built_tabs):
            self._tab_parts[index].words()
        if self._loaded:  # the values typed so far stay: only the words change
            if self.tab_built(5):
                self.refresh_data()
            if self.tab_built(2):
                self.refresh_sim()
            if self.tab_built(1):
                self._fill_hosts()
            if self.tab_built(3):
                self._fill_allowances()
        for label, words in list(self._worded_notes.values()):
            label.setText(words())

    def _llm_words(self) -> None:
        self.llm_intro.setText(
            self.tr(
                "The agents think with the built-in rules, or with a model behind an "
                "OpenAI-compatible API. Test asks the endpoint for its models."
            )
        )
        for label, text in zip(
            self.llm_labels,
            (self.tr("Preset"), self.tr("Base URL"), self.tr("Model"), self.tr("API key")),
            strict=True,
        ):
            label.setText(text)
        current = self.preset.currentData() or self.config.llm.preset
        self.preset.blockSignals(True)
        self.preset.clear()
        for name, label in PRESET_LABELS.items():
            self.preset.addItem(t(label), name)
        self.preset.setCurrentIndex(max(0, self.preset.findData(current)))
        self.preset.blockSignals(False)
        self.llm_test.setText(self.tr("Test"))
        self.llm_test.setToolTip(self.tr("Ask the endpoint which models it serves"))
        self.llm_save.setText(self.tr("Save"))
        self.llm_forget.setText(self.tr("Forget the key"))
        self._preset_hints()

    def _hosts_words(self) -> None:
        self.hosts_intro.setText(
            self.tr(
                "Machines of your own, listed in {path}. Test connects, asks you to trust an "
                "unknown host key, and lists the GPUs it finds."
            ).format(path=hosts_file(self.paths))
        )
        self.hosts_table.setHorizontalHeaderLabels(
            [self.tr("Host"), self.tr("GPU"), self.tr("GPUs"), self.tr("Fabric"),
             self.tr("Price per GPU-hour")]
        )  # fmt: skip
        self.host_gpus.setHorizontalHeaderLabels(
            [self.tr("Index"), self.tr("GPU"), self.tr("Memory (MiB)")]
        )
        self.host_test.setText(self.tr("Test"))
        self.hosts_reload.setText(self.tr("Reload"))
        self.hosts_empty.setText(
            self.tr(
                'No hosts yet. Add one to {path}, for example:\n[[host]]\nname = "gpu1"  '
                '# an ssh alias, or user@host:port\ngpu = "A100-80G"\ngpus = 8'
            ).format(path=hosts_file(self.paths))
        )

    def _sim_words(self) -> None:
        self.sim_intro.setText(
            self.tr(
                "A GPU cloud on this computer for trying XyClaw without spending: it rents "
                "simulated nodes that answer SSH, nvidia-smi and training commands."
            )
        )
        self.sim_start.setText(self.tr("Start"))
        self.sim_stop.setText(self.tr("Stop"))
        self.sim_refresh.setText(self.tr("Refresh"))
        self.sim_delay_label.setText(self.tr("Seconds to bring up a node"))
        self.sim_delay.setSuffix(self.tr(" s"))
        self.sim_save.setText(self.tr("Save"))
        self.sim_note.setText(self.tr("The speed applies the next time the cloud starts."))

    def _money_words(self) -> None:
        self.money_group.setTitle(self.tr("Budgets, idle release and approvals"))
        names = {
            "billing.default_budget": self.tr("Budget per cluster when none is given (0: none)"),
            "billing.warn_fraction": self.tr("Warn at this share of a budget"),
            "billing.on_budget_exhausted": self.tr("When a budget is spent"),
            "billing.idle_release_minutes": self.tr("Release idle clusters after (0: never)"),
            "billing.idle_utilization_percent": self.tr("A GPU counts as idle below"),
            "agents.spend_allowance": self.tr("Rent without asking up to (0: always ask)"),
        }
        suffixes = {
            "billing.warn_fraction": self.tr(" %"),
            "billing.idle_release_minutes": self.tr(" min"),
            "billing.idle_utilization_percent": self.tr(" %"),
        }
        for dotted, label in self.money_labels.items():
            label.setText(names[dotted])
            field = self.money_fields[dotted]
            if isinstance(field, QComboBox):
                value = field.currentData() or self.config.billing.on_budget_exhausted
                field.clear()
                for key, text in BUDGET_ACTIONS.items():
                    field.addItem(t(text), key)
                field.setCurrentIndex(max(0, field.findData(value)))
            elif dotted in suffixes:
                field.setSuffix(suffixes[dotted])
            else:
                field.setSuffix(" " + self.config.general.currency)
            field.setToolTip(
                plain_tip(self.tr("Allowed: {rule}").format(rule=allowed(setting_info(dotted))))
            )
        self.money_save.setText(self.tr("Save"))
        self.allow_group.setTitle(self.tr("Remembered allowances"))
        self.allow_intro.setText(
            self.tr(
                'Commands you allowed on a cluster for the rest of a conversation ("remember" '
                "on an approval card). Renting and releasing always ask."
            )
        )
        self.allow_table.setHorizontalHeaderLabels(
            [self.tr("Conversation"), self.tr("Cluster"), self.tr("Tool"), self.tr("Since")]
        )
        self.revoke.setText(self.tr("Revoke"))

    def _look_words(self) -> None:
        self.look_labels[0].setText(self.tr("Language"))
        self.look_labels[1].setText(self.tr("Theme"))
        language = self.language.currentData() or self.config.gui.language
        self.language.clear()
        self.language.addItem(self.tr("like the system"), "system")
        for code, name in i18n.LANGUAGES.items():
            self.language.addItem(name, code)
        self.language.setCurrentIndex(max(0, self.language.findData(language)))
        theme = self.theme.currentData() or self.config.gui.theme
        self.theme.clear()
        for key, text in THEMES.items():
            self.theme.addItem(t(text), key)
        self.theme.setCurrentIndex(max(0, self.theme.findData(theme)))
        self.tray.setText(self.tr("Closing the window keeps XyClaw running in the tray"))
        self.shortcuts_label.setText(self.tr("Keyboard"))
        self.shortcuts.setText(
            self.tr(
                "Ctrl+1 … Ctrl+7: the pages · Ctrl+N: new chat · Ctrl+F: search on the page · "
                "Ctrl+Enter / Ctrl+Backspace: approve / reject the focused approval card · "
                "Enter: replay the selected run · Ctrl+E: export · F5: refresh"
            )
        )

    def _data_words(self) -> None:
        labels = {
            "folder": self.tr("Data folder"),
            "database": self.tr("History database"),
            "size": self.tr("Size"),
            "schema": self.tr("Schema version"),
            "rows": self.tr("Kept"),
        }
        for key, label in self.data_labels.items():
            label.setText(labels[key])
        self.backup_button.setText(self.tr("Back up…"))
        self.backup_button.setToolTip(
            self.tr("Copy the history to a file while XyClaw keeps running")
        )
        self.data_refresh.setText(self.tr("Refresh"))

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if not self._loaded:
            self._loaded = True
            self.reload()
        else:
            self.load_allowances()  # the agents may have started, or remembered more

    # -- plumbing ----------------------------------------------------------------------------------
    @property
    def busy(self) -> bool:
        return self.loading > 0

    def _submit(
        self,
        fn: Callable[[], Any],
        done: Callable[[Any], None],
        failed: Callable[[ErrorInfo], None],
        name: str,
    ) -> None:
        self.loading += 1

        def ok(value: Any) -> None:
            self.loading -= 1
            done(value)

        def bad(error: ErrorInfo) -> None:
            self.loading -= 1
            failed(error)

        self.worker.submit(fn, on_done=ok, on_error=bad, name=name)

    def _submit_raw(
        self, fn: Callable[[], Any], done: Callable[[Any], None], failed: Callable[[Any], None],
        name: str,
    ) -> None:  # fmt: skip
        """As _submit, but ``failed`` gets the exception itself (to word it by its kind)."""

        def run() -> tuple[bool, Any]:
            try:
                return True, fn()
            except XyclawError as exc:
                return False, exc

        self._submit(run, lambda r: done(r[1]) if r[0] else failed(r[1]), lambda e: failed(e), name)

    def _show(self, label: QLabel, text: str | Callable[[], str], visible: bool = True) -> None:
        """``text``, or a function that words it (an error: called again when the language
        changes, so it holds the error, never the page)."""
        if callable(text):
            self._worded_notes[id(label)] = (label, text)
            text = text()
        else:
            self._worded_notes.pop(id(label), None)
        label.setText(text)
        label.setVisible(visible and bool(text))

    def reload(self) -> None:
        """Read config.toml, hosts.toml, the allowances, the data and the cloud's state."""
        path = self.paths.config_file
        self._submit(
            lambda: load_config(path),
            self._show_config,
            lambda e: self._show(self.llm_error, e.text),
            "read the settings",
        )
        self.load_hosts()
        self.load_allowances()
        self.refresh_data()
        self.refresh_sim()

    def _show_config(self, config: Config) -> None:
        self.config = config
        for index in sorted(self._built_tabs):
            shown = self._tab_parts[index].config
            if shown is not None:
                shown(config)

    def _llm_config(self, config: Config) -> None:
        llm = config.llm
        self.preset.blockSignals(True)
        self.preset.setCurrentIndex(max(0, self.preset.findData(llm.preset)))
        self.preset.blockSignals(False)
        self.base_url.setText(llm.base_url)
        self.model.setEditText(llm.model)
        self._preset_hints()

    def _sim_config(self, config: Config) -> None:
        self.sim_delay.setValue(config.sim.provision_delay_s)

    def _money_config(self, config: Config) -> None:
        for dotted, field in self.money_fields.items():
            section, key = dotted.split(".")
            value = getattr(getattr(config, section), key)
            if isinstance(field, QComboBox):
                field.setCurrentIndex(max(0, field.findData(value)))
            elif dotted == "billing.warn_fraction":
                field.setValue(float(value) * 100)
            else:
                field.setValue(float(value))

    def _look_config(self, config: Config) -> None:
        self.language.setCurrentIndex(max(0, self.language.findData(config.gui.language)))
        self.theme.setCurrentIndex(max(0, self.theme.findData(config.gui.theme)))
        self.tray.setChecked(config.gui.close_to_tray)

    def _write(self, values: dict[str, Any]) -> dict[str, Any]:
        """On the worker: each value validated and written; ConfigError stops at the first bad."""
        written = {}
        for dotted, value in values.items():
            written[dotted] = write_setting(self.paths.config_file, dotted, value)
        return written

    def save_setting(self, dotted: str, value: Any, note: QLabel | None = None) -> None:
        def done(written: dict[str, Any]) -> None:
            if note is not None:
                self._show(note, self.tr("Saved to {path}.").format(path=self.paths.config_file))
            for key, val in written.items():
                self.saved.emit(key, val)

        def failed(error: Any) -> None:
            if note is not None:
                self._show(note, self._config_problem(error, dotted))

        self._submit_raw(lambda: self._write({dotted: value}), done, failed, f"save {dotted}")

    @staticmethod
    def _config_problem(error: Any, dotted: str) -> Callable[[], str]:
        """What a refused setting shows, worded again on a language change."""
        return partial(_config_text, error, dotted)

    # -- model -------------------------------------------------------------------------------------
    def _preset(self) -> Any:
        from xyclaw.agent.presets import PRESETS

        return PRESETS.get(str(self.preset.currentData()))

    def _preset_picked(self, _index: int) -> None:
        self.base_url.clear()
        self.model.setEditText("")
        self.models = []
        self.model.clear()
        self._show(self.llm_result, "")
        self._show(self.llm_error, "")
        self._preset_hints()

    def _preset_hints(self) -> None:
        preset = self._preset()
        rules = self.preset.currentData() == "rules"
        for w in (self.base_url, self.model, self.api_key, self.llm_test, self.llm_forget):
            w.setEnabled(not rules)
        self.base_url.setPlaceholderText(
            preset.base_url
            if preset and preset.base_url
            else self.tr("e.g. http://127.0.0.1:8000/v1")
        )
        self.model.lineEdit().setPlaceholderText(
            preset.model if preset and preset.model else self.tr("the name the server serves")
        )
        secrets = self.engine.secrets
        where = getattr(getattr(secrets, "backend", None), "name", "")
        if str(where).startswith("keyring"):
            place = self.tr("the system keyring")
        else:
            place = self.tr("a file only you can read ({path})").format(
                path=self.paths.secrets_file
            )
        self.key_where.setText(
            self.tr("Keys are kept in {place}, never in config.toml or the history.").format(
                place=place
            )
        )
        self.api_key.setPlaceholderText(self.tr("paste the key (kept in the keyring)"))
        if preset is not None and not rules:
            name = preset.name
            self._submit(
                lambda: bool(self._stored_key(name)),
                self._key_known,
                lambda e: None,
                "look up the key",
            )

    def _stored_key(self, preset: str) -> str | None:
        from xyclaw.agent.presets import key_secret_name

        return self.engine.secrets.get(key_secret_name(preset))

    def _key_known(self, known: bool) -> None:
        self.api_key.setPlaceholderText(
            self.tr("a key is stored; type a new one to replace it")
            if known
            else self.tr("paste the key (kept in the keyring)")
        )
        self.llm_forget.setEnabled(known)

    def test_endpoint(self) -> None:
        """Ask the endpoint (as typed, with the typed or the stored key) for its models."""
        from xyclaw.agent.endpoint_probe import list_models

        preset = self._preset()
        if preset is None:
            self._show(self.llm_result, self.tr("The rules brain needs no endpoint."))
            return
        base = self.base_url.text().strip() or preset.base_url
        typed = self.api_key.text().strip()
        name = preset.name
        model = self.model.currentText().strip() or preset.model
        timeout = self.config.llm.timeout_s if self.config.llm.timeout_s < 15 else 10.0

        def run() -> Any:
            key = typed or self._stored_key(name)
            return list_models(base, key, model=model, timeout_s=timeout)

        self._show(self.llm_error, "")
        self._show(self.llm_result, self.tr("Asking {url}…").format(url=base))
        self._submit_raw(run, self._endpoint_ok, self._endpoint_failed, "test the endpoint")

    def _endpoint_ok(self, report: Any) -> None:
        self.models = list(report.models)
        current = self.model.currentText()
        self.model.clear()
        self.model.addItems(self.models)
        self.model.setEditText(current)
        if not report.models:
            text = self.tr("{url} answers, but lists no models.").format(url=report.base_url)
        else:
            text = self.tr("{url} answers and serves {n} models: {names}").format(
                url=report.base_url, n=len(report.models), names=", ".join(report.models[:12])
            )
            if report.model and not report.model_listed:
                text += "\n" + self.tr("The model {model} is not among them.").format(
                    model=report.model
                )
        self._show(self.llm_result, text)

    def _endpoint_failed(self, error: Any) -> None:
        self._show(self.llm_result, "")
        self._show(self.llm_error, partial(_endpoint_text, error))

    def save_llm(self) -> None:
        from xyclaw.agent.presets import key_secret_name

        preset = str(self.preset.currentData())
        values = {
            "llm.preset": preset,
            "llm.base_url": self.base_url.text().strip(),
            "llm.model": self.model.currentText().strip(),
        }
        key = self.api_key.text().strip()

        def run() -> dict[str, Any]:
            written = self._write(values)
            if key and preset != "rules":
                self.engine.secrets.set(key_secret_name(preset), key)
            return written

        def done(written: dict[str, Any]) -> None:
            self.api_key.clear()
            self._show(self.llm_error, "")
            self._show(
                self.llm_result,
                self.tr("Saved. The agents use it from their next start.")
                + (" " + self.tr("The key is in the keyring.") if key else ""),
            )
            for k, v in written.items():
                self.saved.emit(k, v)
            self._preset_hints()

        self._submit_raw(
            run,
            done,
            lambda e: self._show(self.llm_error, self._config_problem(e, "llm.base_url")),
            "save the model",
        )

    def forget_key(self) -> None:
        from xyclaw.agent.presets import key_secret_name

        preset = self._preset()
        if preset is None:
            return
        name = preset.name
        self._submit(
            lambda: self.engine.secrets.delete(key_secret_name(name)),
            lambda _r: (self._show(self.llm_result, self.tr("The key was removed.")),
                        self._preset_hints()),
            lambda e: self._show(self.llm_error, e.worded_message),
            "forget the key",
        )  # fmt: skip

    # -- own hosts ---------------------------------------------------------------------------------
    def load_hosts(self) -> None:
        paths = self.paths

        def shown(hosts: list[Any]) -> None:
            self.hosts = hosts
            self._on_tab(1, "hosts", self._hosts_shown)

        def failed(error: ErrorInfo) -> None:
            self._on_tab(1, "hosts", lambda: self._show(self.host_error, error.text))

        self._submit(lambda: own_hosts(paths), shown, failed, "read hosts.toml")

    def _hosts_shown(self) -> None:
        self._show(self.host_error, "")
        self._fill_hosts()

    def _fill_hosts(self) -> None:
        self.hosts_table.setRowCount(len(self.hosts))
        for row, h in enumerate(self.hosts):
            cells = [h.name, h.gpu, str(h.gpus), fabric_text(h.fabric),
                     i18n.money(h.price_per_gpu_hour_micros, h.currency)]  # fmt: skip
            for col, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if col in (0, 1):  # the host's name and GPU model, as hosts.toml has them
                    item.setData(DATA_ROLE, True)
                self.hosts_table.setItem(row, col, item)
        self.hosts_table.resizeColumnsToContents()
        self.hosts_empty.setVisible(not self.hosts)
        self.hosts_table.setVisible(bool(self.hosts))
        if self.hosts and not self.hosts_table.selectedItems():
            self.hosts_table.selectRow(0)
        self._host_selected()

    def _host_selected(self) -> None:
        self.host_test.setEnabled(bool(self.hosts_table.selectedItems()))

    def test_host(self, name: str | None = None) -> None:
        """Connect to a host of hosts.toml (the selected one) and list its GPUs."""
        if name is None:
            rows = {i.row() for i in self.hosts_table.selectedItems()}
            if not rows:
                return
            name = self.hosts[min(rows)].name
        expected = next((h for h in self.hosts if h.name == name), None)
        tester = self.host_tester
        self._show(self.host_error, "")
        self.host_gpus.setVisible(False)
        self._show(self.host_result, self.tr("Connecting to {host}…").format(host=name))
        self.host_test.setEnabled(False)
        host = name

        def done(report: HostReport) -> None:
            self.host_test.setEnabled(True)
            self.last_host_report = report
            text = self.tr("{host} answered in {s}: {n} GPUs.").format(
                host=report.host, s=i18n.duration(report.seconds), n=len(report.gpus)
            )
            if report.trusted:
                text += " " + self.tr("Its key {fp} is now trusted.").format(
                    fp=", ".join(report.trusted)
                )
            if not report.matches and report.expected is not None:
                text += " " + self.tr("hosts.toml says {n}: correct it there.").format(
                    n=report.expected.gpus
                )
            self._show(self.host_result, text)
            self.host_gpus.setRowCount(len(report.gpus))
            for row, g in enumerate(report.gpus):
                for col, value in enumerate(
                    (
                        str(g.index),
                        g.name or "?",
                        "–" if g.memory_mib is None else i18n.number(g.memory_mib),
                    )
                ):
                    self.host_gpus.setItem(row, col, QTableWidgetItem(value))
            self.host_gpus.resizeColumnsToContents()
            self.host_gpus.setVisible(True)

        def failed(error: Any) -> None:
            self.host_test.setEnabled(True)
            self._show(self.host_result, "")
            self._show(self.host_error, partial(_host_text, error, host))
            self.host_error.setToolTip(plain_tip(error_text(error, with_hint=False)))

        self._submit_raw(lambda: tester.test(host, expected), done, failed, f"test {host}")

    # -- the simulated cloud -----------------------------------------------------------------------
    def refresh_sim(self) -> None:
        from xyclaw.gui import sim_control

        paths = self.paths
        self._submit(
            lambda: sim_control.status(paths),
            lambda status: self._on_tab(2, "sim", partial(self._sim_shown, status)),
            lambda error: self._on_tab(2, "sim", partial(self._sim_failed, error)),
            "sim status",
        )

    def start_sim(self) -> None:
        from xyclaw.gui import sim_control

        paths, config, delay = self.paths, self.config, self.sim_delay.value()
        self._show(self.sim_status, self.tr("Starting…"))
        self.sim_start.setEnabled(False)
        self._submit(
            lambda: sim_control.start(paths, config, delay),
            self._sim_shown,
            self._sim_failed,
            "start the simulated cloud",
        )

    def stop_sim(self) -> None:
        from xyclaw.gui import sim_control

        paths = self.paths
        self._show(self.sim_status, self.tr("Stopping…"))
        self.sim_stop.setEnabled(False)
        self._submit(
            lambda: sim_control.stop(paths), self._sim_shown, self._sim_failed, "stop the cloud"
        )

    def _sim_shown(self, status: Any) -> None:
        self.sim_status_value = status
        self._show(self.sim_error, "")
        if status.running:
            text = self.tr("Running at {url} (process {pid}).").format(
                url=status.url, pid=status.pid
            )
        else:
            text = self.tr("Not running. Renting from it starts it, or press Start.")
        self._show(self.sim_status, text)
        self.sim_start.setEnabled(not status.running)
        self.sim_stop.setEnabled(status.running)

    def _sim_failed(self, error: ErrorInfo) -> None:
        self.sim_start.setEnabled(True)
        self.sim_stop.setEnabled(True)
        self._show(self.sim_status, "")
        self._show(self.sim_error, error.text)

    # -- money and approvals -----------------------------------------------------------------------
    def money_values(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for dotted, field in self.money_fields.items():
            if isinstance(field, QComboBox):
                out[dotted] = field.currentData()
            elif dotted == "billing.warn_fraction":
                out[dotted] = round(field.value() / 100, 4)
            else:
                out[dotted] = field.value()
        return out

    def save_money(self, values: dict[str, Any] | None = None) -> None:
        """Validate every field with config.toml's rules; write them if all pass."""
        values = values if values is not None else self.money_values()
        from xyclaw.config import validate_setting

        bad = False
        for dotted, value in values.items():
            label = self.money_errors.get(dotted)
            try:
                validate_setting(dotted, value)
            except ConfigError:
                bad = True
                if label is not None:
                    self._show(label, self._config_problem(ConfigError("x"), dotted))
            else:
                if label is not None:
                    self._show(label, "")
        if bad:
            self._show(self.money_note, self.tr("Nothing was saved: correct the fields in red."))
            return

        def done(written: dict[str, Any]) -> None:
            self._show(
                self.money_note,
                self.tr("Saved to {path}. XyClaw uses them from its next start.").format(
                    path=self.paths.config_file
                ),
            )
            for k, v in written.items():
                self.saved.emit(k, v)

        self._submit_raw(
            lambda: self._write(values),
            done,
            lambda e: self._show(self.money_note, getattr(e, "message", str(e))),
            "save the money settings",
        )

    def load_allowances(self) -> None:
        runtime = self.runtime()
        if runtime is None:
            self.allowances = []
            self._on_tab(3, "allowances", self._agents_starting)
            return

        def shown(found: list[Any]) -> None:
            self.allowances = found
            self._on_tab(3, "allowances", self._fill_allowances)

        def failed(error: ErrorInfo) -> None:
            self._on_tab(
                3, "allowances", lambda: self._show(self.allow_status, error.worded_message)
            )

        self._submit(runtime.allowances, shown, failed, "read the allowances")

    def _agents_starting(self) -> None:
        self._fill_allowances()
        self._show(
            self.allow_status, self.tr("The agents are starting; their allowances show then.")
        )

    def _fill_allowances(self) -> None:
        self.allow_table.setRowCount(len(self.allowances))
        for row, a in enumerate(self.allowances):
            cells = [a.conversation_title, a.cluster, a.tool, i18n.date_time(a.created_at)]
            for col, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setData(int(Qt.ItemDataRole.UserRole), a.id)
                self.allow_table.setItem(row, col, item)
        self.allow_table.horizontalHeader().setSectionResizeMode(
            QHeaderView.ResizeMode.ResizeToContents
        )
        self.allow_table.horizontalHeader().setStretchLastSection(True)
        self.revoke.setEnabled(bool(self.allowances))
        if self.runtime() is not None:
            self._show(
                self.allow_status,
                self.tr("{n} in force.").format(n=len(self.allowances))
                if self.allowances
                else self.tr("None in force."),
            )

    def revoke_selected(self) -> None:
        runtime = self.runtime()
        rows = sorted({i.row() for i in self.allow_table.selectedItems()})
        if runtime is None or not rows:
            return
        ids = [self.allowances[r].id for r in rows]

        def run() -> None:
            for allowance_id in ids:
                runtime.revoke(allowance_id)

        self._submit(
            run,
            lambda _r: self.load_allowances(),
            lambda e: self._show(self.allow_status, e.worded_message),
            "revoke allowances",
        )

    # -- language and theme ------------------------------------------------------------------------
    def set_language(self, code: str) -> None:
        """Switch the GUI's language now and keep it in config.toml."""
        installed = i18n.install(code)
        self.save_setting("gui.language", code, self.look_note)
        self.language_changed.emit(installed)

    def set_theme(self, theme: str) -> None:
        app = QApplication.instance()
        if isinstance(app, QApplication):
            themes.apply_theme(app, theme)
        self.save_setting("gui.theme", theme, self.look_note)
        self.theme_changed.emit(theme)

    # -- data --------------------------------------------------------------------------------------
    def refresh_data(self) -> None:
        engine = self.engine
        self._submit(
            engine.store_info,
            lambda info: self._on_tab(5, "data", partial(self._data_shown, info)),
            lambda e: self._on_tab(
                5, "data", lambda: self._show(self.data_error, e.worded_message)
            ),
            "store info",
        )

    def _data_shown(self, info: Any) -> None:
        counts = info.row_counts
        values = {
            "folder": str(self.paths.data_dir),
            "database": str(info.path),
            "size": i18n.number(info.size_bytes / 1e6, 1) + " MB",
            "schema": f"{info.schema_version} / {info.latest_version}",
            "rows": self.tr(
                "{clusters} clusters, {jobs} jobs, {events} events, {chats} conversations"
            ).format(
                clusters=counts.get("clusters", 0),
                jobs=counts.get("jobs", 0),
                events=counts.get("events", 0),
                chats=counts.get("conversations", 0),
            ),
        }
        for key, value in values.items():
            self.data_values[key].setText(value)

    def backup_to(self, target: Path) -> None:
        engine = self.engine

        def done(path: Any) -> None:
            size = Path(path).stat().st_size if Path(path).exists() else 0
            self._show(self.data_error, "")
            self._show(
                self.data_note,
                self.tr("Backed up to {path} ({size} MB).").format(
                    path=path, size=i18n.number(size / 1e6, 1)
                ),
            )

        self._submit(
            lambda: engine.backup(target),
            done,
            lambda e: self._show(self.data_error, e.text),
            "back up",
        )

    def backup_dialog(self) -> None:
        import time

        name = f"xyclaw-backup-{time.strftime('%Y%m%d-%H%M')}.db"
        path = i18n.save_file_name(
            self, self.tr("Back up the history"), str(Path.home() / name),
            self.tr("SQLite database (*.db)"),
        )  # fmt: skip
        if path:
            self.backup_to(Path(path))

    def closeEvent(self, event: Any) -> None:
        if hasattr(self.prompter, "detach"):
            self.prompter.detach()
        super().closeEvent(event)


def create_settings_page(context: Any) -> SettingsPage:
    """The page as the main window builds it (the agents' allowances once they started)."""
    return SettingsPage(context.engine, context.worker, runtime=lambda: context.runtime)
