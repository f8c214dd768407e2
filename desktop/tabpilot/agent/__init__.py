"""The agent-facing adapter: the four MCP tools, over streamable HTTP in the app and relayed on stdio."""
