"""Typed command parameters: a command declares them once, as the fields of a frozen dataclass.

    @dataclass(frozen=True, kw_only=True)
    class ClickArgs(TabArgs):
        selector: str = arg("CSS selector (first match)")
        timeout_ms: int = arg("default 10000", default=10_000, minimum=100, maximum=120_000)

From those fields come the `Param`s that validate a call and render its JSON Schema, the docs and the
help mode; the handler gets a `ClickArgs`, not a dict. A field without a default is required; one typed
`X | None` defaults to None (not given).
"""

from __future__ import annotations

import dataclasses
import inspect
import types
import typing
from dataclasses import MISSING, dataclass
from typing import Any, TypeVar, get_args, get_origin, get_type_hints

from tabpilot.engine.contract.params import Param, ParamType

_JSON_TYPES: dict[type, ParamType] = {
    str: "string",
    bool: "boolean",
    int: "integer",
    float: "number",
    dict: "object",
    list: "array",
}
_META = "tabpilot.param"


@dataclass(frozen=True)
class _Spec:
    doc: str
    enum: tuple[str, ...] | None = None
    minimum: float | None = None
    maximum: float | None = None
    clamp: bool = False
    allow_empty: bool = False
    path: bool = False


def arg(
    doc: str,
    *,
    default: Any = MISSING,
    enum: tuple[str, ...] | None = None,
    minimum: float | None = None,
    maximum: float | None = None,
    clamp: bool = False,
    allow_empty: bool = False,
    path: bool = False,
) -> Any:
    """A parameter: its one-line doc, default (none: required) and limits; `path`: it names a file (no NUL)."""
    spec = _Spec(doc, enum, minimum, maximum, clamp, allow_empty, path)
    if default is MISSING:
        return dataclasses.field(metadata={_META: spec})
    if isinstance(default, list | dict):
        raise TypeError("a list or object parameter defaults to None, not to a shared mutable value")
    return dataclasses.field(default=default, metadata={_META: spec})


@dataclass(frozen=True, kw_only=True)
class Args:
    """A command's parameters, validated. `wire()` is what goes to the browser (given values only)."""

    def wire(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if getattr(self, f.name) is not None}

    def as_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}


@dataclass(frozen=True, kw_only=True)
class NoArgs(Args):
    """A command without parameters."""


@dataclass(frozen=True, kw_only=True)
class TabArgs(Args):
    """A command that works in one tab: `tab_id`, or the tab commands go to (tracked, else active)."""

    tab_id: int | None = arg("tab (default: tracked, else active)", default=None)


@dataclass(frozen=True, kw_only=True)
class FrameArgs(TabArgs):
    """A command that reads or acts in one frame of the tab: `frame`, or the top frame. A selector
    that is a frame's ref (`@f12e3`) names its frame itself."""

    frame: str | None = arg("iframe: selector, ref, name or URL pattern (default: top frame)", default=None)


A = TypeVar("A", bound=Args)


def _json_type(hint: Any) -> tuple[ParamType, ParamType | None, bool]:
    """(type, item type, optional) of a field's annotation."""
    optional = False
    origin = get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        members = [a for a in get_args(hint) if a is not type(None)]
        optional = len(members) < len(get_args(hint))
        if len(members) != 1:
            raise TypeError(f"a parameter has one JSON type, not {hint!r}")
        hint = members[0]
        origin = get_origin(hint)
    base = origin or hint
    if base not in _JSON_TYPES:
        raise TypeError(f"no JSON type for {hint!r}")
    items: ParamType | None = None
    if base is list:
        (item,) = get_args(hint) or (Any,)
        items = _JSON_TYPES.get(get_origin(item) or item)
    return _JSON_TYPES[base], items, optional


_PARAMS: dict[type[Args], tuple[Param, ...]] = {}


def params_of(cls: type[Args]) -> tuple[Param, ...]:
    """The validation and schema of `cls`'s fields, in declaration order (base classes' fields last)."""
    if cls not in _PARAMS:
        _PARAMS[cls] = _params_of(cls)
    return _PARAMS[cls]


def _params_of(cls: type[Args]) -> tuple[Param, ...]:
    hints = get_type_hints(cls)
    declared_in = {name: klass for klass in reversed(cls.__mro__) for name in inspect.get_annotations(klass)}
    order = {klass: n for n, klass in enumerate(cls.__mro__)}
    found: list[tuple[int, int, Param]] = []
    for position, f in enumerate(dataclasses.fields(cls)):
        spec = f.metadata.get(_META)
        if not isinstance(spec, _Spec):
            raise TypeError(f"{cls.__name__}.{f.name} is not declared with arg()")
        kind, items, optional = _json_type(hints[f.name])
        required = f.default is MISSING
        if required and optional:
            raise TypeError(f"{cls.__name__}.{f.name}: an optional type needs a default")
        param = Param(
            f.name,
            kind,
            spec.doc,
            required=required,
            default=None if required else f.default,
            enum=spec.enum,
            minimum=spec.minimum,
            maximum=spec.maximum,
            clamp=spec.clamp,
            items=items,
            allow_empty=spec.allow_empty,
            path=spec.path,
        )
        found.append((order[declared_in[f.name]], position, param))
    # The class's own fields first, then its bases' (nearest first): `tab_id` comes last.
    return tuple(param for _, _, param in sorted(found, key=lambda item: (item[0], item[1])))


def build(cls: type[A], values: dict[str, Any]) -> A:
    """`cls` from validated values (every declared name present; extras such as `background` ignored)."""
    names = {f.name for f in dataclasses.fields(cls)}
    return cls(**{k: v for k, v in values.items() if k in names})
