"""A real window manager (openbox) on the screenshot tests' X server: windows get their title bars and
frames, as a person sees them, and the manager's own idea of where they go."""

from __future__ import annotations

import contextlib
import subprocess
from collections.abc import Iterator

import pytest
from tests.gui.xserver import XServer, need, stop
from tests.support.waiting import until_sync

START_TIMEOUT_S = 15.0


@contextlib.contextmanager
def window_manager(x: XServer) -> Iterator[subprocess.Popen[bytes]]:
    """openbox with its default settings, once it has taken the screen (it owns the WM_S0 selection)."""
    openbox = need("openbox", "openbox")
    proc = subprocess.Popen([openbox, "--sm-disable"], env=x.env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:

        def managed_or_ended() -> bool:
            if proc.poll() is not None:
                err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
                pytest.fail(f"openbox ended before it managed the screen (exit {proc.returncode}): {err}")
            return _managed(x)

        try:
            until_sync(managed_or_ended, timeout=START_TIMEOUT_S, interval=0.05, what="openbox to manage the screen")
        except AssertionError:
            pytest.fail(f"openbox did not manage the screen within {START_TIMEOUT_S:g} s", pytrace=False)
        yield proc
    finally:
        stop(proc)


def _managed(x: XServer) -> bool:
    """A window manager announces itself on the root window (_NET_SUPPORTING_WM_CHECK)."""
    out = subprocess.run(
        [need("xprop", "x11-utils"), "-root", "_NET_SUPPORTING_WM_CHECK"],
        env=x.env,
        capture_output=True,
        text=True,
        timeout=10,
    ).stdout
    return "window id" in out
