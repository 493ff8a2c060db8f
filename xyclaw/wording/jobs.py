"""Wording of jobs: ``key: (English, Chinese)``, ``str.format`` fields in braces."""

from __future__ import annotations

TEXTS: dict[str, tuple[str, str]] = {}
