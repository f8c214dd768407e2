"""A screenshot of the real tray menu: Xvfb, a real tray host (trayer), the tray app on xcb.

The picture is kept under artifacts/screenshots/ for people to look at. No tray host is a failure, not a
skip: the tray is the product's face and this is the one test that sees it on a real X server.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from PySide6.QtCore import QRect
from PySide6.QtGui import QImage
from tests.gui.xserver import (
    SCREEN,
    SCREENSHOTS,
    TRAY_HEIGHT,
    XServer,
    distinct_colours,
    screen_app,
    tray_host,
    x_server,
)

MENU_APP = Path(__file__).with_name("tray_menu_app.py")


def test_tray_menu_screenshot(home: Path, secret_service: None) -> None:
    """Xvfb and trayer are started inside the test, so a missing one fails the test (never an error/skip)."""
    with x_server() as x, tray_host(x) as host:
        _screenshot_tray_menu(x, host, home)


def _screenshot_tray_menu(x: XServer, host: subprocess.Popen[bytes], home: Path) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    before = SCREENSHOTS / "tray-icon.png"
    shot = SCREENSHOTS / "tray-menu.png"
    with screen_app(MENU_APP, x, home, name="the tray app") as app:
        icon, plain = app.tray_icon(x, host, before)
        # Right-click the icon where the tray host shows it, as a user opens the tray menu.
        x.right_click(icon.center())
        ready = app.read("READY", what="the tray menu")
        assert ready["tray_available"] is True
        assert ready["platform"] == "xcb"
        assert ready["tray_visible"] is True
        assert ready["look"] == "pilot"
        assert ready["pilot"] is True
        assert ready["checked"] == ["AI Web Pilot"]
        assert any(item.startswith("Browser: connected — FakeChrome 1.0") for item in ready["items"])
        x.grab(shot)

    # The icon alone, before the menu opened over the panel.
    panel = QRect(icon.left() - 40, 0, icon.width() + 80, TRAY_HEIGHT + 8).intersected(plain.rect())
    plain.copy(panel).save(str(SCREENSHOTS / "tray-icon-closeup.png"))
    before.unlink(missing_ok=True)  # another run sharing artifacts/ may have taken it

    image = QImage(str(shot))
    assert not image.isNull(), f"{shot} is not a readable PNG"
    assert (image.width(), image.height()) == SCREEN
    assert distinct_colours(image, image.rect()) > 50, f"{shot} is blank"

    menu = QRect(*ready["menu_geometry"])
    assert image.rect().contains(menu), f"the menu {ready['menu_geometry']} is not fully on screen"
    assert image.rect().contains(icon), f"the tray icon {icon} is not on screen"
    assert distinct_colours(image, menu) > 20, "the menu area has no text or frame in the screenshot"

    # A close-up of the tray and its menu, for people reviewing the look.
    area = menu.united(icon).adjusted(-24, -8, 24, 24).intersected(image.rect())
    image.copy(area).save(str(SCREENSHOTS / "tray-menu-closeup.png"))
