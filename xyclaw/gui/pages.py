"""The sections of the main window, in navigation order."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class PageInfo:
    key: str
    title: str
    summary: str


PAGES: tuple[PageInfo, ...] = (
    PageInfo("chat", "Chat", "Tell XyClaw what you want to train or serve; its agents plan it."),
    PageInfo("plan", "Plan", "Compare GPU models, cluster sizes, fabrics, cost and time."),
    PageInfo("clusters", "Clusters", "Clusters you rent or own: state, nodes, cost so far."),
    PageInfo("jobs", "Jobs", "Training and inference jobs: launch, logs, cancel, resume."),
    PageInfo("monitor", "Monitor", "Live GPU and network charts for every node, with alerts."),
    PageInfo("history", "History", "Past clusters, jobs, charges and conversations, offline."),
    PageInfo("settings", "Settings", "Providers, hosts, the LLM endpoint, budgets and theme."),
)
