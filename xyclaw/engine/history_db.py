"""The history database read for review, as the History page reads it: opened read only
(:class:`ReadOnlyStore`: no writer thread, no migration, no network), then asked through
the store's named queries (``queries``) and the job table's readers.

The Engine's door to ``xyclaw.store`` for a review (issue 35): the page may review another
data folder's database, or this one's with no Engine running, so it needs no Engine
state; the names are the store's own, unchanged.
"""

from __future__ import annotations

from xyclaw.store import replay as queries
from xyclaw.store.jobs import METRIC_COLUMNS, JobTable
from xyclaw.store.replay import ReadOnlyStore

__all__ = ["METRIC_COLUMNS", "JobTable", "ReadOnlyStore", "queries"]
