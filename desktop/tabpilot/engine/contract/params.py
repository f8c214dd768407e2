"""Typed command parameters: one description that validates input and renders a compact JSON Schema."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from tabpilot.engine.contract import limits
from tabpilot.engine.errors import TabpilotError, shown

ParamType = Literal["string", "integer", "number", "boolean", "object", "array"]

PY_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "object": (dict,),
    "array": (list,),
}


def fits(value: Any, kind: str) -> bool:
    """Is `value` of the JSON type `kind`? (bool is an int in Python; JSON says otherwise.)"""
    return isinstance(value, PY_TYPES[kind]) and not (kind in ("integer", "number") and isinstance(value, bool))


@dataclass(frozen=True)
class Param:
    name: str
    type: ParamType
    doc: str
    required: bool = False
    default: Any = None
    enum: tuple[str, ...] | None = None
    minimum: float | None = None
    maximum: float | None = None
    clamp: bool = False
    """Values above `maximum` are lowered to it instead of refused (a documented cap, not an error)."""
    items: ParamType | None = None
    allow_empty: bool = False
    """A required string that may be "" (a field filled with nothing: cleared)."""
    path: bool = False
    """It names a file (a path or a file name, or a list of them): a NUL character anywhere in it is refused
    here, before anything opens a file (Python's "embedded null byte" would otherwise escape as a bug)."""

    def schema(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type}
        if self.enum:
            out["enum"] = list(self.enum)
        if self.items:
            out["items"] = {"type": self.items}
        if self.minimum is not None:
            out["minimum"] = self.minimum
        if self.maximum is not None and not self.clamp:
            out["maximum"] = self.maximum
        return out

    def check(self, value: Any, where: str) -> Any:
        if value is None:
            return self.default
        expected = PY_TYPES[self.type]
        # bool is an int in Python; JSON says otherwise.
        ok = isinstance(value, expected) and not (self.type in ("integer", "number") and isinstance(value, bool))
        if self.type == "integer" and isinstance(value, float) and value.is_integer():
            value, ok = int(value), True
        if ok and self.type == "number" and not math.isfinite(value):
            ok = False
        if not ok:
            raise TabpilotError(
                "invalid_params",
                f"{where}: '{self.name}' must be {_article(self.type)}, got {_describe(value)}.",
                param=self.name,
            )
        if self.enum and value not in self.enum:
            raise TabpilotError(
                "invalid_params",
                f"{where}: '{self.name}' must be one of {', '.join(self.enum)}; got {shown(value)}.",
                param=self.name,
            )
        if self.path and _has_nul(value):
            raise TabpilotError(
                "invalid_params",
                f"{where}: '{self.name}' must not contain a NUL character (\\0): no file name has one.",
                param=self.name,
            )
        if self.type == "string" and self.required and not self.allow_empty and not value.strip():
            raise TabpilotError("invalid_params", f"{where}: '{self.name}' must not be empty.", param=self.name)
        if self.items and isinstance(value, list):
            item_types = PY_TYPES[self.items]
            numeric = self.items in ("integer", "number")
            if not all(isinstance(v, item_types) and not (numeric and isinstance(v, bool)) for v in value):
                raise TabpilotError(
                    "invalid_params",
                    f"{where}: '{self.name}' must be a list of {self.items}s.",
                    param=self.name,
                )
        if self.minimum is not None and isinstance(value, int | float) and value < self.minimum:
            raise TabpilotError(
                "invalid_params",
                f"{where}: '{self.name}' must be at least {self.minimum:g}.",
                param=self.name,
            )
        if self.maximum is not None and isinstance(value, int | float) and value > self.maximum:
            if self.clamp:
                return type(value)(self.maximum)
            raise TabpilotError(
                "invalid_params", f"{where}: '{self.name}' must be at most {self.maximum:g}.", param=self.name
            )
        return value


def validate(params: Sequence[Param], given: Mapping[str, Any], where: str) -> dict[str, Any]:
    """Check `given` against `params`; return every declared name with its value or default.

    Every refusal names the mode's valid parameters (`valid_params`, and in its message), so an agent
    can correct its call without asking for help first.
    """
    try:
        return _validate(params, given, where)
    except TabpilotError as exc:
        if exc.code == "invalid_params" and "valid_params" not in exc.details:
            exc.details["valid_params"] = [p.name for p in params]
            exc.message = f"{exc.message} {valid_line(params)}"
            exc.args = (exc.message,)
        raise


def valid_line(params: Sequence[Param]) -> str:
    """`Valid parameters: selector*, include_styles (* required).`"""
    if not params:
        return "This mode takes no parameters."
    names = ", ".join(p.name + ("*" if p.required else "") for p in params)
    return f"Valid parameters: {names}" + (" (* required)." if any(p.required for p in params) else ".")


def _validate(params: Sequence[Param], given: Mapping[str, Any], where: str) -> dict[str, Any]:
    known = {p.name: p for p in params}
    unknown = sorted(set(given) - set(known))
    if unknown:
        named = ", ".join(shown(u, 40) for u in unknown[:5]) + (
            f" and {len(unknown) - 5} more" if len(unknown) > 5 else ""
        )
        raise TabpilotError("invalid_params", f"{where}: unknown parameter {named}.", param=unknown[0])
    for name, value in given.items():
        # Before anything walks the value (validators, redaction, logs): too deep a value fails there.
        # (A number on its own is the parameter's own check, with a message about its type.)
        trouble = limits.problem(value) if isinstance(value, dict | list | str) else None
        if trouble is not None:
            raise TabpilotError("invalid_params", f"{where}: '{name}' {trouble}.", param=name)
    out: dict[str, Any] = {}
    for p in params:
        value = given.get(p.name)
        if value is None and p.required:
            raise TabpilotError("invalid_params", f"{where}: '{p.name}' is required.", param=p.name)
        out[p.name] = p.check(value, where)
    return out


def _has_nul(value: Any) -> bool:
    """A NUL in the string, or in any string of the list or object (an inline upload's name)."""
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, list):
        return any(_has_nul(v) for v in value)
    if isinstance(value, dict):
        return any(_has_nul(v) for v in value.values())
    return False


def _article(t: str) -> str:
    return ("an " if t[0] in "aeiou" else "a ") + t


def _describe(value: Any) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return f"the number {shown(value)}"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__
