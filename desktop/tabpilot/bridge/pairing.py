"""Who may be the browser, and who may be the app: mutual proof of a shared secret.

Both sides key an HMAC with sha256(secret), where the secret is the managed browser's launch nonce,
a paired browser's token, or a one-time pairing code the user reads in the tray and types into the
extension's popup. The app proves it first, so an extension never obeys a program that merely
listens on the right port; then the extension proves it, so no local program can pose as it.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any, Protocol

CODE_ALPHABET = "23456789ABCDEFGHJKLMNPQRSTUVWXYZ"
CODE_LENGTH = 8
CODE_LIFETIME_S = 5 * 60
MAX_WAITING = 3
"""Browsers waiting to be paired at once; more are refused (each would open a window)."""


def key_of(secret: str) -> bytes:
    return hashlib.sha256(secret.encode()).digest()


def app_proof(key: bytes, client_nonce: str, server_nonce: str) -> str:
    return hmac.new(key, f"tabpilot-app|{client_nonce}|{server_nonce}".encode(), hashlib.sha256).hexdigest()


def extension_proof(key: bytes, client_nonce: str, server_nonce: str) -> str:
    return hmac.new(key, f"tabpilot-ext|{server_nonce}|{client_nonce}".encode(), hashlib.sha256).hexdigest()


def new_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def normalize_code(code: str) -> str:
    return "".join(ch for ch in code.upper() if ch.isalnum())


def show_code(code: str) -> str:
    return f"{code[:4]}-{code[4:]}"


@dataclass(frozen=True)
class Pairing:
    pair_id: str
    key: str
    """hex sha256 of the token: the keyring keeps this, never the token."""
    browser: str
    version: str
    extension_id: str
    instance_id: str
    profile: str
    created_at: float

    def describe(self) -> str:
        return f"{self.browser} {self.version}".strip() + (f" ({self.profile})" if self.profile else "")


class PairingVault(Protocol):
    def load(self) -> list[Pairing]: ...

    def save(self, pairings: list[Pairing]) -> None: ...


@dataclass
class PendingRequest:
    """A browser that asked to connect and waits for the user to type the code into its popup."""

    code: str
    browser: dict[str, Any]
    extension_id: str
    instance_id: str
    expires_at: float


class PairingBook:
    """Paired browsers, and the one-time codes a person hands to a browser to pair it."""

    def __init__(self, vault: PairingVault, clock: Callable[[], float] = time.time) -> None:
        self.vault = vault
        self.clock = clock
        self._pairings = {p.pair_id: p for p in vault.load()}
        self._pending: dict[str, PendingRequest] = {}
        self.listeners: list[Callable[[], None]] = []

    # -- paired browsers ---------------------------------------------------------------------------

    def paired(self) -> list[Pairing]:
        return sorted(self._pairings.values(), key=lambda p: p.created_at)

    def key_for(self, pair_id: str) -> bytes | None:
        pairing = self._pairings.get(pair_id)
        return bytes.fromhex(pairing.key) if pairing else None

    def pair(self, request: PendingRequest | None, hello: dict[str, Any]) -> tuple[Pairing, str]:
        """A new pairing for the browser that proved the code; returns it and the token for the browser."""
        token = secrets.token_urlsafe(32)
        browser = hello.get("browser") or {}
        pairing = Pairing(
            pair_id="pair-" + secrets.token_hex(6),
            key=key_of(token).hex(),
            browser=str(browser.get("name", "browser")),
            version=str(browser.get("version", "")),
            extension_id=str(hello.get("extension_id", "")),
            instance_id=str(hello.get("instance_id", "")),
            profile=str(browser.get("profile", "")),
            created_at=self.clock(),
        )
        self._pairings[pairing.pair_id] = pairing
        if request is not None:
            self._pending.pop(request.code, None)
        self._save()
        return pairing, token

    def revoke(self, pair_id: str) -> bool:
        if self._pairings.pop(pair_id, None) is None:
            return False
        self._save()
        return True

    # -- one-time codes ------------------------------------------------------------------------------

    def request(self, hello: dict[str, Any]) -> PendingRequest | None:
        """An unpaired browser knocked: a code for the person to type into its popup (one per browser);
        None when too many are waiting already."""
        self._expire()
        instance = str(hello.get("instance_id", ""))
        for pending in self._pending.values():
            if pending.instance_id == instance and instance:
                return pending
        if sum(1 for p in self._pending.values() if p.instance_id) >= MAX_WAITING:
            return None
        pending = PendingRequest(
            code=new_code(),
            browser=dict(hello.get("browser") or {}),
            extension_id=str(hello.get("extension_id", "")),
            instance_id=instance,
            expires_at=self.clock() + CODE_LIFETIME_S,
        )
        self._pending[pending.code] = pending
        self._changed()
        return pending

    def offer(self) -> PendingRequest:
        """A code asked for by a person (tray menu, `tabpilot pair`), before any browser knocked."""
        self._expire()
        pending = PendingRequest(new_code(), {}, "", "", self.clock() + CODE_LIFETIME_S)
        self._pending[pending.code] = pending
        self._changed()
        return pending

    def pending(self) -> list[PendingRequest]:
        self._expire()
        return list(self._pending.values())

    def cancel(self, code: str) -> None:
        if self._pending.pop(code, None) is not None:
            self._changed()

    def codes(self, instance_id: str = "") -> list[tuple[PendingRequest, bytes]]:
        """The live codes this browser may prove, with their keys: the one shown for it when it knocked,
        and codes a person asked for (tray, `tabpilot pair`), which belong to no browser yet."""
        self._expire()
        return [(p, key_of(p.code)) for p in self._pending.values() if p.instance_id in ("", instance_id)]

    def _expire(self) -> None:
        now = self.clock()
        stale = [code for code, p in self._pending.items() if p.expires_at <= now]
        for code in stale:
            del self._pending[code]
        if stale:
            self._changed()

    def _save(self) -> None:
        self.vault.save(self.paired())
        self._changed()

    def _changed(self) -> None:
        for listener in list(self.listeners):
            listener()


class MemoryPairingVault:
    def __init__(self) -> None:
        self.pairings: list[Pairing] = []

    def load(self) -> list[Pairing]:
        return list(self.pairings)

    def save(self, pairings: list[Pairing]) -> None:
        self.pairings = list(pairings)


def pairings_to_json(pairings: list[Pairing]) -> list[dict[str, Any]]:
    return [asdict(p) for p in pairings]


def pairings_from_json(raw: Any) -> list[Pairing]:
    out = []
    for item in raw if isinstance(raw, list) else []:
        try:
            out.append(Pairing(**{k: item[k] for k in Pairing.__dataclass_fields__}))
        except (KeyError, TypeError):
            continue
    return out
