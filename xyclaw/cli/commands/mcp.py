"""``xyclaw mcp``: serve XyClaw's tools to a coding agent over MCP on stdio (issue 37).

The ``mcp`` package and the agents are imported only in the handler: the CLI's start-up
time is measured, and no other command pays for them.
"""

from __future__ import annotations

import argparse
import logging
from typing import TYPE_CHECKING, Any

from xyclaw.cli.context import CliContext

if TYPE_CHECKING:
    from xyclaw.agent.runtime import AgentRuntime


def register(subparsers: Any) -> None:
    mcp = subparsers.add_parser(
        "mcp",
        help="serve XyClaw's tools to a coding agent over MCP (stdio)",
        description=(
            "A Model Context Protocol server on stdin/stdout for Claude Code, Codex and other"
            " agents: plan, offers, quote, clusters, jobs, logs, health, cost and history"
            " answer at once; rent, launch, cancel and release return 'pending' with a card"
            " that only you answer, in the XyClaw window or `xyclaw chat` at a terminal."
            " stdout carries only the protocol; logs go to XyClaw's log file. See docs/mcp.md."
        ),
    )
    mcp.set_defaults(handler=_mcp)


def _never_trust(host: str, key_type: str, fingerprint: str) -> bool:
    """A host whose key XyClaw does not know is not trusted from here: stdin is the
    protocol, nobody can be asked (trust it once with `xyclaw exec` or the window)."""
    return False


def _mcp(args: argparse.Namespace, ctx: CliContext) -> int:
    from xyclaw import __version__

    _log_libraries_to_file()
    from xyclaw.agent.mcp_server import protocol_streams, serve

    # First: from here on nothing but the protocol reaches stdout (the Engine's start, the
    # simulated cloud's, a library's warning go to stderr and the log).
    streams = protocol_streams()

    def build() -> AgentRuntime:
        """On the server's start-up thread, while the handshake is answered."""
        from xyclaw.agent.rules_brain import RulesBrain
        from xyclaw.agent.runtime import AgentRuntime

        return AgentRuntime(
            ctx.engine(trust_new_host=_never_trust),
            store=ctx.store(),
            paths=ctx.paths,
            config=ctx.config,
            # the client is the agent: no model of the user's is asked (nor paid) from here;
            # the user's own answers the conversation in the window or `xyclaw chat`
            brain=RulesBrain(),
            unattended=False,  # its cards wait for the user, in the window or `xyclaw chat`
        )

    runtime = serve(build, __version__, streams)
    if runtime is not None:
        runtime.close()
    return 0


def _log_libraries_to_file() -> None:
    """The ``mcp`` package's own records go to XyClaw's log file (the handler
    ``configure_logging`` put on the ``xyclaw`` logger), never to a terminal."""
    ours = [h for h in logging.getLogger("xyclaw").handlers if getattr(h, "_xyclaw", False)]
    for name in ("mcp", "mcp_types", "anyio"):
        other = logging.getLogger(name)
        for handler in ours:
            if handler not in other.handlers:
                other.addHandler(handler)
        other.propagate = False
        other.setLevel(logging.INFO)
