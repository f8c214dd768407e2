"""Secret values out of everything that leaves Tabpilot: results, error messages, capture reads, logs.

A secret shows up in more shapes than the one typed: a page echoes it URL-encoded in an address,
escaped inside JSON, HTML-escaped in markup, or base64-encoded (`btoa`) in a token it builds. Each
shape is looked for, base64 at each of the three byte alignments it can take inside a longer
encoding. What no scrubbing can catch is a value a script changed in any other way (reversed,
hashed, split into single characters); the README's safety section says so.

Pure: no I/O, no logging.
"""

from __future__ import annotations

import base64
import html
import json
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import quote, quote_plus

MIN_SECRET = 3
"""Shorter values are not looked for: they would take ordinary text with them."""
MIN_BASE64 = 6
"""Secrets this long or longer are also looked for base64-encoded (shorter encodings are too common)."""
MIN_PREFIX = 3
"""Capture reads also hide the beginnings of a typed secret from this many characters on: a page that
echoes every keystroke logs 'S', 'S3', 'S3c', … (what typing suppression may miss arrives late)."""
MIN_RESULT_PREFIX = 6
"""Everything else sent back (results, error messages) hides a typed secret's beginnings from this many
characters on: a script can return `secret.slice(0, 9)`. Shorter prefixes would take ordinary words with them."""
REDACTED = "[REDACTED]"


def reference(name: str) -> str:
    return f"{{{{secret:{name}}}}}"


def _base64_cores(secret: str) -> list[str]:
    """The base64 text that stands for `secret` wherever it sits in a longer encoding: for each of the
    3 byte offsets, only the characters its own bits decide (the edges mix in the neighbours' bits)."""
    raw = secret.encode()
    cores: list[str] = []
    for offset in range(3):
        encoded = base64.b64encode(b"\0" * offset + raw).decode()
        start = -(-8 * offset // 6)
        end = (8 * offset + 8 * len(raw)) // 6
        core = encoded[start:end]
        if len(core) >= MIN_BASE64:
            cores.append(core)
            url_safe = core.replace("+", "-").replace("/", "_")
            if url_safe != core:
                cores.append(url_safe)
    return cores


def forms_of(secret: str) -> list[str]:
    """Every shape of `secret` this module looks for (empty for values too short to look for)."""
    if len(secret) < MIN_SECRET:
        return []
    shapes = [secret, quote(secret, safe=""), quote_plus(secret), json.dumps(secret)[1:-1], html.escape(secret)]
    if len(secret) >= MIN_BASE64:
        shapes.extend(_base64_cores(secret))
    return list(dict.fromkeys(shapes))


class Scrubber:
    """Replaces the forms of some secrets in strings and in JSON-like values (dicts, lists)."""

    def __init__(self, secrets: Mapping[str, str] | Iterable[str], *, prefixes: bool | int = False) -> None:
        """`prefixes`: also replace the secrets' beginnings, from MIN_PREFIX characters on (True) or from that
        many (a number)."""
        shortest = (MIN_PREFIX if prefixes is True else int(prefixes)) if prefixes else 0
        named = secrets.items() if isinstance(secrets, Mapping) else ((None, s) for s in secrets)
        pairs: dict[str, str] = {}
        for name, value in named:
            if not isinstance(value, str):
                continue
            replacement = reference(name) if name else REDACTED
            for form in forms_of(value):
                pairs.setdefault(form, replacement)
            if shortest:
                for n in range(len(value) - 1, shortest - 1, -1):
                    pairs.setdefault(value[:n], replacement)
                # Its ends too (`secret.slice(5)`: two calls would give the whole of it), never shorter than 6.
                for n in range(len(value) - 1, max(shortest, MIN_RESULT_PREFIX) - 1, -1):
                    pairs.setdefault(value[-n:], replacement)
        # Longest first, so that a secret is replaced whole before any shorter form inside it.
        self.pairs = sorted(pairs.items(), key=lambda p: -len(p[0]))

    def __bool__(self) -> bool:
        return bool(self.pairs)

    def text(self, text: str) -> str:
        for form, replacement in self.pairs:
            if form in text:
                text = text.replace(form, replacement)
        return text

    def value(self, value: Any) -> Any:
        """A copy of a JSON-like value with every string scrubbed (keys too: pages use values as keys)."""
        if not self.pairs:
            return value
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return {(self.text(k) if isinstance(k, str) else k): self.value(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [self.value(v) for v in value]
        return value


def scrub(value: Any, secrets: Mapping[str, str], *, prefixes: bool | int = False) -> Any:
    """`value` with every known secret (and its encoded forms) replaced by its `{{secret:NAME}}`."""
    if not secrets:
        return value
    return Scrubber(secrets, prefixes=prefixes).value(value)
