"""What each agent session did to its pages, kept for `generate {type:"playwright_test"}`.

Every successful page action of an agent session (navigate, click, fill, select, check, press, waits,
...) and every check it made (observe assert, an element's text it read, rows it extracted) is kept
as an entry with a stable locator for its element: the page names the element as Playwright's
locators would (`dom.describe`, content/snapshot.js: role and accessible name, label, placeholder,
text, test id; CSS when nothing else is unique) at the moment of the action — asked alongside the
action, so it costs no extra wait, and before a click can take the element away.

Typed values stay out: a `{{secret:NAME}}` stays that reference (the test reads the keyring), and
a value typed in plain into a password or redacted field becomes an environment variable's name.
Memory is bounded: the last MAX_ACTIONS entries of the last MAX_SESSIONS sessions (the oldest are
dropped, and the test says how many).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import OrderedDict, deque
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from tabpilot import trace
from tabpilot.engine.errors import TabpilotError
from tabpilot.engine.per_engine import per_engine
from tabpilot.engine.workflows.pycode import css_locator, env_name, uses_secrets

if TYPE_CHECKING:
    from tabpilot.engine.context import CommandContext
    from tabpilot.engine.contract.commands import AnyCommand

log = logging.getLogger("tabpilot.recorder")

MAX_ACTIONS = 300
MAX_SESSIONS = 32
MAX_VALUE_CHARS = 10_000
DESCRIBE_LATE_S = 2.0
"""How long, once the action is done, its element's description may still take (it is usually in already)."""
DESCRIBED_ACTIONS = ("click", "fill", "type", "press", "select", "check", "uncheck", "hover", "focus", "drag", "scroll")
"""Actions whose element is described alongside the action (a click may take it away)."""
PLAIN_ACTIONS = ("navigate", "wait_for", "back", "forward", "reload", "new_tab", *DESCRIBED_ACTIONS)
NOTED = {
    "execute_js": "the session ran JavaScript here (interact execute_js); not replayed",
    "dismiss_overlays": "the session dismissed overlays here (cookie banners, modals)",
    "handle_dialog": "the session answered a JavaScript dialog here",
    "switch_tab": "the session switched tabs here",
    "close_tab": "the session closed a tab here",
    "upload": "the session uploaded files here",
}
PASSWORDY = ("password", "passwd", "pwd", "secret", "token", "pin")


@dataclass
class SessionRecord:
    entries: deque[dict[str, Any]] = field(default_factory=lambda: deque(maxlen=MAX_ACTIONS))
    dropped: int = 0


Describe = Callable[[str, int], Coroutine[Any, Any, dict[str, Any] | None]]
"""(selector, how long to wait for it) → the page's description of its element, None when there is none."""
Where = dict[str, Any] | None
"""A recorded call's frame (recorder._frame); None: the top document."""


class Recorder:
    def __init__(self) -> None:
        self._sessions: OrderedDict[str, SessionRecord] = OrderedDict()

    def entries(self, session_key: str) -> tuple[list[dict[str, Any]], int]:
        """The session's entries, oldest first, and how many older ones were dropped."""
        record = self._sessions.get(session_key)
        return (list(record.entries), record.dropped) if record else ([], 0)

    def add(self, session_key: str, entry: dict[str, Any]) -> None:
        record = self._sessions.pop(session_key, None) or SessionRecord()
        self._sessions[session_key] = record  # the most recently used last
        if len(record.entries) == MAX_ACTIONS:
            record.dropped += 1
        record.entries.append(entry)
        while len(self._sessions) > MAX_SESSIONS:
            self._sessions.popitem(last=False)

    async def run(self, command: AnyCommand, ctx: CommandContext, params: dict[str, Any]) -> dict[str, Any]:
        """Run `command` and keep what it did, when it is an agent's page action or check."""
        if ctx.session.person or not _recordable(command, params):
            return await command.run(ctx, params)
        describe = _describer(ctx, params)
        early: dict[str, asyncio.Task[dict[str, Any] | None]] = {}
        frame, in_top = params.get("frame"), _describer(ctx, params, top=True)
        if isinstance(frame, str) and frame and in_top is not None:
            # The <iframe> itself, in the top document: the test scopes to it (a name or URL pattern fails here).
            early["frame"] = asyncio.create_task(_aside(in_top, frame, 0))
        if command.mode in DESCRIBED_ACTIONS and command.tool == "interact" and describe is not None:
            for key in ("selector", "target"):
                if isinstance(params.get(key), str) and params[key]:
                    early[key] = asyncio.create_task(_aside(describe, params[key], _wait_ms(params)))
            await asyncio.sleep(0)  # sent before the action, so the page answers before the click lands
        try:
            result = await command.run(ctx, params)
        except BaseException:
            for task in early.values():
                task.cancel()
            raise
        described = {key: await _late(task) for key, task in early.items()}
        try:
            entry = await _entry(command, params, result, described, describe, ctx)
        except Exception:  # a record is a convenience: never the action's failure
            log.exception("could not record %s", command.name)
            return result
        if entry is not None:
            self.add(ctx.session.key, entry)
        return result


