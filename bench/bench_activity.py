"""The activity window stays responsive while 1,000 commands stream in: frame time ≤ 16 ms (issue 4).

Frame time is the gap between two turns of the Qt event loop the app runs on (qasync: the engine, the
bridge and the UI share it), sampled by a 0 ms QTimer while the window is open, visible and painting.
Three runs:

- `window, synthetic`: 1,000 commands' activity events (started, progress for workflows, finished) go
  straight into the app's activity stream, 25 commands every 25 ms: the window's own cost;
- `no window, synthetic`: the same stream with no window, the baseline of the loop itself;
- `window filtered, synthetic`: the same with a filter typed (the filter proxy sits between table and model);
- `window, real commands`: 1,000 `observe page` calls through the real engine and bridge to a fake
  extension on a WebSocket (in this process, 8 at a time): the whole app path plus the window.

Run from the repository (the app needs the OS keyring):
    scripts/with-keyring .venv/bin/python -m bench.bench_activity [--commands 1000]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import qasync
from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QApplication, QTableView
from tests.support.fake_extension import paired_with
from tests.support.waiting import until

from bench.common import line, median, p95
from tabpilot.app import App, AppOptions
from tabpilot.approvals import AutoApprove
from tabpilot.engine.events import ActivityEvent
from tabpilot.paths import Paths
from tabpilot.ui.activity_window import ActivityWindow

TARGET_MS = 16.0
BUSY_MS = 0.5
"""A loop turn this long or longer did work: it counts as a frame."""
BATCH = 25
BATCH_INTERVAL_S = 0.025


class FrameSampler(QObject):
    """Stamps every turn of the event loop (a 0 ms timer fires once per turn) and times the table's paints.

    A turn that took ≥ BUSY_MS did work (a batch applied, a repaint, the engine and bridge): those are the
    frames; the idle turns in between (microseconds) are left out of the figures.
    """

    def __init__(self) -> None:
        super().__init__()
        self.stamps: list[float] = []
        self.paint_ms: list[float] = []
        self.table: QTableView | None = None
        self._painting = False
        self.timer = QTimer(self)
        self.timer.setInterval(0)
        self.timer.timeout.connect(lambda: self.stamps.append(time.perf_counter()))

    def watch(self, table: QTableView) -> None:
        self.table = table
        table.viewport().installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Paint the table's viewport here, as Qt would (viewportEvent), timing it."""
        if event.type() != QEvent.Type.Paint or self.table is None or self._painting:
            return False
        self._painting = True
        began = time.perf_counter()
        try:
            self.table.viewportEvent(event)
        finally:
            self.paint_ms.append((time.perf_counter() - began) * 1000)
            self._painting = False
        return True

    def start(self) -> None:
        self.stamps.clear()
        self.paint_ms.clear()
        self.timer.start()

    def stop(self) -> list[float]:
        self.timer.stop()
        return [(b - a) * 1000 for a, b in zip(self.stamps, self.stamps[1:], strict=False)]


class TimedWindow(ActivityWindow):
    """The activity window, timing each batch it applies."""

    flush_ms: list[float]

    def flush(self) -> None:
        began = time.perf_counter()
        super().flush()
        if hasattr(self, "flush_ms"):
            self.flush_ms.append((time.perf_counter() - began) * 1000)


def synthetic_events(n: int, cid: str) -> tuple[list[ActivityEvent], list[ActivityEvent]]:
    """A command's first event, and its later ones (every tenth is a 5-step workflow, every 7th fails)."""
    workflow = n % 10 == 0
    base = ActivityEvent(
        correlation_id=cid,
        phase="started",
        time=time.time(),
        agent="bench agent",
        tool="interact" if workflow else "observe",
        mode="scrape" if workflow else "page",
        kind="navigate" if workflow else "read",
        target=f"https://shop.test/items?page={n}",
        params={"operation": "replay", "workflow_id": f"wf-{n}"} if workflow else {"what": "page"},
    )
    later: list[ActivityEvent] = []
    if workflow:
        for step in range(1, 6):
            later.append(_with(base, phase="progress", steps_completed=step, steps_total=5, duration_ms=step * 10.0))
    failed = n % 7 == 0
    later.append(
        _with(
            base,
            phase="finished",
            duration_ms=3.5,
            outcome="error" if failed else "ok",
            error="element_not_found" if failed else None,
            steps_completed=5 if workflow else None,
            steps_total=5 if workflow else None,
        )
    )
    return [base], later


def _with(event: ActivityEvent, **changes: Any) -> ActivityEvent:
    fields = {**event.__dict__, **changes}
    return ActivityEvent(**fields)


_streams = [0]


async def stream_synthetic(app: App, commands: int) -> float:
    """Emit the events in batches as an agent's burst would produce them; returns the seconds it took."""
    emit = app.engine.activity.emit
    _streams[0] += 1
    began = time.perf_counter()
    pending: list[ActivityEvent] = []
    for start in range(0, commands, BATCH):
        for n in range(start, min(commands, start + BATCH)):
            first, later = synthetic_events(n, f"corr-bench-{_streams[0]}-{n:05d}")
            for event in first:
                emit(event)
            pending.extend(later)
        await asyncio.sleep(BATCH_INTERVAL_S)
        # The previous batch finishes while the next one starts.
        for event in pending:
            emit(event)
        pending.clear()
    return time.perf_counter() - began


