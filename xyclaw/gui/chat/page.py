"""The chat page (ui/chat_page.ui): conversations on the left, the conversation on the right.

Every runtime call runs on the worker; a turn (``send``, ``answer``,
``rent_option``) runs on the worker's agent lane and streams its events back
through :meth:`Worker.post`. The page only shows what arrives and forwards
what the user does.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any

import shiboken6
from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QKeyEvent, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QDialog,
    QFrame,
    QInputDialog,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from xyclaw.agent.types import (
    ApprovalRequest,
    ApprovalRequested,
    ChatMessage,
    ConversationInfo,
    Decision,
    PlanShown,
    ReasoningDelta,
    ReplyDone,
    SuggestedAction,
    TokenDelta,
    ToolFinished,
    ToolStarted,
    TurnFailed,
    TurnResult,
)
from xyclaw.gui import i18n
from xyclaw.gui.bridge import ErrorInfo
from xyclaw.gui.chat.approval import ApprovalCard, approval_title
from xyclaw.gui.chat.blocks import (
    JobProgressBlock,
    MessageBlock,
    NoticeBlock,
    PlanCard,
    ToolCard,
    UserBlock,
    clear_layout,
)
from xyclaw.gui.chat.examples import EXAMPLES
from xyclaw.gui.formatting import local_time, message_language, money, tokens
from xyclaw.gui.forms import child, load_ui
from xyclaw.gui.widgets import FlowLayout, plain_label, plain_tip, set_plain, weak_slot
from xyclaw.wording import display

if TYPE_CHECKING:
    from xyclaw.gui.context import GuiContext

log = logging.getLogger(__name__)
SEARCH_DEBOUNCE_MS = 250
# How often the window looks for cards another process asked for (an MCP client through
# `xyclaw mcp`, `xyclaw ask`): their events reach only that process (issue 37).
CARDS_POLL_MS = 4000
JOB_READ_MS = 2000  # how often a job launched from the chat is read again (issue 28)
DRAIN_BUDGET_S = 0.025  # main-thread time for agent events before the loop runs again


#: Titles XyClaw gives a conversation itself (stored in English): shown in the window's language.
_OWN_TITLES = {
    "New conversation": lambda: i18n.translate("ChatPage", "New conversation"),
    "Tour": lambda: i18n.translate("ChatPage", "Tour"),
}


def shown_title(title: str) -> str:
    """A conversation's title as the list and the heading show it: XyClaw's own default
    titles in the window's language, a title the user or the agents gave as it is."""
    own = _OWN_TITLES.get(title)
    return own() if own is not None else title


@dataclass
class Turn:
    """A turn under way: which conversation, how to stop it, the reply being streamed."""

    conversation_id: int
    cancel: threading.Event = field(default_factory=threading.Event)
    reply: MessageBlock | None = None
    started: float = field(default_factory=time.monotonic)
    stopped: bool = False


class _ComposerKeys(QObject):
    """Enter sends, Shift+Enter starts a new line, Esc stops the answer."""

    def __init__(self, page: ChatPage) -> None:
        super().__init__(page)
        self.page = page

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.KeyPress and isinstance(event, QKeyEvent):
            if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
                if event.modifiers() & Qt.KeyboardModifier.ShiftModifier:
                    return False
                self.page.send()
                return True
            if event.key() == Qt.Key.Key_Escape and self.page.busy:
                self.page.stop()
                return True
        return False


