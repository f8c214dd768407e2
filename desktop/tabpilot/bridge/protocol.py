"""The versioned bridge protocol, Python side. Its twin is extension/background/protocol.js.

Every frame is one JSON object with a `type`. The extension opens the socket and says `hello`
(with a nonce and how it authenticates); the app answers `challenge`, proving it knows the shared
secret; the extension answers `auth`, proving it in turn; then `welcome` (or `refused` and close).
After that the app pushes `command`s and the extension answers each with a `result` carrying the
same `id`. Either side may send `event`s; the extension sends `ping` to keep its service worker
alive and the app answers `pong`. docs/bridge-protocol.md has the details.
"""

from __future__ import annotations

import json
from typing import Any, Literal, NotRequired, TypedDict

from tabpilot.engine.contract.operations import OPERATIONS

PROTOCOL_VERSION = 2
AUTH_KINDS = ("managed", "paired", "pairing", "none")

# The operations the extension's allow-list accepts: the one table in engine/contract/operations.py (the
# extension's operations.js is generated from it); docs/bridge-protocol.md describes each one.
OPS: tuple[str, ...] = tuple(op.name for op in OPERATIONS)


class BrowserInfo(TypedDict, total=False):
    name: str
    version: str
    user_agent: str
    profile: str


class Hello(TypedDict):
    type: Literal["hello"]
    protocol: int
    extension_version: str
    extension_id: str
    instance_id: str
    browser: BrowserInfo
    client_nonce: str
    auth: Literal["managed", "paired", "pairing", "none"]
    pair_id: NotRequired[str]


class Refused(TypedDict):
    type: Literal["refused"]
    code: str
    reason: str


class CommandMsg(TypedDict):
    type: Literal["command"]
    id: str
    op: str
    params: dict[str, Any]
    timeout_ms: int
    trace: NotRequired[bool]
    """Hop timing on (TABPILOT_TRACE): the extension answers with its marks as `trace`."""


class ProtocolError(ValueError):
    pass


_REQUIRED: dict[str, tuple[tuple[str, type | tuple[type, ...]], ...]] = {
    "hello": (
        ("protocol", int),
        ("extension_version", str),
        ("extension_id", str),
        ("instance_id", str),
        ("browser", dict),
        ("client_nonce", str),
        ("auth", str),
    ),
    "auth": (("proof", str),),
    "result": (("id", str), ("ok", bool)),
    "event": (("name", str), ("data", dict)),
    "ping": (),
    "pong": (),
}


def parse_incoming(raw: str | bytes) -> dict[str, Any]:
    """Parse and shape-check a frame from the extension; raise ProtocolError with a readable reason."""
    try:
        msg = json.loads(raw)
    except ValueError as exc:
        raise ProtocolError(f"frame is not JSON: {exc}") from exc
    except RecursionError:
        # Not bounded lower: a page's tree read by the extension may nest deep. But anyone with the
        # extension's Origin header may send a first frame, and this one must be refused, not crash.
        raise ProtocolError("frame nests deeper than can be parsed") from None
    if not isinstance(msg, dict):
        raise ProtocolError("frame is not a JSON object")
    kind = msg.get("type")
    if not isinstance(kind, str) or kind not in _REQUIRED:
        raise ProtocolError(f"unknown frame type {kind!r}")
    for name, expected in _REQUIRED[kind]:
        value = msg.get(name)
        # bool is an int in Python; `"protocol": true` is not version 1.
        if not isinstance(value, expected) or (isinstance(value, bool) and expected is int):
            raise ProtocolError(f"{kind} frame lacks a valid '{name}'")
    if kind == "hello" and (msg["auth"] not in AUTH_KINDS or not 16 <= len(msg["client_nonce"]) <= 128):
        raise ProtocolError("hello frame has an unknown auth kind or a bad nonce")
    if kind == "result":
        if msg["ok"] and not isinstance(msg.get("data", {}), dict):
            raise ProtocolError("result frame 'data' must be an object")
        if not msg["ok"] and not isinstance(msg.get("error"), dict):
            raise ProtocolError("failed result frame lacks 'error'")
    return msg


def encode(msg: Any) -> str:
    return json.dumps(msg, separators=(",", ":"), ensure_ascii=False)
