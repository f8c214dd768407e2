"""observe performance through the engine with a fake browser: a read (no pilot, no approval) answering
the page's timings as the extension measured them, for the tab named or the one commands go to."""

from __future__ import annotations

from tabpilot.engine.catalog import build_registry
from tests.unit.engine.conftest import EngineFactory
from tests.unit.fakes import FakeApprovals, FakeBrowser

TIMINGS = {
    "url": "https://shop.test/",
    "title": "Shop",
    "time_origin": 1768473000000,
    "navigation": {
        "type": "navigate",
        "ttfb_ms": 40.5,
        "response_end_ms": 52.0,
        "dom_interactive_ms": 90.0,
        "dom_content_loaded_ms": 120.0,
        "load_ms": None,
        "transfer_size": 2000,
        "decoded_body_size": 1800,
        "status": 200,
    },
    "paint": {"first_paint_ms": 100.0, "first_contentful_paint_ms": 100.0},
    "web_vitals": {"lcp_ms": 140.0, "lcp_element": "img#hero", "cls": 0.02, "inp_ms": None, "fid_ms": None},
    "resources": {
        "count": 1,
        "transfer_bytes": 500,
        "decoded_bytes": 900,
        "by_type": {"img": {"count": 1, "transfer_bytes": 500}},
    },
}


async def test_a_read_with_the_pilot_off_and_no_approval(
    make_engine: EngineFactory, browser: FakeBrowser, approvals: FakeApprovals
) -> None:
    browser.replies["page.performance"] = TIMINGS
    engine = make_engine(pilot_on=False)
    assert await engine.call("observe", {"what": "performance"}) == TIMINGS
    assert await engine.call("observe", {"what": "performance", "tab_id": 7}) == TIMINGS
    assert [c.params for c in browser.calls if c.op == "page.performance"] == [{}, {"tab_id": 7}]
    assert approvals.requests == []


def test_it_is_declared_a_read_of_one_tab() -> None:
    command = build_registry().get("observe.performance")
    assert command is not None and command.kind == "read" and not command.pilot_gated and command.approval is None
    assert command.targets_tab and command.ops == ("page.performance",)
