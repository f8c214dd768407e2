"""`tabpilot mcp`'s fast path: stdio to the running app's local socket, with the standard library (and two
small modules of ours: home.py finds the socket, quickjson reads ids).

Lines go up as they come and lines come down as they come; nothing is parsed but the ids of requests and
answers, so that when the client closes stdin after its last request (a script piping a few lines in)
the answers still owed are delivered before the relay ends. It imports no aiohttp, no MCP SDK and no
keyring, no argparse, json or pathlib, so the agent's `initialize` is answered about as fast as Python
starts (issue 11: ≤ 100 ms; 30 ms measured).
"""

from __future__ import annotations

import os
import socket
import sys
import threading

from tabpilot import quickjson

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import BinaryIO

DRAIN_LIMIT_S = 600.0
"""After stdin ends, how long answers still owed may take (a workflow waits up to its wait_ms)."""


def socket_path() -> str:
    """Where the app of this home listens (tabpilot/home.py, which Paths.local_socket is built from too)."""
    from tabpilot import home

    return home.local_socket()


def connect(path: str) -> socket.socket | None:
    """The app's socket, or None when there is none to connect to (no app, an older one, no Unix sockets)."""
    if not hasattr(socket, "AF_UNIX") or not os.path.exists(path):
        return None
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(path)
    except OSError:
        sock.close()
        return None
    return sock


def message_ids(line: str | bytes, *, answers: bool) -> list[str]:
    """The ids of the requests (answers=False) or of the answers (True) in one JSON-RPC line (both relays
    count what the app still owes with it)."""
    try:
        message = quickjson.loads(line)
    except quickjson.TooDeep:
        # Nested deeper than the parser goes: the app answers it all the same, by the id at its top
        # (agent/screen.py), and that answer is owed like any other.
        found = quickjson.head(line, ("id",)).get("id")
        plain = isinstance(found, int | str) and not isinstance(found, bool)
        return [quickjson.dumps_compact(found)] if plain and not answers else []
    except ValueError:
        return []
    items = message if isinstance(message, list) else [message]
    out = []
    for item in items:
        if isinstance(item, dict) and item.get("id") is not None:
            is_answer = "result" in item or "error" in item
            if is_answer == answers and (answers or "method" in item):
                out.append(quickjson.dumps_compact(item["id"]))
    return out


class _Owed:
    """Request ids sent up and not answered yet."""

    def __init__(self) -> None:
        self._ids: set[str] = set()
        self._lock = threading.Lock()
        self.settled = threading.Event()
        self.settled.set()

    def add(self, ids: list[str]) -> None:
        if ids:
            with self._lock:
                self._ids.update(ids)
                self.settled.clear()

    def answered(self, ids: list[str]) -> None:
        if ids:
            with self._lock:
                self._ids.difference_update(ids)
                if not self._ids:
                    self.settled.set()


def relay(sock: socket.socket, stdin: BinaryIO, stdout: BinaryIO) -> int:
    owed = _Owed()

    def up() -> None:
        try:
            for line in iter(stdin.readline, b""):
                if not line.strip():
                    continue
                owed.add(message_ids(line, answers=False))
                sock.sendall(line if line.endswith(b"\n") else line + b"\n")
            # stdin ended: what the app still owes is delivered first (within a limit), then goodbye.
            owed.settled.wait(DRAIN_LIMIT_S)
        except OSError:
            pass
        finally:
            # Not contextlib.suppress: importing contextlib costs the relay's start more than it saves here.
            try:  # noqa: SIM105
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass  # the app went first

    pump = threading.Thread(target=up, name="tabpilot-mcp-up", daemon=True)
    pump.start()
    with sock.makefile("rb") as down:
        for line in down:
            stdout.write(line)
            stdout.flush()
            owed.answered(message_ids(line, answers=True))
    return 0


def run() -> int | None:
    """Relay through the local socket; None when there is none (the caller falls back to the WebSocket)."""
    sock = connect(socket_path())
    if sock is None:
        return None
    try:
        return relay(sock, sys.stdin.buffer, sys.stdout.buffer)
    except KeyboardInterrupt:
        return 0
    except OSError as exc:
        print(f"tabpilot mcp: the connection to Tabpilot ended: {exc}", file=sys.stderr)
        return 1
    finally:
        sock.close()
