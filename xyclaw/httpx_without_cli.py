"""httpx without its command-line client, imported by ``xyclaw/__init__.py`` before anything else.

``import httpx`` runs ``from ._main import main`` only so that the ``httpx`` console command
exists; that module imports click, rich and pygments, 75-150 ms of every XyClaw command that
talks HTTP (``xyclaw clusters`` asks each provider first; openai and langsmith import httpx
too, on the agent path). XyClaw never runs that command. :func:`install` registers a stand-in
for ``httpx._main`` before httpx is first imported, so its ``__init__`` finds the name without
loading click, rich and pygments; the stand-in's ``main()`` loads the real module and runs it,
so nothing is lost.

Safe if httpx changes: once httpx (or the real ``httpx._main``) is loaded it does nothing; if
httpx stops importing ``_main`` the stand-in is simply never looked at; and the stand-in gives
way to the real module the moment anything asks for its ``main``.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import sys
import types
from typing import Any

_CLI_MODULE = "httpx._main"


class _StandIn(types.ModuleType):
    """What ``sys.modules["httpx._main"]`` holds until something wants the real one."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(_real_cli(), name)


def _real_cli() -> types.ModuleType:
    if isinstance(sys.modules.get(_CLI_MODULE), _StandIn):
        del sys.modules[_CLI_MODULE]
    return importlib.import_module(_CLI_MODULE)


def _main(*args: Any, **kwargs: Any) -> Any:
    """httpx's command-line client, loaded now (nothing in XyClaw calls it)."""
    return _real_cli().main(*args, **kwargs)


def install() -> None:
    """Register the stand-in, unless httpx (or its CLI module) is already loaded."""
    if "httpx" in sys.modules or _CLI_MODULE in sys.modules:
        return
    stand_in = _StandIn(
        _CLI_MODULE, "Stand-in for httpx's CLI module; see xyclaw.httpx_without_cli"
    )
    stand_in.__spec__ = importlib.machinery.ModuleSpec(_CLI_MODULE, None)
    stand_in.main = _main  # type: ignore[attr-defined]
    sys.modules[_CLI_MODULE] = stand_in
