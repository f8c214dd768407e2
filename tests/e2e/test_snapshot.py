"""observe snapshot, refs, shadow roots, frames and highlight, through the real MCP client into the real
extension in Chromium. The fixture pages count only trusted clicks (snapshot.html per button, the
shadow root's button, frame-inner.html in a same- and a cross-origin frame), so a click that was
faked, or that landed on another element, fails the test."""

from __future__ import annotations

import re
import time
from typing import Any

import pytest

from tabpilot.app import App
from tabpilot.engine.errors import TabpilotError
from tests.e2e.conftest import E2E
from tests.e2e.test_page_actions import open_page
from tests.support.mcp_stdio import StdioMcp
from tests.support.site import FixtureSite
from tests.support.waiting import until

pytestmark = [pytest.mark.e2e, E2E]


def ref_of(snapshot: str, line_start: str) -> str:
    """The ref on the first line that starts (after its indentation) with `line_start`."""
    for line in snapshot.split("\n"):
        if line.strip().startswith(line_start):
            found = re.search(r"@(?:f\d+)?e\d+", line)
            assert found, line
            return found.group(0)
    raise AssertionError(f"no line starts with {line_start!r} in:\n{snapshot}")


async def snapshot(mcp: StdioMcp, **options: Any) -> dict[str, Any]:
    return await mcp.ok("observe", {"what": "snapshot", **options})


async def click(mcp: StdioMcp, selector: str, **options: Any) -> dict[str, Any]:
    return await mcp.ok("interact", {"action": "click", "selector": selector, **options})


async def trusted(tab: Any) -> dict[str, int]:
    return dict(await tab.evaluate("() => ({...window.trusted, untrusted: window.untrusted})"))


# -- snapshot and refs ---------------------------------------------------------------------------


async def test_a_form_snapshot_gives_refs_and_a_click_by_ref_hits_that_button(
    mcp: StdioMcp, e2e_app: App, tab: Any, site: FixtureSite, pilot_on: None
) -> None:
    await open_page(e2e_app, tab, site, "/snapshot.html")
    shot = await snapshot(mcp)
    text = shot["snapshot"]
    assert shot["url"] == site.url("/snapshot.html") and shot["title"] == "Snapshot form"
    assert '- heading "Sign up" [level=1] @e' in text
    assert re.search(r'- textbox "Email" @e\d+', text)
    assert re.search(r'- checkbox "I agree" @e\d+', text)
    assert re.search(r'- combobox "Plan" @e\d+: Pro', text)
    # a password's value never shows; hidden text is not part of the tree
    assert "hunter2" not in text and "[REDACTED]" in text
    assert "Hidden text" not in text
    # the open shadow root is part of the tree
    assert re.search(r'- button "Shadow action" @e\d+', text)
    assert shot["refs"] == len(set(re.findall(r"@e\d+", text)))

    await click(mcp, ref_of(text, '- button "Cancel"'))
    assert await trusted(tab) == {"cancel": 1, "untrusted": 0}
    await click(mcp, ref_of(text, '- button "Save"'))
    assert await trusted(tab) == {"cancel": 1, "save": 1, "untrusted": 0}


async def test_a_ref_whose_element_was_replaced_fails_fast_with_stale_ref(
    mcp: StdioMcp, e2e_app: App, tab: Any, site: FixtureSite, pilot_on: None
) -> None:
    await open_page(e2e_app, tab, site, "/snapshot.html")
    text = (await snapshot(mcp))["snapshot"]
    old_save = ref_of(text, '- button "Save"')
    await click(mcp, ref_of(text, '- button "Replace form"'))  # the form's elements are new ones now

    started = time.monotonic()
    err = await mcp.error("interact", {"action": "click", "selector": old_save, "timeout_ms": 10_000})
    elapsed = time.monotonic() - started
    assert err["error"] == "stale_ref", err
    assert "snapshot" in err["message"]
    assert elapsed < 1.0, f"a stale ref waited {elapsed:.2f} s"
    read = await mcp.error("observe", {"what": "dom", "selector": old_save})
    assert read["error"] == "stale_ref"
    assert (await trusted(tab)).get("save") is None  # nothing was clicked

    fresh = (await snapshot(mcp))["snapshot"]
    new_save = ref_of(fresh, '- button "Save"')
    assert new_save != old_save
    await click(mcp, new_save)
    assert (await trusted(tab))["save"] == 1


