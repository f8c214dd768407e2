"""Text another party chose, shown as the characters it is wherever a person reads it (a window, the terminal).

Bidi overrides reorder what follows them and control characters act (a line break starts a forged line, an
escape sequence moves a terminal's cursor): both are written out as `\\u202e`, `\\u001b`. Qt-free, so the
terminal prompt of `serve --approve prompt` and the windows (ui/plain.py) say it the same way.
"""

from __future__ import annotations

import unicodedata

BIDI_CONTROLS = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def visible(text: str, keep: str = "\n\t") -> str:
    """`text` with bidi controls and control characters (but those in `keep`) written out as `\\uXXXX`."""
    return "".join(
        f"\\u{ord(ch):04x}" if ch in BIDI_CONTROLS or (unicodedata.category(ch) == "Cc" and ch not in keep) else ch
        for ch in text
    )
