"""The tray menu's layout, the capability toggles, the windows it opens, and workflow notifications."""

from __future__ import annotations

from pathlib import Path

import pytest
import shiboken6
from PySide6.QtWidgets import QApplication, QMenu, QWidget
from tests.conftest import AppFactory
from tests.gui.conftest import ExtensionFactory, TrayFactory, click_menu_item, find_action
from tests.gui.ui_support import ORIGIN, JobsSite, Notifications, jobs_workflow, menu_item, save_workflow, ui_settled
from tests.support.waiting import until

from tabpilot.engine.errors import TabpilotError
from tabpilot.engine.safety.capabilities import CAPABILITIES, defaults
from tabpilot.ui.activity_window import ActivityWindow
from tabpilot.ui.pairing import PairedBrowsersWindow, PairingRequestWindow
from tabpilot.ui.rules_window import RulesWindow
from tabpilot.ui.secrets_window import SecretsWindow
from tabpilot.ui.settings_dialog import SettingsDialog
from tabpilot.ui.tray import TrayController

MENU = [
    "Tabpilot — port",
    "Browser:",
    "Nothing running",
    "AI Web Pilot",
    "Capabilities",
    "Capture",  # what capture holds per tab (the capture issue's submenu)
    "Hand a tab to an agent",  # the person gives a tab to an agent (issue 10, item 7)
    "Workflows",
    "Activity…",
    "Secrets…",
    "Paired browsers…",
    "Pair your own browser…",
    "Approval rules…",
    "Settings…",
    "Open managed browser",
    "Quit Tabpilot",
]


def submenu(tray: TrayController, title: str) -> QMenu:
    menu = find_action(tray.menu, title).menu()
    assert isinstance(menu, QMenu), f"{title} is not a submenu"
    return menu


async def test_the_menu_in_order(make_app: AppFactory, make_tray: TrayFactory) -> None:
    app = await make_app()
    tray = make_tray(app)
    items = [a.text() for a in tray.menu.actions() if not a.isSeparator()]
    assert len(items) == len(MENU), items
    for item, expected in zip(items, MENU, strict=True):
        assert item.startswith(expected), items
    assert items[0] == f"Tabpilot — port {app.bridge.port if app.bridge else 0}"
    for status in items[:3]:
        assert not find_action(tray.menu, status).isEnabled(), "status lines are not clickable"
    labels = [a.text() for a in submenu(tray, "Capabilities").actions()]
    assert labels == [c.label for c in CAPABILITIES]


async def test_capability_toggles_change_the_engine_and_survive_a_restart(
    make_app: AppFactory, make_tray: TrayFactory
) -> None:
    app = await make_app(pilot=True)
    tray = make_tray(app)
    capabilities = submenu(tray, "Capabilities")
    for capability in CAPABILITIES:
        action = find_action(capabilities, capability.label)
        assert action.isCheckable()
        assert action.isChecked() is capability.default, capability.label
    assert find_action(capabilities, "Capture WebSockets").isChecked()
    assert not find_action(capabilities, "Capture network bodies").isChecked()

    await click_menu_item(capabilities, find_action(capabilities, "Capture network bodies"))
    assert app.engine.pilot.capabilities["capture_network_bodies"] is True
    await click_menu_item(capabilities, find_action(capabilities, "Run JavaScript"))
    assert app.engine.pilot.capabilities["execute_js"] is False
    assert not find_action(capabilities, "Run JavaScript").isChecked()
    # The engine refuses what is switched off, even with the pilot on.
    with pytest.raises(TabpilotError) as refused:
        await app.engine.call("interact", {"action": "execute_js", "script": "1 + 1"})
    assert refused.value.code == "ai_web_pilot_disabled"
    assert refused.value.details["capability"] == "execute_js"

    # A change made elsewhere (the app's API) shows in the menu.
    app.set_capability("scrape", False)
    assert not find_action(capabilities, "Scrape and workflows").isChecked()

    tray.close()
    await app.stop()
    again = await make_app()
    expected = {**defaults(), "capture_network_bodies": True, "execute_js": False, "scrape": False}
    assert again.engine.pilot.capabilities == expected
    tray2 = make_tray(again)
    capabilities2 = submenu(tray2, "Capabilities")
    for capability in CAPABILITIES:
        assert find_action(capabilities2, capability.label).isChecked() is expected[capability.name], capability.label

    # Back on, and that is remembered too.
    await click_menu_item(capabilities2, find_action(capabilities2, "Run JavaScript"))
    tray2.close()
    await again.stop()
    third = await make_app()
    assert third.engine.pilot.capabilities["execute_js"] is True


