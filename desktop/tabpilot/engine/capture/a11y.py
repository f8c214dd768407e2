"""`observe a11y_audit`: axe-core in the page (extension op `a11y.audit`), cached here for 30 s per URL.

The cache lives in the engine, not the extension: the service worker may sleep and lose memory, and
here every caller (MCP, CLI) shares it. Key: the tab's URL plus the audit's options (scope, tags,
include_passes); `force_refresh` skips it. Audits of one tab run one at a time (axe refuses to run
twice at once in a document), and a caller that waited behind an identical audit gets its result.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any, NotRequired, TypedDict

from tabpilot.engine.context import CommandContext
from tabpilot.engine.contract import results
from tabpilot.engine.contract.args import FrameArgs, arg
from tabpilot.engine.contract.commands import Cli, Command
from tabpilot.engine.per_engine import per_engine

CACHE_S = 30.0
AUDIT_TIMEOUT_S = 30.0
MAX_CACHED = 32

CacheKey = tuple[str, str, tuple[str, ...], bool]


@dataclass
class AuditCache:
    ttl_s: float = CACHE_S
    results: dict[CacheKey, tuple[float, dict[str, Any]]] = field(default_factory=dict)
    locks: dict[int, asyncio.Lock] = field(default_factory=dict)

    def get(self, key: CacheKey, now: float) -> tuple[float, dict[str, Any]] | None:
        hit = self.results.get(key)
        if hit is None or now - hit[0] >= self.ttl_s:
            return None
        return hit

    def put(self, key: CacheKey, now: float, result: dict[str, Any]) -> None:
        for old in [k for k, (t, _) in self.results.items() if now - t >= self.ttl_s]:
            del self.results[old]
        self.results[key] = (now, result)
        while len(self.results) > MAX_CACHED:
            del self.results[next(iter(self.results))]

    def lock(self, tab_id: int) -> asyncio.Lock:
        return self.locks.setdefault(tab_id, asyncio.Lock())


cache_for = per_engine(lambda _engine: AuditCache())


@dataclass(frozen=True, kw_only=True)
class AuditArgs(FrameArgs):
    scope: str | None = arg("CSS selector (default: page)", default=None)
    tags: list[str] | None = arg("axe tags, e.g. wcag2aa", default=None)
    include_passes: bool = arg("passing rules too", default=False)
    force_refresh: bool = arg("skip the cache", default=False)


class Counts(TypedDict):
    violations: int
    passes: int
    incomplete: int
    inapplicable: int


class Node(TypedDict):
    selector: str
    html: str
    failureSummary: str


class Violation(TypedDict):
    id: str
    impact: str | None
    description: str
    help: str
    helpUrl: str
    wcag: list[str]
    nodes: list[Node]
    nodeCount: int


class Finding(TypedDict):
    id: str
    impact: NotRequired[str | None]
    help: str
    nodeCount: int


class Audit(TypedDict):
    url: str
    timestamp: str
    summary: Counts
    violations: list[Violation]
    incomplete: list[Finding]
    passes: NotRequired[list[Finding]]
    axe_version: str
    cached: bool
    cache_age_s: NotRequired[float]


async def _audit(ctx: CommandContext, a: AuditArgs) -> Audit:
    tab = await ctx.browser_request("tabs.resolve", {"tab_id": a.tab_id})
    tab_id = int(tab["tab_id"])
    tags = tuple(a.tags or ())
    key: CacheKey = (str(tab.get("url", "")), f"{a.frame or ''}|{a.scope or ''}", tags, a.include_passes)
    cache = cache_for(ctx.engine)
    clock = ctx.engine.clock
    async with cache.lock(tab_id):
        hit = None if a.force_refresh else cache.get(key, clock.monotonic())
        if hit is not None:
            return results.relayed(
                Audit, {**hit[1], "cached": True, "cache_age_s": round(clock.monotonic() - hit[0], 1)}
            )
        result = await ctx.browser_request(
            "a11y.audit",
            {
                "tab_id": tab_id,
                "scope": a.scope,
                "frame": a.frame,
                "tags": list(tags) or None,
                "include_passes": a.include_passes,
                "redact": list(ctx.engine.config.redact_selectors),
            },
            timeout_s=AUDIT_TIMEOUT_S + 2,
        )
        cache.put(key, clock.monotonic(), result)
    return results.relayed(Audit, {**result, "cached": False})


COMMANDS: list[Command[Any]] = [
    Command(
        "observe",
        "a11y_audit",
        "read",
        "axe-core violations",
        _audit,
        AuditArgs,
        returns=Audit,
        example_result={
            "url": "https://example.com/",
            "timestamp": "2026-01-15T10:30:00.000Z",
            "summary": {"violations": 1, "passes": 20, "incomplete": 0, "inapplicable": 40},
            "violations": [
                {
                    "id": "image-alt",
                    "impact": "critical",
                    "description": "Ensure <img> elements have alternative text or a role of none or presentation",
                    "help": "Images must have alternative text",
                    "helpUrl": "https://dequeuniversity.com/rules/axe/4.11/image-alt",
                    "wcag": ["1.1.1"],
                    "nodes": [
                        {
                            "selector": "img.logo",
                            "html": '<img class="logo" src="logo.png">',
                            "failureSummary": "Fix any of the following: Element does not have an alt attribute",
                        }
                    ],
                    "nodeCount": 1,
                }
            ],
            "incomplete": [],
            "axe_version": "4.14.1",
            "cached": False,
        },
        ops=("tabs.resolve", "a11y.audit"),
        cli=Cli("a11y", positional=("scope",)),
    ),
]
