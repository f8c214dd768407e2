"""The windows that list what a person granted (approval rules, paired browsers): a table to read with a
Revoke button at the end of each row, a line in its place when there is nothing, and Close. One such
window per app, centred on the screen the first time. rules_window.py and pairing.py say what is listed
and what Revoke does.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar, cast

import shiboken6
from PySide6.QtCore import Qt
from PySide6.QtGui import QCloseEvent, QGuiApplication
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLayout,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from tabpilot.ui.dialogs import close_on_escape, window_title
from tabpilot.ui.icons import app_icon
from tabpilot.ui.plain import plain_label, tooltip

if TYPE_CHECKING:
    from tabpilot.app_facade import AppFacade

W = TypeVar("W", bound=QWidget)


def read_only_table(columns: Sequence[str]) -> QTableWidget:
    """A list to read, with buttons in its last column (no cells to select or edit)."""
    table = QTableWidget(0, len(columns))
    table.setHorizontalHeaderLabels(list(columns))
    table.verticalHeader().setVisible(False)
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
    table.setFocusPolicy(Qt.FocusPolicy.NoFocus)
    table.setWordWrap(False)
    return table


def centre(window: QWidget) -> None:
    """Where a window manager would put a new window: the middle of the screen."""
    layout = window.layout()
    if layout is not None and layout.sizeConstraint() == QLayout.SizeConstraint.SetFixedSize:
        window.adjustSize()  # its size follows its contents
    screen = QGuiApplication.primaryScreen()
    if screen is None:
        return
    area = screen.availableGeometry()
    size = window.size()
    window.move(area.center().x() - size.width() // 2, area.center().y() - size.height() // 2)


def show_centred(window: QWidget) -> None:
    """Show a new top-level window in the middle of the screen, on top; it deletes itself once closed."""
    window.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)
    window.setWindowTitle(window_title(window.windowTitle()))
    close_on_escape(window)
    centre(window)
    window.show()
    window.raise_()


_one_per_app: dict[tuple[object, int], QWidget] = {}


def open_one_per_app(facade: AppFacade, make: Callable[[AppFacade], W]) -> W:
    """The app's window that `make` builds, shown, raised and activated: a second call brings the same one to
    the front, until it is closed."""
    key = (make, id(facade))
    window = _one_per_app.get(key)
    if window is None or not shiboken6.isValid(window):
        window = make(facade)
        window.destroyed.connect(lambda _obj=None, key=key: _one_per_app.pop(key, None))
        _one_per_app[key] = window
        show_centred(window)
    else:
        window.show()
        window.raise_()
    window.activateWindow()
    return cast(W, window)


@dataclass(frozen=True)
class Revocable:
    """One row: its cells (but the last column's), what they say on hover, and the key Revoke is given."""

    key: str
    cells: tuple[str, ...]
    tooltip: str
    revoke_tooltip: str


class RevocableList(QWidget):
    """`intro` above a read-only table of `columns` (the last one, unnamed, for Revoke; `stretch` takes the
    room left), `empty` in its place when there are no rows, and Close at the bottom right of `buttons`."""

    def __init__(
        self,
        *,
        name: str,
        title: str,
        size: tuple[int, int],
        intro: str,
        columns: Sequence[str],
        stretch: int,
        empty: str,
    ) -> None:
        super().__init__(None)
        self.setObjectName(name)
        self.setWindowTitle(window_title(title))
        self.setWindowIcon(app_icon())
        self.resize(*size)
        layout = QVBoxLayout(self)
        intro_label = plain_label(intro, wrap=True)
        layout.addWidget(intro_label)
        self.table = read_only_table(columns)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(stretch, QHeaderView.ResizeMode.Stretch)
        layout.addWidget(self.table)
        self.empty_label = plain_label(empty)
        self.empty_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty_label.setStyleSheet("color: #5b6270; padding: 12px;")
        layout.addWidget(self.empty_label)
        self.buttons = QHBoxLayout()
        self.buttons.addStretch(1)
        close = QPushButton("Close")
        close.clicked.connect(self.close)
        self.buttons.addWidget(close)
        layout.addLayout(self.buttons)
        self.revoke_buttons: dict[str, QPushButton] = {}
        self.show_rows(())  # until the subclass lists its rows: the `empty` line alone, no empty table

    def show_rows(self, rows: Sequence[Revocable]) -> None:
        self.table.setRowCount(len(rows))
        self.revoke_buttons = {}
        for row, shown in enumerate(rows):
            for column, text in enumerate(shown.cells):
                item = QTableWidgetItem(text)
                item.setToolTip(tooltip(shown.tooltip))  # agents' names, sites, browsers' names
                self.table.setItem(row, column, item)
            button = QPushButton("Revoke")
            button.setToolTip(tooltip(shown.revoke_tooltip))
            button.clicked.connect(lambda _checked=False, key=shown.key: self.revoke(key))
            self.table.setCellWidget(row, self.table.columnCount() - 1, button)
            self.revoke_buttons[shown.key] = button
        self.table.setVisible(bool(rows))
        self.empty_label.setVisible(not rows)

    def revoke(self, key: str) -> None:
        """What the Revoke button of the row with `key` does."""
        raise NotImplementedError

    def stop(self) -> None:
        """Stop listening for changes (the window is closing)."""

    def closeEvent(self, event: QCloseEvent) -> None:
        self.stop()
        super().closeEvent(event)
