"""The engine's guard on regular expressions an agent sends (issue 18): what the extension's
linear-time matcher cannot run (backreferences, lookaround, \\p{}, the v flag, oversized programs) is
refused with invalid_params before anything reaches the browser; what it can run goes out, however
catastrophic it would be for a backtracking engine, since the extension never backtracks."""

from __future__ import annotations

from typing import Any

import pytest

from tabpilot.engine.errors import TabpilotError
from tabpilot.engine.safety.js_regex import refusal
from tests.unit.engine.conftest import EngineFactory
from tests.unit.fakes import FakeApprovals, FakeBrowser

REFUSED = [
    ("(a)\\1", "", "backreference"),
    ("(?<x>a)\\k<x>", "", "backreference"),
    ("(?=a)b", "", "lookahead or lookbehind"),
    ("(?<!a)b", "", "lookahead or lookbehind"),
    ("\\p{L}", "u", "Unicode property"),
    ("[\\1]", "", "octal"),
    ("a", "v", "'v' flag"),
    ("x{4000}y{4000}", "", "too large"),
    ("((a{100}){100}){100}", "", "too large"),
    ("(" * 500 + "a" + ")" * 500, "", "more than 100 deep"),
    ("a" * 3000, "", "3000 characters"),
]


@pytest.mark.parametrize(("source", "flags", "words"), REFUSED)
def test_what_the_linear_matcher_cannot_run_is_refused_with_why(source: str, flags: str, words: str) -> None:
    why = refusal(source, flags)
    assert why is not None and words in why


@pytest.mark.parametrize(
    "source",
    [
        "^([\\s\\S]*e){14}QQQ$",
        "(a+)+$",
        "\\d{3}-\\d{4}",
        "^https?://[^/]+/(a|b)*\\?x=\\d+$",
        "[\\d-x]\\k",
        "\\0",
        "a{2,5}",
    ],
)
def test_what_it_can_run_goes_out(source: str) -> None:
    assert refusal(source) is None


async def test_a_refused_assert_pattern_never_reaches_the_browser(
    make_engine: EngineFactory, browser: FakeBrowser
) -> None:
    engine = make_engine(pilot_on=False)
    checks = [{"type": "title", "expected": "A"}, {"type": "text", "selector": "h1", "pattern": "/(\\w+) \\1/i"}]
    with pytest.raises(TabpilotError) as caught:
        await engine.call("observe", {"what": "assert", "checks": checks})
    err = caught.value
    assert err.code == "invalid_params" and err.details.get("index") == 1
    assert "checks[1]" in err.message and "backreference" in err.message
    assert browser.calls == []


@pytest.mark.parametrize(
    ("mode", "args", "param"),
    [
        ("interact", {"action": "wait_for", "url": "/(?=x)done/"}, "url"),
        ("configure", {"action": "mock_route", "url": "/(a)\\1/"}, "url"),
        ("configure", {"action": "block_urls", "patterns": ["**/ads/*", "/\\p{L}+/u"]}, "patterns"),
    ],
)
async def test_a_refused_url_regex_never_reaches_the_browser(
    make_engine: EngineFactory,
    browser: FakeBrowser,
    approvals: FakeApprovals,
    mode: str,
    args: dict[str, Any],
    param: str,
) -> None:
    engine = make_engine(pilot_on=True)
    approvals.script = ["allow"]
    with pytest.raises(TabpilotError) as caught:
        await engine.call(mode, args)
    assert caught.value.code == "invalid_params" and caught.value.details.get("param") == param
    assert "without backtracking" in caught.value.message
    assert not {"page.wait_for", "network.add_routes"} & set(browser.ops)
