"""The window draws untrusted text as the text it is (issue 25, point 4 and attack 5).

A QLabel or a tooltip renders HTML when its text looks like HTML; Markdown may embed HTML.
Each chat block is built here with a model's, a machine's or a provider's words that try to
hide or recolour part of themselves, shown offscreen, and read back as Qt renders it.
"""

from __future__ import annotations

import ast
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

pytest.importorskip("PySide6")

from PySide6 import QtGui
from PySide6.QtCore import Qt
from PySide6.QtGui import QTextDocument
from PySide6.QtWidgets import QLabel, QWidget
from pytestqt.qtbot import QtBot

from xyclaw.agent.types import ApprovalRequest, Effect
from xyclaw.gui.chat.approval import ApprovalCard
from xyclaw.gui.chat.blocks import MessageBlock, NoticeBlock, PlanCard, ToolCard, UserBlock

HIDDEN = '<font color="#fff">rm -rf /workspace;</font> nvidia-smi -L'
SPOOF = "touch /root/X; rm -rf /workspace; #\r\x1b[2K   command: nvidia-smi -L"
CHAT = Path(__file__).resolve().parents[2] / "xyclaw" / "gui" / "chat"


def rendered(label: QLabel) -> str:
    """What a label shows: its text, or, where Qt reads it as HTML, the text that HTML draws."""
    fmt = label.textFormat()
    text = label.text()
    rich = fmt == Qt.TextFormat.RichText or (
        fmt == Qt.TextFormat.AutoText and QtGui.Qt.mightBeRichText(text)
    )
    if not rich:
        return text
    doc = QTextDocument()
    doc.setHtml(text)
    return doc.toPlainText()


def rendered_tip(tip: str) -> str:
    """What a tooltip shows (QToolTip decides by the same heuristic)."""
    if not QtGui.Qt.mightBeRichText(tip):
        return tip
    doc = QTextDocument()
    doc.setHtml(tip)
    return doc.toPlainText()


def _exec_request(command: str) -> ApprovalRequest:
    return ApprovalRequest(
        approval_id="a-1",
        conversation_id=1,
        agent="operator",
        tool="run_command",
        effect=Effect.EXEC,
        args={"cluster": "alpha", "command": command},
        title=f"Run `{command}` on alpha",
        details={"command": command, "cluster": "alpha", "nodes": ["alpha-0"]},
        flagged_after_remote_output=False,
        created_at=time.time(),
    )


_HOSTS: list[QWidget] = []  # kept alive until the next test's first show


def _shown(qtbot: QtBot, widget: QWidget) -> QWidget:
    """``widget`` in a shown window (kept alive: a parentless host would be collected)."""
    host = QWidget()
    qtbot.addWidget(host)
    _HOSTS.append(host)
    widget.setParent(host)
    host.resize(900, 600)
    host.show()
    qtbot.waitExposed(host)
    return host


@pytest.fixture(autouse=True)
def _forget_hosts() -> None:
    _HOSTS.clear()


def test_a_command_that_hides_its_first_half_shows_as_written(qtbot: QtBot) -> None:
    card = ApprovalCard(_exec_request(HIDDEN))
    _shown(qtbot, card)
    command = card.facts["Command"]
    assert command.textFormat() == Qt.TextFormat.PlainText
    assert rendered(command) == HIDDEN  # the literal text, <font> and the hidden half included
    assert "rm -rf /workspace;" in rendered(card.title)
    assert HIDDEN in rendered(card.title)
    # every label on the card, the app's own words included, is plain text
    for label in card.findChildren(QLabel):
        assert label.textFormat() == Qt.TextFormat.PlainText, label.objectName()


def test_a_command_that_redraws_its_line_shows_whole_on_one_line(qtbot: QtBot) -> None:
    card = ApprovalCard(_exec_request(SPOOF))
    _shown(qtbot, card)
    shown = rendered(card.facts["Command"])
    assert shown == "touch /root/X; rm -rf /workspace; #␍␛[2K   command: nvidia-smi -L"
    assert "\n" not in shown and "\r" not in shown


