"""Pairing your own browser with the real bridge and a fake extension speaking the real protocol: an
unpaired browser is refused until the code the window shows is typed into it; Deny keeps it out; a
revoked browser is cut off."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
import shiboken6
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QLabel, QLineEdit
from tests.conftest import AppFactory
from tests.gui.approvals import close_our_windows
from tests.support.fake_extension import FakeExtension, paired_with
from tests.support.waiting import until

from tabpilot.app import App
from tabpilot.bridge.pairing import normalize_code
from tabpilot.ui.pairing import (
    PairedBrowsersWindow,
    PairingRequestWindow,
    PairingWatcher,
    open_paired_browsers,
    open_pairing_code,
    show_paired_browsers,
    watch_pairing_requests,
)

BROWSER = {"name": "Chromium", "version": "126.0.6478.126", "user_agent": "Mozilla/5.0", "os": "Linux"}


@pytest.fixture(autouse=True)
def _windows_closed() -> Iterator[None]:
    yield
    close_our_windows()


@pytest.fixture
def watchers() -> Iterator[list[PairingWatcher]]:
    made: list[PairingWatcher] = []
    yield made
    for watcher in made:
        watcher.close()


def port(app: App) -> int:
    assert app.bridge is not None
    return app.bridge.port


async def knock(app: App, fake: FakeExtension | None = None) -> FakeExtension:
    """An extension that is not paired connects (auth none), as a freshly installed one does."""
    fake = fake or FakeExtension(port(app), auth="none")
    await fake.connect(browser=BROWSER)
    assert fake.welcome is None
    assert fake.refused is not None and fake.refused["code"] == "unpaired", fake.refused
    await fake.close()
    return fake


async def type_code(app: App, code: str, same_as: FakeExtension | None = None) -> FakeExtension:
    """The person types the code into that browser's popup: the extension reconnects proving it."""
    fake = FakeExtension(port(app), auth="pairing", secret=normalize_code(code))
    if same_as is not None:
        fake.instance_id = same_as.instance_id
    await fake.connect(browser=BROWSER)
    return fake


async def request_window(watcher: PairingWatcher, count: int = 1) -> PairingRequestWindow:
    await until(lambda: len(watcher.windows) >= count, what="the pairing window")
    window = list(watcher.windows.values())[count - 1]
    await until(window.isVisible, what="the pairing window to show")
    return window


def paired_rows(window: PairedBrowsersWindow) -> list[list[str]]:
    table = window.table
    return [
        [table.item(r, c).text() for c in range(table.columnCount() - 1)]  # type: ignore[union-attr]
        for r in range(table.rowCount())
    ]


async def test_an_unpaired_browser_is_refused_until_the_code_is_typed_and_a_revoked_one_is_cut_off(
    make_app: AppFactory, watchers: list[PairingWatcher], qapp: QApplication
) -> None:
    app = await make_app()
    watcher = watch_pairing_requests(app.facade)
    watchers.append(watcher)
    browser = await knock(app)
    assert not app.link.connected

    window = await request_window(watcher)
    assert window.windowTitle() == "Tabpilot — A browser wants to connect"
    assert window.heading.text() == "A browser wants to connect"
    assert window.browser_label.text() == "Chromium 126.0.6478.126"
    assert window.system_label.text() == "Linux"
    code = window.code_label.text()
    assert re.fullmatch(r"[2-9A-HJ-NP-Z]{4}-[2-9A-HJ-NP-Z]{4}", code), code
    assert "for the next 4:5" in window.expiry_label.text() or "for the next 5:00" in window.expiry_label.text()
    assert window.deny_button.text() == "Deny"
    assert window.windowFlags() & Qt.WindowType.WindowStaysOnTopHint
    # Another browser gets a window of its own; the same browser knocking again keeps its code and window.
    await knock(app, FakeExtension(port(app), auth="none"))
    await until(lambda: len(watcher.windows) == 2, what="another browser's own window")
    other = list(watcher.windows.values())[1]
    assert other.code_label.text() != code
    QTest.mouseClick(other.deny_button, Qt.MouseButton.LeftButton)
    browser_again = FakeExtension(port(app), auth="none")
    browser_again.instance_id = browser.instance_id
    await knock(app, browser_again)
    assert [w.code_label.text() for w in watcher.windows.values()] == [code]

    # The person types the code the window shows into the popup: paired, connected, the window goes.
    paired_browser = await type_code(app, code, same_as=browser)
    assert paired_browser.welcome is not None, paired_browser.refused
    assert paired_browser.pairing is not None and paired_browser.pairing["token"]
    await until(lambda: app.link.connected, what="the paired browser's link")
    await until(lambda: not shiboken6.isValid(window) or not window.isVisible(), what="the window to close itself")
    assert window.outcome == "paired"
    assert watcher.windows == {}
    [pairing] = app.pairings.paired()
    assert (pairing.browser, pairing.version, pairing.os) == ("Chromium", "126.0.6478.126", "Linux")
    assert pairing.instance_id == browser.instance_id

    # Paired browsers: listed, shown as connected; Revoke cuts it off at once.
    show_paired_browsers(app.facade)
    browsers = open_paired_browsers(app.facade)
    await until(browsers.isVisible, what="the paired browsers window")
    [[name, browser_cell, system, seen, since]] = paired_rows(browsers)
    assert (name, browser_cell, system) == ("Chromium on Linux", "Chromium 126.0.6478.126", "Linux")
    assert seen == "connected now"
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d", since)
    QTest.mouseClick(browsers.revoke_buttons[pairing.pair_id], Qt.MouseButton.LeftButton)
    await until(lambda: not app.link.connected, timeout=5, what="the revoked browser to be cut off")
    await until(lambda: paired_browser.closed, timeout=5, what="its socket to close")
    assert app.pairings.paired() == []
    assert paired_rows(browsers) == []
    assert browsers.empty_label.isVisible()

    # Its token is worthless now: it is refused (and the person would be asked about it anew).
    assert paired_browser.pairing is not None
    returning = FakeExtension(
        port(app), auth="paired", secret=paired_browser.pairing["token"], pair_id=paired_browser.pairing["pair_id"]
    )
    returning.instance_id = browser.instance_id
    await returning.connect(browser=BROWSER)
    assert returning.welcome is None
    assert returning.refused is not None and returning.refused["code"] == "unpaired"
    await returning.close()
    await paired_browser.close()