async def test_menu_items_open_their_windows_once(make_app: AppFactory, make_tray: TrayFactory) -> None:
    app = await make_app()
    tray = make_tray(app)
    for label, key, kind in (
        ("Activity…", "activity", ActivityWindow),
        ("Secrets…", "secrets", SecretsWindow),
        ("Settings…", "settings", SettingsDialog),
    ):
        await click_menu_item(tray.menu, find_action(tray.menu, label))
        window = tray.windows[key]
        assert isinstance(window, kind)
        await until(window.isVisible, what=f"the {label} window")
        window.close()
        await click_menu_item(tray.menu, find_action(tray.menu, label))
        assert tray.windows[key] is window, f"{label} opens the same window again"
        await until(window.isVisible, what=f"the {label} window again")
    await ui_settled()


async def test_the_other_windows_open_from_the_menu(make_app: AppFactory, make_tray: TrayFactory) -> None:
    """Approval rules, paired browsers and pairing come from the approval/pairing UI; the menu opens them."""
    app = await make_app()
    tray = make_tray(app)
    opened: list[QWidget] = []
    for label, kind in (
        ("Approval rules…", RulesWindow),
        ("Paired browsers…", PairedBrowsersWindow),
        ("Pair your own browser…", PairingRequestWindow),
    ):
        await click_menu_item(tray.menu, find_action(tray.menu, label))
        window = await until(
            lambda kind=kind: next(
                (w for w in QApplication.topLevelWidgets() if isinstance(w, kind) and w.isVisible()), None
            ),
            what=f"the window of {label}",
        )
        opened.append(window)
    assert app.pairings.pending(), "Pair your own browser… offers a code"
    for window in opened:
        window.close()
    await until(lambda: not any(shiboken6.isValid(w) and w.isVisible() for w in opened), what="the windows to close")


async def test_a_finished_and_a_failed_workflow_are_notified(
    make_app: AppFactory,
    make_tray: TrayFactory,
    connect_extension: ExtensionFactory,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    app = await make_app()
    app.engine.config.step_delay_ms = 0
    tray = make_tray(app)
    notes = Notifications(tray, monkeypatch)
    site = JobsSite()
    await connect_extension(app, **site.handlers())
    save_workflow(app, jobs_workflow())
    await until(lambda: tray.workflows.workflow_menu("Jobs") is not None, timeout=2, what="the workflow in the menu")

    # Run from the menu: no value for {{city}} (no default) — the run fails and says why.
    jobs = tray.workflows.workflow_menu("Jobs")
    assert jobs is not None
    await click_menu_item(jobs, menu_item(jobs, "Run"))
    failed = await notes.wait_for("Workflow Jobs failed:")
    assert "city" in failed
    assert site.navigated == [], "a run missing a value does not start"

    # With the value, through the app as the menu does: finished, with its rows.
    await app.run_workflow("wf-jobs", {"city": "Berlin"})
    assert await notes.wait_for("Workflow Jobs finished:") == "Workflow Jobs finished: 2 rows"
    assert site.navigated == [f"{ORIGIN}/search?q=python&in=Berlin"]
    assert tray.last_run is not None and tray.last_run[0] == "wf-jobs"

    # The tab closes under it: failed, with the reason.
    site.fail_navigation = "The tab was closed."
    with pytest.raises(TabpilotError):
        await app.run_workflow("wf-jobs", {"city": "Lyon"})
    # Steps are numbered from 1, as the prompts number them (the engine's message counts from 0, as agents do).
    failure = await notes.wait_for("Workflow Jobs failed: Step")
    assert failure == "Workflow Jobs failed: Step 1 (navigate) failed: The tab was closed."

    # Any other command is not a workflow: no notification for it.
    before = len(notes.shown)
    await app.engine.call("observe", {"what": "page"})
    assert len(notes.shown) == before
    # Clicking the last notification opens that run.
    tray.tray.messageClicked.emit()
    viewer = await until(lambda: next(iter(tray.workflows.viewers.values()), None), what="the run viewer")
    assert viewer.isVisible()
    said = viewer.status_label.text()
    assert said.startswith("Failed: tab_closed — Step 1 (navigate) failed: The tab was closed. Steps 0/2"), said
    await ui_settled()


async def test_nothing_is_left_behind_after_close(make_app: AppFactory, make_tray: TrayFactory, home: Path) -> None:
    app = await make_app()
    tray = make_tray(app)
    activity = tray.show_activity()
    assert isinstance(activity, ActivityWindow)
    listeners = len(app.workflows.changed)
    tray.close()
    assert not shiboken6.isValid(activity), "the windows go with the tray"
    assert len(app.workflows.changed) == listeners - 1
    await app.engine.call("observe", {"what": "pilot"})  # no window hears it any more, and nothing breaks
