"""The window's keyboard: search on any page, a new chat from any page, and Approve /
Reject on the approval card that has the focus.

- Ctrl+1 … Ctrl+7 switch pages (the window's own);
- Ctrl+F focuses the current page's search field (``focus_search()`` or ``search``);
- Ctrl+N opens the Chat page with a new conversation (the Chat page answers it itself
  while it is shown, so this one is off then: two active shortcuts on one key would
  cancel each other out);
- on an approval card with the focus (Tab reaches its buttons): Ctrl+Enter approves,
  Ctrl+Backspace rejects; a card already answered ignores both.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QKeyEvent, QKeySequence, QShortcut
from PySide6.QtWidgets import QApplication, QWidget

APPROVE_KEYS = (Qt.Key.Key_Return, Qt.Key.Key_Enter)
REJECT_KEYS = (Qt.Key.Key_Backspace,)


def approval_card_of(widget: QWidget | None) -> Any | None:
    """The approval card around a widget (an object with approve and reject buttons)."""
    while widget is not None:
        if hasattr(widget, "approve_button") and hasattr(widget, "reject_button"):
            return widget
        widget = widget.parentWidget()
    return None


class ApprovalKeys(QObject):
    """Ctrl+Enter / Ctrl+Backspace on the focused approval card (an application event
    filter, so it works wherever inside the card the focus is)."""

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() != QEvent.Type.KeyPress or not isinstance(event, QKeyEvent):
            return False
        if event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier != (
            Qt.KeyboardModifier.ControlModifier
        ):
            return False
        key = event.key()
        if key not in APPROVE_KEYS and key not in REJECT_KEYS:
            return False
        card = approval_card_of(QApplication.focusWidget())
        if card is None:
            return False
        button = card.approve_button if key in APPROVE_KEYS else card.reject_button
        if button.isEnabled() and button.isVisible():
            button.click()
        return True


class WindowShortcuts(QObject):
    """Installed on the main window by :func:`install`."""

    def __init__(self, controller: Any) -> None:
        super().__init__(controller.window)
        self.controller = controller
        window = controller.window
        self.find = QShortcut(QKeySequence(QKeySequence.StandardKey.Find), window)
        self.find.setContext(Qt.ShortcutContext.WindowShortcut)
        self.find.activated.connect(self.focus_search)
        self.new_chat = QShortcut(QKeySequence("Ctrl+N"), window)
        self.new_chat.setContext(Qt.ShortcutContext.WindowShortcut)
        self.new_chat.activated.connect(self.open_new_chat)
        self.approvals = ApprovalKeys(self)
        app = QApplication.instance()
        if app is not None:
            app.installEventFilter(self.approvals)
        controller.pages.currentChanged.connect(lambda _i: self._page_changed())
        self._page_changed()

    def _current(self) -> QWidget | None:
        widget = self.controller.pages.currentWidget()
        return widget if isinstance(widget, QWidget) else None

    def _page_changed(self) -> None:
        chat = self.controller.page_widgets.get("chat")
        self.new_chat.setEnabled(self._current() is not chat)

    def focus_search(self) -> None:
        page = self._current()
        if page is None:
            return
        focus = getattr(page, "focus_search", None)
        if callable(focus):
            focus()
            return
        field = getattr(page, "search", None)
        if isinstance(field, QWidget) and field.isVisible():
            field.setFocus(Qt.FocusReason.ShortcutFocusReason)

    def open_new_chat(self) -> None:
        chat = self.controller.page_widgets.get("chat")
        if chat is None:
            return
        self.controller.show_page("chat")
        start = getattr(chat, "new_conversation", None)
        if callable(start):
            start()

    def close(self) -> None:
        app = QApplication.instance()
        if app is not None:
            app.removeEventFilter(self.approvals)


def install(controller: Any) -> WindowShortcuts:
    return WindowShortcuts(controller)
