"""The tray's side of a hand-off (issue 10, item 8) and the dialog policy in Settings (item 4): an agent's
hand-off shows a notification saying why and a Resume item; clicking it ends the agent's wait with a
fresh look at the page. The settings' dialog policy reaches the extension with the app's state."""

from __future__ import annotations

from typing import Any

import pytest
from tests.conftest import AppFactory
from tests.gui.conftest import ExtensionFactory, TrayFactory, click_menu_item, find_action
from tests.gui.ui_support import Notifications, click, ui_settled
from tests.support.waiting import until
from tests.unit.fakes import page_info

from tabpilot.ui.settings_dialog import SettingsDialog

LOGIN = {"url": "https://shop.test/login", "title": "Sign in"}


async def test_a_handoff_notifies_shows_resume_and_the_tray_resumes_it(
    make_app: AppFactory, make_tray: TrayFactory, connect_extension: ExtensionFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = await make_app(pilot=True)
    tray = make_tray(app)
    notifications = Notifications(tray, monkeypatch)
    ended: list[dict[str, Any]] = []

    def end(params: dict[str, Any]) -> dict[str, Any]:
        ended.append(params)
        return {"ended": True}

    fake = await connect_extension(
        app,
        handoff_start=lambda p: {"tab_id": 7, **LOGIN, "focused": True},
        handoff_end=end,
        page_info=lambda p: page_info(**{**LOGIN, "title": "Account", "url": "https://shop.test/account"}),
    )
    assert fake.welcome is not None
    answer = await app.engine.call("interact", {"action": "handoff", "reason": "Log in to the shop"})
    assert answer["status"] == "awaiting_user"
    cid = answer["correlation_id"]

    text = await notifications.wait_for("An agent needs you in the browser")
    assert "Log in to the shop" in text and "Resume" in text
    resume = find_action(tray.menu, "Resume — Log in to the shop")
    items = [a.text() for a in tray.menu.actions() if not a.isSeparator()]
    assert items.index(resume.text()) == 3, "right under the status lines"
    assert tray.look == "waiting"
    assert "an agent waits for you in the browser" in tray.tray.toolTip()

    await click_menu_item(tray.menu, resume)
    result = await until(lambda: _resumed(app, cid), timeout=5, what="the agent's command to end with the page")
    assert result["resumed_by"] == "tray" and result["page"]["title"] == "Account"
    assert ended == [{"correlation_id": cid}], "the extension drops the hand-off (popup, badge)"
    await until(lambda: not [a for a in tray.menu.actions() if a.text().startswith("Resume")], what="no Resume")
    assert tray.look != "waiting"


async def _resumed(app: Any, cid: str) -> dict[str, Any] | None:
    result = await app.engine.call("observe", {"what": "command_result", "correlation_id": cid})
    return result if result.get("status") == "resumed" else None


async def test_the_dialog_policy_is_set_in_settings_and_sent_to_the_extension(
    make_app: AppFactory, make_tray: TrayFactory, connect_extension: ExtensionFactory
) -> None:
    app = await make_app()
    tray = make_tray(app)
    fake = await connect_extension(app)
    assert fake.welcome is not None
    assert fake.welcome["state"]["dialogs"] == {"dismiss_after_ms": None}  # default: left for the agent
    dialog = tray.show_settings()
    assert isinstance(dialog, SettingsDialog)
    await until(dialog.isVisible)
    assert dialog.dialog_policy.currentText() == "Leave them for the agent"
    assert not dialog.dialog_after.isEnabled()

    dialog.dialog_policy.setCurrentIndex(dialog.dialog_policy.findData("dismiss"))
    assert dialog.dialog_after.isEnabled()
    dialog.dialog_after.setValue(15)
    click(dialog.save_button)
    assert dialog.status.text() == "Saved."
    assert (app.settings.dialog_policy, app.settings.dialog_dismiss_after_s) == ("dismiss", 15)
    await until(
        lambda: fake.states and fake.states[-1].get("dialogs") == {"dismiss_after_ms": 15_000},
        what="the new policy to reach the extension",
    )
    dialog.close()
    await ui_settled()
