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
from dataclasses import MISSING, asdict, dataclass, replace
from typing import Any, Protocol

from tabpilot.observers import Observers

CODE_ALPHABET = "23456789ABCDEFGHJKLMNPQRSTUVWXYZ"
CODE_LENGTH = 8
CODE_LIFETIME_S = 5 * 60
MAX_WAITING = 3
"""Knocking browsers that wait for the person at once (each opens a window). A wait whose browser stopped
knocking (KNOCK_STALE_S) gives its place to a new one, so a few one-off knocks block nobody for long; codes
the person asks for (tray, `tabpilot pair`) are never limited by this."""
KNOCK_STALE_S = 60.0
"""An unpaired extension knocks again every 15 s while it waits; a minute of silence means it went away."""
MAX_NAME = 60
MAX_TRACKED = 1000
"""Browser ids whose wrong codes are remembered at once; older ones are forgotten first."""
MAX_BAD_PROOFS = 5
"""Wrong codes (or walk-aways) one browser may give within BAD_PROOF_WINDOW_S before it is held off."""
BAD_PROOF_WINDOW_S = 5 * 60
HOLD_OFF_S = 5 * 60


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
    os: str = ""
    """The operating system the extension reported (Linux, Windows, macOS, ChromeOS)."""
    name: str = ""
    """What the person calls this browser (editable in Paired browsers); set at pairing to a default."""
    last_seen: float = 0.0
    """When this browser last connected or left (0: never since it was paired)."""

    def label(self) -> str:
        return self.name or default_name(self.browser, self.os)

    def describe(self) -> str:
        about = f"{self.browser} {self.version}".strip() + (f" on {self.os}" if self.os else "")
        given = self.name and not self.name.startswith(default_name(self.browser, self.os))
        return f"{self.name} ({about})" if given else about


class PairingVault(Protocol):
    def load(self) -> list[Pairing]: ...

    def save(self, pairings: list[Pairing]) -> None: ...


BROWSER_FIELDS = ("name", "version", "os", "profile", "user_agent")


def clean_browser(raw: Any) -> dict[str, str]:
    """What a browser says about itself, as short printable text: it reaches windows, the terminal, the log
    and the keyring, and anyone on the machine can knock with anything."""
    if not isinstance(raw, dict):
        return {}
    out = {}
    for name in BROWSER_FIELDS:
        value = raw.get(name)
        if isinstance(value, str | int | float) and not isinstance(value, bool):
            text = "".join(ch for ch in str(value) if ch.isprintable()).strip()
            if text:
                out[name] = text[: 200 if name == "user_agent" else MAX_NAME]
    return out


def instance_of(raw: Any) -> str:
    """A browser's install id as a key (the extension's is a UUID; a stranger's may be anything)."""
    return str(raw or "")[:128]


def default_name(browser: str, os: str) -> str:
    return f"{browser or 'Browser'} on {os}" if os else browser or "Browser"


@dataclass
class PendingRequest:
    """A browser that asked to connect and waits for the user to type the code into its popup."""

    code: str
    browser: dict[str, Any]
    extension_id: str
    instance_id: str
    expires_at: float
    last_knock: float = 0.0
    knocks: int = 0
    """How often its browser knocked (the first knock is the one to tell the person about)."""


