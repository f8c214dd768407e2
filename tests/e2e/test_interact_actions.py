"""Every interact action through the real MCP client into the real extension in Chromium, on fixture pages
that count only trusted events and keep their state in the page (tests/fixtures/site/acts.html,
overlays.html, waits.html): what a person would see after each action is asserted in the page itself."""

from __future__ import annotations

import base64
import time
from typing import Any

import pytest

from tabpilot.app import App
from tests.e2e.conftest import E2E
from tests.e2e.test_page_actions import open_page
from tests.support.mcp_stdio import StdioMcp
from tests.support.site import FixtureSite
from tests.support.waiting import until

pytestmark = [pytest.mark.e2e, E2E]


async def act(mcp: StdioMcp, action: str, **params: Any) -> dict[str, Any]:
    return await mcp.ok("interact", {"action": action, **params})


async def trusted(tab: Any, name: str) -> int:
    return int(await tab.evaluate(f"window.trusted[{name!r}] || 0"))


# -- fields -------------------------------------------------------------------------------------------


async def test_a_controlled_input_takes_fill_and_type_into_its_state(
    mcp: StdioMcp, e2e_app: App, tab: Any, site: FixtureSite, pilot_on: None
) -> None:
    await open_page(e2e_app, tab, site, "/acts.html")
    filled = await act(mcp, "fill", selector="#controlled", value="Ada")
    assert filled["filled"] is True and "Ada" not in filled["changed"]
    # The framework's value tracker saw a person's (trusted) input, not a script writing through it.
    assert await tab.text_content("#controlled-state") == "state: Ada"
    typed = await act(mcp, "type", selector="#controlled", text=" L")
    assert typed["typed"] == 2
    assert await tab.text_content("#controlled-state") == "state: Ada L"
    # A second fill replaces the whole value (all of it selected, then the text inserted), as one input.
    before = await trusted(tab, "controlled-input")
    await act(mcp, "fill", selector="#controlled", value="Grace")
    assert await tab.text_content("#controlled-state") == "state: Grace"
    assert await trusted(tab, "controlled-input") == before + 1
    # An empty value clears it (a trusted Delete on the selection).
    await act(mcp, "fill", selector="#controlled", value="")
    assert await tab.text_content("#controlled-state") == "state: "
    assert await tab.input_value("#controlled") == ""


async def test_fill_replaces_a_controlled_textarea_and_a_rich_text_editor_with_trusted_input(
    mcp: StdioMcp, e2e_app: App, tab: Any, site: FixtureSite, pilot_on: None
) -> None:
    await open_page(e2e_app, tab, site, "/acts.html")
    await act(mcp, "fill", selector="#controlled-note", value="first line\nsecond line")
    assert await tab.text_content("#note-state") == "note: first line\nsecond line"
    assert await tab.input_value("#controlled-note") == "first line\nsecond line"
    # `change` waits for the focus to leave, as for a person: the fill fired none.
    assert await tab.text_content("#field-changes") == "changes: none"
    await act(mcp, "fill", selector="#controlled-editor", value="fresh draft")
    assert await tab.text_content("#editor-state") == "editor: fresh draft"
    assert await tab.text_content("#controlled-editor") == "fresh draft"
    # The focus left the textarea for the editor: now the browser fired its change (trusted).
    assert await tab.text_content("#field-changes") == "changes: controlled-note:true"
    await act(mcp, "fill", selector="#controlled-editor", value="")
    assert await tab.text_content("#editor-state") == "editor: "
    assert await tab.text_content("#controlled-editor") == ""
    assert await trusted(tab, "controlled-editor-input") == 2
    # An email field has no selection API for scripts, yet select() takes all of it: a second fill replaces.
    await act(mcp, "fill", selector="#email", value="a@b.c")
    await act(mcp, "fill", selector="#email", value="ada@example.org")
    assert await tab.input_value("#email") == "ada@example.org"


