"""Credentials inside captured bodies: the values of well-known sensitive keys in JSON, form-encoded and
multipart bodies (requests and responses) and in WebSocket text that is JSON become "[REDACTED]".

Headers are stripped elsewhere; this is for what sits in the body itself — a login form's `password`, a
`session_token` in an API answer. It works on text as captured, which may be cut short (16 KB), so it
reads patterns rather than parsing whole documents: a truncated JSON body is scrubbed as well as a whole one.
Pure: no I/O.
"""

from __future__ import annotations

import re
from urllib.parse import unquote_plus

REDACTED = "[REDACTED]"
FORM_DATA = "[FormData] "

SENSITIVE_KEY = re.compile(
    r"pass(word|wd)?|^pwd$|secret|token|api[_-]?key|apikey|session|^sid$|authorization|cookie|credential"
    r"|card[_-]?(number|num|no)|^cc(num|_number)?$|^cvv|^cvc|^pan$|private[_-]?key",
    re.I,
)

_JSON_STRING = r'"(?:[^"\\]|\\.)*"'
_JSON_SCALAR = re.compile(
    # a string, or one cut short where the capture ended; a number; true, false, null
    rf'({_JSON_STRING})(\s*:\s*)({_JSON_STRING}|"(?:[^"\\]|\\.)*$|-?\d[\d.eE+-]*|true|false|null)'
)
_JSON_NESTED = re.compile(rf"({_JSON_STRING})(\s*:\s*)(\{{[^{{}}]*\}}|\[[^\[\]]*\])")
"""A sensitive key holding a (flat) object or list: the whole value goes (scalars inside were done first)."""
_FORM_PAIR = re.compile(r"(^|&)([^=&]+)=([^&]*)")
_MULTIPART_PART = re.compile(
    r'(Content-Disposition:[^\r\n]*\bname="([^"]*)"[^\r\n]*\r?\n(?:[^\r\n]+\r?\n)*\r?\n)(.*?)(?=\r?\n--)',
    re.I | re.S,
)


def is_sensitive_key(name: str) -> bool:
    return bool(SENSITIVE_KEY.search(name.strip().strip('"')))


def redact_body(text: str) -> str:
    """`text` with the values of sensitive keys replaced, whatever the body's format."""
    if not text or text.startswith("[Binary"):
        return text
    if text.startswith(FORM_DATA):  # how the page side writes a FormData body: "[FormData] a=1&b=2"
        return FORM_DATA + redact_body(text[len(FORM_DATA) :])
    stripped = text.lstrip()
    if stripped[:1] in ("{", "["):
        return _JSON_NESTED.sub(_json_value, _JSON_SCALAR.sub(_json_value, text))
    if "Content-Disposition:" in text or "content-disposition:" in text:
        return _MULTIPART_PART.sub(_multipart_value, text)
    if "=" in text and "\n" not in text.strip():
        return _FORM_PAIR.sub(_form_value, text.strip())
    return text


def _json_value(match: re.Match[str]) -> str:
    key, colon, value = match.group(1), match.group(2), match.group(3)
    if not is_sensitive_key(key[1:-1]) or value in ("null", f'"{REDACTED}"'):
        return match.group(0)
    return f'{key}{colon}"{REDACTED}"'


def _form_value(match: re.Match[str]) -> str:
    lead, name, value = match.group(1), match.group(2), match.group(3)
    if value and is_sensitive_key(unquote_plus(name)):
        return f"{lead}{name}={REDACTED}"
    return match.group(0)


def _multipart_value(match: re.Match[str]) -> str:
    head, name, value = match.group(1), match.group(2), match.group(3)
    return f"{head}{REDACTED}" if value and is_sensitive_key(name) else match.group(0)
