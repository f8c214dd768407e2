"""How deep and how big one call may be, checked where input arrives (the transports, then the registry).

A parser that recurses, a validator that walks, a log line that prints: each of them fails somewhere on
input nested a few hundred levels deep, and then the caller gets no answer at all. So nesting is
measured first, without recursion, and anything deeper than a real call needs is refused with a reason.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

MAX_DEPTH = 32
"""Nesting of one argument's value (objects and lists). A workflow with if_exists four deep and an
extraction schema of nested objects needs well under 20."""
MAX_WIRE_DEPTH = 64
"""Nesting of a whole JSON-RPC message or HTTP body: the envelope around the arguments, and then some."""
MAX_MESSAGE_BYTES = 8 * 1024 * 1024
"""One incoming message (the HTTP API's body limit too)."""

_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')


class NotJson(ValueError):
    """Text that is not JSON (truncated, NaN or Infinity, digits past Python's limit, ...)."""


def text_depth(text: str, limit: int = MAX_WIRE_DEPTH) -> int:
    """How deep the JSON in `text` nests (strings skipped), counted without parsing; stops at limit + 1."""
    depth = deepest = 0
    for match in _TOKEN.finditer(text):
        char = match.group()[0]
        if char in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > limit:
                    return deepest
        elif char in "]}":
            depth -= 1
    return deepest


def _refuse_constant(name: str) -> Any:
    raise NotJson(f"{name} is not a JSON number")


def loads(text: str | bytes) -> Any:
    """Strict JSON: NaN, Infinity and -Infinity are refused (Python's json takes them)."""
    try:
        return json.loads(text, parse_constant=_refuse_constant)
    except NotJson:
        raise
    except (ValueError, RecursionError) as exc:
        raise NotJson(str(exc)) from None


def problem(value: Any, limit: int = MAX_DEPTH) -> str | None:
    """Why a value that arrived as JSON cannot be used: nested too deep, a number JSON does not have, or a
    string no UTF-8 can carry."""
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            if depth + 1 > limit:
                return f"nests deeper than {limit} levels"
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)
            if isinstance(item, dict):
                stack.extend((key, depth) for key in item)
        elif isinstance(item, float) and not math.isfinite(item):
            return "holds NaN or Infinity, which JSON does not have"
        elif isinstance(item, str) and not_text(item):
            return LONE_SURROGATE
    return None


LONE_SURROGATE = "holds a lone UTF-16 surrogate (a \\ud800-\\udfff escape without its pair), which is not text"


def not_text(value: str) -> bool:
    """A string JSON can hold and UTF-8 cannot (`"\\ud800"`): every file, log and socket write would fail on it."""
    if value.isascii():
        return False
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False