async def test_select_by_label_and_by_text_reports_what_got_selected(
    mcp: StdioMcp, e2e_app: App, tab: Any, site: FixtureSite, pilot_on: None
) -> None:
    await open_page(e2e_app, tab, site, "/acts.html")
    by_label = await act(mcp, "select", selector="#size", label="Medium (M)")
    assert by_label["selected"] == ["m"] and by_label["labels"] == ["Medium (M)"]
    assert await tab.text_content("#size-state") == "size: m"
    by_text = await act(mcp, "select", selector="#size", text="Large one")
    assert by_text["selected"] == ["l"]
    assert await tab.text_content("#size-state") == "size: l"
    both = await mcp.error("interact", {"action": "select", "selector": "#size", "value": "s", "label": "Small (S)"})
    assert both["error"] == "invalid_params" and "exactly one" in both["message"]


async def test_check_and_uncheck_click_for_real_and_do_nothing_when_already_so(
    mcp: StdioMcp, e2e_app: App, tab: Any, site: FixtureSite, pilot_on: None
) -> None:
    await open_page(e2e_app, tab, site, "/acts.html")
    checked = await act(mcp, "check", selector="#terms")
    assert checked["checked"] is True and checked["changed"].startswith("checked")
    assert await tab.text_content("#terms-state") == "terms: on"
    again = await act(mcp, "check", selector="#terms")
    assert again == {"checked": True, "changed": "already checked; nothing done"}
    assert await trusted(tab, "terms") == 1  # the second call clicked nothing
    await act(mcp, "uncheck", selector="#terms")
    assert await tab.text_content("#terms-state") == "terms: off" and await trusted(tab, "terms") == 2

    # A styled checkbox whose native input is hidden: its label takes the click.
    await act(mcp, "check", selector="#fancy")
    assert await tab.text_content("#fancy-state") == "fancy: on" and await trusted(tab, "fancy-label") == 1
    # role=checkbox with aria-checked.
    await act(mcp, "check", selector="#aria-box")
    assert await tab.get_attribute("#aria-box", "aria-checked") == "true"
    await act(mcp, "check", selector="#radio-b")
    assert await tab.is_checked("#radio-b")
    radio = await mcp.error("interact", {"action": "uncheck", "selector": "#radio-b"})
    assert radio["error"] == "invalid_params" and "radio" in radio["message"]


async def test_hover_and_focus(mcp: StdioMcp, e2e_app: App, tab: Any, site: FixtureSite, pilot_on: None) -> None:
    await open_page(e2e_app, tab, site, "/acts.html")
    hovered = await act(mcp, "hover", selector="#menu")
    assert hovered["hovered"] is True
    # Trusted mouseenter, and the CSS :hover rule shows the submenu.
    assert await tab.text_content("#hover-state") == "hover: menu (submenu block)"
    assert "hover: menu" in hovered["changed"]
    focused = await act(mcp, "focus", selector="#email")
    assert focused["focused"] is True
    assert await tab.text_content("#focus-state") == "focus: email, trusted=true"
    assert await tab.evaluate("document.activeElement.id") == "email"


async def test_drag_and_drop_html5_and_a_pointer_sortable(
    mcp: StdioMcp, e2e_app: App, tab: Any, site: FixtureSite, pilot_on: None
) -> None:
    await open_page(e2e_app, tab, site, "/acts.html")
    dropped = await act(mcp, "drag", selector="#card", target="#bin")
    assert dropped["html5"] is True
    assert await tab.text_content("#dnd-state") == "dnd: dropped card"
    assert await tab.evaluate("document.getElementById('card').parentElement.id") == "bin"
    assert await trusted(tab, "dragstart") == 1 and await trusted(tab, "drop") == 1

    sorted_ = await act(mcp, "drag", selector="#item-1", target="#item-3")
    assert sorted_["html5"] is False
    assert await tab.text_content("#sort-state") == "order: Two,Three,One"
    assert await trusted(tab, "pointermove") >= 3  # moved in steps, not teleported


async def test_a_drag_after_a_hover_menu_presses_where_the_source_is_once_the_menu_closed(
    mcp: StdioMcp, e2e_app: App, tab: Any, site: FixtureSite, pilot_on: None
) -> None:
    # The hover opens a submenu above the list; moving to the list closes it and the list moves up.
    await open_page(e2e_app, tab, site, "/acts.html")
    await act(mcp, "hover", selector="#menu")
    sorted_ = await act(mcp, "drag", selector="#item-1", target="#item-3")
    assert sorted_["html5"] is False
    assert await tab.text_content("#sort-state") == "order: Two,Three,One"
    await act(mcp, "hover", selector="#menu")
    dropped = await act(mcp, "drag", selector="#card", target="#bin")
    assert dropped["html5"] is True
    assert await tab.text_content("#dnd-state") == "dnd: dropped card"


