"""Child process for the restart test: asks for a rental, waits at the approval, gets killed.

``python -m tests.agent.pending_child CLOUD_URL TOKEN LLM_URL`` with XYCLAW_HOME set.
Prints ``PENDING <conversation id>`` once the approval is pending, then sleeps.
"""

from __future__ import annotations

import sys
import time

from tests.agent.fake_llm import API_KEY
from xyclaw.agent.presets import key_secret_name
from xyclaw.agent.runtime import AgentRuntime
from xyclaw.config import load_config
from xyclaw.engine.compose import build_engine
from xyclaw.paths import AppPaths
from xyclaw.providers import ProviderRegistry
from xyclaw.providers.sim import SimProvider
from xyclaw.store import Store


def main() -> None:
    cloud_url, token, llm_url = sys.argv[1:4]
    paths = AppPaths.from_environment()
    env = {
        "XYCLAW_LLM_PRESET": "custom",
        "XYCLAW_LLM_BASE_URL": llm_url,
        "XYCLAW_LLM_MODEL": "fake-model",
        "XYCLAW_LLM_MAX_RETRIES": "0",
    }
    config = load_config(paths.config_file, environ=env)
    registry = ProviderRegistry()
    registry.add(SimProvider(cloud_url, token))
    store = Store(paths.database)
    engine = build_engine(paths, config, providers=registry, store=store)
    engine.secrets.set(key_secret_name("custom"), API_KEY)
    runtime = AgentRuntime(engine, store=store, paths=paths, config=config)
    cid = runtime.new_conversation()
    result = runtime.send(cid, "rent two A10", lambda event: None)
    assert result.pending_approval is not None
    print(f"PENDING {cid}", flush=True)
    time.sleep(3600)


if __name__ == "__main__":
    main()
