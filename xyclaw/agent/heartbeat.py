"""The monitor's heartbeat: rules only, no tokens, nothing done without the user.

Every ``[agents] heartbeat_interval_s`` it reads the open alerts and recent budget
warnings of live clusters and posts each new one, once, as a message from the monitor
agent in the "Monitor" conversation, with its suggested actions as buttons
(:mod:`xyclaw.agent.suggestions`: check the health, replace the lost node and resume,
release the idle cluster, raise the budget). The first new action that is not a read is
also *proposed*: its tool call stops at an approval card in that conversation
(:meth:`AgentRuntime.propose_action`), so the window shows the card and a terminal
answers it with ``xyclaw ask --conversation N --approve``. A card already waiting is
never pushed aside (the other actions stay buttons). The heartbeat itself never answers:
the tool runs only on the user's yes, and in an unattended runtime (nobody to ask) the
answer is no.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from xyclaw.agent.rules.texts import say
from xyclaw.agent.suggestions import BUDGET, proposal, suggest
from xyclaw.agent.types import SuggestedAction, TurnResult
from xyclaw.engine import Engine
from xyclaw.errors import XyclawError
from xyclaw.wording import text_in, worded

said_of, severity_word = Engine.said_of, Engine.severity_word

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Posted:
    conversation_id: int
    message_id: int
    key: str
    text: str
    actions: tuple[SuggestedAction, ...]
    #: The approval card this message's proposal opened (None: a card already waited, the
    #: message has no gated action, or it was not the first new one of its check).
    proposed: TurnResult | None = None


class Heartbeat:
    def __init__(
        self,
        runtime: Any,
        interval_s: float | None = None,
        on_posted: Callable[[list[Posted]], None] | None = None,
    ) -> None:
        self.runtime = runtime
        self.engine = runtime.engine
        self.interval_s = interval_s or runtime.config.agents.heartbeat_interval_s
        #: Called (on the heartbeat's thread) after a check posted something: the window
        #: reloads the Monitor conversation.
        self.on_posted = on_posted
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def language(self) -> str:
        """``"zh"`` or ``"en"``: the setting's language now (a change applies at the next
        check), as the rules brain answers a message that names none."""
        from xyclaw.wording import language_of

        return language_of(self.runtime.config.gui.language)

    def start(self) -> None:
        if self._thread is not None:
            return

        def loop() -> None:
            while not self._stop.is_set():
                try:
                    posted = self.check_once()
                    if posted and self.on_posted is not None:
                        self.on_posted(posted)
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
        conversations = self.runtime.conv
        seen = conversations.message_data_values(cid, "key")
        names = self._cluster_names()
        posted: list[Posted] = []
        language = self.language
        for item in self._findings(names, language):
            if item["key"] in seen:
                continue
            actions = tuple(self._actions(item, language))
            message_id = conversations.add_message(
                cid,
                "assistant",
                item["text"],
                agent="monitor",
                data={"key": item["key"], "actions": [a.to_json() for a in actions]},
            )
            seen.add(item["key"])
            posted.append(Posted(cid, message_id, item["key"], item["text"], actions))
        for index, post in enumerate(posted):
            chosen = proposal(list(post.actions))
            if chosen is None:
                continue
            text = say(language, "proposal", label=chosen.label)
            result = self.runtime.propose_action(cid, chosen, text, lambda event: None)
            if result is not None:
                posted[index] = dataclasses.replace(post, proposed=result)
            break  # one card at a time; the other actions stay buttons
        return posted

    def _cluster_names(self) -> dict[int, str]:
        try:
            return {c.id: c.name for c in self.engine.clusters(include_released=False)}
        except XyclawError:
            return {}

    def _findings(self, names: dict[int, str], language: str) -> list[dict[str, Any]]:
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
            # Worded in the post's language where the alert was stored with its wording; an
            # older alert keeps the English it was stored with.
            message = worded(said_of(alert) or str(alert.get("message") or ""), language)
            action = worded(said_of(alert, "action_said") or data.get("action") or "", language)
            severity = severity_word(str(alert.get("severity") or ""), language)
            text = text_in(
                language,
                "agent.heartbeat.alert",
                severity=severity,
                cluster=cluster,
                message=message,
            ) + (text_in(language, "agent.heartbeat.what_to_do", action=action) if action else "")
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
            message = worded(said_of(event) or str(event.get("message") or ""), language)
            severity = severity_word(str(event.get("severity") or ""), language)
            found.append(
                {
                    "key": f"budget:{event['id']}",
                    "rule": BUDGET,
                    "cluster": cluster,
                    "node_id": None,
                    "text": text_in(
                        language,
                        "agent.heartbeat.budget_spent",
                        severity=severity,
                        message=message,
                    ),
                }
            )
        return found

    def _actions(self, item: dict[str, Any], language: str) -> list[SuggestedAction]:
        return suggest(
            self.engine,
            item["rule"],
            item["cluster"],
            tools=set(self.runtime.catalogue.tools),
            language=language,
        )
