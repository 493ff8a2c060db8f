"""The window's keyboard: search on any page, a new chat from any page, and Approve /
Reject on the approval card that has the focus.

- Ctrl+1 … Ctrl+7 switch pages (the window's own);
- Ctrl+F focuses the current page's search field (``focus_search()`` or ``search``);
- Ctrl+N opens the Chat page with a new conversation (the Chat page answers it itself
  while it is shown, so this one is off then: two active shortcuts on one key would
  cancel each other out);
- on an approval card with the focus (Tab reaches its buttons): Ctrl+Enter approves,
  Ctrl+Backspace rejects; a card already answered ignores both. Those are the card's own
  shortcuts (xyclaw/gui/chat/approval.py): an application-wide key filter here saw every
  event of the app and made building a page 20-40% slower.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import QWidget


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
        """Nothing to undo: the approval keys are each card's own shortcuts."""


def install(controller: Any) -> WindowShortcuts:
    return WindowShortcuts(controller)
