"""Start the tray app when the user logs in: a desktop entry (Linux), a LaunchAgent (macOS), a Run key
(Windows)."""

from __future__ import annotations

import contextlib
import os
import shlex
import sys
from pathlib import Path

LABEL = "dev.tabpilot.tray"


def _command() -> list[str]:
    return [sys.executable, "-m", "tabpilot"]


def _linux_entry() -> Path:
    base = Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config")
    return base / "autostart" / "tabpilot.desktop"


def _mac_agent() -> Path:
    return Path.home() / "Library" / "LaunchAgents" / f"{LABEL}.plist"


def enabled() -> bool:
    if sys.platform == "darwin":
        return _mac_agent().exists()
    if sys.platform == "win32":
        import winreg

        try:
            with winreg.OpenKey(winreg.HKEY_CURRENT_USER, r"Software\Microsoft\Windows\CurrentVersion\Run") as key:
                winreg.QueryValueEx(key, "Tabpilot")
            return True
        except OSError:
            return False
    return _linux_entry().exists()


def set_enabled(on: bool) -> None:
    command = _command()
    if sys.platform == "darwin":
        path = _mac_agent()
        if not on:
            path.unlink(missing_ok=True)
            return
        args = "".join(f"<string>{a}</string>" for a in command)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(
            '<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" '
            '"http://www.apple.com/DTDs/PropertyList-1.0.dtd">\n<plist version="1.0"><dict>'
            f"<key>Label</key><string>{LABEL}</string><key>ProgramArguments</key><array>{args}</array>"
            "<key>RunAtLoad</key><true/></dict></plist>\n",
            encoding="utf-8",
        )
    elif sys.platform == "win32":
        import winreg

        with winreg.OpenKey(
            winreg.HKEY_CURRENT_USER, r"Software\Microsoft\Windows\CurrentVersion\Run", 0, winreg.KEY_SET_VALUE
        ) as key:
            if on:
                winreg.SetValueEx(key, "Tabpilot", 0, winreg.REG_SZ, " ".join(f'"{a}"' for a in command))
            else:
                with contextlib.suppress(OSError):
                    winreg.DeleteValue(key, "Tabpilot")
    else:
        path = _linux_entry()
        if not on:
            path.unlink(missing_ok=True)
            return
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(
            "[Desktop Entry]\nType=Application\nName=Tabpilot\n"
            "Comment=AI agents in your browser, under your control\n"
            f"Exec={shlex.join(command)}\nTerminal=false\nX-GNOME-Autostart-enabled=true\n",
            encoding="utf-8",
        )
