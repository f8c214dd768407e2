"""Approvals end to end: a real managed Chromium with the real extension, the fixture site, the real
App and the approval dialog on the qasync loop. An agent's click asks first, with a picture of the
target outlined; what a person answers is what happens in the page, and nothing else."""

from __future__ import annotations

import asyncio
import json
import math
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
import shiboken6
from playwright.async_api import async_playwright
from PySide6.QtCore import QRect, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication
from tests.conftest import AppFactory
from tests.gui.approvals import (
    ShiftedClock,
    button,
    button_texts,
    click,
    click_call,
    close_our_windows,
    next_dialog,
    no_prompt_for,
    outline_drawn,
)
from tests.support.managed import managed_up
from tests.support.site import FixtureSite
from tests.support.waiting import until

from tabpilot.app import App
from tabpilot.browser.discover import find_browser
from tabpilot.browser.managed import QUIET_ARGS
from tabpilot.engine.errors import TabpilotError
from tabpilot.engine.ports import ApprovalRequest
from tabpilot.engine.workflows.workflows import parse_workflow
from tabpilot.resources import extension_dir, extension_id
from tabpilot.ui.approval_dialog import ApprovalDialogs
from tabpilot.ui.pairing import PairingWatcher, open_paired_browsers, watch_pairing_requests

pytestmark = [pytest.mark.e2e]

CROP_MARGIN = 48
"""CSS pixels of page the extension's crop keeps around the element (extension/background/crop.js)."""


@pytest.fixture(autouse=True)
def _windows_closed() -> Iterator[None]:
    yield
    close_our_windows()


@pytest_asyncio.fixture
async def site() -> AsyncIterator[FixtureSite]:
    site = FixtureSite()
    await site.start()
    yield site
    await site.stop()


class Browsing:
    """The app with its managed browser, the prompts, and what they were asked."""

    def __init__(self, app: App, dialogs: ApprovalDialogs, clock: ShiftedClock) -> None:
        self.app = app
        self.dialogs = dialogs
        self.clock = clock
        self.asked: list[ApprovalRequest] = []
        dialogs.shown.subscribe(lambda dialog: self.asked.append(dialog.request))

    async def open(self, url: str) -> Any:
        managed = self.app.managed
        assert managed is not None
        page = await managed.context.new_page()
        await page.goto(url)
        await page.bring_to_front()
        await self.shows(url)
        return page

    async def shows(self, url: str) -> None:
        """Wait until the extension agrees that the tab a command goes to shows `url`."""

        async def there() -> bool:
            tab = await self.app.link.request("tabs.resolve", {}, timeout_s=5)
            return bool(tab.get("url") == url)

        await until(there, timeout=10, what=f"the extension to see {url} in front")


@pytest_asyncio.fixture
async def browsing(make_app: AppFactory, qapp: QApplication) -> Browsing:
    dialogs = ApprovalDialogs(arm_delay_ms=0)
    app = await make_app(approvals=dialogs, browser="managed", headless=True, pilot=True)
    dialogs.attach(app.facade)
    clock = ShiftedClock()
    app.policy.clock = clock
    await until(lambda: managed_up(app), timeout=30, what="the managed browser's extension")
    return Browsing(app, dialogs, clock)


async def denied(call: asyncio.Task[dict[str, Any]]) -> None:
    with pytest.raises(TabpilotError) as err:
        await asyncio.wait_for(call, 10)
    assert err.value.code == "approval_denied"


def served(site: FixtureSite) -> list[str]:
    """What the fixture server served, less the favicon the browser fetches when it likes."""
    return [r for r in site.requests if not r.endswith(" /favicon.ico")]


async def element_box(page: Any, selector: str) -> dict[str, float]:
    """The element's box in document coordinates, as the page itself measures it."""
    return dict(
        await page.evaluate(
            """(s) => { const r = document.querySelector(s).getBoundingClientRect();
                        return {x: r.left + scrollX, y: r.top + scrollY, width: r.width, height: r.height}; }""",
            selector,
        )
    )


