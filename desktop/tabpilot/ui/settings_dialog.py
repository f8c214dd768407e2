"""The Settings dialog: port, managed browser, delays, dialogs, redaction, upload folders, start at login,
and rotating the token.

Save hands the new settings to the app, which uses at once what it can and says what needs a restart.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from tabpilot import autostart
from tabpilot.storage.settings import DIALOG_POLICIES, Settings
from tabpilot.ui.dialogs import ask_open_path, confirm, fit_placeholder
from tabpilot.ui.icons import app_icon

if TYPE_CHECKING:
    from tabpilot.app_facade import AppFacade

log = logging.getLogger("tabpilot.ui")

APPROVAL_WAIT_MS = (1_000, 60_000)
"""The range of "Agents wait for approval": past 60 s MCP clients typically give up on the call (and the
prompt itself denies at 120 s). The app clamps a saved value the same way."""
STEP_DELAY_MS = (0, 600_000)
"""The range of "Delay between steps"."""
DIALOG_POLICY_TEXT = {"leave": "Leave them for the agent", "dismiss": "Dismiss them after"}
"""What happens to a page's alert, confirm, prompt or "leave this page?" that nobody answers."""

RESTART_NAMES = {
    "port": "the port",
    "browser_executable": "the browser executable",
    "managed_headless": "the headless choice",
}


class SecondsBox(QDoubleSpinBox):
    """A time shown in seconds (`0.5 s`, `20 s`), kept in milliseconds as the settings store it. A value the
    person did not touch is given back exactly as it was stored (no rounding to what is shown)."""

    def __init__(self, range_ms: tuple[int, int], *, step_s: float) -> None:
        super().__init__()
        self.setDecimals(2)
        self.setRange(range_ms[0] / 1000, range_ms[1] / 1000)
        self.setSingleStep(step_s)
        self.setSuffix(" s")
        self._stored: tuple[int, float] | None = None

    def textFromValue(self, value: float) -> str:
        text = self.locale().toString(value, "f", self.decimals())
        point = self.locale().decimalPoint()
        return text.rstrip("0").rstrip(point) if point in text else text

    def set_ms(self, ms: int) -> None:
        self.setValue(ms / 1000)
        self._stored = (ms, self.value())

    def ms(self) -> int:
        if self._stored is not None and self._stored[1] == self.value():
            return self._stored[0]
        return round(self.value() * 1000)


def align_labels(*forms: QFormLayout) -> None:
    """The forms of several boxes, one above the other, with their fields starting at the same x."""
    labels: list[QLabel] = []
    for form in forms:
        # Text fields take the width; numbers and buttons keep theirs (a port in a field as wide as a path
        # reads badly).
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.ExpandingFieldsGrow)
        for row in range(form.rowCount()):
            item = form.itemAt(row, QFormLayout.ItemRole.LabelRole)
            label = item.widget() if item is not None else None
            if isinstance(label, QLabel):
                labels.append(label)
    width = max((label.sizeHint().width() for label in labels), default=0)
    for label in labels:
        label.setMinimumWidth(width)


