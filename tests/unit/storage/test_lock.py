"""One app per home: the instance lock refuses a second holder until the first lets go."""

from __future__ import annotations

import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tabpilot.storage.lock import InstanceLock

TRY_LOCK = """
import pathlib, sys
from tabpilot.storage.lock import InstanceLock
sys.exit(0 if InstanceLock(pathlib.Path(sys.argv[1])).acquire() else 7)
"""


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "home" / "tabpilot.lock"


@pytest.fixture
def held(path: Path) -> Iterator[InstanceLock]:
    lock = InstanceLock(path)
    assert lock.acquire()
    yield lock
    lock.release()


def test_a_second_holder_is_refused_until_release(path: Path, held: InstanceLock) -> None:
    other = InstanceLock(path)
    assert not other.acquire()
    held.release()
    assert other.acquire()
    assert not InstanceLock(path).acquire()
    other.release()


def test_another_process_is_refused_while_held(path: Path, held: InstanceLock) -> None:
    child = subprocess.run([sys.executable, "-c", TRY_LOCK, str(path)], check=False, timeout=30)
    assert child.returncode == 7
    held.release()
    child = subprocess.run([sys.executable, "-c", TRY_LOCK, str(path)], check=False, timeout=30)
    assert child.returncode == 0


def test_the_lock_file_is_private(path: Path, held: InstanceLock) -> None:
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_release_twice_is_harmless(path: Path, held: InstanceLock) -> None:
    held.release()
    held.release()
    again = InstanceLock(path)
    assert again.acquire()
    again.release()
