"""Who may talk to the bridge: a bearer token for the HTTP API, the extension's Origin for the socket."""

from __future__ import annotations

import hmac
from collections.abc import Mapping

LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]")


def bearer_ok(headers: Mapping[str, str], token: str) -> bool:
    value = headers.get("Authorization", "")
    scheme, _, given = value.partition(" ")
    # No token configured must refuse everyone, not admit an empty "Bearer ".
    return bool(token) and scheme.lower() == "bearer" and hmac.compare_digest(given.strip().encode(), token.encode())


def host_ok(host: str | None, port: int) -> bool:
    """Refuse DNS-rebinding: the Host header must name loopback on our port."""
    if not host:
        return False
    return any(host == f"{name}:{port}" or host == name for name in LOOPBACK_HOSTS)


def web_origin(origin: str | None) -> bool:
    """A request sent by a web page (an http(s) Origin) never reaches the API, token or not."""
    return bool(origin) and not origin.startswith("chrome-extension://")  # type: ignore[union-attr]


def extension_origin_ok(origin: str | None, expected: str) -> bool:
    return origin == expected
