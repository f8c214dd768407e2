"""The pairing policy the bridge consults (bridge/app_auth.py), without an app around it."""

from __future__ import annotations

from typing import Any, cast

from tabpilot.bridge.app_auth import AppAuth
from tabpilot.bridge.pairing import MemoryPairingVault, PairingBook, PendingRequest, key_of
from tabpilot.bridge.protocol import Hello


def hello(auth: str, **fields: Any) -> Hello:
    return cast(Hello, {"auth": auth, "instance_id": "inst-1", "browser": {"name": "Chromium"}, **fields})


class Host:
    def __init__(self) -> None:
        self.nonce = ""
        self.knocks: list[PendingRequest] = []

    def auth(self, book: PairingBook) -> AppAuth:
        return AppAuth(
            book,
            managed_nonce=lambda: self.nonce,
            knocked=self.knocks.append,
            hint=lambda: "type the code",
            full=lambda: "two browsers are connected",
        )


def test_the_managed_browser_proves_the_launch_secret_of_this_run_only() -> None:
    host = Host()
    auth = host.auth(PairingBook(MemoryPairingVault()))
    refused = auth.keys(hello("managed"))
    assert isinstance(refused, dict) and refused["code"] == "stale_nonce"
    host.nonce = "launch-secret"
    assert auth.keys(hello("managed")) == [(key_of("launch-secret"), "managed")]


def test_an_unpaired_browser_is_shown_to_the_person_once_and_told_what_to_do() -> None:
    host = Host()
    book = PairingBook(MemoryPairingVault())
    auth = host.auth(book)
    for _ in range(3):
        refused = auth.keys(hello("none"))
        assert isinstance(refused, dict)
        assert (refused["code"], refused["reason"]) == ("unpaired", "type the code")
    assert [p.instance_id for p in host.knocks] == ["inst-1"]


def test_a_proved_code_pairs_the_browser_and_its_token_works_next_time() -> None:
    host = Host()
    book = PairingBook(MemoryPairingVault())
    auth = host.auth(book)
    code = book.offer().code
    keys = auth.keys(hello("pairing"))
    assert keys == [(key_of(code), f"code:{code}")]
    greeting = hello("pairing")
    welcome = auth.accepted(greeting, f"code:{code}")
    pair_id = welcome["pairing"]["pair_id"]
    assert greeting["pair_id"] == pair_id, "this connection is that pairing from now on"
    token = welcome["pairing"]["token"]
    assert auth.keys(hello("paired", pair_id=pair_id)) == [(key_of(token), "paired")]
    assert auth.busy(greeting) == "two browsers are connected"
