"""What the activity stream, logs and run records may show of a command's parameters.

Values typed into fields (interact fill and type, workflow steps of those kinds, and the workflow
params that fill them) are shown as `[N characters]`: the person's approval prompt shows them, nothing
kept afterwards does. A value that is only `{{secret:NAME}}` or `{{param}}` references stays as written.
"""

from __future__ import annotations

import re
from typing import Any

MAX_SHOWN = 500
TYPED_KEYS = {"fill": "value", "type": "text"}
"""The field holding what an action (or a workflow step of that type) types into the page."""
_ONLY_REFERENCES = re.compile(r"^(?:\s*\{\{\s*(?:secret:)?[A-Za-z_][A-Za-z0-9_.-]*\s*\}\}\s*)+$")
_TYPED_OVERRIDE = re.compile(r"(?:^params\.)|(?:\.(?:value|text)$)")
"""override_params paths that can change what a replay types: `params.NAME`, `steps[2].value`."""


def typed(value: Any) -> Any:
    """A typed value as it may be kept: its length, or its references when it is only references."""
    if value is None or isinstance(value, bool):
        return value
    if not isinstance(value, str):
        return f"[{len(str(value))} characters]" if isinstance(value, int | float) else "[hidden]"
    if value and _ONLY_REFERENCES.match(value):
        return value
    return f"[{len(value)} characters]"


def redact_params(params: dict[str, Any], mode: str | None = None) -> dict[str, Any]:
    """Drop unset values, hide typed values, shorten long strings. `mode` is the command's (fill, type,
    scrape, …); a dict with a `type` (a workflow step) is read as that step."""
    shown = {k: v for k, v in params.items() if v is not None}
    key = TYPED_KEYS.get(mode or str(shown.get("type", "")))
    if key is not None and key in shown:
        shown[key] = typed(shown[key])
    if mode == "scrape" or "steps" in shown or "override_params" in shown:
        if isinstance(shown.get("steps"), list):
            shown["steps"] = [hide_typed_steps(s) for s in shown["steps"]]
        if isinstance(shown.get("params"), dict):
            shown["params"] = {k: typed(v) for k, v in shown["params"].items()}
        if isinstance(shown.get("override_params"), dict):
            shown["override_params"] = {
                k: typed(v) if _TYPED_OVERRIDE.search(str(k)) else v for k, v in shown["override_params"].items()
            }
    return {k: _shorten(v) for k, v in shown.items()}


def hide_typed_steps(step: Any) -> Any:
    """A workflow step with what it types hidden (its if_exists branches too)."""
    if not isinstance(step, dict):
        return step
    out = dict(step)
    key = TYPED_KEYS.get(str(out.get("type", "")))
    if key is not None and key in out:
        out[key] = typed(out[key])
    for branch in ("then", "else"):
        if isinstance(out.get(branch), list):
            out[branch] = [hide_typed_steps(s) for s in out[branch]]
    return out


def _shorten(value: Any) -> Any:
    if isinstance(value, str) and len(value) > MAX_SHOWN:
        return value[:MAX_SHOWN] + f"… ({len(value)} chars)"
    if isinstance(value, dict):
        return {k: _shorten(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_shorten(v) for v in value]
    return value
