"""The tray: the AI Web Pilot toggle, the icon's look, the browser line. Real App, real bridge, real tray."""

from __future__ import annotations

import asyncio
import gc
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtGui import QImage
from tests.conftest import AppFactory
from tests.gui.conftest import ErrorLog, ExtensionFactory, TrayFactory, click_menu_item, find_action
from tests.support.waiting import until
from tests.unit.fakes import page_info as page_answer

from tabpilot.ui.icons import tray_icon
from tabpilot.ui.main import open_managed_at_start
from tabpilot.ui.tray import TrayController
from tabpilot.vault import keyring_store


def icon_image(tray: TrayController) -> QImage:
    return tray.tray.icon().pixmap(32, 32).toImage()


async def test_pilot_is_off_on_a_fresh_home(make_app: AppFactory, make_tray: TrayFactory, home: Path) -> None:
    app = await make_app()
    tray = make_tray(app)
    action = find_action(tray.menu, "AI Web Pilot")
    assert action is tray.pilot_action
    assert action.isCheckable()
    assert action.isEnabled()
    assert not action.isChecked()
    assert app.engine.pilot.ai_web_pilot is False
    assert "AI Web Pilot off" in tray.tray.toolTip()
    assert tray.menu.toolTipsVisible(), "the pilot item's explanation must show on hover"
    assert "Only you can turn it on" in action.toolTip()


async def test_pilot_toggle_pushes_state_and_survives_a_restart(
    make_app: AppFactory,
    make_tray: TrayFactory,
    connect_extension: ExtensionFactory,
    home: Path,
) -> None:
    app = await make_app()
    tray = make_tray(app)
    fake = await connect_extension(app)
    assert fake.welcome is not None
    assert fake.welcome["state"]["ai_web_pilot"] is False
    action = find_action(tray.menu, "AI Web Pilot")

    def last_state() -> Any:
        return fake.states[-1]["ai_web_pilot"] if fake.states else None

    await click_menu_item(tray.menu, action)
    assert action.isChecked()
    assert app.engine.pilot.ai_web_pilot is True
    await until(lambda: last_state() is True, what="a state frame with the pilot ON")
    assert "AI Web Pilot ON" in tray.tray.toolTip()

    await click_menu_item(tray.menu, action)
    assert not action.isChecked()
    assert app.engine.pilot.ai_web_pilot is False
    await until(lambda: last_state() is False, what="a state frame with the pilot off")
    assert [s["ai_web_pilot"] for s in fake.states] == [True, False]

    await click_menu_item(tray.menu, action)
    await until(lambda: last_state() is True, what="a state frame with the pilot ON again")
    keyring_store.flush_writes()  # the tray saves in the background
    assert keyring_store.remembered_pilot(app.paths.keyring_account) is True

    # Quit and start again on the same home: the human's choice is remembered.
    tray.close()
    await app.stop()
    await until(lambda: fake.closed, what="the bridge to close the extension's socket")
    again = await make_app()
    assert again.engine.pilot.ai_web_pilot is True
    tray2 = make_tray(again)
    assert find_action(tray2.menu, "AI Web Pilot").isChecked()
    fake2 = await connect_extension(again)
    assert fake2.welcome is not None
    assert fake2.welcome["state"]["ai_web_pilot"] is True
    await until(lambda: tray2.look == "pilot", what="the pilot look after the restart")

    # ...and so is turning it off.
    await click_menu_item(tray2.menu, find_action(tray2.menu, "AI Web Pilot"))
    await until(lambda: bool(fake2.states) and fake2.states[-1]["ai_web_pilot"] is False, what="pilot off")
    tray2.close()
    await again.stop()
    third = await make_app()
    assert third.engine.pilot.ai_web_pilot is False
    assert not make_tray(third).pilot_action.isChecked()


async def test_look_and_browser_line_follow_the_extension(
    make_app: AppFactory, make_tray: TrayFactory, connect_extension: ExtensionFactory
) -> None:
    app = await make_app()
    tray = make_tray(app)
    link_line = find_action(tray.menu, "Browser:")
    assert tray.look == "disconnected"
    assert link_line.text() == "Browser: not connected"
    assert tray.tray.icon().cacheKey() == tray_icon("disconnected").cacheKey()
    disconnected_image = icon_image(tray)
    assert not disconnected_image.isNull()

    fake = await connect_extension(app)
    await until(lambda: tray.look == "connected", what="the connected look")
    assert tray.tray.icon().cacheKey() == tray_icon("connected").cacheKey()
    connected_image = icon_image(tray)
    assert connected_image != disconnected_image
    assert link_line.text() == "Browser: connected — FakeChrome 1.0"
    assert "connected — FakeChrome 1.0" in tray.tray.toolTip()

    tray.pilot_action.trigger()
    await until(lambda: tray.look == "pilot", what="the pilot look")
    assert tray.tray.icon().cacheKey() == tray_icon("pilot").cacheKey()
    pilot_image = icon_image(tray)
    assert pilot_image not in (connected_image, disconnected_image)

    await fake.close()
    await until(lambda: tray.look == "disconnected", what="the disconnected look")
    assert tray.tray.icon().cacheKey() == tray_icon("disconnected").cacheKey()
    assert icon_image(tray) == disconnected_image
    assert link_line.text() == "Browser: not connected"
    assert tray.pilot_action.isChecked(), "losing the browser must not change the human's pilot choice"


