"""The Secrets window (the real OS keyring) and the Settings dialog."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from pathlib import Path

import aiohttp
import pytest
from PySide6.QtWidgets import QInputDialog, QLabel, QLineEdit, QWidget
from tests.conftest import AppFactory
from tests.gui.conftest import TrayFactory, click_menu_item, find_action
from tests.gui.ui_support import (
    answer_box,
    click,
    jobs_workflow,
    save_workflow,
    secret_name,
    secret_value,
    ui_settled,
    window_of,
)
from tests.support.waiting import until

from tabpilot import autostart
from tabpilot.app import App
from tabpilot.engine.core import DEFAULT_REDACT
from tabpilot.storage.settings import Settings
from tabpilot.ui.secrets_window import SecretsWindow
from tabpilot.ui.settings_dialog import SettingsDialog
from tabpilot.vault import keyring_store


def all_text(window: QWidget) -> str:
    """Every text the window holds: line edits (even password ones), labels, table cells."""
    texts = [e.text() for e in window.findChildren(QLineEdit)] + [label.text() for label in window.findChildren(QLabel)]
    if isinstance(window, SecretsWindow):
        table = window.table
        texts += [table.item(r, c).text() for r in range(table.rowCount()) for c in range(table.columnCount())]
    return "\n".join(texts)


def used_by(window: SecretsWindow, name: str) -> str:
    row = window.shown_names().index(name)
    return window.table.item(row, 2).text()


def select(window: SecretsWindow, name: str) -> None:
    window.table.selectRow(window.shown_names().index(name))
    assert window.selected_name() == name


async def test_secrets_add_edit_rename_delete_never_showing_a_value(
    make_app: AppFactory, make_tray: TrayFactory
) -> None:
    app = await make_app()
    tray = make_tray(app)
    name, value = secret_name(), secret_value()
    used = secret_name()
    save_workflow(app, jobs_workflow(secret=used))  # a workflow needing a secret not stored yet
    await click_menu_item(tray.menu, find_action(tray.menu, "Secrets…"))
    window = tray.windows["secrets"]
    assert isinstance(window, SecretsWindow)
    await until(lambda: used in window.shown_names(), what="the list")
    await ui_settled()
    row = window.shown_names().index(used)
    assert window.table.item(row, 1).text() == "missing"
    assert used_by(window, used) == "wf-jobs"

    # Add: the value field hides what is typed and is cleared once saved.
    assert window.value_edit.echoMode() == QLineEdit.EchoMode.Password
    window.name_edit.setText(name)
    window.value_edit.setText(value)
    click(window.save_button)
    assert window.value_edit.text() == ""
    await until(lambda: name in window.shown_names(), what="the new secret in the list")
    await ui_settled()
    assert app.secrets.get(name) == value
    assert window.status.text() == f"{name} saved."
    assert value not in all_text(window)

    # Edit: a new value for the selected name.
    select(window, name)
    assert window.name_edit.text() == name
    changed = secret_value()
    window.value_edit.setText(changed)
    click(window.save_button)
    await until(lambda: window.status.text() == f"{name} changed.", what="the change")
    await ui_settled()
    assert app.secrets.get(name) == changed
    assert changed not in all_text(window) and value not in all_text(window)

    # Rename it to the name the workflow uses: it is no longer missing, and the old name is gone.
    select(window, name)
    click(window.rename_button)
    dialog = await window_of(QInputDialog, "the rename dialog")
    dialog.setTextValue(used)
    dialog.accept()
    await until(lambda: name not in window.shown_names(), what="the old name to go")
    await ui_settled()
    assert app.secrets.get(used) == changed
    assert app.secrets.get(name) is None
    row = window.shown_names().index(used)
    assert window.table.item(row, 1).text() == "yes"
    assert used_by(window, used) == "wf-jobs"
    assert app.secret_usage()[used] == ["wf-jobs"]

    # Delete asks first (and says who uses it).
    select(window, used)
    click(window.delete_button)
    said = await answer_box("Delete")
    assert "wf-jobs" in said
    await until(lambda: app.secrets.get(used) is None, what="the secret to be deleted")
    await until(lambda: window.table.item(window.shown_names().index(used), 1).text() == "missing")
    await ui_settled()
    assert used not in app.secrets.names()

    # A bad name is refused with the reason; nothing is stored.
    window.name_edit.setText("has space")
    window.value_edit.setText("x")
    click(window.save_button)
    await until(lambda: "name" in window.status.text(), what="the refusal")
    await ui_settled()
    assert "has space" not in app.secrets.names()
    assert changed not in all_text(window) and value not in all_text(window)


async def test_a_saved_secret_is_listed_even_when_the_keyring_writes_slowly(
    make_app: AppFactory, make_tray: TrayFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The list of names lands in the keyring in the background (vault/keyring_store.py): a window that read
    the list right after "saved" showed it without the new name (seen in 1 of 2 tries). A keyring slow to
    write makes that every time."""
    app = await make_app()
    tray = make_tray(app)
    window = tray.show_secrets()
    assert isinstance(window, SecretsWindow)
    await ui_settled()
    submit, flush = keyring_store._writer.submit, keyring_store._writer.flush
    # A keyring busy elsewhere: every background write waits until someone needs the writes done (a
    # flush lets them go). A window reading the list before then would miss the new name.
    busy = threading.Event()

    def slowly(job: Callable[[], None]) -> None:
        def held_job() -> None:
            busy.wait(timeout=10)  # on the writer thread, not the test's
            job()

        submit(held_job)

    def flushing(timeout: float | None = 10.0) -> None:
        busy.set()
        flush(timeout)
        busy.clear()

    monkeypatch.setattr(keyring_store._writer, "submit", slowly)
    monkeypatch.setattr(keyring_store._writer, "flush", flushing)
    names = [secret_name(), secret_name()]
    for name in names:
        window.name_edit.setText(name)
        window.value_edit.setText(secret_value())
        click(window.save_button)
        await until(lambda n=name: window.status.text() == f"{n} saved.", what="saved")  # type: ignore[misc]
        await ui_settled()
        assert name in window.shown_names(), f"{name} saved, but the list shows {window.shown_names()}"
    assert set(names) <= set(app.secrets.names()), "and the keyring has them"
    window.close()
    for name in names:
        app.secrets.delete(name)
    keyring_store.flush_writes()


