"""Where a home's folders are, as plain strings: the rule `Paths` (paths.py) is built from.

Kept apart from paths.py, and on `os` alone, because the shell CLI's fast path needs one file of it —
the app's local socket — for every `tabpilot js ...`, and paths.py's dataclass and pathlib (and
platformdirs, ~15 ms to import) would cost more than the rest of that call.
"""

from __future__ import annotations

import os
import sys

APP = "tabpilot"
LOCAL_SOCKET = "tabpilot.sock"
"""The app's local socket for `tabpilot mcp` and the shell CLI, in the state folder."""


def root(home: str | os.PathLike[str] | None = None) -> str | None:
    """TABPILOT_HOME (or `home`), absolute and resolved: every folder is this one; None when unset."""
    chosen = home if home is not None else os.environ.get("TABPILOT_HOME")
    if not chosen:
        return None
    return os.path.realpath(os.path.expanduser(os.fspath(chosen)))


def folders(home: str | os.PathLike[str] | None = None) -> tuple[str, str, str, str]:
    """The config, data, state and log folders."""
    base = root(home)
    if base is not None:
        return base, base, base, os.path.join(base, "logs")
    import platformdirs

    return (
        platformdirs.user_config_dir(APP),
        platformdirs.user_data_dir(APP),
        _user_state_dir(),
        platformdirs.user_log_dir(APP),
    )


def state_dir(home: str | os.PathLike[str] | None = None) -> str:
    base = root(home)
    return base if base is not None else _user_state_dir()


def local_socket(home: str | os.PathLike[str] | None = None) -> str:
    return os.path.join(state_dir(home), LOCAL_SOCKET)


def _user_state_dir() -> str:
    """platformdirs.user_state_dir("tabpilot"), without importing platformdirs in the common case.

    On Linux that is $XDG_STATE_HOME/tabpilot when it is an absolute path, else ~/.local/state/tabpilot
    ($HOME absolute); any other case (another system, an odd HOME) asks platformdirs itself.
    tests/unit/test_home.py holds this to platformdirs' own answer."""
    if sys.platform.startswith("linux"):
        xdg = os.environ.get("XDG_STATE_HOME", "")
        if xdg.startswith("/"):
            return os.path.join(xdg, APP)
        user_home = os.environ.get("HOME", "")
        if user_home.startswith("/"):
            return os.path.join(user_home, ".local", "state", APP)
    import platformdirs

    return platformdirs.user_state_dir(APP)
