"""The bridge operations: what the app may ask the extension to do, with each operation's parameters.

One definition per operation. The extension's allow-list, its parameter checks and JSDoc types
(extension/background/operations.js) are generated from this table (`python -m tabpilot.contract`);
commands name the operations they use (Command.ops), and tests fail when the generated file is stale,
when a command names an unknown operation, or when the engine sends a parameter not declared here.
docs/bridge-protocol.md describes what each operation does.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tabpilot.engine.params import fits

JsonType = str
"""string, integer, number, boolean, object, array"""


@dataclass(frozen=True)
class OpParam:
    name: str
    types: tuple[JsonType, ...]
    required: bool = False
    enum: tuple[str, ...] | None = None


@dataclass(frozen=True)
class Operation:
    name: str
    params: tuple[OpParam, ...]
    page_changing: bool = False
    """Refused by the extension itself while the app says the pilot is off (a second lock)."""
    summary: str = ""


def _p(name: str, *types: JsonType, required: bool = False, enum: tuple[str, ...] | None = None) -> OpParam:
    return OpParam(name, types, required, enum)


TAB_ID = _p("tab_id", "integer")
TIMEOUT = _p("timeout_ms", "integer")
SELECTOR = _p("selector", "string", required=True)
REDACT = _p("redact", "array")

OPERATIONS: tuple[Operation, ...] = (
    Operation("page.info", (TAB_ID,), summary="the observe page object"),
    Operation(
        "dom.query",
        (
            SELECTOR,
            _p("include_styles", "boolean"),
            _p("include_children", "boolean"),
            _p("max_depth", "integer"),
            _p("properties", "array"),
            REDACT,
            TAB_ID,
        ),
        summary="the observe dom object",
    ),
    Operation("tabs.list", (), summary="every tab"),
    Operation("tabs.track", (TAB_ID, _p("clear", "boolean")), summary="pin the tab commands go to"),
    Operation("tabs.resolve", (TAB_ID,), summary="the tab a command would go to"),
    Operation(
        "tab.navigate",
        (
            _p("url", "string", required=True),
            _p("wait_until", "string", enum=("load", "domcontentloaded", "networkidle")),
            TIMEOUT,
            TAB_ID,
        ),
        page_changing=True,
        summary="load a URL in the tab",
    ),
    Operation(
        "js.execute", (_p("script", "string", required=True), TIMEOUT, TAB_ID), page_changing=True, summary="run JS"
    ),
    Operation(
        "tab.screenshot",
        (_p("format", "string", enum=("png", "jpeg")), _p("quality", "integer"), _p("full_page", "boolean"), TAB_ID),
        summary="a picture of the tab",
    ),
    Operation("tab.crop", (SELECTOR, TAB_ID), summary="an element's picture for an approval prompt"),
    Operation("dom.count", (SELECTOR, TAB_ID), summary="how many elements match"),
    Operation(
        "dom.wait",
        (SELECTOR, _p("state", "string", enum=("visible", "attached", "hidden")), TIMEOUT, TAB_ID),
        summary="until a selector reaches a state",
    ),
    Operation("dom.click", (SELECTOR, TIMEOUT, TAB_ID), page_changing=True, summary="click an element"),
    Operation(
        "dom.fill",
        (SELECTOR, _p("value", "string", required=True), TIMEOUT, TAB_ID),
        page_changing=True,
        summary="set a field's value",
    ),
    Operation(
        "dom.type",
        (SELECTOR, _p("text", "string", required=True), TIMEOUT, TAB_ID),
        page_changing=True,
        summary="type with key events",
    ),
    Operation(
        "dom.press",
        (_p("key", "string", required=True), _p("selector", "string"), TIMEOUT, TAB_ID),
        page_changing=True,
        summary="press a key",
    ),
    Operation(
        "dom.select",
        (SELECTOR, _p("value", "string", "array", required=True), TIMEOUT, TAB_ID),
        page_changing=True,
        summary="choose options of a select",
    ),
    Operation("dom.scroll", (_p("selector", "string"), TIMEOUT, TAB_ID), summary="scroll an element into view"),
    Operation(
        "scrape.extract",
        (SELECTOR, _p("fields", "array", required=True), REDACT, _p("max_bytes", "integer"), TAB_ID),
        summary="rows from the page",
    ),
    Operation(
        "scrape.next_page",
        (_p("next_selector", "string", required=True), _p("rows_selector", "string"), TIMEOUT, TAB_ID),
        page_changing=True,
        summary="click next and wait for the rows to change",
    ),
    Operation(
        "a11y.audit",
        (_p("scope", "string"), _p("tags", "array"), _p("include_passes", "boolean"), REDACT, TIMEOUT, TAB_ID),
        summary="axe-core in the page",
    ),
    Operation("dialogs.list", (TAB_ID,), summary="open, armed and lately answered dialogs"),
    Operation(
        "dialog.handle",
        (_p("accept", "boolean", required=True), _p("prompt_text", "string"), TAB_ID),
        page_changing=True,
        summary="answer the tab's dialog, or arm the answer for its next one",
    ),
    Operation(
        "handoff.start",
        (_p("reason", "string", required=True), _p("correlation_id", "string", required=True), TAB_ID),
        summary="bring the tab to the front and show the person why",
    ),
    Operation("handoff.end", (_p("correlation_id", "string", required=True),), summary="the hand-off is over"),
)

BY_NAME: dict[str, Operation] = {op.name: op for op in OPERATIONS}


def problems(op: str, params: Mapping[str, Any]) -> list[str]:
    """What the extension would refuse in this request (empty: nothing). The same rules as its checker."""
    spec = BY_NAME.get(op)
    if spec is None:
        return [f"unknown operation {op!r}"]
    declared = {p.name: p for p in spec.params}
    out = [f"{op}: unknown parameter {name!r}" for name in params if name not in declared]
    for p in spec.params:
        value = params.get(p.name)
        if value is None:
            if p.required:
                out.append(f"{op}: {p.name!r} is required")
            continue
        if not any(fits(value, t) for t in p.types):
            out.append(f"{op}: {p.name!r} must be {' or '.join(p.types)}")
        elif p.enum and value not in p.enum:
            out.append(f"{op}: {p.name!r} must be one of {', '.join(p.enum)}")
    return out
