"""The error envelope and the contract's error codes."""

from __future__ import annotations

import secrets
from typing import Any, Literal, get_args

ErrorCode = Literal[
    "ai_web_pilot_disabled",
    "extension_not_connected",
    "invalid_params",
    "timeout",
    "element_not_found",
    "approval_denied",
    "approval_timeout",
    "workflow_in_progress",
    "workflow_not_found",
    "navigation_redirect",
    "tab_closed",
    "domain_changed",
    "queue_full",
    "not_supported",
    "internal",
]

ERROR_CODES: frozenset[str] = frozenset(get_args(ErrorCode))


class TabpilotError(Exception):
    """A failure an agent can act on: a contract code, one readable sentence, and details."""

    def __init__(self, code: ErrorCode, message: str, **details: Any) -> None:
        super().__init__(message)
        self.code: ErrorCode = code
        self.message = message
        self.details = details

    def envelope(self) -> dict[str, Any]:
        return {"error": self.code, "message": self.message, **self.details}


def coerce_code(code: object) -> ErrorCode:
    """A code that came over the wire, or `internal` when it is not one of ours."""
    return code if isinstance(code, str) and code in ERROR_CODES else "internal"  # type: ignore[return-value]


def new_log_ref() -> str:
    return "ERR-" + secrets.token_hex(4)
