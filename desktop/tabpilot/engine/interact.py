"""`interact`: acts on the page. Every mode needs AI Web Pilot ON."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from tabpilot.engine.commands import Command
from tabpilot.engine.context import CommandContext
from tabpilot.engine.errors import TabpilotError, shown
from tabpilot.engine.params import Param
from tabpilot.engine.workflows import resolve, scrub

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
            f"'url' must be an absolute http(s) URL (or about:blank); got {shown(url)}.",
            param="url",
        )
    return url


async def _navigate(ctx: CommandContext, p: dict[str, Any]) -> dict[str, Any]:
    p["url"] = check_url(p["url"])
    return await ctx.browser_request("tab.navigate", p, timeout_s=p["timeout_ms"] / 1000 + TIMEOUT_MARGIN_S)


async def _execute_js(ctx: CommandContext, p: dict[str, Any]) -> dict[str, Any]:
    return await ctx.browser_request("js.execute", p, timeout_s=p["timeout_ms"] / 1000 + TIMEOUT_MARGIN_S)


ELEMENT_TIMEOUT = Param("timeout_ms", "integer", "default 10000", default=10_000, minimum=100, maximum=120_000)
SELECTOR = Param("selector", "string", "CSS selector (first match)", required=True)
OPTIONAL_SELECTOR = Param("selector", "string", "CSS selector (first match)")
VALUE = Param("value", "string", "text; {{secret:NAME}} from the keyring", required=True)
TEXT = Param("text", "string", "text; {{secret:NAME}} from the keyring", required=True)
KEY = Param("key", "string", "e.g. Enter, Tab, Control+A", required=True)


def _with_secrets(ctx: CommandContext, p: dict[str, Any], key: str) -> tuple[dict[str, Any], dict[str, str]]:
    """`{{secret:NAME}}` in a typed value comes from the OS keyring; results never carry it."""
    [step], secrets = resolve([{key: p[key]}], {}, ctx.engine.secrets.get)
    ctx.engine.known_secrets.update(secrets)
    return {**p, key: step[key]}, secrets


def _action(op: str, value_key: str | None = None) -> Any:
    async def run(ctx: CommandContext, p: dict[str, Any]) -> dict[str, Any]:
        secrets: dict[str, str] = {}
        if value_key is not None:
            p, secrets = _with_secrets(ctx, p, value_key)
        result = await ctx.browser_request(op, p, timeout_s=p.get("timeout_ms", 10_000) / 1000 + TIMEOUT_MARGIN_S)
        return dict(scrub(result, secrets))

    return run


def _page_action(mode: str, summary: str, op: str, params: tuple[Param, ...], value_key: str | None) -> Command:
    """An action on one element: changes the page, so it needs the pilot, page actions and approval."""
    return Command(
        "interact",
        mode,
        "mutate",
        summary,
        _action(op, value_key),
        params=(*params, ELEMENT_TIMEOUT),
        pilot_gated=True,
        capability="page_actions",
        targets_tab=True,
    )


COMMANDS = [
    Command(
        "interact",
        "navigate",
        "navigate",
        "load url, wait for it",
        _navigate,
        params=(
            Param("url", "string", "http(s) URL", required=True),
            Param(
                "wait_until",
                "string",
                "default load",
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
        "JS: expression or function body (return); await ok",
        _execute_js,
        params=(
            Param("script", "string", "JS source", required=True),
            Param("timeout_ms", "integer", "default 5000", default=5_000, minimum=50, maximum=120_000),
        ),
        pilot_gated=True,
        capability="execute_js",
        targets_tab=True,
    ),
    *(
        _page_action(mode, summary, op, params, value_key)
        for mode, summary, op, params, value_key in (
            ("click", "click (trusted events; waits until clickable)", "dom.click", (SELECTOR,), None),
            ("fill", "set an input's value", "dom.fill", (SELECTOR, VALUE), "value"),
            ("type", "type with key events", "dom.type", (SELECTOR, TEXT), "text"),
            ("press", "key into selector or the focused element", "dom.press", (KEY, OPTIONAL_SELECTOR), None),
            ("select", "<select> option by value or label", "dom.select", (SELECTOR, VALUE), "value"),
        )
    ),
    Command(
        "interact",
        "scroll",
        "navigate",
        "element into view, or page to bottom",
        _action("dom.scroll"),
        params=(OPTIONAL_SELECTOR, ELEMENT_TIMEOUT),
        pilot_gated=True,
        targets_tab=True,
    ),
]
