"""The second process of the approvals property test: another client of the same data folder.

``python -m tests.agent.approval_peer CLOUD_URL TOKEN`` with XYCLAW_HOME set. Reads one JSON
object a line on stdin, ``{"cid": N, "card": "3fa9c2d1"}``, answers that card with a yes
naming it (rules brain, the simulated cloud), and prints one JSON line: ``{"ok": true}`` or
``{"ok": false, "error": "..."}``. Prints ``READY`` first.
"""

from __future__ import annotations

import json
import sys

from xyclaw.agent.runtime import AgentRuntime
from xyclaw.agent.types import Decision
from xyclaw.config import load_config
from xyclaw.engine.compose import build_engine
from xyclaw.errors import XyclawError
from xyclaw.paths import AppPaths
from xyclaw.providers import ProviderRegistry
from xyclaw.providers.sim import SimProvider
from xyclaw.store import Store


def main() -> None:
    cloud_url, token = sys.argv[1:3]
    paths = AppPaths.from_environment()
    config = load_config(paths.config_file, environ={})
    registry = ProviderRegistry()
    registry.add(SimProvider(cloud_url, token))
    store = Store(paths.database)
    engine = build_engine(paths, config, providers=registry, store=store)
    runtime = AgentRuntime(engine, store=store, paths=paths, config=config)
    print("READY", flush=True)
    for line in sys.stdin:
        ask = json.loads(line)
        try:
            yes = Decision("approve", digest=str(ask["card"]), by="peer")
            runtime.answer(int(ask["cid"]), yes, lambda event: None)
            print(json.dumps({"ok": True}), flush=True)
        except XyclawError as exc:
            print(json.dumps({"ok": False, "error": exc.message}), flush=True)
    runtime.close()
    engine.close()


if __name__ == "__main__":
    main()