async def test_settings_save_apply_and_say_what_needs_a_restart(
    make_app: AppFactory, make_tray: TrayFactory, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    app = await make_app()
    tray = make_tray(app)
    await click_menu_item(tray.menu, find_action(tray.menu, "Settings…"))
    dialog = tray.windows["settings"]
    assert isinstance(dialog, SettingsDialog)
    await until(dialog.isVisible)
    defaults = Settings()
    assert dialog.port.value() == defaults.port
    assert dialog.step_delay.ms() == defaults.step_delay_ms
    assert dialog.step_delay.text() == "0.5 s", "times in seconds"
    assert dialog.approval_wait.text() == "20 s"
    assert dialog.redact.toPlainText().splitlines() == defaults.redact_selectors
    assert not dialog.autostart.isChecked()

    # Things that apply at once: no restart needed.
    dialog.step_delay.setValue(0.12)  # seconds
    dialog.approval_wait.setValue(7)
    dialog.redact.setPlainText("input[type=password]\n\n  .card-number  \ninput[type=password]\n")
    # A folder that is not a full path, or not there, is refused with the reason; nothing is saved.
    dialog.uploads.setPlainText("forms\n")
    click(dialog.save_button)
    assert "full paths" in dialog.status.text()
    assert app.settings.step_delay_ms != 120
    forms = tmp_path / "forms"
    forms.mkdir()
    dialog.uploads.setPlainText(f"  {forms}  \n\n{forms}\n")
    dialog.autostart.setChecked(True)
    click(dialog.save_button)
    assert dialog.restart_needed == []
    assert dialog.status.text() == "Saved."
    assert app.settings.step_delay_ms == 120
    assert app.engine.config.step_delay_ms == 120
    assert app.engine.approval_wait_ms == 7_000
    # the built-in selectors always apply; the person's own are added to them
    assert app.engine.config.redact_selectors == (*DEFAULT_REDACT, ".card-number")
    saved = json.loads(app.paths.config_file.read_text(encoding="utf-8"))
    assert saved["step_delay_ms"] == 120, "stored in ms"
    assert saved["redact_selectors"] == [*DEFAULT_REDACT, ".card-number"]
    assert saved["upload_folders"] == [str(forms)]
    assert app.engine.config.upload_folders == (forms,)  # agents may upload from it at once
    assert autostart.enabled()
    assert (tmp_path / "xdg" / "autostart" / "tabpilot.desktop").is_file()

    # Port and browser: saved, and said to need a restart.
    browser = tmp_path / "chromium"
    browser.write_text("#!/bin/sh\n", encoding="utf-8")
    dialog.port.setValue(50123)
    dialog.browser_edit.setText(str(browser))
    dialog.headless.setChecked(True)
    dialog.autostart.setChecked(False)
    click(dialog.save_button)
    assert dialog.restart_needed == ["port", "browser_executable", "managed_headless"]
    assert dialog.status.text() == (
        "Saved. Restart Tabpilot to use the port, the browser executable, the headless choice."
    )
    assert Settings.load(app.paths.config_file).port == 50123
    assert not autostart.enabled()

    # A browser path that is not a file is refused before anything is saved.
    dialog.browser_edit.setText(str(tmp_path / "nothing-here"))
    dialog.step_delay.setValue(9.9)
    click(dialog.save_button)
    assert "There is no file" in dialog.status.text()
    assert app.settings.step_delay_ms == 120

    # Opened again, it shows what is saved (the refused edit is gone).
    dialog.close()
    await click_menu_item(tray.menu, find_action(tray.menu, "Settings…"))
    await until(dialog.isVisible)
    assert dialog.step_delay.ms() == 120
    assert dialog.step_delay.text() == "0.12 s"
    assert dialog.browser_edit.text() == str(browser)
    await ui_settled()


async def status_with(app: App, token: str) -> int:
    assert app.bridge is not None
    async with (
        aiohttp.ClientSession() as session,
        session.get(
            f"http://127.0.0.1:{app.bridge.port}/api/v1/status", headers={"Authorization": f"Bearer {token}"}
        ) as response,
    ):
        return response.status


async def test_rotate_token_asks_then_cuts_off_the_old_token(make_app: AppFactory, make_tray: TrayFactory) -> None:
    app = await make_app()
    tray = make_tray(app)
    dialog = tray.show_settings()
    assert isinstance(dialog, SettingsDialog)
    old = app.token
    assert await status_with(app, old) == 200

    click(dialog.rotate_button)
    said = await answer_box("Cancel")
    assert "must reconnect" in said
    assert app.token == old

    click(dialog.rotate_button)
    await answer_box("Rotate token")
    assert app.token != old
    assert keyring_store.get_or_create_token(app.paths.keyring_account) == app.token
    assert "must reconnect" in dialog.status.text()
    assert await status_with(app, old) == 401
    assert await status_with(app, app.token) == 200
    await ui_settled()


async def test_the_approval_wait_is_one_to_sixty_seconds(
    make_app: AppFactory, make_tray: TrayFactory, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Past 60 s MCP clients give up on the call, and the prompt itself denies at 120 s."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    app = await make_app()
    tray = make_tray(app)
    dialog = tray.show_settings()
    assert isinstance(dialog, SettingsDialog)
    await until(dialog.isVisible)
    assert (dialog.approval_wait.minimum(), dialog.approval_wait.maximum()) == (1, 60)
    assert dialog.approval_wait.suffix() == " s"

    # Typed past the limit: held at 60 s, and saved as such.
    dialog.approval_wait.setValue(300)
    assert dialog.approval_wait.ms() == 60_000
    click(dialog.save_button)
    assert dialog.status.text() == "Saved."
    assert app.settings.approval_wait_ms == 60_000
    assert app.engine.approval_wait_ms == 60_000
    dialog.approval_wait.setValue(0)
    assert dialog.approval_wait.ms() == 1_000
    dialog.close()
    await ui_settled()
