"""The state file: private, readable back, and removed only by the app that wrote it."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tabpilot.storage import statefile
from tabpilot.storage.statefile import AppState


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "state" / "tabpilot.state.json"


def test_written_private_and_read_back(path: Path) -> None:
    state = AppState(pid=os.getpid(), port=47615, mode="serve", auto_started=True, version="0.1.0")
    statefile.write(path, state)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert statefile.read(path) == state


def test_private_even_with_a_permissive_umask(path: Path) -> None:
    old = os.umask(0)
    try:
        statefile.write(path, AppState(pid=1, port=2, mode="tray"))
    finally:
        os.umask(old)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


@pytest.mark.parametrize(
    "content",
    [
        "",
        "{",
        "[]",
        "42",
        '{"pid": 1}',
        '{"pid": 1, "port": 2, "mode": "x", "z": 0}',
        '{"pid": "1234", "port": 2, "mode": "serve"}',
        '{"pid": 1234, "port": "2", "mode": "serve"}',
        '{"pid": true, "port": 2, "mode": "serve"}',
        '{"pid": 0, "port": 2, "mode": "serve"}',
        '{"pid": -1, "port": 2, "mode": "serve"}',
        '{"pid": 99999999999999, "port": 2, "mode": "serve"}',
        '{"pid": 1234, "port": 2, "mode": null}',
    ],
)
def test_unreadable_state_is_none(path: Path, content: str) -> None:
    path.parent.mkdir(parents=True)
    path.write_text(content, encoding="utf-8")
    assert statefile.read(path) is None


def test_missing_state_is_none(path: Path) -> None:
    assert statefile.read(path) is None


def test_removed_only_by_its_owner(path: Path) -> None:
    statefile.write(path, AppState(pid=4242, port=1, mode="serve"))
    statefile.remove(path, pid=os.getpid())
    assert path.exists()  # a newer app's file stays
    statefile.remove(path, pid=4242)
    assert not path.exists()
    statefile.remove(path, pid=4242)  # already gone: fine


def test_pid_alive() -> None:
    assert statefile.pid_alive(os.getpid())
    assert not statefile.pid_alive(0)  # not "my process group"
    assert not statefile.pid_alive(-1)  # not "any process I may signal"
    child = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    assert not statefile.pid_alive(int(child.stdout))
