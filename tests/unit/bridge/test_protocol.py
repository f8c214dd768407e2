"""Frames from the extension: the valid ones parse, every malformed one is refused with a readable reason."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tabpilot.bridge.protocol import OPS, PROTOCOL_VERSION, ProtocolError, encode, parse_incoming

HELLO: dict[str, Any] = {
    "type": "hello",
    "protocol": PROTOCOL_VERSION,
    "extension_version": "0.1.0",
    "extension_id": "mlkkpgdajhikmngjhninkfngfhbknalp",
    "instance_id": "inst-1",
    "browser": {"name": "Chromium", "version": "126"},
    "client_nonce": "0123456789abcdef0123456789abcdef",
    "auth": "none",
}


def frame(base: dict[str, Any], **changes: Any) -> str:
    msg = {**base, **changes}
    return json.dumps({k: v for k, v in msg.items() if v is not ...})


@pytest.mark.parametrize(
    "msg",
    [
        HELLO,
        {**HELLO, "auth": "paired", "pair_id": "pair-1"},
        {"type": "auth", "proof": "ab" * 32},
        {"type": "result", "id": "m1", "ok": True, "data": {"title": "A"}},
        {"type": "result", "id": "m1", "ok": True},
        {"type": "result", "id": "m2", "ok": False, "error": {"code": "timeout", "message": "slow"}},
        {"type": "event", "name": "page", "data": {"url": "https://a.test/"}},
        {"type": "ping"},
        {"type": "pong"},
    ],
)
def test_valid_frames_parse_to_themselves(msg: dict[str, Any]) -> None:
    assert parse_incoming(json.dumps(msg)) == msg
    assert parse_incoming(json.dumps(msg).encode()) == msg


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        ("{not json", "frame is not JSON"),
        (b"\xff\xfe{}", "frame is not JSON"),
        ("", "frame is not JSON"),
        ("[1, 2]", "frame is not a JSON object"),
        ('"hello"', "frame is not a JSON object"),
        ("null", "frame is not a JSON object"),
        ("{}", "unknown frame type None"),
        ('{"type": "command"}', "unknown frame type 'command'"),
        ('{"type": ["hello"]}', "unknown frame type ['hello']"),
        ('{"type": {"a": 1}}', "unknown frame type"),
        ('{"type": 7}', "unknown frame type 7"),
        (frame(HELLO, protocol=...), "hello frame lacks a valid 'protocol'"),
        (frame(HELLO, protocol="1"), "hello frame lacks a valid 'protocol'"),
        (frame(HELLO, protocol=True), "hello frame lacks a valid 'protocol'"),
        (frame(HELLO, extension_id=None), "hello frame lacks a valid 'extension_id'"),
        (frame(HELLO, instance_id=3), "hello frame lacks a valid 'instance_id'"),
        (frame(HELLO, extension_version=...), "hello frame lacks a valid 'extension_version'"),
        (frame(HELLO, browser="Chromium"), "hello frame lacks a valid 'browser'"),
        ('{"type": "result", "ok": true}', "result frame lacks a valid 'id'"),
        ('{"type": "result", "id": 1, "ok": true}', "result frame lacks a valid 'id'"),
        ('{"type": "result", "id": "m1", "ok": 1}', "result frame lacks a valid 'ok'"),
        ('{"type": "result", "id": "m1"}', "result frame lacks a valid 'ok'"),
        ('{"type": "result", "id": "m1", "ok": true, "data": [1]}', "result frame 'data' must be an object"),
        ('{"type": "result", "id": "m1", "ok": true, "data": null}', "result frame 'data' must be an object"),
        ('{"type": "result", "id": "m1", "ok": false}', "failed result frame lacks 'error'"),
        ('{"type": "result", "id": "m1", "ok": false, "error": "boom"}', "failed result frame lacks 'error'"),
        ('{"type": "event", "data": {}}', "event frame lacks a valid 'name'"),
        ('{"type": "event", "name": "page", "data": []}', "event frame lacks a valid 'data'"),
    ],
)
def test_malformed_frames_are_refused_with_a_reason(raw: str | bytes, reason: str) -> None:
    with pytest.raises(ProtocolError) as info:
        parse_incoming(raw)
    assert str(info.value).startswith(reason)


def test_protocol_errors_are_value_errors() -> None:
    assert issubclass(ProtocolError, ValueError)


def test_encode_is_compact_json_that_keeps_text_readable() -> None:
    msg = {"type": "command", "id": "m1", "op": "dom.query", "params": {"selector": "h1:contains('é')"}}
    text = encode(msg)
    assert " " not in text.replace("h1:contains('é')", "")
    assert "é" in text
    assert json.loads(text) == msg


def test_the_allow_list_has_no_duplicates() -> None:
    assert len(set(OPS)) == len(OPS)


@pytest.mark.parametrize(
    "changes",
    [{"auth": "root"}, {"auth": 1}, {"client_nonce": "short"}, {"client_nonce": "x" * 200}, {"client_nonce": ...}],
)
def test_hello_needs_a_known_auth_kind_and_a_sound_nonce(changes: dict[str, Any]) -> None:
    with pytest.raises(ProtocolError):
        parse_incoming(frame(HELLO, **changes))
