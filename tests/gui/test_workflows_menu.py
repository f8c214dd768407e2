"""The Workflows submenu: live from the folder, Run with parameters, the run viewer (JSON, CSV), Export,
Import, Reveal, Delete. Real App, real watcher, a FakeExtension as the browser."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest
import shiboken6
from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QDesktopServices, QGuiApplication
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QDialogButtonBox, QFileDialog, QLabel, QMenu
from tests.conftest import AppFactory
from tests.gui.conftest import ExtensionFactory, TrayFactory, click_menu_item
from tests.gui.ui_support import (
    ORIGIN,
    JobsSite,
    Notifications,
    answer_box,
    click,
    jobs_workflow,
    menu_item,
    save_workflow,
    secret_name,
    secret_value,
    ui_settled,
    window_of,
)
from tests.support.waiting import until

from tabpilot.ui.tray import TrayController
from tabpilot.ui.workflows_menu import ParamsDialog, RunViewer


def item_texts(menu: QMenu) -> list[str]:
    return [a.text() for a in menu.actions() if not a.isSeparator()]


def jobs_menu(tray: TrayController, name: str = "Jobs") -> QMenu:
    menu = tray.workflows.workflow_menu(name)
    assert menu is not None, f"no {name} in {item_texts(tray.workflows.menu)}"
    return menu


async def choose_file(path: Path) -> None:
    """Answer the file dialog the last click opened with `path`."""
    dialog = await window_of(QFileDialog, "the file dialog")
    dialog.selectFile(str(path))
    dialog.accept()


async def test_the_menu_follows_the_folder(make_app: AppFactory, make_tray: TrayFactory) -> None:
    app = await make_app()
    tray = make_tray(app)
    menu = tray.workflows.menu
    assert item_texts(menu) == ["No saved workflows", "Recent runs", "Import…", "Open workflows folder"]

    # A file a person drops into the folder shows within 2 s.
    save_workflow(app, jobs_workflow())
    await until(lambda: tray.workflows.workflow_menu("Jobs") is not None, timeout=2, what="Jobs in the menu")
    assert item_texts(jobs_menu(tray)) == ["Run", "Run with parameters…", "Export…", "Reveal in folder", "Delete…"]
    assert "wf-jobs" in jobs_menu(tray).menuAction().toolTip()

    # A broken one is listed (the good one stays) as a submenu a person can open: its error is its first
    # line (a greyed item would show no tooltip), a click on it shows the whole error, and the file can be
    # revealed or deleted.
    (app.paths.workflows_dir / "broken.json").write_text("{not json", encoding="utf-8")
    broken = await until(lambda: tray.workflows.broken_menu("broken"), timeout=2, what="the broken file in the menu")
    assert broken.menuAction().isEnabled()
    assert "not valid JSON" in broken.menuAction().toolTip()
    assert menu.toolTipsVisible()
    assert item_texts(broken)[1:] == ["Reveal in folder", "Delete…"]
    why = broken.actions()[0]
    assert why.text().startswith("Why: not valid JSON") and why.isEnabled()
    await click_menu_item(broken, why)
    said = await answer_box("OK")
    assert "broken.json is not a valid workflow" in said
    assert "not valid JSON: Expecting property name" in said

    # One without parameters cannot be run "with parameters".
    save_workflow(app, {"workflow_id": "plain", "name": "Plain", "steps": [{"type": "navigate", "url": ORIGIN}]})
    await until(lambda: tray.workflows.workflow_menu("Plain") is not None, timeout=2, what="Plain in the menu")
    assert not menu_item(jobs_menu(tray, "Plain"), "Run with parameters…").isEnabled()

    # Removed by hand: gone from the menu.
    (app.paths.workflows_dir / "wf-jobs.json").unlink()
    await until(lambda: tray.workflows.workflow_menu("Jobs") is None, timeout=2, what="Jobs to leave the menu")
    assert item_texts(menu)[:2] == ["Plain", "broken (invalid)"]


async def test_run_with_parameters_then_view_copy_and_save_as_csv(
    make_app: AppFactory,
    make_tray: TrayFactory,
    connect_extension: ExtensionFactory,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    app = await make_app()
    app.engine.config.step_delay_ms = 0
    tray = make_tray(app)
    notes = Notifications(tray, monkeypatch)
    name, value = secret_name(), secret_value()
    app.secrets.set(name, value)
    site = JobsSite(secret_value=value)
    await connect_extension(app, **site.handlers())
    save_workflow(app, jobs_workflow(secret=name))
    await until(lambda: tray.workflows.workflow_menu("Jobs") is not None, timeout=2, what="Jobs in the menu")

    await click_menu_item(jobs_menu(tray), menu_item(jobs_menu(tray), "Run with parameters…"))
    dialog = await window_of(ParamsDialog, "the parameters form")
    assert sorted(dialog.fields) == ["city", "query"]
    assert dialog.fields["query"].text() == "python", "a default fills its field"
    assert dialog.fields["city"].text() == ""
    assert not dialog.run_button.isEnabled(), "city has no default: it must be given"
    assert f"{{{{secret:{name}}}}}" in " ".join(label.text() for label in dialog.findChildren(QLabel))
    dialog.fields["query"].setText("rust")
    dialog.fields["city"].setText("Lyon")
    click(dialog.run_button)

    assert await notes.wait_for("Workflow Jobs") == "Workflow Jobs finished: 3 rows"
    assert site.navigated == [f"{ORIGIN}/search?q=rust&in=Lyon"]
    assert site.filled == [value], "the page got the secret's value"
    runs = app.workflows.runs("wf-jobs")
    assert len(runs) == 1
    assert value not in json.dumps(runs), "a saved result never holds a secret's value"
    assert runs[0]["data"][2]["city"] == f"typed {{{{secret:{name}}}}}"

    # Recent runs, newest first: its item opens the viewer.
    tray.workflows.recent_menu.aboutToShow.emit()
    recent = item_texts(tray.workflows.recent_menu)
    assert len(recent) == 1
    assert recent[0].startswith("Jobs — ")
    assert recent[0].endswith("— 3 rows")
    await click_menu_item(tray.workflows.recent_menu, tray.workflows.recent_menu.actions()[0])
    viewer = await window_of(RunViewer, "the run viewer")
    assert viewer.status_label.text().startswith("Complete — 3 rows, steps 3/3")
    model = viewer.model
    assert model.columns == ["title", "city"]
    assert model.rowCount() == 3
    assert model.data(model.index(0, 0)) == 'Dev, "senior"'
    assert model.data(model.index(1, 1)) == "Lyon"
    shown = [str(model.data(model.index(r, c))) for r in range(model.rowCount()) for c in range(model.columnCount())]
    assert not any(value in cell for cell in shown)

    click(viewer.copy_button)
    copied = json.loads(QGuiApplication.clipboard().text())
    assert copied == runs[0]

    target = tmp_path / "jobs.csv"
    click(viewer.csv_button)
    await choose_file(target)
    await until(target.exists, what="the CSV file")
    text = target.read_text(encoding="utf-8")
    assert text == (f'title,city\n"Dev, ""senior""",Berlin\nOps,Lyon\nLeaky,typed {{{{secret:{name}}}}}\n')
    with target.open(newline="", encoding="utf-8") as f:
        assert list(csv.DictReader(f)) == [
            {"title": 'Dev, "senior"', "city": "Berlin"},
            {"title": "Ops", "city": "Lyon"},
            {"title": "Leaky", "city": f"typed {{{{secret:{name}}}}}"},
        ]
    viewer.close()
    await ui_settled()


