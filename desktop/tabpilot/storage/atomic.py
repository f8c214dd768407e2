"""Write a file so that a reader sees the old contents or the new, never half of either."""

from __future__ import annotations

import time
from pathlib import Path

from tabpilot.safe_files import replace_file


def write_atomic(path: Path, data: str, *, mode: int = 0o600) -> None:
    """`data` as the file `path`, by a new file renamed over it (never written through a link there)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    replace_file(path, data.encode("utf-8"), mode=mode)


STALE_TEMP_S = 60.0
"""A write takes milliseconds: a temporary file this old was left by a process that died mid-write."""


def remove_stale_temp_files(folder: Path, older_than_s: float = STALE_TEMP_S) -> int:
    """Remove the half-written `.<name>.<random>.tmp` files a crash left in `folder`; returns how many.

    Only old ones: another process (a second app refusing to start, `tabpilot status`) may look at the
    folder while the running app is in the middle of a write.
    """
    removed = 0
    now = time.time()
    try:
        candidates = list(folder.glob(".*.tmp"))
    except OSError:
        return 0
    for path in candidates:
        try:
            if path.is_file() and now - path.stat().st_mtime > older_than_s:
                path.unlink()
                removed += 1
        except OSError:
            continue  # gone meanwhile, or not ours to remove
    return removed
