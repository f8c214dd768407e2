"""The tray's Workflows submenu, live from the watched folder, and the windows it opens: a form for a
workflow's `{{param}}` values and a viewer for a run's rows (copy as JSON, save as CSV)."""

from __future__ import annotations

import csv
import html
import io
import json
import logging
from collections.abc import Callable
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import shiboken6
from PySide6.QtCore import QAbstractTableModel, QModelIndex, QObject, QPersistentModelIndex, Qt, QTimer, QUrl, Signal
from PySide6.QtGui import QAction, QCloseEvent, QDesktopServices, QGuiApplication, QShowEvent
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLineEdit,
    QMenu,
    QMessageBox,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from tabpilot.engine.errors import TabpilotError
from tabpilot.engine.ports import WorkflowEntry
from tabpilot.engine.workflows.workflows import Workflow, parse_workflow, placeholders, refuse_literal_secrets
from tabpilot.safe_files import read_regular_text
from tabpilot.storage.workflow_store import MAX_FILE_BYTES
from tabpilot.ui.dialogs import (
    ask_open_path,
    ask_save_path,
    close_on_escape,
    confirm,
    notice,
    spawn,
    steps_from_one,
    window_title,
)
from tabpilot.ui.icons import app_icon
from tabpilot.ui.plain import menu_text, one_line, plain_label, rich_label, tooltip

if TYPE_CHECKING:
    from tabpilot.app_facade import AppFacade

log = logging.getLogger("tabpilot.ui")

RECENT_RUNS = 15
NAME_SHOWN = 60
"""Characters of a workflow's name in a message (it may be anything, a single word of 10,000 letters too)."""
ERROR_SHOWN = 90
"""Characters of an invalid file's error in its menu item (a click shows it whole)."""
CELL_SHOWN = 300
"""Characters of one cell shown in the table (the tooltip, the JSON and the CSV have it whole)."""
REBUILD_DELAY_MS = 30
"""Several files changing at once (a folder copied in) rebuild the menu once."""

Notify = Callable[[str, bool], None]
"""Shows a tray notification: (text, is_warning)."""


def when(iso: str | None) -> str:
    """A run's ISO time (UTC) as local time for people."""
    if not iso:
        return "?"
    try:
        moment = datetime.fromisoformat(iso).astimezone()
    except ValueError:
        return iso
    return moment.strftime("%b %d %H:%M:%S")


def param_names(workflow: Workflow) -> list[str]:
    """Every `{{param}}` the steps use, plus the ones the workflow gives defaults for."""
    return sorted(placeholders(workflow.steps)[0] | set(workflow.params))


