"""The page operations of the bridge protocol (docs/bridge-protocol.md), driven through the real bridge
into the real extension in Chromium: counting, waiting, trusted clicks and keys, filling, selecting,
scrolling, structured extraction and pagination."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tabpilot.app import App
from tabpilot.engine.errors import TabpilotError
from tests.e2e.conftest import E2E
from tests.support.site import FixtureSite
from tests.support.waiting import until

pytestmark = [pytest.mark.e2e, E2E]


async def call(app: App, op: str, params: dict[str, Any], timeout_s: float = 5.0) -> dict[str, Any]:
    return await app.link.request(op, params, timeout_s=timeout_s)


async def failure(app: App, op: str, params: dict[str, Any], timeout_s: float = 5.0) -> TabpilotError:
    with pytest.raises(TabpilotError) as caught:
        await app.link.request(op, params, timeout_s=timeout_s)
    return caught.value


async def open_page(app: App, tab: Any, site: FixtureSite, path: str) -> None:
    """Load `path` in the test's tab and wait until the extension's commands go to that tab."""
    url = site.url(path)
    await tab.goto(url)

    async def targeted() -> bool:
        return (await call(app, "tabs.resolve", {}))["url"] == url

    await until(targeted, timeout=5, what=f"commands to go to the tab showing {path}")


def fields(*specs: tuple[str, str, list[dict[str, Any]]]) -> list[dict[str, Any]]:
    return [{"name": name, "selector": selector, "ops": ops} for name, selector, ops in specs]


TEXT = [{"op": "text"}]

# -- tabs.resolve, dom.count ---------------------------------------------------------------------


async def test_resolve_names_the_tab_that_commands_go_to(e2e_app: App, tab: Any, site: FixtureSite) -> None:
    await open_page(e2e_app, tab, site, "/actions.html")
    resolved = await call(e2e_app, "tabs.resolve", {})
    assert resolved["url"] == site.url("/actions.html")
    assert resolved["title"] == "Actions"
    again = await call(e2e_app, "tabs.resolve", {"tab_id": resolved["tab_id"]})
    assert again == resolved
    gone = await failure(e2e_app, "tabs.resolve", {"tab_id": 999_999_999})
    assert gone.code == "tab_closed"


async def test_count_counts_matches_and_the_visible_ones(e2e_app: App, tab: Any, site: FixtureSite) -> None:
    await open_page(e2e_app, tab, site, "/actions.html")
    # eight buttons; #gone is display:none
    assert await call(e2e_app, "dom.count", {"selector": "button"}) == {"count": 8, "visible": 7}
    assert await call(e2e_app, "dom.count", {"selector": ".nothing-here"}) == {"count": 0, "visible": 0}
    bad = await failure(e2e_app, "dom.count", {"selector": "button["})
    assert bad.code == "invalid_params"


# -- dom.wait ------------------------------------------------------------------------------------


async def test_wait_visible_returns_as_soon_as_an_element_appears(e2e_app: App, tab: Any, site: FixtureSite) -> None:
    await open_page(e2e_app, tab, site, "/delayed.html?delay_ms=300")
    done = await call(e2e_app, "dom.wait", {"selector": "#late", "state": "visible", "timeout_ms": 4000})
    assert done["state"] == "visible"
    assert 200 <= done["waited_ms"] < 2000, done
    assert await tab.text_content("#late") == "I arrived late"


async def test_wait_attached_and_hidden_states(e2e_app: App, tab: Any, site: FixtureSite) -> None:
    await open_page(e2e_app, tab, site, "/delayed.html?delay_ms=200&hide_ms=200")
    attached = await call(e2e_app, "dom.wait", {"selector": "#list li", "state": "attached", "timeout_ms": 4000})
    assert attached["state"] == "attached"
    assert await tab.locator("#list li").count() == 3
    removed = await call(e2e_app, "dom.wait", {"selector": "#going", "state": "hidden", "timeout_ms": 4000})
    assert removed["state"] == "hidden"
    assert await tab.locator("#going").count() == 0
    # hidden by a class (visibility: hidden), still in the document
    faded = await call(e2e_app, "dom.wait", {"selector": "#fading", "state": "hidden", "timeout_ms": 4000})
    assert faded["state"] == "hidden"
    assert await tab.locator("#fading").count() == 1
    # already in the state: at once
    now = await call(e2e_app, "dom.wait", {"selector": "h1", "state": "visible", "timeout_ms": 4000})
    assert now["waited_ms"] < 500


async def test_wait_sees_a_css_animation_hide_an_element_without_any_dom_change(
    e2e_app: App, tab: Any, site: FixtureSite
) -> None:
    await open_page(e2e_app, tab, site, "/delayed.html")
    done = await call(e2e_app, "dom.wait", {"selector": "#vanishing", "state": "hidden", "timeout_ms": 4000})
    assert done["state"] == "hidden"
    assert done["waited_ms"] >= 300
    assert await tab.eval_on_selector("#vanishing", "el => getComputedStyle(el).visibility") == "hidden"


async def test_wait_times_out_with_the_timeout_code(e2e_app: App, tab: Any, site: FixtureSite) -> None:
    await open_page(e2e_app, tab, site, "/actions.html")
    never = await failure(e2e_app, "dom.wait", {"selector": "#never", "state": "visible", "timeout_ms": 300})
    assert never.code == "timeout"
    assert "#never" in never.message and "300 ms" in never.message and "no element matches" in never.message
    hidden = await failure(e2e_app, "dom.wait", {"selector": "#gone", "state": "visible", "timeout_ms": 300})
    assert hidden.code == "timeout"
    assert "1 match, none visible" in hidden.message
    bad_state = await failure(e2e_app, "dom.wait", {"selector": "h1", "state": "shiny", "timeout_ms": 300})
    assert bad_state.code == "invalid_params"


async def test_a_wait_continues_in_the_next_document_after_a_navigation(
    e2e_app: App, tab: Any, site: FixtureSite
) -> None:
    # The first page has no #late and leaves for a page where #late appears 200 ms after it loaded.
    await open_page(e2e_app, tab, site, "/delayed.html?go=/delayed.html%3Fdelay_ms%3D200&after_ms=200")
    done = await call(e2e_app, "dom.wait", {"selector": "#late", "state": "visible", "timeout_ms": 5000})
    assert done["state"] == "visible"
    assert done["waited_ms"] >= 350
    # Playwright hears of the tab's navigation through its own driver, which may come after our answer.
    there = site.url("/delayed.html?delay_ms=200")
    await until(lambda: tab.url == there, timeout=5, what="Playwright to see the tab there")


# -- dom.click -----------------------------------------------------------------------------------


async def test_click_is_a_trusted_click_on_the_element(
    e2e_app: App, tab: Any, site: FixtureSite, pilot_on: None
) -> None:
    await open_page(e2e_app, tab, site, "/actions.html")
    clicked = await call(e2e_app, "dom.click", {"selector": "#change", "timeout_ms": 2000})
    assert clicked == {"clicked": True, "changed": "text 'Clicked', 'clicked, trusted=true, at a point' appeared"}
    assert await tab.text_content("#change") == "Clicked"
    assert await tab.text_content("#clicks") == "clicked, trusted=true, at a point"


async def test_a_click_or_enter_that_submits_a_form_answers_once_the_new_page_has_loaded(
    e2e_app: App, tab: Any, site: FixtureSite, pilot_on: None
) -> None:
    """The next read sees the page the action led to, even when that page is slow (1.5 s here)."""
    await open_page(e2e_app, tab, site, "/slow-form.html")
    clicked = await call(e2e_app, "dom.click", {"selector": "#send", "timeout_ms": 8000}, timeout_s=10)
    assert clicked["clicked"] is True
    assert clicked["navigation"]["status"] == "complete" and "/slow?" in clicked["navigation"]["url"]
    assert clicked["navigation"]["title"] == "Slow"
    page = await call(e2e_app, "page.info", {})
    assert page["title"] == "Slow" and "/slow?" in page["url"]

    await open_page(e2e_app, tab, site, "/slow-form.html")
    pressed = await call(e2e_app, "dom.press", {"key": "Enter", "selector": "#note", "timeout_ms": 8000}, timeout_s=10)
    assert pressed["navigation"]["status"] == "complete"
    assert (await call(e2e_app, "page.info", {}))["title"] == "Slow"

    # A click that starts no navigation says nothing of one, and the page stays.
    await open_page(e2e_app, tab, site, "/slow-form.html")
    stayed = await call(e2e_app, "dom.click", {"selector": "#local", "timeout_ms": 2000})
    assert stayed == {"clicked": True, "changed": "text 'Pressed' appeared"}
    assert await tab.text_content("#local") == "Pressed"


async def test_click_scrolls_a_far_element_into_view(e2e_app: App, tab: Any, site: FixtureSite, pilot_on: None) -> None:
    await open_page(e2e_app, tab, site, "/actions.html")
    await tab.evaluate(
        "document.getElementById('bottom').addEventListener('click', e => e.target.textContent = 'reached')"
    )
    await call(e2e_app, "dom.click", {"selector": "#bottom", "timeout_ms": 2000})
    assert await tab.text_content("#bottom") == "reached"
    assert await tab.evaluate("window.scrollY") > 1000


async def test_a_click_never_lands_on_an_element_that_moved_under_the_point(
    e2e_app: App, tab: Any, site: FixtureSite, pilot_on: None
) -> None:
    await open_page(e2e_app, tab, site, "/actions.html")
    # #dodge jumps away when the pointer arrives; the press would hit #decoy: it is swallowed and
    # the click is aimed again.
    dodged = await call(e2e_app, "dom.click", {"selector": "#dodge", "timeout_ms": 3000})
    assert dodged["clicked"] is True and "navigation" not in dodged
    assert await tab.text_content("#dodge") == "Dodge clicked"
    assert await tab.evaluate("window.decoyEvents") == 0


async def test_click_tells_element_not_found_from_not_clickable(
    e2e_app: App, tab: Any, site: FixtureSite, pilot_on: None
) -> None:
    await open_page(e2e_app, tab, site, "/actions.html")
    missing = await failure(e2e_app, "dom.click", {"selector": "#no-such-button", "timeout_ms": 300})
    assert missing.code == "element_not_found"
    covered = await failure(e2e_app, "dom.click", {"selector": "#covered", "timeout_ms": 300})
    assert covered.code == "timeout"
    assert "covered by div#veil" in covered.message
    assert await tab.text_content("#clicks") == "no clicks", "the veil must not pass the click through"
    disabled = await failure(e2e_app, "dom.click", {"selector": "#off", "timeout_ms": 300})
    assert disabled.code == "timeout" and "disabled" in disabled.message
    invisible = await failure(e2e_app, "dom.click", {"selector": "#gone", "timeout_ms": 300})
    assert invisible.code == "timeout" and "not visible" in invisible.message
    bad = await failure(e2e_app, "dom.click", {"selector": "#change[", "timeout_ms": 300})
    assert bad.code == "invalid_params"


async def test_click_waits_until_the_covering_element_goes(
    e2e_app: App, tab: Any, site: FixtureSite, pilot_on: None
) -> None:
    await open_page(e2e_app, tab, site, "/actions.html?unveil_ms=300")
    uncovered = await call(e2e_app, "dom.click", {"selector": "#covered", "timeout_ms": 4000})
    assert uncovered["clicked"] is True
    assert await tab.text_content("#clicks") == "covered button clicked"


async def test_click_waits_for_an_element_that_appears_later(
    e2e_app: App, tab: Any, site: FixtureSite, pilot_on: None
) -> None:
    await open_page(e2e_app, tab, site, "/actions.html")
    await call(e2e_app, "dom.click", {"selector": "#spawn", "timeout_ms": 2000})
    await call(e2e_app, "dom.click", {"selector": "#late", "timeout_ms": 4000})
    assert await tab.text_content("#late") == "Late clicked"


async def test_clicking_a_link_navigates(e2e_app: App, tab: Any, site: FixtureSite, pilot_on: None) -> None:
    await open_page(e2e_app, tab, site, "/actions.html")
    await call(e2e_app, "dom.click", {"selector": "#to-second", "timeout_ms": 2000})
    await until(lambda: tab.url == site.url("/second.html"), timeout=5, what="the link's page")
    # the next element op runs in the new document
    done = await call(e2e_app, "dom.wait", {"selector": "p", "state": "visible", "timeout_ms": 4000})
    assert done["state"] == "visible"
    assert await call(e2e_app, "dom.count", {"selector": "h1"}) == {"count": 1, "visible": 1}
    assert await tab.text_content("h1") == "Second"


# -- dom.fill ------------------------------------------------------------------------------------


async def test_fill_replaces_values_with_trusted_input_and_no_change(
    e2e_app: App, tab: Any, site: FixtureSite, pilot_on: None
) -> None:
    await open_page(e2e_app, tab, site, "/actions.html")
    for selector, value in (("#name", "Ada Lovelace"), ("#bio", "line one\nline two"), ("#editor", "new text")):
        result = await call(e2e_app, "dom.fill", {"selector": selector, "value": value, "timeout_ms": 2000})
        assert result["filled"] is True and set(result) == {"filled", "changed"}
        assert value not in json.dumps(result)
    assert await tab.input_value("#name") == "Ada Lovelace"
    assert await tab.input_value("#bio") == "line one\nline two"
    assert await tab.text_content("#editor") == "new text"
    events = await tab.evaluate("window.events")
    # Trusted input only, as a person's pasting gives (one event a line: the browser inserts a line break
    # between); change only when the focus left (name and bio lost it to the next fill; the editor, a
    # contenteditable, has no change event).
    assert events.count("name:input:true") == 1 and events.count("editor:input:true") == 1, events
    assert events.count("bio:input:true") == 3, events
    for element in ("name", "bio", "editor"):
        assert f"{element}:input:false" not in events and f"{element}:change:false" not in events
    assert "name:change:true" in events and "bio:change:true" in events
    await call(e2e_app, "dom.fill", {"selector": "#name", "value": "", "timeout_ms": 2000})
    assert await tab.input_value("#name") == ""


async def test_fill_sets_dates_and_ranges_in_the_page_where_typing_cannot(
    e2e_app: App, tab: Any, site: FixtureSite, pilot_on: None
) -> None:
    await open_page(e2e_app, tab, site, "/actions.html")
    await call(e2e_app, "dom.fill", {"selector": "#when", "value": "2026-11-25", "timeout_ms": 2000})
    await call(e2e_app, "dom.fill", {"selector": "#level", "value": "7", "timeout_ms": 2000})
    assert await tab.input_value("#when") == "2026-11-25"
    assert await tab.input_value("#level") == "7"
    events = await tab.evaluate("window.events")
    for element in ("when", "level"):
        assert f"{element}:input:false" in events and f"{element}:change:false" in events
    bad = await failure(e2e_app, "dom.fill", {"selector": "#when", "value": "next tuesday", "timeout_ms": 300})
    assert bad.code == "invalid_params" and "next tuesday" not in bad.message
    assert await tab.input_value("#when") == "2026-11-25", "a refused fill changes nothing"


async def test_fill_refuses_what_cannot_be_filled_without_echoing_the_value(
    e2e_app: App, tab: Any, site: FixtureSite, pilot_on: None
) -> None:
    await open_page(e2e_app, tab, site, "/actions.html")
    checkbox = await failure(e2e_app, "dom.fill", {"selector": "#agree", "value": "x", "timeout_ms": 300})
    assert checkbox.code == "invalid_params"
    number = await failure(e2e_app, "dom.fill", {"selector": "#age", "value": "s3cr3t-words", "timeout_ms": 300})
    assert number.code == "invalid_params"
    assert "s3cr3t-words" not in number.message
    await call(e2e_app, "dom.fill", {"selector": "#age", "value": "42", "timeout_ms": 300})
    await failure(e2e_app, "dom.fill", {"selector": "#age", "value": "forty", "timeout_ms": 300})
    assert await tab.input_value("#age") == "42", "a refused fill changes nothing"
    readonly = await failure(e2e_app, "dom.fill", {"selector": "#locked", "value": "x", "timeout_ms": 300})
    assert readonly.code == "timeout" and "read-only" in readonly.message
    assert await tab.input_value("#locked") == "fixed"
    missing = await failure(e2e_app, "dom.fill", {"selector": "#nope", "value": "x", "timeout_ms": 300})
    assert missing.code == "element_not_found"


# -- dom.type and dom.press ----------------------------------------------------------------------


async def test_type_sends_trusted_key_events(e2e_app: App, tab: Any, site: FixtureSite, pilot_on: None) -> None:
    await open_page(e2e_app, tab, site, "/actions.html")
    typed = await call(e2e_app, "dom.type", {"selector": "#keys", "text": "Hi!", "timeout_ms": 2000})
    assert typed == {"typed": 3, "changed": "no visible change"}
    assert await tab.input_value("#keys") == "Hi!"
    log = await tab.evaluate("window.keyLog")
    assert log[:4] == ["keydown:H:true", "keypress:H:true", "input:true", "keyup:H:true"]
    assert [e for e in log if e.startswith("keydown")] == ["keydown:H:true", "keydown:i:true", "keydown:!:true"]
    # typing goes on at the end of what is there; characters off the US keyboard are inserted as text
    await call(e2e_app, "dom.type", {"selector": "#name", "text": " café", "timeout_ms": 2000})
    assert await tab.input_value("#name") == "old name café"
    await call(e2e_app, "dom.type", {"selector": "#editor", "text": " more", "timeout_ms": 2000})
    assert await tab.text_content("#editor") == "old text more"


async def test_pressing_enter_in_a_field_submits_its_form(
    e2e_app: App, tab: Any, site: FixtureSite, pilot_on: None
) -> None:
    await open_page(e2e_app, tab, site, "/actions.html")
    await call(e2e_app, "dom.type", {"selector": "#q", "text": "kittens", "timeout_ms": 2000})
    pressed = await call(e2e_app, "dom.press", {"selector": "#q", "key": "Enter", "timeout_ms": 2000})
    assert pressed["pressed"] == "Enter" and pressed["navigation"]["status"] == "complete"
    await until(lambda: tab.url.startswith(site.url("/submitted")), timeout=5, what="the form submission")
    done = await call(e2e_app, "dom.wait", {"selector": "#values", "state": "visible", "timeout_ms": 4000})
    assert done["state"] == "visible"
    assert await tab.text_content('dd[data-name="q"]') == "kittens"
    assert await tab.text_content('dd[data-name="lang"]') == "en"


async def test_press_edits_moves_focus_and_takes_modifiers(
    e2e_app: App, tab: Any, site: FixtureSite, pilot_on: None
) -> None:
    await open_page(e2e_app, tab, site, "/actions.html")
    await call(e2e_app, "dom.type", {"selector": "#keys", "text": "abc", "timeout_ms": 2000})
    await call(e2e_app, "dom.press", {"key": "Backspace"})  # no selector: the focused element
    assert await tab.input_value("#keys") == "ab"
    await call(e2e_app, "dom.press", {"key": "Shift+x"})
    assert await tab.input_value("#keys") == "abX"
    await call(e2e_app, "dom.press", {"key": "Home"})
    await call(e2e_app, "dom.press", {"key": "Delete"})
    assert await tab.input_value("#keys") == "bX"
    await call(e2e_app, "dom.press", {"key": "Control+a"})
    await call(e2e_app, "dom.press", {"key": "Backspace"})
    assert await tab.input_value("#keys") == ""
    await call(e2e_app, "dom.press", {"selector": "#keys", "key": "Tab"})
    assert await tab.evaluate("document.activeElement.id") == "after-keys"
    await call(e2e_app, "dom.press", {"key": "Space"})
    await call(e2e_app, "dom.press", {"key": "7"})
    assert await tab.input_value("#after-keys") == " 7"
    for bad in ("Hyper+x", "Enterprise", "Control+", ""):
        err = await failure(e2e_app, "dom.press", {"key": bad})
        assert err.code == "invalid_params", bad


# -- dom.select ----------------------------------------------------------------------------------


async def test_select_by_value_and_by_label(e2e_app: App, tab: Any, site: FixtureSite, pilot_on: None) -> None:
    await open_page(e2e_app, tab, site, "/actions.html")
    by_value = await call(e2e_app, "dom.select", {"selector": "#color", "value": "g", "timeout_ms": 2000})
    assert by_value["selected"] == ["g"] and by_value["labels"] == ["Green"]
    assert await tab.input_value("#color") == "g"
    by_label = await call(e2e_app, "dom.select", {"selector": "#color", "value": "Deep Blue"})
    assert by_label["selected"] == ["b"]
    assert await tab.input_value("#color") == "b"
    events = await tab.evaluate("window.events")
    assert events.count("color:change:false") == 2 and events.count("color:input:false") == 2
    many = await call(e2e_app, "dom.select", {"selector": "#sizes", "value": ["s", "Large"]})
    assert many["selected"] == ["s", "l"]
    none = await failure(e2e_app, "dom.select", {"selector": "#color", "value": "Purple"})
    assert none.code == "invalid_params"
    assert [o["value"] for o in none.details["options"]] == ["r", "g", "b", "x"]
    disabled = await failure(e2e_app, "dom.select", {"selector": "#color", "value": "x"})
    assert disabled.code == "invalid_params"
    not_select = await failure(e2e_app, "dom.select", {"selector": "#name", "value": "r"})
    assert not_select.code == "invalid_params"
    assert await tab.input_value("#color") == "b", "a refused select changes nothing"


# -- dom.scroll ----------------------------------------------------------------------------------


async def test_scroll_to_the_bottom_and_to_an_element(e2e_app: App, tab: Any, site: FixtureSite) -> None:
    await open_page(e2e_app, tab, site, "/actions.html")
    # The browser's "debugging" bar can come or go at any time (other tabs attach the debugger) and
    # change the viewport's height, so "at the bottom" is checked against the heights before and after.
    max_scroll = "document.scrollingElement.scrollHeight - innerHeight"
    before = await tab.evaluate(max_scroll)
    bottom = await call(e2e_app, "dom.scroll", {})
    after = await tab.evaluate(max_scroll)
    assert min(before, after) - 1 <= bottom["scroll"]["y"] <= max(before, after) + 1
    assert bottom["documentHeight"] == await tab.evaluate("document.documentElement.scrollHeight")
    # the page really is there (a viewport that grew since clamps it to the new maximum)
    now_y, now_max = await tab.evaluate(f"[window.scrollY, {max_scroll}]")
    assert abs(now_y - min(bottom["scroll"]["y"], now_max)) <= 1
    back = await call(e2e_app, "dom.scroll", {"selector": "h1"})
    assert back["scroll"]["y"] == 0
    middle = await call(e2e_app, "dom.scroll", {"selector": "#middle", "timeout_ms": 1000})
    assert middle["scroll"]["y"] > 500
    in_view = await tab.eval_on_selector(
        "#middle", "el => { const r = el.getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight; }"
    )
    assert in_view
    missing = await failure(e2e_app, "dom.scroll", {"selector": "#nope", "timeout_ms": 200})
    assert missing.code == "element_not_found"


# -- scrape.extract ------------------------------------------------------------------------------


async def test_extract_reads_text_html_attributes_numbers_and_booleans(
    e2e_app: App, tab: Any, site: FixtureSite
) -> None:
    await open_page(e2e_app, tab, site, "/extract.html")
    result = await call(
        e2e_app,
        "scrape.extract",
        {
            "selector": "#people tbody tr",
            "fields": fields(
                ("name", "td.name", TEXT),
                ("name_html", "td.name", [{"op": "html"}]),
                ("email", "td.email a", [{"op": "attr", "name": "href"}]),
                ("title", "td.email a", [{"op": "attr", "name": "title"}]),
                ("avatar", "img", [{"op": "attr", "name": "src"}]),
                ("points", "td.points", [{"op": "text"}, {"op": "number"}]),
                ("points_direct", "td.points", [{"op": "number"}]),
                ("active", "td.active > *", [{"op": "boolean"}]),
                ("id", "", [{"op": "attr", "name": "data-id"}]),
                ("id_number", ".", [{"op": "attr", "name": "data-id"}, {"op": "number"}]),
                ("first_cell", "> td", TEXT),
            ),
        },
    )
    assert result["matched"] == 3 and result["returned"] == 3
    assert result["truncated"] is False and result["warnings"] == []
    assert result["url"] == site.url("/extract.html") and result["title"] == "People"
    alice, bob, carol = result["rows"]
    assert alice == {
        "name": "Alice Johnson",
        "name_html": "  Alice\n            Johnson  ",
        "email": "mailto:alice@example.com",
        "title": None,
        "avatar": "/img/alice.png",
        "points": 1234,
        "points_direct": 1234,
        "active": True,
        "id": "1",
        "id_number": 1,
        "first_cell": "Alice Johnson",
    }
    assert bob["name"] == "Bob Smith" and bob["name_html"] == "Bob <b>Smith</b>"
    assert bob["email"] is None and bob["avatar"] is None  # nothing matched in that row
    assert bob["points"] is None and bob["active"] is False
    assert carol["title"] == "Carol's mail"
    assert carol["points"] == -12.5
    assert carol["active"] is True  # aria-checked


async def test_extract_reads_the_live_values_of_form_fields(e2e_app: App, tab: Any, site: FixtureSite) -> None:
    await open_page(e2e_app, tab, site, "/extract.html")
    result = await call(
        e2e_app,
        "scrape.extract",
        {
            "selector": "#profile .field",
            "fields": fields(("label", "label", TEXT), ("value", "input, textarea, select", TEXT)),
        },
    )
    assert result["rows"] == [
        {"label": "City", "value": "Lyon"},
        {"label": "Notes", "value": "  two\nspaces  "},
        {"label": "Plan", "value": "Pro plan"},
    ]


async def test_extract_an_invalid_field_selector_gives_null_and_one_warning(
    e2e_app: App, tab: Any, site: FixtureSite
) -> None:
    await open_page(e2e_app, tab, site, "/extract.html")
    result = await call(
        e2e_app,
        "scrape.extract",
        {"selector": "#people tbody tr", "fields": fields(("name", "td.name", TEXT), ("broken", "td[", TEXT))},
    )
    assert [row["broken"] for row in result["rows"]] == [None, None, None]
    assert [row["name"] for row in result["rows"]] == ["Alice Johnson", "Bob Smith", "Carol White"]
    assert len(result["warnings"]) == 1
    assert "broken" in result["warnings"][0] and "td[" in result["warnings"][0]


async def test_extract_with_no_matching_rows_returns_no_rows(e2e_app: App, tab: Any, site: FixtureSite) -> None:
    await open_page(e2e_app, tab, site, "/extract.html")
    result = await call(e2e_app, "scrape.extract", {"selector": "table.absent tr", "fields": fields(("x", "td", TEXT))})
    assert result["rows"] == [] and result["matched"] == 0 and result["returned"] == 0
    assert result["truncated"] is False
    bad = await failure(e2e_app, "scrape.extract", {"selector": "tr[", "fields": fields(("x", "td", TEXT))})
    assert bad.code == "invalid_params"
    bad_op = await failure(
        e2e_app, "scrape.extract", {"selector": "tr", "fields": fields(("x", "td", [{"op": "shout"}]))}
    )
    assert bad_op.code == "invalid_params"


NUMBERS = {
    "1,234.56": 1234.56,
    "$1,234": 1234,
    "-€12": -12,
    "(12)": -12,
    "1.234,56": 1234.56,
    "12%": 12,
    "\u22123": -3,  # U+2212 MINUS SIGN
    "garbage": None,
    "": None,
    "Total: 42 items": 42,
    "1 234,5": 1234.5,
    "12,5": 12.5,
    "($1,234.50)": -1234.5,
    "0.75": 0.75,
}


async def test_extract_parses_numbers_as_documented(e2e_app: App, tab: Any, site: FixtureSite) -> None:
    await open_page(e2e_app, tab, site, "/numbers.html")
    result = await call(
        e2e_app,
        "scrape.extract",
        {
            "selector": "#numbers tr",
            "fields": fields(("raw", "td", TEXT), ("value", "td", [{"op": "text"}, {"op": "number"}])),
        },
    )
    parsed = {row["raw"]: row["value"] for row in result["rows"]}
    assert parsed == NUMBERS


BOOLEANS = [True, False, True, False, True, False, True, False, True, False, None, True, False, True, False, True]


async def test_a_cell_holding_a_checkbox_reads_as_that_checkbox(e2e_app: App, tab: Any, site: FixtureSite) -> None:
    await open_page(e2e_app, tab, site, "/extract.html")
    result = await call(
        e2e_app,
        "scrape.extract",
        {"selector": "#people tbody tr", "fields": fields(("active", "td.active", [{"op": "boolean"}]))},
    )
    assert [row["active"] for row in result["rows"]] == [True, False, True]


async def test_extract_parses_booleans_as_documented(e2e_app: App, tab: Any, site: FixtureSite) -> None:
    await open_page(e2e_app, tab, site, "/numbers.html")
    result = await call(
        e2e_app, "scrape.extract", {"selector": "#flags li", "fields": fields(("flag", ".v", [{"op": "boolean"}]))}
    )
    # words; checkboxes and radios by `checked`; aria-checked beats the text; aria-pressed
    assert [row["flag"] for row in result["rows"]] == BOOLEANS
    chained = await call(
        e2e_app,
        "scrape.extract",
        {"selector": "#flags li", "fields": fields(("flag", "span.v", [{"op": "text"}, {"op": "boolean"}]))},
    )
    assert [row["flag"] for row in chained["rows"]][:11] == BOOLEANS[:11]


async def test_extract_redacts_sensitive_elements(e2e_app: App, tab: Any, site: FixtureSite) -> None:
    await open_page(e2e_app, tab, site, "/sensitive.html")
    result = await call(
        e2e_app,
        "scrape.extract",
        {
            "selector": "tr.acct",
            "fields": fields(
                ("owner", "td.owner", TEXT),
                ("card", "td.card", TEXT),
                ("pin", "td.pin input", TEXT),
                ("pin_attr", "td.pin input", [{"op": "attr", "name": "value"}]),
                ("note", "td.note", TEXT),
                ("ssn", "td.ssn span", TEXT),
                ("pin_html", "td.pin", [{"op": "html"}]),
                ("row_text", "", TEXT),
                ("row_html", "", [{"op": "html"}]),
                ("plain", "td.plain", TEXT),
            ),
        },
    )
    alice, bob = result["rows"]
    assert alice["owner"] == "Alice" and alice["plain"] == "public info"
    assert alice["card"] == alice["pin"] == alice["pin_attr"] == alice["ssn"] == "[REDACTED]"
    assert alice["note"] == "[REDACTED] likes tea"
    assert alice["pin_html"] == '<input type="password" value="[REDACTED]">'
    assert bob["pin"] == "[REDACTED]"
    dumped = json.dumps(result)
    for secret in ("4111", "5500", "hunter2", "swordfish", "typed-secret", "1990", "1985", "078-05", "219-09"):
        assert secret not in dumped, secret
    assert "Alice" in alice["row_text"] and "public info" in alice["row_text"]
    assert alice["row_html"].count("[REDACTED]") >= 4


async def test_extract_redact_selectors_are_configurable_but_passwords_never_leak(
    e2e_app: App, tab: Any, site: FixtureSite
) -> None:
    await open_page(e2e_app, tab, site, "/sensitive.html")
    result = await call(
        e2e_app,
        "scrape.extract",
        {
            "selector": "tr.acct, p.badge",
            "fields": fields(
                ("card", "td.card", TEXT), ("pin", "td.pin input", TEXT), ("custom", "span.ssn-like", TEXT)
            ),
            "redact": [".ssn-like"],
        },
    )
    alice, bob, badge = result["rows"]
    assert alice["card"] == "4111 1111 1111 1111"  # not in this redact list
    assert alice["pin"] == bob["pin"] == "[REDACTED]"
    assert badge["custom"] == "[REDACTED]"


async def test_a_redact_selector_the_browser_cannot_parse_leaves_the_others_working(
    e2e_app: App, tab: Any, site: FixtureSite
) -> None:
    await open_page(e2e_app, tab, site, "/sensitive.html")
    result = await call(
        e2e_app,
        "scrape.extract",
        {
            "selector": "tr.acct, p.badge",
            "fields": fields(("pin", "td.pin input", TEXT), ("custom", "span.ssn-like", TEXT)),
            "redact": ["[[typo", ".ssn-like"],
        },
    )
    alice, bob, badge = result["rows"]
    assert alice["pin"] == bob["pin"] == "[REDACTED]"
    assert badge["custom"] == "[REDACTED]"


async def test_extract_stops_adding_rows_at_max_bytes(e2e_app: App, tab: Any, site: FixtureSite) -> None:
    await open_page(e2e_app, tab, site, "/bigtable?rows=100")
    spec = {"selector": "tr.r", "fields": fields(("name", "td.name", TEXT), ("email", "td.email", TEXT))}
    full = await call(e2e_app, "scrape.extract", spec)
    assert full["returned"] == 100 and full["truncated"] is False
    cut = await call(e2e_app, "scrape.extract", {**spec, "max_bytes": 1000})
    assert cut["truncated"] is True
    assert cut["matched"] == 100 and 0 < cut["returned"] < 100
    assert cut["rows"] == full["rows"][: cut["returned"]]
    assert len(json.dumps(cut["rows"], separators=(",", ":")).encode()) <= 1000
    assert len(json.dumps(full["rows"][: cut["returned"] + 1], separators=(",", ":")).encode()) > 1000
    assert any("max_bytes" in w for w in cut["warnings"])


# -- scrape.next_page ----------------------------------------------------------------------------

NEXT = {"next_selector": "a.next-page", "rows_selector": "tr.row", "timeout_ms": 4000}


async def labels(app: App) -> list[str]:
    result = await call(app, "scrape.extract", {"selector": "tr.row", "fields": fields(("label", ".label", TEXT))})
    return [row["label"] for row in result["rows"]]


async def test_next_page_walks_server_pages_until_there_is_no_next(
    e2e_app: App, tab: Any, site: FixtureSite, pilot_on: None
) -> None:
    await open_page(e2e_app, tab, site, "/table?page=1")
    assert (await labels(e2e_app))[0] == "Row 1 of page 1"
    for page in (2, 3):
        moved = await call(e2e_app, "scrape.next_page", NEXT)
        assert moved == {"moved": True, "url": site.url(f"/table?page={page}"), "how": "navigate"}
        assert await labels(e2e_app) == [f"Row {n} of page {page}" for n in range(page * 5 - 4, page * 5 + 1)]
    last = await call(e2e_app, "scrape.next_page", NEXT)
    assert last == {"moved": False, "reason": "no_next", "url": site.url("/table?page=3")}


async def test_next_page_follows_pages_a_script_renders_in_place(
    e2e_app: App, tab: Any, site: FixtureSite, pilot_on: None
) -> None:
    await open_page(e2e_app, tab, site, "/jslist.html")
    spec = {"next_selector": "#next", "rows_selector": "li.item", "timeout_ms": 4000}
    extract = {"selector": "li.item", "fields": fields(("item", "", TEXT))}
    seen = []
    for _ in range(2):
        moved = await call(e2e_app, "scrape.next_page", spec)
        assert moved == {"moved": True, "url": site.url("/jslist.html"), "how": "in_place"}
        seen.append([row["item"] for row in (await call(e2e_app, "scrape.extract", extract))["rows"]])
    assert seen == [[f"Item {n}" for n in range(5, 9)], [f"Item {n}" for n in range(9, 13)]]
    last = await call(e2e_app, "scrape.next_page", spec)
    assert last == {"moved": False, "reason": "disabled", "url": site.url("/jslist.html")}


async def test_next_page_reports_disabled_hidden_and_dead_controls(
    e2e_app: App, tab: Any, site: FixtureSite, pilot_on: None
) -> None:
    await open_page(e2e_app, tab, site, "/stuck.html")
    requests_before = len(site.requests)
    rows = {"rows_selector": "li.item", "timeout_ms": 400}
    by_class = await call(e2e_app, "scrape.next_page", {**rows, "next_selector": "#off-next"})
    assert by_class["moved"] is False and by_class["reason"] == "disabled"
    by_aria = await call(e2e_app, "scrape.next_page", {**rows, "next_selector": "#aria-next"})
    assert by_aria["reason"] == "disabled"
    hidden = await call(e2e_app, "scrape.next_page", {**rows, "next_selector": "#hidden-next"})
    assert hidden["reason"] == "no_next"
    dead = await call(e2e_app, "scrape.next_page", {**rows, "next_selector": "#next"})
    assert dead == {"moved": False, "reason": "no_change", "url": site.url("/stuck.html")}
    assert "GET /table?page=2" not in site.requests[requests_before:], "a disabled control is never clicked"