async def test_busy_look_while_a_command_runs(
    make_app: AppFactory, make_tray: TrayFactory, connect_extension: ExtensionFactory
) -> None:
    app = await make_app(pilot=True)
    tray = make_tray(app)
    release = asyncio.Event()
    page = page_answer(url="http://127.0.0.1/", title="Fixture")

    async def page_info(params: dict[str, Any]) -> dict[str, Any]:
        await release.wait()
        return page

    await connect_extension(app, page_info=page_info)
    await until(lambda: tray.look == "pilot", what="the pilot look")
    idle_image = icon_image(tray)

    call = asyncio.get_running_loop().create_task(app.engine.call("observe", {"what": "page"}))
    await until(lambda: tray.look == "busy", what="the busy look")
    assert tray.tray.icon().cacheKey() == tray_icon("busy").cacheKey()
    assert icon_image(tray) != idle_image
    # Busy for as long as the command runs, not only for the short hold after it starts.
    await until(lambda: not tray._busy_until_idle.isActive(), what="the busy hold to pass")
    assert not call.done()
    assert tray.compute_look() == "busy"
    assert tray.look == "busy"

    release.set()
    result = await asyncio.wait_for(call, 5)
    assert result["title"] == "Fixture"
    await until(lambda: tray.look == "pilot", timeout=3, what="the look to return to normal")
    assert icon_image(tray) == idle_image


async def test_open_managed_browser_failure_is_shown_and_the_item_comes_back(
    make_app: AppFactory,
    make_tray: TrayFactory,
    error_log: ErrorLog,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    monkeypatch.setenv("TABPILOT_BROWSER", str(tmp_path / "no-such-browser"))
    error_log.allow(r"^the managed browser could not start")
    app = await make_app()
    tray = make_tray(app)
    shown: list[tuple[str, str]] = []
    monkeypatch.setattr(tray.tray, "showMessage", lambda title, text, *rest: shown.append((title, text)))
    item = find_action(tray.menu, "Open managed browser")
    assert item.isEnabled()

    await click_menu_item(tray.menu, item)
    assert not item.isEnabled(), "a second click while the browser launches must not be possible"
    await until(lambda: bool(shown), timeout=20, what="the failure message")
    assert "could not start" in shown[0][1]
    assert "no-such-browser" in shown[0][1]
    assert item.isEnabled(), "after a failed launch the user can try again"
    assert tray.look == "disconnected"


async def test_a_browser_that_fails_to_open_at_start_is_shown(
    make_app: AppFactory,
    make_tray: TrayFactory,
    error_log: ErrorLog,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    """The setting "Open it when Tabpilot starts" with a browser that is not there: the person is told."""
    monkeypatch.setenv("TABPILOT_BROWSER", str(tmp_path / "no-such-browser"))
    error_log.allow(r"^the managed browser could not start")
    app = await make_app()
    app.settings.open_managed_at_start = True
    app.settings.managed_headless = True
    tray = make_tray(app)
    shown: list[tuple[str, str]] = []
    monkeypatch.setattr(tray.tray, "showMessage", lambda title, text, *rest: shown.append((title, text)))

    assert open_managed_at_start(app.facade, tray) is not None
    gc.collect()  # the launch is held by the tray, not only weakly by the loop
    await until(lambda: bool(shown), timeout=20, what="the failure message")
    assert shown[0][0] == "Tabpilot"
    assert "could not start" in shown[0][1]
    assert "no-such-browser" in shown[0][1]
    assert app.managed is not None
    assert app.managed.headless, "launched as the settings say"
    item = find_action(tray.menu, "Open managed browser")
    assert item.isEnabled(), "after a failed launch the user can try from the menu"


async def test_an_unexpected_error_opening_the_browser_at_start_is_logged_and_shown(
    make_app: AppFactory, make_tray: TrayFactory, error_log: ErrorLog, monkeypatch: pytest.MonkeyPatch
) -> None:
    error_log.allow(r"^the managed browser could not start$")
    app = await make_app()
    app.settings.open_managed_at_start = True
    tray = make_tray(app)
    shown: list[tuple[str, str]] = []
    monkeypatch.setattr(tray.tray, "showMessage", lambda title, text, *rest: shown.append((title, text)))
    asked: list[bool | None] = []

    async def launch_that_raises(headless: bool | None = None) -> None:
        asked.append(headless)
        await asyncio.sleep(0)
        raise RuntimeError("the profile folder is locked")

    monkeypatch.setattr(app, "open_managed_browser", launch_that_raises)
    task = open_managed_at_start(app.facade, tray)
    assert task is not None
    await asyncio.wait_for(task, 5)
    assert asked == [False]
    assert shown == [("Tabpilot", "The managed browser could not start: the profile folder is locked")]
    assert [r.getMessage() for r in error_log.records] == ["the managed browser could not start"]
    assert error_log.records[0].exc_info is not None, "logged with its traceback"

    # Turned off in the settings: nothing is launched.
    app.settings.open_managed_at_start = False
    assert open_managed_at_start(app.facade, tray) is None
    assert asked == [False]