class SettingsDialog(QDialog):
    def __init__(self, facade: AppFacade, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.facade = facade
        self.setWindowTitle("Tabpilot — Settings")
        self.setWindowIcon(app_icon())
        self.setMinimumWidth(520)
        layout = QVBoxLayout(self)

        bridge = QGroupBox("Connection")
        bridge_form = QFormLayout(bridge)
        self.port = QSpinBox()
        self.port.setRange(0, 65535)
        self.port.setSpecialValueText("any free port")
        self.port.setToolTip("The port the extension and agents connect to (on 127.0.0.1 only).")
        bridge_form.addRow("Port:", self.port)
        self.rotate_button = QPushButton("Rotate token…")
        self.rotate_button.setToolTip("Replace the token agents use to reach Tabpilot.")
        self.rotate_button.clicked.connect(self.ask_rotate)
        bridge_form.addRow("Access token:", self.rotate_button)
        layout.addWidget(bridge)

        browser = QGroupBox("Managed browser")
        browser_form = QFormLayout(browser)
        self.browser_edit = QLineEdit()
        self.browser_edit.setPlaceholderText("found automatically")
        self.browser_edit.setToolTip("Left empty, a Chrome or Chromium installed on this computer is used.")
        fit_placeholder(self.browser_edit)
        self.browse_button = QPushButton("Browse…")
        self.browse_button.clicked.connect(self.ask_browser)
        row = QHBoxLayout()
        row.addWidget(self.browser_edit, 1)
        row.addWidget(self.browse_button)
        browser_form.addRow("Executable:", row)
        self.headless = QCheckBox("Run it without a window (headless)")
        browser_form.addRow("", self.headless)
        self.open_at_start = QCheckBox("Open it when Tabpilot starts")
        browser_form.addRow("", self.open_at_start)
        layout.addWidget(browser)

        work = QGroupBox("Workflows and safety")
        work_form = QFormLayout(work)
        self.step_delay = SecondsBox(STEP_DELAY_MS, step_s=0.1)
        self.step_delay.setToolTip("The pause between a workflow's steps, unless a request says otherwise.")
        work_form.addRow("Delay between steps:", self.step_delay)
        self.approval_wait = SecondsBox(APPROVAL_WAIT_MS, step_s=1.0)
        self.approval_wait.setToolTip(
            "How long (1 to 60 s) an agent waits on your approval before it hears `awaiting_approval` "
            "(the prompt stays)."
        )
        work_form.addRow("Agents wait for approval:", self.approval_wait)
        self.dialog_policy = QComboBox()
        for policy in DIALOG_POLICIES:
            self.dialog_policy.addItem(DIALOG_POLICY_TEXT[policy], policy)
        self.dialog_policy.setToolTip(
            "A page's alert, confirm, prompt or “leave this page?” stops the tab until someone answers. An agent "
            "answers with handle_dialog; what nobody answers is left open, or dismissed (Cancel) after a while."
        )
        self.dialog_after = QSpinBox()
        self.dialog_after.setRange(1, 3600)
        self.dialog_after.setSuffix(" s")
        self.dialog_after.setToolTip("How long a dialog may wait for an answer before Tabpilot dismisses it.")
        self.dialog_policy.currentIndexChanged.connect(self._dialog_policy_changed)
        dialogs_row = QHBoxLayout()
        dialogs_row.addWidget(self.dialog_policy)
        dialogs_row.addWidget(self.dialog_after)
        dialogs_row.addStretch(1)
        work_form.addRow("Dialogs nobody answers:", dialogs_row)
        self.redact = QPlainTextEdit()
        self.redact.setPlaceholderText("one CSS selector per line")
        self.redact.setToolTip("Elements whose content is never read out of a page (shown as [REDACTED]).")
        self.redact.setFixedHeight(self.fontMetrics().height() * 6)
        work_form.addRow("Never read (redact):", self.redact)
        self.uploads = QPlainTextEdit()
        self.uploads.setPlaceholderText("one folder per line, e.g. ~/Documents/forms")
        self.uploads.setToolTip(
            "Agents may upload files (interact upload) from Tabpilot's own uploads folder and from these. "
            "Each upload still asks you first, naming every file."
        )
        self.uploads.setFixedHeight(self.fontMetrics().height() * 4)
        work_form.addRow("Agents may upload from:", self.uploads)
        layout.addWidget(work)
        align_labels(bridge_form, browser_form, work_form)

        self.autostart = QCheckBox("Start Tabpilot when I log in")
        layout.addWidget(self.autostart)

        self.status = QLabel()
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        self.status.setWordWrap(True)
        layout.addWidget(self.status)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Close)
        self.save_button = self.buttons.button(QDialogButtonBox.StandardButton.Save)
        self.save_button.clicked.connect(self.save)
        self.buttons.rejected.connect(self.close)
        layout.addWidget(self.buttons)
        self.restart_needed: list[str] = []
        self.load()

    def dispose(self) -> None:
        """Nothing to unsubscribe."""

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if not event.spontaneous():
            self.load()

    def load(self) -> None:
        settings = self.facade.settings()
        self.port.setValue(settings.port)
        self.browser_edit.setText(settings.browser_executable)
        self.headless.setChecked(settings.managed_headless)
        self.open_at_start.setChecked(settings.open_managed_at_start)
        self.step_delay.set_ms(settings.step_delay_ms)
        self.approval_wait.set_ms(settings.approval_wait_ms)
        self.dialog_policy.setCurrentIndex(max(0, self.dialog_policy.findData(settings.dialog_policy)))
        self.dialog_after.setValue(settings.dialog_dismiss_after_s)
        self._dialog_policy_changed()
        self.redact.setPlainText("\n".join(settings.redact_selectors))
        self.uploads.setPlainText("\n".join(settings.upload_folders))
        self.autostart.setChecked(autostart.enabled())
        self.status.clear()

    def form_settings(self) -> Settings:
        selectors: list[str] = []
        for line in self.redact.toPlainText().splitlines():
            if line.strip() and line.strip() not in selectors:
                selectors.append(line.strip())
        return Settings(
            port=self.port.value(),
            browser_executable=self.browser_edit.text().strip(),
            managed_headless=self.headless.isChecked(),
            open_managed_at_start=self.open_at_start.isChecked(),
            step_delay_ms=self.step_delay.ms(),
            approval_wait_ms=self.approval_wait.ms(),
            redact_selectors=selectors,
            dialog_policy=str(self.dialog_policy.currentData()),
            dialog_dismiss_after_s=self.dialog_after.value(),
            upload_folders=self._upload_folders(),
        )

    def _upload_folders(self) -> list[str]:
        folders: list[str] = []
        for line in self.uploads.toPlainText().splitlines():
            if line.strip() and line.strip() not in folders:
                folders.append(line.strip())
        return folders

    def _dialog_policy_changed(self) -> None:
        self.dialog_after.setEnabled(self.dialog_policy.currentData() == "dismiss")

    def save(self) -> None:
        settings = self.form_settings()
        problems: list[str] = []
        if settings.browser_executable and not Path(settings.browser_executable).is_file():
            problems.append(f"There is no file {settings.browser_executable}.")
        for folder in settings.upload_folders:
            if not folder.startswith(("/", "~")):
                problems.append(f"Upload folders are full paths (/… or ~/…): {folder} is not.")
            elif not Path(folder).expanduser().is_dir():
                problems.append(f"There is no folder {folder}.")
        if problems:
            self.status.setText(" ".join(problems))
            return
        try:
            self.restart_needed = self.facade.apply_settings(settings)
        except OSError as exc:
            self.status.setText(f"The settings could not be saved: {exc}")
            return
        notes = ["Saved."]
        if self.autostart.isChecked() != autostart.enabled():
            try:
                autostart.set_enabled(self.autostart.isChecked())
            except OSError as exc:
                notes.append(f"Start at login could not be changed: {exc}.")
        if self.restart_needed:
            changed = ", ".join(RESTART_NAMES.get(name, name) for name in self.restart_needed)
            notes.append(f"Restart Tabpilot to use {changed}.")
        self.status.setText(" ".join(notes))

    def ask_browser(self) -> None:
        current = self.browser_edit.text().strip()
        start = Path(current).parent if current else Path.home()
        ask_open_path(self, "Choose the browser", start, "All files (*)", self._browser_chosen)

    def _browser_chosen(self, path: Path) -> None:
        self.browser_edit.setText(str(path))

    def ask_rotate(self) -> None:
        confirm(
            self,
            "Rotate token",
            "Replace the access token agents use to reach Tabpilot?",
            "Rotate token",
            self.rotate,
            details=(
                "Agent sessions running now (`tabpilot mcp`, MCP clients holding the token) are refused from now "
                "on and must reconnect. Browsers stay connected."
            ),
            destructive=True,
        )

    def rotate(self) -> None:
        try:
            self.facade.rotate_token()
        except Exception as exc:  # the keyring refused: a boundary, shown to the person
            log.warning("rotating the token failed: %s", exc)
            self.status.setText(f"The token could not be rotated: {exc}")
            return
        self.status.setText("A new token is in use; running agent sessions must reconnect.")
