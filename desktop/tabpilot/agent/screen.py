"""Incoming JSON-RPC text, looked at before the MCP SDK parses it, so that every request gets an answer.

The SDK's parser gives up on a message nested about 200 levels deep, and on a truncated line; it then
drops the message and nothing answers, so the agent waits out its own timeout. Here such a message is
answered at once: a tool call with a tool error (`invalid_params`, like any other bad argument; NaN and
Infinity too), any other request with a JSON-RPC error, and a line that is not JSON with a parse error
carrying the request's id when it can still be read.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from tabpilot.agent import results
from tabpilot.engine.contract import limits

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
INVALID_PARAMS = -32602

HEAD_SCAN_CHARS = 64 * 1024
"""Where the id and the method of a message that cannot be parsed are looked for."""

_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]')
_VALUE = re.compile(r'\s*:\s*(-?\d{1,18}|"[^"\\]{0,200}(?:\\.[^"\\]{0,200}){0,20}"|null)')


@dataclass(frozen=True)
class Verdict:
    passes: bool
    """The text may go on to the SDK as it is."""
    reply: dict[str, Any] | None = None
    """What to answer instead (None for a notification: nobody waits for an answer)."""


PASS = Verdict(True)


def screen(text: str) -> Verdict:
    if len(text) > limits.MAX_MESSAGE_BYTES // 4 and len(text.encode("utf-8", "replace")) > limits.MAX_MESSAGE_BYTES:
        size = len(text.encode("utf-8", "replace")) / 1024 / 1024
        return _refuse(text, f"the message is {size:.1f} MB; at most {limits.MAX_MESSAGE_BYTES // 1024 // 1024} MB")
    if limits.text_depth(text) > limits.MAX_WIRE_DEPTH:
        return _refuse(text, f"the message nests deeper than {limits.MAX_WIRE_DEPTH} levels")
    try:
        message = limits.loads(text)
    except limits.NotJson as exc:
        if _json_but_for_constants(text):  # a whole message, with NaN or Infinity for a number somewhere
            return _refuse(text, "NaN and Infinity are not JSON numbers")
        head = _head(text)
        return Verdict(False, _error(head.get("id"), PARSE_ERROR, f"Parse error: {_short(str(exc))}"))
    if not text.isascii() or "\\u" in text:  # only then can a string hold a lone surrogate
        trouble = limits.problem(message, limits.MAX_WIRE_DEPTH)
        if trouble is not None:
            return _refuse(text, f"the message {trouble}")
    return PASS


def _json_but_for_constants(text: str) -> bool:
    try:
        json.loads(text)
    except (ValueError, RecursionError):
        return False
    return True


def _refuse(text: str, why: str) -> Verdict:
    head = _head(text)
    if "id" not in head:
        return Verdict(False, None if "method" in head else _error(None, INVALID_REQUEST, why))
    if head.get("method") == "tools/call":
        envelope = {"error": "invalid_params", "message": f"The call was refused: {why}.", "param": "arguments"}
        result = results.failure(envelope).model_dump(mode="json", by_alias=True, exclude_none=True)
        return Verdict(False, {"jsonrpc": "2.0", "id": head["id"], "result": result})
    return Verdict(False, _error(head["id"], INVALID_PARAMS, f"Invalid params: {why}."))


def _error(request_id: Any, code: int, message: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}


def _short(text: str) -> str:
    return text if len(text) <= 200 else text[:199] + "…"


def _head(text: str) -> dict[str, Any]:
    """The top-level `id` and `method` of a message that cannot be parsed whole (cut short, too deep)."""
    found: dict[str, Any] = {}
    depth = 0
    scanned = text[:HEAD_SCAN_CHARS]
    for match in _TOKEN.finditer(scanned):
        token = match.group()
        if token[0] == '"':
            if depth == 1 and token in ('"id"', '"method"') and token[1:-1] not in found:
                value = _VALUE.match(scanned, match.end())
                if value is not None:
                    parsed = json.loads(value.group(1))
                    if isinstance(parsed, int | str) and not isinstance(parsed, bool):
                        found[token[1:-1]] = parsed
                    if len(found) == 2:
                        break
        elif token in "[{":
            depth += 1
        else:
            depth -= 1
    return found
