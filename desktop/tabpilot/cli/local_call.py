"""One request to the running app over its local socket (agent/local_socket.py): a line of JSON out,
a line back. No token, so no keyring lookup, and no TCP.

Built on `_socket` and quickjson rather than `socket` and `json`: the shell CLI sends every call
through here, and those two modules (with the `enum` and `re` they import) cost about as much as the
rest of a `tabpilot js 1+1` together.
"""

from __future__ import annotations

import os

from tabpilot import quickjson

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class NotRunning(RuntimeError):
    pass


class NoSocket(Exception):
    """There is no socket to use (no app, or a platform or home without one): nothing was sent."""


def post(where: str, path: str, body: Any, timeout: float = 30.0) -> Any:
    """POST-like: `body` to the app's `path` (one of bridge/server.py LOCAL_API), the answer's body.

    Raises NoSocket before anything is sent, NotRunning when the app stops answering half way."""
    try:
        import _socket
    except ImportError as exc:  # a Python without sockets
        raise NoSocket(where) from exc
    if not hasattr(_socket, "AF_UNIX") or not os.path.exists(where):
        raise NoSocket(where)
    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        sock.settimeout(timeout)
        try:
            sock.connect(where)
        except OSError as exc:
            raise NoSocket(where) from exc
        try:
            sock.sendall(quickjson.dumps_compact({"api": path, "body": body}).encode() + b"\n")
            line = _read_line(sock)
        except OSError as exc:
            raise NotRunning(f"Tabpilot stopped answering on {where}: {exc}") from exc
    finally:
        sock.close()
    if not line:
        raise NotRunning(f"Tabpilot closed {where} without an answer.")
    reply = quickjson.loads(line)
    answer = reply.get("body")
    if reply.get("status", 500) >= 400 and not (isinstance(answer, dict) and isinstance(answer.get("error"), str)):
        raise NotRunning(f"Tabpilot answered {reply.get('status')}: {str(answer)[:200]}")
    return answer


def _read_line(sock: Any) -> bytes:
    """Up to and with the first newline (the app answers one line, then waits for the next request)."""
    chunks: list[bytes] = []
    while True:
        chunk = sock.recv(1 << 16)
        if not chunk:
            return b"".join(chunks)
        end = chunk.find(b"\n")
        if end >= 0:
            chunks.append(chunk[: end + 1])
            return b"".join(chunks)
        chunks.append(chunk)