recorder_of = per_engine(lambda _engine: Recorder())
"""What each agent session did to an engine's pages (generate playwright_test); the catalog makes every command
of an engine run through its `run` (Registry.run_hook), so the core does not know the recorder."""


async def _aside(look: Describe, selector: str, wait_ms: int) -> dict[str, Any] | None:
    """A look that runs beside the action, in a task of its own: its bridge calls are not the action's
    (bench_hops' marks show the action's path alone). The look starts here, so a task cancelled before it
    ran leaves no coroutine behind."""
    trace.untraced()
    return await look(selector, wait_ms)


def _recordable(command: AnyCommand, params: dict[str, Any]) -> bool:
    if command.tool == "interact":
        return command.mode in PLAIN_ACTIONS or command.mode in NOTED or command.operation == "extract"
    if command.tool != "observe":
        return False
    return command.mode == "assert" or (command.mode == "text" and bool(params.get("selector")))


def _wait_ms(params: dict[str, Any]) -> int:
    timeout = params.get("timeout_ms")
    return int(timeout) if isinstance(timeout, int) else 10_000


def _describer(ctx: CommandContext, params: dict[str, Any], *, top: bool = False) -> Describe | None:
    """Asks the page for an element's locator (in the call's frame, or with `top` the top document); None
    when this engine does not (EngineConfig.describe_elements)."""
    if not ctx.engine.config.describe_elements:
        return None
    where = {k: params[k] for k in ("tab_id", "frame") if params.get(k) is not None and not (top and k == "frame")}
    redact = list(ctx.engine.config.redact_selectors)

    async def describe(selector: str, wait_ms: int) -> dict[str, Any] | None:
        ask = {"selector": selector, "redact": redact, "timeout_ms": wait_ms, **where}
        try:
            return await ctx.browser_request("dom.describe", ask, timeout_s=wait_ms / 1000 + 2)
        except TabpilotError as exc:  # gone with a navigation, not there: the CSS selector will do
            log.debug("no description of %s: %s", selector, exc.code)
            return None

    return describe


async def _late(task: asyncio.Task[dict[str, Any] | None]) -> dict[str, Any] | None:
    done, _ = await asyncio.wait({task}, timeout=DESCRIBE_LATE_S)
    if not done:
        task.cancel()
        return None
    return None if task.cancelled() or task.exception() is not None else task.result()


def _frame(frame: Any, described: dict[str, Any] | None) -> Where:
    """Where a call's `frame` is, as the test finds it: its <iframe> element, else a frame's name or URL."""
    if not isinstance(frame, str) or not frame:
        return None
    if described and isinstance(described.get("locator"), dict):
        return {"locator": described["locator"]}
    if frame.startswith("@"):
        return {"ref": frame}
    return {"url": frame} if any(c in frame for c in "/*:?") else {"name": frame}


def _locator(selector: str, described: dict[str, Any] | None) -> dict[str, Any]:
    if described and isinstance(described.get("locator"), dict):
        return dict(described["locator"])
    if selector.lstrip().startswith("@"):
        return {"by": "ref", "css": selector}  # a snapshot ref nobody could describe: the test says so
    return css_locator(selector)


def _typed(text: str, selector: str, described: dict[str, Any] | None, ctx: CommandContext) -> dict[str, Any]:
    """What a fill or type wrote, as the test may hold it: never a password's or a secret's value."""
    if uses_secrets(text):
        return {"text": text}  # {{secret:NAME}}: the test reads the keyring
    sensitive = described.get("sensitive") if described else None
    if sensitive is None:  # not described: judge by the selector
        sensitive = any(word in selector.lower() for word in PASSWORDY)
    if sensitive or text in ctx.engine.known_secrets.values():
        return {"env": env_name((described or {}).get("name"), "password")}
    return {"text": text[:MAX_VALUE_CHARS]}


