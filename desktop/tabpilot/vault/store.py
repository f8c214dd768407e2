"""Where this app keeps its secrets: the OS keyring, or where none can be reached, private files.

The choice is made once, at start, and written to the state file (`secrets`), so every other shell
(`status`, `mcp`, `stop`, `secret`, `pairings`) reads the token where the app put it instead of
guessing: an OS keyring reachable from this process wins; the tray needs one; `serve` without one
uses the files of vault/files.py. The remembered AI Web Pilot choice and the capability toggles are
never read from a file: without a keyring the pilot is what `serve --pilot` says, for that run.
"""

from __future__ import annotations

import base64
import logging
from abc import ABC, abstractmethod
from secrets import token_bytes
from typing import Literal

from tabpilot.paths import Paths
from tabpilot.storage import statefile
from tabpilot.storage.lock import InstanceLock
from tabpilot.vault import files, keyring_store
from tabpilot.vault.keyring_store import Document, KeyringDocument, KeyringUnavailable, StoredPairings, StoredRules
from tabpilot.vault.secrets import FileSecrets, KeyringSecrets, SecretsVault

log = logging.getLogger("tabpilot.vault")

Location = Literal["keyring", "file"]
STATE_KEY_BYTES = 32

FILE_DOCUMENTS = ("pairings", "approval-rules", "state-key")
"""What the file store keeps across runs; other documents (capability toggles) last one run."""


class Vault(ABC):
    location: Location
    secrets: SecretsVault

    def __init__(self, paths: Paths) -> None:
        self.paths = paths

    @property
    @abstractmethod
    def token_where(self) -> str:
        """Where the bridge token is, for people."""

    @abstractmethod
    def get_token(self) -> str | None: ...

    @abstractmethod
    def get_or_create_token(self) -> str: ...

    @abstractmethod
    def rotate_token(self) -> str: ...

    @abstractmethod
    def document(self, kind: str) -> Document: ...

    def pairings(self) -> StoredPairings:
        return StoredPairings(self.document("pairings"))

    def rules(self) -> StoredRules:
        return StoredRules(self.document("approval-rules"))

    def remembered_pilot(self) -> bool:
        return False

    def state_key(self) -> bytes:
        """The key saved browser states are encrypted with (storage/state_store.py): made on first use
        and saved before it is used, so no state is ever written under a key that is not kept."""
        doc = self.document("state-key")
        stored = doc.read()
        if isinstance(stored, str):
            try:
                key = base64.b64decode(stored, validate=True)
            except ValueError:
                key = b""
            if len(key) == STATE_KEY_BYTES:
                return key
            log.warning("the saved states' key is damaged; a new one is made (older states will not open)")
        key = token_bytes(STATE_KEY_BYTES)
        encoded = base64.b64encode(key).decode("ascii")
        if isinstance(doc, KeyringDocument):
            doc.write_now(encoded)
        else:
            doc.write(encoded)
        return key

    def remember_pilot(self, on: bool) -> None:
        return None

    def flush(self) -> None:
        """Wait for writes still on their way (before exit, or before another process reads)."""
        keyring_store.flush_writes()


class KeyringVault(Vault):
    location: Location = "keyring"

    def __init__(self, paths: Paths) -> None:
        super().__init__(paths)
        self.account = paths.keyring_account
        self.secrets = KeyringSecrets()

    @property
    def token_where(self) -> str:
        return "the OS keyring"

    def get_token(self) -> str | None:
        return keyring_store.get_token(self.account)

    def get_or_create_token(self) -> str:
        token = keyring_store.get_or_create_token(self.account)
        # A token file left by a run without a keyring is stale now: no copy of a token lies around.
        self.paths.token_file.unlink(missing_ok=True)
        return token

    def rotate_token(self) -> str:
        return keyring_store.rotate_token(self.account)

    def document(self, kind: str) -> Document:
        return KeyringDocument(kind, self.account)

    def remembered_pilot(self) -> bool:
        return keyring_store.remembered_pilot(self.account)

    def remember_pilot(self, on: bool) -> None:
        keyring_store.remember_pilot(self.account, on)


class FileVault(Vault):
    location: Location = "file"

    def __init__(self, paths: Paths) -> None:
        super().__init__(paths)
        self.secrets = FileSecrets(paths.vault_dir / "secrets.json")
        self._run_only: dict[str, files.MemoryDocument] = {}

    @property
    def token_where(self) -> str:
        return f"{self.paths.token_file} (mode 0600)"

    def get_token(self) -> str | None:
        return files.read_token(self.paths.token_file)

    def get_or_create_token(self) -> str:
        return files.get_or_create_token(self.paths.token_file)

    def rotate_token(self) -> str:
        return files.write_token(self.paths.token_file)

    def document(self, kind: str) -> Document:
        if kind in FILE_DOCUMENTS:
            return files.FileDocument(self.paths.vault_dir / f"{kind}.json")
        return self._run_only.setdefault(kind, files.MemoryDocument())

    def remember_pilot(self, on: bool) -> None:
        log.info("no OS keyring: the AI Web Pilot choice holds for this run only")


def vault_at(paths: Paths, location: Location) -> Vault:
    return KeyringVault(paths) if location == "keyring" else FileVault(paths)


def choose(mode: str) -> Location:
    """The keyring when this process reaches one; else the files, except for the tray (which says
    that it needs a keyring when it starts)."""
    if mode == "tray" or keyring_store.reachable():
        return "keyring"
    return "file"


def open_vault(paths: Paths, mode: str) -> Vault:
    """The store an app starting now (tray or serve) uses."""
    return vault_at(paths, choose(mode))


def unreachable_message(state: statefile.AppState) -> str:
    return (
        f"Tabpilot is running (pid {state.pid}, port {state.port}), but it keeps its token and secrets in "
        "the OS keyring of the session it was started in, which this shell cannot reach. Run this command "
        "in that session, or stop the app there and start `tabpilot serve` where no keyring is reachable "
        "(it then keeps its token in a file only you can read, which every shell of yours finds)."
    )


def running_state(paths: Paths) -> statefile.AppState | None:
    """The state of the app running for this home, or None when none runs."""
    if not InstanceLock(paths.lock_file).held_elsewhere():
        return None
    return statefile.read(paths.state_file)


def for_shell(paths: Paths) -> Vault:
    """The store a command line acts on: the running app's (as its state file says), else the one a
    `serve` started here would use. Raises KeyringUnavailable when that is a keyring out of reach."""
    state = running_state(paths)
    if state is not None:
        location: Location = "file" if state.secrets == "file" else "keyring"
        if location == "keyring" and not keyring_store.reachable():
            raise KeyringUnavailable(unreachable_message(state))
        return vault_at(paths, location)
    return open_vault(paths, "serve")
