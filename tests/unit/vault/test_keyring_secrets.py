"""Named secrets in the real OS keyring: a saved name is listed at once (the Secrets window and
`tabpilot secret list` read the list right after a save)."""

from __future__ import annotations

import secrets

from tabpilot.vault.secrets import KeyringSecrets


def test_a_saved_secret_is_listed_at_once_and_a_deleted_one_is_gone_at_once(secret_service: None) -> None:
    vault = KeyringSecrets()
    name = "unit_" + secrets.token_hex(4)
    try:
        vault.set(name, "v-" + secrets.token_hex(8))
        assert name in vault.names()
        assert name in KeyringSecrets().names()
    finally:
        vault.delete(name)
    assert name not in vault.names()
    assert vault.get(name) is None
