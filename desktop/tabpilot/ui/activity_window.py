"""The live activity window: every command as it happens, a filter, a redacted detail view, progress bars.

Events arrive from the engine's activity stream one by one; the window collects them and applies them to
its model in batches (one insert and one change signal per batch), and keeps at most MAX_ROWS commands,
so it stays responsive while an agent fires a thousand commands.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import (
    QAbstractItemModel,
    QAbstractTableModel,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
    QTimer,
)
from PySide6.QtGui import QColor, QFont, QFontDatabase, QGuiApplication, QPainter, QPalette
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionProgressBar,
    QStyleOptionViewItem,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from tabpilot.engine.events import DECIDER_TEXT, ActivityEvent
from tabpilot.engine.workflows.workflows import scrub
from tabpilot.ui.dialogs import spawn
from tabpilot.ui.icons import app_icon
from tabpilot.ui.plain import tooltip

if TYPE_CHECKING:
    from tabpilot.app_facade import AppFacade

MAX_ROWS = 2000
"""Commands kept in the window; older ones drop off the bottom."""
FLUSH_MS = 50
"""Events are applied to the table at most this often (a batch per flush)."""
TICK_MS = 1000
"""How often the durations of running commands are redrawn."""
SHOWN_CHARS = 2000
SHOWN_ITEMS = 100
SHOWN_DEPTH = 8

COLUMNS = (
    "Time",
    "Who",
    "Command",
    "Site",
    "Target",
    "Decided by",
    "Duration",
    "Outcome",
    "Error",
)
TIME, AGENT, COMMAND, SITE, TARGET, DECIDED, DURATION, OUTCOME, ERROR = range(len(COLUMNS))
DISPLAY = int(Qt.ItemDataRole.DisplayRole.value)
FOREGROUND = int(Qt.ItemDataRole.ForegroundRole.value)
TOOLTIP = int(Qt.ItemDataRole.ToolTipRole.value)
PROGRESS_ROLE = int(Qt.ItemDataRole.UserRole.value) + 1
"""(steps_completed, steps_total) of a running command that reports steps, else None."""
ID_ROLE = int(Qt.ItemDataRole.UserRole.value) + 2
USED_ROLES = frozenset({FOREGROUND, TOOLTIP, PROGRESS_ROLE, ID_ROLE})

OUTCOME_COLOURS = {"ok": QColor("#1b7f3b"), "error": QColor("#c62828"), "denied": QColor("#b26a00")}
PROGRESS_COLOUR = QColor("#2e9e4f")
PHASE_TEXT = {"started": "running", "progress": "running", "awaiting_approval": "awaiting approval"}


@dataclass(slots=True)
class Command:
    """One command in the window, built from its activity events."""

    seq: int
    correlation_id: str
    time: float
    agent: str
    tool: str
    mode: str
    kind: str
    target: str
    params: dict[str, Any]
    phase: str = "started"
    duration_ms: float | None = None
    outcome: str | None = None
    error: str | None = None
    steps_completed: int | None = None
    steps_total: int | None = None
    who: str = ""
    """Who sent it: "you (tray)", or an agent by the name it gave (`agent says it is "…"`)."""
    site: str = ""
    decided_by: str | None = None
    texts: tuple[str, ...] = field(default=())

    def apply(self, event: ActivityEvent) -> None:
        self.phase = event.phase
        if not self.who:
            self.who = event.who  # the same for every event of a command
        self.kind = event.kind  # a scrape that clicks through pages turns out to change the page
        if event.site:
            self.site = event.site
        if event.decided_by is not None:
            self.decided_by = event.decided_by
        if event.duration_ms is not None:
            self.duration_ms = event.duration_ms
        if event.phase == "finished":
            self.outcome = event.outcome
            self.error = event.error
        if event.steps_total is not None:
            self.steps_total = event.steps_total
        if event.steps_completed is not None:
            self.steps_completed = event.steps_completed
        if event.phase != "progress" and event.target:
            self.target = event.target  # a progress event's target is the step's message
        self.texts = ()

    @property
    def running(self) -> bool:
        return self.phase != "finished"

    @property
    def progress(self) -> tuple[int, int] | None:
        if self.running and self.steps_total:
            return (self.steps_completed or 0, self.steps_total)
        return None

    def text(self, column: int) -> str:
        if column == DURATION and self.running:
            return _duration((time.time() - self.time) * 1000)  # counts up while it runs (see tick())
        if not self.texts:
            self.texts = self._texts()
        return self.texts[column]

    def _texts(self) -> tuple[str, ...]:
        moment = datetime.fromtimestamp(self.time).strftime("%H:%M:%S")
        duration = "" if self.duration_ms is None else _duration(self.duration_ms)
        if self.outcome is not None:
            outcome = self.outcome
            if self.steps_total:
                outcome += f" · {self.steps_completed or 0}/{self.steps_total} steps"
        else:
            outcome = PHASE_TEXT.get(self.phase, self.phase)
            if self.steps_total:
                outcome += f" {self.steps_completed or 0}/{self.steps_total}"
        return (
            moment,
            self.who,
            f"{self.tool} {self.mode}",
            self.site,
            self.target,
            self.decided(),
            duration,
            outcome,
            self.error or "",
        )

    def decided(self) -> str:
        if self.decided_by is None:
            return "waiting for approval" if self.phase == "awaiting_approval" else ""
        return DECIDER_TEXT.get(self.decided_by, self.decided_by)

    def summary(self) -> dict[str, Any]:
        item: dict[str, Any] = {
            "correlation_id": self.correlation_id,
            "time": datetime.fromtimestamp(self.time).astimezone().isoformat(timespec="milliseconds"),
            "agent": self.who,
            "command": f"{self.tool} {self.mode}",
            "kind": self.kind,
            "site": self.site,
            "target": self.target,
            "decided_by": self.decided(),
            "status": self.outcome or PHASE_TEXT.get(self.phase, self.phase),
        }
        if self.running:
            item["running_for_ms"] = round((time.time() - self.time) * 1000)
        elif self.duration_ms is not None:
            item["duration_ms"] = self.duration_ms
        if self.error:
            item["error"] = self.error
        if self.steps_total:
            item["steps_completed"] = self.steps_completed or 0
            item["steps_total"] = self.steps_total
        item["parameters"] = self.params
        return item


def _duration(ms: float) -> str:
    return f"{ms:.0f} ms" if ms < 1000 else f"{ms / 1000:.1f} s"


class ActivityModel(QAbstractTableModel):
    """Commands, newest first (row 0). Stored oldest first; row r is `_items[len - 1 - r]`."""

    def __init__(self, max_rows: int = MAX_ROWS, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.max_rows = max_rows
        self._items: list[Command] = []
        self._by_id: dict[str, Command] = {}
        self._seq = 0

    # -- reading ---------------------------------------------------------------------------------

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._items)

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(COLUMNS)

    def command_at(self, row: int) -> Command:
        return self._items[len(self._items) - 1 - row]

    def command(self, correlation_id: str) -> Command | None:
        return self._by_id.get(correlation_id)

    def row_of(self, command: Command) -> int:
        return self._items[-1].seq - command.seq

    def commands(self) -> list[Command]:
        """Newest first, as shown."""
        return self._items[::-1]

    @property
    def running(self) -> int:
        return sum(1 for c in self._items if c.running)

    def tick(self) -> None:
        """The running commands' durations count up: one change signal over their rows."""
        rows = [self.row_of(c) for c in self._items if c.running]
        if rows:
            self.dataChanged.emit(self.index(min(rows), DURATION), self.index(max(rows), DURATION))

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = DISPLAY) -> Any:
        # Called for every role of every visible cell on each paint (7 per cell): the common answers come
        # first and the roles this model does not use return before anything else is looked at.
        if role == DISPLAY:
            row = index.row()
            return None if row < 0 else self._items[len(self._items) - 1 - row].text(index.column())
        if role not in USED_ROLES or not index.isValid():
            return None
        command = self._items[len(self._items) - 1 - index.row()]
        column = index.column()
        if role == FOREGROUND:
            return OUTCOME_COLOURS.get(command.outcome) if column in (OUTCOME, ERROR) and command.outcome else None
        if role == PROGRESS_ROLE:
            return command.progress if column == OUTCOME else None
        if role == TOOLTIP:  # names agents gave, pages' addresses, errors: shown as they are
            if column == AGENT and command.who.startswith("agent "):
                return tooltip(f"{command.who}: the name its program gave; Tabpilot cannot check it.")
            text = command.text(column) if column in (TARGET, ERROR, COMMAND, SITE, DECIDED) else ""
            return tooltip(text) if text else None
        return command.correlation_id  # ID_ROLE

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal:
            return COLUMNS[section]
        return None

    # -- a batch of events -------------------------------------------------------------------------

    def apply(self, events: list[ActivityEvent]) -> set[str]:
        """Apply events in order: new commands are inserted at the top in one go, changed ones signalled
        once, the oldest dropped past max_rows. Returns the correlation ids that changed or appeared."""
        if not events:
            return set()
        fresh: list[Command] = []
        changed: dict[str, Command] = {}
        for event in events:
            command = self._by_id.get(event.correlation_id)
            if command is None:
                command = Command(
                    seq=self._seq + len(fresh),
                    correlation_id=event.correlation_id,
                    time=event.time,
                    agent=event.agent,
                    tool=event.tool,
                    mode=event.mode,
                    kind=event.kind,
                    target=event.target,
                    params=event.params,
                )
                command.apply(event)
                self._by_id[event.correlation_id] = command
                fresh.append(command)
            else:
                command.apply(event)
                changed[command.correlation_id] = command
        known = [c for c in changed.values() if self._items and c.seq <= self._items[-1].seq]
        if known:  # rows already shown: one change signal spanning them (before the insert moves them)
            rows = [self.row_of(c) for c in known]
            self.dataChanged.emit(self.index(min(rows), 0), self.index(max(rows), len(COLUMNS) - 1))
        if fresh:
            self._seq += len(fresh)
            self.beginInsertRows(QModelIndex(), 0, len(fresh) - 1)
            self._items.extend(fresh)
            self.endInsertRows()
        excess = len(self._items) - self.max_rows
        if excess > 0:
            count = len(self._items)
            self.beginRemoveRows(QModelIndex(), count - excess, count - 1)
            for command in self._items[:excess]:
                del self._by_id[command.correlation_id]
            del self._items[:excess]
            self.endRemoveRows()
        return {c.correlation_id for c in fresh} | set(changed)


