"""Credentials inside captured bodies are redacted; everything else in the body stays as it was."""

from __future__ import annotations

import json

from tabpilot.engine.capture.capture import CaptureStore
from tabpilot.engine.safety.body_redact import REDACTED, redact_body


def test_json_bodies_lose_the_values_of_sensitive_keys_at_any_depth() -> None:
    body = json.dumps(
        {"user": "alice", "password": "pw-1", "auth": {"session_token": "tok-2", "refresh_token": 7}, "n": 3}
    )
    out = json.loads(redact_body(body))
    assert out == {
        "user": "alice",
        "password": REDACTED,
        "auth": {"session_token": REDACTED, "refresh_token": REDACTED},
        "n": 3,
    }
    assert json.loads(redact_body('{"card_number": "4111111111111111", "cvv": 123}')) == {
        "card_number": REDACTED,
        "cvv": REDACTED,
    }


def test_a_json_body_cut_short_is_redacted_too() -> None:
    assert redact_body('{"a": "x", "api_key": "abcdef-cut') == f'{{"a": "x", "api_key": "{REDACTED}"'


def test_form_encoded_and_form_data_bodies() -> None:
    assert redact_body("user=alice&passwd=hunter2&x=1") == f"user=alice&passwd={REDACTED}&x=1"
    assert redact_body("[FormData] user=al&password=pw") == f"[FormData] user=al&password={REDACTED}"


def test_multipart_bodies() -> None:
    body = (
        '--b\r\nContent-Disposition: form-data; name="password"\r\n\r\nhunter2\r\n'
        '--b\r\nContent-Disposition: form-data; name="user"\r\n\r\nalice\r\n--b--\r\n'
    )
    out = redact_body(body)
    assert "hunter2" not in out and "alice" in out and REDACTED in out


def test_text_without_credentials_is_untouched() -> None:
    for text in ("plain text answer", '{"items": [1, 2], "tag": "x"}', "[Binary: 20 bytes, image/png]", ""):
        assert redact_body(text) == text


def test_the_capture_store_redacts_bodies_and_websocket_json() -> None:
    store = CaptureStore()  # no pilot state: every kind is kept
    body = {"kind": "body", "url": "https://a.test/login", "requestBody": '{"password":"pw-9","user":"al"}'}
    ws = {"kind": "ws", "event": "message", "data": '{"token":"tok-9","op":"auth"}'}
    assert store.ingest({"tab_id": 1, "frame_id": 0, "url": "https://a.test/", "items": [body, ws]}) == 2
    [kept_body] = store.entries("network_bodies", tab_id=1).entries
    [kept_ws] = store.entries("websocket_events", tab_id=1).entries
    assert json.loads(kept_body["requestBody"]) == {"password": REDACTED, "user": "al"}
    assert json.loads(kept_ws["data"]) == {"token": REDACTED, "op": "auth"}