async def real_commands(app: App, commands: int, concurrency: int = 8) -> float:
    queue = iter(range(commands))

    async def worker() -> None:
        for _ in queue:
            await app.engine.call("observe", {"what": "page"}, agent="bench agent")

    began = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    return time.perf_counter() - began


def report(rows: list[str], name: str, gaps: list[float], seconds: float) -> None:
    frames = [g for g in gaps if g >= BUSY_MS] or [0.0]
    over = sum(1 for g in frames if g > TARGET_MS)
    ok = p95(frames) <= TARGET_MS
    rows.append(line(f"{name}: frame time median", f"{median(frames):.2f} ms", f"≤ {TARGET_MS:g} ms", ok))
    rows.append(line(f"{name}: frame time p95", f"{p95(frames):.2f} ms", f"≤ {TARGET_MS:g} ms", ok))
    rows.append(
        line(f"{name}: worst frame; frames > 16 ms", f"{max(frames):.1f} ms; {over} of {len(frames)}", "reported")
    )
    rows.append(line(f"{name}: the stream took", f"{seconds:.2f} s", "reported"))


def timings(rows: list[str], name: str, values: list[float]) -> None:
    if values:
        rows.append(line(f"{name} median / p95", f"{median(values):.2f} / {p95(values):.2f} ms", "reported"))


async def main(qt_app: QApplication) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--commands", type=int, default=1000)
    opts = parser.parse_args()
    rows: list[str] = []
    sampler = FrameSampler()
    with tempfile.TemporaryDirectory() as tmp:
        app = App(Paths.resolve(Path(tmp) / "home"), AppOptions(browser="none", port=0, pilot=True), AutoApprove())
        await app.start()
        fake = paired_with(app)
        fake.on(
            "page.info", lambda p: {"url": "https://shop.test/", "title": "Shop", "viewport": {"width": 1, "height": 1}}
        )
        await fake.connect()
        window: TimedWindow | None = None
        try:
            # Baseline: the loop with the same stream and no window.
            sampler.start()
            seconds = await stream_synthetic(app, opts.commands)
            report(rows, "no window, synthetic", sampler.stop(), seconds)

            window = TimedWindow(app.facade)
            window.resize(1100, 700)
            window.show()
            sampler.watch(window.table)
            handle = window.windowHandle()
            await until(lambda: handle is not None and handle.isExposed(), what="the window on screen")
            # The window keeps the last MAX_ROWS commands; start from a full table, as after a busy hour.
            await stream_synthetic(app, opts.commands)
            await stream_synthetic(app, opts.commands)
            await until(lambda: window is not None and not window._pending, what="the table to catch up")
            window.select(window.model.commands()[5].correlation_id)  # a detail open while rows stream in
            window.flush_ms = []
            sampler.start()
            seconds = await stream_synthetic(app, opts.commands)
            await until(lambda: window is not None and not window._pending, what="the last batch")
            report(rows, "window, synthetic", sampler.stop(), seconds)
            timings(rows, f"window, synthetic: {len(window.flush_ms)} batches applied, each", window.flush_ms)
            timings(rows, f"window, synthetic: {len(sampler.paint_ms)} table paints, each", sampler.paint_ms)
            rows.append(line("rows kept by the window", f"{window.model.rowCount()}", "bounded (2,000)"))

            window.filter_box.setText("observe")  # a filter typed: the proxy between the table and the model
            window.flush_ms = []
            sampler.start()
            seconds = await stream_synthetic(app, opts.commands)
            await until(lambda: window is not None and not window._pending, what="the last batch")
            report(rows, "window filtered, synthetic", sampler.stop(), seconds)
            timings(rows, f"window filtered: {len(sampler.paint_ms)} table paints, each", sampler.paint_ms)
            window.filter_box.clear()

            window.flush_ms = []
            sampler.start()
            seconds = await real_commands(app, opts.commands)
            await until(lambda: window is not None and not window._pending, what="the last batch")
            report(rows, "window, real commands", sampler.stop(), seconds)
            timings(rows, f"window, real commands: {len(window.flush_ms)} batches applied, each", window.flush_ms)
            timings(rows, f"window, real commands: {len(sampler.paint_ms)} table paints, each", sampler.paint_ms)
        finally:
            if window is not None:
                window.dispose()
                window.close()
                window.deleteLater()
            await fake.close()
            await app.stop()
    print(f"activity window, {opts.commands} commands streaming in (Qt {qt_app.platformName()})")
    for row in rows:
        print(row)


def run() -> int:
    qt_app = QApplication.instance() or QApplication(sys.argv)
    assert isinstance(qt_app, QApplication)
    qt_app.setQuitOnLastWindowClosed(False)
    loop = qasync.QEventLoop(qt_app)
    asyncio.set_event_loop(loop)
    with loop:
        loop.run_until_complete(main(qt_app))
    return 0


if __name__ == "__main__":
    sys.exit(run())
