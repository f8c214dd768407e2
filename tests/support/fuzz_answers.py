"""What a fuzz call got back through `tabpilot mcp`: an error code, `ok`, or no answer in its time.

No answer is NO_ANSWER, a word no error code can be: the app's own error `timeout` (a navigate given
100 ms on a slow page) is an answer, given at once, and must not be counted as a lost call.
"""

from __future__ import annotations

import asyncio
from typing import Any

from tests.support.hostile_calls import FuzzCall
from tests.support.mcp_stdio import StdioMcp

NO_ANSWER = "no answer"
"""The call got no answer within its budget (its own timeout plus a margin)."""


class Caller:
    """Calls through `tabpilot mcp`; after a call lost (no answer in its time) a new client, as the old
    one's single task still waits on it."""

    def __init__(self, client: StdioMcp, env: dict[str, str]) -> None:
        self.client = client
        self.env = env
        self.extra: list[StdioMcp] = []

    async def answer(self, call: FuzzCall) -> str:
        """`ok`, the error code answered, NO_ANSWER, or `client <exception>` (the client could not send it)."""
        try:
            result = await asyncio.wait_for(self.client.call(call.tool, call.arguments), call.budget_s)
        except TimeoutError:
            await self.client.close()
            self.client = StdioMcp(self.env)
            self.extra.append(self.client)
            await self.client.start()
            return NO_ANSWER
        except Exception as exc:  # the client could not even send it: not the app's answer
            return f"client {type(exc).__name__}"
        content: Any = result.structured_content
        if result.is_error:
            return str(content.get("error")) if isinstance(content, dict) else "unstructured"
        return "ok"

    async def close(self) -> None:
        """Closes the clients it started (not the one it was given)."""
        for client in self.extra:
            await client.close()
