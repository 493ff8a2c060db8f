"""The nodes of one simulated multi-node job kept together, as torchrun and NCCL keep real ones.

A real job cannot start on one node before the others: torchrun's rendezvous waits for
every node's agent, and the process group's first collective for every rank. Nor can one
node run ahead: each step ends in an all-reduce that every rank must enter. Without this,
each simulated node ran its own clock: under load the node that launched later, or that
printed rank 0's log, fell behind, and its GPUs looked idle while its peers worked (a
straggler no real job shows).

A node that waits longer than its patience for a peer (a node that was never launched, a
peer that hangs) goes on alone, and so does the rest of the group from then on: the sim
does not model torchrun's rendezvous timeout, only the pace it keeps.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

#: A job's identity among the sim's nodes: the cluster, its master's host and port, and
#: its node count.
JobKey = tuple[str, str, int, int]

_POLL_S = 0.05  # how often a waiting node looks whether it was signalled


@dataclass
class Lockstep:
    """One job's nodes: who joined, which sync point each reached, who has left."""

    key: JobKey
    cond: threading.Condition = field(default_factory=threading.Condition)
    joined: set[int] = field(default_factory=set)
    left: set[int] = field(default_factory=set)
    reached: dict[int, int] = field(default_factory=dict)
    broken: bool = False

    def reach(
        self, node_rank: int, point: int, patience_s: float, stop: Callable[[], bool]
    ) -> None:
        """Wait at sync point ``point`` until every other node still in the job reached it,
        until ``stop`` says this node was signalled, or until its patience runs out (then
        the group is broken, and nobody in it waits again)."""
        deadline = time.monotonic() + patience_s
        with self.cond:
            self.reached[node_rank] = point
            self.cond.notify_all()
            while not self.broken and not self._all_reached(point) and not stop():
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    self.broken = True
                    self.cond.notify_all()
                    return
                self.cond.wait(min(_POLL_S, remaining))

    def leave(self, node_rank: int) -> None:
        """The node's run ended (finished, failed or killed): nobody waits for it again."""
        with self.cond:
            self.left.add(node_rank)
            self.cond.notify_all()
        with _GROUPS_LOCK:
            if _GROUPS.get(self.key) is self and self.left >= self.joined:
                del _GROUPS[self.key]

    def _all_reached(self, point: int) -> bool:
        nnodes = self.key[-1]
        return all(r in self.left or self.reached.get(r, -1) >= point for r in range(nnodes))


_GROUPS: dict[JobKey, Lockstep] = {}
_GROUPS_LOCK = threading.Lock()


def join(key: JobKey, node_rank: int) -> Lockstep:
    """The job's group for this node. A node rank that already joined the current group
    starts a new one: that is the next run of the job (a restart, a resumed job), and the
    old group's members, if any still run, go on without it."""
    with _GROUPS_LOCK:
        group = _GROUPS.get(key)
        if group is None or node_rank in group.joined:
            group = _GROUPS[key] = Lockstep(key)
        with group.cond:
            group.joined.add(node_rank)
        return group