async def test_an_agents_click_asks_with_the_target_outlined_and_the_answer_is_what_happens(
    browsing: Browsing, site: FixtureSite
) -> None:
    app, dialogs = browsing.app, browsing.dialogs
    url = site.url("/actions.html")
    page = await browsing.open(url)

    # The prompt: who, what, where, and the element outlined in a picture of the page.
    requests_before = served(site)
    call = click_call(app, "#to-second")
    dialog = await next_dialog(dialogs)
    assert dialog.title_label.text() == 'An agent that says it is "test-agent" wants to click an element'
    assert dialog.agent_label.text() == 'says it is "test-agent"'
    assert dialog.action_label.text() == "interact · click"
    assert dialog.url_label.text() == url
    assert dialog.origin_label.text() == site.origin
    assert json.loads(dialog.params_view.toPlainText())["selector"] == "#to-second"
    assert button_texts(dialog) == ["Allow once", "Allow for this site", "Deny"]
    await until(lambda: dialog.picture_state != "loading", timeout=5, what="the picture")
    assert dialog.picture_state == "shown"
    pixmap = dialog.picture.pixmap()
    assert not pixmap.isNull()
    box = await element_box(page, "#to-second")
    left, top = max(0, math.floor(box["x"] - CROP_MARGIN)), max(0, math.floor(box["y"] - CROP_MARGIN))
    expected = QRect(round(box["x"] - left), round(box["y"] - top), round(box["width"]), round(box["height"]))
    assert dialog.outline == expected, (dialog.outline, box)
    assert (pixmap.width(), pixmap.height()) == (dialog.crop["width"], dialog.crop["height"])  # type: ignore[index]
    assert outline_drawn(pixmap.toImage(), dialog)

    # Deny: approval_denied, and not a trace in the page or on the server.
    QTest.mouseClick(button(dialog, "Deny"), Qt.MouseButton.LeftButton)
    await denied(call)
    assert served(site) == requests_before, "the denied click reached the server"
    assert page.url == url
    assert await page.inner_text("#clicks") == "no clicks"
    assert await page.evaluate("window.events.length") == 0

    # Allow once: it runs.
    call = click_call(app, "#change")
    dialog = await next_dialog(dialogs)
    await click(dialog, "Allow once")
    assert (await asyncio.wait_for(call, 10))["clicked"] is True
    assert await page.inner_text("#change") == "Clicked"
    assert app.policy.rules() == []

    # Allow for this site (5 minutes): the next click on this site runs without a prompt.
    call = click_call(app, "#change")
    dialog = await next_dialog(dialogs)
    dialog.site_minutes.setCurrentIndex(dialog.site_minutes.findData(5))
    await click(dialog, "Allow for this site")
    assert (await asyncio.wait_for(call, 10))["clicked"] is True
    [rule] = app.policy.rules()
    assert (rule.kind, rule.origin, rule.agent) == ("site", site.origin, "test-agent")
    assert rule.expires_at is not None and round(rule.expires_at - rule.created_at) == 5 * 60
    asked = len(browsing.asked)
    followed = await no_prompt_for(dialogs, click_call(app, "#to-second"))
    assert followed["clicked"] is True and followed["navigation"]["status"] == "complete"
    assert len(browsing.asked) == asked
    await until(lambda: "GET /second.html" in site.requests, timeout=10, what="the allowed click's navigation")
    await browsing.shows(site.url("/second.html"))

    # The rule covers test-agent's element actions on this site and no more: another agent's click
    # asks, and so does test-agent's JavaScript (denied: nothing happens in the page).
    call = click_call(app, "h1", agent="other-agent")
    dialog = await next_dialog(dialogs)
    assert dialog.agent_label.text() == 'says it is "other-agent"'
    QTest.mouseClick(button(dialog, "Deny"), Qt.MouseButton.LeftButton)
    await denied(call)
    script = asyncio.get_running_loop().create_task(
        app.engine.call(
            "interact", {"action": "execute_js", "script": "document.title = 'changed'"}, agent="test-agent"
        )
    )
    dialog = await next_dialog(dialogs)
    assert dialog.action_label.text() == "interact · execute_js"
    QTest.mouseClick(button(dialog, "Deny"), Qt.MouseButton.LeftButton)
    await denied(script)
    assert await page.title() == "Second Page"
    assert len(app.policy.rules()) == 1

    # Another origin (the same server as http://localhost): asks again.
    other = f"http://localhost:{site.port}/actions.html"
    await page.goto(other)
    await browsing.shows(other)
    call = click_call(app, "#change")
    dialog = await next_dialog(dialogs)
    assert dialog.origin_label.text() == f"http://localhost:{site.port}"
    QTest.keyClick(dialog, Qt.Key.Key_Escape)
    await denied(call)
    assert await page.inner_text("#change") == "Click me"

    # The rule runs out: the first site asks again.
    await page.goto(url)
    await browsing.shows(url)
    browsing.clock.advance(5 * 60 + 1)
    call = click_call(app, "#change")
    dialog = await next_dialog(dialogs)
    assert dialog.origin_label.text() == site.origin
    QTest.mouseClick(button(dialog, "Deny"), Qt.MouseButton.LeftButton)
    await denied(call)
    assert app.policy.rules() == []
    assert await page.inner_text("#change") == "Click me"