def test_a_long_command_without_spaces_is_wrapped_whole_not_cut(qtbot: QtBot) -> None:
    command = "touch;" + "rm-rf/workspace/" * 20 + "END"
    card = ApprovalCard(_exec_request(command))
    host = _shown(qtbot, card)
    host.resize(600, 600)
    qtbot.wait(50)
    label = card.facts["Command"]
    assert rendered(label) == command
    width = label.fontMetrics().horizontalAdvance(command)
    assert width > 2 * label.width()  # it cannot fit on one line...
    lines = -(-width // label.width())
    # ...so it takes as many lines as it needs, and the window shows all of them
    assert label.height() >= lines * label.fontMetrics().lineSpacing()
    assert label.visibleRegion().boundingRect().height() == label.height()


def test_model_text_with_html_shows_the_html_as_text(qtbot: QtBot) -> None:
    reply = f"Run this:\n\n{HIDDEN}\n\n<img src='http://127.0.0.1:9/x.png'>\u202eabc"
    block = MessageBlock("operator", reply)
    _shown(qtbot, block)
    body = block.body.document().toPlainText()
    assert HIDDEN in body and "<img src=" in body  # shown, not rendered
    assert "<U+202E>abc" in body  # a bidi override named, not obeyed
    assert "**" not in MessageBlock("operator", "**bold**").body.document().toPlainText()
    user = UserBlock(f"<b>mine</b> {HIDDEN}")
    _shown(qtbot, user)
    assert HIDDEN in user.body.document().toPlainText()


def test_tool_cards_notices_and_plans_show_data_as_written(qtbot: QtBot) -> None:
    call = SimpleNamespace(
        call_id="c1",
        tool="run_command",
        effect="exec",
        status="done",
        duration_s=1.0,
        args={"cluster": "alpha", "command": HIDDEN},
        summary=f"{HIDDEN}\nsecond line",
        error=None,
        summary_said=None,
        error_said=None,
        from_remote=True,
    )
    tool = ToolCard(call)
    _shown(qtbot, tool)
    tool.set_expanded(True)
    assert rendered(tool.summary) == HIDDEN
    assert HIDDEN in rendered_tip(tool.summary.toolTip())
    assert "rm -rf /workspace;" in rendered_tip(tool.toolTip())
    assert '<font color=\\"#fff\\">' in rendered_tip(tool.toolTip())  # the JSON, as written
    assert HIDDEN in tool.result.document().toPlainText()

    notice = NoticeBlock(f"the model said: {HIDDEN}", "error")
    _shown(qtbot, notice)
    assert rendered(notice) == f"the model said: {HIDDEN}"

    option = {
        "option": 1,
        "gpu": "H100",
        "gpus": 8,
        "nodes": 1,
        "gpus_per_node": 8,
        "provider": '<b style="color:#fff">sim</b>',
        "region": "r1\u200b",
        "hours": 1.0,
        "cost": 10.0,
        "reasons": [f"cheapest {HIDDEN}"],
    }
    plan = PlanCard(7, [option])
    _shown(qtbot, plan)
    assert rendered(plan.cells[0][4]) == '<b style="color:#fff">sim</b> · r1<U+200B>'
    assert HIDDEN in rendered(plan.reasons[0])
    assert HIDDEN in rendered_tip(plan.reasons[0].toolTip())
    for block in (tool, notice, plan):
        labels = [block] if isinstance(block, QLabel) else block.findChildren(QLabel)
        for label in labels:
            assert label.textFormat() == Qt.TextFormat.PlainText


def _calls(tree: ast.AST) -> list[ast.Call]:
    return [node for node in ast.walk(tree) if isinstance(node, ast.Call)]


def _name(func: ast.expr) -> str:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return ""


def test_the_chat_cards_make_labels_only_the_plain_way() -> None:
    """In the chat's card modules a label is made by ``plain_label`` (never ``QLabel(...)``):
    a new label that could carry a model's text cannot render it as HTML."""
    for module in ("approval.py", "blocks.py"):
        tree = ast.parse((CHAT / module).read_text(encoding="utf-8"))
        for call in _calls(tree):
            assert _name(call.func) != "QLabel", f"{module}:{call.lineno}: use plain_label()"


def test_every_label_the_window_makes_is_plain_or_says_it_is_rich() -> None:
    """Anywhere in the window, ``QLabel(...)`` is made only with the app's own words (a
    constant, a translation with nothing filled in), or in a function that makes it rich
    text on purpose (``setTextFormat(...RichText)``, its data escaped); every other label
    is a ``plain_label``."""
    words = {"translate", "_word", "tr", "_t"}
    wrong = []
    for path in sorted((CHAT.parent).rglob("*.py")):
        if path.name == "widgets.py":  # plain_label itself
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for func in ast.walk(tree):
            if not isinstance(func, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            rich = "RichText" in ast.unparse(func)
            for call in _calls(func):
                if _name(call.func) != "QLabel" or not isinstance(call.func, ast.Name):
                    continue
                arg = call.args[0] if call.args else None
                mine = isinstance(arg, ast.Constant) or (
                    isinstance(arg, ast.Call) and _name(arg.func) in words
                )
                if not (mine or rich):
                    wrong.append(f"{path.relative_to(CHAT.parents[2])}:{call.lineno}")
    assert wrong == [], "make labels for data with plain_label()"


def test_every_tooltip_in_the_window_is_the_app_s_words_or_goes_through_plain_tip() -> None:
    """A tooltip renders HTML when its text looks like HTML. Anywhere in the window it is a
    constant, the app's own translated words with nothing filled in, a copy of another
    tooltip, or text that went through ``plain_tip``."""
    words = {"translate", "_word", "tr", "_t", "plain_tip", "toolTip"}
    wrong = []
    for path in sorted((CHAT.parent).rglob("*.py")):
        for call in _calls(ast.parse(path.read_text(encoding="utf-8"))):
            if _name(call.func) != "setToolTip" or not call.args:
                continue
            arg = call.args[-1]
            if isinstance(arg, ast.Constant):
                continue
            if isinstance(arg, ast.Call) and _name(arg.func) in words:
                continue
            wrong.append(f"{path.relative_to(CHAT.parents[2])}:{call.lineno}")
    assert wrong == [], "tooltips with figures go through plain_tip()"


def test_an_alert_quoting_a_log_line_shows_it_as_written(qtbot: QtBot) -> None:
    from xyclaw.gui.charts.alerts import AlertCard, AlertsPanel
    from xyclaw.gui.charts.source import AlertView

    panel = AlertsPanel()
    _shown(qtbot, panel)
    alert = AlertView(
        id=1,
        rule="kernel.xid",
        severity="critical",
        message=f"Xid 79 on GPU 0: {HIDDEN}\x1b[8m",
        action="<i>reboot</i> the node",
        cluster_id=1,
        node='<b style="color:#fff">alpha-0</b>\u202e',
        node_id=3,
        gpu=0,
    )
    card = AlertCard(alert, panel)
    _shown(qtbot, card)
    message = card.findChild(QLabel, "alertMessage")
    assert rendered(message) == f"Xid 79 on GPU 0: {HIDDEN}"  # the conceal dropped
    assert rendered(card.findChild(QLabel, "alertAdvice")) == "<i>reboot</i> the node"
    [head] = [label for label in card.findChildren(QLabel) if "alpha-0" in rendered(label)]
    assert '<b style="color:#fff">alpha-0</b><U+202E> GPU 0' in rendered(head)


def test_every_form_s_labels_are_plain_text(qtbot: QtBot) -> None:
    """A label of a Designer form is filled by the code, often with a name or a message:
    plain text unless the code itself asks for rich text."""
    from xyclaw.gui.forms import load_ui
    from xyclaw.paths import bundled

    forms = sorted(p.name for p in (bundled("ui")).glob("*.ui"))
    assert "approval_card.ui" in forms
    for name in forms:
        form = load_ui(name)
        try:
            for label in form.findChildren(QLabel):
                assert label.textFormat() == Qt.TextFormat.PlainText, (name, label.objectName())
        finally:
            form.deleteLater()
