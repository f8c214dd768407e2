"""Finding a Chrome/Chromium on this machine."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

# Chromium first: branded Google Chrome (137 and later) ignores --load-extension, so the managed
# browser could not load Tabpilot's extension into it.
_NAMES = (
    "chromium",
    "chromium-browser",
    "chrome-for-testing",
    "google-chrome-for-testing",
    "chrome",
    "google-chrome",
    "google-chrome-stable",
    "microsoft-edge",
)
_MAC = (
    "/Applications/Chromium.app/Contents/MacOS/Chromium",
    "/Applications/Google Chrome for Testing.app/Contents/MacOS/Google Chrome for Testing",
    "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
)
_WIN = (
    r"%ProgramFiles%\Google\Chrome\Application\chrome.exe",
    r"%ProgramFiles(x86)%\Google\Chrome\Application\chrome.exe",
    r"%LocalAppData%\Google\Chrome\Application\chrome.exe",
)


def find_browser(preferred: str = "") -> str | None:
    """TABPILOT_BROWSER, else the configured path, else a system Chrome/Chromium; None: Playwright's own."""
    for explicit in (os.environ.get("TABPILOT_BROWSER", ""), preferred):
        if explicit:
            if not Path(explicit).is_file():
                raise FileNotFoundError(f"The browser '{explicit}' does not exist.")
            return explicit
    for name in _NAMES:
        found = shutil.which(name)
        if found:
            return found
    candidates = _MAC if sys.platform == "darwin" else _WIN if sys.platform == "win32" else ()
    for candidate in candidates:
        path = Path(os.path.expandvars(candidate))
        if path.is_file():
            return str(path)
    return None
