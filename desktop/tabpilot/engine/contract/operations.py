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

from tabpilot.engine.contract.params import fits

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
READS = ("text", "html", "links", "forms", "markdown", "structured_data", "media", "styles")
"""The reading helpers content/read.js answers (page.read's `what`)."""
FRAME = _p("frame", "string")
"""An iframe (selector, ref, name or URL pattern): the extension qualifies the op's selector with it."""
WAIT_STATES = ("visible", "attached", "hidden", "detached")
WAIT_UNTIL = ("load", "domcontentloaded", "networkidle")
"""When a navigation counts as done (tabs.open, tab.navigate, and the commands' `wait_until`)."""

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
            FRAME,
            TAB_ID,
        ),
        summary="the observe dom object",
    ),
    Operation("tabs.list", (), summary="every tab"),
    Operation("tabs.track", (TAB_ID, _p("clear", "boolean")), summary="pin the tab commands go to"),
    Operation("tabs.resolve", (TAB_ID,), summary="the tab a command would go to"),
    Operation(
        "tabs.open",
        (
            _p("url", "string", required=True),
            _p("wait_until", "string", enum=WAIT_UNTIL),
            TIMEOUT,
        ),
        page_changing=True,
        summary="open a tab in front and load a URL in it",
    ),
    Operation("tabs.activate", (_p("tab_id", "integer", required=True),), summary="bring a tab to front"),
    Operation("tabs.close", (_p("tab_id", "integer", required=True),), page_changing=True, summary="close a tab"),
    Operation("state.save", (TAB_ID,), summary="the cookies, storages and URL of the tab's page"),
    Operation(
        "state.load",
        (_p("state", "object", required=True), _p("navigate", "boolean"), TIMEOUT, TAB_ID),
        page_changing=True,
        summary="clear and restore cookies and storages, then load the saved URL",
    ),
    Operation(
        "tab.navigate",
        (
            _p("url", "string", required=True),
            _p("wait_until", "string", enum=WAIT_UNTIL),
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
        (
            _p("format", "string", enum=("png", "jpeg")),
            _p("quality", "integer"),
            _p("full_page", "boolean"),
            _p("selector", "string"),
            _p("clip", "object"),
            _p("clip_origin", "string", enum=("page", "viewport")),
            _p("scale", "number"),
            _p("device", "object"),
            TIMEOUT,
            FRAME,
            TAB_ID,
        ),
        summary="a picture of the tab: viewport, full page, element or clip, scaled, or under a device",
    ),
    Operation("tab.crop", (SELECTOR, TAB_ID), summary="an element's picture for an approval prompt"),
    Operation("dom.count", (SELECTOR, FRAME, TAB_ID), summary="how many elements match"),
    Operation(
        "dom.wait",
        (SELECTOR, _p("state", "string", enum=WAIT_STATES), TIMEOUT, FRAME, TAB_ID),
        summary="until a selector reaches a state",
    ),
    Operation(
        "dom.click",
        (
            SELECTOR,
            _p("button", "string", enum=("left", "right", "middle")),
            _p("click_count", "integer"),
            _p("modifiers", "array"),
            TIMEOUT,
            FRAME,
            TAB_ID,
        ),
        page_changing=True,
        summary="click an element",
    ),
    Operation(
        "dom.fill",
        (SELECTOR, _p("value", "string", required=True), TIMEOUT, FRAME, TAB_ID),
        page_changing=True,
        summary="set a field's value",
    ),
    Operation(
        "dom.type",
        (SELECTOR, _p("text", "string", required=True), TIMEOUT, FRAME, TAB_ID),
        page_changing=True,
        summary="type with key events",
    ),
    Operation(
        "dom.press",
        (_p("key", "string", required=True), _p("selector", "string"), TIMEOUT, FRAME, TAB_ID),
        page_changing=True,
        summary="press a key",
    ),
    Operation(
        "dom.select",
        (
            SELECTOR,
            _p("value", "string", "array"),
            _p("label", "string", "array"),
            _p("text", "string", "array"),
            TIMEOUT,
            FRAME,
            TAB_ID,
        ),
        page_changing=True,
        summary="choose options of a select",
    ),
    Operation(
        "dom.scroll",
        (
            _p("selector", "string"),
            _p("delta_x", "integer"),
            _p("delta_y", "integer"),
            _p("to", "string", enum=("top", "bottom")),
            TIMEOUT,
            FRAME,
            TAB_ID,
        ),
        summary="scroll an element into view, or by a delta",
    ),
    Operation(
        "dom.check",
        (SELECTOR, _p("checked", "boolean"), TIMEOUT, FRAME, TAB_ID),
        page_changing=True,
        summary="check or uncheck a checkbox, radio or role=checkbox",
    ),
    Operation(
        "dom.hover",
        (SELECTOR, TIMEOUT, FRAME, TAB_ID),
        page_changing=True,
        summary="move the pointer over an element",
    ),
    Operation("dom.focus", (SELECTOR, TIMEOUT, FRAME, TAB_ID), page_changing=True, summary="give an element the focus"),
    Operation(
        "dom.drag",
        (SELECTOR, _p("target", "string", required=True), TIMEOUT, FRAME, TAB_ID),
        page_changing=True,
        summary="drag an element onto another",
    ),
    Operation(
        "dom.upload",
        (SELECTOR, _p("files", "array", required=True), TIMEOUT, FRAME, TAB_ID),
        page_changing=True,
        summary="set a file input's files",
    ),
    Operation(
        "page.wait_for",
        (
            _p("selector", "string"),
            _p("state", "string", enum=WAIT_STATES),
            _p("text", "string"),
            _p("url", "string"),
            _p("network_idle", "boolean"),
            _p("load", "boolean"),
            TIMEOUT,
            FRAME,
            TAB_ID,
        ),
        summary="until one condition holds",
    ),
    Operation(
        "tab.history",
        (_p("direction", "string", required=True, enum=("back", "forward", "reload")), TIMEOUT, TAB_ID),
        page_changing=True,
        summary="back, forward or reload",
    ),
    Operation(
        "page.download",
        (_p("url", "string"), _p("selector", "string"), TIMEOUT, FRAME, TAB_ID),
        summary="fetch a URL with the browser's cookies",
    ),
    Operation(
        "page.dismiss_overlays",
        (TIMEOUT, TAB_ID),
        page_changing=True,
        summary="close cookie banners and modals",
    ),
    Operation(
        "scrape.extract",
        (SELECTOR, _p("fields", "array", required=True), REDACT, _p("max_bytes", "integer"), FRAME, TAB_ID),
        summary="rows from the page",
    ),
    Operation(
        "scrape.next_page",
        (_p("next_selector", "string", required=True), _p("rows_selector", "string"), TIMEOUT, FRAME, TAB_ID),
        page_changing=True,
        summary="click next and wait for the rows to change",
    ),
    Operation(
        "page.read",
        (
            _p("what", "string", required=True, enum=READS),
            _p("selector", "string"),
            _p("max_bytes", "integer"),
            _p("properties", "array"),
            REDACT,
            FRAME,
            TAB_ID,
        ),
        summary="a reading helper's answer (text, html, links, forms, markdown, ...)",
    ),
    Operation(
        "dom.snapshot",
        (
            _p("interactive_only", "boolean"),
            _p("scope", "string"),
            _p("max_depth", "integer"),
            _p("boxes", "boolean"),
            REDACT,
            TIMEOUT,
            FRAME,
            TAB_ID,
        ),
        summary="the accessibility tree as text with refs, frames included",
    ),
    Operation(
        "dom.highlight",
        (SELECTOR, _p("duration_ms", "integer"), TIMEOUT, FRAME, TAB_ID),
        page_changing=True,
        summary="outline and label one element",
    ),
    Operation(
        "dom.describe",
        (SELECTOR, REDACT, TIMEOUT, FRAME, TAB_ID),
        summary="an element as Playwright's locators name it (role and name, label, text; CSS)",
    ),
    Operation(
        "a11y.audit",
        (_p("scope", "string"), _p("tags", "array"), _p("include_passes", "boolean"), REDACT, TIMEOUT, FRAME, TAB_ID),
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
    Operation(
        "page.assert",
        (_p("checks", "array", required=True), TIMEOUT, REDACT, FRAME, TAB_ID),
        summary="observe assert's checks, all in one look (timeout_ms: until they pass)",
    ),
    Operation("page.injection_scan", (REDACT, FRAME, TAB_ID), summary="the page's text where an AI would read it"),
    Operation(
        "emulation.set",
        (
            _p("width", "integer"),
            _p("height", "integer"),
            _p("device_scale_factor", "number"),
            _p("mobile", "boolean"),
            _p("touch", "boolean"),
            _p("user_agent", "string"),
            _p("screen_width", "integer"),
            _p("screen_height", "integer"),
            _p("name", "string"),
            _p("reset", "boolean"),
            TAB_ID,
        ),
        page_changing=True,
        summary="the tab's device metrics, touch and user agent (standing); reset undoes them",
    ),
    Operation(
        "emulation.user_agent",
        (_p("user_agent", "string", required=True), TAB_ID),
        page_changing=True,
        summary='the tab\'s user agent (standing); "" undoes it',
    ),
    Operation(
        "network.headers",
        (_p("headers", "object", required=True), TAB_ID),
        page_changing=True,
        summary="extra headers on the tab's requests (standing); {} removes them",
    ),
    Operation(
        "network.add_routes",
        (_p("routes", "array", required=True), TAB_ID),
        page_changing=True,
        summary="mock or block the tab's requests matching a glob or /regex/ (standing)",
    ),
    Operation("network.routes", (TAB_ID,), summary="the tab's routes and extra header names"),
    Operation(
        "network.clear_routes",
        (TAB_ID,),
        page_changing=True,
        summary="remove every route of the tab",
    ),
    Operation(
        "tab.pdf",
        (
            _p("landscape", "boolean"),
            _p("print_background", "boolean"),
            _p("scale", "number"),
            _p("paper_width", "number"),
            _p("paper_height", "number"),
            _p("margin_top", "number"),
            _p("margin_right", "number"),
            _p("margin_bottom", "number"),
            _p("margin_left", "number"),
            _p("page_ranges", "string"),
            _p("header_template", "string"),
            _p("footer_template", "string"),
            _p("prefer_css_page_size", "boolean"),
            TAB_ID,
        ),
        summary="the page printed as a PDF (sizes in inches)",
    ),
    Operation("tab.archive", (TAB_ID,), summary="the page and its resources as one MHTML document"),
    Operation("page.performance", (TAB_ID,), summary="navigation and paint timings, Web Vitals, resources"),
    Operation(
        "capture.flush",
        (TAB_ID,),
        summary="the tab's buffered capture items to the app now (answers once they were forwarded)",
    ),
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
