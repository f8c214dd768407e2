"""What every window of the tray does alike: titles in one style ("Tabpilot — Activity"), Escape closes it,
and in Settings the label columns line up, times read in seconds and no placeholder is cut off."""

from __future__ import annotations

import re

import shiboken6
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QFormLayout, QLineEdit, QWidget
from tests.conftest import AppFactory
from tests.gui.conftest import TrayFactory, click_menu_item, find_action
from tests.gui.ui_support import jobs_workflow, menu_item, save_workflow, ui_settled, window_of
from tests.support.waiting import until

from tabpilot.ui.pairing import PairedBrowsersWindow, PairingRequestWindow
from tabpilot.ui.rules_window import RulesWindow
from tabpilot.ui.settings_dialog import SettingsDialog
from tabpilot.ui.workflows_menu import ParamsDialog, RunViewer

TITLE = re.compile(r"^Tabpilot — [A-Z0-9]")


def visible(kind: type[QWidget]) -> QWidget | None:
    return next((w for w in QApplication.topLevelWidgets() if isinstance(w, kind) and w.isVisible()), None)


async def escape_closes(window: QWidget, what: str) -> None:
    window.activateWindow()
    QTest.keyClick(window, Qt.Key.Key_Escape)
    await until(lambda: not shiboken6.isValid(window) or not window.isVisible(), what=f"Escape to close {what}")


async def test_every_window_has_a_title_in_one_style_and_escape_closes_it(
    make_app: AppFactory, make_tray: TrayFactory
) -> None:
    app = await make_app()
    tray = make_tray(app)
    save_workflow(app, jobs_workflow())
    await until(lambda: tray.workflows.workflow_menu("Jobs") is not None, timeout=2, what="Jobs in the menu")
    titles: dict[str, str] = {}

    for label in ("Activity…", "Secrets…", "Settings…"):
        await click_menu_item(tray.menu, find_action(tray.menu, label))
        window = tray.windows[{"Activity…": "activity", "Secrets…": "secrets", "Settings…": "settings"}[label]]
        await until(window.isVisible, what=f"the {label} window")
        titles[label] = window.windowTitle()
        await escape_closes(window, label)

    for label, kind in (
        ("Approval rules…", RulesWindow),
        ("Paired browsers…", PairedBrowsersWindow),
        ("Pair your own browser…", PairingRequestWindow),
    ):
        await click_menu_item(tray.menu, find_action(tray.menu, label))
        window = await until(lambda kind=kind: visible(kind), what=f"the window of {label}")
        titles[label] = window.windowTitle()
        await escape_closes(window, label)

    jobs = tray.workflows.workflow_menu("Jobs")
    assert jobs is not None
    await click_menu_item(jobs, menu_item(jobs, "Run with parameters…"))
    form = await window_of(ParamsDialog, "the parameters form")
    titles["Run with parameters…"] = form.windowTitle()
    await escape_closes(form, "the parameters form")

    app.workflows.add_run(
        "wf-jobs",
        {
            "correlation_id": "corr-1",
            "status": "complete",
            "started_at": "2026-01-01T10:00:00+00:00",
            "finished_at": "2026-01-01T10:00:05+00:00",
            "steps_completed": 2,
            "steps_total": 2,
            "data": [{"title": "Ops"}],
        },
    )
    viewer = tray.workflows.open_run("wf-jobs", "corr-1")
    assert isinstance(viewer, RunViewer)
    await until(viewer.isVisible, what="the run viewer")
    titles["run viewer"] = viewer.windowTitle()
    await escape_closes(viewer, "the run viewer")

    assert {k: t for k, t in titles.items() if not TITLE.match(t)} == {}, titles
    assert titles["Activity…"] == "Tabpilot — Activity"
    assert titles["Approval rules…"] == "Tabpilot — Approval rules"
    assert titles["Run with parameters…"] == "Tabpilot — Run Jobs"
    assert titles["run viewer"].startswith("Tabpilot — Jobs, run of ")
    await ui_settled()


async def test_settings_line_up_speak_seconds_and_show_whole_placeholders(
    make_app: AppFactory, make_tray: TrayFactory
) -> None:
    app = await make_app()
    tray = make_tray(app)
    dialog = tray.show_settings()
    assert isinstance(dialog, SettingsDialog)
    await until(dialog.isVisible, what="Settings")

    # The fields of the three boxes start at the same x, whatever their labels' lengths.
    dialog.layout().activate()
    starts = set()
    for form in dialog.findChildren(QFormLayout):
        for row in range(form.rowCount()):
            item = form.itemAt(row, QFormLayout.ItemRole.FieldRole)
            assert item is not None
            starts.add(form.parentWidget().mapTo(dialog, item.geometry().topLeft()).x())
    field_x = {x for x in starts if x > 60}  # (a row without a label spans the box)
    assert len(field_x) == 1, f"the field columns start at {sorted(field_x)}"

    assert dialog.step_delay.suffix() == " s" and dialog.approval_wait.suffix() == " s"
    assert "ms" not in dialog.step_delay.text() + dialog.approval_wait.text()

    # Every placeholder fits in its field (in Settings and in Secrets).
    secrets = tray.show_secrets()
    await until(secrets.isVisible, what="Secrets")
    for window in (dialog, secrets):
        for edit in window.findChildren(QLineEdit):
            hint = edit.placeholderText()
            if hint and edit.isVisible():
                room = edit.width() - 12
                needed = edit.fontMetrics().horizontalAdvance(hint)
                assert needed <= room, f"{hint!r} needs {needed} px, {edit.objectName() or 'its field'} has {room}"
    secrets.close()
    dialog.close()
    await ui_settled()


async def test_a_stored_time_the_person_did_not_touch_is_saved_as_it_was(
    make_app: AppFactory, make_tray: TrayFactory
) -> None:
    app = await make_app()
    app.settings.step_delay_ms = 125  # not a tenth of a second: shown as 0.13 s
    tray = make_tray(app)
    dialog = tray.show_settings()
    assert isinstance(dialog, SettingsDialog)
    await until(dialog.isVisible, what="Settings")
    assert dialog.step_delay.text() == "0.13 s"
    assert dialog.form_settings().step_delay_ms == 125
    dialog.step_delay.setValue(0.2)
    assert dialog.form_settings().step_delay_ms == 200
    dialog.close()
    await ui_settled()
