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


class TooDeep(ValueError):
    """JSON nested deeper than the parser's recursion goes (about a thousand levels)."""


def loads(text: str | bytes) -> Any:
    """json.loads; on text that is not JSON, json.loads itself raises its usual error, and TooDeep (a
    ValueError too) for JSON nested deeper than it can parse, where json.loads raises RecursionError."""
    try:
        return _loads(text)
    except RecursionError:
        raise TooDeep("the JSON nests deeper than can be parsed") from None


def _loads(text: str | bytes) -> Any:
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


HEAD_CHARS = 64 * 1024
"""How far `head` looks for a message's top-level members."""


def head(text: str | bytes, names: tuple[str, ...]) -> dict[str, Any]:
    """The top-level members `names` of a JSON object that cannot be parsed whole (nested too deep, cut
    short) whose values are plain numbers, strings, booleans or null: read without recursion, within the
    first HEAD_CHARS characters."""
    if isinstance(text, bytes):
        text = text[:HEAD_CHARS].decode("utf-8", errors="replace")
    text = text[:HEAD_CHARS]
    found: dict[str, Any] = {}
    depth = 0
    at = 0
    while at < len(text) and len(found) < len(names):
        char = text[at]
        if char == '"':
            end = _string_end(text, at)
            if end < 0:
                break
            if depth == 1 and text[at + 1 : end - 1] in names:
                colon = len(text) - len(text[end:].lstrip(_WHITESPACE))
                if text[colon : colon + 1] == ":":
                    start = len(text) - len(text[colon + 1 :].lstrip(_WHITESPACE))
                    value = _scalar(text, start)
                    if value is not _NOT_SCALAR:
                        found.setdefault(text[at + 1 : end - 1], value)
            at = end
            continue
        if char in "[{":
            depth += 1
        elif char in "]}":
            depth -= 1
        at += 1
    return found


def _string_end(text: str, start: int) -> int:
    """Just past the closing quote of the string opening at `start`; -1 when it does not close."""
    at = start + 1
    while True:
        quote = text.find('"', at)
        if quote < 0:
            return -1
        backslashes = 0
        while text[quote - 1 - backslashes] == "\\":
            backslashes += 1
        if backslashes % 2 == 0:
            return quote + 1
        at = quote + 1


_NOT_SCALAR = object()


def _scalar(text: str, start: int) -> Any:
    """The string, number, true, false or null at `start`; _NOT_SCALAR for anything else."""
    if text[start : start + 1] == '"':
        end = _string_end(text, start)
        token = text[start:end] if end > 0 else ""
    else:
        end = start
        while end < len(text) and text[end] not in ",}] \t\n\r":
            end += 1
        token = text[start:end]
    if not token or token[0] in "[{":
        return _NOT_SCALAR
    try:
        return _loads(token)
    except ValueError:
        return _NOT_SCALAR


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