async def test_export_import_reveal_and_delete(
    make_app: AppFactory, make_tray: TrayFactory, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    app = await make_app()
    tray = make_tray(app)
    notes = Notifications(tray, monkeypatch)
    save_workflow(app, jobs_workflow())
    await until(lambda: tray.workflows.workflow_menu("Jobs") is not None, timeout=2, what="Jobs in the menu")

    # Export… writes the workflow as JSON where the person chooses.
    exported = tmp_path / "exported.json"
    await click_menu_item(jobs_menu(tray), menu_item(jobs_menu(tray), "Export…"))
    await choose_file(exported)
    await until(exported.exists, what="the exported file")
    document = json.loads(exported.read_text(encoding="utf-8"))
    assert document["workflow_id"] == "wf-jobs"
    assert document["steps"] == jobs_workflow()["steps"]

    # Reveal in folder opens the workflows folder.
    opened: list[QUrl] = []
    monkeypatch.setattr(QDesktopServices, "openUrl", lambda url: opened.append(url) or True)
    await click_menu_item(jobs_menu(tray), menu_item(jobs_menu(tray), "Reveal in folder"))
    assert [Path(u.toLocalFile()) for u in opened] == [app.paths.workflows_dir]

    # Delete… asks first; Cancel keeps it, Delete removes the file.
    await click_menu_item(jobs_menu(tray), menu_item(jobs_menu(tray), "Delete…"))
    await answer_box("Cancel")
    assert (app.paths.workflows_dir / "wf-jobs.json").exists()
    await click_menu_item(jobs_menu(tray), menu_item(jobs_menu(tray), "Delete…"))
    await answer_box("Delete")
    await until(lambda: tray.workflows.workflow_menu("Jobs") is None, timeout=2, what="Jobs to go")
    assert not (app.paths.workflows_dir / "wf-jobs.json").exists()

    # Import… brings it back, validated.
    await click_menu_item(tray.workflows.menu, menu_item(tray.workflows.menu, "Import…"))
    await choose_file(exported)
    await until(lambda: tray.workflows.workflow_menu("Jobs") is not None, timeout=2, what="Jobs imported")
    assert await notes.wait_for("Imported") == "Imported the workflow Jobs"
    assert app.workflows.get("wf-jobs") is not None

    # Importing over an existing one asks before replacing it.
    changed: dict[str, Any] = {**document, "name": "Jobs again"}
    again = tmp_path / "again.json"
    again.write_text(json.dumps(changed), encoding="utf-8")
    tray.workflows.import_file(again)
    await answer_box("Replace")
    await until(lambda: tray.workflows.workflow_menu("Jobs again") is not None, timeout=2, what="the replaced one")

    # A file that is not a workflow is refused with the reason; nothing is saved.
    for bad, reason in (
        ("{not json", "cannot be read as a workflow"),
        (json.dumps({"workflow_id": "x", "name": "X", "steps": [{"type": "fly"}]}), "is not a valid workflow"),
        (
            json.dumps(
                {
                    "workflow_id": "pw",
                    "name": "PW",
                    "steps": [{"type": "fill", "selector": "#password", "value": "hunter2"}],
                }
            ),
            "is not a valid workflow",
        ),
    ):
        path = tmp_path / "bad.json"
        path.write_text(bad, encoding="utf-8")
        tray.workflows.import_file(path)
        assert reason in await answer_box("OK")
    assert sorted(e.workflow_id for e in app.workflows.entries()) == ["wf-jobs"]
    await ui_settled()


async def test_run_with_parameters_opens_each_time_it_is_asked(
    make_app: AppFactory, make_tray: TrayFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = await make_app()
    tray = make_tray(app)
    started: list[tuple[str, dict[str, str] | None]] = []
    monkeypatch.setattr(tray.workflows, "run", lambda workflow_id, params=None: started.append((workflow_id, params)))
    save_workflow(app, jobs_workflow())
    await until(lambda: tray.workflows.workflow_menu("Jobs") is not None, timeout=2, what="Jobs in the menu")

    # Cancelled: the form deletes itself.
    await click_menu_item(jobs_menu(tray), menu_item(jobs_menu(tray), "Run with parameters…"))
    first = await window_of(ParamsDialog, "the parameters form")
    click(first.buttons.button(QDialogButtonBox.StandardButton.Cancel))
    await until(lambda: not shiboken6.isValid(first), what="the cancelled form to be deleted")

    # Asked again: a new form (not an error about the deleted one); Run runs with its values.
    await click_menu_item(jobs_menu(tray), menu_item(jobs_menu(tray), "Run with parameters…"))
    second = await window_of(ParamsDialog, "the parameters form, a second time")
    second.fields["city"].setText("Lyon")
    click(second.run_button)
    await until(lambda: not shiboken6.isValid(second), what="the run form to be deleted")
    assert started == [("wf-jobs", {"city": "Lyon", "query": "python"})]

    # Asked while one is open: the open one gives way to the new one.
    await click_menu_item(jobs_menu(tray), menu_item(jobs_menu(tray), "Run with parameters…"))
    third = await window_of(ParamsDialog, "the parameters form, a third time")
    tray.workflows.ask_params("wf-jobs")
    await until(lambda: not shiboken6.isValid(third), what="the replaced form to be deleted")
    fourth = await window_of(ParamsDialog, "the new parameters form")
    assert tray.workflows.params_dialog is fourth
    click(fourth.buttons.button(QDialogButtonBox.StandardButton.Cancel))
    await until(lambda: tray.workflows.params_dialog is None, what="the menu to forget the closed form")
    assert len(started) == 1
    await ui_settled()


def a_run(correlation_id: str, finished_at: str) -> dict[str, Any]:
    return {
        "correlation_id": correlation_id,
        "status": "complete",
        "started_at": finished_at,
        "finished_at": finished_at,
        "steps_completed": 2,
        "steps_total": 2,
        "data": [{"title": "Ops", "city": "Lyon"}],
    }


async def test_a_closed_run_viewer_is_let_go(make_app: AppFactory, make_tray: TrayFactory) -> None:
    app = await make_app()
    tray = make_tray(app)
    save_workflow(app, jobs_workflow())
    app.workflows.add_run("wf-jobs", a_run("c-1", "2024-05-01T10:00:00+00:00"))
    app.workflows.add_run("wf-jobs", a_run("c-2", "2024-05-01T11:00:00+00:00"))
    menu = tray.workflows

    first = menu.open_run("wf-jobs", "c-1")
    assert first is not None
    assert menu.open_run("wf-jobs", "c-1") is first, "the run's open viewer is brought to the front"
    second = menu.open_run("wf-jobs", "c-2")
    assert second is not None
    assert second is not first
    await until(lambda: first.isVisible() and second.isVisible(), what="the two viewers")
    assert set(menu.viewers) == {("wf-jobs", "c-1"), ("wf-jobs", "c-2")}

    # Closed: forgotten by the menu and deleted.
    first.close()
    assert set(menu.viewers) == {("wf-jobs", "c-2")}
    await until(lambda: not shiboken6.isValid(first), what="the closed viewer to be deleted")

    # Opened again: a new viewer.
    again = menu.open_run("wf-jobs", "c-1")
    assert again is not None
    assert shiboken6.isValid(again)
    assert set(menu.viewers) == {("wf-jobs", "c-1"), ("wf-jobs", "c-2")}

    # Closing the menu closes the viewers still open, and forgets them.
    menu.close()
    assert menu.viewers == {}
    await until(lambda: not shiboken6.isValid(again) and not shiboken6.isValid(second), what="the viewers deleted")
    await ui_settled()


async def test_enter_in_the_parameters_form_runs_it(
    make_app: AppFactory, make_tray: TrayFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Run is the default button (Enter runs); Cancel never is, even while Run waits for a required value."""
    app = await make_app()
    tray = make_tray(app)
    started: list[tuple[str, dict[str, str] | None]] = []
    monkeypatch.setattr(tray.workflows, "run", lambda workflow_id, params=None: started.append((workflow_id, params)))
    save_workflow(app, jobs_workflow())
    await until(lambda: tray.workflows.workflow_menu("Jobs") is not None, timeout=2, what="Jobs in the menu")
    await click_menu_item(jobs_menu(tray), menu_item(jobs_menu(tray), "Run with parameters…"))
    dialog = await window_of(ParamsDialog, "the parameters form")
    assert dialog.windowTitle() == "Tabpilot — Run Jobs"
    cancel = dialog.buttons.button(QDialogButtonBox.StandardButton.Cancel)
    assert not cancel.isDefault() and not cancel.autoDefault()
    city = dialog.fields["city"]

    # {{city}} has no value yet: Enter does nothing (it neither runs nor cancels).
    QTest.keyClick(city, Qt.Key.Key_Return)
    assert dialog.isVisible() and started == []

    QTest.keyClicks(city, "Lyon")
    assert dialog.run_button.isDefault()
    QTest.keyClick(city, Qt.Key.Key_Return)
    await until(lambda: not shiboken6.isValid(dialog), what="the form to close once run")
    assert started == [("wf-jobs", {"city": "Lyon", "query": "python"})]
    await ui_settled()
