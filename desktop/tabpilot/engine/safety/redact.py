"""What the activity stream, logs and run records may show of a command's parameters.

Values typed into fields (interact fill and type, workflow steps of those kinds, and the workflow
params that go into them) and HTTP header values (set_headers, mock_route) are shown as `[N characters]`:
the person's approval prompt shows them, nothing kept afterwards does. A value that is only
`{{secret:NAME}}` or `{{param}}` references stays as written.
"""

from __future__ import annotations

import re
from typing import Any

from tabpilot.engine.contract.placeholders import PLACEHOLDER

MAX_SHOWN = 500
TYPED_KEYS = {"fill": "value", "type": "text", "handle_dialog": "prompt_text"}
"""The field holding what an action (or a workflow step of that type) types into the page."""
HEADER_KEYS = {"set_headers": "headers", "mock_route": "headers"}
"""The field holding HTTP headers, whose values may be credentials (an Authorization header): kept as
`[N characters]` beside each name."""
_ONLY_REFERENCES = re.compile(r"^(?:\s*\{\{\s*(?:secret:)?[A-Za-z_][A-Za-z0-9_.-]*\s*\}\}\s*)+$")


def _typed_override(path: str, hidden: Any) -> bool:
    """Does an override_params path change what a replay types: `steps[2].value`, or a typed param?"""
    if path.startswith("params."):
        return bool(hidden(path[len("params.") :]))
    return path.endswith((".value", ".text"))


def typed(value: Any) -> Any:
    """A typed value as it may be kept: its length, or its references when it is only references."""
    if value is None or isinstance(value, bool):
        return value
    if not isinstance(value, str):
        return f"[{len(str(value))} characters]" if isinstance(value, int | float) else "[hidden]"
    if value and _ONLY_REFERENCES.match(value):
        return value
    return f"[{len(value)} characters]"


def typed_param_names(steps: Any) -> set[str]:
    """The workflow params whose values some fill or type step types (`{{name}}` in its value)."""
    names: set[str] = set()
    for step in steps if isinstance(steps, list) else []:
        if not isinstance(step, dict):
            continue
        key = TYPED_KEYS.get(str(step.get("type", "")))
        if key is not None and isinstance(step.get(key), str):
            names.update(name for secret, name in PLACEHOLDER.findall(step[key]) if not secret)
        for branch in ("then", "else"):
            names |= typed_param_names(step.get(branch))
    return names


def without_file_contents(params: dict[str, Any]) -> dict[str, Any]:
    """`files` (an upload) with each inline file's content given as its size: a prompt names the file, and
    no log or activity row keeps its bytes."""
    files = params.get("files")
    if not isinstance(files, list) or not any(isinstance(f, dict) for f in files):
        return params
    shown: list[Any] = []
    for item in files:
        if isinstance(item, dict) and "content_base64" in item:
            content = item["content_base64"]
            size = len(content) * 3 // 4 - content[-2:].count("=") if isinstance(content, str) else 0
            item = {**{k: v for k, v in item.items() if k != "content_base64"}, "content": f"[{size} bytes]"}
        shown.append(item)
    return {**params, "files": shown}


def redact_params(
    params: dict[str, Any], mode: str | None = None, typed_params: set[str] | None = None
) -> dict[str, Any]:
    """Drop unset values, hide typed values, shorten long strings. `mode` is the command's (fill, type,
    scrape, …); a dict with a `type` (a workflow step) is read as that step. `typed_params` names the
    workflow params that are typed into fields (from the steps when given here; None: every one)."""
    shown = without_file_contents({k: v for k, v in params.items() if v is not None})
    key = TYPED_KEYS.get(mode or str(shown.get("type", "")))
    if key is not None and key in shown:
        shown[key] = typed(shown[key])
    headers = HEADER_KEYS.get(mode or "")
    if headers is not None and isinstance(shown.get(headers), dict):
        shown[headers] = {name: typed(value) for name, value in shown[headers].items()}
    if mode == "scrape" or "steps" in shown or "override_params" in shown:
        if isinstance(shown.get("steps"), list):
            shown["steps"] = [hide_typed_steps(s) for s in shown["steps"]]
        if typed_params is None and isinstance(shown.get("steps"), list):
            typed_params = typed_param_names(shown["steps"])
        overrides = shown.get("override_params")
        if typed_params is not None and isinstance(overrides, dict):
            for path, value in overrides.items():  # an overridden value may type a param too
                if str(path).endswith((".value", ".text")) and isinstance(value, str):
                    typed_params = typed_params | {n for secret, n in PLACEHOLDER.findall(value) if not secret}

        def hidden(name: str) -> bool:
            return typed_params is None or name in typed_params

        if isinstance(shown.get("params"), dict):
            shown["params"] = {k: typed(v) if hidden(k) else v for k, v in shown["params"].items()}
        if isinstance(shown.get("override_params"), dict):
            shown["override_params"] = {
                k: typed(v) if _typed_override(str(k), hidden) else v for k, v in shown["override_params"].items()
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


MAX_ITEMS_SHOWN = 50
"""A list or object in an activity row keeps this many items: the last 1,000 rows stay small whatever the calls
held (a call with 10,000 items, kept whole in each of its rows, was memory the app held until pushed out)."""


def _shorten(value: Any, depth: int = 0) -> Any:
    if isinstance(value, str) and len(value) > MAX_SHOWN:
        return value[:MAX_SHOWN] + f"… ({len(value)} chars)"
    if isinstance(value, dict | list) and depth >= 8:
        return "…"
    if isinstance(value, dict):
        items = list(value.items())
        out = {str(k)[:MAX_SHOWN]: _shorten(v, depth + 1) for k, v in items[:MAX_ITEMS_SHOWN]}
        if len(items) > MAX_ITEMS_SHOWN:
            out["…"] = f"{len(items) - MAX_ITEMS_SHOWN} more"
        return out
    if isinstance(value, list):
        shown = [_shorten(v, depth + 1) for v in value[:MAX_ITEMS_SHOWN]]
        return shown + ([f"… {len(value) - MAX_ITEMS_SHOWN} more"] if len(value) > MAX_ITEMS_SHOWN else [])
    return value