async def test_waiting_for_a_ref_to_be_hidden_ends_when_its_element_is_gone(
    mcp: StdioMcp, e2e_app: App, tab: Any, site: FixtureSite, pilot_on: None
) -> None:
    await open_page(e2e_app, tab, site, "/snapshot.html")
    text = (await snapshot(mcp))["snapshot"]
    save = ref_of(text, '- button "Save"')
    await click(mcp, ref_of(text, '- button "Replace form"'))
    hidden = await e2e_app.link.request(
        "dom.wait", {"selector": save, "state": "hidden", "timeout_ms": 3000}, timeout_s=5
    )
    assert hidden["state"] == "hidden" and hidden["waited_ms"] < 1000
    with pytest.raises(TabpilotError) as visible:
        await e2e_app.link.request("dom.wait", {"selector": save, "state": "visible", "timeout_ms": 3000}, timeout_s=5)
    assert visible.value.code == "stale_ref"


async def test_refs_start_again_in_a_new_document(
    mcp: StdioMcp, e2e_app: App, tab: Any, site: FixtureSite, pilot_on: None
) -> None:
    await open_page(e2e_app, tab, site, "/snapshot.html")
    text = (await snapshot(mcp))["snapshot"]
    cancel = ref_of(text, '- button "Cancel"')
    await mcp.ok("interact", {"action": "navigate", "url": site.url("/snapshot.html?again=1")})
    err = await mcp.error("interact", {"action": "click", "selector": cancel, "timeout_ms": 5_000})
    assert err["error"] == "stale_ref"
    assert "new document" in err["message"]
    again = (await snapshot(mcp))["snapshot"]
    assert again.startswith('- heading "Sign up" [level=1] @e1')  # numbering starts over


async def test_a_diff_after_one_change_is_a_few_lines(
    mcp: StdioMcp, e2e_app: App, tab: Any, site: FixtureSite, pilot_on: None
) -> None:
    await open_page(e2e_app, tab, site, "/snapshot.html")
    first = await snapshot(mcp, diff=True)
    assert first["diff"] == "full"  # nothing to compare with yet: all of it
    await click(mcp, ref_of(first["snapshot"], '- button "Add item"'))
    changed = await snapshot(mcp, diff=True)
    assert changed["diff"] == "changes"
    lines = changed["snapshot"].split("\n")
    assert "+  - listitem: Item 2" in lines
    assert "+- paragraph: add=1" in lines and "-- paragraph: none yet" in lines
    assert changed["changed_lines"] == 3
    assert len(lines) <= 10, changed["snapshot"]
    same = await snapshot(mcp, diff=True)
    assert same["snapshot"] == "" and same["changed_lines"] == 0


async def test_the_500_row_table_is_compact_and_a_budget_cuts_between_nodes(
    mcp: StdioMcp, e2e_app: App, tab: Any, site: FixtureSite
) -> None:
    await open_page(e2e_app, tab, site, "/bigtable")
    whole = await snapshot(mcp)
    assert whole["bytes"] <= 38_000, whole["bytes"]
    assert whole["refs"] == 500  # one link a row
    assert '  - row: 7 | Person 7 | link "p7@example.com" @e7 | 8,659 | active' in whole["snapshot"].split("\n")

    cut = await snapshot(mcp, max_bytes=2_000)
    assert cut["truncated"] is True and cut["bytes"] <= 2_000
    assert all(line.startswith("  - row: ") or line == "- table:" for line in cut["snapshot"].split("\n"))
    assert "scope" in cut["note"] and "max_bytes=2000" in cut["note"]

    scoped = await snapshot(mcp, scope="tr:nth-child(3)")
    assert scoped["snapshot"] == '- row: 3 | Person 3 | link "p3@example.com" @e3 | 3,711 | away'
    shallow = await snapshot(mcp, max_depth=0)
    assert re.fullmatch(r"- table @e\d+ …", shallow["snapshot"]), shallow["snapshot"]


# -- shadow roots --------------------------------------------------------------------------------


async def test_selectors_and_refs_reach_into_an_open_shadow_root(
    mcp: StdioMcp, e2e_app: App, tab: Any, site: FixtureSite, pilot_on: None
) -> None:
    await open_page(e2e_app, tab, site, "/snapshot.html")
    found = await mcp.ok("observe", {"what": "dom", "selector": "#shadow-btn"})
    assert found["matchCount"] == 1 and found["matches"][0]["text"] == "Shadow action"
    assert re.fullmatch(r".*fancy-card(:nth-child\(\d+\))? >> #shadow-btn", found["matches"][0]["selector"])
    chained = await mcp.ok("observe", {"what": "dom", "selector": "fancy-card >> button"})
    assert chained["matchCount"] == 1
    assert (await mcp.ok("observe", {"what": "dom", "selector": "fancy-card button"}))["matchCount"] == 0

    await click(mcp, "#shadow-btn")
    assert await tab.evaluate("window.shadowClicks") == 1
    await click(mcp, found["matches"][0]["selector"])  # the selector observe dom gave back
    assert await tab.evaluate("window.shadowClicks") == 2
    ref = ref_of((await snapshot(mcp))["snapshot"], '- button "Shadow action"')
    await click(mcp, ref)
    assert await tab.evaluate("window.shadowClicks") == 3
    assert await tab.evaluate("window.untrusted") == 0


