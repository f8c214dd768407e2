"""The tray's Capture submenu: what capture holds per tab, the toggles' state, and emptying it."""

from __future__ import annotations

from tests.conftest import AppFactory
from tests.gui.conftest import TrayFactory

from tabpilot.ui.capture_menu import describe_tab


def texts(menu: object) -> list[str]:
    return [a.text() for a in menu.actions() if not a.isSeparator()]  # type: ignore[attr-defined]


async def test_the_menu_shows_each_tab_and_empties_the_buffers(make_app: AppFactory, make_tray: TrayFactory) -> None:
    app = await make_app()
    tray = make_tray(app)
    menu = tray.capture_menu
    assert menu in [a.menu() for a in tray.menu.actions()]
    assert texts(menu)[1:] == ["Nothing captured yet", "Clear captured data"]
    assert texts(menu)[0].startswith("WebSockets on · network bodies off")

    app.capture.ingest(
        {
            "tab_id": 7,
            "url": "https://shop.test/cart",
            "items": [{"kind": "log", "text": "a"}, {"kind": "log", "text": "b"}, {"kind": "error", "message": "x"}],
        }
    )
    app.engine.pilot.set_capability("capture_network_bodies", True)
    menu.rebuild()
    assert texts(menu)[0].startswith("WebSockets on · network bodies on")
    assert texts(menu)[1] == "Tab 7 · shop.test/cart: 2 logs, 1 errors"
    clear = next(a for a in menu.actions() if a.text() == "Clear captured data")
    assert clear.isEnabled()
    clear.trigger()
    assert app.capture_status()["tabs"][0]["buffered"]["logs"] == 0
    assert texts(menu)[1] == "Tab 7 · shop.test/cart: nothing"


def test_describe_tab_leaves_out_empty_kinds() -> None:
    tab = {"tab_id": 3, "url": "", "buffered": {"logs": 0, "network": 4, "websocket_events": 9}}
    assert describe_tab(tab) == "Tab 3 · (no page yet): 4 requests, 9 WebSocket events"
