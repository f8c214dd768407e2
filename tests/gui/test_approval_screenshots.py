"""Screenshots of the approval prompt (with the picture of the target), the workflow prompt, the rules
window and the pairing windows, taken on a real X server (Xvfb) from the real app with its managed
Chromium. Kept under artifacts/screenshots/ for people to look at; the test checks each is on screen,
not blank, and that the element's outline is where the prompt says it is."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QRect
from PySide6.QtGui import QColor, QImage
from tests.gui.xserver import SCREENSHOTS, START_TIMEOUT_S, XServer, distinct_colours, screen_app, x_server

from tabpilot.ui.approval_dialog import OUTLINE_COLOUR

SCREENS_APP = Path(__file__).with_name("approval_screens_app.py")
EXPECTED = (
    "WARNING tabpilot.app: A browser wants to connect",
    "WARNING tabpilot.bridge: refused an extension connection: ",
)
"""What the app logs, as it should, when the unpaired browser of the pairing screenshot knocks."""
WINDOWS = ("approval-click", "approval-workflow", "approval-rules", "pairing-request", "paired-browsers")


def _is_outline(image: QImage, x: int, y: int) -> bool:
    colour = QColor(image.pixel(x, y))
    return all(abs(a - b) <= 32 for a, b in zip(colour.getRgb()[:3], OUTLINE_COLOUR.getRgb()[:3], strict=True))


def _drawn(image: QImage, window: QRect, shown: dict[str, Any]) -> bool:
    """The window is painted (text, frames), and for the click prompt the outline is around the element."""
    if not image.rect().contains(window) or distinct_colours(image, window) <= 20:
        return False
    if "outline" not in shown:
        return True
    x, y, w, h = shown["outline"]
    sides = [(x - 2, y + h // 2), (x + w + 1, y + h // 2), (x + w // 2, y - 2), (x + w // 2, y + h + 1)]
    return (
        all(_is_outline(image, px, py) for px, py in sides) and distinct_colours(image, QRect(*shown["picture"])) > 20
    )


def test_approval_and_pairing_windows_on_a_real_x_server(home: Path, secret_service: None) -> None:
    with x_server() as x:
        _screenshots(x, home)


def _screenshots(x: XServer, home: Path) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    seen: dict[str, dict[str, Any]] = {}
    with screen_app(SCREENS_APP, x, home, exit_timeout=30, expected=EXPECTED) as app:
        for name in WINDOWS:
            shown = app.read("SHOWN", what=f"the {name} window", timeout=START_TIMEOUT_S * 2)
            assert shown["name"] == name
            window = QRect(*shown["geometry"])
            screen = SCREENSHOTS / f"{name}-screen.png"
            image = x.grab_until(screen, lambda shot, w=window, s=shown: _drawn(shot, w, s), f"the {name} window drawn")
            image.copy(window.adjusted(-12, -12, 12, 12).intersected(image.rect())).save(
                str(SCREENSHOTS / f"{name}.png")
            )
            if name != "approval-click":
                screen.unlink()
            seen[name] = shown
            app.send("next")
        app.read("DONE", what="the app to finish")
    assert set(seen) == set(WINDOWS)
    code_shown = seen["pairing-request"]["code"]
    assert len(code_shown) == 9 and code_shown[4] == "-", code_shown
    for name in WINDOWS:
        picture = QImage(str(SCREENSHOTS / f"{name}.png"))
        assert not picture.isNull(), name
        assert picture.width() > 300 and picture.height() > 150, (name, picture.size())


pytestmark = [pytest.mark.e2e]
