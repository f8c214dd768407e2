"""The error envelope and the contract's error codes."""

from __future__ import annotations

import json
import secrets
from typing import Any, Literal, get_args

ErrorCode = Literal[
    "ai_web_pilot_disabled",
    "extension_not_connected",
    "invalid_params",
    "timeout",
    "element_not_found",
    "stale_ref",
    "approval_denied",
    "approval_timeout",
    "workflow_in_progress",
    "workflow_not_found",
    "run_not_found",
    "navigation_redirect",
    "navigation_failed",
    "tab_closed",
    "tab_not_owned",
    "dialog_open",
    "domain_changed",
    "queue_full",
    "not_supported",
    "internal",
]

ERROR_CODES: frozenset[str] = frozenset(get_args(ErrorCode))

EXCERPT_CHARS = 60
MAX_MESSAGE_CHARS = 1_000
MAX_DETAIL_CHARS = 500
"""An error names what it refused but never sends a long input back whole (a 1.7 MB id once came back)."""


def shown(value: Any, limit: int = EXCERPT_CHARS) -> str:
    """A value as a message shows it: a string in quotes ('text'), anything else as JSON writes it
    (null, true, {"a": 1}, not Python's None, True, {'a': 1}); cut to about `limit` characters."""
    if isinstance(value, str):
        text = value if len(value) <= limit - 2 else value[: limit - 3] + "…"
        return f"'{text}'"
    try:
        text = json.dumps(value, ensure_ascii=False, default=str)
    except (ValueError, RecursionError):
        text = "an object" if isinstance(value, dict) else "a list" if isinstance(value, list) else "a value"
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


class TabpilotError(Exception):
    """A failure an agent can act on: a contract code, one readable sentence, and details."""

    def __init__(self, code: ErrorCode, message: str, **details: Any) -> None:
        message = _cut(message, MAX_MESSAGE_CHARS)
        super().__init__(message)
        self.code: ErrorCode = code
        self.message = message
        self.details = {k: _cut(v, MAX_DETAIL_CHARS) if isinstance(v, str) else v for k, v in details.items()}

    def envelope(self) -> dict[str, Any]:
        return {"error": self.code, "message": self.message, **self.details}


def coerce_code(code: object) -> ErrorCode:
    """A code that came over the wire, or `internal` when it is not one of ours."""
    return code if isinstance(code, str) and code in ERROR_CODES else "internal"  # type: ignore[return-value]


def new_log_ref() -> str:
    return "ERR-" + secrets.token_hex(4)