class FilterProxy(QSortFilterProxyModel):
    """A case-insensitive substring filter over every column."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.needle = ""

    def set_needle(self, text: str) -> None:
        self.beginFilterChange()
        self.needle = text.strip().casefold()
        self.endFilterChange(QSortFilterProxyModel.Direction.Rows)

    def filterAcceptsRow(self, source_row: int, source_parent: QModelIndex | QPersistentModelIndex) -> bool:
        if not self.needle:
            return True
        model = self.sourceModel()
        assert isinstance(model, ActivityModel)
        command = model.command_at(source_row)
        return any(self.needle in command.text(c).casefold() for c in range(len(COLUMNS)))


class ProgressDelegate(QStyledItemDelegate):
    """The Outcome cell of a running command that reports steps: a progress bar (no widget per row)."""

    def paint(
        self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
    ) -> None:
        progress = index.data(PROGRESS_ROLE)
        if not progress:
            super().paint(painter, option, index)
            return
        completed, total = progress
        view = QStyleOptionViewItem(option)
        self.initStyleOption(view, index)
        view.text = ""
        widget = option.widget
        style = widget.style() if widget is not None else QApplication.style()
        style.drawControl(QStyle.ControlElement.CE_ItemViewItem, view, painter, widget)
        bar = QStyleOptionProgressBar()
        bar.rect = option.rect.adjusted(3, 3, -3, -3)
        bar.minimum = 0
        bar.maximum = max(total, 1)
        bar.progress = min(completed, total)
        bar.text = f"{completed}/{total} steps"
        bar.textVisible = True
        bar.state = QStyle.StateFlag.State_Enabled | QStyle.StateFlag.State_Horizontal
        palette = QPalette(option.palette)
        palette.setColor(QPalette.ColorRole.Highlight, PROGRESS_COLOUR)  # stands out on a selected row too
        bar.palette = palette
        bar.fontMetrics = option.fontMetrics
        style.drawControl(QStyle.ControlElement.CE_ProgressBar, bar, painter, widget)


async def secret_values(facade: AppFacade) -> dict[str, str]:
    """The stored secrets' values, read off the GUI thread, to scrub them from anything shown."""
    return await asyncio.to_thread(facade.secret_values)


