"""One app per home: an exclusive lock on a file, held for the life of the process."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import IO


class InstanceLock:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._handle: IO[str] | None = None

    def acquire(self) -> bool:
        """True when this process now holds the lock; False when another process does."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        handle = open(self.path, "a+", encoding="utf-8")  # noqa: SIM115 - held until release()
        try:
            if sys.platform == "win32":
                import msvcrt

                msvcrt.locking(handle.fileno(), msvcrt.LK_NBLCK, 1)
            else:
                import fcntl

                fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            handle.close()
            return False
        os.chmod(self.path, 0o600)
        self._handle = handle
        return True

    def held_elsewhere(self) -> bool:
        """True when another process holds the lock: the only sure sign that an app runs for this home."""
        if self._handle is not None:
            return False
        if not self.acquire():
            return True
        self.release()
        return False

    def release(self) -> None:
        if self._handle is not None:
            self._handle.close()
            self._handle = None
