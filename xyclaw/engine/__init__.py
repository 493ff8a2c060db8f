"""The facade (Engine), its composition, long operations with progress."""

from xyclaw.engine.engine import Engine
from xyclaw.engine.operations import OperationHandle, Progress

__all__ = ["Engine", "OperationHandle", "Progress"]
