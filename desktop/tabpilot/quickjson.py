"""JSON for the shell CLI's fast path, from the C half of the standard `json` module (`_json`) alone.

Why not `import json`: it compiles regular expressions at import, which pulls in `re`, `enum`,
`functools` and more — about 8 ms of a `tabpilot js 1+1` whose whole budget is 30 ms. `_json` is the
scanner and encoder `json` itself uses (CPython's accelerator); this module drives them the way
json.loads and json.dumps do, and falls back to `json` for anything they would not cover, so every
text it writes is the one `json.dumps` writes (tests/unit/test_quickjson.py compares them).
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_WHITESPACE = " \t\n\r"
_CONSTANTS = {"-Infinity": float("-inf"), "Infinity": float("inf"), "NaN": float("nan")}


class _Decoding:
    """What `_json.make_scanner` reads off a json.JSONDecoder: the defaults of json.loads."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = staticmethod(_CONSTANTS.__getitem__)


def _no_default(value: Any) -> Any:
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


# `_json` is CPython's private accelerator: should a Python lack it or change its signatures, everything
# here goes through the standard module instead (slower to import, same text).
try:
    import _json

    _scan = _json.make_scanner(_Decoding())  # type: ignore[arg-type]  # any object with these attributes will do
    _compact = _json.make_encoder(None, _no_default, _json.encode_basestring_ascii, None, ":", ",", False, False, True)
    _spaced_text = _json.make_encoder(None, _no_default, _json.encode_basestring, None, ": ", ", ", False, False, True)
    _quoted = _json.encode_basestring
    FAST = True
except (ImportError, AttributeError, TypeError):  # pragma: no cover - other Pythons
    FAST = False


def loads(text: str | bytes) -> Any:
    """json.loads; on text that is not JSON, json.loads itself raises its usual error."""
    if isinstance(text, bytes):
        text = text.decode()
    if not FAST:
        import json

        return json.loads(text)
    start = len(text) - len(text.lstrip(_WHITESPACE))
    try:
        value, end = _scan(text, start)
    except Exception:  # StopIteration (no value), or the scanner's error, which needs json.decoder imported
        end = -1  # (without it, CPython 3.11's scanner raises SystemError): json.loads reports it instead
    if end < 0 or text[end:].strip(_WHITESPACE):
        import json  # not JSON: the standard module says why, in its own words

        return json.loads(text)
    return value


def dumps_compact(value: Any) -> str:
    """json.dumps(value, separators=(",", ":")): what goes over the socket."""
    if not FAST:
        import json

        return json.dumps(value, separators=(",", ":"))
    return "".join(_compact(value, 0))


def dumps_text(value: Any) -> str:
    """json.dumps(value, ensure_ascii=False)."""
    if not FAST:
        import json

        return json.dumps(value, ensure_ascii=False)
    return "".join(_spaced_text(value, 0))


def dumps_pretty(value: Any) -> str:
    """json.dumps(value, ensure_ascii=False, indent=2): how the CLI prints a whole result.

    The C encoder cannot indent (json.dumps runs its pure-Python encoder then), so this walks the value;
    anything but what JSON decodes to goes to the standard module."""
    try:
        if not FAST:
            raise _Unusual
        return _pretty(value, "")
    except _Unusual:
        import json

        return json.dumps(value, ensure_ascii=False, indent=2)


class _Unusual(Exception):
    """A value (a tuple, a non-string key, a subclass...) whose rendering json.dumps should decide."""


def _pretty(value: Any, pad: str) -> str:
    kind = type(value)
    if kind is str or value is None or kind is bool or kind is int or kind is float:
        return "".join(_spaced_text(value, 0))
    inner = pad + "  "
    if kind is list:
        if not value:
            return "[]"
        return "[\n" + ",\n".join(inner + _pretty(item, inner) for item in value) + "\n" + pad + "]"
    if kind is dict:
        if not value:
            return "{}"
        if any(type(key) is not str for key in value):
            raise _Unusual
        lines = (inner + _quoted(key) + ": " + _pretty(item, inner) for key, item in value.items())
        return "{\n" + ",\n".join(lines) + "\n" + pad + "}"
    raise _Unusual
