"""Secrets in the OS keyring (Secret Service, Keychain, Credential Manager) through `keyring`.

Where no keyring can be reached, vault/files.py keeps the same things in private files instead
(vault/store.py chooses)."""

from __future__ import annotations

import contextlib
import json
import logging
import secrets
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import asdict
from typing import Any, Protocol

import keyring
import keyring.errors

from tabpilot.bridge.pairing import Pairing, pairings_from_json, pairings_to_json
from tabpilot.engine.safety.policy import Rule


def _backend_errors() -> tuple[type[Exception], ...]:
    """What a keyring call can raise: keyring's own errors, and — on Linux — the Secret Service library's,
    which keyring lets through when an item vanishes between its search and its read (a delete racing a
    read: gnome-keyring answers 'no such interface' for the gone item)."""
    errors: list[type[Exception]] = [keyring.errors.KeyringError]
    with contextlib.suppress(ImportError):
        import secretstorage.exceptions

        errors.append(secretstorage.exceptions.SecretStorageException)
    with contextlib.suppress(ImportError):
        import jeepney.wrappers

        errors.append(jeepney.wrappers.DBusErrorResponse)
    return tuple(errors)


BACKEND_ERRORS = _backend_errors()

log = logging.getLogger("tabpilot.vault")

SECRETS_SERVICE = "tabpilot"
"""Named workflow secrets: one entry per name, as the contract says."""
TOKENS_SERVICE = "tabpilot.bridge"
"""The bridge tokens, kept apart so a user's secret name can never shadow one."""


class KeyringUnavailable(RuntimeError):
    pass


class _Writer:
    """Keyring writes that happen while the app runs go to one background thread, in order: a locked
    keyring may block a write until the person answers its unlock prompt, and the bridge must not
    stall meanwhile."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._executor: ThreadPoolExecutor | None = None
        self._last: Future[None] | None = None

    def submit(self, job: Callable[[], None]) -> None:
        with self._lock:
            if self._executor is None:
                self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="tabpilot-keyring")
            self._last = self._executor.submit(job)

    def flush(self, timeout: float | None = 10.0) -> None:
        """Wait until every write submitted so far is done (at exit, and before reading back)."""
        with self._lock:
            last = self._last
        if last is not None:
            with contextlib.suppress(Exception):
                last.result(timeout=timeout)


_writer = _Writer()


def flush_writes(timeout: float | None = 10.0) -> None:
    _writer.flush(timeout)


NO_KEYRING = (
    "No OS keyring is available here. The tray app keeps its token and your secrets in the OS keyring: "
    "on Linux start a Secret Service (e.g. gnome-keyring) in your desktop session. `tabpilot serve` "
    "works without one (it keeps them in files only you can read)."
)


def reachable() -> bool:
    """Can this process reach an OS keyring (on Linux: a Secret Service on its D-Bus session)?

    keyring picks its backend once per process by probing each one; none viable leaves the `fail`
    backend (a `null` one is a user's explicit "no keyring")."""
    backend = keyring.get_keyring()
    return not type(backend).__module__.startswith(("keyring.backends.fail", "keyring.backends.null"))


def _backend_ok() -> None:
    if not reachable():
        raise KeyringUnavailable(NO_KEYRING)


def get_token(account: str) -> str | None:
    _backend_ok()
    try:
        return keyring.get_password(TOKENS_SERVICE, account)
    except BACKEND_ERRORS as exc:
        raise KeyringUnavailable(f"The OS keyring could not be read: {exc}") from exc


def rotate_token(account: str) -> str:
    token = secrets.token_urlsafe(32)
    try:
        keyring.set_password(TOKENS_SERVICE, account, token)
    except BACKEND_ERRORS as exc:
        raise KeyringUnavailable(f"The OS keyring refused to store the token: {exc}") from exc
    return token


def get_or_create_token(account: str) -> str:
    token = get_token(account)
    if token:
        return token
    token = secrets.token_urlsafe(32)
    try:
        keyring.set_password(TOKENS_SERVICE, account, token)
    except BACKEND_ERRORS as exc:
        raise KeyringUnavailable(f"The OS keyring refused to store the token: {exc}") from exc
    log.info("created a new bridge token in the OS keyring")
    return token


def remembered_pilot(account: str) -> bool:
    """The tray's AI Web Pilot choice. Kept in the keyring, not in config.json, so that no file an
    agent can write turns the pilot on at the next start."""
    try:
        return keyring.get_password(TOKENS_SERVICE, f"pilot:{account}") == "on"
    except BACKEND_ERRORS:
        return False


def remember_pilot(account: str, on: bool) -> None:
    def job() -> None:
        try:
            if on:
                keyring.set_password(TOKENS_SERVICE, f"pilot:{account}", "on")
            else:
                with contextlib.suppress(keyring.errors.PasswordDeleteError):
                    keyring.delete_password(TOKENS_SERVICE, f"pilot:{account}")
        except BACKEND_ERRORS:
            log.warning("could not remember the AI Web Pilot choice in the OS keyring")

    _writer.submit(job)


class KeyringDocument:
    """A small JSON document kept in one keyring entry (pairings, approval rules): files an agent can
    write must not be able to pair a browser or allow actions."""

    def __init__(self, kind: str, account: str) -> None:
        self.account = f"{kind}:{account}"

    def read(self) -> Any:
        try:
            text = keyring.get_password(TOKENS_SERVICE, self.account)
        except BACKEND_ERRORS:
            log.warning("could not read %s from the OS keyring", self.account.split(":")[0])
            return None
        if not text:
            return None
        try:
            return json.loads(text)
        except ValueError:
            return None

    def write(self, value: Any) -> None:
        text = json.dumps(value, separators=(",", ":"))

        def job() -> None:
            try:
                keyring.set_password(TOKENS_SERVICE, self.account, text)
            except BACKEND_ERRORS:
                log.warning("could not save %s in the OS keyring", self.account.split(":")[0])

        _writer.submit(job)

    def write_now(self, value: Any) -> None:
        """Write and return once it has landed (after every earlier background write), for a caller
        that reads it back next: the Secrets list after a save, a command line that exits."""
        text = json.dumps(value, separators=(",", ":"))
        _writer.flush()
        try:
            keyring.set_password(TOKENS_SERVICE, self.account, text)
        except BACKEND_ERRORS as exc:
            raise KeyringUnavailable(f"The OS keyring refused to save {self.account.split(':')[0]}: {exc}") from exc


class Document(Protocol):
    """A small JSON document in a store the person controls: the OS keyring, or a private file."""

    def read(self) -> Any: ...

    def write(self, value: Any) -> None: ...


class StoredPairings:
    """The paired browsers, in a document (a PairingVault for bridge/pairing.py's PairingBook)."""

    def __init__(self, doc: Document) -> None:
        self._doc = doc

    def load(self) -> list[Pairing]:
        return pairings_from_json(self._doc.read())

    def save(self, pairings: list[Pairing]) -> None:
        self._doc.write(pairings_to_json(pairings))


class StoredRules:
    """The standing approval rules, in a document."""

    def __init__(self, doc: Document) -> None:
        self._doc = doc

    def load(self) -> list[Rule]:
        raw = self._doc.read()
        return (
            [r for r in (Rule.from_dict(item) for item in raw or []) if r is not None] if isinstance(raw, list) else []
        )

    def save(self, rules: list[Rule]) -> None:
        self._doc.write([asdict(r) for r in rules])
