"""Screenshots of approval prompts and a delete confirmation whose agent, workflow, selector and values are
markup and long runs without spaces (issue 18, item 5), on a real X server with a window manager (Xvfb,
openbox). Kept under artifacts/screenshots/hostile-*.png for people to look at; the test checks each window is
drawn, fits on the screen (a long name wraps or is cut, it does not widen the window past the screen), and
that the prompt's headline is plain text that still says what the agent wants to do."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QRect
from PySide6.QtGui import QImage
from tests.gui.window_manager import window_manager
from tests.gui.xserver import SCREEN, SCREENSHOTS, START_TIMEOUT_S, distinct_colours, screen_app, x_server

SCREENS_APP = Path(__file__).with_name("hostile_screens_app.py")
HEADLINES = {
    "hostile-click": "wants to click an element",
    "hostile-workflow": "(2 page-changing steps)",
}
WINDOWS = ("hostile-click", "hostile-workflow", "hostile-delete")


def test_hostile_names_are_drawn_as_text_and_fit_on_the_screen(home: Path, secret_service: None) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    scratch = home.parent / "scratch.png"
    screen = QRect(0, 0, *SCREEN)
    with x_server() as x, window_manager(x), screen_app(SCREENS_APP, x, home) as app:
        for name in WINDOWS:
            shown = app.read("SHOWN", what=f"the {name} window", timeout=START_TIMEOUT_S * 2)
            assert shown["name"] == name
            app.send("where")  # once the window manager has placed and framed it
            shown = app.read("SHOWN", what=f"where the {name} window is")
            window = QRect(*shown["geometry"])
            client = x.window_rect(shown["winid"])  # the X server's word for where its contents are
            assert client is not None, f"{name} is not mapped"
            if window.width() < client.width() or window.height() < client.height():
                window = client  # Qt's idea of its frame lags (seen under load)
            image = x.grab_until(
                scratch,
                lambda im, w=window: distinct_colours(im, w.intersected(im.rect())) > 20,
                f"{name} drawn at {window.getRect()}",
            )
            assert image is not None
            image.copy(window.adjusted(-10, -10, 10, 10).intersected(image.rect())).save(
                str(SCREENSHOTS / f"{name}.png")
            )
            for area in (window, client):
                assert screen.contains(area), f"{name} at {area.getRect()} does not fit the {SCREEN} screen"
            if name in HEADLINES:
                headline = shown["headline"]
                assert headline["plain"], f"{name}: the headline is not plain text"
                text = headline["text"].replace("\u200b", "")
                assert "Claude<br>wants to take a screenshot.<span style='font-size:1px'>" in text, text
                assert text.endswith(HEADLINES[name]), text
            app.send("next")
        app.read("DONE", what="the app to finish")
        app.send("done")
    scratch.unlink(missing_ok=True)
    for name in WINDOWS:
        picture = QImage(str(SCREENSHOTS / f"{name}.png"))
        assert not picture.isNull() and picture.width() > 150, name


pytestmark = [pytest.mark.e2e]
