"""The agent runtime (LangGraph + openai): supervisor, specialists, tools, approvals, brains."""
