"""Failures as an agent sees them: contract codes kept, bugs turned into `internal` with a log reference."""

from __future__ import annotations

import asyncio
import logging
import re

import pytest

from tabpilot.engine.core import Engine
from tabpilot.engine.errors import TabpilotError
from tests.support.waiting import until
from tests.unit.engine.conftest import EngineFactory
from tests.unit.fakes import FakeBrowser, page_info


async def test_a_bug_in_a_handler_becomes_internal_with_a_log_ref(
    engine: Engine, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.ERROR, logger="tabpilot.engine"), pytest.raises(TabpilotError) as info:
        await engine.call("interact", {"action": "boom"})
    err = info.value
    assert err.code == "internal"
    ref = err.details["log_ref"]
    assert re.fullmatch(r"ERR-[0-9a-f]{8}", ref)
    assert ref in err.message
    assert "Traceback" not in err.message and "hunter2" not in err.message
    assert "RuntimeError" not in err.message
    envelope = err.envelope()
    assert envelope["error"] == "internal" and envelope["log_ref"] == ref
    assert envelope["correlation_id"].startswith("corr-")
    # The details are in the log, under the same reference.
    (record,) = [r for r in caplog.records if ref in r.getMessage()]
    assert record.exc_info is not None


async def test_browser_errors_keep_their_code(engine: Engine, browser: FakeBrowser) -> None:
    browser.replies["dom.query"] = TabpilotError("element_not_found", "Nothing matches '#x'.", selector="#x")
    with pytest.raises(TabpilotError) as info:
        await engine.call("observe", {"what": "dom", "selector": "#x"})
    assert info.value.code == "element_not_found"
    assert info.value.message == "Nothing matches '#x'."
    assert info.value.details["selector"] == "#x"
    assert info.value.details["correlation_id"].startswith("corr-")


async def test_browser_timeout_keeps_its_code(engine: Engine, browser: FakeBrowser) -> None:
    browser.replies["tab.navigate"] = TabpilotError("timeout", "The page did not load in time.")
    with pytest.raises(TabpilotError) as info:
        await engine.call("interact", {"action": "navigate", "url": "https://slow.test/", "timeout_ms": 1000})
    assert info.value.code == "timeout"
    assert browser.calls[0].timeout_s == pytest.approx(3.0)


async def test_no_browser_connected(make_engine: EngineFactory, browser: FakeBrowser) -> None:
    browser.connect(False)
    engine = make_engine()
    with pytest.raises(TabpilotError) as info:
        await engine.call("observe", {"what": "page"})
    assert info.value.code == "extension_not_connected"
    assert "No browser is connected" in info.value.message
    assert browser.calls == []


async def test_a_call_waits_for_a_browser_that_is_on_its_way(make_engine: EngineFactory, browser: FakeBrowser) -> None:
    browser.connect(False)
    engine = make_engine()
    engine.browser_expected = lambda: True
    browser.replies["page.info"] = page_info(title="ready")
    call = asyncio.create_task(engine.call("observe", {"what": "page"}))
    await until(lambda: browser.connected_reads > 0, timeout=5, what="the call to look for a browser")
    await asyncio.sleep(0)
    assert not call.done()
    browser.connect(True)
    engine.set_browser_connected(True)
    assert (await asyncio.wait_for(call, 5))["title"] == "ready"
