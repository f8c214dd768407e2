"""Freed memory goes back to the system (glibc's malloc_trim) when the app is quiet. Like the rest of the suite
(Xvfb, gnome-keyring, /proc), this runs on Linux."""

from __future__ import annotations

from pathlib import Path

from tabpilot import memory


def _rss_kb() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


def test_pages_freed_after_a_burst_go_back() -> None:
    # Blocks glibc hands out from its heap (as page reads, images and JSON a burst of calls leaves): once
    # freed, the pages stay with the allocator while anything above them is still in use.
    burst = [bytearray(4000) for _ in range(30_000)]
    last = burst[-1]  # still in use at the top of the heap: the heap cannot simply shrink
    before_free = _rss_kb()
    del burst
    kept = _rss_kb()
    assert memory.give_back_freed()
    given_back = _rss_kb()
    assert before_free - kept < 20_000  # free() alone gave little back
    assert kept - given_back > 20_000, (before_free, kept, given_back)  # the trim gave the rest
    assert len(last) == 4000
