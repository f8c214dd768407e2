"""A keyring that blocks (a locked keyring waiting on its unlock prompt) must not stall the app."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import keyring
import pytest
from keyring.backend import KeyringBackend

from tabpilot.vault import keyring_store


class BlockingKeyring(KeyringBackend):
    priority = 1  # type: ignore[assignment]

    # The required argument keeps keyring's backend discovery (which builds every subclass it can
    # construct with no arguments) from chaining this test double into the real keyring for the
    # rest of the run.
    def __init__(self, name: str) -> None:
        super().__init__()
        self.label = name
        self.unlocked = threading.Event()
        self.values: dict[tuple[str, str], str] = {}
        self.order: list[str] = []

    def get_password(self, service: str, username: str) -> str | None:
        return self.values.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        assert self.unlocked.wait(10), "the test never unlocked the keyring"
        self.values[(service, username)] = password
        self.order.append(password)

    def delete_password(self, service: str, username: str) -> None:
        self.values.pop((service, username), None)


@pytest.fixture
def blocking() -> Iterator[BlockingKeyring]:
    before = keyring.get_keyring()
    backend = BlockingKeyring("blocking")
    keyring.set_keyring(backend)
    try:
        yield backend
    finally:
        backend.unlocked.set()
        keyring_store.flush_writes()
        keyring.set_keyring(before)


def test_writes_return_at_once_and_land_in_order_once_the_keyring_answers(blocking: BlockingKeyring) -> None:
    doc = keyring_store.KeyringDocument("approval-rules", "test")
    doc.write({"n": 1})  # would hang here if the write ran on the caller's thread
    doc.write({"n": 2})
    keyring_store.remember_pilot("test", True)
    assert doc.read() is None

    blocking.unlocked.set()
    keyring_store.flush_writes()
    assert doc.read() == {"n": 2}
    assert blocking.order == ['{"n":1}', '{"n":2}', "on"]
    assert keyring_store.remembered_pilot("test") is True
