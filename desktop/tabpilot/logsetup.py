"""Logging to a rotating file under the home (and to stderr for serve)."""

from __future__ import annotations

import logging
import logging.handlers
import sys

from tabpilot.paths import Paths

FORMAT = "%(asctime)s %(levelname)-7s %(name)s: %(message)s"


def configure(paths: Paths, *, verbose: bool = False, stderr: bool = True) -> None:
    paths.log_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
    detach()
    root = logging.getLogger()
    file_handler = logging.handlers.RotatingFileHandler(
        paths.log_file, maxBytes=2_000_000, backupCount=3, encoding="utf-8"
    )
    file_handler.setFormatter(logging.Formatter(FORMAT))
    file_handler._tabpilot = True  # type: ignore[attr-defined]
    root.addHandler(file_handler)
    if stderr:
        console = logging.StreamHandler(sys.stderr)
        console.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
        console.setLevel(logging.DEBUG if verbose else logging.WARNING)
        console._tabpilot = True  # type: ignore[attr-defined]
        root.addHandler(console)
    root.setLevel(logging.DEBUG if verbose else logging.INFO)
    for noisy in ("aiohttp.access", "httpx", "httpcore", "mcp", "asyncio", "watchdog"):
        logging.getLogger(noisy).setLevel(logging.WARNING)


def detach() -> None:
    """Remove the handlers `configure` added (tests that configure logging call this when done)."""
    root = logging.getLogger()
    for handler in list(root.handlers):
        if getattr(handler, "_tabpilot", False):
            root.removeHandler(handler)
            handler.close()
