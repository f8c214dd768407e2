"""What the activity stream, logs and approval prompts may show of a command's parameters."""

from __future__ import annotations

from typing import Any

MAX_SHOWN = 500


def redact_params(params: dict[str, Any]) -> dict[str, Any]:
    """Drop unset values and shorten long strings. Secret references stay as written ({{secret:NAME}})."""
    return {k: _shorten(v) for k, v in params.items() if v is not None}


def _shorten(value: Any) -> Any:
    if isinstance(value, str) and len(value) > MAX_SHOWN:
        return value[:MAX_SHOWN] + f"… ({len(value)} chars)"
    if isinstance(value, dict):
        return {k: _shorten(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_shorten(v) for v in value]
    return value