# -- frames --------------------------------------------------------------------------------------


async def frames_page(e2e_app: App, tab: Any, site: FixtureSite) -> tuple[Any, Any]:
    """frames.html loaded with both frames ready: (same-origin frame, cross-origin frame)."""
    await open_page(e2e_app, tab, site, "/frames.html")

    def frame(who: str) -> Any:
        return next((f for f in tab.frames if f.url.endswith(f"who={who}")), None)

    async def ready() -> bool:
        for who in ("same", "cross"):
            f = frame(who)
            loaded = "document.readyState === 'complete' && typeof window.paid === 'number'"
            if f is None or not await f.evaluate(loaded):
                return False
        return True

    await until(ready, timeout=10, what="both frames to load")
    return frame("same"), frame("cross")


async def test_frames_are_in_the_snapshot_and_a_click_by_ref_lands_in_the_cross_origin_one(
    mcp: StdioMcp, e2e_app: App, tab: Any, site: FixtureSite, pilot_on: None
) -> None:
    same, cross = await frames_page(e2e_app, tab, site)
    assert "127.0.0.1" in same.url and "localhost" in cross.url  # two origins
    shot = await snapshot(mcp)
    text = shot["snapshot"]
    assert shot["frames"] == 2
    assert re.search(r'- heading "Inner frame \(cross\)" \[level=2\] @f\d+e1', text), text
    cross_pay = ref_of(text.split('iframe "Payment"')[1], '- button "Pay now"')
    same_pay = ref_of(text.split('iframe "Same origin"')[1], '- button "Pay now"')
    assert cross_pay.startswith("@f") and same_pay.startswith("@f") and cross_pay != same_pay

    await click(mcp, cross_pay)
    assert await cross.evaluate("window.paid") == 1
    assert await same.evaluate("window.paid") == 0
    await click(mcp, same_pay)
    assert await same.evaluate("window.paid") == 1

    # the frame's refs read like any other
    read = await mcp.ok("observe", {"what": "dom", "selector": cross_pay})
    assert read["matches"][0]["text"] == "Pay now"


async def test_typing_and_filling_by_ref_inside_the_cross_origin_frame(
    mcp: StdioMcp, e2e_app: App, tab: Any, site: FixtureSite, pilot_on: None
) -> None:
    _, cross = await frames_page(e2e_app, tab, site)
    text = (await snapshot(mcp))["snapshot"]
    note = ref_of(text.split('iframe "Payment"')[1], '- textbox "Note"')
    await mcp.ok("interact", {"action": "type", "selector": note, "text": "hi there"})
    assert await cross.evaluate("document.getElementById('note').value") == "hi there"
    assert await cross.evaluate("window.keys") == len("hi there")  # trusted keys reached the frame
    await mcp.ok("interact", {"action": "fill", "selector": note, "value": "filled"})
    assert await cross.evaluate("document.getElementById('note').value") == "filled"
    assert '- textbox "Note"' in (await snapshot(mcp, frame="pay"))["snapshot"]


async def test_the_frame_parameter_takes_a_selector_a_name_a_ref_or_a_url_pattern(
    mcp: StdioMcp, e2e_app: App, tab: Any, site: FixtureSite, pilot_on: None
) -> None:
    same, cross = await frames_page(e2e_app, tab, site)
    await click(mcp, "#pay", frame="pay")  # the cross-origin frame's name
    assert await cross.evaluate("window.paid") == 1
    await click(mcp, "#pay", frame="#same")  # a selector of the iframe
    assert await same.evaluate("window.paid") == 1
    iframe_ref = ref_of((await snapshot(mcp))["snapshot"], '- iframe "Payment"')
    await click(mcp, "button", frame=iframe_ref)
    assert await cross.evaluate("window.paid") == 2

    read = await mcp.ok("observe", {"what": "dom", "selector": "#paid", "frame": "localhost:*/frame-inner.html*"})
    assert read["matches"][0]["text"] == "paid=2"
    inner = await snapshot(mcp, frame="pay")
    assert inner["snapshot"].startswith('- heading "Inner frame (cross)" [level=2] @f')
    extract = {"action": "scrape", "operation": "extract", "selector": "#paid", "schema": {"t": ". | text"}}
    rows = await mcp.ok("interact", {**extract, "frame": "#same"})
    assert rows["data"] == [{"t": "paid=1"}]
    missing = await mcp.error("interact", {"action": "click", "selector": "#pay", "frame": "no-such-frame"})
    assert missing["error"] == "element_not_found" and "frame" in missing["message"]


# -- highlight -----------------------------------------------------------------------------------


