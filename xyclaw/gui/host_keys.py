"""Host keys in the desktop app: ask before trusting an unknown host, and say plainly when a
known host's key changed and the connection was refused.

:class:`HostKeyPrompter` is the ``trust_new_host`` callback the engine's SSH pool is
built with. The pool calls it on a connecting thread; the question goes to the Qt
thread (ui/host_key_dialog.ui, with the key's SHA256 fingerprint) and that SSH thread
waits for the answer, never the window. Without a window to ask in, or without an
answer in time, the host is not trusted. A changed key is never a question: the
SSH layer refuses it (:class:`~xyclaw.errors.HostKeyChangedError`) and
:func:`show_changed_key` shows both fingerprints.

The same prompter answers a login's keyboard-interactive questions (a lab's 2FA code) with
:meth:`HostKeyPrompter.answer_prompts`: the server's questions in a dialog, the answers typed
hidden unless the server asks to echo, handed to the SSH thread and kept nowhere else.
"""

from __future__ import annotations

import contextlib
import logging
import re
import threading
from dataclasses import dataclass, field
from functools import cache

from PySide6.QtCore import QObject, Qt, Signal, Slot
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from xyclaw.gui import i18n
from xyclaw.gui.forms import child, load_ui
from xyclaw.gui.widgets import plain_label

log = logging.getLogger(__name__)

#: How long a connecting thread waits for the user before it refuses the host.
ANSWER_TIMEOUT_S = 300.0
_FINGERPRINT = re.compile(r"SHA256:[A-Za-z0-9+/]+")
_CHANGED = re.compile(r"host key of (?P<host>.+?) has CHANGED: (?P<rest>.*)", re.S)


@dataclass
class HostKeyQuestion:
    """One unknown host waiting for the user's decision."""

    host: str
    key_type: str
    fingerprint: str
    trusted: bool = False
    answered: threading.Event = field(default_factory=threading.Event)

    def answer(self, trusted: bool) -> None:
        if not self.answered.is_set():
            self.trusted = trusted
            self.answered.set()


@dataclass
class LoginQuestion:
    """A login's keyboard-interactive questions waiting for the user (None: declined)."""

    host: str
    title: str
    instructions: str
    prompts: list[tuple[str, bool]]
    answers: list[str] | None = field(default=None, repr=False)
    answered: threading.Event = field(default_factory=threading.Event)

    def answer(self, answers: list[str] | None) -> None:
        if not self.answered.is_set():
            self.answers = answers
            self.answered.set()


@dataclass
class LoginDialog:
    """The questions' dialog: one field per prompt, Log in / Cancel."""

    dialog: QDialog
    fields: list[QLineEdit]
    buttons: QDialogButtonBox


@dataclass(frozen=True)
class ChangedKey:
    """What a refusal said: the host, the fingerprints on record, the one presented."""

    host: str
    expected: tuple[str, ...]
    presented: str | None


def changed_keys(message: str) -> list[ChangedKey]:
    """Every changed-key refusal in an error message (a rent joins one per failed node)."""
    found: list[ChangedKey] = []
    for part in message.split("host key of ")[1:]:
        match = _CHANGED.match("host key of " + part)
        if match is None:
            continue
        head, _, tail = match["rest"].partition("the host presented")
        presented = _FINGERPRINT.findall(tail)
        found.append(
            ChangedKey(
                host=match["host"],
                expected=tuple(_FINGERPRINT.findall(head)),
                presented=presented[0] if presented else None,
            )
        )
    return found


class HostKeyDialog:
    """The question (Trust / Do not connect) or the refusal (Close), from one form."""

    def __init__(self, parent: QWidget | None) -> None:
        dialog = load_ui("host_key_dialog.ui", parent)
        assert isinstance(dialog, QDialog)
        self.dialog = dialog
        self.headline = child(dialog, QLabel, "hostKeyHeadline")
        self.facts = child(dialog, QFormLayout, "hostKeyFacts")
        self.explanation = child(dialog, QLabel, "hostKeyExplanation")
        self.trust_button = child(dialog, QPushButton, "hostKeyTrust")
        self.refuse_button = child(dialog, QPushButton, "hostKeyRefuse")
        self.values: dict[str, QLabel] = {}

    def add(self, label: str, text: str, *, mono: bool = False, shown: str | None = None) -> None:
        """A row; ``label`` names it in ``values``, ``shown`` is its label on screen."""
        name = plain_label(shown or label)
        name.setProperty("role", "fact-label")
        value = plain_label(text)  # a host's name and key, as the host gave them
        value.setProperty("role", "fingerprint" if mono else "fact")
        value.setProperty("data", True)  # a host, a key type, a fingerprint: as they are
        value.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        value.setWordWrap(True)
        self.facts.addRow(name, value)
        self.values[label] = value