class ChatPage(QWidget):
    """Conversations with the agents; see the module's docstring."""

    turn_finished = Signal(object)  # TurnResult or ErrorInfo
    conversations_loaded = Signal()
    conversation_opened = Signal(int)

    def __init__(self, context: GuiContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.context = context
        self.worker = context.worker
        self.runtime: Any | None = None
        form = load_ui("chat_page.ui", self)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(form)
        self.form = form
        self.search = child(form, QLineEdit, "conversationSearch")
        self.list = child(form, QListWidget, "conversations")
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.list.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.new_button = child(form, QPushButton, "newConversation")
        self.rename_button = child(form, QPushButton, "renameConversation")
        self.delete_button = child(form, QPushButton, "deleteConversation")
        self.title = child(form, QLabel, "chatTitle")
        self.totals = child(form, QLabel, "chatTotals")
        self.scroll = child(form, QScrollArea, "transcriptScroll")
        self.transcript = child(form, QWidget, "transcript")
        self.blocks: QVBoxLayout = self.transcript.layout()  # type: ignore[assignment]
        self.blocks.addStretch(1)
        self.error = child(form, QLabel, "chatError")
        # a conversation's title is the user's or a model's words, an error may quote one
        for label in (self.title, self.error):
            label.setTextFormat(Qt.TextFormat.PlainText)
        self.composer = child(form, QPlainTextEdit, "composer")
        self.send_button = child(form, QPushButton, "sendButton")
        splitter = child(form, QSplitter, "chatSplitter")
        splitter.setStretchFactor(0, 0)
        splitter.setStretchFactor(1, 1)
        # the list's pane no narrower than its buttons need (its layout's minimum, in the
        # language shown): "New chat", "Rename", "Delete" are never cut
        splitter.setSizes([270, 900])
        self.stop_button = child(form, QPushButton, "stopButton")

        self.conversations: list[ConversationInfo] = []
        self.current: int | None = None
        self.turn: Turn | None = None
        self.tool_cards: dict[str, ToolCard] = {}
        self.approval_cards: dict[str, ApprovalCard] = {}
        self.secrets_dialog: QDialog | None = None  # asks for a launched job's secrets
        self.job_blocks: dict[str, JobProgressBlock] = {}  # by the launch's call id
        self.plan_cards: list[PlanCard] = []
        self.examples: QFrame | None = None
        # Built under the example requests of an empty chat (the first-run welcome, the tour).
        self.welcome: Callable[[], QWidget] | None = None
        self._load_generation = 0
        self._creating = False  # a conversation is being created for the first message
        self._inbox: deque[tuple[Turn, Any, Any]] = deque()
        self._drain_timer = QTimer(self)
        self._drain_timer.setSingleShot(True)
        self._drain_timer.setInterval(0)
        self._drain_timer.timeout.connect(self._drain)
        self._follow = True
        self._reveal: ApprovalCard | None = None  # a card waiting, kept in view
        self.rename_dialog: QInputDialog | None = None
        self.delete_dialog: QMessageBox | None = None

        self._keys = _ComposerKeys(self)
        self.composer.installEventFilter(self._keys)
        self.send_button.clicked.connect(self.send)
        self.stop_button.clicked.connect(self.stop)
        self.new_button.clicked.connect(self.new_conversation)
        self.rename_button.clicked.connect(self.rename_selected)
        self.delete_button.clicked.connect(self.delete_selected)
        self.list.currentItemChanged.connect(self._selected)
        self._search_timer = QTimer(self)
        self._search_timer.setSingleShot(True)
        self._search_timer.setInterval(SEARCH_DEBOUNCE_MS)
        self._search_timer.timeout.connect(self.reload_conversations)
        self.search.textChanged.connect(lambda _t: self._search_timer.start())
        # conversations with a card waiting, as last seen (None: not looked yet)
        self._cards_seen: set[int] | None = None
        self._cards_timer = QTimer(self)
        self._cards_timer.setInterval(CARDS_POLL_MS)
        self._cards_timer.timeout.connect(self._look_for_cards)
        bar = self.scroll.verticalScrollBar()
        bar.valueChanged.connect(self._scrolled)
        bar.rangeChanged.connect(self._range_changed)
        new_chat = QShortcut(QKeySequence("Ctrl+N"), self)
        new_chat.setContext(Qt.ShortcutContext.WindowShortcut)
        new_chat.activated.connect(self.new_conversation)
        rename = QShortcut(QKeySequence("F2"), self.list)
        rename.setContext(Qt.ShortcutContext.WidgetShortcut)
        rename.activated.connect(self.rename_selected)
        delete = QShortcut(QKeySequence(QKeySequence.StandardKey.Delete), self.list)
        delete.setContext(Qt.ShortcutContext.WidgetShortcut)
        delete.activated.connect(self.delete_selected)
        self._set_enabled(False)
        self._title_state = "starting"  # starting, new, failed, or the conversation's
        self.title.setText(self.tr("Starting the agents…"))

    # -- words ----------------------------------------------------------------------------------
    def _intro_text(self) -> str:
        return self.tr(
            "Say what you want to train or serve, with a budget if you have one. The agents "
            "plan it, show the cost and time, and ask before anything is rented or released."
        )

    def retranslate(self) -> None:
        """What the page wrote itself, in the GUI's language (the form and the cards word
        themselves; messages and conversation titles stay as they were written)."""
        state = self._title_state
        if state == "starting":
            self.title.setText(self.tr("Starting the agents…"))
        elif state == "new":
            self.title.setText(self.tr("New chat"))
        elif state == "failed":
            self.title.setText(self.tr("The agents could not start"))
        else:
            info = self._info(self.current)
            set_plain(self.title, shown_title(info.title) if info else self.tr("Conversation"))
            if info is not None:
                self._show_totals(info)
        for row in range(self.list.count()):
            item = self.list.item(row)
            info = self._info(item.data(Qt.ItemDataRole.UserRole))
            if info is not None:
                item.setText(self._list_text(info))
        if self.examples is not None:
            heading = self.examples.findChild(QLabel, "examplesHeading")
            intro = self.examples.findChild(QLabel, "examplesIntro")
            if heading is not None and intro is not None:
                heading.setText(self.tr("What should XyClaw do?"))
                intro.setText(self._intro_text())

    def showEvent(self, event: Any) -> None:
        super().showEvent(event)
        if not getattr(self, "_focused_once", False) and self.composer.isEnabled():
            # first shown with the agents ready: what the user types goes into the input
            self._focused_once = True
            QTimer.singleShot(0, lambda: self.composer.setFocus(Qt.FocusReason.OtherFocusReason))

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange:
            # after the form has worded itself again (it puts back its own title)
            QTimer.singleShot(0, self, self._retranslate_if_alive)

    def _retranslate_if_alive(self) -> None:
        if i18n.alive(self, self.title, self.list, self.totals):
            self.retranslate()

    # -- runtime --------------------------------------------------------------------------------
    def attach_runtime(self, runtime: Any) -> None:
        self.runtime = runtime
        self._set_enabled(True)
        if self.isVisible() and not getattr(self, "_focused_once", False):
            self._focused_once = True
            self.composer.setFocus(Qt.FocusReason.OtherFocusReason)  # type at once on start
        self._title_state = "new"
        self.title.setText(self.tr("New chat"))
        self.reload_conversations(open_first=True)
        if callable(getattr(runtime, "waiting_conversations", None)):
            self._cards_timer.start()

    def _look_for_cards(self) -> None:
        """Cards asked for elsewhere (another process) since the last look: listed, shown
        when in the open conversation, announced in the tray."""
        runtime = self.runtime
        if runtime is None or self.busy:
            return
        self.worker.submit(
            runtime.waiting_conversations,
            on_done=self._cards_found,
            on_error=lambda _error: None,  # the next look tries again
            name="cards waiting",
        )

    def _cards_found(self, waiting: set[int]) -> None:
        if self.busy:  # a turn of this window's may be asking: its own event announces it
            return
        before, self._cards_seen = self._cards_seen, set(waiting)
        new = set(waiting) - (before or set())
        if before is None or not new:
            return  # the first look: the list shows those already
        self.reload_conversations()
        if self.current in new and not self.busy:
            self.open_conversation(self.current)
        tray = self.context.tray
        if tray is not None:
            tray.notify(
                self.tr("Approval waiting"),
                self.tr("asked for outside this window: conversation {ids}").format(
                    ids=", ".join(str(cid) for cid in sorted(new))
                ),
                "warning",
            )

    def show_runtime_error(self, error: ErrorInfo) -> None:
        self._title_state = "failed"
        self.title.setText(self.tr("The agents could not start"))
        self._show_error(error)

    @property
    def busy(self) -> bool:
        return self.turn is not None or self._creating

    def _set_enabled(self, ready: bool) -> None:
        for widget in (self.send_button, self.new_button, self.composer, self.search):
            widget.setEnabled(ready)
        has = ready and self.current is not None
        self.rename_button.setEnabled(has)
        self.delete_button.setEnabled(has and not self.busy)

    def _show_error(self, error: ErrorInfo | str) -> None:
        text = error.text() if isinstance(error, ErrorInfo) else error
        set_plain(self.error, text.replace("\n", " — "))
        self.error.setVisible(bool(text))

    # -- conversation list ----------------------------------------------------------------------
    def reload_conversations(self, open_first: bool = False) -> None:
        runtime = self.runtime
        if runtime is None:
            return
        search = self.search.text().strip() or None
        self.worker.submit(
            lambda: runtime.conversations(search),
            on_done=lambda found: self._show_conversations(found, open_first),
            on_error=self._show_error,
            name="conversations",
        )

    def _show_conversations(self, found: list[ConversationInfo], open_first: bool) -> None:
        # The Monitor conversation is listed while a card waits there (the heartbeat's
        # proposal for an alert), or when there is nothing else.
        self.conversations = [
            c for c in found if getattr(c, "kind", "chat") in ("chat", "mcp") or c.pending_approval
        ] or list(found)
        self.list.blockSignals(True)
        self.list.clear()
        selected: QListWidgetItem | None = None
        for info in self.conversations:
            item = QListWidgetItem(self._list_text(info))
            item.setData(Qt.ItemDataRole.UserRole, info.id)
            if info.pending_approval:
                item.setForeground(QColor("#b45309"))
            started = self.tr("started {time}").format(
                time=local_time(info.created_at, with_date=True)
            )
            item.setToolTip(
                plain_tip(
                    f"{display.line(shown_title(info.title))}\n{started}"
                    + ("\n" + self.tr("an approval is waiting") if info.pending_approval else "")
                )
            )
            self.list.addItem(item)
            if info.id == self.current:
                selected = item
        if selected is not None:
            self.list.setCurrentItem(selected)
        self.list.blockSignals(False)
        info = self._info(self.current)
        if info is not None:
            set_plain(self.title, shown_title(info.title))
            self._show_totals(info)
        self.conversations_loaded.emit()
        if open_first and self.current is None:
            if self.conversations:
                self.list.setCurrentRow(0)
            else:
                self._show_empty()

    def _list_text(self, info: ConversationInfo) -> str:
        used = tokens(info.tokens_in + info.tokens_out)
        today = time.strftime("%Y-%m-%d") == time.strftime(
            "%Y-%m-%d", time.localtime(info.updated_at)
        )
        when = local_time(info.updated_at, with_date=not today)
        line = f"{when} · " + self.tr("{n} tokens").format(n=used)
        if info.cost_micros:
            line += f" · {money(info.cost_micros, info.currency, 4)}"
        if info.pending_approval:
            line = self.tr("approval waiting") + " · " + line
        return f"{display.line(shown_title(info.title))}\n{line}"

    def _info(self, cid: int | None) -> ConversationInfo | None:
        return next((c for c in self.conversations if c.id == cid), None)

    def _selected(self, item: QListWidgetItem | None, _previous: object = None) -> None:
        if item is None:
            return
        cid = int(item.data(Qt.ItemDataRole.UserRole))
        if cid != self.current:
            self.open_conversation(cid)

    def select_conversation(self, cid: int) -> None:
        for row in range(self.list.count()):
            if self.list.item(row).data(Qt.ItemDataRole.UserRole) == cid:
                self.list.setCurrentRow(row)
                return
        self.open_conversation(cid)

    def new_conversation(self) -> None:
        runtime = self.runtime
        if runtime is None or self.busy:
            return
        self.worker.submit(
            lambda: runtime.new_conversation(None),
            on_done=self._created,
            on_error=self._show_error,
            name="new conversation",
        )

    def _created(self, cid: int) -> None:
        self.current = None
        self.open_conversation(cid)
        self.reload_conversations()
        self.composer.setFocus()

    def rename_selected(self) -> None:
        info = self._info(self.current)
        if info is None or self.runtime is None:
            return
        dialog = QInputDialog(self)
        dialog.setObjectName("renameDialog")
        dialog.setWindowTitle(self.tr("Rename conversation"))
        dialog.setLabelText(self.tr("New name:"))
        dialog.setTextValue(info.title)
        runtime, cid = self.runtime, info.id

        def chosen(title: str) -> None:
            title = title.strip()
            if not title:
                return
            self.worker.submit(
                lambda: runtime.rename_conversation(cid, title),
                on_done=lambda _r: self.reload_conversations(),
                on_error=self._show_error,
                name="rename",
            )
            if cid == self.current:
                set_plain(self.title, title)

        dialog.textValueSelected.connect(chosen)
        self.rename_dialog = dialog
        dialog.open()

    def delete_selected(self) -> None:
        info = self._info(self.current)
        if info is None or self.runtime is None or self.busy:
            return
        box = QMessageBox(
            QMessageBox.Icon.Question,
            self.tr("Delete conversation"),
            self.tr(
                "Delete “{title}” and its messages? Clusters it rented are not affected."
            ).format(title=display.line(shown_title(info.title))),
            QMessageBox.StandardButton.Cancel,
            self,
        )
        box.setTextFormat(Qt.TextFormat.PlainText)  # the title is the user's or a model's words
        box.setObjectName("deleteDialog")
        delete = box.addButton(self.tr("Delete"), QMessageBox.ButtonRole.DestructiveRole)
        runtime, cid = self.runtime, info.id

        def answered(_button: object) -> None:
            if box.clickedButton() is not delete:
                return
            self.worker.submit(
                lambda: runtime.delete_conversation(cid),
                on_done=lambda _r: self._deleted(cid),
                on_error=self._show_error,
                name="delete",
            )

        box.buttonClicked.connect(answered)
        self.delete_dialog = box
        box.open()

    def _deleted(self, cid: int) -> None:
        if self.current == cid:
            self.current = None
            self._clear()
            self._show_empty()
        self.reload_conversations(open_first=True)

    # -- opening a conversation -----------------------------------------------------------------
    def open_conversation(self, cid: int) -> None:
        runtime = self.runtime
        if runtime is None:
            return
        self.current = cid
        self._load_generation += 1
        generation = self._load_generation
        info = self._info(cid)
        self._title_state = "conversation"
        set_plain(self.title, shown_title(info.title) if info else self.tr("Conversation"))
        if info is not None:
            self._show_totals(info)
        self._clear()
        self._show_error("")
        self._set_enabled(True)

        def load() -> tuple[list[ChatMessage], ApprovalRequest | None]:
            return runtime.messages(cid), runtime.pending_approval(cid)

        self.worker.submit(
            load,
            on_done=lambda loaded: self._loaded(generation, cid, *loaded),
            on_error=self._show_error,
            name="open conversation",
        )

    def _loaded(
        self,
        generation: int,
        cid: int,
        messages: list[ChatMessage],
        pending: ApprovalRequest | None,
    ) -> None:
        if generation != self._load_generation:
            return  # the user opened another one meanwhile
        for message in messages:
            self._render_message(message)
        if self.turn is not None and self.turn.conversation_id == cid:
            self._add(
                NoticeBlock(
                    "", words=lambda: i18n.translate("ChatPage", "The agents are still answering…")
                )
            )
        if pending is not None:
            self.show_approval(pending)
        if not messages and pending is None:
            self._show_empty()
        self._follow = True
        self._scroll_to_end()
        self.conversation_opened.emit(cid)

    def _render_message(self, message: ChatMessage) -> None:
        if message.role == "user":
            self._add(UserBlock(message.text, message.ts))
        elif message.role == "tool" and message.tool_call is not None:
            self._tool(message.tool_call)
        elif message.role == "assistant":
            if message.tool_call is not None:
                self._tool(message.tool_call)
            if message.text or message.reasoning:
                block = MessageBlock(message.agent)
                block.finish(
                    message.text,
                    tokens_in=message.tokens_in,
                    tokens_out=message.tokens_out,
                    cost_micros=message.cost_micros,
                    currency=self._currency(),
                    reasoning=message.reasoning,
                )
                self._actions(block, message)
                self._add(block)

    def _actions(self, block: MessageBlock, message: ChatMessage) -> None:
        actions = tuple(getattr(message, "actions", ()) or ())
        if actions:
            cid = int(message.conversation_id)
            block.set_actions(actions, lambda action: self.run_action(cid, action))

    def _currency(self) -> str:
        info = self._info(self.current)
        return info.currency if info is not None else "USD"

    def _show_totals(self, info: ConversationInfo) -> None:
        used = info.tokens_in + info.tokens_out
        self.totals.setText(
            self.tr("{n} tokens").format(n=tokens(used))
            + f" · {money(info.cost_micros, info.currency, 4)}"
            if used
            else ""
        )

    # -- the transcript -------------------------------------------------------------------------
    def _clear(self) -> None:
        clear_layout(self.blocks)
        self.blocks.addStretch(1)
        self.tool_cards.clear()
        self.approval_cards.clear()
        self.job_blocks.clear()
        self.plan_cards.clear()
        self.examples = None

    def _add(self, widget: QWidget) -> QWidget:
        if self.examples is not None:
            self.examples.hide()
        self.blocks.insertWidget(self.blocks.count() - 1, widget)
        return widget

    def _show_empty(self) -> None:
        if self.examples is not None:
            self.examples.show()
            return
        frame = QFrame()
        frame.setObjectName("examples")
        frame.setProperty("role", "examples")
        layout = QVBoxLayout(frame)
        layout.setContentsMargins(8, 24, 8, 8)
        layout.setSpacing(10)
        heading = QLabel(self.tr("What should XyClaw do?"))
        heading.setObjectName("examplesHeading")
        heading.setProperty("role", "title")
        layout.addWidget(heading)
        intro = plain_label(self._intro_text())
        intro.setObjectName("examplesIntro")
        intro.setWordWrap(True)
        intro.setProperty("role", "body")
        layout.addWidget(intro)
        chips = QWidget()
        flow = FlowLayout(chips)
        for text in EXAMPLES:
            chip = QPushButton(text)
            chip.setProperty("role", "chip")
            chip.setProperty("data", True)  # example requests, in English and in Chinese
            chip.setCursor(Qt.CursorShape.PointingHandCursor)
            chip.clicked.connect(weak_slot(self.send, text))  # deleted with the transcript
            flow.addWidget(chip)
        layout.addWidget(chips)
        if self.welcome is not None:
            layout.addWidget(self.welcome())
        self.examples = frame
        self.blocks.insertWidget(self.blocks.count() - 1, frame)

    @property
    def example_chips(self) -> list[QPushButton]:
        if self.examples is None:
            return []
        return [b for b in self.examples.findChildren(QPushButton) if b.property("role") == "chip"]

    def _scrolled(self, value: int) -> None:
        self._follow = value >= self.scroll.verticalScrollBar().maximum() - 40

    def _range_changed(self, _low: int, high: int) -> None:
        if self._reveal is not None:
            self._show_card()
        elif self._follow:
            self.scroll.verticalScrollBar().setValue(high)

    def _scroll_to_end(self) -> None:
        bar = self.scroll.verticalScrollBar()
        bar.setValue(bar.maximum())

    # -- turns ----------------------------------------------------------------------------------
    def send(self, text: str | None = None) -> None:
        """Send the composer's text (or ``text``) as the user's next message."""
        runtime = self.runtime
        if runtime is None or self.busy:
            return
        from_composer = text is None
        text = (self.composer.toPlainText() if text is None else text).strip()
        if not text:
            return
        if from_composer:
            self.composer.clear()
        if self.current is None:
            self._creating = True
            self.send_button.setEnabled(False)

            def failed(error: ErrorInfo) -> None:
                self._creating = False
                self.send_button.setEnabled(True)
                self._show_error(error)

            self.worker.submit(
                lambda: runtime.new_conversation(None),
                on_done=lambda cid: self._send_in(cid, text, created=True),
                on_error=failed,
                name="new conversation",
            )
            return
        self._send_in(self.current, text)

    def _send_in(self, cid: int, text: str, created: bool = False) -> None:
        if created:
            self._creating = False
            self.current = cid
            self._clear()
            set_plain(self.title, text[:60])
        self._show_error("")
        self._add(UserBlock(text))
        self._follow = True
        runtime = self.runtime
        language = message_language()  # a reply the text cannot choose the language of
        self._start(
            cid,
            lambda on_event, cancel: runtime.send(cid, text, on_event, cancel, language=language),
        )

    def rent_option(self, plan_id: int, option: int) -> None:
        runtime, cid = self.runtime, self.current
        if runtime is None or cid is None or self.busy:
            return
        self._add(
            NoticeBlock(
                "",
                words=lambda: i18n.translate(
                    "ChatPage", "You asked to rent option {option} of plan {plan}."
                ).format(option=option, plan=plan_id),
            )
        )
        language = message_language()  # the request is asked, and answered, in it
        self._start(
            cid,
            lambda on_event, cancel: runtime.rent_option(
                cid, plan_id, option, on_event, cancel, language=language
            ),
        )

    def run_action(self, cid: int, action: SuggestedAction) -> None:
        """A suggested action (a monitor message's button): the tool, through its approval."""
        runtime = self.runtime
        if runtime is None or self.busy:
            self._show_error(self.tr("the agents are busy; try again when they have answered"))
            return
        if cid != self.current:
            self.select_conversation(cid)
        self._add(
            NoticeBlock(
                "",
                words=lambda: i18n.translate("ChatPage", "You asked: {action}.").format(
                    action=action.label
                ),
            )
        )
        self._start(cid, lambda on_event, cancel: runtime.run_action(cid, action, on_event, cancel))

    def monitor_posted(self, posted: list[Any]) -> None:
        """The heartbeat posted in the Monitor conversation (and may have opened a card
        there): the list shows it, and the conversation is drawn again when it is open."""
        self.reload_conversations()
        shown = {int(p.conversation_id) for p in posted}
        if self.current in shown and not self.busy:
            self.open_conversation(int(self.current))

    def run_in_monitor(self, action: SuggestedAction | None, text: str | None = None) -> None:
        """An alert button: in the Monitor conversation, as a tool call or in words."""
        runtime = self.runtime
        if runtime is None:
            self._show_error(
                ErrorInfo(
                    self.tr("the agents are still starting"), self.tr("try again in a moment")
                )
            )
            return

        def opened(cid: int) -> None:
            self.reload_conversations()
            if action is not None:
                self.run_action(cid, action)
            elif text:
                if cid != self.current:
                    self.select_conversation(cid)
                self._send_in(cid, text)

        self.worker.submit(
            runtime.monitor_conversation,
            on_done=opened,
            on_error=self._show_error,
            name="monitor conversation",
        )

    def decide(self, card: ApprovalCard, kind: str, args: Any, remember: bool) -> None:
        runtime, cid = self.runtime, int(card.request.conversation_id)
        if runtime is None:
            return
        if self.busy:
            log.warning("an approval was answered while a turn runs; it waits for the turn")
        # The yes carries the digest of the card it was given on (issue 25).
        decision = Decision(
            kind=kind,  # type: ignore[arg-type]
            args=args,
            remember=remember,
            digest=card.request.digest,
            face="window",  # a card an MCP client asked for is answered here (issue 37)
        )
        self._start(cid, lambda on_event, cancel: runtime.answer(cid, decision, on_event, cancel))
        self._reveal = None
        # What is typed next goes to the composer, not to the answered card's buttons.
        self.composer.setFocus(Qt.FocusReason.OtherFocusReason)

    def _start(self, cid: int, call: Any) -> None:
        turn = Turn(cid)
        self.turn = turn
        self.send_button.setEnabled(False)
        self.stop_button.setEnabled(True)
        self.delete_button.setEnabled(False)

        def on_event(event: Any) -> None:  # the worker's thread
            self.worker.post(self._enqueue, (turn, self._event, event))

        self.worker.submit(
            lambda: call(on_event, turn.cancel),
            on_done=lambda result: self._enqueue((turn, self._turn_done, result)),
            on_error=lambda error: self._enqueue((turn, self._turn_failed, error)),
            lane="agent",
            name="agent turn",
        )

    def _enqueue(self, entry: tuple[Turn, Any, Any]) -> None:
        """Turn events wait here and are shown a slice at a time (see ``_drain``)."""
        self._inbox.append(entry)
        if not self._drain_timer.isActive():
            self._drain_timer.start()

    def _drain(self) -> None:
        """Show queued events for at most DRAIN_BUDGET_S, then let the loop breathe."""
        deadline = time.monotonic() + DRAIN_BUDGET_S
        while self._inbox and time.monotonic() < deadline:
            turn, handler, value = self._inbox.popleft()
            try:
                handler(turn, value)
            except Exception:
                log.exception("showing an agent event failed")
        if self._inbox:
            self._drain_timer.start()

    def stop(self) -> None:
        if self.turn is None:
            return
        self.turn.cancel.set()
        self.turn.stopped = True
        self.stop_button.setEnabled(False)
        self.stop_button.setText(self.tr("Stopping…"))

    def _visible(self, cid: int) -> bool:
        return cid == self.current

    def _event(self, turn: Turn, event: Any) -> None:
        cid = int(getattr(event, "conversation_id", turn.conversation_id))
        if isinstance(event, ApprovalRequested):
            self._approval_waiting(event.request)
        if not self._visible(cid):
            return
        if isinstance(event, TokenDelta):
            self._reply_block(turn, event.agent).append(event.text)
        elif isinstance(event, ReasoningDelta):
            self._reply_block(turn, event.agent).append_reasoning(event.text)
        elif isinstance(event, ToolStarted | ToolFinished):
            turn.reply = None  # text after a tool call is a new block, below its card
            self._tool(event.call)
        elif isinstance(event, ApprovalRequested):
            turn.reply = None
            self.show_approval(event.request)
        elif isinstance(event, PlanShown):
            turn.reply = None
            self.show_plan(event.plan_id, event.options)
        elif isinstance(event, ReplyDone):
            message = event.message
            block = turn.reply
            if block is None or block.finished:
                if not message.text:
                    return
                block = MessageBlock(message.agent)
                self._add(block)
            set_plain(block.agent_label, message.agent or block.agent)
            block.finish(
                message.text,
                tokens_in=message.tokens_in,
                tokens_out=message.tokens_out,
                cost_micros=message.cost_micros,
                currency=self._currency(),
                reasoning=message.reasoning,
            )
            self._actions(block, message)
            turn.reply = None
        elif isinstance(event, TurnFailed):
            turn.reply = None
            self._add(NoticeBlock(event.message, "error"))

    def _reply_block(self, turn: Turn, agent: str) -> MessageBlock:
        if turn.reply is None or turn.reply.finished or turn.reply.agent != (agent or "assistant"):
            turn.reply = MessageBlock(agent)
            self._add(turn.reply)
        return turn.reply

    def _tool(self, call: Any) -> ToolCard:
        card = self.tool_cards.get(str(call.call_id))
        if card is None:
            card = ToolCard(call)
            self.tool_cards[str(call.call_id)] = card
            self._add(card)
        else:
            card.update_call(call)
        if call.tool == "launch_job" and call.status == "done":
            self._follow_job(call)
        return card

    def _follow_job(self, call: Any) -> None:
        """Issue 28: the job a launch card started, followed below it: its state, step and
        loss read every few seconds until it ends (a past conversation's: read once)."""
        key = str(call.call_id)
        job = (call.result or {}).get("job") if isinstance(call.result, dict) else None
        if key in self.job_blocks or not isinstance(job, dict) or job.get("id") is None:
            return
        block = JobProgressBlock(int(job["id"]), str(job.get("name") or job["id"]))
        self.job_blocks[key] = block
        self._add(block)
        self._read_job(block)

    def _read_job(self, block: JobProgressBlock) -> None:
        engine = self.context.engine

        def shown(job: Any) -> None:
            if not shiboken6.isValid(block):
                return  # the conversation was closed or cleared meanwhile
            block.show_job(job)
            if not block.ended:
                QTimer.singleShot(JOB_READ_MS, block, lambda: self._read_job(block))

        self.context.worker.submit(
            lambda: engine.job(str(block.job_id)),
            on_done=shown,
            on_error=lambda _error: None,  # a job gone from the history: the line stays
            name="chat job",
        )

    def show_approval(self, request: ApprovalRequest) -> ApprovalCard:
        card = self.approval_cards.get(request.approval_id)
        if card is not None:
            return card
        card = ApprovalCard(request)
        card.decided.connect(lambda kind, args, remember: self.decide(card, kind, args, remember))
        if getattr(request, "tool", None) == "launch_job" and (request.details or {}).get(
            "secrets"
        ):
            card.before_approve = partial(self._ask_job_secrets, card)
        self.approval_cards[request.approval_id] = card
        self._add(card)
        # The card is what the user must answer: in view, even when they had scrolled up
        # (a "Rent this" pressed on a plan card higher in the transcript).
        self._reveal = card  # kept in view as the transcript's layout grows, until answered
        QTimer.singleShot(0, self._show_card)
        return card

    def _ask_job_secrets(self, card: ApprovalCard, approve: Callable[[], None]) -> None:
        """Issue 28: a launch whose job takes a secret (``HF_TOKEN``) that this machine does
        not have asks for its value when approved (kept in the keyring through the Engine,
        never in the history), then approves; a cancel leaves the card unanswered."""
        from xyclaw.gui.secret_values import SecretValuesDialog

        engine = self.context.engine
        spec = str((card.request.details or {}).get("spec") or card.request.args.get("spec"))

        def checked(names: list[str]) -> None:
            if not names:
                approve()
                return
            dialog = SecretValuesDialog(spec, names, self)
            self.secrets_dialog = dialog

            def save() -> None:
                values = dialog.values()

                def store() -> None:
                    for name, value in values.items():
                        engine.store_job_secret(name, value)

                self.context.worker.submit(
                    store, on_done=lambda _r: approve(), on_error=self._show_error, name="secrets"
                )

            dialog.accepted.connect(save)
            dialog.open()

        self.context.worker.submit(
            lambda: list(engine.missing_job_secrets(spec)),
            on_done=checked,
            on_error=self._show_error,
            name="secrets",
        )

    def _show_card(self) -> None:
        card = self._reveal
        if card is None or not shiboken6.isValid(card) or card.decision is not None:
            self._reveal = None
            return
        self.scroll.ensureWidgetVisible(card, 0, 0)  # its title, then its buttons
        self.scroll.ensureWidgetVisible(card.approve_button, 0, 24)

    def show_plan(self, plan_id: int, options: list[dict[str, Any]]) -> PlanCard:
        card = PlanCard(plan_id, options)
        card.rent_requested.connect(self.rent_option)
        self.plan_cards.append(card)
        self._add(card)
        return card

    def _approval_waiting(self, request: ApprovalRequest) -> None:
        if self._cards_seen is not None:  # asked here: announced here, not again by a look
            self._cards_seen.add(int(request.conversation_id))
        tray = self.context.tray
        if tray is None:
            return
        info = self._info(int(request.conversation_id))
        where = (
            shown_title(info.title)
            if info is not None
            else self.tr("conversation {id}").format(id=request.conversation_id)
        )
        if not (self.isVisible() and self._visible(int(request.conversation_id))):
            tray.notify(
                self.tr("Approval waiting"),
                self.tr("{title} (in “{where}”)").format(
                    title=approval_title(request), where=where
                ),
                "warning",
            )
        else:
            tray.approval_waiting(approval_title(request), where)

    def _end_turn(self, turn: Turn) -> None:
        if self.turn is turn:
            self.turn = None
        self.stop_button.setText(self.tr("Stop"))
        self.stop_button.setEnabled(False)
        self._set_enabled(self.runtime is not None)
        if turn.reply is not None:
            turn.reply.finish(None)

    def _turn_done(self, turn: Turn, result: TurnResult) -> None:
        self._end_turn(turn)
        if self._visible(turn.conversation_id):
            if turn.stopped:
                self._add(NoticeBlock("", words=lambda: i18n.translate("ChatPage", "Stopped.")))
            pending = result.pending_approval
            if pending is not None and pending.approval_id not in self.approval_cards:
                self.show_approval(pending)
        self.reload_conversations()
        self.turn_finished.emit(result)

    def _turn_failed(self, turn: Turn, error: ErrorInfo) -> None:
        self._end_turn(turn)
        if self._visible(turn.conversation_id):
            if turn.stopped:
                self._add(NoticeBlock("", words=lambda: i18n.translate("ChatPage", "Stopped.")))
            else:
                self._add(NoticeBlock("", "error", words=partial(error.text, " — ")))
        self.reload_conversations()
        self.turn_finished.emit(error)

    def shutdown(self) -> None:
        """The app quits: stop a turn under way (the runtime keeps what it stored)."""
        if self.turn is not None:
            self.turn.cancel.set()
        self._inbox.clear()
        self._drain_timer.stop()
        self._search_timer.stop()
        bar = self.scroll.verticalScrollBar()
        bar.valueChanged.disconnect(self._scrolled)
        bar.rangeChanged.disconnect(self._range_changed)
