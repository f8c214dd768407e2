"""Tray icons by state."""

from __future__ import annotations

from typing import Literal

from PySide6.QtGui import QIcon

from tabpilot.resources import icons_dir

TrayLook = Literal["disconnected", "connected", "pilot", "busy", "waiting"]
"""Each look has its own shape as well as its colour (scripts/make_icons.py draws them)."""

_cache: dict[str, QIcon] = {}


def tray_icon(look: TrayLook) -> QIcon:
    if look not in _cache:
        icon = QIcon()
        for size in (32, 64):
            icon.addFile(str(icons_dir() / f"tray-{look}-{size}.png"))
        _cache[look] = icon
    return _cache[look]


def app_icon() -> QIcon:
    return QIcon(str(icons_dir() / "tabpilot.png"))
