"""Engine results and errors as MCP CallToolResults: structured content plus the same JSON as text."""

from __future__ import annotations

import json
from typing import Any

import mcp_types as types

from tabpilot.engine.artifacts.generate import ATTACHMENTS


def _text(obj: dict[str, Any]) -> types.TextContent:
    return types.TextContent(type="text", text=json.dumps(obj, ensure_ascii=False, separators=(",", ":")))


def success(result: dict[str, Any]) -> types.CallToolResult:
    result = dict(result)
    attachments = result.pop(ATTACHMENTS, [])
    content: list[Any] = [_text(result)]
    for item in attachments:
        content.append(types.ImageContent(type="image", data=item["data"], mime_type=item["mime_type"]))
    return types.CallToolResult(content=content, structured_content=result, is_error=False)


def failure(envelope: dict[str, Any]) -> types.CallToolResult:
    return types.CallToolResult(content=[_text(envelope)], structured_content=envelope, is_error=True)
