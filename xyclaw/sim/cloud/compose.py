"""Wiring of a simulated cloud from its parts; the one place that picks the defaults."""

from __future__ import annotations

import random
import time
from pathlib import Path

from xyclaw.catalog import Catalog
from xyclaw.sim.cloud.cloud import Clock, SimCloud, sim_offers
from xyclaw.sim.cloud.files import load_or_create_token
from xyclaw.sim.cloud.nodes import NodeFactory
from xyclaw.sim.cloud.settings import CloudSettings


def build_cloud(
    state_dir: Path,
    settings: CloudSettings | None = None,
    *,
    token: str | None = None,
    catalog: Catalog | None = None,
    node_factory: NodeFactory | None = None,
    clock: Clock = time.time,
    rng: random.Random | None = None,
) -> SimCloud:
    """A cloud over ``state_dir`` renting the built-in "sim" offers with simulated GPU nodes."""
    if node_factory is None:
        from xyclaw.sim.cloud.simnode import SimNodeFactory

        node_factory = SimNodeFactory()
    state_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    return SimCloud(
        state_dir,
        token=token or load_or_create_token(state_dir),
        settings=settings or CloudSettings(),
        offers=sim_offers((catalog or Catalog.builtin()).offers),
        node_factory=node_factory,
        clock=clock,
        rng=rng,
    )
