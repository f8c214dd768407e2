"""The guard on regular expressions an agent sends to the browser, checked before the call goes out.

A `/regex/` URL pattern (wait_for, routes) or an assert `pattern` runs in the extension on a
linear-time matcher (extension/content/linear_regex.js), never on a backtracking engine: a
backtracking pattern froze a tab, then the whole service worker, for minutes (issue 18). That
matcher cannot do backreferences, lookahead/lookbehind, `\\p{…}`, the `v` flag or inline modifiers,
and bounds a pattern's size; this module refuses the same here, so the CLI and MCP get a clear
`invalid_params` without a round trip, and the extension's own refusal stays a second line.

Nothing here compiles the pattern with Python's `re` (which backtracks as well): the source is only
scanned, in one pass, with its size counted the way the extension builds its program.
"""

from __future__ import annotations

import re

from tabpilot.engine.errors import TabpilotError

MAX_SOURCE = 2048
"""As the extension's MAX_SOURCE and engine/browser_state/routes.py's MAX_PATTERN."""
MAX_PROGRAM = 5000
"""The extension's program bound: instructions once `{n,m}` repetitions are counted out."""
MAX_DEPTH = 100
"""Groups inside groups, at most (the scan recurses once per level)."""

LITERAL = re.compile(r"^/(.+)/([a-z]*)$", re.S)
"""`/source/flags`, as the extension reads a pattern written as a regex literal."""

_NOT_LINEAR = "cannot be matched in linear time and is not supported in Tabpilot's patterns"


class _Refused(Exception):
    pass


class _Scan:
    """One pass over a JavaScript regex source: what is refused, and the size of its program."""

    def __init__(self, source: str, unicode: bool) -> None:
        self.s = source
        self.i = 0
        self.unicode = unicode
        self.named = re.search(r"\(\?<[^=!]", source) is not None
        self.depth = 0

    def at(self, text: str) -> bool:
        return self.s.startswith(text, self.i)

    def escape(self) -> None:
        """After a backslash (outside or inside a class)."""
        c = self.s[self.i : self.i + 1]
        if c in "123456789" and c:
            raise _Refused(f"A backreference or octal escape (\\1…\\9) {_NOT_LINEAR}.")
        if c == "k" and (self.unicode or self.named):
            raise _Refused(f"A backreference (\\k<name>) {_NOT_LINEAR}.")
        if c in ("p", "P") and self.unicode:
            raise _Refused(f"A Unicode property escape (\\p{{…}}) {_NOT_LINEAR}.")
        if c == "0" and self.s[self.i + 1 : self.i + 2].isdigit():
            raise _Refused(f"An octal escape (\\0 followed by a digit) {_NOT_LINEAR}.")
        self.i += 1

    def char_class(self) -> None:
        """After `[`, up to and past its `]`."""
        n = len(self.s)
        if self.at("^"):
            self.i += 1
        while self.i < n and self.s[self.i] != "]":
            self.i += 1
            if self.s[self.i - 1] == "\\":
                self.escape()
        self.i += 1

    def disjunction(self) -> int:
        size = self.alternative()
        while self.at("|"):
            self.i += 1
            size = _bounded(size + self.alternative() + 2)
        return size

    def alternative(self) -> int:
        size = 0
        while self.i < len(self.s) and self.s[self.i] not in "|)":
            size = _bounded(size + self.term())
        return size

    def term(self) -> int:
        if any(self.at(p) for p in ("(?=", "(?!", "(?<=", "(?<!")):
            raise _Refused(f"A lookahead or lookbehind ((?=…), (?!…), (?<=…), (?<!…)) {_NOT_LINEAR}.")
        if self.at("\\b") or self.at("\\B"):
            self.i += 2
            return 1
        c = self.s[self.i]
        self.i += 1
        size = 1
        if c in "^$":
            return 1
        if c == "(":
            self.depth += 1
            if self.depth > MAX_DEPTH:
                raise _Refused(f"The pattern nests groups more than {MAX_DEPTH} deep.")
            if self.at("?:"):
                self.i += 2
            elif self.at("?<"):
                self.i = self.s.find(">", self.i) + 1 or len(self.s)
            elif self.at("?"):
                raise _Refused(f"A group with modifiers ((?i:…)) {_NOT_LINEAR}.")
            size = self.disjunction()
            self.depth -= 1
            if self.at(")"):
                self.i += 1
        elif c == "[":
            self.char_class()
        elif c == "\\":
            self.escape()
        while True:
            if self.i < len(self.s) and self.s[self.i] in "*+?":
                self.i += 1
                size += 2
            elif (m := re.match(r"\{(\d+)(,(\d*))?\}", self.s[self.i : self.i + 24])) is not None:
                self.i += m.end()
                low = int(m[1])
                high = low if m[2] is None else (low + 1 if m[3] == "" else int(m[3]))
                size = size * max(low, high, 1) + 2 * max(high - low, 1)
            else:
                break
            if self.at("?"):
                self.i += 1
            size = _bounded(size)
        return size


def _bounded(size: int) -> int:
    if size > MAX_PROGRAM:
        raise _Refused(
            f"The pattern is too large once its repetitions are counted out (over {MAX_PROGRAM} steps); "
            "make it shorter or its {n,m} smaller."
        )
    return size


def refusal(source: str, flags: str = "") -> str | None:
    """Why the extension would refuse `/source/flags`, or None. Syntax errors are the browser's to name."""
    if len(source) > MAX_SOURCE:
        return f"The pattern has {len(source)} characters; at most {MAX_SOURCE}."
    if "v" in flags:
        return "The 'v' flag is not supported in Tabpilot's patterns (use 'u')."
    scan = _Scan(source, "u" in flags)
    try:
        size = 0
        while scan.i < len(scan.s):
            size = _bounded(size + scan.disjunction())
            scan.i += 1  # an unbalanced `)`: the browser will say so
    except _Refused as err:
        return str(err)
    return None


def check_pattern(pattern: str, param: str, *, bare_is_regex: bool) -> None:
    """invalid_params when `pattern` is a regex the extension cannot match in linear time.

    `/source/flags` is a regex; so is any other text when `bare_is_regex` (an assert's `pattern`);
    otherwise (a URL pattern) it is a glob or a substring, which never backtracks.
    """
    literal = LITERAL.match(pattern)
    if literal is not None:
        source, flags = literal[1], literal[2]
    elif bare_is_regex:
        source, flags = pattern, ""
    else:
        return
    why = refusal(source, flags)
    if why is not None:
        raise TabpilotError(
            "invalid_params",
            f"'{param}' is refused: {why} Tabpilot matches regular expressions without backtracking, so no "
            "pattern can freeze the page.",
            param=param,
        )
