"""Who may be this app's browser: the pairing policy the bridge consults for each browser that connects."""

from __future__ import annotations

import logging
import math
from collections.abc import Callable
from typing import Any

from tabpilot.bridge.pairing import HOLD_OFF_S, PairingBook, PendingRequest, key_of
from tabpilot.bridge.protocol import Hello, Refused

log = logging.getLogger("tabpilot.bridge")


class AppAuth:
    """Who may be this app's browser: the managed browser it launched (its launch secret), a browser
    the user paired (its token), or one proving a pairing code the user read here."""

    def __init__(
        self,
        book: PairingBook,
        *,
        managed_nonce: Callable[[], str],
        knocked: Callable[[PendingRequest], None],
        hint: Callable[[], str],
        full: Callable[[], str],
    ) -> None:
        self.book = book
        self.managed_nonce = managed_nonce
        """The launch secret of the managed browser the app started ("" when it started none)."""
        self.knocked = knocked
        """Tells the person (never the log) the code of an unpaired browser that knocked for the first time."""
        self.hint = hint
        """What an unpaired browser's popup should tell the person to do."""
        self.full = full
        """Why a browser cannot connect now (as many are as the app takes), and what the person can do."""

    def keys(self, hello: Hello) -> list[tuple[bytes, str]] | Refused:
        book = self.book
        kind = hello["auth"]
        if kind == "managed":
            nonce = self.managed_nonce()
            if not nonce:
                return _refused("stale_nonce", "This managed-browser launch is not this app's.")
            return [(key_of(nonce), "managed")]
        if kind == "paired":
            key = book.key_for(hello.get("pair_id", ""))
            if key is not None:
                return [(key, "paired")]
        if kind == "pairing":
            wait = book.held_off(hello["instance_id"])
            if wait:
                return _refused(
                    "throttled",
                    f"Too many wrong pairing codes from this browser: try again in {math.ceil(wait / 60)} minutes.",
                )
            codes = book.codes(hello["instance_id"])
            if codes:
                return [(key, f"code:{pending.code}") for pending, key in codes]
            return _refused(
                "no_pairing_code",
                "That code is no longer open. In the Tabpilot app choose “Pair your own browser…” "
                "(or run `tabpilot pair`) for a new one.",
            )
        pending = book.request(dict(hello))
        if pending is None:
            return _refused(
                "busy",
                "Several browsers are waiting to be paired already. In the Tabpilot app choose “Pair your own "
                "browser…” (or run `tabpilot pair`) for a code.",
            )
        if pending.knocks == 1:
            self.knocked(pending)
        return _refused("unpaired", self.hint())

    def accepted(self, hello: Hello, tag: str) -> dict[str, Any]:
        book = self.book
        if tag == "paired":
            book.seen(hello.get("pair_id", ""), dict(hello["browser"]))
        if not tag.startswith("code:"):
            return {}
        book.good_proof(hello["instance_id"])
        code = tag.removeprefix("code:")
        request = next((p for p in book.pending() if p.code == code), None)
        pairing, token = book.pair(request, dict(hello))
        # This connection is that pairing from now on: revoking it must cut it off, as after a reconnect.
        hello["pair_id"] = pairing.pair_id
        log.info("paired a browser: %s (%s)", pairing.describe(), pairing.pair_id)
        return {"pairing": {"pair_id": pairing.pair_id, "token": token}}

    def busy(self, hello: Hello) -> str:
        return self.full()

    def failed(self, hello: Hello) -> None:
        log.warning("a browser failed to prove its %s secret", hello["auth"])
        if hello["auth"] == "pairing" and self.book.bad_proof(hello["instance_id"]):
            log.warning(
                "too many wrong pairing codes from one browser: it waits %d minutes (other browsers and the "
                "codes you asked for are not affected)",
                HOLD_OFF_S // 60,
            )


def _refused(code: str, reason: str) -> Refused:
    return {"type": "refused", "code": code, "reason": reason}
