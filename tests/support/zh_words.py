"""Finding English in a Chinese window: what a user can see under a widget, and the words
of it that are English (brand names, units, commands and the data itself excepted).

Table and tree cells: every cell is read but those marked as data (``DATA_ROLE``: a name, a
command, a remote machine's words); ``strict_cells=False`` reads only those the GUI marked as
its own words (``TRANSLATED_ROLE``)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtGui import Qt as QtGuiNamespace
from PySide6.QtGui import QTextDocumentFragment
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QComboBox,
    QGroupBox,
    QLabel,
    QLineEdit,
    QTabWidget,
    QTextEdit,
    QTreeWidget,
    QWidget,
)

from xyclaw.gui.widgets import DATA_ROLE, TRANSLATED_ROLE

if TYPE_CHECKING:
    from tests.gui_history.history_run import HistoryFacts


# Brand names, units, commands, file names and formats a Chinese user sees as they are.
ALLOWED = {
    "xyclaw", "gpu", "gpus", "nccl", "csv", "json", "ssh", "llm", "api", "url", "cny", "usd",
    "openai", "deepseek", "moonshot", "kimi", "qwen", "dashscope", "zhipu", "glm", "ollama",
    "vllm", "lm", "studio", "mfu", "mib", "gib", "gb", "gbit", "mb", "token", "tokens", "loss",
    "ctrl",
    "enter", "backspace", "shift", "esc", "http", "https", "v1", "toml", "config", "hosts",
    "nvidia", "smi", "sqlite", "db", "xid", "cuda", "all_reduce", "reduce", "id", "ssh_config",
    "authorized_keys", "host", "name", "gpu1", "a100", "80g", "alias", "user", "port",
    "sha256", "lambda", "autodl", "infiniband", "roce", "tcp", "nic", "ecc", "keygen",
    "known_hosts", "nvlink", "pcie", "flops",
    "dcgm",  # NVIDIA's Data Center GPU Manager, named as its tool is (issue 34)
    "english",  # the language picker names each language in itself: English, 简体中文
    # what the launch card says XyClaw adds (issue 34): a product, a file and variables
    "pytorch", "flight", "recorder", "sitecustomize", "pythonpath", "xyclaw_step_times",
    "xyclaw_flight_recorder",
    # ... and NCCL's Inspector plugin, by its name and its library's file name
    "inspector", "libnccl", "profiler", "xyclaw_nccl_inspector",
}  # fmt: skip
WORD = re.compile(r"[A-Za-z][A-Za-z_]{2,}")


def english_words(text: str, data: set[str]) -> list[str]:
    text = re.sub(r"<[^>]+>", " ", text)  # rich text tags
    text = re.sub(r"(https?://|/)[^\s，。）)]*", " ", text)  # addresses and paths
    words = [w for w in WORD.findall(text) if w.lower() not in ALLOWED]
    return [w for w in words if w not in data and w.lower() not in data]


def _shows_rich_text(label: QLabel) -> bool:
    """Whether Qt renders the label's text as rich text (a plain-text label shows its markup
    as written, and that is read as written)."""
    fmt = label.textFormat()
    if fmt == Qt.TextFormat.RichText:
        return True
    return fmt == Qt.TextFormat.AutoText and bool(QtGuiNamespace.mightBeRichText(label.text()))


def visible_texts(
    root: QWidget, skip: Iterable[QWidget] = (), *, strict_cells: bool = True
) -> Iterator[tuple[str, str]]:
    """(where, text) for every piece of text a user can see under ``root``; values marked
    as data (names, paths, stored messages) are left out, and so is what is under ``skip``."""
    skipped = list(skip)
    for w in [root, *root.findChildren(QWidget)]:
        if not w.isVisibleTo(root) or w.property("data"):
            continue
        if any(w is s or s.isAncestorOf(w) for s in skipped):
            continue
        name = f"{type(w).__name__}#{w.objectName()}"
        if isinstance(w, QLabel) and _shows_rich_text(w):
            # what the user reads is the rendered text: no tags, "&nbsp;" a space
            yield name, QTextDocumentFragment.fromHtml(w.text()).toPlainText()
        elif isinstance(w, (QLabel, QAbstractButton)):
            yield name, w.text()
        elif isinstance(w, QGroupBox):
            yield name, w.title()
        elif isinstance(w, QLineEdit):
            yield name, w.placeholderText()
        elif isinstance(w, QTextEdit):  # rich text panels (details, reports): their words too
            yield name, w.toPlainText()
            yield name + ":placeholder", w.placeholderText()
        elif isinstance(w, QComboBox):
            for i in range(w.count()):
                yield name, w.itemText(i)
        if isinstance(w, QTabWidget):
            for i in range(w.count()):
                yield name, w.tabText(i)
        if isinstance(w, QAbstractItemView) and w.model() is not None:
            model = w.model()
            try:
                columns = model.columnCount(QModelIndex())
            except TypeError:  # a list widget's own model: one column
                columns = 1
            for c in range(columns):
                yield name + ":header", str(model.headerData(c, Qt.Orientation.Horizontal) or "")
            for r in range(min(model.rowCount(QModelIndex()), 60)):
                for c in range(columns):
                    index = model.index(r, c)
                    if model.data(index, DATA_ROLE):
                        continue
                    if strict_cells or model.data(index, TRANSLATED_ROLE):
                        yield name, str(model.data(index) or "")
        if isinstance(w, QTreeWidget):
            header = w.headerItem()
            for c in range(w.columnCount()):
                yield name + ":header", header.text(c)


def assert_no_english(
    root: QWidget,
    data: set[str],
    where: str,
    skip: Iterable[QWidget] = (),
    *,
    strict_cells: bool = True,
) -> None:
    found = [
        (name, text, english_words(text, data))
        for name, text in visible_texts(root, skip, strict_cells=strict_cells)
        if text and english_words(text, data)
    ]
    assert not found, f"English left on {where}:\n" + "\n".join(
        f"  {name}: {text!r} -> {words}" for name, text, words in found
    )


def data_words(history: HistoryFacts, rows: Iterable[dict[str, object]]) -> set[str]:
    """What the history itself holds (names, providers, regions, fabrics, transports,
    variables): shown as stored in every language."""
    out = {history.cluster_name, history.lost_node, "lora", "review", "sim", "socket", "eth",
           "yc", "Yinchuan", "NCCL_DEBUG", "WARN", "NCCL_IB_DISABLE", "NCCL_SOCKET_IFNAME",
           "eth0", "NCCL_ALGO", "Ring", "HF_HOME", "A800"}  # fmt: skip
    out |= catalogue_words()
    for row in rows:  # names and places only: states and causes must be translated
        for key in ("name", "cluster", "provider", "gpu", "fabric", "region"):
            value = row.get(key)
            if isinstance(value, str):
                out.update(WORD.findall(value))
    return out


def catalogue_words() -> set[str]:
    """GPU models, fabrics and regions of the built-in catalogue: names, as in every language."""
    from xyclaw.catalog import Catalog
    from xyclaw.catalog.fabrics import BUILTIN_FABRICS

    catalog = Catalog.builtin()
    out: set[str] = set()
    for text in [*(g.name for g in catalog.gpus), *BUILTIN_FABRICS,
                 *(o.region for o in catalog.offers)]:  # fmt: skip
        out.update(WORD.findall(str(text)))
    return out
