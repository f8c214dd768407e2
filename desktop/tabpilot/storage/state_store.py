"""Saved browser states on disk, encrypted: `states/<name>.state` under the home's data folder.

Each file is AES-256-GCM ciphertext of the state's JSON, with the state's name as associated data (a
file renamed or copied under another name does not open), written 0600 and atomically. The key is made
on first use and kept where the app keeps its secrets (the OS keyring; without one, the vault's private
file — interface.md §1); it never lands beside the states. A file that does not open (another key, a
changed byte) is reported as unreadable, never guessed at.
"""

from __future__ import annotations

import base64
import json
import logging
import os
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from tabpilot.safe_files import read_regular_text
from tabpilot.storage.atomic import write_atomic

log = logging.getLogger("tabpilot.states")

SUFFIX = ".state"
HEADER = "tabpilot-state 1\n"
NONCE_BYTES = 12
MAX_STATE_FILE_BYTES = 256 * 1024 * 1024
"""Only a bound (a state is cookies and storage, far smaller): what is in its place is never read without end."""


class EncryptedStates:
    """The engine's StateStore: blocking calls (files, the keyring), run off the event loop."""

    def __init__(self, folder: Path, key: Callable[[], bytes]) -> None:
        self.folder = folder
        self._key_source = key
        self._key: AESGCM | None = None
        self._lock = threading.Lock()

    def _aead(self) -> AESGCM:
        with self._lock:
            if self._key is None:
                self._key = AESGCM(self._key_source())
            return self._key

    def _path(self, name: str) -> Path:
        return self.folder / f"{name}{SUFFIX}"

    def save(self, name: str, state: Mapping[str, Any]) -> None:
        nonce = os.urandom(NONCE_BYTES)
        sealed = self._aead().encrypt(nonce, json.dumps(state).encode("utf-8"), name.encode("utf-8"))
        self.folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        write_atomic(self._path(name), HEADER + base64.b64encode(nonce + sealed).decode("ascii") + "\n", mode=0o600)

    def load(self, name: str) -> dict[str, Any] | None:
        try:
            # A regular file only, never waited on, bounded: not a FIFO or device put in its place.
            text = read_regular_text(self._path(name), MAX_STATE_FILE_BYTES)
        except FileNotFoundError:
            return None
        except (OSError, UnicodeDecodeError) as exc:
            log.warning("the saved state %r cannot be read (%s)", name, exc)
            return None
        try:
            if not text.startswith(HEADER):
                raise ValueError("not a Tabpilot state file")
            blob = base64.b64decode(text[len(HEADER) :].strip(), validate=True)
            plain = self._aead().decrypt(blob[:NONCE_BYTES], blob[NONCE_BYTES:], name.encode("utf-8"))
            state = json.loads(plain)
        except (ValueError, InvalidTag):
            log.warning("the saved state %r does not open (another key, or the file changed)", name)
            return None
        return state if isinstance(state, dict) else None

    def names(self) -> list[str]:
        try:
            return sorted(p.name[: -len(SUFFIX)] for p in self.folder.glob(f"*{SUFFIX}") if p.is_file())
        except OSError:
            return []

    def delete(self, name: str) -> bool:
        try:
            self._path(name).unlink()
        except FileNotFoundError:
            return False
        return True
