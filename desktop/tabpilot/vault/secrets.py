"""Named secrets for workflows: `{{secret:NAME}}`.

In the OS keyring one entry each under service `tabpilot`; the keyring API cannot list entries, so the
names (never the values) are kept in an index entry beside them. Where no keyring can be reached,
`vault/secrets.json` under the state folder holds them instead (0600). Values are written and read,
never shown again after saving.
"""

from __future__ import annotations

import contextlib
import json
import logging
import re
import threading
from abc import ABC, abstractmethod
from pathlib import Path

import keyring
import keyring.errors

from tabpilot.storage.atomic import write_atomic
from tabpilot.vault.keyring_store import BACKEND_ERRORS, SECRETS_SERVICE, KeyringDocument

log = logging.getLogger("tabpilot.vault")

NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.-]{0,63}$")


class SecretError(ValueError):
    pass


def check_name(name: str) -> None:
    if not NAME.match(name):
        raise SecretError(
            "A secret's name is letters, digits, '_', '.' or '-', starting with a letter or '_' (at most 64)."
        )


class SecretsVault(ABC):
    """What the engine, the Secrets window and `tabpilot secret` need of a store of named secrets."""

    where = ""
    """Where the values are kept, for people: 'the OS keyring (service tabpilot)', or a file."""

    @abstractmethod
    def names(self) -> list[str]: ...

    @abstractmethod
    def get(self, name: str) -> str | None: ...

    @abstractmethod
    def _put(self, name: str, value: str) -> None: ...

    @abstractmethod
    def _drop(self, name: str) -> None: ...

    def set(self, name: str, value: str) -> None:
        check_name(name)
        if not value:
            raise SecretError("A secret needs a value.")
        self._put(name, value)
        log.info("secret %s saved in %s", name, self.where)

    def delete(self, name: str) -> None:
        self._drop(name)
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


class KeyringSecrets(SecretsVault):
    """Named secrets in the OS keyring."""

    where = f"the OS keyring (service {SECRETS_SERVICE})"

    def __init__(self) -> None:
        self._index = KeyringDocument("secret-names", "all")

    def names(self) -> list[str]:
        raw = self._index.read()
        return sorted({n for n in raw if isinstance(n, str)}) if isinstance(raw, list) else []

    def get(self, name: str) -> str | None:
        try:
            return keyring.get_password(SECRETS_SERVICE, name)
        except BACKEND_ERRORS:
            log.warning("could not read secret %s from the OS keyring", name)
            return None

    def _put(self, name: str, value: str) -> None:
        keyring.set_password(SECRETS_SERVICE, name, value)
        # Written before returning, so the list read next (the Secrets window, `secret list`) has it.
        self._index.write_now(sorted({*self.names(), name}))

    def _drop(self, name: str) -> None:
        with contextlib.suppress(keyring.errors.PasswordDeleteError):
            keyring.delete_password(SECRETS_SERVICE, name)
        self._index.write_now([n for n in self.names() if n != name])


class FileSecrets(SecretsVault):
    """Named secrets in one private JSON file ({name: value}, mode 0600 in a 0700 folder): the store
    where no OS keyring can be reached (a server, a container, CI). Read at every use, so a secret set
    from a terminal is there for the running app's next workflow."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.where = str(path)
        self._lock = threading.Lock()

    def _load(self) -> dict[str, str]:
        try:
            raw = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError):
            log.warning("%s is not readable JSON; no secrets are read from it", self.path)
            return {}
        if not isinstance(raw, dict):
            return {}
        return {k: v for k, v in raw.items() if isinstance(k, str) and isinstance(v, str) and NAME.match(k)}

    def _save(self, values: dict[str, str]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        write_atomic(self.path, json.dumps(values, indent=2, sort_keys=True) + "\n", mode=0o600)

    def names(self) -> list[str]:
        return sorted(self._load())

    def get(self, name: str) -> str | None:
        return self._load().get(name)

    def _put(self, name: str, value: str) -> None:
        with self._lock:
            values = self._load()
            values[name] = value
            self._save(values)

    def _drop(self, name: str) -> None:
        with self._lock:
            values = self._load()
            if values.pop(name, None) is not None:
                self._save(values)
