"""Typed results: a command declares what it answers as a TypedDict (`Command.returns`).

From that one declaration come the result's shape in the docs and the help mode (`shape()`), mypy's
check of the handler's return value, and a check of what the handler really answered (`problems()`),
which the test suites switch on (TABPILOT_CHECK_RESULTS=1): an answer with a field the declaration
does not have, or without one it requires, fails the test that made it.
"""

from __future__ import annotations

import json
import os
import types
import typing
from collections.abc import Mapping
from typing import (
    Any,
    Literal,
    NotRequired,
    Required,
    TypedDict,
    TypeVar,
    cast,
    get_args,
    get_origin,
    get_type_hints,
    is_typeddict,
)

CHECK_ENV = "TABPILOT_CHECK_RESULTS"
T = TypeVar("T", bound=type)
R = TypeVar("R")
_RELAYED: set[type] = set()


def relays(td: T) -> T:
    """Marks the declaration of a command that may answer another command's result as it is (observe
    command_result): such an answer may carry fields the declaration does not name. That result was
    checked against its own command's declaration when that command answered."""
    _RELAYED.add(td)
    return td


def relayed(td: type[R], answer: Mapping[str, Any]) -> R:
    """A browser's answer (or another command's result) passed on as the command's declared result `td`.

    The one boundary where mypy cannot check a result: the extension built it in JavaScript. It is a cast,
    not a conversion; the test suites check the real answer against `td` at run time (`checking()`)."""
    return cast(R, answer)


def checking() -> bool:
    return os.environ.get(CHECK_ENV) == "1"


def _fields(td: type) -> dict[str, Any]:
    return get_type_hints(td, include_extras=True)


def _required(td: type) -> frozenset[str]:
    """The fields an answer must have. Read from the hints: with postponed annotations (every module here)
    the TypedDict's own `__required_keys__` cannot see `NotRequired`."""
    total = getattr(td, "__total__", True)
    out = set()
    for name, hint in _fields(td).items():
        origin = get_origin(hint)
        if origin is Required or (total and origin is not NotRequired):
            out.add(name)
    return frozenset(out)


def _strip(hint: Any) -> Any:
    while get_origin(hint) in (NotRequired, Required):
        hint = get_args(hint)[0]
    return hint


def _members(hint: Any) -> tuple[Any, ...]:
    origin = get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        return get_args(hint)
    return (hint,)


def _shape_of(hint: Any) -> str:
    hint = _strip(hint)
    parts = []
    for member in _members(hint):
        if member is type(None):
            parts.append("null")
        elif get_origin(member) is Literal:
            parts += [json.dumps(v).replace('"', "'") for v in get_args(member)]
        elif is_typeddict(member):
            parts.append(shape(member))
        elif get_origin(member) is list and get_args(member) and is_typeddict(get_args(member)[0]):
            parts.append(f"[{shape(get_args(member)[0])}]")
    return " | ".join(parts) if parts != ["null"] else ""


def shape(td: type) -> str:
    """`{url, title, viewport:{width, height}, forms:[{id, action}], note?}`: the docs' form of a result."""
    out = []
    required = _required(td)
    for name, hint in _fields(td).items():
        if name.startswith("_"):
            continue  # the engine's own field (pictures the adapters deliver apart), never the agent's
        inner = _shape_of(hint)
        if inner.endswith(" | null") and inner.count(" | ") == 1 and not inner.startswith(("{", "[")):
            inner = ""  # `str | None`: a scalar that may be null says nothing a reader needs
        out.append(f"{name}{'' if name in required else '?'}{':' + inner if inner else ''}")
    return "{" + ", ".join(out) + "}"


class Attachment(TypedDict):
    """A picture or file an answer carries under `_attachments` (generate.ATTACHMENTS): the adapters deliver
    it as MCP image or resource content, not inside the JSON."""

    mime_type: str
    data: str
    """base64"""


class DialogSeen(TypedDict):
    """A JavaScript dialog a call met in its tab (extension/background/dialog_book.js `shown`)."""

    tab_id: int
    type: str
    message: str
    url: str
    default_prompt: NotRequired[str]
    accepted: NotRequired[bool]
    by: NotRequired[str]
    open: NotRequired[bool]
    browser: NotRequired[str]
    """Which browser, when several are connected (observe dialogs asks them all)."""


class OpenedTab(TypedDict):
    tab_id: int
    url: str


class TabFields(TypedDict):
    """What any command on a tab may answer besides its own result: the dialog it raised or met (open, or
    answered meanwhile by an armed answer or the person's policy; dialogs never hang a tab, so a call's
    answer is where the agent learns of one), and the tab its page opened (a target=_blank link)."""

    dialog: NotRequired[DialogSeen]
    new_tab: NotRequired[OpenedTab]
    changed: NotRequired[str]
    """What the call changed in one line; a call a dialog cut short says so here (`a confirm dialog opened`)."""


def cut_short(value: Any) -> bool:
    """An action a JavaScript dialog interrupted: it answers what it knows, `changed` and the open dialog."""
    dialog = value.get("dialog") if isinstance(value, Mapping) else None
    return isinstance(dialog, Mapping) and dialog.get("open") is True


def problems(
    value: Any, td: type, where: str = "result", *, also: type | None = None, partial: bool = False
) -> list[str]:
    """What in `value` the TypedDict `td` does not allow: missing required fields, unknown fields, and the
    same inside nested declared objects. Scalar types are mypy's business; this checks the shape. `also`:
    fields any such command may add (TabFields for the commands on a tab); `partial`: fields it lacks are
    fine (an action cut short), fields it should not have are not."""
    if not isinstance(value, Mapping):
        return [f"{where} is {type(value).__name__}, not an object"]
    hints = {**(_fields(also) if also is not None else {}), **_fields(td)}
    found: list[str] = []
    required = frozenset() if partial else _required(td)
    for name in sorted(required - value.keys()):
        found.append(f"{where} lacks '{name}'")
    # Fields whose name starts with `_` are the engine's own (a picture to attach), never the agent's.
    for name in sorted(k for k in value.keys() - hints.keys() if not str(k).startswith("_") and td not in _RELAYED):
        found.append(f"{where} has '{name}', which its declaration does not")
    for name, hint in hints.items():
        if name in value and value[name] is not None:
            found += _problems_of(value[name], _strip(hint), f"{where}.{name}")
    return found


def _problems_of(value: Any, hint: Any, where: str) -> list[str]:
    objects = [m for m in _members(hint) if is_typeddict(m)]
    lists = [get_args(m)[0] for m in _members(hint) if get_origin(m) is list and get_args(m)]
    if objects and isinstance(value, Mapping):
        return min((problems(value, td, where) for td in objects), key=_count)
    item_types = [t for t in lists if is_typeddict(t)]
    if item_types and isinstance(value, list):
        out: list[str] = []
        for i, item in enumerate(value[:20]):
            fewest: list[str] = min((problems(item, td, f"{where}[{i}]") for td in item_types), key=_count)
            out += fewest
        return out
    return []


def _count(found: list[str]) -> int:
    return len(found)


def field_names(td: type) -> set[str]:
    """Every field name of `td` and of the TypedDicts inside it."""
    names: set[str] = set()
    for name, hint in _fields(td).items():
        names.add(name)
        for member in _members(_strip(hint)):
            inner = get_args(member)[0] if get_origin(member) is list and get_args(member) else member
            if is_typeddict(inner):
                names |= field_names(inner)
    return names
