"""The monitor's heartbeat: rules only, no tokens, nothing done without the user.

Every ``[agents] heartbeat_interval_s`` it reads the open alerts and recent budget
warnings of live clusters and posts each new one, once, as a message from the monitor
agent in the "Monitor" conversation. Each message carries suggested actions (release
the idle cluster, cancel the stuck job, check the node's health): they are tool calls
that go through :meth:`AgentRuntime.run_action`, so the same approvals apply. The
heartbeat itself never runs a gated tool: with nobody to ask, the answer is no.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from typing import Any

from xyclaw.agent.types import Effect, SuggestedAction
from xyclaw.errors import XyclawError
from xyclaw.store import conversations as conv

log = logging.getLogger(__name__)

# Alerts after which the machine is no use until replaced or released.
_REPLACE = {"node.unreachable", "gpu.missing", "gpu.ecc_uncorrectable", "job.nccl_timeout"}
_IDLE = {"gpu.idle_during_job"}


@dataclass(frozen=True)
class Posted:
    conversation_id: int
    message_id: int
    key: str
    text: str
    actions: tuple[SuggestedAction, ...]


class Heartbeat:
    def __init__(self, runtime: Any, interval_s: float | None = None) -> None:
        self.runtime = runtime
        self.engine = runtime.engine
        self.interval_s = interval_s or runtime.config.agents.heartbeat_interval_s
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        if self._thread is not None:
            return

        def loop() -> None:
            while not self._stop.is_set():
                try:
                    self.check_once()
                except XyclawError as exc:
                    log.warning("heartbeat check failed: %s", exc)
                except Exception:
                    log.exception("heartbeat check crashed")
                self._stop.wait(self.interval_s)

        self._thread = threading.Thread(target=loop, name="agent-heartbeat", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=10)
            self._thread = None

    # -- one check -------------------------------------------------------------------------------
    def check_once(self) -> list[Posted]:
        """Post what is new since the last check; returns the messages posted."""
        cid = self.runtime.monitor_conversation()
        store = self.runtime.store
        seen = conv.message_data_values(store, cid, "key")
        names = self._cluster_names()
        posted: list[Posted] = []
        for item in self._findings(names):
            if item["key"] in seen:
                continue
            actions = tuple(self._actions(item, names))
            message_id = conv.add_message(
                store,
                cid,
                "assistant",
                item["text"],
                agent="monitor",
                data={"key": item["key"], "actions": [a.to_json() for a in actions]},
            )
            seen.add(item["key"])
            posted.append(Posted(cid, message_id, item["key"], item["text"], actions))
        return posted

    def _cluster_names(self) -> dict[int, str]:
        try:
            return {c.id: c.name for c in self.engine.clusters(include_released=False)}
        except XyclawError:
            return {}

    def _findings(self, names: dict[int, str]) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = []
        for alert in self.engine.alerts(open_only=True):
            cluster = names.get(alert.get("cluster_id") or -1)
            if cluster is None:
                continue  # released since: nothing to do about it
            data = alert.get("data") or {}
            if isinstance(alert.get("data_json"), str):
                import json

                try:
                    data = json.loads(alert["data_json"])
                except ValueError:
                    data = {}
            action = data.get("action") or ""
            text = f"**{alert.get('severity')}** on {cluster}: {alert.get('message')}" + (
                f"\n\nWhat to do: {action}" if action else ""
            )
            found.append(
                {
                    "key": f"alert:{alert['id']}",
                    "rule": alert.get("rule") or "",
                    "cluster": cluster,
                    "node_id": alert.get("node_id"),
                    "text": text,
                }
            )
        for event in self.engine.recent_events(limit=50):
            if event.get("kind") != "budget":
                continue
            cluster = names.get(event.get("cluster_id") or -1)
            if cluster is None:
                continue
            found.append(
                {
                    "key": f"budget:{event['id']}",
                    "rule": "budget",
                    "cluster": cluster,
                    "node_id": None,
                    "text": f"**{event.get('severity')}** {event.get('message')}\n\nTo go on,"
                    " raise the cluster's budget; to stop paying, release it.",
                }
            )
        return found

    def _actions(self, item: dict[str, Any], names: dict[int, str]) -> list[SuggestedAction]:
        cluster = item["cluster"]
        tools = self.runtime.catalogue.tools
        actions: list[SuggestedAction] = []
        if "cluster_health" in tools:
            actions.append(
                SuggestedAction(
                    f"Check the health of {cluster}",
                    "cluster_health",
                    {"cluster": cluster},
                    Effect.READ,
                )
            )
        if item["rule"] in _REPLACE | _IDLE or item["rule"] == "budget":
            label = {
                "budget": f"Release {cluster} (stop paying)",
            }.get(item["rule"], f"Release {cluster}")
            if item["rule"] in _IDLE:
                label = f"Release the idle cluster {cluster}"
            if item["rule"] in _REPLACE:
                label = f"Release {cluster} (then rent a replacement and resume)"
            actions.append(
                SuggestedAction(label, "release_cluster", {"cluster": cluster}, Effect.DESTROY)
            )
        return actions