async def test_no_answer_within_the_wait_gives_awaiting_approval_and_a_later_allow_finishes(
    browsing: Browsing, site: FixtureSite
) -> None:
    app, dialogs = browsing.app, browsing.dialogs
    page = await browsing.open(site.url("/actions.html"))
    app.engine.approval_wait_ms = 300
    pending = await asyncio.wait_for(
        app.engine.call("interact", {"action": "click", "selector": "#change"}, agent="test-agent"), 10
    )
    assert pending["status"] == "awaiting_approval"
    correlation_id = pending["correlation_id"]
    dialog = await next_dialog(dialogs)
    assert dialog.request.correlation_id == correlation_id
    still = await app.engine.call("observe", {"what": "command_result", "correlation_id": correlation_id})
    assert still["status"] == "awaiting_approval"
    assert await page.inner_text("#change") == "Click me"

    await click(dialog, "Allow once")

    async def finished() -> dict[str, Any] | None:
        result = await app.engine.call("observe", {"what": "command_result", "correlation_id": correlation_id})
        return None if "status" in result else result

    assert (await until(finished, timeout=10, what="the command to finish"))["clicked"] is True
    assert await page.inner_text("#change") == "Clicked"


async def test_a_workflow_asks_once_for_all_its_clicks_and_always_allow_holds_until_it_changes(
    browsing: Browsing, site: FixtureSite
) -> None:
    app, dialogs = browsing.app, browsing.dialogs
    url = site.url("/actions.html")
    page = await browsing.open(url)
    steps: list[dict[str, Any]] = [
        {"type": "navigate", "url": url},
        {"type": "click", "selector": "#change"},
        {"type": "click", "selector": "#spawn"},
        {"type": "wait", "selector": "#late"},
    ]

    # One prompt for the whole workflow, listing both clicks.
    call = asyncio.get_running_loop().create_task(
        app.engine.call(
            "interact",
            {"action": "scrape", "operation": "workflow", "steps": steps, "step_delay_ms": 0},
            agent="test-agent",
        )
    )
    dialog = await next_dialog(dialogs)
    assert (
        dialog.title_label.text()
        == 'An agent that says it is "test-agent" wants to run a workflow with 2 page-changing steps'
    )
    assert dialog.steps_view is not None
    # Every step in words, numbered from 1 (the two clicks are the ones approved; the view shows them in bold).
    assert dialog.steps_view.toPlainText().splitlines() == [
        f"1. Go to {url}",
        "2. Click #change",
        "3. Click #spawn",
        "4. Wait until #late is visible",
    ]
    assert "Always allow this workflow" not in button_texts(dialog), "only a saved workflow can be always allowed"
    await click(dialog, "Allow once")
    result = await asyncio.wait_for(call, 20)
    assert result["status"] == "complete"
    assert result["steps_completed"] == 4
    assert len(browsing.asked) == 1, "asked once for the workflow, not per step"
    assert await page.inner_text("#change") == "Clicked"

    # A saved workflow: "Always allow this workflow" stops the asking...
    workflow = parse_workflow(
        {"workflow_id": "wf-two-clicks", "name": "two clicks", "origin": site.origin, "steps": steps}
    )
    app.workflows.save(workflow)
    replay = {"action": "scrape", "operation": "replay", "workflow_id": "wf-two-clicks", "step_delay_ms": 0}

    def run() -> asyncio.Task[dict[str, Any]]:
        return asyncio.get_running_loop().create_task(app.engine.call("interact", replay, agent="test-agent"))

    call = run()
    dialog = await next_dialog(dialogs)
    assert dialog.workflow_label is not None and dialog.workflow_label.text() == "two clicks (wf-two-clicks)"
    assert dialog.steps_view is not None
    assert dialog.steps_view.toPlainText().splitlines()[1:3] == ["2. Click #change", "3. Click #spawn"]
    await click(dialog, "Always allow this workflow")
    assert (await asyncio.wait_for(call, 20))["status"] == "complete"
    [rule] = app.policy.rules()
    assert (rule.kind, rule.workflow_id) == ("workflow", "wf-two-clicks")
    asked = len(browsing.asked)
    for _ in range(2):
        assert (await no_prompt_for(dialogs, run(), timeout=20))["status"] == "complete"
    assert len(browsing.asked) == asked

    # ...until a step changes: the file edited by hand asks again.
    file = Path(app.paths.workflows_dir) / "wf-two-clicks.json"
    doc = json.loads(file.read_text(encoding="utf-8"))
    doc["steps"][2] = {"type": "click", "selector": "#to-second"}
    doc["steps"][3] = {"type": "wait", "selector": "h1"}
    file.write_text(json.dumps(doc), encoding="utf-8")

    def edited() -> bool:
        entry = app.workflows.get("wf-two-clicks")
        return entry is not None and entry.workflow is not None and entry.workflow.steps[2]["selector"] == "#to-second"

    await until(edited, timeout=5, what="the store to see the edited file")
    requests_before = served(site)
    call = run()
    dialog = await next_dialog(dialogs)
    assert dialog.steps_view is not None
    assert dialog.steps_view.toPlainText().splitlines()[1:] == [
        "2. Click #change",
        "3. Click #to-second",
        "4. Wait until h1 is visible",
    ]
    QTest.mouseClick(button(dialog, "Deny"), Qt.MouseButton.LeftButton)
    await denied(call)
    assert served(site) == requests_before


