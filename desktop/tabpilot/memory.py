"""Giving memory the app freed back to the system.

After a burst of calls (screenshots, page reads, a fuzz) Python frees its objects, but glibc's allocator
keeps the freed pages in its arenas, so the process's resident size stays at its peak for good: 113 MB
before a 5,000-call fuzz, 176 MB after, and still 176 MB after idling, while what Python itself held had
grown by about 6 MB (tracemalloc). `malloc_trim(0)` hands those pages back. Elsewhere (macOS, Windows,
musl) there is nothing to call and nothing happens.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import logging
from functools import cache
from typing import Any

log = logging.getLogger("tabpilot.memory")


@cache
def _libc() -> Any:
    name = ctypes.util.find_library("c")
    if not name:
        return None
    try:
        libc = ctypes.CDLL(name)
        libc.malloc_trim.argtypes = [ctypes.c_size_t]
        libc.malloc_trim.restype = ctypes.c_int
    except (OSError, AttributeError):
        return None  # not glibc
    return libc


def give_back_freed() -> bool:
    """Return freed heap pages to the system; True when there was an allocator to ask."""
    libc = _libc()
    if libc is None:
        return False
    libc.malloc_trim(0)
    return True