async def test_deny_withdraws_the_code_and_the_browser_stays_refused(
    make_app: AppFactory, watchers: list[PairingWatcher], qapp: QApplication
) -> None:
    app = await make_app()
    watcher = watch_pairing_requests(app.facade)
    watchers.append(watcher)
    browser = await knock(app)
    window = await request_window(watcher)
    code = window.code_label.text()
    QTest.mouseClick(window.deny_button, Qt.MouseButton.LeftButton)
    await until(lambda: not shiboken6.isValid(window) or not window.isVisible(), what="the window to close")
    assert window.outcome == "denied"
    assert app.pairings.pending() == []

    # The code is dead: typing it in gets nothing.
    late = await type_code(app, code, same_as=browser)
    assert late.welcome is None
    assert late.refused is not None and late.refused["code"] == "no_pairing_code"
    await late.close()
    assert not app.link.connected
    assert app.pairings.paired() == []

    # The denied browser knocking again (the extension retries) is refused without asking again.
    again = FakeExtension(port(app), auth="none")
    again.instance_id = browser.instance_id
    await knock(app, again)
    assert watcher.windows == {}
    assert app.pairings.pending() == []
    # Another browser is asked about.
    await knock(app)
    await request_window(watcher)

    # Closing the window is a Deny too.
    [other] = watcher.windows.values()
    other.close()
    assert other.outcome == "denied"
    assert app.pairings.pending() == []


async def test_a_code_the_person_asks_for_pairs_a_browser_and_the_window_closes(
    make_app: AppFactory, watchers: list[PairingWatcher], qapp: QApplication
) -> None:
    app = await make_app()
    watchers.append(watch_pairing_requests(app.facade))
    window = open_pairing_code(app.facade)
    await until(window.isVisible, what="the code window")
    assert window.heading.text() == "Pair your own browser"
    assert window.deny_button.text() == "Cancel"
    code = window.code_label.text()
    assert [p.code for p in app.pairings.pending()] == [normalize_code(code)]
    fake = await type_code(app, code)
    assert fake.welcome is not None, fake.refused
    await until(lambda: app.link.connected, what="the link")
    await until(lambda: not shiboken6.isValid(window) or not window.isVisible(), what="the window to close itself")
    assert window.outcome == "paired"
    assert len(app.pairings.paired()) == 1
    await fake.close()


