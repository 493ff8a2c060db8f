"""`xyclaw mcp` as a coding agent meets it (issue 37): how soon the tools are listed after
the server starts, and how long a plan, a read and a rent (returned as pending) take.

The `mcp` package's own client spawns the server over stdio with a new data folder and the
simulated cloud. Clients give a server a few seconds to start (Codex: 10 s by default) and
time out long calls; the rent must come back pending, never wait for the user.
``--smoke``: one call of each. Prints one JSON object as its last line.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp import Client
from mcp.client.stdio import StdioServerParameters

ROOT = Path(__file__).resolve().parents[1]
XYCLAW = [sys.executable, "-m", "xyclaw.cli.main"]
PLAN = {"task": "finetune-lora", "model_params": 7e9, "gpus": 8, "budget": 2000}


async def _session(env: dict[str, str], calls: int) -> dict[str, Any]:
    figures: dict[str, Any] = {}
    server = StdioServerParameters(command=XYCLAW[0], args=[*XYCLAW[1:], "mcp"], env=env)
    started = time.perf_counter()
    info = types.Implementation(name="mcp-bench", version="1")
    async with Client(server, client_info=info, read_timeout_seconds=300) as client:
        listed = await client.list_tools()
        figures["listed_s"] = round(time.perf_counter() - started, 3)
        figures["tools"] = len(listed.tools)

        async def timed(tool: str, args: dict[str, Any]) -> tuple[float, Any]:
            t = time.perf_counter()
            result = await client.call_tool(tool, args)
            assert not result.is_error, result.structured_content
            return time.perf_counter() - t, result.structured_content

        figures["first_plan_s"], plan = await timed("plan", PLAN)
        plans = [(await timed("plan", PLAN))[0] for _ in range(calls)]
        reads = [(await timed("clusters", {}))[0] for _ in range(calls)]
        figures["plan_s_median"] = round(statistics.median(plans), 3)
        figures["clusters_s_median"] = round(statistics.median(reads), 3)
        seconds, rent = await timed("rent", {"plan_id": plan["plan_id"], "option": 1})
        assert rent["status"] == "pending", rent
        figures["rent_pending_s"] = round(seconds, 3)
        status = [(await timed("card_status", {"card": rent["card"]}))[0] for _ in range(calls)]
        figures["card_status_s_median"] = round(statistics.median(status), 3)
    figures["first_plan_s"] = round(figures["first_plan_s"], 3)
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=20, help="warm calls of each read")
    parser.add_argument("--smoke", action="store_true", help="one call of each")
    args = parser.parse_args(argv)
    calls = 1 if args.smoke else args.calls
    with tempfile.TemporaryDirectory(prefix="xyclaw-mcp-bench-") as tmp:
        env = dict(
            os.environ,
            XYCLAW_HOME=str(Path(tmp) / "home"),
            XYCLAW_SIM_PROVISION_DELAY_S="0",
            PYTHONPATH=str(ROOT),
        )
        try:
            figures = anyio.run(_session, env, calls)
        finally:
            subprocess.run([*XYCLAW, "sim", "stop"], env=env, capture_output=True, check=False)
    print(json.dumps({"bench": "mcp", "calls": calls, **figures}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
