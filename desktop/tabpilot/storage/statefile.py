"""The state file: which process runs the app for this home, and on which port (mode 0600)."""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path

from tabpilot.safe_files import read_regular_text
from tabpilot.storage.atomic import remove_stale_temp_files, write_atomic

SECRETS_LOCATIONS = ("keyring", "file")
MAX_STATE_FILE_BYTES = 64 * 1024
"""The file is one short line: anything larger (or a FIFO, a device) is not the app's."""


@dataclass(frozen=True)
class AppState:
    pid: int
    port: int
    mode: str
    """tray | serve"""
    auto_started: bool = False
    version: str = ""
    started_at: float = 0.0
    secrets: str = "keyring"
    """Where the app keeps its bridge token: `keyring` (the OS keyring of the session that started it)
    or `file` (no keyring reachable: the 0600 token file beside this one). Other shells follow this."""


def write(path: Path, state: AppState) -> None:
    remove_stale_temp_files(path.parent)  # written once per start: the time to tidy up after a crash
    write_atomic(path, json.dumps(asdict(state)) + "\n", mode=0o600)


def read(path: Path) -> AppState | None:
    try:
        raw = json.loads(read_regular_text(path, MAX_STATE_FILE_BYTES))
        state = AppState(**raw)
    except (OSError, ValueError, TypeError):
        return None
    # A hand-edited or foreign file must not make `status` crash or signal process groups (pid 0, -1).
    if not (_whole(state.pid) and 0 < state.pid < 2**31 and _whole(state.port) and isinstance(state.mode, str)):
        return None
    if state.secrets not in SECRETS_LOCATIONS:
        return None
    return state


def _whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def remove(path: Path, pid: int) -> None:
    """Remove the state file only if it is still ours (a newer app may have replaced it)."""
    current = read(path)
    if current is not None and current.pid == pid:
        path.unlink(missing_ok=True)


def pid_alive(pid: int) -> bool:
    if pid <= 0:  # os.kill(0 or -1, 0) asks about process groups, not one app
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
