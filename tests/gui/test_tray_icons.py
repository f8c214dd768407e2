"""The tray icon's looks: each its own shape (not only its colour), a prompt waiting for the person looks
different from busy, and the checked-in PNGs are what scripts/make_icons.py draws."""

from __future__ import annotations

import asyncio
import importlib.util
import itertools
from pathlib import Path
from types import ModuleType
from typing import Any, get_args

from PySide6.QtGui import QImage
from PySide6.QtWidgets import QApplication
from tests.conftest import AppFactory
from tests.gui.approvals import next_dialog
from tests.gui.conftest import ExtensionFactory, TrayFactory
from tests.support.waiting import until

from tabpilot.resources import icons_dir
from tabpilot.ui.approval_dialog import ApprovalDialogs
from tabpilot.ui.icons import TrayLook, tray_icon

LOOKS: tuple[str, ...] = get_args(TrayLook)
MAKE_ICONS = Path(__file__).resolve().parents[2] / "scripts" / "make_icons.py"


def make_icons() -> ModuleType:
    spec = importlib.util.spec_from_file_location("make_icons", MAKE_ICONS)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def shape(image: QImage) -> set[tuple[int, int, str]]:
    """The icon without its colour: where it is drawn at all, and where it is drawn white (the plane, the
    badges' marks)."""
    image = image.convertToFormat(QImage.Format.Format_ARGB32)
    out: set[tuple[int, int, str]] = set()
    for y in range(image.height()):
        for x in range(image.width()):
            pixel = image.pixelColor(x, y)
            if pixel.alpha() > 160:
                out.add((x, y, "ink"))
                if min(pixel.red(), pixel.green(), pixel.blue()) > 225:
                    out.add((x, y, "white"))
    return out


def test_each_look_has_its_own_shape(qapp: QApplication) -> None:
    assert set(LOOKS) == {"disconnected", "connected", "pilot", "busy", "waiting"}
    for size in (32, 64):
        shapes = {look: shape(QImage(str(icons_dir() / f"tray-{look}-{size}.png"))) for look in LOOKS}
        for a, b in itertools.combinations(LOOKS, 2):
            differ = len(shapes[a] ^ shapes[b])
            assert differ >= size // 2, f"{a} and {b} differ in {differ} pixels of shape at {size} px: only by colour"


def test_the_checked_in_icons_are_what_make_icons_draws(qapp: QApplication) -> None:
    script = make_icons()
    for look in LOOKS:
        for size in script.TRAY_SIZES:
            drawn = script.draw(size, look).convertToFormat(QImage.Format.Format_ARGB32)
            kept = QImage(str(icons_dir() / f"tray-{look}-{size}.png")).convertToFormat(QImage.Format.Format_ARGB32)
            assert drawn == kept, f"tray-{look}-{size}.png is stale: run scripts/make_icons.py"


async def test_a_prompt_waiting_for_the_person_has_its_own_look(
    make_app: AppFactory, make_tray: TrayFactory, connect_extension: ExtensionFactory, qapp: QApplication
) -> None:
    dialogs = ApprovalDialogs(arm_delay_ms=0)
    app = await make_app(approvals=dialogs, pilot=True)
    dialogs.attach(app.facade)
    tray = make_tray(app)

    def tab(params: dict[str, Any]) -> dict[str, Any]:
        return {"tab_id": 7, "url": "https://shop.example/", "title": "Shop"}

    await connect_extension(app, tabs_resolve=tab, js_execute=lambda params: {"success": True, "result": 1})
    await until(lambda: tray.look == "pilot", what="the pilot look")

    call = asyncio.get_running_loop().create_task(
        app.engine.call("interact", {"action": "execute_js", "script": "return 1"}, agent="agent")
    )
    dialog = await next_dialog(dialogs)
    await until(lambda: tray.look == "waiting", what="the waiting look")
    assert tray.tray.icon().cacheKey() == tray_icon("waiting").cacheKey()
    assert tray.compute_look() == "waiting", "not busy: the command waits for the person, not for the browser"
    assert "1 prompt waits for your answer" in tray.tray.toolTip()
    dialog.reject()
    await asyncio.gather(call, return_exceptions=True)
    await until(lambda: tray.look == "pilot", timeout=3, what="the look to return to normal")
    assert "prompt" not in tray.tray.toolTip()
