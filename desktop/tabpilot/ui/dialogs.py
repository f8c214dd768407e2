"""Small non-blocking dialogs shared by the tray's windows: file pickers, confirmations, notices.

Each is shown with open() and answers through a callback, never exec(): a nested event loop would stall
the qasync loop the engine runs on. A dialog deletes itself (on the GUI thread) once answered.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QDialog, QFileDialog, QLabel, QLineEdit, QMessageBox, QStyle, QWidget

from tabpilot.ui.icons import app_icon
from tabpilot.ui.plain import plain_message, window_title_text

log = logging.getLogger("tabpilot.ui")

_tasks: set[asyncio.Task[Any]] = set()

TITLE_PREFIX = "Tabpilot — "
STEP_INDEX = re.compile(r"\b([Ss]tep) (\d+(?:\.(?:then|else)\.\d+)*)(?= \()")
"""`Step 0 (navigate)`, `step 2.then.0 (click)`: how the engine names a workflow step (from 0, as agents count)."""


def window_title(what: str) -> str:
    """Every window's title in one style: `Tabpilot — Secrets`, `Tabpilot — Run Jobs` (given with or without
    the prefix). It may name a workflow: shown as given (plain.window_title_text)."""
    what = window_title_text(what.removeprefix(TITLE_PREFIX))
    return TITLE_PREFIX + what[:1].upper() + what[1:]


class _EscapeCloses(QObject):
    """Closes its window on an Escape no widget in it used (line edits and tables let it pass up)."""

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if (
            event.type() == QEvent.Type.KeyPress
            and isinstance(event, QKeyEvent)
            and event.key() == Qt.Key.Key_Escape
            and event.modifiers() == Qt.KeyboardModifier.NoModifier
            and isinstance(watched, QWidget)
        ):
            watched.close()
            return True
        return False


def close_on_escape(window: QWidget) -> None:
    """Escape closes the window, as it closes a dialog (a QDialog does this itself)."""
    if isinstance(window, QDialog) or window.findChild(_EscapeCloses) is not None:
        return
    window.installEventFilter(_EscapeCloses(window))


def fit_placeholder(edit: QLineEdit) -> None:
    """The line edit never narrower than its placeholder: a hint cut off mid-word says nothing."""
    margins = edit.textMargins()
    frame = edit.style().pixelMetric(QStyle.PixelMetric.PM_DefaultFrameWidth)
    room = margins.left() + margins.right() + 2 * frame + 2 * 2 + 4  # Qt's own 2 px each side, and a little air
    edit.setMinimumWidth(edit.fontMetrics().horizontalAdvance(edit.placeholderText()) + room)


def steps_from_one(message: str) -> str:
    """A message about a workflow step, numbered from 1 as the prompts and windows number steps."""

    def renumber(match: re.Match[str]) -> str:
        index = ".".join(str(int(part) + 1) if part.isdigit() else part for part in match.group(2).split("."))
        return f"{match.group(1)} {index}"

    return STEP_INDEX.sub(renumber, message)


def spawn(coro: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]:
    """Run `coro` on the running (qasync) loop, holding a reference (the loop keeps only a weak one)."""
    task = asyncio.get_event_loop().create_task(coro)
    _tasks.add(task)
    task.add_done_callback(_done)
    return task


def busy() -> bool:
    """Is UI work still under way (a keyring call, a detail view being rendered)?"""
    return any(not task.done() for task in _tasks)


def _done(task: asyncio.Task[Any]) -> None:
    _tasks.discard(task)
    if not task.cancelled() and task.exception() is not None:
        log.error("a UI task failed: %r", task.exception())


def _file_dialog(
    parent: QWidget, title: str, mode: QFileDialog.AcceptMode, start: Path, name_filter: str
) -> QFileDialog:
    dialog = QFileDialog(parent, window_title(title), str(start), name_filter)
    dialog.setAcceptMode(mode)
    dialog.setFileMode(
        QFileDialog.FileMode.AnyFile if mode == QFileDialog.AcceptMode.AcceptSave else QFileDialog.FileMode.ExistingFile
    )
    # Qt's own dialog: the same on every desktop, and one a test can drive.
    dialog.setOption(QFileDialog.Option.DontUseNativeDialog, True)
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)
    dialog.setWindowIcon(app_icon())
    return dialog


def ask_save_path(
    parent: QWidget, title: str, suggested: Path, name_filter: str, chosen: Callable[[Path], None]
) -> QFileDialog:
    dialog = _file_dialog(parent, title, QFileDialog.AcceptMode.AcceptSave, suggested.parent, name_filter)
    dialog.selectFile(suggested.name)
    dialog.setDefaultSuffix(suggested.suffix.lstrip("."))
    dialog.fileSelected.connect(lambda path: chosen(Path(path)))
    dialog.open()
    return dialog


def ask_open_path(
    parent: QWidget, title: str, start: Path, name_filter: str, chosen: Callable[[Path], None]
) -> QFileDialog:
    dialog = _file_dialog(parent, title, QFileDialog.AcceptMode.AcceptOpen, start, name_filter)
    dialog.fileSelected.connect(lambda path: chosen(Path(path)))
    dialog.open()
    return dialog


def confirm(
    parent: QWidget,
    title: str,
    text: str,
    yes: str,
    on_yes: Callable[[], None],
    *,
    details: str = "",
    destructive: bool = False,
) -> QMessageBox:
    """A question whose safe answer (Cancel) is the default."""
    box = _message_box(
        parent, title, text, details, QMessageBox.Icon.Warning if destructive else QMessageBox.Icon.Question
    )
    accept = box.addButton(
        yes, QMessageBox.ButtonRole.DestructiveRole if destructive else QMessageBox.ButtonRole.AcceptRole
    )
    cancel = box.addButton(QMessageBox.StandardButton.Cancel)
    box.setDefaultButton(cancel)
    box.setEscapeButton(cancel)

    def answered(_: int) -> None:
        if box.clickedButton() is accept:
            on_yes()

    box.finished.connect(answered)
    box.open()
    return box


def notice(parent: QWidget, title: str, text: str, *, details: str = "", warning: bool = False) -> QMessageBox:
    box = _message_box(
        parent, title, text, details, QMessageBox.Icon.Warning if warning else QMessageBox.Icon.Information
    )
    box.setStandardButtons(QMessageBox.StandardButton.Ok)
    box.open()
    return box


def _message_box(parent: QWidget, title: str, text: str, details: str, icon: QMessageBox.Icon) -> QMessageBox:
    """`text` and `details` are plain text: they name workflows, files and errors others wrote."""
    box = plain_message(QMessageBox(parent))
    box.setWindowTitle(window_title(title))
    box.setWindowIcon(app_icon())
    box.setIcon(icon)
    box.setText(text)
    if details:
        box.setInformativeText(details)
    for label in box.findChildren(QLabel):
        label.setWordWrap(True)  # plain text does not wrap in a message box unless told to
    box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)
    return box
