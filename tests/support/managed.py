"""Waiting for the managed browser as tests use it."""

from __future__ import annotations

from typing import Any


def managed_up(app: Any) -> bool:
    """Its extension connected, and Playwright's launch has returned: tests open tabs through Playwright's
    context, and the extension may connect before the launch returns (on a busy machine, seconds before)."""
    return bool(app.link.connected and app.managed is not None and app.managed.context is not None)
