"""The site a URL belongs to: what approvals, standing rules and a workflow's domain lock are bound to."""

from __future__ import annotations

from urllib.parse import urlsplit


def origin_of(url: str) -> str:
    """`scheme://host[:port]`, lower-cased and without user info (`https://user:pw@A.test/` → `https://a.test`)."""
    parts = urlsplit(url)
    host = parts.netloc.rpartition("@")[2].lower()
    return f"{parts.scheme}://{host}" if parts.scheme in ("http", "https") and host else ""
