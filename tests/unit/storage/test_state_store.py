"""Saved browser states at rest: encrypted, private, bound to their name; the key kept in the vault."""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path

from tabpilot.paths import Paths
from tabpilot.storage.state_store import EncryptedStates
from tabpilot.vault.store import STATE_KEY_BYTES, FileVault

STATE = {"url": "https://a.test/", "cookies": [{"name": "sid", "value": "COOKIE-VALUE-123"}], "localStorage": {}}


def test_a_state_is_written_encrypted_and_private_and_reads_back(tmp_path: Path) -> None:
    states = EncryptedStates(tmp_path / "states", lambda: b"k" * 32)
    states.save("alice", STATE)
    path = tmp_path / "states" / "alice.state"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert b"COOKIE-VALUE-123" not in path.read_bytes() and b"a.test" not in path.read_bytes()
    assert states.load("alice") == STATE
    assert states.names() == ["alice"]
    assert states.load("bob") is None
    assert states.delete("alice") is True and states.delete("alice") is False and states.names() == []


def test_a_file_under_another_name_or_key_does_not_open(tmp_path: Path) -> None:
    states = EncryptedStates(tmp_path, lambda: b"k" * 32)
    states.save("alice", STATE)
    (tmp_path / "mallory.state").write_bytes((tmp_path / "alice.state").read_bytes())
    assert states.load("mallory") is None  # the name is part of what is sealed
    assert EncryptedStates(tmp_path, lambda: b"x" * 32).load("alice") is None


def test_the_key_is_made_once_and_kept_where_the_vault_keeps_secrets(tmp_path: Path) -> None:
    paths = Paths.resolve(tmp_path)
    key = FileVault(paths).state_key()
    assert len(key) == STATE_KEY_BYTES
    assert FileVault(paths).state_key() == key  # a later run finds it
    kept = paths.vault_dir / "state-key.json"
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600
    assert not list(paths.data_dir.glob("states/*key*"))  # never beside the states


def test_a_fifo_in_place_of_a_state_is_no_state_and_blocks_nothing(tmp_path: Path) -> None:
    """Issue 18: `load_state` of a name a FIFO was planted under must answer, not wait for a writer."""
    states = EncryptedStates(tmp_path, lambda: b"k" * 32)
    os.mkfifo(tmp_path / "trap.state")
    done = threading.Event()
    answer: list[object] = []

    def load() -> None:
        answer.append(states.load("trap"))
        done.set()

    threading.Thread(target=load, daemon=True).start()
    assert done.wait(5), "load_state blocked on a FIFO"
    assert answer == [None]