class WorkflowsMenu(QObject):
    """The submenu: each saved workflow (invalid ones greyed, their error as tooltip), Recent runs, Import…"""

    files_changed = Signal()
    """Emitted from whichever thread the store's listener runs on (the watcher's); handled on the GUI thread."""

    def __init__(self, facade: AppFacade, host: QWidget, notify: Notify, parent: QObject, parent_menu: QMenu) -> None:
        super().__init__(parent)
        self.facade = facade
        self.host = host
        self.notify = notify
        self.menu = QMenu("Workflows", parent_menu)
        self.menu.setToolTipsVisible(True)
        self.recent_menu = QMenu("Recent runs", self.menu)
        self.recent_menu.setToolTipsVisible(True)
        self.recent_menu.aboutToShow.connect(self.fill_recent_runs)
        self.import_action = QAction("Import…", self)
        self.import_action.setToolTip("Add a workflow from a JSON file")
        self.import_action.triggered.connect(self.ask_import)
        self.folder_action = QAction("Open workflows folder", self)
        self.folder_action.triggered.connect(lambda: self.reveal(self.facade.workflows_folder()))
        self.params_dialog: ParamsDialog | None = None
        """The open parameters form (it deletes itself once answered or closed; forgotten then)."""
        self.viewers: dict[tuple[str, str], RunViewer] = {}
        """The open run viewers, by (workflow_id, correlation_id); a closed one is forgotten and deleted."""
        self._submenus: list[QMenu] = []
        self._recent: list[tuple[str, str, str, str]] = []
        self._closed = False
        self._rebuild_soon = QTimer(self)
        self._rebuild_soon.setSingleShot(True)
        self._rebuild_soon.setInterval(REBUILD_DELAY_MS)
        self._rebuild_soon.timeout.connect(self.rebuild)
        self.files_changed.connect(self._rebuild_soon.start)
        self._unsubscribe = facade.watch_workflows(self._store_changed)
        self.rebuild()

    def close(self) -> None:
        self._closed = True
        self._unsubscribe()
        self._rebuild_soon.stop()
        if self.params_dialog is not None and shiboken6.isValid(self.params_dialog):
            self.params_dialog.close()
        self.params_dialog = None
        for viewer in list(self.viewers.values()):
            if shiboken6.isValid(viewer):
                viewer.close()
        self.viewers.clear()

    def _store_changed(self) -> None:
        """The store's listener: called from the watchdog thread (or the loop's, after a run is kept)."""
        if not self._closed:
            self.files_changed.emit()

    # -- the menu --------------------------------------------------------------------------------

    def rebuild(self) -> None:
        for submenu in self._submenus:
            submenu.deleteLater()
        self._submenus.clear()
        self.menu.clear()
        # By name as people read them; the broken ones after the rest.
        entries = sorted(
            self.facade.workflows(),
            key=lambda e: (e.workflow is None, (e.workflow.name if e.workflow else e.workflow_id).casefold()),
        )
        if not entries:
            empty = QAction("No saved workflows", self.menu)
            empty.setEnabled(False)
            self.menu.addAction(empty)
        for entry in entries:
            if entry.workflow is None:
                self.menu.addMenu(self._broken_menu(entry))
            else:
                self.menu.addMenu(self._workflow_menu(entry, entry.workflow))
        self.menu.addSeparator()
        self.menu.addMenu(self.recent_menu)
        self.menu.addSeparator()
        self.menu.addAction(self.import_action)
        self.menu.addAction(self.folder_action)

    def _workflow_menu(self, entry: WorkflowEntry, workflow: Workflow) -> QMenu:
        submenu = QMenu(menu_text(workflow.name), self.menu)
        submenu.setToolTipsVisible(True)
        self._submenus.append(submenu)
        last = f"; last run {when(entry.last_run)}: {entry.last_status}" if entry.last_run else ""
        submenu.menuAction().setToolTip(tooltip(f"{entry.workflow_id} — {workflow.step_count()} steps{last}"))
        wid = entry.workflow_id
        run = submenu.addAction("Run")
        run.triggered.connect(partial(self.run, wid, None))
        with_params = submenu.addAction("Run with parameters…")
        with_params.triggered.connect(partial(self.ask_params, wid))
        if not param_names(workflow):
            with_params.setEnabled(False)
            with_params.setToolTip("This workflow has no {{parameters}}.")
        submenu.addSeparator()
        submenu.addAction("Export…").triggered.connect(partial(self.ask_export, wid))
        submenu.addAction("Reveal in folder").triggered.connect(partial(self.reveal, Path(entry.file).parent))
        submenu.addSeparator()
        submenu.addAction("Delete…").triggered.connect(partial(self.ask_delete, wid))
        return submenu

    def _broken_menu(self, entry: WorkflowEntry) -> QMenu:
        """A file that is not a valid workflow: its error where a person sees it (a greyed item shows no
        tooltip), the whole of it on a click, and the file to fix or delete."""
        error = " ".join((entry.error or "not a valid workflow").split())
        submenu = QMenu(menu_text(f"{entry.workflow_id} (invalid)"), self.menu)
        submenu.setToolTipsVisible(True)
        self._submenus.append(submenu)
        submenu.menuAction().setToolTip(tooltip(error))
        why = submenu.addAction(menu_text(_elide(f"Why: {error}", ERROR_SHOWN)))
        why.setToolTip("Show the whole error")
        why.triggered.connect(partial(self.show_error, entry.workflow_id, Path(entry.file).name, error))
        submenu.addSeparator()
        submenu.addAction("Reveal in folder").triggered.connect(partial(self.reveal, Path(entry.file).parent))
        submenu.addAction("Delete…").triggered.connect(partial(self.ask_delete, entry.workflow_id))
        return submenu

    def show_error(self, workflow_id: str, file: str, error: str) -> QMessageBox:
        return notice(
            self.host,
            window_title("Invalid workflow"),
            f"{file} is not a valid workflow, so it cannot run.",
            details=f"{error}\n\nFix the file (Reveal in folder) or delete it.",
            warning=True,
        )

    def broken_menu(self, workflow_id: str) -> QMenu | None:
        """The submenu of the invalid file `workflow_id`, as a user finds it."""
        return self.workflow_menu(f"{workflow_id} (invalid)")

    def workflow_menu(self, name: str) -> QMenu | None:
        """The submenu of the workflow named `name`, as a user finds it."""
        for action in self.menu.actions():
            if action.text() == menu_text(name) and action.menu() is not None:
                menu = action.menu()
                return menu if isinstance(menu, QMenu) else None
        return None

    def fill_recent_runs(self) -> None:
        """Filled when opened: the runs of every workflow, newest first (left as is when nothing changed)."""
        found: list[tuple[str, WorkflowEntry, dict[str, Any]]] = []
        for entry in self.facade.workflows():
            for run in self.facade.workflow_runs(entry.workflow_id):
                found.append((str(run.get("finished_at") or run.get("started_at") or ""), entry, run))
        found.sort(key=lambda item: item[0], reverse=True)
        items: list[tuple[str, str, str, str]] = []
        for finished, entry, run in found[:RECENT_RUNS]:
            name = entry.workflow.name if entry.workflow is not None else entry.workflow_id
            ok = run.get("status") == "complete"
            outcome = f"{len(run.get('data') or [])} rows" if ok else f"failed ({run.get('error')})"
            tip = entry.workflow_id if ok else str(run.get("message") or "")
            items.append(
                (entry.workflow_id, str(run.get("correlation_id")), f"{name} — {when(finished)} — {outcome}", tip)
            )
        if items == self._recent and self.recent_menu.actions():
            return
        self._recent = items
        self.recent_menu.clear()
        for workflow_id, correlation_id, text, tip in items:
            action = QAction(menu_text(text), self.recent_menu)
            action.setToolTip(tooltip(tip))
            action.triggered.connect(partial(self.open_run, workflow_id, correlation_id))
            self.recent_menu.addAction(action)
        if not items:
            none = QAction("No runs yet", self.recent_menu)
            none.setEnabled(False)
            self.recent_menu.addAction(none)

    # -- what the items do -------------------------------------------------------------------------

    def _workflow(self, workflow_id: str) -> Workflow | None:
        entry = self.facade.workflow(workflow_id)
        if entry is None or entry.workflow is None:
            self.notify(f"The workflow {workflow_id} is no longer there (or no longer valid).", True)
            return None
        return entry.workflow

    def run(self, workflow_id: str, params: dict[str, str] | None = None) -> None:
        """A run the person starts: through the app (no prompts, domain lock kept); the tray reports the end."""
        workflow = self._workflow(workflow_id)
        if workflow is None:
            return

        async def go() -> None:
            try:
                await self.facade.run_workflow(workflow_id, params)
            except TabpilotError as exc:
                # One that ran is reported by the tray from the activity stream; this one never started.
                if "correlation_id" not in exc.details:
                    self.notify(f"Workflow {workflow.name} failed: {steps_from_one(exc.message)}", True)

        spawn(go())

    def ask_params(self, workflow_id: str) -> None:
        workflow = self._workflow(workflow_id)
        if workflow is None:
            return
        if self.params_dialog is not None and shiboken6.isValid(self.params_dialog):
            self.params_dialog.close()  # one form at a time
        dialog = ParamsDialog(self.host, workflow)
        dialog.accepted.connect(lambda: self.run(workflow_id, dialog.values()))
        # Answered or closed, it deletes itself: forget it then, so that the next ask opens a new one.
        dialog.finished.connect(lambda _result: self._forget_params(dialog))
        dialog.destroyed.connect(lambda _obj=None: self._forget_params(dialog))
        self.params_dialog = dialog
        dialog.open()

    def _forget_params(self, dialog: ParamsDialog) -> None:
        if self.params_dialog is dialog:
            self.params_dialog = None

    def ask_export(self, workflow_id: str) -> None:
        workflow = self._workflow(workflow_id)
        if workflow is None:
            return

        def write(path: Path) -> None:
            try:
                path.write_text(json.dumps(workflow.document(), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
            except OSError as exc:
                notice(self.host, "Export failed", f"{path} could not be written.", details=str(exc), warning=True)
                return
            self.notify(f"Exported {workflow.name} to {path}", False)

        ask_save_path(self.host, "Export workflow", Path.home() / f"{workflow_id}.json", "Workflow (*.json)", write)

    def reveal(self, folder: Path) -> None:
        if not QDesktopServices.openUrl(QUrl.fromLocalFile(str(folder))):
            self.notify(f"No file manager could open {folder}", True)

    def ask_delete(self, workflow_id: str) -> None:
        entry = self.facade.workflow(workflow_id)
        if entry is None:
            return
        name = entry.workflow.name if entry.workflow is not None else workflow_id
        confirm(
            self.host,
            "Delete workflow",
            delete_question(name),
            "Delete",
            lambda: self._delete(workflow_id),
            details=f"Its file ({Path(entry.file).name}) and its saved runs are removed.",
            destructive=True,
        )

    def _delete(self, workflow_id: str) -> None:
        try:
            self.facade.delete_workflow(workflow_id)
        except OSError as exc:
            notice(self.host, "Delete failed", f"{workflow_id} could not be deleted.", details=str(exc), warning=True)

    def ask_import(self) -> None:
        ask_open_path(self.host, "Import workflow", Path.home(), "Workflows (*.json);;All files (*)", self.import_file)

    def import_file(self, path: Path) -> None:
        """Read, validate and save a workflow file; what is wrong with it is shown, nothing is saved."""
        try:
            # A regular file only, never waited on (a FIFO picked by mistake would freeze the tray).
            text = read_regular_text(path, MAX_FILE_BYTES)
            workflow = parse_workflow(json.loads(text), where=path.name)
            refuse_literal_secrets(workflow)
        except TabpilotError as exc:
            notice(
                self.host, "Import failed", f"{path.name} is not a valid workflow.", details=exc.message, warning=True
            )
            return
        except (OSError, ValueError) as exc:  # unreadable, not UTF-8, not JSON
            notice(
                self.host, "Import failed", f"{path.name} cannot be read as a workflow.", details=str(exc), warning=True
            )
            return
        if self.facade.workflow(workflow.workflow_id) is not None:
            confirm(
                self.host,
                "Replace workflow",
                f"A workflow with the id {workflow.workflow_id} exists already. Replace it?",
                "Replace",
                lambda: self._save(workflow),
            )
        else:
            self._save(workflow)

    def _save(self, workflow: Workflow) -> None:
        try:
            self.facade.save_workflow(workflow)
        except OSError as exc:
            notice(
                self.host,
                "Import failed",
                f"{workflow.workflow_id} could not be saved.",
                details=str(exc),
                warning=True,
            )
            return
        self.notify(f"Imported the workflow {workflow.name}", False)

    def open_run(self, workflow_id: str, correlation_id: str) -> RunViewer | None:
        runs = self.facade.workflow_runs(workflow_id)
        run = next((r for r in runs if r.get("correlation_id") == correlation_id), None)
        if run is None:
            self.notify("That run is no longer kept (the last 10 runs of each workflow are).", True)
            return None
        entry = self.facade.workflow(workflow_id)
        name = entry.workflow.name if entry is not None and entry.workflow is not None else workflow_id
        key = (workflow_id, correlation_id)
        viewer = self.viewers.get(key)
        if viewer is None or not shiboken6.isValid(viewer):
            viewer = RunViewer(self.host, workflow_id, name, run)
            viewer.closed.connect(partial(self._forget_viewer, key, viewer))
            viewer.destroyed.connect(partial(self._forget_viewer, key, viewer))
            self.viewers[key] = viewer
        viewer.show()
        viewer.raise_()
        viewer.activateWindow()
        return viewer

    def _forget_viewer(self, key: tuple[str, str], viewer: RunViewer, *_args: object) -> None:
        """A viewer closed (it deletes itself) or deleted with its parent: no longer held here."""
        if self.viewers.get(key) is viewer:
            del self.viewers[key]


class ParamsDialog(QDialog):
    """A form built from the workflow's `{{param}}` names, filled with its defaults."""

    def __init__(self, parent: QWidget, workflow: Workflow) -> None:
        super().__init__(parent)
        self.workflow = workflow
        self.setWindowTitle(window_title(f"Run {workflow.name}"))
        self.setWindowIcon(app_icon())
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)
        self.setMinimumWidth(380)
        layout = QVBoxLayout(self)
        layout.addWidget(rich_label(f"Values for this run of <b>{_html(workflow.name)}</b>:"))
        form = QFormLayout()
        self.fields: dict[str, QLineEdit] = {}
        self.required = [name for name in param_names(workflow) if name not in workflow.params]
        for name in param_names(workflow):
            edit = QLineEdit(workflow.params.get(name, ""))
            edit.setObjectName(f"param-{name}")
            if name in self.required:
                edit.setPlaceholderText("required")
            edit.textChanged.connect(self._check)
            form.addRow(f"{name}:", edit)
            self.fields[name] = edit
        layout.addLayout(form)
        secrets = sorted(placeholders(workflow.steps)[1])
        if secrets:
            note = plain_label(
                "Secrets come from your keyring: " + ", ".join(f"{{{{secret:{s}}}}}" for s in secrets), wrap=True
            )
            layout.addWidget(note)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.run_button = self.buttons.addButton("Run", QDialogButtonBox.ButtonRole.AcceptRole)
        # Enter runs (Escape cancels). Qt moves the default to an enabled button when the dialog shows, which
        # was Cancel while a required field was empty: Cancel is never a default, and Run takes it back in
        # _check whenever it is enabled. While Run is disabled, Enter does nothing.
        cancel = self.buttons.button(QDialogButtonBox.StandardButton.Cancel)
        cancel.setAutoDefault(False)
        cancel.setDefault(False)
        self.run_button.setAutoDefault(True)
        self.run_button.setDefault(True)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout.addWidget(self.buttons)
        self._check()

    def _check(self) -> None:
        ready = all(self.fields[name].text().strip() for name in self.required)
        self.run_button.setEnabled(ready)
        if ready:
            self.run_button.setDefault(True)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self._check()

    def values(self) -> dict[str, str]:
        return {name: edit.text() for name, edit in self.fields.items()}


def _elide(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def delete_question(name: str) -> str:
    """What Delete… asks, naming the workflow as it is (cut to fit a message box)."""
    return f"Delete the workflow “{one_line(name, NAME_SHOWN)}”?"


def _html(text: str) -> str:
    """A name inside our own markup: on one line, every character shown as itself."""
    return html.escape(one_line(text), quote=False)


# -- a run's result ----------------------------------------------------------------------------------


def columns_of(rows: list[dict[str, Any]]) -> list[str]:
    """Every key of every row, in the order they first appear."""
    seen: dict[str, None] = {}
    for row in rows:
        for key in row:
            seen.setdefault(str(key), None)
    return list(seen)


def cell_text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return value
    if isinstance(value, int | float):
        return str(value)
    return json.dumps(value, ensure_ascii=False)


def rows_to_csv(rows: list[dict[str, Any]], columns: list[str]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(columns)
    for row in rows:
        writer.writerow([cell_text(row.get(column)) for column in columns])
    return out.getvalue()


class RowsModel(QAbstractTableModel):
    def __init__(self, rows: list[dict[str, Any]], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.rows = rows
        self.columns = columns_of(rows)

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.columns)

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
            text = cell_text(self.rows[index.row()].get(self.columns[index.column()]))
            if role == Qt.ItemDataRole.DisplayRole and len(text) > CELL_SHOWN:
                return text[:CELL_SHOWN] + "…"
            if role == Qt.ItemDataRole.DisplayRole:
                return text
            return tooltip(text) if len(text) > 40 else None  # a page's text: shown as it is
        return None

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role != Qt.ItemDataRole.DisplayRole:
            return None
        if orientation == Qt.Orientation.Horizontal:
            return self.columns[section]
        return str(section + 1)


class RunViewer(QWidget):
    """One run: its status or error, its rows as a table, Copy as JSON, Save as CSV… Deleted once closed."""

    closed = Signal()

    def __init__(self, parent: QWidget, workflow_id: str, name: str, run: dict[str, Any]) -> None:
        super().__init__(parent, Qt.WindowType.Window)
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)
        self.workflow_id = workflow_id
        self.run = run
        rows = [r for r in run.get("data") or [] if isinstance(r, dict)]
        self.setWindowTitle(window_title(f"{name}, run of {when(run.get('finished_at'))}"))
        self.setWindowIcon(app_icon())
        close_on_escape(self)
        self.resize(820, 480)
        layout = QVBoxLayout(self)
        self.status_label = plain_label(self._status_text(rows), wrap=True)
        self.status_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.status_label)
        self.model = RowsModel(rows, self)
        self.table = QTableView(self)
        self.table.setModel(self.model)
        self.table.setAlternatingRowColors(True)
        self.table.setWordWrap(False)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.table.horizontalHeader().setStretchLastSection(True)
        if len(rows) <= 500:
            self.table.resizeColumnsToContents()
        layout.addWidget(self.table, 1)
        buttons = QHBoxLayout()
        self.copy_button = QPushButton("Copy as JSON")
        self.copy_button.clicked.connect(self.copy_json)
        self.csv_button = QPushButton("Save as CSV…")
        self.csv_button.clicked.connect(self.ask_csv)
        self.csv_button.setEnabled(bool(rows))
        buttons.addStretch(1)
        buttons.addWidget(self.copy_button)
        buttons.addWidget(self.csv_button)
        layout.addLayout(buttons)

    def _status_text(self, rows: list[dict[str, Any]]) -> str:
        run = self.run
        steps = f"steps {run.get('steps_completed', '?')}/{run.get('steps_total', '?')}"
        finished = f"finished {when(run.get('finished_at'))}"
        if run.get("status") == "complete":
            return f"Complete — {len(rows)} rows, {steps}, {finished}."
        kept = f" ({len(rows)} rows kept)" if rows else ""
        message = steps_from_one(str(run.get("message") or "")).rstrip(".")
        return f"Failed: {run.get('error')} — {message}{kept}. {steps.capitalize()}, {finished}."

    def closeEvent(self, event: QCloseEvent) -> None:
        super().closeEvent(event)
        if event.isAccepted():
            self.closed.emit()

    def copy_json(self) -> None:
        QGuiApplication.clipboard().setText(json.dumps(self.run, indent=2, ensure_ascii=False))

    def ask_csv(self) -> None:
        stamp = str(self.run.get("finished_at") or "")[:19].replace(":", "").replace("-", "")
        suggested = Path.home() / f"{self.workflow_id}-{stamp or 'run'}.csv"
        ask_save_path(self, "Save rows as CSV", suggested, "CSV (*.csv)", self.save_csv)

    def save_csv(self, path: Path) -> None:
        try:
            path.write_text(rows_to_csv(self.model.rows, self.model.columns), encoding="utf-8", newline="")
        except OSError as exc:
            notice(self, "Save failed", f"{path} could not be written.", details=str(exc), warning=True)
