"""What the SDK would drop without an answer is answered before it: by the request's id when readable."""

from __future__ import annotations

import json

from tabpilot.agent.screen import INVALID_PARAMS, INVALID_REQUEST, PARSE_ERROR, screen
from tabpilot.engine.contract import limits

CALL = '{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"observe","arguments":%s}}'


def test_a_good_message_passes_untouched() -> None:
    verdict = screen(CALL % ("1", '{"what":"page"}'))
    assert verdict.passes and verdict.reply is None


def test_a_truncated_line_gets_a_parse_error_with_its_id() -> None:
    text = CALL % ('"req-7"', '{"what":"page"}')
    verdict = screen(text[:60])
    assert not verdict.passes
    assert verdict.reply == {"jsonrpc": "2.0", "id": "req-7", "error": verdict.reply["error"]}  # type: ignore[index]
    assert verdict.reply["error"]["code"] == PARSE_ERROR  # type: ignore[index]


def test_an_id_inside_the_arguments_is_not_taken_for_the_request_id() -> None:
    text = '{"jsonrpc":"2.0","method":"tools/call","params":{"arguments":{"id":99,"x":' + "[" * 100 + "]" * 100 + "}}"
    text += ',"id":5}'
    verdict = screen(text)
    assert verdict.reply is not None
    assert verdict.reply["id"] in (5, None)  # past the deep part it may not be read, but never 99


def test_a_deep_tool_call_is_a_tool_error_and_other_requests_a_json_rpc_error() -> None:
    deep = "[" * 500 + "]" * 500
    verdict = screen(CALL % ("3", '{"what":"dom","selector":' + deep + "}"))
    assert verdict.reply is not None
    result = verdict.reply["result"]
    assert result["isError"] is True
    assert result["structuredContent"]["error"] == "invalid_params"
    assert json.loads(result["content"][0]["text"]) == result["structuredContent"]

    other = screen('{"jsonrpc":"2.0","id":4,"method":"ping","params":{"x":' + deep + "}}")
    assert other.reply is not None and other.reply["error"]["code"] == INVALID_PARAMS

    anonymous = screen("[" * 500)
    assert anonymous.reply is not None and anonymous.reply["error"]["code"] == INVALID_REQUEST


def test_a_deep_notification_is_dropped_without_an_answer() -> None:
    verdict = screen('{"jsonrpc":"2.0","method":"notifications/x","params":{"x":' + "[" * 500 + "]" * 500 + "}}")
    assert not verdict.passes and verdict.reply is None


def test_nan_and_a_message_over_the_limit_are_tool_errors() -> None:
    for text in (
        CALL % ("5", '{"what":"dom","selector":NaN}'),
        CALL % ("5", '{"what":"dom","selector":"' + "x" * (limits.MAX_MESSAGE_BYTES + 1) + '"}'),
    ):
        verdict = screen(text)
        assert verdict.reply is not None
        assert verdict.reply["id"] == 5
        assert verdict.reply["result"]["structuredContent"]["error"] == "invalid_params"
