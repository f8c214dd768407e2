"""Which store the app and the other shells use: the same one, chosen once and written in the state file."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tabpilot.cli import client
from tabpilot.paths import Paths
from tabpilot.storage import statefile
from tabpilot.storage.lock import InstanceLock
from tabpilot.vault import files, store
from tabpilot.vault.keyring_store import KeyringUnavailable


@pytest.fixture
def paths(tmp_path: Path) -> Paths:
    paths = Paths.resolve(tmp_path / "home")
    paths.ensure()
    return paths


@pytest.fixture
def running(paths: Paths) -> Iterator[InstanceLock]:
    """This home's instance lock held, as by a running app (a second open file in this process conflicts)."""
    lock = InstanceLock(paths.lock_file)
    assert lock.acquire()
    yield lock
    lock.release()


def write_state(paths: Paths, secrets: str) -> statefile.AppState:
    state = statefile.AppState(pid=os.getpid(), port=47999, mode="serve", secrets=secrets)
    statefile.write(paths.state_file, state)
    return state


def test_without_a_keyring_serve_uses_files_and_the_tray_still_asks_for_a_keyring(no_keyring: None) -> None:
    assert store.choose("serve") == "file"
    assert store.choose("tray") == "keyring"


def test_with_a_keyring_both_use_it(secret_service: None) -> None:
    assert store.choose("serve") == "keyring"
    assert store.choose("tray") == "keyring"


def test_the_tray_without_a_keyring_says_what_to_do(no_keyring: None, paths: Paths) -> None:
    with pytest.raises(KeyringUnavailable) as info:
        store.open_vault(paths, "tray").get_or_create_token()
    assert "tabpilot serve" in str(info.value)


def test_a_shell_with_a_keyring_follows_an_app_that_keeps_its_token_in_a_file(
    secret_service: None, paths: Paths, running: InstanceLock
) -> None:
    token = files.get_or_create_token(paths.token_file)
    write_state(paths, "file")
    target = client.find(paths)
    assert target.token == token
    assert store.for_shell(paths).location == "file"


def test_a_shell_without_a_keyring_is_told_where_the_app_keeps_its_token(
    no_keyring: None, paths: Paths, running: InstanceLock
) -> None:
    state = write_state(paths, "keyring")
    with pytest.raises(client.Unreachable) as info:
        client.find(paths)
    message = str(info.value)
    assert f"pid {state.pid}" in message
    assert "keyring of the session it was started in" in message
    assert "No OS keyring" not in message  # not the misleading "start a Secret Service" advice
    with pytest.raises(KeyringUnavailable):
        store.for_shell(paths)


def test_with_no_app_running_a_shell_uses_what_a_serve_here_would(no_keyring: None, paths: Paths) -> None:
    write_state(paths, "keyring")  # left behind by an app that is gone: the lock is free
    assert store.for_shell(paths).location == "file"
    with pytest.raises(client.NotRunning):
        client.find(paths)


def test_an_old_state_file_means_the_keyring_and_a_foreign_value_is_refused(paths: Paths) -> None:
    paths.state_file.write_text('{"pid": 12, "port": 47615, "mode": "serve"}')
    state = statefile.read(paths.state_file)
    assert state is not None
    assert state.secrets == "keyring"
    paths.state_file.write_text('{"pid": 12, "port": 47615, "mode": "serve", "secrets": "/etc/passwd"}')
    assert statefile.read(paths.state_file) is None


def test_with_a_keyring_the_token_file_of_a_run_without_one_is_removed(secret_service: None, paths: Paths) -> None:
    files.get_or_create_token(paths.token_file)
    vault = store.open_vault(paths, "serve")
    assert vault.location == "keyring"
    token = vault.get_or_create_token()
    assert not paths.token_file.exists()
    assert vault.get_token() == token
