"""Acting on a provider's preemption notice (issue 32).

A spot cluster is taken back with a short notice where the provider gives one (the
simulated cloud: ``preempt_at`` in its cluster record, 30 s by default). While an attempt
of a spot job runs, its runner asks the provider every ``JobOptions.spot_poll_s`` seconds
about the attempt's clusters; on a notice it copies the outputs and the newest checkpoint
at once (not at the next periodic copy) and says so in the job's history, and when the
provider says the cluster is gone the attempt ends at once with its nodes lost, so the
recovery's replacement card is asked for without waiting out the reconnect window.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from xyclaw.errors import XyclawError
from xyclaw.records import ClusterRecord

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class SpotWord:
    """What the provider says of a spot cluster: when it takes it back (its notice, UTC
    epoch seconds; None: no notice), and whether it is gone already."""

    preempt_at: float | None
    gone: bool = False


#: asks the provider about a cluster (by its id in the store); None where it cannot say
SpotAsk = Callable[[int], SpotWord | None]


class SpotWatch:
    """One attempt's look-out for its spot clusters' notices, asked in the background so
    that a slow provider never holds up the attempt's supervisor."""

    def __init__(
        self,
        ask: SpotAsk,
        clusters: Sequence[ClusterRecord],
        poll_s: float,
        on_notice: Callable[[ClusterRecord, float], None],
        on_gone: Callable[[ClusterRecord], None],
    ) -> None:
        self._ask = ask
        self._clusters = list(clusters)
        self._poll_s = poll_s
        self._on_notice = on_notice
        self._on_gone = on_gone
        self._asked_at: float | None = None
        self._thread: threading.Thread | None = None
        self._noticed: dict[int, float] = {}
        self._gone: set[int] = set()
        self._lock = threading.Lock()

    @property
    def notice_at(self) -> float | None:
        """The earliest time a cluster of the attempt is taken back, once noticed."""
        with self._lock:
            return min(self._noticed.values(), default=None)

    def tick(self, now: float) -> None:
        """Ask again when ``poll_s`` (monotonic ``now``) has passed and no ask is under way."""
        if self._asked_at is not None and now - self._asked_at < self._poll_s:
            return
        if self._thread is not None and self._thread.is_alive():
            return
        self._asked_at = now
        self._thread = threading.Thread(target=self._look, name="spot-watch", daemon=True)
        self._thread.start()

    def join(self, timeout: float) -> None:
        if self._thread is not None:
            self._thread.join(timeout)

    def _look(self) -> None:
        for cluster in self._clusters:
            if cluster.id in self._gone:
                continue
            try:
                word = self._ask(cluster.id)
            except XyclawError as exc:  # the provider cannot say now: ask again later
                log.info("spot notice of %s: %s", cluster.name, exc.message)
                continue
            except Exception:
                log.exception("asking for the spot notice of %s failed", cluster.name)
                continue
            if word is None:
                continue
            if word.preempt_at is not None and cluster.id not in self._noticed:
                with self._lock:
                    self._noticed[cluster.id] = word.preempt_at
                self._on_notice(cluster, word.preempt_at)
            if word.gone:
                self._gone.add(cluster.id)
                self._on_gone(cluster)