async def test_your_own_browser_pairs_through_its_popup_with_the_code_the_window_shows(
    make_app: AppFactory, qapp: QApplication, tmp_path: Path
) -> None:
    """The real extension in a browser of the user's own (not the managed one): refused until the person
    types the code the pairing window shows into its popup; revoked in Paired browsers, it is cut off."""
    app = await make_app(browser="none")
    assert app.bridge is not None
    watcher: PairingWatcher = watch_pairing_requests(app.facade)
    ext = str(extension_dir())
    args = [f"--disable-extensions-except={ext}", f"--load-extension={ext}", *QUIET_ARGS]
    try:
        async with async_playwright() as pw:
            browser = await pw.chromium.launch_persistent_context(
                str(tmp_path / "my-chrome"), executable_path=find_browser(), headless=True, args=args
            )
            try:
                popup = await browser.new_page()
                await popup.goto(f"chrome-extension://{extension_id()}/popup/popup.html")
                await popup.fill("#port", str(app.bridge.port))
                await popup.click("#portform button")
                await until(lambda: watcher.windows, timeout=15, what="the pairing window")
                [window] = watcher.windows.values()
                await until(window.isVisible, what="the window to show")
                assert window.heading.text() == "A browser wants to connect"
                name, version = window.browser_label.text().split(" ")
                assert name == "Chromium" and version.split(".")[0].isdigit()
                assert window.system_label.text() == "Linux"  # the extension says which system it runs on
                assert not app.link.connected
                await until(lambda: _shows(popup, "#link", "not paired"), timeout=10, what="the popup to say so")

                await popup.fill("#code", window.code_label.text())
                await popup.click("#pairform button")
                await until(lambda: app.link.connected, timeout=15, what="the browser to pair and connect")
                await until(lambda: not shiboken6.isValid(window) or not window.isVisible(), what="the window to go")
                assert window.outcome == "paired"
                await until(lambda: _shows(popup, "#link", "connected"), timeout=5, what="the popup to show the link")

                browsers = open_paired_browsers(app.facade)
                [pairing] = app.pairings.paired()
                assert browsers.table.item(0, 3).text() == "connected now"  # type: ignore[union-attr]
                assert pairing.os == "Linux" and pairing.name == "Chromium on Linux"
                QTest.mouseClick(browsers.revoke_buttons[pairing.pair_id], Qt.MouseButton.LeftButton)
                await until(lambda: not app.link.connected, timeout=5, what="the revoked browser to be cut off")
                await until(lambda: _shows(popup, "#link", "not paired"), timeout=15, what="the popup to know")
                assert not app.link.connected
            finally:
                await browser.close()
    finally:
        watcher.close()


async def _shows(page: Any, selector: str, text: str) -> bool:
    return bool(await page.locator(selector).inner_text() == text)
