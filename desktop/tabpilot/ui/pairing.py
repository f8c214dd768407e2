"""Pairing your own browser: "A browser wants to connect" with the one-time code to type into the
extension's popup (or Deny), a window with a code the person asked for, and the paired browsers with
Revoke.

Entry points for the tray, each given the app's facade: `watch_pairing_requests` (call once at start;
returns a handle with `.close()`), `show_pairing_code` ("Pair your own browser…"), `show_paired_browsers`.
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING, Literal

import shiboken6
from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QCloseEvent, QFont, QFontDatabase
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLayout,
    QPushButton,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from tabpilot.bridge.pairing import Pairing, PendingRequest, show_code
from tabpilot.ui.icons import app_icon
from tabpilot.ui.plain import plain_label
from tabpilot.ui.revocable import Revocable, RevocableList, open_one_per_app, show_centred

if TYPE_CHECKING:
    from tabpilot.app_facade import AppFacade

log = logging.getLogger("tabpilot.ui.pairing")

Outcome = Literal["open", "paired", "denied", "expired"]


class PairingRequestWindow(QWidget):
    """One open pairing code: who asked (when a browser knocked) and the code to type into its popup.

    Closes itself when the code is used (the browser is paired), expires, or is withdrawn; Deny (or
    closing the window) withdraws the code, so the browser stays refused.
    """

    def __init__(self, facade: AppFacade, pending: PendingRequest) -> None:
        super().__init__(None)
        self.facade = facade
        self.pending = pending
        self.outcome: Outcome = "open"
        self.paired: Pairing | None = None
        self._known = {p.pair_id for p in facade.paired_browsers()}
        knocked = bool(pending.instance_id)
        self.setObjectName("pairingRequest")
        self.setWindowTitle("Tabpilot — a browser wants to connect" if knocked else "Tabpilot — pair your browser")
        self.setWindowIcon(app_icon())
        self.setWindowFlag(Qt.WindowType.WindowStaysOnTopHint, True)
        self.setAttribute(Qt.WidgetAttribute.WA_ShowWithoutActivating, True)

        layout = QVBoxLayout(self)
        layout.setSizeConstraint(QLayout.SizeConstraint.SetFixedSize)
        layout.setContentsMargins(18, 16, 18, 16)
        layout.setSpacing(10)
        self.heading = QLabel("A browser wants to connect" if knocked else "Pair your own browser")
        heading_font = QFont(self.heading.font())
        heading_font.setPointSizeF(heading_font.pointSizeF() * 1.3)
        heading_font.setBold(True)
        self.heading.setFont(heading_font)
        layout.addWidget(self.heading)

        browser = pending.browser
        self.browser_label = _value(
            f"{browser.get('name') or 'unknown browser'} {browser.get('version') or ''}".strip()
        )
        self.system_label = _value(str(browser.get("os") or "not given"))
        if knocked:
            form = QFormLayout()
            form.setLabelAlignment(Qt.AlignmentFlag.AlignRight)
            form.addRow("Browser:", self.browser_label)
            form.addRow("System:", self.system_label)
            layout.addLayout(form)
            how = "If this is your browser, type this code into its Tabpilot popup:"
        else:
            how = "Type this code into the Tabpilot popup of your browser (its toolbar icon):"
        self.instructions = plain_label(how)  # later: the paired browser's name
        self.instructions.setWordWrap(True)
        self.instructions.setMinimumWidth(440)
        layout.addWidget(self.instructions)

        self.code_label = QLabel(show_code(pending.code))
        self.code_label.setObjectName("pairingCode")
        code_font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        code_font.setPointSizeF(max(20.0, code_font.pointSizeF() * 2.4))
        code_font.setBold(True)
        code_font.setLetterSpacing(QFont.SpacingType.AbsoluteSpacing, 3)
        self.code_label.setFont(code_font)
        self.code_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.code_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.code_label.setStyleSheet(
            "QLabel#pairingCode { background: #f3f5f8; border: 1px solid #c9ced6; border-radius: 6px; padding: 10px; }"
        )
        layout.addWidget(self.code_label)

        self.expiry_label = QLabel()
        self.expiry_label.setStyleSheet("color: #5b6270;")
        layout.addWidget(self.expiry_label)
        self.busy_label = plain_label()  # names the browser connected now
        """While another browser is connected: that this one waits for it to go, and how to make it go."""
        self.busy_label.setObjectName("pairingBusy")
        self.busy_label.setWordWrap(True)
        self.busy_label.setStyleSheet("QLabel#pairingBusy { color: #8a4b00; }")
        layout.addWidget(self.busy_label)
        self.warning_label = QLabel(
            "Not expecting this? Deny, and that browser stays refused." if knocked else "Cancel withdraws the code."
        )
        self.warning_label.setWordWrap(True)
        layout.addWidget(self.warning_label)

        buttons = QHBoxLayout()
        buttons.addStretch(1)
        self.deny_button = QPushButton("Deny" if knocked else "Cancel")
        self.deny_button.setDefault(True)
        self.deny_button.clicked.connect(self.deny)
        buttons.addWidget(self.deny_button)
        layout.addLayout(buttons)

        self._unsubscribe = [facade.watch_pairings(self._changed), facade.watch_browsers(self._link_moved)]
        self._show_busy()
        self._ticker = QTimer(self)
        self._ticker.setInterval(1000)
        self._ticker.timeout.connect(self._tick)
        self._ticker.start()
        self._tick()

    def deny(self) -> None:
        if self.outcome == "open":
            self.outcome = "denied"
            self.facade.withdraw_pairing_code(self.pending.code)  # -> _changed -> closes the window
            log.info("pairing code withdrawn by the user")
        self.close()

    def _link_moved(self) -> None:
        if not shiboken6.isValid(self):
            return
        if self.paired is not None and self.paired.pair_id in self.facade.connected_pairings():
            self.close()  # the browser paired while another was connected got its turn
            return
        self._show_busy()

    def _show_busy(self) -> None:
        full = self.facade.browsers_full()
        busy = bool(full)
        if busy:
            self.busy_label.setText(full)
        elif self.paired is not None:
            self.busy_label.setText("A browser is gone: this one connects within a few seconds.")
        self.busy_label.setVisible(busy or self.paired is not None)

    def _show_waiting(self, pairing: Pairing) -> None:
        """Paired while another browser is connected: say so here too (the popup says "waiting")."""
        self._ticker.stop()
        self.setWindowTitle("Tabpilot — browser paired")
        self.heading.setText("Paired: waiting for its turn")
        self.instructions.setText(f"{pairing.label()} is paired with Tabpilot.")
        for done in (self.code_label, self.expiry_label, self.warning_label):
            done.hide()
        self._show_busy()
        self.deny_button.setText("Close")

    def _tick(self) -> None:
        left = round(self.facade.seconds_left(self.pending))
        self.expiry_label.setText(f"The code works once, for the next {left // 60}:{left % 60:02d}.")
        self.facade.pairing_codes()  # lets the book expire it (we hear of that through _changed)

    def _changed(self) -> None:
        if self.outcome != "open" or not shiboken6.isValid(self):
            return
        if any(p.code == self.pending.code for p in self.facade.pairing_codes()):
            return
        fresh = [p for p in self.facade.paired_browsers() if p.pair_id not in self._known]
        mine = [p for p in fresh if p.instance_id == self.pending.instance_id or not self.pending.instance_id]
        if mine:
            self.outcome, self.paired = "paired", mine[-1]
            log.info("pairing completed: %s", mine[-1].describe())
            if self.facade.browsers_full() and mine[-1].pair_id not in self.facade.connected_pairings():
                self._show_waiting(mine[-1])
                return
        else:
            self.outcome = "expired"
        self.close()

    def closeEvent(self, event: QCloseEvent) -> None:
        if self.outcome == "open":  # closing the window is a Deny
            self.outcome = "denied"
            self.facade.withdraw_pairing_code(self.pending.code)
        self._stop()
        super().closeEvent(event)

    def _stop(self) -> None:
        self._ticker.stop()
        for unsubscribe in self._unsubscribe:
            unsubscribe()


def _value(text: str) -> QLabel:
    return plain_label(text, selectable=True)


class PairingWatcher:
    """Shows "A browser wants to connect" for each unpaired browser that knocks. A browser the person
    denied is not asked about again during this run (its new codes are withdrawn at once): to pair it
    after all, use "Pair your own browser…" (show_pairing_code)."""

    def __init__(self, facade: AppFacade) -> None:
        self.facade = facade
        self.windows: dict[str, PairingRequestWindow] = {}
        self.denied_instances: set[str] = set()
        self._busy = False
        self._closed = False
        self._unsubscribe = facade.watch_pairings(self._changed)
        self._changed()

    def _changed(self) -> None:
        if self._busy or self._closed:
            return
        self._busy = True
        try:
            self._update()
        finally:
            self._busy = False

    def _update(self) -> None:
        for code, window in list(self.windows.items()):
            if not shiboken6.isValid(window) or window.outcome != "open":
                if shiboken6.isValid(window) and window.outcome == "denied":
                    self.denied_instances.add(window.pending.instance_id)
                del self.windows[code]
        for pending in self.facade.pairing_codes():
            if not pending.instance_id or pending.code in self.windows:
                continue
            if pending.instance_id in self.denied_instances:
                self.facade.withdraw_pairing_code(pending.code)
                log.info("a browser denied earlier knocked again: refused without asking")
                continue
            window = PairingRequestWindow(self.facade, pending)
            window.destroyed.connect(lambda _obj=None: self._changed())
            self.windows[pending.code] = window
            show_centred(window)
            log.info("asking the user about a browser that wants to connect")

    def close(self) -> None:
        """Stop watching and close the open windows (their codes are withdrawn)."""
        if self._closed:
            return
        self._closed = True
        self._unsubscribe()
        for window in list(self.windows.values()):
            if shiboken6.isValid(window):
                window.close()
        self.windows.clear()


def watch_pairing_requests(facade: AppFacade) -> PairingWatcher:
    """Start asking about browsers that want to connect; `.close()` on the handle stops it."""
    return PairingWatcher(facade)


def open_pairing_code(facade: AppFacade) -> PairingRequestWindow:
    """A fresh one-time code in a window, for a browser the person sets up now."""
    window = PairingRequestWindow(facade, facade.offer_pairing_code())
    show_centred(window)
    window.activateWindow()
    return window


def show_pairing_code(facade: AppFacade) -> None:
    """For the tray menu: "Pair your own browser…"."""
    open_pairing_code(facade)


# -- paired browsers ---------------------------------------------------------------------------------

PAIRED_COLUMNS = ("Name", "Browser", "System", "Last seen", "Paired", "")
NAME_COLUMN, BROWSER_COLUMN = 0, 1


def _when(at: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(at)) if at else "—"


class PairedBrowsersWindow(RevocableList):
    def __init__(self, facade: AppFacade) -> None:
        super().__init__(
            name="pairedBrowsers",
            title="Tabpilot — paired browsers",
            size=(840, 260),
            intro=(
                "Browsers you paired with this app; double-click a name to change it. Revoke cuts a browser off "
                "now, and it connects again only if you pair it again. The managed browser needs no pairing."
            ),
            columns=PAIRED_COLUMNS,
            stretch=BROWSER_COLUMN,
            empty="No browser is paired.",
        )
        self.facade = facade
        table = self.table
        table.setEditTriggers(
            QAbstractItemView.EditTrigger.DoubleClicked | QAbstractItemView.EditTrigger.EditKeyPressed
        )
        table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        table.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        table.itemChanged.connect(self._renamed)
        self.pair_button = QPushButton("Pair a browser…")
        self.pair_button.clicked.connect(lambda: show_pairing_code(self.facade))
        self.buttons.insertWidget(0, self.pair_button)

        self._unsubscribe = [facade.watch_pairings(self.refresh), facade.watch_browsers(self.refresh)]
        self.refresh()

    def refresh(self) -> None:
        if not shiboken6.isValid(self):
            return
        connected = self.facade.connected_pairings()
        shown = []
        for pairing in self.facade.paired_browsers():
            seen = "connected now" if pairing.pair_id in connected else _when(pairing.last_seen)
            browser = f"{pairing.browser} {pairing.version}".strip()
            cells = (pairing.label(), browser, pairing.os or "—", seen, _when(pairing.created_at))
            shown.append(
                Revocable(
                    pairing.pair_id,
                    cells,
                    tooltip=f"{pairing.describe()} — extension {pairing.extension_id}, {pairing.pair_id}",
                    revoke_tooltip=f"Forget {pairing.label()} and cut it off now",
                )
            )
        blocked = self.table.blockSignals(True)  # rows rebuilt here are no renames
        try:
            self.show_rows(shown)
            for row, listed in enumerate(shown):
                for column in range(self.table.columnCount() - 1):
                    item = self.table.item(row, column)
                    if item is None:
                        continue
                    if column == NAME_COLUMN:
                        item.setToolTip("Double-click to rename")
                        item.setData(Qt.ItemDataRole.UserRole, listed.key)
                    else:
                        item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsEditable)
        finally:
            self.table.blockSignals(blocked)
        self.table.setCurrentCell(-1, -1)  # nothing looks selected until the person picks a name

    def rename(self, pair_id: str, name: str) -> None:
        if self.facade.rename_pairing(pair_id, name):
            log.info("paired browser %s renamed by the user", pair_id)

    def _renamed(self, item: QTableWidgetItem) -> None:
        pair_id = item.data(Qt.ItemDataRole.UserRole)
        if item.column() == NAME_COLUMN and isinstance(pair_id, str):
            self.rename(pair_id, item.text())

    def revoke(self, pair_id: str) -> None:
        if self.facade.revoke_pairing(pair_id):
            log.info("paired browser %s revoked by the user", pair_id)

    def stop(self) -> None:
        for unsubscribe in self._unsubscribe:
            unsubscribe()


def open_paired_browsers(facade: AppFacade) -> PairedBrowsersWindow:
    """The app's paired-browsers window, shown and raised (one per app)."""
    return open_one_per_app(facade, PairedBrowsersWindow)


def show_paired_browsers(facade: AppFacade) -> None:
    """For the tray menu: "Paired browsers…"."""
    open_paired_browsers(facade)
