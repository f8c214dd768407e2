"""`observe performance`: how fast the page loaded and painted, its Web Vitals and what it downloaded, as
the page's own Performance timeline tells (read in the extension's isolated world: no debugger, no change
to the page)."""

from __future__ import annotations

from typing import Any, TypedDict

from tabpilot.engine.context import CommandContext
from tabpilot.engine.contract import results
from tabpilot.engine.contract.args import TabArgs
from tabpilot.engine.contract.commands import Command


class Navigation(TypedDict):
    type: str
    ttfb_ms: float | None
    response_end_ms: float | None
    dom_interactive_ms: float | None
    dom_content_loaded_ms: float | None
    load_ms: float | None
    """None while the load event has not finished."""
    transfer_size: int | None
    decoded_body_size: int | None
    status: int | None


class Paint(TypedDict):
    first_paint_ms: float | None
    first_contentful_paint_ms: float | None


class WebVitals(TypedDict):
    lcp_ms: float | None
    lcp_element: str | None
    cls: float
    inp_ms: float | None
    """The slowest interaction the page buffered (Chrome buffers those of 104 ms or more); None: none."""
    fid_ms: float | None


class Resources(TypedDict):
    count: int
    transfer_bytes: int
    decoded_bytes: int
    by_type: dict[str, dict[str, int]]


class Performance(TypedDict):
    url: str
    title: str
    time_origin: int
    """When the navigation started, in milliseconds since the epoch; every *_ms counts from there."""
    navigation: Navigation | None
    paint: Paint
    web_vitals: WebVitals
    resources: Resources


async def _performance(ctx: CommandContext, a: TabArgs) -> Performance:
    return results.relayed(Performance, await ctx.browser_request("page.performance", a.wire(), timeout_s=10))


COMMANDS: list[Command[Any]] = [
    Command(
        "observe",
        "performance",
        "read",
        "load/paint timings, Web Vitals",
        _performance,
        TabArgs,
        returns=Performance,
        notes="Milliseconds from the start of the navigation (null: the page cannot tell, or not yet: `load_ms` "
        "stays null until the load event ends). `ttfb_ms` is the first byte of the document; `lcp_ms` the "
        "largest contentful paint; `cls` the largest burst of layout shifts; `inp_ms` the slowest interaction "
        "Chrome kept (it keeps those of 104 ms or more). `resources` counts what the page loaded by initiator "
        "type (img, script, css, fetch, ...). A page in a background tab may not report paints.",
        example_result={
            "url": "https://example.com/",
            "title": "Example Domain",
            "time_origin": 1767225600000,
            "navigation": {
                "type": "navigate",
                "ttfb_ms": 41.2,
                "response_end_ms": 44.0,
                "dom_interactive_ms": 120.5,
                "dom_content_loaded_ms": 121.3,
                "load_ms": 310.8,
                "transfer_size": 1256,
                "decoded_body_size": 1256,
                "status": 200,
            },
            "paint": {"first_paint_ms": 130.1, "first_contentful_paint_ms": 130.1},
            "web_vitals": {"lcp_ms": 180.4, "lcp_element": "h1", "cls": 0.0, "inp_ms": None, "fid_ms": None},
            "resources": {
                "count": 4,
                "transfer_bytes": 20480,
                "decoded_bytes": 61440,
                "by_type": {"img": {"count": 3, "transfer_bytes": 18000}, "css": {"count": 1, "transfer_bytes": 2480}},
            },
        },
        ops=("page.performance",),
    ),
]
