"""The tray's Capture submenu: what capture holds per tab, the toggles' state, and emptying it."""

from __future__ import annotations

from typing import Any

from tests.conftest import AppFactory
from tests.gui.conftest import ExtensionFactory, TrayFactory
from tests.gui.ui_support import ui_settled
from tests.support.waiting import until

from tabpilot.ui.capture_menu import describe_tab


def texts(menu: object) -> list[str]:
    return [a.text() for a in menu.actions() if not a.isSeparator()]  # type: ignore[attr-defined]


def cart_batch(tab_id: int = 7) -> dict[str, Any]:
    return {
        "tab_id": tab_id,
        "url": "https://shop.test/cart",
        "items": [{"kind": "log", "text": "a"}, {"kind": "log", "text": "b"}, {"kind": "error", "message": "x"}],
    }


async def test_the_menu_shows_each_tab_and_empties_the_buffers(make_app: AppFactory, make_tray: TrayFactory) -> None:
    app = await make_app()
    tray = make_tray(app)
    menu = tray.capture_menu
    assert menu in [a.menu() for a in tray.menu.actions()]
    assert texts(menu)[1:] == ["Nothing captured yet", "Clear captured data"]
    assert texts(menu)[0].startswith("WebSockets on · network bodies off")

    app.capture.ingest(cart_batch())
    app.engine.pilot.set_capability("capture_network_bodies", True)
    menu.rebuild()
    assert texts(menu)[0].startswith("WebSockets on · network bodies on")
    # No browser to ask for the tab's title: its address, and counts in words ("1 error", not "1 errors").
    assert texts(menu)[1] == "shop.test/cart: 2 logs, 1 error"
    clear = next(a for a in menu.actions() if a.text() == "Clear captured data")
    assert clear.isEnabled()
    clear.trigger()
    assert app.capture_status()["tabs"][0]["buffered"]["logs"] == 0
    assert texts(menu)[1] == "shop.test/cart: nothing"


async def test_tabs_are_named_by_their_titles_once_the_menu_opens(
    make_app: AppFactory, make_tray: TrayFactory, connect_extension: ExtensionFactory
) -> None:
    app = await make_app()
    tray = make_tray(app)
    asked: list[dict[str, Any]] = []

    def tabs_list(params: dict[str, Any]) -> dict[str, Any]:
        asked.append(params)
        return {
            "tabs": [
                {
                    "tab_id": 7,
                    "url": "https://shop.test/cart",
                    "title": "Your cart (3 items)  — Shop",
                    "active": True,
                    "tracked": False,
                },
                {"tab_id": 9, "url": "https://other.test/", "title": "Other", "active": False, "tracked": False},
            ]
        }

    await connect_extension(app, tabs_list=tabs_list)
    app.capture.ingest(cart_batch())
    menu = tray.capture_menu
    menu.aboutToShow.emit()  # as when the person opens it
    await until(lambda: texts(menu)[1].startswith("Your cart"), what="the tab's title in the menu")
    assert texts(menu)[1] == "Your cart (3 items) — Shop — shop.test: 2 logs, 1 error"
    assert not any("Tab 7" in text for text in texts(menu)), "no raw tab ids"
    assert len(asked) == 1
    # Opened again, the title is there at once.
    menu.rebuild()
    assert texts(menu)[1].startswith("Your cart (3 items)")
    await ui_settled()


def test_describe_tab_leaves_out_empty_kinds_and_counts_in_words() -> None:
    tab = {"tab_id": 3, "url": "", "buffered": {"logs": 0, "network": 4, "websocket_events": 9}}
    assert describe_tab(tab) == "(no page yet): 4 requests, 9 WebSocket events"
    one_each = {"tab_id": 3, "url": "http://a.test/x", "buffered": {k: 1 for k in ("logs", "errors", "network")}}
    assert describe_tab(one_each) == "a.test/x: 1 log, 1 error, 1 request"
    assert describe_tab({**one_each, "buffered": {"network_bodies": 1, "websocket_events": 1}}, "T") == (
        "T — a.test: 1 body, 1 WebSocket event"
    )
    long_title = "A very long title that goes on and on and on and on"
    assert describe_tab(one_each, long_title).startswith("A very long title that goes on and on a… — a.test:")
