"""Words several areas share: states, and the plain words of lists."""

from __future__ import annotations

TEXTS: dict[str, tuple[str, str]] = {
    "common.list_sep": (", ", "、"),
}
