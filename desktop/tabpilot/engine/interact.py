"""`interact`: acts on the page. Every mode needs AI Web Pilot ON."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from tabpilot.engine.commands import Command
from tabpilot.engine.context import CommandContext
from tabpilot.engine.errors import TabpilotError
from tabpilot.engine.params import Param

NAVIGABLE_SCHEMES = ("http", "https")
TIMEOUT_MARGIN_S = 2.0


def check_url(url: str) -> str:
    url = url.strip()
    if url == "about:blank":
        return url
    parts = urlsplit(url)
    if parts.scheme not in NAVIGABLE_SCHEMES or not parts.netloc:
        raise TabpilotError(
            "invalid_params",
            f"'url' must be an absolute http(s) URL (or about:blank); got {url[:200]!r}.",
            param="url",
        )
    return url


async def _navigate(ctx: CommandContext, p: dict[str, Any]) -> dict[str, Any]:
    p["url"] = check_url(p["url"])
    return await ctx.browser_request("tab.navigate", p, timeout_s=p["timeout_ms"] / 1000 + TIMEOUT_MARGIN_S)


async def _execute_js(ctx: CommandContext, p: dict[str, Any]) -> dict[str, Any]:
    return await ctx.browser_request("js.execute", p, timeout_s=p["timeout_ms"] / 1000 + TIMEOUT_MARGIN_S)


COMMANDS = [
    Command(
        "interact",
        "navigate",
        "navigate",
        "load url and wait for it",
        _navigate,
        params=(
            Param("url", "string", "absolute http(s) URL", required=True),
            Param(
                "wait_until",
                "string",
                "load state to wait for",
                default="load",
                enum=("load", "domcontentloaded", "networkidle"),
            ),
            Param("timeout_ms", "integer", "default 30000", default=30_000, minimum=100, maximum=300_000),
        ),
        pilot_gated=True,
        targets_tab=True,
    ),
    Command(
        "interact",
        "execute_js",
        "mutate",
        "run JS in the page: expression or function body (return); await works",
        _execute_js,
        params=(
            Param("script", "string", "expression, or function body using return", required=True),
            Param("timeout_ms", "integer", "default 5000", default=5_000, minimum=50, maximum=120_000),
        ),
        pilot_gated=True,
        capability="execute_js",
        targets_tab=True,
    ),
]