class _Relay(QObject):
    """Lives on the Qt thread; questions emitted from SSH threads are shown here."""

    ask = Signal(object)
    login = Signal(object)

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self.parent_widget = parent
        self.open: dict[int, tuple[HostKeyQuestion, HostKeyDialog]] = {}
        self.logins: dict[int, tuple[LoginQuestion, LoginDialog]] = {}
        self.ask.connect(self._show, Qt.ConnectionType.QueuedConnection)
        self.login.connect(self._show_login, Qt.ConnectionType.QueuedConnection)

    @Slot(object)
    def _show_login(self, question: LoginQuestion) -> None:
        if question.answered.is_set():
            return
        dialog = QDialog(self.parent_widget)
        dialog.setObjectName("loginPromptDialog")
        dialog.setWindowTitle(i18n.translate("HostKeyDialog", "Log in"))
        layout = QVBoxLayout(dialog)
        headline = plain_label(  # the host's name is data: shown as text, never as markup
            i18n.translate("HostKeyDialog", "{host} asks you to log in.").format(host=question.host)
        )
        headline.setWordWrap(True)
        layout.addWidget(headline)
        for said in (question.title, question.instructions):
            if said.strip():  # the server's words: shown as they are, never obeyed
                note = plain_label(said.strip(), multiline=True)
                note.setWordWrap(True)
                layout.addWidget(note)
        form = QFormLayout()
        fields: list[QLineEdit] = []
        for prompt, echo in question.prompts:
            edit = QLineEdit()
            if not echo:
                edit.setEchoMode(QLineEdit.EchoMode.Password)
            form.addRow(plain_label(prompt.strip()), edit)
            fields.append(edit)
        layout.addLayout(form)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.button(QDialogButtonBox.StandardButton.Ok).setText(
            i18n.translate("HostKeyDialog", "Log in")
        )
        layout.addWidget(buttons)
        key = id(question)
        view = LoginDialog(dialog, fields, buttons)
        self.logins[key] = (question, view)

        def answer(given: bool) -> None:
            if self.logins.pop(key, None) is None:
                return
            question.answer([f.text() for f in fields] if given else None)
            for edit in fields:  # nothing of the answer stays in the window
                edit.clear()
            dialog.done(QDialog.DialogCode.Accepted if given else QDialog.DialogCode.Rejected)

        buttons.accepted.connect(lambda: answer(True))
        buttons.rejected.connect(lambda: answer(False))
        dialog.rejected.connect(lambda: answer(False))
        dialog.setMinimumWidth(420)
        dialog.open()

    @Slot(object)
    def _show(self, question: HostKeyQuestion) -> None:
        if question.answered.is_set():  # timed out before the loop got to it
            return
        view = HostKeyDialog(self.parent_widget)
        view.dialog.setWindowTitle(i18n.translate("HostKeyDialog", "Unknown host key"))
        view.headline.setText(
            i18n.translate(
                "HostKeyDialog", "XyClaw has never connected to {host}. Trust its key?"
            ).format(host=question.host)
        )
        view.add("Host", question.host, shown=i18n.translate("HostKeyDialog", "Host"))
        view.add("Key type", question.key_type, shown=i18n.translate("HostKeyDialog", "Key type"))
        view.add(
            "Fingerprint",
            question.fingerprint,
            mono=True,
            shown=i18n.translate("HostKeyDialog", "Fingerprint"),
        )
        view.explanation.setText(
            i18n.translate(
                "HostKeyDialog",
                "Compare the fingerprint with the one your provider shows, or run "
                "ssh-keygen -lf /etc/ssh/ssh_host_*_key.pub on the machine. Trust records the "
                "key in XyClaw's own known-hosts file; a different key later is refused.",
            )
        )
        key = id(question)
        self.open[key] = (question, view)

        def answer(trusted: bool) -> None:
            if self.open.pop(key, None) is None:  # done() below emits rejected again
                return
            question.answer(trusted)
            view.dialog.done(
                QDialog.DialogCode.Accepted if trusted else QDialog.DialogCode.Rejected
            )

        view.trust_button.clicked.connect(lambda: answer(True))
        view.refuse_button.clicked.connect(lambda: answer(False))
        view.dialog.rejected.connect(lambda: answer(False))
        view.dialog.setMinimumWidth(560)
        view.dialog.adjustSize()
        view.dialog.open()

    def close(self) -> None:
        for question, view in list(self.open.values()):
            question.answer(False)
            view.dialog.close()
        self.open.clear()
        for login, shown in list(self.logins.values()):
            login.answer(None)
            shown.dialog.close()
        self.logins.clear()


