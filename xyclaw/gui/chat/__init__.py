"""The chat page: conversations with the agents, their tool calls, plans and approvals."""