def cut(value: Any, secrets: Mapping[str, str] | None = None, depth: int = 0) -> Any:
    """A value made small enough to show: long strings, long lists and deep nesting are shortened.

    The `secrets`' values in it are replaced by their references first: a value split by the cut would
    leave its beginning on screen, where scrubbing afterwards no longer finds it."""
    if value is None or isinstance(value, bool | int | float):
        return value
    if depth >= SHOWN_DEPTH and isinstance(value, dict | list | tuple):
        return "…"
    if isinstance(value, dict):
        items = list(value.items())
        out = {_short(str(k), secrets): cut(v, secrets, depth + 1) for k, v in items[:SHOWN_ITEMS]}
        if len(items) > SHOWN_ITEMS:
            out["…"] = f"{len(items) - SHOWN_ITEMS} more fields"
        return out
    if isinstance(value, list | tuple):
        shown = [cut(v, secrets, depth + 1) for v in value[:SHOWN_ITEMS]]
        if len(value) > SHOWN_ITEMS:
            shown.append(f"… {len(value) - SHOWN_ITEMS} more")
        return shown
    return _short(value if isinstance(value, str) else str(value), secrets)


def _short(text: str, secrets: Mapping[str, str] | None) -> str:
    """`text` scrubbed of the secrets' values, then cut to SHOWN_CHARS (in that order)."""
    if secrets:
        text = scrub(text, dict(secrets))
    return text if len(text) <= SHOWN_CHARS else text[:SHOWN_CHARS] + f"… ({len(text)} chars)"