async def _entry(
    command: AnyCommand,
    params: dict[str, Any],
    result: dict[str, Any],
    described: dict[str, dict[str, Any] | None],
    describe: Describe | None,
    ctx: CommandContext,
) -> dict[str, Any] | None:
    mode = command.mode
    frame = _frame(params.get("frame"), described.get("frame"))
    if command.tool == "observe":
        return await _check_entry(mode, params, result, describe, frame)
    if mode in NOTED:
        return {"kind": "note", "text": NOTED[mode]}
    if command.operation == "extract":
        return _rows_entry(params, result, frame)
    if mode in ("navigate", "new_tab"):
        url = params.get("url")
        return {"kind": "navigate", "url": url} if isinstance(url, str) and url != "about:blank" else None
    if mode in ("back", "forward", "reload"):
        return {"kind": mode}
    if mode == "wait_for":
        return await _wait_entry(params, describe, frame)
    selector = str(params.get("selector") or "")
    entry: dict[str, Any] = {"kind": mode, "frame": frame}
    if selector:
        entry["locator"] = _locator(selector, described.get("selector"))
    if mode == "click":
        entry.update({k: params[k] for k in ("button", "click_count", "modifiers") if params.get(k)})
    elif mode == "fill":
        entry["value"] = _typed(str(params.get("value", "")), selector, described.get("selector"), ctx)
    elif mode == "type":
        entry["value"] = _typed(str(params.get("text", "")), selector, described.get("selector"), ctx)
    elif mode == "press":
        entry["key"] = params.get("key")
    elif mode == "select":
        by = next(k for k in ("value", "label", "text") if params.get(k) is not None)
        entry["option"] = {"by": "value" if by == "value" else "label", **_typed(str(params[by]), "", None, ctx)}
    elif mode == "drag":
        entry["target"] = _locator(str(params.get("target") or ""), described.get("target"))
    elif mode == "scroll":
        entry.update({k: params[k] for k in ("delta_x", "delta_y", "to") if params.get(k) is not None})
    navigation = result.get("navigation")
    if isinstance(navigation, dict) and navigation.get("status") == "complete" and navigation.get("url"):
        entry["navigated"] = navigation["url"]
    return entry


async def _wait_entry(params: dict[str, Any], describe: Describe | None, frame: Where) -> dict[str, Any] | None:
    selector = params.get("selector")
    if isinstance(selector, str) and selector:
        state = params.get("state") or "visible"
        found = await describe(selector, 0) if describe and state in ("visible", "attached") else None
        return {"kind": "wait", "state": state, "locator": _locator(selector, found), "frame": frame}
    for key in ("text", "url"):
        if isinstance(params.get(key), str):
            return {"kind": "wait", key: params[key]}
    return {"kind": "wait", "load_state": "networkidle" if params.get("network_idle") else "load"}


async def _check_entry(
    mode: str, params: dict[str, Any], result: dict[str, Any], describe: Describe | None, frame: Where
) -> dict[str, Any] | None:
    if mode == "text":
        text = result.get("text")
        if not isinstance(text, str) or not text.strip() or result.get("hidden") or "[REDACTED]" in text:
            return None
        selector = str(params["selector"])
        found = await describe(selector, 0) if describe else None
        return {"kind": "expect_text", "locator": _locator(selector, found), "text": text, "frame": frame}
    checks = []
    for check, outcome in zip(params.get("checks") or [], result.get("results") or [], strict=False):
        if not isinstance(check, dict) or not isinstance(outcome, dict):
            continue
        item: dict[str, Any] = {"check": check, "passed": outcome.get("pass") is True}
        target = check.get("selector")
        if isinstance(target, str) and target and check.get("type") != "count":
            found = await describe(target, 0) if describe and check.get("type") != "hidden" else None
            item["locator"] = _locator(target, found)
        checks.append(item)
    return {"kind": "expect", "checks": checks, "frame": frame} if checks else None


def _rows_entry(params: dict[str, Any], result: dict[str, Any], frame: Where) -> dict[str, Any] | None:
    from tabpilot.engine.workflows.extract_spec import parse_schema

    rows = result.get("data")
    if not isinstance(rows, list):
        return None
    metadata = result.get("metadata")
    metadata = metadata if isinstance(metadata, dict) else {}
    paged = bool((params.get("options") or {}).get("paginate")) or bool(metadata.get("truncated"))
    first: dict[str, str] = {}
    with contextlib.suppress(TabpilotError):
        for spec in parse_schema(params.get("schema")).fields:
            value = rows[0].get(spec.name) if rows and isinstance(rows[0], dict) else None
            plain = spec.ops[0]["op"] == "text" and len(spec.ops) == 1 and spec.selector
            if plain and isinstance(value, str) and value and "[REDACTED]" not in value and len(first) < 3:
                first[spec.selector] = value
    return {
        "kind": "expect_rows",
        "selector": params.get("selector"),
        "count": None if paged else len(rows),
        "first": first,
        "frame": frame,
    }
