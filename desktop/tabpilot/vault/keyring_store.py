"""Secrets in the OS keyring (Secret Service, Keychain, Credential Manager) through `keyring`."""

from __future__ import annotations

import contextlib
import logging
import secrets

import keyring
import keyring.errors

log = logging.getLogger("tabpilot.vault")

SECRETS_SERVICE = "tabpilot"
"""Named workflow secrets: one entry per name, as the contract says."""
TOKENS_SERVICE = "tabpilot.bridge"
"""The bridge tokens, kept apart so a user's secret name can never shadow one."""


class KeyringUnavailable(RuntimeError):
    pass


def _backend_ok() -> None:
    backend = keyring.get_keyring()
    if type(backend).__module__.startswith(("keyring.backends.fail", "keyring.backends.null")):
        raise KeyringUnavailable(
            "No OS keyring is available. Tabpilot keeps its token in the keyring, never in files; "
            "on Linux start a Secret Service (e.g. gnome-keyring) in your session."
        )


def get_token(account: str) -> str | None:
    _backend_ok()
    try:
        return keyring.get_password(TOKENS_SERVICE, account)
    except keyring.errors.KeyringError as exc:
        raise KeyringUnavailable(f"The OS keyring could not be read: {exc}") from exc


def get_or_create_token(account: str) -> str:
    token = get_token(account)
    if token:
        return token
    token = secrets.token_urlsafe(32)
    try:
        keyring.set_password(TOKENS_SERVICE, account, token)
    except keyring.errors.KeyringError as exc:
        raise KeyringUnavailable(f"The OS keyring refused to store the token: {exc}") from exc
    log.info("created a new bridge token in the OS keyring")
    return token


def remembered_pilot(account: str) -> bool:
    """The tray's AI Web Pilot choice. Kept in the keyring, not in config.json, so that no file an
    agent can write turns the pilot on at the next start."""
    try:
        return keyring.get_password(TOKENS_SERVICE, f"pilot:{account}") == "on"
    except keyring.errors.KeyringError:
        return False


def remember_pilot(account: str, on: bool) -> None:
    try:
        if on:
            keyring.set_password(TOKENS_SERVICE, f"pilot:{account}", "on")
        else:
            with contextlib.suppress(keyring.errors.PasswordDeleteError):
                keyring.delete_password(TOKENS_SERVICE, f"pilot:{account}")
    except keyring.errors.KeyringError:
        log.warning("could not remember the AI Web Pilot choice in the OS keyring")


class KeyringSecrets:
    """SecretStore for `{{secret:NAME}}` references."""

    def get(self, name: str) -> str | None:
        try:
            return keyring.get_password(SECRETS_SERVICE, name)
        except keyring.errors.KeyringError:
            log.warning("could not read secret %s from the OS keyring", name)
            return None
