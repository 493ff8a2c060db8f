"""Settings' simulated cloud: whether it runs, start it, stop it.

The desktop starts and stops it the way ``xyclaw sim`` and the sim provider do, through
the cloud's launcher (a background process serving the data folder's ``sim/`` state);
everything else reaches the cloud only over HTTP and SSH.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from xyclaw.config import Config
from xyclaw.paths import AppPaths


@dataclass(frozen=True)
class SimStatus:
    running: bool
    url: str | None = None
    pid: int | None = None
    state_dir: Path | None = None


def state_dir(paths: AppPaths) -> Path:
    return paths.data_dir / "sim"


def status(paths: AppPaths) -> SimStatus:
    from xyclaw.sim.cloud import launcher

    found = launcher.status(state_dir(paths))
    endpoint = found.endpoint
    return SimStatus(
        running=found.running,
        url=endpoint.url if endpoint else None,
        pid=endpoint.pid if endpoint else None,
        state_dir=found.state_dir,
    )


def start(paths: AppPaths, config: Config, provision_delay_s: float | None = None) -> SimStatus:
    """Start the cloud in the background (on its last port when free); a running one is
    left as it is."""
    from xyclaw.sim.cloud import launcher

    delay = config.sim.provision_delay_s if provision_delay_s is None else provision_delay_s
    launcher.ensure_running(state_dir(paths), port=config.sim.port, provision_delay_s=delay)
    return status(paths)


def stop(paths: AppPaths) -> SimStatus:
    """Stop it; its clusters, host keys and ledger stay in the folder for the next start."""
    from xyclaw.sim.cloud import launcher

    launcher.stop(state_dir(paths))
    return status(paths)