async def test_click_with_button_count_and_modifiers(
    mcp: StdioMcp, e2e_app: App, tab: Any, site: FixtureSite, pilot_on: None
) -> None:
    await open_page(e2e_app, tab, site, "/acts.html")
    await tab.evaluate(
        """() => {
        window.clicks = [];
        const el = document.querySelector('h1');
        for (const type of ['click', 'dblclick', 'auxclick', 'contextmenu']) {
          el.addEventListener(type, (e) => { if (e.isTrusted) window.clicks.push(
            `${e.type}:${e.button}:${e.detail}:${e.shiftKey ? 'S' : ''}${e.ctrlKey ? 'C' : ''}`); });
        }
      }"""
    )
    await act(mcp, "click", selector="h1", click_count=2, modifiers=["Shift"])
    await act(mcp, "click", selector="h1", button="right")
    await act(mcp, "click", selector="h1", button="middle", modifiers=["Control"])
    clicks = await tab.evaluate("window.clicks")
    assert clicks[:3] == ["click:0:1:S", "click:0:2:S", "dblclick:0:2:S"]
    assert "contextmenu:2:1:" in clicks[3:] or "contextmenu:2:0:" in clicks[3:]
    assert any(c.startswith("auxclick:1:1:C") for c in clicks)
    bad = await mcp.error("interact", {"action": "click", "selector": "h1", "modifiers": ["Hyper"]})
    assert bad["error"] == "invalid_params" and "Hyper" in bad["message"]


async def test_scroll_by_a_delta_and_to_the_top(
    mcp: StdioMcp, e2e_app: App, tab: Any, site: FixtureSite, pilot_on: None
) -> None:
    await open_page(e2e_app, tab, site, "/actions.html")
    down = await act(mcp, "scroll", delta_y=300)
    assert down["scroll"]["y"] == 300 and await tab.evaluate("window.scrollY") == 300
    await act(mcp, "scroll", to="top")
    assert await tab.evaluate("window.scrollY") == 0
    await open_page(e2e_app, tab, site, "/acts.html")
    inner = await act(mcp, "scroll", selector="#scroller", delta_y=120)
    assert inner["element_scroll"]["y"] == 120
    assert await tab.evaluate("document.getElementById('scroller').scrollTop") == 120


# -- upload -------------------------------------------------------------------------------------------


async def test_upload_sends_files_the_server_receives(
    mcp: StdioMcp, e2e_app: App, tab: Any, site: FixtureSite, pilot_on: None
) -> None:
    uploads = e2e_app.paths.uploads_dir
    uploads.mkdir(parents=True, exist_ok=True)
    (uploads / "notes.txt").write_bytes(b"hello from the uploads folder\n")
    await open_page(e2e_app, tab, site, "/acts.html")
    one = await act(mcp, "upload", selector="#file", files=["notes.txt"])
    assert one["files"] == [{"name": "notes.txt", "size": 30}]
    inline = base64.b64encode(bytes(range(256))).decode()
    two = await act(
        mcp,
        "upload",
        selector="#files",
        files=[str(uploads / "notes.txt"), {"name": "blob.bin", "content_base64": inline, "mime": "application/x-x"}],
    )
    assert [f["name"] for f in two["files"]] == ["notes.txt", "blob.bin"]
    await act(mcp, "click", selector="#upload-go")
    received = await tab.eval_on_selector_all(
        "#received li", "els => els.map(e => [e.dataset.field, e.dataset.name, Number(e.dataset.size)])"
    )
    assert received == [["file", "notes.txt", 30], ["files", "notes.txt", 30], ["files", "blob.bin", 256]]


