"""The simulated GPU cloud's control plane: an HTTP/JSON API on loopback (docs/sim-api.md).

``SimCloud`` is the logic (usable in-process), ``SimCloudServer`` puts it on
HTTP, ``build_cloud`` wires the defaults, and :mod:`.launcher` runs it as a
background process that separate commands and the GUI share.
"""

from xyclaw.sim.cloud.cloud import Admission, SimCloud, sim_offers
from xyclaw.sim.cloud.compose import build_cloud
from xyclaw.sim.cloud.errors import CloudApiError
from xyclaw.sim.cloud.launcher import SimCloudEndpoint, SimCloudStatus, ensure_running
from xyclaw.sim.cloud.nodes import NodeFactory, NodeHandle, NodeLaunch
from xyclaw.sim.cloud.server import SimCloudServer
from xyclaw.sim.cloud.settings import CloudSettings, Faults, default_capacity

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
