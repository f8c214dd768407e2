"""Named secrets for workflows: `{{secret:NAME}}`, one keyring entry each under service `tabpilot`.

The keyring API cannot list entries, so the names (never the values) are kept in an index entry
beside them. Values are written and read, never shown again after saving.
"""

from __future__ import annotations

import contextlib
import logging
import re

import keyring
import keyring.errors

from tabpilot.vault.keyring_store import SECRETS_SERVICE, KeyringDocument

log = logging.getLogger("tabpilot.vault")

NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.-]{0,63}$")


class SecretError(ValueError):
    pass


class SecretsVault:
    def __init__(self) -> None:
        self._index = KeyringDocument("secret-names", "all")

    def names(self) -> list[str]:
        raw = self._index.read()
        return sorted({n for n in raw if isinstance(n, str)}) if isinstance(raw, list) else []

    def get(self, name: str) -> str | None:
        try:
            return keyring.get_password(SECRETS_SERVICE, name)
        except keyring.errors.KeyringError:
            log.warning("could not read secret %s from the OS keyring", name)
            return None

    def set(self, name: str, value: str) -> None:
        if not NAME.match(name):
            raise SecretError(
                "A secret's name is letters, digits, '_', '.' or '-', starting with a letter or '_' (at most 64)."
            )
        if not value:
            raise SecretError("A secret needs a value.")
        keyring.set_password(SECRETS_SERVICE, name, value)
        self._index.write(sorted({*self.names(), name}))
        log.info("secret %s saved in the OS keyring", name)

    def delete(self, name: str) -> None:
        with contextlib.suppress(keyring.errors.PasswordDeleteError):
            keyring.delete_password(SECRETS_SERVICE, name)
        self._index.write([n for n in self.names() if n != name])
        log.info("secret %s deleted", name)

    def rename(self, old: str, new: str) -> None:
        if old == new:
            return
        if not NAME.match(new):
            raise SecretError("That is not a valid secret name.")
        if new in self.names():
            raise SecretError(f"A secret named {new!r} exists already.")
        value = self.get(old)
        if value is None:
            raise SecretError(f"There is no secret named {old!r}.")
        self.set(new, value)
        self.delete(old)
