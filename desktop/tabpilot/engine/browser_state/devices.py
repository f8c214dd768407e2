"""Playwright's device descriptors, and finding one by a name as people type it.

The list is a copy of Playwright's own (data/playwright_devices.json; its NOTICE says where from and
why a copy). A name matches a device when the two agree ignoring case, spaces and punctuation
("iphone15", "iPhone-15" → "iPhone 15"); nothing looser, so a call never emulates a device it did not
name. When nothing matches, the nearest names are suggested instead.

Pure: reads the packaged file once, no other I/O.
"""

from __future__ import annotations

import difflib
import json
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

DEVICES_FILE = Path(__file__).resolve().parents[2] / "data" / "playwright_devices.json"
MAX_SUGGESTIONS = 5


@dataclass(frozen=True)
class Device:
    name: str
    width: int
    height: int
    device_scale_factor: float
    is_mobile: bool
    has_touch: bool
    user_agent: str
    screen_width: int | None = None
    screen_height: int | None = None


def key(name: str) -> str:
    """A name as matching compares it: lower case, letters and digits only."""
    return re.sub(r"[^0-9a-z]", "", name.casefold())


def _device(name: str, raw: dict[str, Any]) -> Device:
    screen = raw.get("screen") or {}
    return Device(
        name=name,
        width=int(raw["viewport"]["width"]),
        height=int(raw["viewport"]["height"]),
        device_scale_factor=float(raw["deviceScaleFactor"]),
        is_mobile=bool(raw["isMobile"]),
        has_touch=bool(raw["hasTouch"]),
        user_agent=str(raw["userAgent"]),
        screen_width=int(screen["width"]) if "width" in screen else None,
        screen_height=int(screen["height"]) if "height" in screen else None,
    )


@cache
def devices() -> dict[str, Device]:
    """Every device by its Playwright name, in Playwright's order."""
    raw = json.loads(DEVICES_FILE.read_text(encoding="utf-8"))
    return {name: _device(name, spec) for name, spec in raw.items()}


@cache
def _by_key() -> dict[str, Device]:
    return {key(name): device for name, device in devices().items()}


def find(name: str) -> Device | None:
    """The device `name` names, ignoring case, spaces and punctuation; None when none does."""
    return _by_key().get(key(name))


def suggestions(name: str, limit: int = MAX_SUGGESTIONS) -> list[str]:
    """The device names nearest `name`: those whose name contains it (or it theirs), then the closest
    spellings; portrait before landscape."""
    wanted = key(name)
    if not wanted:
        return []
    keys = _by_key()
    close = difflib.get_close_matches(wanted, list(keys), n=limit * 2, cutoff=0.6)
    containing = [k for k in keys if wanted in k or (len(k) >= 4 and k in wanted)]
    containing.sort(key=lambda k: (k.endswith("landscape"), len(k)))
    found = list(dict.fromkeys(containing[:limit] + close))
    found.sort(key=lambda k: 0 if k in containing[:limit] else 1)
    return [keys[k].name for k in found[:limit]]
