"""Structured extraction across pages: wait for content, extract rows, follow `next`, stop in time."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from typing import Any

from tabpilot.engine.context import CommandContext
from tabpilot.engine.errors import TabpilotError
from tabpilot.engine.workflows.extract_spec import ExtractSchema, validate_rows

MAX_RESULT_BYTES = 1024 * 1024
DEFAULT_ELEMENT_TIMEOUT_MS = 10_000
DEFAULT_MAX_PAGES = 5
DEFAULT_PAGE_DELAY_MS = 500


@dataclass
class Pagination:
    next_selector: str
    max_pages: int = DEFAULT_MAX_PAGES
    delay_ms: int = DEFAULT_PAGE_DELAY_MS
    timeout_ms: int = DEFAULT_ELEMENT_TIMEOUT_MS

    @classmethod
    def of(cls, raw: dict[str, Any] | None) -> Pagination | None:
        if not raw:
            return None
        return cls(
            next_selector=raw["next_selector"],
            max_pages=raw.get("max_pages", DEFAULT_MAX_PAGES),
            delay_ms=raw.get("delay_ms", DEFAULT_PAGE_DELAY_MS),
            timeout_ms=raw.get("timeout_ms", DEFAULT_ELEMENT_TIMEOUT_MS),
        )


@dataclass
class Extracted:
    rows: list[dict[str, Any]] = field(default_factory=list)
    pages: int = 0
    warnings: list[str] = field(default_factory=list)
    validation_errors: list[dict[str, Any]] = field(default_factory=list)
    truncated: bool = False
    url: str = ""
    size: int = 0
    pagination: str | None = None
    """How the pages came: "navigate" (a new document each), "replace" (the list swapped in place) or
    "append" (a "Load more" that adds to the list: only the new rows are taken)."""

    def warn(self, message: str) -> None:
        if message not in self.warnings:
            self.warnings.append(message)


async def extract(
    ctx: CommandContext,
    *,
    tab_id: int | None,
    selector: str,
    schema: ExtractSchema,
    frame: str | None = None,
    wait_for: str | None = None,
    timeout_ms: int = DEFAULT_ELEMENT_TIMEOUT_MS,
    paginate: Pagination | None = None,
    budget_bytes: int = MAX_RESULT_BYTES,
    into: Extracted | None = None,
) -> Extracted:
    """Rows from the current page (and the next ones, when paginating), at most `budget_bytes` of JSON."""
    out = into or Extracted()
    redact = list(ctx.engine.config.redact_selectors)
    if wait_for:
        await ctx.browser_request(
            "dom.wait",
            {"tab_id": tab_id, "selector": wait_for, "state": "visible", "timeout_ms": timeout_ms, "frame": frame},
            timeout_s=timeout_ms / 1000 + 5,
        )
    fields = schema.wire()
    max_pages = paginate.max_pages if paginate else 1
    pages = 0
    """This call's pages (`out` may already hold an earlier workflow step's)."""
    previous: list[dict[str, Any]] = []
    moved_in_place = False
    while True:
        left = budget_bytes - out.size
        page = await ctx.browser_request(
            "scrape.extract",
            {
                "tab_id": tab_id,
                "selector": selector,
                "fields": fields,
                "redact": redact,
                "max_bytes": max(left, 0),
                "frame": frame,
            },
            timeout_s=30,
        )
        pages += 1
        out.pages += 1
        out.url = str(page.get("url") or out.url)
        for warning in page.get("warnings") or []:
            out.warn(str(warning))
        rows = [r for r in page.get("rows") or [] if isinstance(r, dict)]
        fresh = rows
        if moved_in_place:
            # The same list, grown: the rows read before come first again. Take each row once.
            appended = len(rows) > len(previous) and rows[: len(previous)] == previous
            out.pagination = "append" if appended else "replace"
            fresh = rows[len(previous) :] if appended else rows
        previous = rows
        for row in fresh:
            size = len(json.dumps(row, ensure_ascii=False, separators=(",", ":")).encode()) + 1  # bytes, as the page
            if out.size + size > budget_bytes:
                out.truncated = True
                break
            out.rows.append(row)
            out.size += size
        if page.get("truncated"):
            out.truncated = True
        if out.truncated:
            out.warn(f"The result passed {budget_bytes // 1024} KB and was cut; narrow the selector or paginate less.")
            break
        ctx.job.progress(ctx.job.steps_completed, ctx.job.steps_total, f"page {out.pages}: {len(out.rows)} rows")
        if paginate is None or pages >= max_pages or not rows:
            break
        moved = await ctx.browser_request(
            "scrape.next_page",
            {
                "tab_id": tab_id,
                "next_selector": paginate.next_selector,
                "rows_selector": selector,
                "timeout_ms": paginate.timeout_ms,
                "frame": frame,
            },
            timeout_s=paginate.timeout_ms / 1000 + 5,
        )
        if not moved.get("moved"):
            if moved.get("reason") == "no_change":
                out.warn(f"Clicking '{paginate.next_selector}' did not change the page; pagination stopped.")
            break
        moved_in_place = moved.get("how") == "in_place"
        if not moved_in_place:
            out.pagination = "navigate"
        if paginate.delay_ms:
            await asyncio.sleep(paginate.delay_ms / 1000)
    if schema.row_schema is not None:
        out.validation_errors = validate_rows(out.rows, schema.row_schema)
    return out


def check_extract_options(options: Any) -> dict[str, Any]:
    from tabpilot.engine.workflows.workflows import check_paginate

    if options is None:
        return {}
    if not isinstance(options, dict):
        raise TabpilotError("invalid_params", "'options' must be an object.", param="options")
    unknown = sorted(set(options) - {"wait_for", "timeout_ms", "paginate"})
    if unknown:
        raise TabpilotError(
            "invalid_params",
            f"options: unknown field {', '.join(map(repr, unknown))}; expected wait_for, timeout_ms, paginate.",
            param="options",
        )
    if options.get("wait_for") is not None and not isinstance(options["wait_for"], str):
        raise TabpilotError("invalid_params", "options.wait_for must be a CSS selector.", param="options")
    timeout = options.get("timeout_ms")
    if timeout is not None and (
        not isinstance(timeout, int) or isinstance(timeout, bool) or not 0 < timeout <= 300_000
    ):
        raise TabpilotError("invalid_params", "options.timeout_ms must be between 1 and 300000.", param="options")
    if options.get("paginate") is not None:
        check_paginate(options["paginate"], "options.paginate")
    return options
