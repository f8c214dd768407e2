"""`observe a11y_audit`: axe-core in the page (extension op `a11y.audit`), cached here for 30 s per URL.

The cache lives in the engine, not the extension: the service worker may sleep and lose memory, and
here every caller (MCP, CLI) shares it. Key: the tab's URL plus the audit's options (scope, tags,
include_passes); `force_refresh` skips it. Audits of one tab run one at a time (axe refuses to run
twice at once in a document), and a caller that waited behind an identical audit gets its result.
"""

from __future__ import annotations

import asyncio
import weakref
from dataclasses import dataclass, field
from typing import Any

from tabpilot.engine.commands import Command
from tabpilot.engine.context import CommandContext
from tabpilot.engine.params import Param

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


_CACHES: weakref.WeakKeyDictionary[object, AuditCache] = weakref.WeakKeyDictionary()


def cache_for(engine: Any) -> AuditCache:
    cache = _CACHES.get(engine)
    if cache is None:
        cache = _CACHES[engine] = AuditCache()
    return cache


async def _audit(ctx: CommandContext, p: dict[str, Any]) -> dict[str, Any]:
    tab = await ctx.browser_request("tabs.resolve", {"tab_id": p.get("tab_id")})
    tab_id = int(tab["tab_id"])
    tags = tuple(p.get("tags") or ())
    key: CacheKey = (str(tab.get("url", "")), p.get("scope") or "", tags, bool(p["include_passes"]))
    cache = cache_for(ctx.engine)
    clock = ctx.engine.clock
    async with cache.lock(tab_id):
        hit = None if p["force_refresh"] else cache.get(key, clock.monotonic())
        if hit is not None:
            return {**hit[1], "cached": True, "cache_age_s": round(clock.monotonic() - hit[0], 1)}
        result = await ctx.browser_request(
            "a11y.audit",
            {
                "tab_id": tab_id,
                "scope": p.get("scope"),
                "tags": list(tags) or None,
                "include_passes": p["include_passes"],
                "redact": list(ctx.engine.config.redact_selectors),
            },
            timeout_s=AUDIT_TIMEOUT_S + 2,
        )
        cache.put(key, clock.monotonic(), result)
    return {**result, "cached": False}


COMMANDS = [
    Command(
        "observe",
        "a11y_audit",
        "read",
        "axe-core violations",
        _audit,
        params=(
            Param("scope", "string", "CSS selector (default: page)"),
            Param("tags", "array", "axe tags, e.g. wcag2aa", items="string"),
            Param("include_passes", "boolean", "passing rules too", default=False),
            Param("force_refresh", "boolean", "skip the cache", default=False),
        ),
        targets_tab=True,
    ),
]
