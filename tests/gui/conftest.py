"""GUI test plumbing: a qasync loop for pytest-asyncio, the tray, a fake extension, and no silent errors.

Inside async tests, wait with `tests.support.waiting.until` (it polls with `await asyncio.sleep`):
qtbot.waitUntil / waitSignal spin a nested Qt loop and hang inside a coroutine on the qasync loop.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import re
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
import qasync
import shiboken6
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QAction
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QMenu
from tests.support.fake_extension import FakeExtension, paired_with
from tests.support.waiting import until

from tabpilot.app import App
from tabpilot.ui.tray import TrayController

GUI_DIR = Path(__file__).resolve().parent

# Qt messages the offscreen platform prints about itself, not about our code.
QT_PLATFORM_NOISE = (
    r"^This plugin does not support propagateSizeHints\(\)",
    r"^This plugin does not support raise\(\)",
    r"^This plugin does not support grabbing the keyboard",
    r"^QObject::connect: No such signal QPlatformNativeInterface::systemTrayWindowChanged",
)

_qt_app: list[QApplication] = []
"""Keeps the one QApplication alive across the per-test event loops."""


def _qasync_loop() -> asyncio.AbstractEventLoop:
    instance = QApplication.instance()
    if instance is None:
        instance = QApplication([])
    assert isinstance(instance, QApplication)
    # As in ui/main.py: the tray app lives on when its last window (an approval box) closes.
    instance.setQuitOnLastWindowClosed(False)
    if not _qt_app:
        _qt_app.append(instance)
    loop: asyncio.AbstractEventLoop = qasync.QEventLoop(instance)
    return loop


def pytest_asyncio_loop_factories(
    config: pytest.Config, item: pytest.Item
) -> Mapping[str, Callable[[], asyncio.AbstractEventLoop]]:
    """Every async test and fixture under tests/gui runs on a qasync loop, so Qt and asyncio share it."""
    return {"qasync": _qasync_loop}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if GUI_DIR in Path(str(item.path)).resolve().parents:
            item.add_marker(pytest.mark.gui)
            # qutebrowser's habit: a Qt warning during a test fails it.
            if item.get_closest_marker("qt_log_level_fail") is None:
                item.add_marker(pytest.mark.qt_log_level_fail("WARNING"))
            if item.get_closest_marker("qt_log_ignore") is None:
                item.add_marker(pytest.mark.qt_log_ignore(*QT_PLATFORM_NOISE))


@pytest.fixture(autouse=True)
def _collect_garbage_on_the_gui_thread() -> None:
    """Each test's qasync loop (holding QTimers) ends up in reference cycles once it is closed. Collect them
    here, on the GUI thread, before this test starts worker threads (asyncio.to_thread runs on qasync's
    QThreadExecutor): a collection there would destroy the timers off their thread ("QObject::~QObject:
    Timers cannot be stopped from another thread")."""
    gc.collect()


# -- Python logging: an ERROR from tabpilot fails the test --------------------------------------------


class ErrorLog(logging.Handler):
    """Collects ERROR (and worse) records of the `tabpilot` loggers; a test may allow some by pattern."""

    def __init__(self) -> None:
        super().__init__(level=logging.ERROR)
        self.records: list[logging.LogRecord] = []
        self._allowed: list[re.Pattern[str]] = []
        self._reported = 0

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)

    def allow(self, pattern: str) -> None:
        """An ERROR this test provokes on purpose (matched against the formatted message)."""
        self._allowed.append(re.compile(pattern))

    def check(self, when: str) -> None:
        """Fail with the unexpected errors logged since the last check."""
        fresh, self._reported = self.records[self._reported :], len(self.records)
        unexpected = [
            f"{r.levelname} {r.name}: {r.getMessage()}"
            for r in fresh
            if not any(p.search(r.getMessage()) for p in self._allowed)
        ]
        if unexpected:
            listing = "\n  ".join(unexpected)
            pytest.fail(f"the app logged unexpected errors {when}:\n  {listing}", pytrace=False)


@pytest.fixture(autouse=True)
def error_log() -> Iterator[ErrorLog]:
    """Autouse, so it is set up first and torn down last: it also sees errors logged while apps stop."""
    handler = ErrorLog()
    logger = logging.getLogger("tabpilot")
    logger.addHandler(handler)
    try:
        yield handler
    finally:
        logger.removeHandler(handler)
    handler.check("while the test's apps stopped")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    """An ERROR logged during the test fails the test itself (not only its teardown)."""
    result = yield
    handler = getattr(item, "funcargs", {}).get("error_log")
    if isinstance(handler, ErrorLog):
        handler.check("during the test")
    return result


# -- the tray, a fake extension, menu clicks ---------------------------------------------------------

TrayFactory = Callable[[App], TrayController]


@pytest.fixture
def make_tray(qapp: QApplication) -> Iterator[TrayFactory]:
    """The real TrayController on an App; hidden and deleted at the end of the test (before the apps stop)."""
    trays: list[TrayController] = []

    def factory(app: App) -> TrayController:
        tray = TrayController(app.facade, app.request_stop)
        trays.append(tray)
        return tray

    yield factory
    for tray in trays:
        if not shiboken6.isValid(tray):
            continue
        tray.close()
        # Delete the Qt objects now, on the GUI thread. Left to Python's cycle collector (the controller's
        # lambdas make cycles) they would die on whichever thread collects, e.g. an executor thread of
        # asyncio.to_thread: "QObject::~QObject: Timers cannot be stopped from another thread".
        for obj in (tray.menu, tray.tray, tray):
            shiboken6.delete(obj)


ExtensionFactory = Callable[..., Awaitable[FakeExtension]]


@pytest_asyncio.fixture
async def connect_extension() -> AsyncIterator[ExtensionFactory]:
    """Connect a FakeExtension (the real protocol over a real WebSocket) to an app's bridge."""
    fakes: list[FakeExtension] = []

    async def factory(app: App, **handlers: Any) -> FakeExtension:
        assert app.bridge is not None
        fake = paired_with(app)
        for op, handler in handlers.items():
            fake.on(op.replace("_", "."), handler)
        fakes.append(fake)
        await fake.connect()
        assert fake.welcome is not None, f"the bridge refused the fake extension: {fake.refused}"
        await until(lambda: app.link.connected, timeout=5, what="the app to see the extension")
        return fake

    yield factory
    for fake in fakes:
        await fake.close()


def find_action(menu: QMenu, text: str) -> QAction:
    """The menu's action whose text starts with `text` — found the way a user finds it, by its label."""
    matches = [a for a in menu.actions() if not a.isSeparator() and a.text().startswith(text)]
    assert len(matches) == 1, f"expected one menu item {text!r}, menu has {[a.text() for a in menu.actions()]}"
    return matches[0]


async def click_menu_item(menu: QMenu, action: QAction) -> None:
    """Open `menu` as the tray would and click `action` with the mouse."""
    menu.popup(QPoint(40, 40))
    await until(lambda: menu.isVisible() and not menu.actionGeometry(action).isEmpty(), what="the menu")
    assert action.isEnabled(), f"menu item {action.text()!r} is disabled"
    QTest.mouseClick(menu, Qt.MouseButton.LeftButton, pos=menu.actionGeometry(action).center())
    await until(lambda: not menu.isVisible(), what="the menu to close after the click")