class PairingBook:
    """Paired browsers, and the one-time codes a person hands to a browser to pair it."""

    def __init__(self, vault: PairingVault, clock: Callable[[], float] = time.time) -> None:
        self.vault = vault
        self.clock = clock
        self._pairings = {p.pair_id: p for p in vault.load()}
        self._pending: dict[str, PendingRequest] = {}
        self._bad_proofs: dict[str, list[float]] = {}
        self._held_off: dict[str, float] = {}
        self.changed: Observers[[]] = Observers("pairing book")
        """Told when a pairing or an open code comes, goes or changes."""

    # -- paired browsers ---------------------------------------------------------------------------

    def paired(self) -> list[Pairing]:
        return sorted(self._pairings.values(), key=lambda p: p.created_at)

    def key_for(self, pair_id: str) -> bytes | None:
        pairing = self._pairings.get(pair_id)
        return bytes.fromhex(pairing.key) if pairing else None

    def pair(self, request: PendingRequest | None, hello: dict[str, Any]) -> tuple[Pairing, str]:
        """A new pairing for the browser that proved the code; returns it and the token for the browser."""
        token = secrets.token_urlsafe(32)
        browser = clean_browser(hello.get("browser"))
        name, os = browser.get("name", "browser"), browser.get("os", "")
        now = self.clock()
        pairing = Pairing(
            pair_id="pair-" + secrets.token_hex(6),
            key=key_of(token).hex(),
            browser=name,
            version=browser.get("version", ""),
            extension_id=str(hello.get("extension_id", ""))[:MAX_NAME],
            instance_id=instance_of(hello.get("instance_id")),
            profile=browser.get("profile", ""),
            created_at=now,
            os=os,
            name=self._unused_name(default_name(name, os)),
            last_seen=now,
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

    def rename(self, pair_id: str, name: str) -> bool:
        """The person's own name for a paired browser (blank: back to the default)."""
        pairing = self._pairings.get(pair_id)
        if pairing is None:
            return False
        name = " ".join(name.split())[:MAX_NAME] or self._unused_name(
            default_name(pairing.browser, pairing.os), pair_id
        )
        if name != pairing.name:
            self._pairings[pair_id] = replace(pairing, name=name)
            self._save()
        return True

    def seen(self, pair_id: str, browser: dict[str, Any] | None = None) -> None:
        """A paired browser connected (with what it says it is now: browsers update) or left."""
        pairing = self._pairings.get(pair_id)
        if pairing is None:
            return
        changes: dict[str, Any] = {"last_seen": self.clock()}
        if browser:
            said = clean_browser(browser)
            changes["version"] = said.get("version", pairing.version)
            changes["os"] = said.get("os", pairing.os)
        self._pairings[pair_id] = replace(pairing, **changes)
        self._save()

    def _unused_name(self, name: str, own: str = "") -> str:
        taken = {p.name for p in self._pairings.values() if p.pair_id != own}
        candidate, n = name, 1
        while candidate in taken:
            n += 1
            candidate = f"{name} ({n})"
        return candidate

    # -- one-time codes ------------------------------------------------------------------------------

    def request(self, hello: dict[str, Any]) -> PendingRequest | None:
        """An unpaired browser knocked: a code for the person to type into its popup (one per browser,
        `knocks` counts its visits); None when MAX_WAITING browsers that still knock wait already."""
        self._expire()
        now = self.clock()
        instance = instance_of(hello.get("instance_id"))
        if not instance:
            return None
        for pending in self._pending.values():
            if pending.instance_id == instance:
                pending.last_knock, pending.knocks = now, pending.knocks + 1
                return pending
        waiting = sorted((p for p in self._pending.values() if p.instance_id), key=lambda p: p.last_knock)
        if len(waiting) >= MAX_WAITING:
            if now - waiting[0].last_knock < KNOCK_STALE_S:
                return None
            del self._pending[waiting[0].code]  # that browser went away: its place goes to this one
        pending = PendingRequest(
            code=new_code(),
            browser=clean_browser(hello.get("browser")),
            extension_id=str(hello.get("extension_id", ""))[:MAX_NAME],
            instance_id=instance,
            expires_at=now + CODE_LIFETIME_S,
            last_knock=now,
            knocks=1,
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

    def open_codes(self) -> list[str]:
        """The codes open now, expired or not, without side effects (the log's scrubber asks, from any thread)."""
        return list(self._pending)

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
        instance_id = instance_of(instance_id)
        return [(p, key_of(p.code)) for p in self._pending.values() if p.instance_id in ("", instance_id)]

    # -- wrong codes: counted per browser, so that no one spends another's code -------------------------

    def held_off(self, instance_id: str) -> float:
        """Seconds this browser must wait before it may try a code again (0: it may now)."""
        instance_id = instance_of(instance_id)
        until = self._held_off.get(instance_id, 0.0)
        left = until - self.clock()
        if left <= 0:
            self._held_off.pop(instance_id, None)
            return 0.0
        return left

    def bad_proof(self, instance_id: str) -> bool:
        """A browser proved a wrong code (or walked away before proving one). After MAX_BAD_PROOFS within
        BAD_PROOF_WINDOW_S it is held off for HOLD_OFF_S and the code shown for it is withdrawn; returns
        True then. Codes the person asked for stay open: another browser's guesses never spend them."""
        now, instance_id = self.clock(), instance_of(instance_id)
        recent = [t for t in self._bad_proofs.get(instance_id, []) if now - t < BAD_PROOF_WINDOW_S]
        recent.append(now)
        if len(self._bad_proofs) + len(self._held_off) > MAX_TRACKED and instance_id not in self._bad_proofs:
            self._forget_old_proofs(now)
        if len(recent) < MAX_BAD_PROOFS:
            self._bad_proofs[instance_id] = recent
            return False
        self._bad_proofs.pop(instance_id, None)
        self._held_off[instance_id] = now + HOLD_OFF_S
        for code in [c for c, p in self._pending.items() if p.instance_id and p.instance_id == instance_id]:
            self.cancel(code)
        return True

    def good_proof(self, instance_id: str) -> None:
        self._bad_proofs.pop(instance_of(instance_id), None)

    def _forget_old_proofs(self, now: float) -> None:
        """Made-up browser ids cost nothing: keep the bookkeeping small."""
        for instance, times in list(self._bad_proofs.items()):
            if not times or now - times[-1] >= BAD_PROOF_WINDOW_S:
                del self._bad_proofs[instance]
        for instance, until in list(self._held_off.items()):
            if until <= now:
                del self._held_off[instance]
        by_age = sorted(self._bad_proofs, key=lambda instance: self._bad_proofs[instance][-1])
        for instance in by_age[: max(0, len(by_age) - MAX_TRACKED // 2)]:
            del self._bad_proofs[instance]
        by_end = sorted(self._held_off, key=self._held_off.__getitem__)
        for instance in by_end[: max(0, len(by_end) - MAX_TRACKED // 2)]:
            del self._held_off[instance]

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
        self.changed.notify()


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
    """Records as saved by any release: fields added later (os, name, last_seen) take their defaults."""
    out = []
    for item in raw if isinstance(raw, list) else []:
        try:
            fields = Pairing.__dataclass_fields__
            out.append(
                Pairing(
                    **{
                        k: item[k]
                        for k, f in fields.items()
                        if k in item or (f.default is MISSING and f.default_factory is MISSING)
                    }
                )
            )
        except (KeyError, TypeError):
            continue
    return out
