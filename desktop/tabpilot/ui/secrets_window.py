"""The Secrets window: named secrets in the OS keyring (service `tabpilot`) that workflows use as
`{{secret:NAME}}`. It shows names and where they are used, never a value once saved."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QShowEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QInputDialog,
    QLabel,
    QLineEdit,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from tabpilot.ui.dialogs import confirm, fit_placeholder, spawn, window_title
from tabpilot.ui.icons import app_icon
from tabpilot.ui.plain import plain_children
from tabpilot.vault.keyring_store import flush_writes
from tabpilot.vault.secrets import NAME, SecretError

if TYPE_CHECKING:
    from tabpilot.app_facade import AppFacade

log = logging.getLogger("tabpilot.ui")

NAME_COL, USED_COL = 0, 2  # the middle column says whether the keyring has a value


class SecretsWindow(QWidget):
    def __init__(self, facade: AppFacade, parent: QWidget | None = None) -> None:
        super().__init__(parent, Qt.WindowType.Window)
        self.facade = facade
        self.setWindowTitle("Tabpilot — Secrets")
        self.setWindowIcon(app_icon())
        self.resize(620, 440)
        layout = QVBoxLayout(self)
        intro = QLabel(
            "Workflows refer to a secret as {{secret:NAME}}; its value stays in your OS keyring and is never "
            "shown, saved in a file, or given to an agent."
        )
        intro.setTextFormat(Qt.TextFormat.PlainText)
        intro.setWordWrap(True)
        layout.addWidget(intro)

        self.table = QTableWidget(0, 3)
        self.table.setHorizontalHeaderLabels(["Name", "Stored", "Used by"])
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setSectionResizeMode(USED_COL, QHeaderView.ResizeMode.Stretch)
        self.table.horizontalHeader().resizeSection(NAME_COL, 180)
        self.table.itemSelectionChanged.connect(self._selected)
        layout.addWidget(self.table, 1)

        row_buttons = QHBoxLayout()
        self.rename_button = QPushButton("Rename…")
        self.rename_button.clicked.connect(self.ask_rename)
        self.delete_button = QPushButton("Delete…")
        self.delete_button.clicked.connect(self.ask_delete)
        row_buttons.addStretch(1)
        row_buttons.addWidget(self.rename_button)
        row_buttons.addWidget(self.delete_button)
        layout.addLayout(row_buttons)

        box = QGroupBox("Add a secret, or give one a new value")
        form = QFormLayout(box)
        self.name_edit = QLineEdit()
        self.name_edit.setPlaceholderText("e.g. SHOP_PASSWORD")
        self.name_edit.setMaxLength(64)
        self.value_edit = QLineEdit()
        self.value_edit.setEchoMode(QLineEdit.EchoMode.Password)
        self.value_edit.setPlaceholderText("hidden; never shown again once saved")
        fit_placeholder(self.value_edit)
        self.save_button = QPushButton("Save")
        self.save_button.setDefault(True)
        self.save_button.clicked.connect(self.save)
        self.name_edit.textChanged.connect(self._check)
        self.value_edit.textChanged.connect(self._check)
        self.name_edit.returnPressed.connect(self.save)
        self.value_edit.returnPressed.connect(self.save)
        save_row = QHBoxLayout()
        save_row.addWidget(self.value_edit, 1)
        save_row.addWidget(self.save_button)
        form.addRow("Name:", self.name_edit)
        form.addRow("Value:", save_row)
        layout.addWidget(box)
        self.status = QLabel()
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        self.status.setWordWrap(True)
        layout.addWidget(self.status)

        self._stored: list[str] = []
        self._filling = False
        self._busy = False
        self._check()

    def dispose(self) -> None:
        """Nothing to unsubscribe; the window holds no values."""

    # -- the list ---------------------------------------------------------------------------------

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self.reload()

    def reload(self) -> None:
        spawn(self._run(lambda: None, ""))

    def shown_names(self) -> list[str]:
        return [self._name_at(r) for r in range(self.table.rowCount())]

    def _name_at(self, row: int) -> str:
        item = self.table.item(row, NAME_COL)
        return item.text() if item is not None else ""

    def selected_name(self) -> str | None:
        rows = self.table.selectionModel().selectedRows()
        if not rows:
            return None
        name = self._name_at(rows[0].row())
        return name if name in self._stored else None

    def _fill(self, stored: list[str], usage: dict[str, list[str]]) -> None:
        selected = self.selected_name()
        self._filling = True  # keeps the selection without overwriting a name being typed
        self._stored = stored
        names = sorted(set(stored) | set(usage))
        self.table.setRowCount(len(names))
        grey = QColor("#888888")
        for row, name in enumerate(names):
            used = usage.get(name, [])
            cells = (name, "yes" if name in stored else "missing", ", ".join(used) if used else "—")
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if name not in stored:
                    item.setForeground(grey)
                    item.setToolTip("A workflow uses this name, but no value is stored: add it below.")
                self.table.setItem(row, column, item)
            if name == selected:
                self.table.selectRow(row)
        self._selected()
        self._filling = False

    def _selected(self) -> None:
        name = self.selected_name()
        self.rename_button.setEnabled(name is not None and not self._busy)
        self.delete_button.setEnabled(name is not None and not self._busy)
        rows = self.table.selectionModel().selectedRows()
        if rows and not self._filling:  # a person picked a row: its name is the one to give a value
            self.name_edit.setText(self._name_at(rows[0].row()))

    def _check(self) -> None:
        self.save_button.setEnabled(bool(self.name_edit.text().strip() and self.value_edit.text()) and not self._busy)

    # -- changes (keyring calls run off the GUI thread) ----------------------------------------------

    async def _run(
        self, change: Callable[[], None], done: str, *, added: tuple[str, ...] = (), removed: tuple[str, ...] = ()
    ) -> bool:
        """Make `change` off the GUI thread, then show the list as it is now: `added` and `removed` are the
        names the change stores and takes away, shown so even when the keyring still answers with the
        list from before it."""
        self._busy = True
        self._check()
        ok = True
        try:
            await asyncio.to_thread(change)
            if done:
                self.status.setText(done)
        except SecretError as exc:
            self.status.setText(str(exc))
            ok = False
        except Exception as exc:  # the keyring refused (locked, gone): a boundary, shown to the person
            log.warning("a secrets change failed: %s", exc)
            self.status.setText(f"The OS keyring refused: {exc}")
            ok = False
        finally:
            self._busy = False
        stored = await asyncio.to_thread(self._names_after_writes)
        if ok:
            stored = sorted((set(stored) | set(added)) - set(removed))
        self._fill(stored, self.facade.secret_usage())
        self._check()
        return ok

    def _names_after_writes(self) -> list[str]:
        """The stored names once the keyring writes under way have landed: the list of names is written in
        the background (vault/keyring_store.py), and read before that it is the list from before."""
        flush_writes()
        return self.facade.secret_names()

    def save(self) -> None:
        name, value = self.name_edit.text().strip(), self.value_edit.text()
        if not name or not value or self._busy:
            return
        verb = "changed" if name in self._stored else "saved"

        self.value_edit.clear()  # never shown again: it lives on only in this closure until the keyring has it
        spawn(self._run(lambda: self.facade.set_secret(name, value), f"{name} {verb}.", added=(name,)))

    def ask_rename(self) -> None:
        old = self.selected_name()
        if old is None:
            return
        dialog = QInputDialog(self)
        dialog.setWindowTitle(window_title("Rename secret"))
        dialog.setLabelText(f"New name for {old} (workflows that use {{{{secret:{old}}}}} must be edited):")
        plain_children(dialog)
        dialog.setTextValue(old)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)
        dialog.textValueSelected.connect(lambda new: self.rename(old, new.strip()))
        dialog.open()

    def rename(self, old: str, new: str) -> None:
        if new == old:
            return
        if not NAME.match(new):
            self.status.setText(f"{new!r} is not a valid name: letters, digits, '_', '.', '-' (at most 64).")
            return
        renamed = f"{old} renamed to {new}."
        spawn(self._run(lambda: self.facade.rename_secret(old, new), renamed, added=(new,), removed=(old,)))

    def ask_delete(self) -> None:
        name = self.selected_name()
        if name is None:
            return
        used = self.facade.secret_usage().get(name, [])
        details = f"Used by: {', '.join(used)}. Those workflows will fail until it is added again." if used else ""
        confirm(
            self,
            "Delete secret",
            f"Delete the secret {name} from the keyring?",
            "Delete",
            lambda: self.delete(name),
            details=details,
            destructive=True,
        )

    def delete(self, name: str) -> None:
        spawn(self._run(lambda: self.facade.delete_secret(name), f"{name} deleted.", removed=(name,)))
