"""The Settings page's line on what is set up and what could be next (as `xyclaw doctor`
ends): the simulated cloud and the rules agent always work; your own hosts, a model and a
provider key are each named once set up, and offered with where to set them up until then.
Read on a worker (the secret store may be a keyring) when the page shows and after a save.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QEvent
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import QLabel, QWidget

if TYPE_CHECKING:
    from xyclaw.engine.values import SetupFacts


class SetupStatus(QLabel):
    """One paragraph: "Set up: ... Next: ..."; ``facts`` is the last reading."""

    def __init__(
        self, engine: Any, config: Callable[[], Any], worker: Any, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setObjectName("setupStatus")
        self.setWordWrap(True)
        self.setProperty("role", "body")
        self.engine = engine
        self.config = config
        self.worker = worker
        self.facts: SetupFacts | None = None

    def refresh(self) -> None:
        engine, config = self.engine, self.config()
        self.worker.submit(
            lambda: engine.setup_facts(config), on_done=self._show, name="setup status"
        )

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self.refresh()

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange and self.facts is not None:
            self._show(self.facts)

    def _show(self, facts: SetupFacts) -> None:
        self.facts = facts
        done = [self.tr("the simulated cloud")]
        todo: list[str] = []
        if facts.hosts:
            done.append(self.tr("{n} machine(s) of your own").format(n=facts.hosts))
        elif facts.hosts == 0:
            todo.append(self.tr("a machine of your own over SSH (Own hosts tab)"))
        if facts.preset == "rules":
            done.append(self.tr("the built-in rules agent"))
            todo.append(self.tr("a model and its key for free-form requests (Model tab)"))
        else:
            done.append(self.tr("the model preset {preset}").format(preset=facts.preset))
        if facts.provider_keys:
            done.append(self.tr("keys for {names}").format(names=", ".join(facts.provider_keys)))
        else:
            todo.append(
                self.tr(
                    "a real cloud: store a Lambda Cloud or AutoDL key from a terminal "
                    "(`xyclaw secrets set lambda_api_key` or `autodl_token`)"
                )
            )
        text = self.tr("Set up: {done}.").format(done="; ".join(done))
        if todo:
            text += " " + self.tr("Next, when you want them: {todo}.").format(todo="; ".join(todo))
        self.setText(text)
