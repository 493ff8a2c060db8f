"""The built-in rules brain: English and Chinese requests to tool calls, no model, no tokens.

``understand(text, context)`` returns a :class:`RulesTurn` (language, agent,
tool calls, reply, intent); ``summarize(tool, result, language)`` words a tool's
result. The requests it understands are listed, with example phrases in both
languages, in ``phrases.yaml`` next to this file; ``docs/agents.md`` shows the
same table (``python -m xyclaw.agent.rules.phrasebook --write docs/agents.md``).
This package imports only the standard library, PyYAML and XyClaw's core, so it
loads quickly and is tested without LangGraph or an LLM.
"""

from xyclaw.agent.rules.brain import detect_language, understand
from xyclaw.agent.rules.summaries import summarize
from xyclaw.agent.rules.texts import help_text
from xyclaw.agent.rules.turn import (
    AGENTS,
    TOOL_EFFECTS,
    UNSAFE_TOOLS,
    RulesContext,
    RulesTurn,
    ToolCall,
)

__all__ = [
    "AGENTS",
    "TOOL_EFFECTS",
    "UNSAFE_TOOLS",
    "RulesContext",
    "RulesTurn",
    "ToolCall",
    "detect_language",
    "help_text",
    "summarize",
    "understand",
]