async def test_upload_refuses_files_outside_the_allowed_folders(
    mcp: StdioMcp, e2e_app: App, tab: Any, site: FixtureSite, pilot_on: None, tmp_path: Any
) -> None:
    outside = tmp_path / "secret.txt"
    outside.write_text("not for the web")
    await open_page(e2e_app, tab, site, "/acts.html")
    for path in (str(outside), "../config.json", "/etc/passwd", "missing.txt"):
        err = await mcp.error("interact", {"action": "upload", "selector": "#file", "files": [path]})
        assert err["error"] == "invalid_params", path
    assert await tab.evaluate("document.getElementById('file').files.length") == 0


# -- navigation: back, forward, reload; wait_for ------------------------------------------------------


async def test_back_forward_and_reload_answer_the_page_they_reached(
    mcp: StdioMcp, e2e_app: App, tab: Any, site: FixtureSite, pilot_on: None
) -> None:
    await open_page(e2e_app, tab, site, "/index.html")
    # Like the browser's own back button, back skips pages nobody interacted with (Chrome's history
    # intervention): a person (or an agent's trusted click) used this one.
    await act(mcp, "click", selector="h1")
    await act(mcp, "navigate", url=site.url("/second.html"))
    back = await act(mcp, "back")
    assert back["url"] == site.url("/index.html") and back["title"] == "Tabpilot Fixture"
    assert back["changed"].startswith("back to " + site.url("/index.html"))
    # Playwright hears of the tab's navigation through its own driver, which may come after our answer.
    await until(lambda: tab.url == site.url("/index.html"), timeout=5, what="Playwright to see the tab there")
    forward = await act(mcp, "forward")
    assert forward["url"] == site.url("/second.html") and forward["title"] == "Second Page"
    await tab.evaluate("window.marker = 1")
    reloaded = await act(mcp, "reload")
    assert reloaded["url"] == site.url("/second.html")
    assert await tab.evaluate("window.marker === undefined")  # a new document
    nowhere = await mcp.error("interact", {"action": "forward"})
    assert nowhere["error"] == "navigation_failed"


async def test_wait_for_each_condition(
    mcp: StdioMcp, e2e_app: App, tab: Any, site: FixtureSite, pilot_on: None
) -> None:
    for condition, expect in (
        ({"text": "All saved"}, "text 'All saved'"),
        ({"selector": "#doomed", "state": "detached"}, "#doomed detached"),
        ({"selector": "#late", "state": "attached"}, "#late attached"),
        ({"url": "**/waits.html?step=done"}, "url"),
    ):
        await open_page(e2e_app, tab, site, "/waits.html?after_ms=400")
        started = time.monotonic()
        done = await act(mcp, "wait_for", timeout_ms=5000, **condition)
        assert done["condition"] == expect
        assert 0.25 < time.monotonic() - started < 4, condition
    assert done["url"].endswith("/waits.html?step=done")

    await open_page(e2e_app, tab, site, "/waits.html?after_ms=50&fetch_s=0.8")
    started = time.monotonic()
    idle = await act(mcp, "wait_for", network_idle=True, timeout_ms=8000)
    assert idle["condition"] == "network idle" and time.monotonic() - started > 0.5
    assert await tab.title() == "Fetched"  # the request had finished

    await open_page(e2e_app, tab, site, "/index.html")
    loaded = await act(mcp, "wait_for", load=True)
    assert loaded["condition"] == "load"

    late = await mcp.error("interact", {"action": "wait_for", "text": "Never there", "timeout_ms": 300})
    assert late["error"] == "timeout"
    for bad in ({}, {"text": "a", "load": True}, {"state": "visible"}):
        err = await mcp.error("interact", {"action": "wait_for", **bad})
        assert err["error"] == "invalid_params", bad


# -- download, dismiss_overlays -----------------------------------------------------------------------


async def test_download_saves_cookie_protected_content_into_downloads(
    mcp: StdioMcp, e2e_app: App, tab: Any, site: FixtureSite, pilot_on: None
) -> None:
    await open_page(e2e_app, tab, site, "/download-login")  # sets an HttpOnly cookie
    saved = await act(mcp, "download", url=site.url("/files/report.txt"))
    path = e2e_app.paths.downloads_dir / "q3 report.txt"
    assert saved["path"].startswith(str(e2e_app.paths.downloads_dir))
    assert saved["size"] == len(FixtureSite.REPORT) and saved["mime"] == "text/plain"
    from pathlib import Path

    assert Path(saved["path"]).read_bytes() == FixtureSite.REPORT
    assert path.exists() or Path(saved["path"]).name.startswith("q3 report")

    await open_page(e2e_app, tab, site, "/acts.html")
    by_link = await act(mcp, "download", selector="#report-link")
    assert Path(by_link["path"]).read_bytes() == FixtureSite.REPORT
    assert by_link["path"] != saved["path"]  # a second download never overwrites the first
    image = await act(mcp, "download", selector="#pixel")
    assert image["mime"] == "image/png" and Path(image["path"]).suffix == ".png"


