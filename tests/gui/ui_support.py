"""Helpers for the tray-window tests: a scripted "jobs" site for a FakeExtension, saved workflows,
finding the windows and dialogs a click opened, and recording tray notifications."""

from __future__ import annotations

import asyncio
import json
import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QAbstractButton, QApplication, QMenu, QMessageBox, QWidget
from tests.support.waiting import until

from tabpilot.app import App
from tabpilot.ui import dialogs
from tabpilot.ui.tray import TrayController

W = TypeVar("W", bound=QWidget)

ORIGIN = "https://jobs.test"


class PageError(Exception):
    """Raised by a fake handler: the FakeExtension answers with this contract code."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


@dataclass
class JobsSite:
    """What a FakeExtension answers for a workflow: a tab, navigation, fills, and two rows of jobs."""

    secret_value: str = ""
    rows: list[dict[str, Any]] = field(
        default_factory=lambda: [{"title": 'Dev, "senior"', "city": "Berlin"}, {"title": "Ops", "city": "Lyon"}]
    )
    navigated: list[str] = field(default_factory=list)
    filled: list[str] = field(default_factory=list)
    fail_navigation: str | None = None
    hold: asyncio.Event | None = None
    """While set to an unset event, extraction waits for it (a workflow that stays running)."""

    def handlers(self) -> dict[str, Any]:
        return {
            "tabs_resolve": self.tab,
            "tab_navigate": self.navigate,
            "dom_fill": self.fill,
            "scrape_extract": self.extract,
            "page_info": self.page,
            "js_execute": self.script,
        }

    def tab(self, params: dict[str, Any]) -> dict[str, Any]:
        return {"tab_id": 1, "url": f"{ORIGIN}/", "title": "Jobs"}

    def navigate(self, params: dict[str, Any]) -> dict[str, Any]:
        if self.fail_navigation:
            raise PageError("tab_closed", self.fail_navigation)
        self.navigated.append(params["url"])
        return {"status": "complete", "url": params["url"], "title": "Jobs"}

    def fill(self, params: dict[str, Any]) -> dict[str, Any]:
        self.filled.append(params["value"])
        # A page showing what was typed: results must come back with the reference, not the value.
        return {"filled": True, "changed": f"text '{params['value']}' appeared"}

    async def extract(self, params: dict[str, Any]) -> dict[str, Any]:
        if self.hold is not None:
            await self.hold.wait()
        found = [dict(r) for r in self.rows]
        if self.secret_value:
            found.append({"title": "Leaky", "city": f"typed {self.secret_value}"})
        return {"rows": found, "matched": len(found), "returned": len(found), "url": f"{ORIGIN}/list", "warnings": []}

    def page(self, params: dict[str, Any]) -> dict[str, Any]:
        return {
            "url": f"{ORIGIN}/",
            "title": "Jobs",
            "viewport": {"width": 800, "height": 600},
            "scroll": {"x": 0, "y": 0},
            "documentHeight": 600,
            "forms": [],
            "headings": ["Jobs"],
            "links": 0,
            "images": 0,
            "interactiveElements": 0,
        }

    def script(self, params: dict[str, Any]) -> dict[str, Any]:
        # A script reading the password field back: not scrubbed by the engine, so the UI must.
        return {"success": True, "result": f"field holds {self.secret_value}"}


def jobs_workflow(workflow_id: str = "wf-jobs", name: str = "Jobs", secret: str | None = None) -> dict[str, Any]:
    steps: list[dict[str, Any]] = [{"type": "navigate", "url": ORIGIN + "/search?q={{query}}&in={{city}}"}]
    if secret:
        steps.append({"type": "fill", "selector": "#password", "value": f"{{{{secret:{secret}}}}}"})
    steps.append(
        {"type": "extract", "selector": "tr.job", "schema": {"title": "td.title | text", "city": "td.city | text"}}
    )
    return {"workflow_id": workflow_id, "name": name, "steps": steps, "params": {"query": "python"}}


def save_workflow(app: App, doc: dict[str, Any]) -> Path:
    path = app.paths.workflows_dir / f"{doc['workflow_id']}.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def secret_name() -> str:
    return "TEST_PW_" + secrets.token_hex(4).upper()


def secret_value() -> str:
    return "s3cr3t-" + secrets.token_hex(8)


def menu_item(menu: QMenu, text: str) -> QAction:
    """The item labelled exactly `text` (find_action matches a prefix: "Run" is also "Run with…")."""
    matches = [a for a in menu.actions() if a.text() == text]
    assert len(matches) == 1, f"expected one item {text!r}, menu has {[a.text() for a in menu.actions()]}"
    return matches[0]


def open_windows(kind: type[W]) -> list[W]:
    return [w for w in QApplication.topLevelWidgets() if isinstance(w, kind) and w.isVisible()]


async def window_of(kind: type[W], what: str = "", timeout: float = 5.0) -> W:
    """The one visible top-level window of `kind` (a dialog the last click opened)."""
    found = await until(lambda: open_windows(kind), timeout=timeout, what=what or f"a {kind.__name__}")
    assert len(found) == 1, f"expected one {kind.__name__}, found {len(found)}"
    return found[0]


def click(button: QAbstractButton) -> None:
    assert button.isEnabled(), f"{button.text()!r} is disabled"
    QTest.mouseClick(button, Qt.MouseButton.LeftButton)


async def answer_box(text: str) -> str:
    """Click the button labelled `text` in the open message box; returns what the box said."""
    box = await window_of(QMessageBox, f"a message box with {text!r}")
    said = f"{box.text()}\n{box.informativeText()}"
    buttons = [b for b in box.buttons() if b.text().replace("&", "") == text]
    assert buttons, f"no {text!r} in {[b.text() for b in box.buttons()]}"
    click(buttons[0])
    await until(lambda: not open_windows(QMessageBox), what="the message box to close")
    return said


class Notifications:
    """Records the tray's showMessage calls instead of showing them."""

    def __init__(self, tray: TrayController, monkeypatch: pytest.MonkeyPatch) -> None:
        self.shown: list[tuple[str, str]] = []
        monkeypatch.setattr(tray.tray, "showMessage", lambda title, text, *rest: self.shown.append((title, text)))

    def texts(self) -> list[str]:
        return [text for _, text in self.shown]

    async def wait_for(self, start: str, timeout: float = 10.0) -> str:
        def found() -> str | None:
            return next((t for t in self.texts() if t.startswith(start)), None)

        text: str = await until(found, timeout=timeout, what=f"a notification starting {start!r}: {self.texts()}")
        return text


async def ui_settled(timeout: float = 10.0) -> None:
    """Wait for the windows' background work (keyring calls, detail views). A test ends with this when it
    opened windows: pytest-qt processes events after the test, outside the loop, and a task still pending
    then would run without a running loop."""
    await until(lambda: not dialogs.busy(), timeout=timeout, what="the windows' background work")
