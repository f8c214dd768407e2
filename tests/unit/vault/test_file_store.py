"""The store where no OS keyring can be reached: private files, and nothing a file edit could turn on."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from tabpilot.paths import Paths
from tabpilot.vault import files
from tabpilot.vault.secrets import FileSecrets, SecretError
from tabpilot.vault.store import FileVault


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_the_token_file_is_private_and_read_back(tmp_path: Path) -> None:
    path = tmp_path / "state" / "tabpilot.token"
    old = os.umask(0)
    try:
        token = files.get_or_create_token(path)
    finally:
        os.umask(old)
    assert len(token) >= 40
    assert mode(path) == 0o600
    assert mode(path.parent) & 0o077 == 0
    assert files.get_or_create_token(path) == token
    assert files.read_token(path) == token


def test_a_token_file_others_can_read_is_not_used_and_a_new_token_replaces_it(tmp_path: Path) -> None:
    path = tmp_path / "tabpilot.token"
    leaked = files.get_or_create_token(path)
    path.chmod(0o644)
    assert files.read_token(path) is None
    fresh = files.get_or_create_token(path)
    assert fresh != leaked
    assert mode(path) == 0o600


def test_documents_are_private_files_and_loose_ones_are_ignored(tmp_path: Path) -> None:
    doc = files.FileDocument(tmp_path / "vault" / "pairings.json")
    assert doc.read() is None
    doc.write([{"pair_id": "pair-1"}])
    assert doc.read() == [{"pair_id": "pair-1"}]
    assert mode(doc.path) == 0o600
    doc.path.chmod(0o666)
    assert doc.read() is None  # anyone could have written it
    doc.path.chmod(0o600)
    doc.path.write_text("{not json")
    assert doc.read() is None


def test_file_secrets_set_list_rename_delete(tmp_path: Path) -> None:
    path = tmp_path / "vault" / "secrets.json"
    vault = FileSecrets(path)
    assert vault.names() == []
    vault.set("api_key", "s3cr3t-value")
    vault.set("pw", "hunter2")
    assert vault.names() == ["api_key", "pw"]
    assert vault.get("api_key") == "s3cr3t-value"
    assert mode(path) == 0o600
    assert FileSecrets(path).get("pw") == "hunter2"  # another process (the running app) reads it
    vault.rename("pw", "password")
    assert vault.names() == ["api_key", "password"]
    assert vault.get("password") == "hunter2"
    vault.delete("api_key")
    assert vault.names() == ["password"]
    assert json.loads(path.read_text()) == {"password": "hunter2"}
    with pytest.raises(SecretError):
        vault.set("no spaces", "x")
    with pytest.raises(SecretError):
        vault.set("empty", "")


def test_file_secrets_skip_what_is_not_a_named_string(tmp_path: Path) -> None:
    path = tmp_path / "secrets.json"
    path.write_text(json.dumps({"ok": "v", "bad name": "x", "n": 3}))
    path.chmod(0o600)
    assert FileSecrets(path).names() == ["ok"]


def test_the_pilot_and_the_capabilities_are_never_read_from_a_file(tmp_path: Path) -> None:
    paths = Paths.resolve(tmp_path / "home")
    vault = FileVault(paths)
    vault.remember_pilot(True)
    assert FileVault(paths).remembered_pilot() is False
    caps = vault.document("capabilities")
    caps.write({"capture_network_bodies": True})
    assert caps.read() == {"capture_network_bodies": True}  # this run
    assert FileVault(paths).document("capabilities").read() is None  # not the next
    assert not paths.vault_dir.exists() or not list(paths.vault_dir.iterdir())


def test_pairings_and_rules_persist_in_the_vault_folder(tmp_path: Path) -> None:
    from tabpilot.bridge.pairing import PairingBook

    paths = Paths.resolve(tmp_path / "home")
    book = PairingBook(FileVault(paths).pairings())
    pairing, token = book.pair(None, {"browser": {"name": "Chrome", "version": "131"}})
    assert [p.pair_id for p in PairingBook(FileVault(paths).pairings()).paired()] == [pairing.pair_id]
    stored = paths.vault_dir / "pairings.json"
    assert mode(stored) == 0o600
    assert token not in stored.read_text()  # only the token's hash is kept
    assert book.revoke(pairing.pair_id)
    assert PairingBook(FileVault(paths).pairings()).paired() == []