class HostKeyPrompter:
    """``trust_new_host(host, key_type, fingerprint) -> bool`` that asks the user."""

    def __init__(self, timeout_s: float = ANSWER_TIMEOUT_S) -> None:
        self.timeout_s = timeout_s
        self._relay: _Relay | None = None
        self._lock = threading.Lock()

    @property
    def attached(self) -> bool:
        return self._relay is not None

    def attach(self, parent: QWidget) -> None:
        """Ask in dialogs over ``parent`` from now on (call on the Qt thread)."""
        with self._lock:
            if self._relay is not None:
                self._relay.close()
            self._relay = _Relay(parent)
            parent.destroyed.connect(lambda *_: self.detach())

    def detach(self) -> None:
        with self._lock:
            relay, self._relay = self._relay, None
        if relay is not None:
            with contextlib.suppress(RuntimeError):  # its widget is already gone
                relay.close()

    def pending(self) -> list[HostKeyDialog]:
        """The questions on screen now (tests and the window read them)."""
        relay = self._relay
        return [] if relay is None else [view for _, view in relay.open.values()]

    def pending_logins(self) -> list[LoginDialog]:
        """The login questions (2FA) on screen now."""
        relay = self._relay
        return [] if relay is None else [view for _, view in relay.logins.values()]

    def answer_prompts(
        self, host: str, title: str, instructions: str, prompts: list[tuple[str, bool]]
    ) -> list[str] | None:
        """``answer_prompts`` for the SSH pool: a login's questions asked in the window,
        waited for on the SSH thread; None (declined) without a window or an answer."""
        with self._lock:
            relay = self._relay
        if relay is None:
            log.warning("no window to ask %s's login questions in; not answered", host)
            return None
        if threading.current_thread() is threading.main_thread():
            log.error("a login question came on the Qt thread; not answered (%s)", host)
            return None
        question = LoginQuestion(host, title, instructions, list(prompts))
        relay.login.emit(question)
        if not question.answered.wait(self.timeout_s):
            question.answer(None)
            log.warning("nobody answered %s's login questions in time", host)
        return question.answers

    def __call__(self, host: str, key_type: str, fingerprint: str) -> bool:
        with self._lock:
            relay = self._relay
        if relay is None:
            log.warning("no window to ask whether to trust %s (%s); refused", host, fingerprint)
            return False
        if threading.current_thread() is threading.main_thread():
            # Waiting here would freeze the window that has to show the question.
            log.error("a host-key question came on the Qt thread; refused %s", host)
            return False
        question = HostKeyQuestion(host, key_type, fingerprint)
        relay.ask.emit(question)
        if not question.answered.wait(self.timeout_s):
            question.answer(False)
            log.warning("nobody answered whether to trust %s in time; refused", host)
        return question.trusted


@cache
def default_prompter() -> HostKeyPrompter:
    """The app's one prompter: the engine is built with it, the Clusters page attaches it."""
    return HostKeyPrompter()


def show_changed_key(parent: QWidget, message: str, hint: str | None = None) -> HostKeyDialog:
    """The refusal of a changed host key, with the recorded and the presented fingerprints."""
    found = changed_keys(message)
    view = HostKeyDialog(parent)
    view.dialog.setWindowTitle(
        i18n.translate("HostKeyDialog", "Host key changed: connection refused")
    )
    view.trust_button.hide()
    view.refuse_button.setText(i18n.translate("HostKeyDialog", "Close"))
    view.refuse_button.clicked.connect(view.dialog.accept)
    hosts = ", ".join(dict.fromkeys(c.host for c in found)) or i18n.translate(
        "HostKeyDialog", "a host"
    )
    view.headline.setText(
        i18n.translate(
            "HostKeyDialog", "XyClaw refused to connect: the host key of {hosts} has CHANGED."
        ).format(hosts=hosts)
    )
    on_record = i18n.translate("HostKeyDialog", "On record")
    presented = i18n.translate("HostKeyDialog", "Presented now")
    for change in found:
        prefix = f"{change.host}: " if len(found) > 1 else ""
        view.add(
            f"{prefix}On record", "\n".join(change.expected) or "–", mono=True,
            shown=prefix + on_record,
        )  # fmt: skip
        view.add(
            f"{prefix}Presented now", change.presented or "–", mono=True,
            shown=prefix + presented,
        )  # fmt: skip
    text = hint or i18n.translate(
        "HostKeyDialog",
        "someone may be intercepting the connection, or the machine was re-installed. "
        "Check the new fingerprint with the provider before removing the old one.",
    )
    view.explanation.setText(text[:1].upper() + text[1:])
    view.dialog.setMinimumWidth(560)
    view.dialog.adjustSize()
    view.dialog.open()
    return view
