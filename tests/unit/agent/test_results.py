"""Engine results as MCP CallToolResults: structured content and the same JSON as text."""

from __future__ import annotations

import base64
import json

import mcp_types as types

from tabpilot.agent.results import failure, success
from tabpilot.engine.artifacts.generate import ATTACHMENTS
from tabpilot.engine.errors import TabpilotError


def first_text(result: types.CallToolResult) -> str:
    item = result.content[0]
    assert isinstance(item, types.TextContent)
    return item.text


def test_success_has_structured_content_and_the_same_json_as_text() -> None:
    obj = {"url": "https://a.test/", "title": "Café ☕", "links": 3, "nested": {"a": [1, None]}}
    result = success(obj)
    assert result.is_error is False
    assert result.structured_content == obj
    assert json.loads(first_text(result)) == obj
    assert "Café ☕" in first_text(result)
    assert len(result.content) == 1


def test_attachments_become_images_and_leave_the_json() -> None:
    data = base64.b64encode(b"\x89PNG...").decode()
    obj = {"format": "png", "size_bytes": 7, ATTACHMENTS: [{"mime_type": "image/png", "data": data}]}
    result = success(obj)
    text, image = result.content
    assert isinstance(image, types.ImageContent)
    assert (image.mime_type, image.data) == ("image/png", data)
    expected = {"format": "png", "size_bytes": 7}
    assert result.structured_content == expected
    assert isinstance(text, types.TextContent) and json.loads(text.text) == expected
    assert ATTACHMENTS in obj  # the engine's copy (kept for command_result) is untouched


def test_failure_is_an_error_result_with_the_envelope() -> None:
    envelope = TabpilotError("approval_denied", "The user denied interact.click.", correlation_id="c1").envelope()
    result = failure(envelope)
    assert result.is_error is True
    assert result.structured_content == {
        "error": "approval_denied",
        "message": "The user denied interact.click.",
        "correlation_id": "c1",
    }
    assert json.loads(first_text(result)) == result.structured_content


def test_wire_form_uses_mcp_field_names() -> None:
    wire = success({"ok": 1}).model_dump(by_alias=True, exclude_none=True, mode="json")
    assert wire["structuredContent"] == {"ok": 1}
    assert wire["isError"] is False
    assert wire["content"][0] == {"type": "text", "text": '{"ok":1}'}
