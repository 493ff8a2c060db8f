"""The facade (Engine), its composition, long operations with progress.

The names are loaded on first use (PEP 562), so that importing a light part of the
package (``xyclaw.engine.surface`` for the effect tags, ``xyclaw.engine.quotes``) does not
import the whole Engine with SSH, HTTP and the billing guard.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from xyclaw.engine.engine import Engine
    from xyclaw.engine.operations import OperationHandle, Progress

_WHERE = {
    "Engine": "xyclaw.engine.engine",
    "OperationHandle": "xyclaw.engine.operations",
    "Progress": "xyclaw.engine.operations",
}


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'xyclaw.engine' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


__all__ = ["Engine", "OperationHandle", "Progress"]
