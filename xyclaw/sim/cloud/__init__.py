"""The simulated GPU cloud's control plane: an HTTP/JSON API on loopback (docs/sim-api.md).

``SimCloud`` is the logic (usable in-process), ``SimCloudServer`` puts it on
HTTP, ``build_cloud`` wires the defaults, and :mod:`.launcher` runs it as a
background process that separate commands and the GUI share.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from xyclaw.sim.cloud.cloud import Admission, SimCloud, sim_offers
    from xyclaw.sim.cloud.compose import build_cloud
    from xyclaw.sim.cloud.errors import CloudApiError
    from xyclaw.sim.cloud.launcher import SimCloudEndpoint, SimCloudStatus, ensure_running
    from xyclaw.sim.cloud.nodes import NodeFactory, NodeHandle, NodeLaunch
    from xyclaw.sim.cloud.server import SimCloudServer
    from xyclaw.sim.cloud.settings import CloudSettings, Faults, default_capacity

#: Where each name lives: the app imports ``xyclaw.sim.cloud.launcher`` to find a running
#: cloud, and that must not load the cloud's server, nodes and SSH.
_HOMES = {
    "Admission": "cloud",
    "SimCloud": "cloud",
    "sim_offers": "cloud",
    "build_cloud": "compose",
    "CloudApiError": "errors",
    "SimCloudEndpoint": "launcher",
    "SimCloudStatus": "launcher",
    "ensure_running": "launcher",
    "NodeFactory": "nodes",
    "NodeHandle": "nodes",
    "NodeLaunch": "nodes",
    "SimCloudServer": "server",
    "CloudSettings": "settings",
    "Faults": "settings",
    "default_capacity": "settings",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value


__all__ = [
    "Admission",
    "CloudApiError",
    "CloudSettings",
    "Faults",
    "NodeFactory",
    "NodeHandle",
    "NodeLaunch",
    "SimCloud",
    "SimCloudEndpoint",
    "SimCloudServer",
    "SimCloudStatus",
    "build_cloud",
    "default_capacity",
    "ensure_running",
    "sim_offers",
]