async def test_download_without_the_cookie_is_refused_by_the_server(
    mcp: StdioMcp, e2e_app: App, tab: Any, site: FixtureSite, pilot_on: None
) -> None:
    assert e2e_app.managed is not None
    await e2e_app.managed.context.clear_cookies()
    await open_page(e2e_app, tab, site, "/acts.html")
    err = await mcp.error("interact", {"action": "download", "url": "/files/report.txt"})
    assert err["error"] == "navigation_failed" and "403" in err["message"]


async def test_dismiss_overlays_clicks_accept_and_close_then_hides_what_has_no_button(
    mcp: StdioMcp, e2e_app: App, tab: Any, site: FixtureSite, pilot_on: None
) -> None:
    await open_page(e2e_app, tab, site, "/overlays.html?ad=1")
    result = await act(mcp, "dismiss_overlays")
    hows = {c["what"].split(" '")[0]: c["how"] for c in result["closed"]}
    assert hows["cookie banner"] == "clicked 'Accept all'"
    assert hows["dialog"] == "clicked '\u00d7'"  # the modal's close button is a multiplication sign
    assert "hidden" in hows.values()  # the ad had no button
    assert await trusted(tab, "accept") == 1 and await trusted(tab, "close") == 1
    assert await tab.evaluate("!document.getElementById('consent') && !document.getElementById('backdrop')")
    # What was under them can be clicked now.
    await act(mcp, "click", selector="#under")
    assert await tab.text_content("#under-state") == "under: clicked"
    assert "element" in result["changed"]


# -- changed ------------------------------------------------------------------------------------------


async def test_a_click_that_navigates_answers_with_the_new_page_and_observe_sees_it(
    mcp: StdioMcp, e2e_app: App, tab: Any, site: FixtureSite, pilot_on: None
) -> None:
    await open_page(e2e_app, tab, site, "/actions.html")
    clicked = await act(mcp, "click", selector="#to-second")
    assert clicked["changed"] == f"navigated to {site.url('/second.html')} 'Second Page'"
    page = await mcp.ok("observe", {"what": "page"})
    assert page["title"] == "Second Page"


async def test_changed_sees_what_the_click_queued_for_its_next_task(
    mcp: StdioMcp, e2e_app: App, tab: Any, site: FixtureSite, pilot_on: None
) -> None:
    # A click whose handler changes nothing at once ends soon after it (no quiet window to wait out),
    # but never before the tasks it queued have run.
    await open_page(e2e_app, tab, site, "/acts.html")
    await tab.evaluate(
        """() => document.querySelector('h1').addEventListener('click', (e) => {
          if (!e.isTrusted) return;
          setTimeout(() => {
            const p = document.createElement('p'); p.textContent = 'Done in the next task';
            document.body.appendChild(p);
          }, 0);
        })"""
    )
    clicked = await act(mcp, "click", selector="h1")
    assert clicked["changed"] == "+1 element, text 'Done in the next task' appeared"


async def test_changed_waits_for_the_request_a_click_started(
    mcp: StdioMcp, e2e_app: App, tab: Any, site: FixtureSite, pilot_on: None
) -> None:
    await open_page(e2e_app, tab, site, "/acts.html")
    await tab.evaluate(
        """() => document.querySelector('h1').addEventListener('click', async (e) => {
          if (!e.isTrusted) return;
          await fetch('/slow?s=0.3');
          const p = document.createElement('p'); p.id = 'saved'; p.textContent = 'Saved on the server';
          document.body.appendChild(p);
        })"""
    )
    clicked = await act(mcp, "click", selector="h1")
    assert clicked["changed"] == "+1 element, text 'Saved on the server' appeared"
    await until(lambda: True)
