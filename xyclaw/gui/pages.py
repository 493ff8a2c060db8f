"""The sections of the main window, in navigation order."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication


@dataclass(frozen=True)
class PageInfo:
    key: str
    source_title: str  # English, marked for translation; ``title`` is in the GUI's language
    source_summary: str

    @property
    def title(self) -> str:
        return QCoreApplication.translate("Pages", self.source_title)

    @property
    def summary(self) -> str:
        return QCoreApplication.translate("Pages", self.source_summary)


PAGES: tuple[PageInfo, ...] = (
    PageInfo(
        "chat",
        QT_TRANSLATE_NOOP("Pages", "Chat"),
        QT_TRANSLATE_NOOP(
            "Pages", "Tell XyClaw what you want to train or serve; its agents plan it."
        ),
    ),
    PageInfo(
        "plan",
        QT_TRANSLATE_NOOP("Pages", "Plan"),
        QT_TRANSLATE_NOOP("Pages", "Compare GPU models, cluster sizes, fabrics, cost and time."),
    ),
    PageInfo(
        "clusters",
        QT_TRANSLATE_NOOP("Pages", "Clusters"),
        QT_TRANSLATE_NOOP("Pages", "Clusters you rent or own: state, nodes, cost so far."),
    ),
    PageInfo(
        "jobs",
        QT_TRANSLATE_NOOP("Pages", "Jobs"),
        QT_TRANSLATE_NOOP("Pages", "Training and inference jobs: launch, logs, cancel, resume."),
    ),
    PageInfo(
        "monitor",
        QT_TRANSLATE_NOOP("Pages", "Monitor"),
        QT_TRANSLATE_NOOP("Pages", "Live GPU and network charts for every node, with alerts."),
    ),
    PageInfo(
        "history",
        QT_TRANSLATE_NOOP("Pages", "History"),
        QT_TRANSLATE_NOOP("Pages", "Past clusters, jobs, charges and conversations, offline."),
    ),
    PageInfo(
        "settings",
        QT_TRANSLATE_NOOP("Pages", "Settings"),
        QT_TRANSLATE_NOOP("Pages", "Providers, hosts, the LLM endpoint, budgets and theme."),
    ),
)