async def test_highlight_answers_bounds_and_never_takes_a_click(
    mcp: StdioMcp, e2e_app: App, tab: Any, site: FixtureSite, pilot_on: None
) -> None:
    await open_page(e2e_app, tab, site, "/snapshot.html")
    save = ref_of((await snapshot(mcp))["snapshot"], '- button "Save"')
    shown = await mcp.ok("interact", {"action": "highlight", "selector": save, "duration_ms": 20_000})
    box = await tab.locator("#save").bounding_box()
    b = shown["bounds"]
    assert abs(b["x"] - box["x"]) <= 1 and abs(b["y"] - box["y"]) <= 1, (b, box)
    assert abs(b["width"] - box["width"]) <= 1 and abs(b["height"] - box["height"]) <= 1
    assert shown["role"] == "button" and shown["name"] == "Save"
    assert await tab.evaluate("document.querySelectorAll('tabpilot-highlight').length") == 1

    # the outline lies over the button, yet the click goes through to it
    await click(mcp, "#save")
    assert await trusted(tab) == {"save": 1, "untrusted": 0}

    await mcp.ok("interact", {"action": "highlight", "selector": "#cancel", "duration_ms": 300})
    assert await tab.evaluate("document.querySelectorAll('tabpilot-highlight').length") == 1  # replaced
    await until(lambda: _no_highlight(tab), timeout=5, what="the highlight to go away after its duration")


async def _no_highlight(tab: Any) -> bool:
    return bool(await tab.evaluate("document.querySelectorAll('tabpilot-highlight').length === 0"))


async def test_highlight_in_a_cross_origin_frame_answers_the_tabs_coordinates(
    mcp: StdioMcp, e2e_app: App, tab: Any, site: FixtureSite, pilot_on: None
) -> None:
    _, cross = await frames_page(e2e_app, tab, site)
    shown = await mcp.ok("interact", {"action": "highlight", "selector": "#pay", "frame": "pay"})
    # Where the button is in the tab: the iframe's box, its border (4 px) and padding (5 px), and the
    # button's place in the frame. (Playwright's own bounding_box for an element of a cross-origin frame
    # leaves out the iframe's border and padding; a trusted click at its corner misses the button.)
    iframe = await tab.locator("#cross").bounding_box()
    inner = await cross.evaluate(
        "(() => { const r = document.getElementById('pay').getBoundingClientRect(); return r.toJSON(); })()"
    )
    b = shown["bounds"]
    assert abs(b["x"] - (iframe["x"] + 9 + inner["x"])) <= 1, (b, iframe, inner)
    assert abs(b["y"] - (iframe["y"] + 9 + inner["y"])) <= 1, (b, iframe, inner)
    assert shown["frame"].startswith("@f")
    await tab.mouse.click(b["x"] + 2, b["y"] + 2)  # a trusted click just inside the answered corner
    assert await cross.evaluate("window.paid") == 1


async def test_highlight_needs_the_pilot_and_snapshot_does_not(
    mcp: StdioMcp, e2e_app: App, tab: Any, site: FixtureSite
) -> None:
    await open_page(e2e_app, tab, site, "/snapshot.html")
    refused = await mcp.error("interact", {"action": "highlight", "selector": "#save"})
    assert refused["error"] == "ai_web_pilot_disabled"
    assert (await snapshot(mcp, interactive_only=True))["refs"] > 5


async def test_the_reading_helpers_read_inside_a_frame(
    mcp: StdioMcp, e2e_app: App, tab: Any, site: FixtureSite
) -> None:
    _, cross = await frames_page(e2e_app, tab, site)
    await cross.evaluate("document.getElementById('paid').textContent = 'paid=cross only'")
    inside = await mcp.ok("observe", {"what": "text", "frame": "#cross"})
    assert "Inner frame (cross)" in inside["text"] and "paid=cross only" in inside["text"]
    assert "Two frames below" not in inside["text"]  # the frame's text, not the page's
    by_name = await mcp.ok("observe", {"what": "text", "frame": "inner", "selector": "#who"})
    assert by_name["text"] == "Inner frame (same)"
    html = await mcp.ok("observe", {"what": "html", "frame": "localhost", "selector": "#pay"})
    assert "Pay now" in html["html"]
    page = await mcp.ok("observe", {"what": "text"})
    assert "Two frames below" in page["text"]


async def test_an_accessibility_audit_runs_inside_a_frame(
    mcp: StdioMcp, e2e_app: App, tab: Any, site: FixtureSite
) -> None:
    await frames_page(e2e_app, tab, site)
    inside = await mcp.ok("observe", {"what": "a11y_audit", "frame": "#cross", "include_passes": True})
    assert "localhost" in inside["url"] and "frame-inner.html?who=cross" in inside["url"], inside["url"]
    page = await mcp.ok("observe", {"what": "a11y_audit", "include_passes": True})
    assert page["url"].endswith("/frames.html"), page["url"]