class ActivityWindow(QWidget):
    def __init__(self, facade: AppFacade, parent: QWidget | None = None) -> None:
        super().__init__(parent, Qt.WindowType.Window)
        self.facade = facade
        self.setWindowTitle("Tabpilot — Activity")
        self.setWindowIcon(app_icon())
        self.resize(1280, 620)
        self.model = ActivityModel(parent=self)
        self.proxy = FilterProxy(self)
        """Between the table and the model only while a filter is typed: it costs a third of each paint."""

        layout = QVBoxLayout(self)
        top = QHBoxLayout()
        self.filter_box = QLineEdit()
        self.filter_box.setPlaceholderText("Filter: agent, command, site, target, who decided, outcome, error…")
        self.filter_box.setClearButtonEnabled(True)
        self.filter_box.textChanged.connect(self.set_filter)
        self.count_label = QLabel()
        top.addWidget(self.filter_box, 1)
        top.addWidget(self.count_label)
        layout.addLayout(top)

        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setItemDelegateForColumn(OUTCOME, ProgressDelegate(self.table))
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setAlternatingRowColors(True)
        self.table.setWordWrap(False)
        self.table.setShowGrid(False)
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 10)
        header = self.table.horizontalHeader()
        header.setHighlightSections(False)
        for column, width in (
            (TIME, 66),
            (AGENT, 236),
            (COMMAND, 124),
            (SITE, 150),
            (DECIDED, 140),
            (DURATION, 66),
            (OUTCOME, 140),
        ):
            header.resizeSection(column, width)
        header.setSectionResizeMode(TARGET, QHeaderView.ResizeMode.Stretch)
        header.resizeSection(ERROR, 128)
        self.table.selectionModel().currentRowChanged.connect(self._current_changed)

        lower = QWidget()
        lower_layout = QVBoxLayout(lower)
        lower_layout.setContentsMargins(0, 0, 0, 0)
        self.detail = QPlainTextEdit()
        self.detail.setReadOnly(True)
        self.detail.setPlaceholderText("Select a command to see its parameters and result.")
        self.detail.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.detail.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        buttons = QHBoxLayout()
        self.copy_button = QPushButton("Copy as JSON")
        self.copy_button.setEnabled(False)
        self.copy_button.clicked.connect(self.copy_json)
        buttons.addStretch(1)
        buttons.addWidget(self.copy_button)
        lower_layout.addWidget(self.detail)
        lower_layout.addLayout(buttons)

        splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.addWidget(self.table)
        splitter.addWidget(lower)
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 2)
        layout.addWidget(splitter, 1)
        bold = QFont(self.count_label.font())
        bold.setBold(True)
        self.count_label.setFont(bold)

        self.detail_id: str | None = None
        self.detail_json = ""
        self._render: asyncio.Task[Any] | None = None
        self._render_again = False
        self._pending: list[ActivityEvent] = []
        self._flush_timer = QTimer(self)
        self._flush_timer.setSingleShot(True)
        self._flush_timer.setInterval(FLUSH_MS)
        self._flush_timer.timeout.connect(self.flush)
        self._tick_timer = QTimer(self)
        self._tick_timer.setInterval(TICK_MS)
        self._tick_timer.timeout.connect(self.model.tick)
        self._pending.extend(facade.recent_activity())
        self._unsubscribe = facade.watch_activity(self._event)
        self.flush()

    def dispose(self) -> None:
        """Stop following the engine (before the window is deleted)."""
        self._unsubscribe()
        self._unsubscribe = lambda: None
        self._flush_timer.stop()
        self._tick_timer.stop()
        if self._render is not None:
            self._render.cancel()

    def _event(self, event: ActivityEvent) -> None:
        self._pending.append(event)
        if not self._flush_timer.isActive():
            self._flush_timer.start()

    def flush(self) -> None:
        """Apply the events collected since the last flush, as one batch."""
        self._flush_timer.stop()
        events, self._pending = self._pending, []
        changed = self.model.apply(events)
        running = self.model.running
        total = self.model.rowCount()
        self.count_label.setText(f"{total} commands · {running} running" if running else f"{total} commands")
        if running and not self._tick_timer.isActive():
            self._tick_timer.start()
        elif not running:
            self._tick_timer.stop()
        if self.detail_id is not None and self.detail_id in changed:
            self.show_detail(self.detail_id)

    # -- the detail view -------------------------------------------------------------------------

    def _current_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        correlation_id = current.data(ID_ROLE) if current.isValid() else None
        if correlation_id != self.detail_id:
            self.show_detail(correlation_id)

    def set_filter(self, text: str) -> None:
        """Show only the commands with `text` in a column; the proxy is attached only while filtering."""
        filtering = bool(text.strip())
        if filtering and self.proxy.sourceModel() is None:
            self.proxy.setSourceModel(self.model)
        self.proxy.set_needle(text)
        shown = self.proxy if filtering else self.model
        if self.table.model() is not shown:
            header = self.table.horizontalHeader()
            state = header.saveState()  # the person's column widths survive the swap
            selected = self.detail_id
            self.table.setModel(shown)
            header.restoreState(state)
            self.table.selectionModel().currentRowChanged.connect(self._current_changed)
            if selected is not None:
                self.select(selected)
        if not filtering and self.proxy.sourceModel() is not None:
            self.proxy.setSourceModel(None)  # type: ignore[arg-type]

    def shown_model(self) -> QAbstractItemModel:
        """What the table shows: the model, or the filter over it."""
        model = self.table.model()
        assert model is not None
        return model

    def select(self, correlation_id: str) -> bool:
        """Select a command's row (the filter permitting); its detail follows."""
        command = self.model.command(correlation_id)
        if command is None:
            return False
        index = self.model.index(self.model.row_of(command), 0)
        if self.table.model() is self.proxy:
            index = self.proxy.mapFromSource(index)
        if not index.isValid():
            return False
        self.table.setCurrentIndex(index)
        return True

    def show_detail(self, correlation_id: str | None) -> None:
        self.detail_id = correlation_id
        if correlation_id is None:
            self.detail.clear()
            self.detail_json = ""
            self.copy_button.setEnabled(False)
            return
        if self._render is not None and not self._render.done():
            self._render_again = True
            return
        self._render = spawn(self._render_detail())

    async def _render_detail(self) -> None:
        while True:
            self._render_again = False
            correlation_id = self.detail_id
            if correlation_id is None or self.model.command(correlation_id) is None:
                return
            values = await secret_values(self.facade)
            if self._render_again:
                continue
            command = self.model.command(correlation_id)
            if correlation_id != self.detail_id or command is None:
                return
            doc = self.detail_of(command, values)
            # The result is scrubbed before it is cut (in detail_of); the rest (parameters) here.
            self.detail_json = json.dumps(scrub(doc, values), indent=2, ensure_ascii=False, default=str)
            scroll = self.detail.verticalScrollBar().value()
            self.detail.setPlainText(self.detail_json)
            self.detail.verticalScrollBar().setValue(scroll)
            self.copy_button.setEnabled(True)
            return

    def detail_of(self, command: Command, secrets: Mapping[str, str] | None = None) -> dict[str, Any]:
        """What the detail view shows: the event's (redacted) parameters and the job's result, cut short
        (after the `secrets`' values in it are replaced by their references)."""
        doc = command.summary()
        job = self.facade.job_outcome(command.correlation_id)
        if job is None:
            if command.running:
                doc["result"] = "(not known)"
            else:
                doc["result"] = "(no longer kept: Tabpilot keeps the results of recent commands only)"
        elif not job.done:
            doc["result"] = f"(still {job.status.replace('_', ' ')})"
        elif job.error is not None:
            doc["error_detail"] = cut(job.error.envelope(), secrets)
        else:
            doc["result"] = cut(job.result, secrets)
        return doc

    def copy_json(self) -> None:
        if self.detail_json:
            QGuiApplication.clipboard().setText(self.detail_json)
