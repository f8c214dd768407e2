"""`tabpilot secret` and `tabpilot pairings`: the tray's Secrets and Paired browsers, from a terminal.

They act on the store the app uses (vault/store.py: the OS keyring, or where none is reachable the
private files). Pairings go through the running app when there is one, since it holds them in memory
(and a revoked browser must be cut off now); secrets are read by the app at each use, so they are
written to the store directly. No secret value is ever printed.
"""

from __future__ import annotations

import argparse
import getpass
import json
import sys
import time
from dataclasses import asdict
from typing import Any

import keyring.errors

from tabpilot.paths import Paths
from tabpilot.vault import store
from tabpilot.vault.keyring_store import KeyringUnavailable
from tabpilot.vault.secrets import SecretError, check_name

EXIT_ERROR = 1
EXIT_USAGE = 2


def _fail(prefix: str, message: object, code: int = EXIT_ERROR) -> int:
    print(f"tabpilot {prefix}: {message}", file=sys.stderr)
    return code


# -- secrets ---------------------------------------------------------------------------------------


def _read_value(name: str) -> str:
    """The value from a hidden prompt on a terminal (asked twice), else all of stdin."""
    if sys.stdin is not None and sys.stdin.isatty():
        value = getpass.getpass(f"Value of secret {name} (hidden): ")
        if value and getpass.getpass("Again, to confirm: ") != value:
            raise SecretError("The two values differ; nothing was saved.")
        return value
    value = sys.stdin.read() if sys.stdin is not None else ""
    return value[:-1] if value.endswith("\n") else value


def secret_command(paths: Paths, args: argparse.Namespace) -> int:
    where = f"secret {args.secret_action}"
    try:
        vault = store.for_shell(paths)
    except KeyringUnavailable as exc:
        return _fail(where, exc)
    secrets = vault.secrets
    try:
        if args.secret_action == "list":
            names = secrets.names()
            for name in names:
                print(name)
            if not names:
                print(f"No secrets saved in {secrets.where}.", file=sys.stderr)
            return 0
        name = args.name
        if args.secret_action == "set":
            check_name(name)
            value = _read_value(name)
            if value.endswith("\r"):
                value = value[:-1]
            secrets.set(name, value)
            vault.flush()
            print(f"Secret {name} saved in {secrets.where}; workflows use it as {{{{secret:{name}}}}}.")
            return 0
        if name not in secrets.names():
            return _fail(where, f"there is no secret named {name!r} in {secrets.where}.")
        secrets.delete(name)
        vault.flush()
        print(f"Secret {name} deleted from {secrets.where}.")
        return 0
    except SecretError as exc:
        return _fail(where, exc, EXIT_USAGE)
    except (KeyringUnavailable, keyring.errors.KeyringError, OSError) as exc:
        return _fail(where, f"the store could not be used: {exc}")
    except (KeyboardInterrupt, EOFError):
        return _fail(where, "cancelled; nothing was saved.")


# -- pairings --------------------------------------------------------------------------------------


def _when(value: Any) -> str:
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0:
        return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(value))
    return str(value)


def _show(pairings: list[dict[str, Any]], source: str) -> None:
    if not pairings:
        print(f"No paired browsers ({source}).")
        return
    print(f"Paired browsers ({source}):")
    for item in pairings:
        title = " ".join(str(item[k]) for k in ("browser", "version") if item.get(k))
        print(f"  {item.get('pair_id', '?')}  {title}".rstrip())
        for key, value in item.items():
            if key in ("pair_id", "browser", "version") or value in ("", None):
                continue
            shown = _when(value) if key.endswith("_at") or key.startswith("last_") else value
            print(f"      {key.replace('_', ' ')}: {shown}")


def _from_store(paths: Paths) -> tuple[store.Vault, list[dict[str, Any]]]:
    vault = store.for_shell(paths)
    stored = vault.pairings().load()
    return vault, [{k: v for k, v in asdict(p).items() if k != "key"} for p in stored]


def pairings_command(paths: Paths, args: argparse.Namespace) -> int:
    from tabpilot.bridge.pairing import PairingBook
    from tabpilot.cli import client

    action = args.pairings_action or "list"
    where = f"pairings {action}" if action != "list" else "pairings"
    try:
        target: client.Target | None = client.find(paths)
    except client.Unreachable as exc:
        return _fail(where, exc)
    except client.NotRunning:
        target = None
    try:
        if target is not None:
            if action == "revoke":
                reply = client.request(target, "POST", "/api/v1/pairings/revoke", {"pair_id": args.pair_id}, timeout=10)
                revoked = bool(reply.get("revoked"))
            else:
                listed: list[dict[str, Any]] = client.request(target, "GET", "/api/v1/pairings", timeout=10)["pairings"]
                source = f"the running app, pid {target.state.pid}"
        else:
            vault, listed = _from_store(paths)
            source = "in " + ("the OS keyring" if vault.location == "keyring" else str(paths.vault_dir))
            if action == "revoke":
                revoked = PairingBook(vault.pairings()).revoke(args.pair_id)
                vault.flush()
    except client.NotRunning as exc:
        return _fail(where, exc)
    except (KeyringUnavailable, keyring.errors.KeyringError) as exc:
        return _fail(where, exc)
    if action == "revoke":
        if not revoked:
            return _fail(where, f"no paired browser has the id {args.pair_id!r} (see `tabpilot pairings`).")
        print(f"Revoked {args.pair_id}: that browser must be paired again to connect.")
        return 0
    if args.json:
        print(json.dumps(listed, indent=2, ensure_ascii=False))
    else:
        _show(listed, source)
    return 0
