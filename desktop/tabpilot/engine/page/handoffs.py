"""Hand-off to the person: `interact handoff` for logins, CAPTCHAs and two-factor prompts.

The agent's call brings the tab to the front (its window focused), tells the person why (a tray
notification with a Resume item; the extension's popup with a Resume button) and answers
`{status:"awaiting_user", correlation_id, reason}` at once. The command goes on waiting: when the person
clicks Resume, it ends with a fresh look at the page (`observe snapshot` where the registry has it, else
`observe page`), which `observe command_result` then gives the agent. Closing the tab ends it with
`tab_closed`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass, field
from typing import Any, Literal, NotRequired, TypedDict

from tabpilot.engine.context import CommandContext
from tabpilot.engine.contract.args import TabArgs, arg
from tabpilot.engine.contract.commands import Command
from tabpilot.engine.errors import TabpilotError
from tabpilot.engine.per_engine import per_engine
from tabpilot.engine.ports import Clock
from tabpilot.observers import Observers

log = logging.getLogger("tabpilot.engine")

Ending = Literal["resume", "tab_closed"]
LOOKS = ("observe.snapshot", "observe.page")
"""The fresh look a resumed hand-off carries: the first of these the registry has."""
MAX_REASON = 300


@dataclass
class Handoff:
    correlation_id: str
    tab_id: int
    reason: str
    agent: str
    url: str
    title: str
    since: float
    """When it began (the clock's wall time)."""
    ended: asyncio.Future[tuple[Ending, str]] = field(repr=False)
    """(how it ended, who ended it: tray, popup, browser)."""


class HandoffBook:
    """The hand-offs waiting for the person; the tray and the extension's events end them."""

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self._open: dict[str, Handoff] = {}
        self.changed: Observers[[]] = Observers("hand-offs")
        """Told whenever a hand-off begins or ends (the tray shows them)."""

    def begin(self, correlation_id: str, tab_id: int, reason: str, agent: str, url: str, title: str) -> Handoff:
        ended: asyncio.Future[tuple[Ending, str]] = asyncio.get_running_loop().create_future()
        handoff = Handoff(correlation_id, tab_id, reason, agent, url, title, self.clock.time(), ended)
        self._open[correlation_id] = handoff
        self.changed.notify()
        return handoff

    def pending(self) -> list[Handoff]:
        """Oldest first."""
        return list(self._open.values())

    def resume(self, correlation_id: str, by: str) -> bool:
        """The person is done in the tab (Resume in the tray or the popup); False if it was not open."""
        return self._end(correlation_id, "resume", by)

    def finish(self, correlation_id: str) -> None:
        """The waiting command ended (resumed, cancelled, or the app stops)."""
        if self._open.pop(correlation_id, None) is not None:
            self.changed.notify()

    def on_link_event(self, name: str, data: dict[str, Any]) -> None:
        """`handoff` events from the extension: Resume pressed in its popup, or the tab closed."""
        if name != "handoff":
            return
        correlation_id = data.get("correlation_id")
        if not isinstance(correlation_id, str):
            return
        if data.get("action") == "resume":
            self.resume(correlation_id, "popup")
        elif data.get("action") == "tab_closed":
            self._end(correlation_id, "tab_closed", "browser")

    def _end(self, correlation_id: str, how: Ending, by: str) -> bool:
        handoff = self._open.get(correlation_id)
        if handoff is None or handoff.ended.done():
            return False
        handoff.ended.set_result((how, by))
        return True


handoff_book = per_engine(lambda engine: HandoffBook(engine.clock))
"""An engine's hand-offs (the core knows nothing of them): the tray, the popup and the command read this."""


@dataclass(frozen=True, kw_only=True)
class HandoffArgs(TabArgs):
    reason: str = arg("what the person should do, e.g. 'log in', 'solve the CAPTCHA'")


async def _fresh_look(ctx: CommandContext, tab_id: int) -> tuple[str, dict[str, Any]]:
    """The page as the person left it, through the registry's own read (by name, so a newer one counts)."""
    last: TabpilotError | None = None
    for name in LOOKS:
        command = ctx.engine.registry.get(name)
        if command is None:
            continue
        try:
            return command.mode, await command.run(ctx, command.validate({"tab_id": tab_id}))
        except TabpilotError as exc:
            last = exc
    raise last or TabpilotError("not_supported", "No command can read the page.")


async def _handoff(ctx: CommandContext, a: HandoffArgs) -> Resumed:
    reason = " ".join(a.reason.split())[:MAX_REASON]
    cid = ctx.job.correlation_id
    front = await ctx.browser_request("handoff.start", {"reason": reason, "correlation_id": cid, "tab_id": a.tab_id})
    tab_id = front.get("tab_id", a.tab_id)
    if not isinstance(tab_id, int):
        raise TabpilotError("internal", "The browser did not say which tab it brought to the front.")
    book = handoff_book(ctx.engine)
    handoff = book.begin(cid, tab_id, reason, ctx.agent, str(front.get("url") or ""), str(front.get("title") or ""))
    log.info("hand-off %s: waiting for the person in tab %s", cid, tab_id)
    ctx.job.await_user({"reason": reason, "tab_id": tab_id})
    try:
        how, by = await handoff.ended
    finally:
        book.finish(cid)
    if how == "tab_closed":
        raise TabpilotError("tab_closed", f"Tab {tab_id} was closed before the person resumed.", tab_id=tab_id)
    ctx.job.set_status("running")
    if by != "popup":  # the popup's Resume ended it there already; the tray's has to tell the extension
        with contextlib.suppress(TabpilotError):
            await ctx.browser_request("handoff.end", {"correlation_id": cid}, timeout_s=3)
    result: Resumed = {
        "status": "resumed",
        "reason": reason,
        "tab_id": tab_id,
        "resumed_by": by,
        "waited_ms": round((ctx.engine.clock.time() - handoff.since) * 1000),
    }
    try:
        look, page = await _fresh_look(ctx, tab_id)
    except TabpilotError as exc:
        result["look_error"] = exc.envelope()
        return result
    if look == "snapshot":
        result["snapshot"] = page
    else:
        result["page"] = page
    return result


class Resumed(TypedDict):
    """The hand-off's final result (observe command_result after Resume); the call itself answers the job's
    pending view, {status:'awaiting_user', correlation_id, reason, tab_id}."""

    status: Literal["resumed"]
    reason: str
    tab_id: int
    resumed_by: str
    waited_ms: int
    snapshot: NotRequired[dict[str, Any]]
    page: NotRequired[dict[str, Any]]
    look_error: NotRequired[dict[str, Any]]


COMMANDS: list[Command[Any]] = [
    Command(
        "interact",
        "handoff",
        "navigate",
        "bring the tab to the person (login, CAPTCHA, 2FA); wait for Resume",
        _handoff,
        HandoffArgs,
        returns=Resumed,
        result="{status:'awaiting_user', correlation_id, reason, tab_id}; command_result after Resume: "
        "{status:'resumed', reason, tab_id, resumed_by, waited_ms, snapshot|page}",
        notes="The tab comes to the front and the person is told why (tray notification, the extension's popup), "
        "each with a Resume button. The call answers `awaiting_user` at once; poll `observe command_result` with "
        "its correlation_id: once the person resumes, it gives a fresh look at the page. A closed tab ends it "
        "with `tab_closed`.",
        example={"reason": "Please log in, then click Resume"},
        # The final result, as observe command_result gives it once the person resumed (the call itself
        # answers {status:'awaiting_user', correlation_id, reason, tab_id} at once).
        example_result={
            "status": "resumed",
            "reason": "Please log in, then click Resume",
            "tab_id": 12,
            "resumed_by": "popup",
            "waited_ms": 41200,
            "snapshot": {"url": "https://example.com/account", "title": "Account", "snapshot": '- heading "Account"'},
        },
        ops=("handoff.start", "handoff.end"),
        pilot_gated=True,
    ),
]
