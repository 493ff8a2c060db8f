"""The value types the faces (CLI, window, agents) take from the core, in one public module.

A face imports the Engine and this module, never a part (``planner``, ``jobs``,
``telemetry`` ...): so a part can change its insides without breaking a face, and what the
CLI shows cannot drift from what the window and the agents show. Each name here is the
part's own class, re-exported unchanged; a face that needs behaviour, not a value, asks the
Engine for it.
"""

from __future__ import annotations

# --- values the CLI and the agents take -------------------------------------------------
#
# (issue 35, the CLI and agent faces: add imports in this block)
#
#


# --- values the window takes ------------------------------------------------------------
#
# (issue 35, the window's face: add imports in this block)
#
#


__all__: list[str] = []
