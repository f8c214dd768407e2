"""A machine with no OS keyring: in this process (keyring's own `fail` backend), or for a child
process (an environment with no D-Bus session, as on a server, in a container or in CI)."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

import keyring
import keyring.backends.fail

SESSION_VARIABLES = (
    "DBUS_SESSION_BUS_ADDRESS",
    "PYTHON_KEYRING_BACKEND",
    "TABPILOT_KEYRING_SESSION",
    "DISPLAY",
    "WAYLAND_DISPLAY",
)


@contextlib.contextmanager
def no_os_keyring() -> Iterator[None]:
    before = keyring.get_keyring()
    keyring.set_keyring(keyring.backends.fail.Keyring())
    try:
        yield
    finally:
        keyring.set_keyring(before)


def fresh_headless_env(home: Path, runtime: Path) -> dict[str, str]:
    """This process's environment minus every way to a desktop session or a keyring, with its own home
    and an empty runtime folder (where a D-Bus session bus would have its socket)."""
    runtime.mkdir(parents=True, exist_ok=True, mode=0o700)
    env = {k: v for k, v in os.environ.items() if k not in SESSION_VARIABLES}
    env["XDG_RUNTIME_DIR"] = str(runtime)
    env["TABPILOT_HOME"] = str(home)
    return env
