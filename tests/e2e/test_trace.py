"""Hop timing (TABPILOT_TRACE): a traced call's result carries its marks along the whole path, in order;
untraced, no result carries any."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

import pytest

from tabpilot import trace
from tests.e2e.conftest import E2E
from tests.support.mcp_stdio import StdioMcp

pytestmark = [pytest.mark.e2e, E2E]


@pytest.fixture
def tracing() -> Iterator[None]:
    trace.enabled = True  # as TABPILOT_TRACE=1 does for the app (it runs in this process here)
    yield
    trace.enabled = False


async def test_a_traced_call_carries_its_marks_along_the_path(mcp: StdioMcp, tab: Any, tracing: None) -> None:
    result = await mcp.ok("observe", {"what": "dom", "selector": "h1"})
    marks = result["_trace"]
    names = [name for name, _ in marks]
    for expected in ("app_in", "sdk_dispatch", "validated", "handler_start", "bridge_send", "sw_recv"):
        assert expected in names
    assert names[-4:] == ["bridge_recv", "handler_done", "engine_done", "app_out"]
    assert "page dom.query>" in names and "page dom.query<" in names  # the page's own part
    times = [at for _, at in marks]
    # One clock (the machine's wall clock in both processes): the marks are in the order the path goes.
    assert all(b - a > -1 for a, b in itertools.pairwise(times)), marks
    assert result["matches"][0]["text"] == "Welcome to the fixture"


async def test_an_untraced_call_carries_nothing(mcp: StdioMcp, tab: Any) -> None:
    assert trace.enabled is False
    result = await mcp.ok("observe", {"what": "dom", "selector": "h1"})
    assert "_trace" not in result


async def test_a_traced_click_shows_its_own_path_not_the_element_look_beside_it(
    mcp: StdioMcp, tab: Any, pilot_on: None, tracing: None
) -> None:
    # The app asks the page for the clicked element's locator alongside the click (for playwright_test);
    # that look is not the click's: one request to the extension is traced, and its marks are the click's.
    result = await mcp.ok("interact", {"action": "click", "selector": "h1"})
    names = [name for name, _ in result["_trace"]]
    clicking = names[names.index("handler_start") : names.index("handler_done")]
    assert clicking.count("bridge_send") == 1 and clicking.count("sw_send") == 1, names
    assert "page dom.actionable<" in names and "page page.settle<" in names
    assert names.count("cdp Input.dispatchMouseEvent<") >= 2  # pressed and released
