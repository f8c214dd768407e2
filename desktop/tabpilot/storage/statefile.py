"""The state file: which process runs the app for this home, and on which port (mode 0600)."""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path

from tabpilot.storage.atomic import write_atomic


@dataclass(frozen=True)
class AppState:
    pid: int
    port: int
    mode: str
    """tray | serve"""
    auto_started: bool = False
    version: str = ""
    started_at: float = 0.0


def write(path: Path, state: AppState) -> None:
    write_atomic(path, json.dumps(asdict(state)) + "\n", mode=0o600)


def read(path: Path) -> AppState | None:
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        return AppState(**raw)
    except (OSError, ValueError, TypeError):
        return None


def remove(path: Path, pid: int) -> None:
    """Remove the state file only if it is still ours (a newer app may have replaced it)."""
    current = read(path)
    if current is not None and current.pid == pid:
        path.unlink(missing_ok=True)


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
