"""Talking to a running app from another process (status, stop, call, the shell CLI, the MCP relay).

Light on purpose: the shell CLI imports it when the app has no local socket to use (its common calls
go through cli/local_call.py alone), so the keyring (and what it pulls in) is imported only when the app
keeps its token there, and `post` speaks HTTP with http.client alone.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tabpilot.cli.local_call import NotRunning as NotRunning  # where callers catch it: client.NotRunning
from tabpilot.paths import Paths
from tabpilot.storage import statefile
from tabpilot.storage.lock import InstanceLock


class Unreachable(NotRunning):
    """The app runs, but this shell cannot get its token (it is in a keyring out of this shell's reach)."""

    def __init__(self, message: str, state: statefile.AppState) -> None:
        super().__init__(message)
        self.state = state


@dataclass(frozen=True)
class Target:
    port: int
    token: str
    state: statefile.AppState

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"


def find(paths: Paths) -> Target:
    # A crashed app leaves its state file behind, and its pid may belong to another process by now:
    # only the instance lock says whether an app runs for this home.
    if not InstanceLock(paths.lock_file).held_elsewhere():
        raise NotRunning("Tabpilot is not running.")
    state = statefile.read(paths.state_file)
    if state is None:
        raise NotRunning("Tabpilot is starting or not running (no state file yet).")
    if state.secrets == "file":
        from tabpilot.vault import files

        token = files.read_token(paths.token_file)
        if not token:
            raise NotRunning(f"Tabpilot's token is not in {paths.token_file}; start the app again.")
        return Target(state.port, token, state)
    from tabpilot.vault import keyring_store, store

    # The app wrote down where it keeps its token; follow that rather than guess from this shell.
    vault = store.vault_at(paths, "keyring")
    if vault.location == "keyring" and not keyring_store.reachable():
        raise Unreachable(store.unreachable_message(state), state)
    try:
        token = vault.get_token()
    except keyring_store.KeyringUnavailable as exc:
        raise Unreachable(str(exc), state) from exc
    if not token:
        raise NotRunning(f"Tabpilot's token is not in {vault.token_where}; start the app again.")
    return Target(state.port, token, state)


def post(target: Target, path: str, body: Any, timeout: float = 30.0) -> Any:
    """POST `body` as JSON and answer the JSON reply: what the shell CLI sends, with http.client alone."""
    import http.client

    conn = http.client.HTTPConnection("127.0.0.1", target.port, timeout=timeout)
    try:
        conn.request(
            "POST",
            path,
            json.dumps(body).encode(),
            {"Authorization": f"Bearer {target.token}", "Content-Type": "application/json"},
        )
        resp = conn.getresponse()
        data = resp.read()
    except OSError as exc:
        raise NotRunning(f"Tabpilot is not answering on port {target.port}: {exc}") from exc
    finally:
        conn.close()
    if resp.status >= 400:
        try:
            answer = json.loads(data)
        except ValueError:
            answer = None
        if isinstance(answer, dict) and isinstance(answer.get("error"), str):
            return answer  # the app's own refusal ({error, message}): the caller reports it
        raise NotRunning(f"Tabpilot answered HTTP {resp.status}: {data[:200].decode(errors='replace')}")
    return json.loads(data or b"null")


def request(target: Target, method: str, path: str, body: Any = None, timeout: float = 30.0) -> Any:
    import urllib.error
    import urllib.request

    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(
        target.base + path,
        data=data,
        method=method,
        headers={"Authorization": f"Bearer {target.token}", "Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            return json.loads(resp.read() or b"null")
    except urllib.error.HTTPError as exc:
        raise NotRunning(f"Tabpilot answered HTTP {exc.code}: {exc.read()[:200].decode(errors='replace')}") from exc
    except (urllib.error.URLError, OSError) as exc:
        raise NotRunning(f"Tabpilot is not answering on port {target.port}: {exc}") from exc


AUTOSTART_LOG_MAX = 256 * 1024
"""serve-autostart.log holds what auto-started serves printed before their own log took over (why one
did not start); past this size it is moved to serve-autostart.log.1 (one old copy kept) at the next start.
An auto-started serve logs to logs/tabpilot.log only, which rotates by itself."""


def cap_autostart_log(log: Path) -> None:
    try:
        if log.stat().st_size > AUTOSTART_LOG_MAX:
            os.replace(log, log.with_name(log.name + ".1"))
    except OSError:
        pass  # no log yet, or another starter moved it first


def start_background_serve(paths: Paths, timeout_s: float = 30.0) -> Target:
    """Start `tabpilot serve --browser managed --headless` (pilot off) detached, and wait until it answers."""
    log = paths.log_dir / "serve-autostart.log"
    paths.log_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
    cap_autostart_log(log)
    with os.fdopen(os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600), "ab") as out:
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "tabpilot",
                "serve",
                "--browser",
                "managed",
                "--headless",
                "--auto-started",
            ],
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=out,
            start_new_session=True,
            env=os.environ.copy(),
        )
    deadline = time.monotonic() + timeout_s
    last: Exception | None = None
    while time.monotonic() < deadline:
        try:
            target = find(paths)
            request(target, "GET", "/api/v1/status", timeout=2)
            return target
        except NotRunning as exc:
            last = exc
            time.sleep(0.1)
    raise NotRunning(f"Tabpilot did not start within {timeout_s:g} s ({last}); see {log}.")
