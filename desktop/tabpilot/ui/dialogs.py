"""Small non-blocking dialogs shared by the tray's windows: file pickers, confirmations, notices.

Each is shown with open() and answers through a callback, never exec(): a nested event loop would stall
the qasync loop the engine runs on. A dialog deletes itself (on the GUI thread) once answered.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog, QMessageBox, QWidget

from tabpilot.ui.icons import app_icon

log = logging.getLogger("tabpilot.ui")

_tasks: set[asyncio.Task[Any]] = set()


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
    dialog = QFileDialog(parent, title, str(start), name_filter)
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
    box = QMessageBox(parent)
    box.setWindowTitle(title)
    box.setWindowIcon(app_icon())
    box.setIcon(icon)
    box.setText(text)
    if details:
        box.setInformativeText(details)
    box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)
    return box
