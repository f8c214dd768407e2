"""The store where no OS keyring can be reached (a server, a container, CI): private files.

The bridge token lives in `tabpilot.token` beside the state file, so every shell of the user finds the
app; pairings and approval rules live in `vault/<kind>.json`. Each file is 0600 in a 0700 folder and
must belong to this user; one that others could read is not trusted (the app makes a new token).
"""

from __future__ import annotations

import json
import logging
import os
import secrets
import stat
from pathlib import Path
from typing import Any

from tabpilot.storage.atomic import write_atomic

log = logging.getLogger("tabpilot.vault")


def _private(path: Path) -> bool:
    """Only this user can read or change the file (POSIX); elsewhere the profile folder's ACL decides."""
    if os.name != "posix":
        return True
    info = path.stat()
    return info.st_uid == os.geteuid() and stat.S_IMODE(info.st_mode) & 0o077 == 0


def read_token(path: Path) -> str | None:
    """The token in `path`; None when there is none, or when the file is not private (it may have
    leaked, so it is not used)."""
    try:
        if not _private(path):
            log.warning("%s can be read by others; its token is not used", path)
            return None
        token = path.read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        return None
    except OSError as exc:
        log.warning("could not read the token file %s: %s", path, exc)
        return None
    return token or None


def write_token(path: Path) -> str:
    token = secrets.token_urlsafe(32)
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    write_atomic(path, token + "\n", mode=0o600)
    return token


def get_or_create_token(path: Path) -> str:
    token = read_token(path)
    if token:
        return token
    token = write_token(path)
    log.info("created a new bridge token in %s (mode 0600)", path)
    return token


class FileDocument:
    """A small JSON document in a private file (the file twin of keyring_store.KeyringDocument)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def read(self) -> Any:
        try:
            if not _private(self.path):
                log.warning("%s can be read or changed by others; it is not used", self.path)
                return None
            return json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as exc:
            log.warning("could not read %s: %s", self.path, exc)
            return None

    def write(self, value: Any) -> None:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            write_atomic(self.path, json.dumps(value, indent=1) + "\n", mode=0o600)
        except OSError as exc:
            log.warning("could not save %s: %s", self.path, exc)


class MemoryDocument:
    """A document kept for this run only: what must not be read from a file (capability toggles)."""

    def __init__(self) -> None:
        self.value: Any = None

    def read(self) -> Any:
        return self.value

    def write(self, value: Any) -> None:
        self.value = value