async def test_paired_browsers_are_told_apart_renamed_in_place_and_show_when_last_seen(
    make_app: AppFactory, watchers: list[PairingWatcher], qapp: QApplication
) -> None:
    """Two browsers of the same kind: each row says browser, version and system, a name the person edits
    (kept in the keyring with the pairing), and when it was last seen."""
    app = await make_app()
    fakes = []
    for system in ("Linux", "Windows"):
        window = open_pairing_code(app.facade)
        fake = FakeExtension(port(app), auth="pairing", secret=normalize_code(window.code_label.text()))
        await fake.connect(browser={**BROWSER, "os": system})
        assert fake.welcome is not None, fake.refused
        await fake.close()
        await until(lambda: not app.link.connected, what="the browser to leave")
        fakes.append(fake)
    browsers = open_paired_browsers(app.facade)
    await until(browsers.isVisible, what="the paired browsers window")
    rows = paired_rows(browsers)
    assert [row[:3] for row in rows] == [
        ["Chromium on Linux", "Chromium 126.0.6478.126", "Linux"],
        ["Chromium on Windows", "Chromium 126.0.6478.126", "Windows"],
    ]
    assert all(re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d", row[3]) for row in rows), rows  # last seen: when it left

    # Rename in place: double-click the name, type, Enter.
    table = browsers.table
    item = table.item(1, 0)
    assert item is not None
    rect = table.visualItemRect(item)
    QTest.mousePress(table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    QTest.mouseDClick(table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    editor = await until(
        lambda: next((e for e in table.viewport().findChildren(QLineEdit) if e.isVisible()), None),
        what="the name's editor",
    )
    assert editor.text() == "Chromium on Windows"
    editor.selectAll()
    QTest.keyClicks(editor, "Work laptop")
    QTest.keyClick(editor, Qt.Key.Key_Return)
    await until(lambda: app.pairings.paired()[1].name == "Work laptop", what="the new name")
    assert paired_rows(browsers)[1][0] == "Work laptop"
    from tabpilot.vault import keyring_store

    keyring_store.flush_writes()
    assert [p.name for p in app.pairings.vault.load()] == ["Chromium on Linux", "Work laptop"]

    # Connected now, then seen when it leaves.
    given = fakes[1].pairing
    assert given is not None
    back = FakeExtension(port(app), auth="paired", secret=given["token"], pair_id=given["pair_id"])
    back.instance_id = fakes[1].instance_id
    await back.connect(browser={**BROWSER, "os": "Windows", "version": "127.0.1"})
    await until(lambda: paired_rows(browsers)[1][3] == "connected now", what="connected now")
    assert paired_rows(browsers)[1][1] == "Chromium 127.0.1"  # the browser updated itself
    await back.close()
    await until(lambda: paired_rows(browsers)[1][3] != "connected now", what="last seen after it left")


async def test_the_pairing_window_says_what_to_do_when_the_app_has_all_the_browsers_it_takes(
    make_app: AppFactory, qapp: QApplication
) -> None:
    """Another browser beside the connected one is fine; when the app has as many as it takes, the code
    window says who is connected and how this browser gets its turn — and says each thing once."""
    app = await make_app()
    app.link.max_browsers = 2
    first = paired_with(app)
    await first.connect()
    await until(lambda: app.link.connected, what="a first browser")
    window = open_pairing_code(app.facade)
    await until(window.isVisible, what="the code window")
    assert window.busy_label.isHidden()
    texts = [label.text() for label in window.findChildren(QLabel)]
    assert sum("works once" in text for text in texts) == 1, texts
    other = paired_with(app)
    await other.connect()
    await until(lambda: not window.busy_label.isHidden(), what="the busy line")
    assert window.busy_label.text().startswith(
        "Tabpilot has 2 browsers connected (FakeChrome, FakeChrome (2)), as many as it takes at once."
    ), window.busy_label.text()
    assert "This browser connects by itself once one is gone: close a browser" in window.busy_label.text()
    await other.close()
    await until(window.busy_label.isHidden, what="the busy line to go")
    await first.close()


async def test_a_browser_paired_while_another_is_connected_is_shown_waiting_until_it_connects(
    make_app: AppFactory, qapp: QApplication
) -> None:
    """The code window does not just vanish when the code was right but the app has all the browsers it
    takes: it says the browser is paired and waits, and what makes it go; it closes once that browser
    connects."""
    app = await make_app()
    app.link.max_browsers = 1
    other = paired_with(app)
    await other.connect()
    await until(lambda: app.link.connected, what="the other browser")
    window = open_pairing_code(app.facade)
    await until(window.isVisible, what="the code window")
    mine = await type_code(app, window.code_label.text())
    assert mine.refused is not None and mine.refused["code"] == "busy"
    await until(lambda: window.heading.text() == "Paired: waiting for its turn", what="the waiting look")
    assert window.isVisible() and window.outcome == "paired"
    assert window.code_label.isHidden() and window.deny_button.text() == "Close"
    assert window.instructions.text() == "Chromium on Linux is paired with Tabpilot."
    assert "This browser connects by itself once one is gone" in window.busy_label.text()

    await other.close()
    await until(lambda: "connects within a few seconds" in window.busy_label.text(), what="the other to go")
    given = mine.refused["pairing"]
    back = FakeExtension(port(app), auth="paired", secret=given["token"], pair_id=given["pair_id"])
    back.instance_id = mine.instance_id
    await back.connect(browser=BROWSER)
    assert back.welcome is not None, back.refused
    await until(lambda: not shiboken6.isValid(window) or not window.isVisible(), what="the window to close")
    await back.close()
