"""`configure save_state | load_state | delete_state | list_states`: a browser state saved and restored.

A state is what a logged-in page depends on: every cookie the page would send (HttpOnly included), its
origin's localStorage and sessionStorage, and its URL. It is kept encrypted at rest (the StateStore
adapter: storage/state_store.py, with its key in the OS keyring), and no answer ever shows a value —
only counts, names and where the state came from. Loading clears the page's cookies and storages first,
then restores them and (by default) loads the saved URL so the page starts from them; it changes the
page, so it is asked for like any page-changing step. All four need the pilot and the `state_snapshots`
capability (the tray's "State snapshots" toggle).
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass
from typing import Any, Literal, NotRequired, TypedDict, cast
from urllib.parse import urlsplit

from tabpilot.engine.context import CommandContext
from tabpilot.engine.contract import results
from tabpilot.engine.contract.args import Args, TabArgs, arg
from tabpilot.engine.contract.commands import Cli, Command
from tabpilot.engine.errors import TabpilotError, shown
from tabpilot.engine.page.interact import TIMEOUT_MARGIN_S
from tabpilot.engine.ports import StateStore

NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
FORMAT = 1


@dataclass(frozen=True, kw_only=True)
class StateNameArgs(Args):
    name: str = arg("letters, digits, . _ - (≤64)")


@dataclass(frozen=True, kw_only=True)
class SaveStateArgs(TabArgs):
    name: str = arg("letters, digits, . _ - (≤64)")


@dataclass(frozen=True, kw_only=True)
class LoadStateArgs(TabArgs):
    name: str = arg("a saved state (list_states)")
    navigate: bool = arg("then load the saved URL (default true)", default=True)
    timeout_ms: int = arg("default 30000", default=30_000, minimum=100, maximum=300_000)


def _store(ctx: CommandContext) -> StateStore:
    if ctx.engine.states is None:
        raise TabpilotError("not_supported", "This Tabpilot keeps no saved states.")
    return ctx.engine.states


def _name(name: str) -> str:
    if not NAME.fullmatch(name):
        raise TabpilotError(
            "invalid_params",
            f"'name' must be 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit; "
            f"got {shown(name)}.",
            param="name",
        )
    return name


class Counts(TypedDict):
    cookies: int
    localStorage: int
    sessionStorage: int


class StateSummary(TypedDict):
    name: str
    url: str
    """Without its query or fragment."""
    saved_at: float | None
    cookies: int
    localStorage: int
    sessionStorage: int


class Saved(TypedDict):
    saved: Literal[True]
    name: str
    url: str
    saved_at: float | None
    cookies: int
    localStorage: int
    sessionStorage: int


class Restored(Counts):
    cookies_refused: NotRequired[int]
    """Cookies the browser would not set."""


class Loaded(TypedDict):
    loaded: Literal[True]
    name: str
    restored: Restored
    url: str
    title: str


class StateDeleted(TypedDict):
    deleted: Literal[True]
    name: str


class Listed(TypedDict):
    """A saved state's summary, or (a file that cannot be read) its name and error."""

    name: str
    url: NotRequired[str]
    saved_at: NotRequired[float | None]
    cookies: NotRequired[int]
    localStorage: NotRequired[int]
    sessionStorage: NotRequired[int]
    error: NotRequired[str]


class States(TypedDict):
    states: list[Listed]


def _where(url: str) -> str:
    """Where a state came from, as answers show it: without the query or fragment (they may hold tokens)."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}{parts.path}" if parts.scheme and parts.netloc else url.split("?")[0]


def _counts(state: dict[str, Any]) -> Counts:
    return {
        "cookies": len(state.get("cookies") or []),
        "localStorage": len(state.get("localStorage") or {}),
        "sessionStorage": len(state.get("sessionStorage") or {}),
    }


def summary(name: str, state: dict[str, Any]) -> StateSummary:
    """What an answer may say of a state: never a value."""
    where = _where(str(state.get("url") or ""))
    return {"name": name, "url": where, "saved_at": state.get("saved_at"), **_counts(state)}


async def _missing(ctx: CommandContext, name: str) -> TabpilotError:
    names = await asyncio.to_thread(_store(ctx).names)
    known = f"; saved: {', '.join(names[:20])}" if names else "; none is saved yet"
    return TabpilotError("invalid_params", f"No state is saved as {shown(name)}{known}.", param="name", name=name)


async def _save_state(ctx: CommandContext, a: SaveStateArgs) -> Saved:
    name = _name(a.name)
    store = _store(ctx)
    taken = await ctx.browser_request("state.save", {"tab_id": a.tab_id})
    state = {
        "format": FORMAT,
        "url": str(taken.get("url") or ""),
        "saved_at": round(ctx.engine.clock.time(), 3),
        "cookies": list(taken.get("cookies") or []),
        "localStorage": dict(taken.get("localStorage") or {}),
        "sessionStorage": dict(taken.get("sessionStorage") or {}),
    }
    await asyncio.to_thread(store.save, name, state)
    return {"saved": True, **summary(name, state)}


async def _load_state(ctx: CommandContext, a: LoadStateArgs) -> Loaded:
    name = _name(a.name)
    state = await asyncio.to_thread(_store(ctx).load, name)
    if state is None:
        raise await _missing(ctx, name)
    wire = {k: state.get(k) for k in ("url", "cookies", "localStorage", "sessionStorage")}
    answer = await ctx.browser_request(
        "state.load",
        {"state": wire, "navigate": a.navigate, "timeout_ms": a.timeout_ms, "tab_id": a.tab_id},
        timeout_s=a.timeout_ms / 1000 + TIMEOUT_MARGIN_S,
    )
    restored = answer.get("restored")
    # The browser's counts, else the state's own (Counts: Restored less the optional cookies_refused).
    return {
        "loaded": True,
        "name": name,
        "restored": results.relayed(Restored, restored if isinstance(restored, dict) else _counts(state)),
        "url": _where(str(answer.get("url") or "")),
        "title": answer.get("title", ""),
    }


async def _delete_state(ctx: CommandContext, a: StateNameArgs) -> StateDeleted:
    name = _name(a.name)
    if not await asyncio.to_thread(_store(ctx).delete, name):
        raise await _missing(ctx, name)
    return {"deleted": True, "name": name}


async def _list_states(ctx: CommandContext, a: Args) -> States:
    store = _store(ctx)

    def read_all() -> list[Listed]:
        found: list[Listed] = []
        for name in store.names():
            state = store.load(name)
            # A summary is a Listed with every field there (mypy cannot see that NotRequired allows it).
            item = cast("Listed", summary(name, state)) if state is not None else None
            found.append(item or {"name": name, "error": "unreadable"})
        return found

    return {"states": await asyncio.to_thread(read_all)}


COUNTS_EXAMPLE = {"cookies": 3, "localStorage": 2, "sessionStorage": 1}
_GATE: dict[str, Any] = {"pilot_gated": True, "capability": "state_snapshots"}

COMMANDS: list[Command[Any]] = [
    Command(
        "configure",
        "save_state",
        "config",
        "save cookies + local/sessionStorage + URL (encrypted)",
        _save_state,
        SaveStateArgs,
        returns=Saved,
        notes="Every cookie the page would send (HttpOnly included), the origin's localStorage and sessionStorage, "
        "and the URL; encrypted on disk with a key in the OS keyring. Answers give counts, never values; the "
        "URL is shown without its query. Saving under an existing name replaces it.",
        example={"name": "logged-in"},
        example_result={
            "saved": True,
            "name": "logged-in",
            "url": "https://example.com/account",
            "saved_at": 1767225600.0,
            **COUNTS_EXAMPLE,
        },
        ops=("state.save",),
        **_GATE,
        cli=Cli("save-state", positional=("name",)),
    ),
    Command(
        "configure",
        "load_state",
        "mutate",
        "clear, then restore a saved state; navigate:true loads its URL",
        _load_state,
        LoadStateArgs,
        returns=Loaded,
        notes="Clears the saved site's cookies and the page's storages, restores the saved ones, then loads the "
        "saved URL (navigate:false: stays, and the tab must already show the saved origin). Changes the page: "
        "asked for like any page-changing step.",
        example={"name": "logged-in"},
        example_result={
            "loaded": True,
            "name": "logged-in",
            "restored": COUNTS_EXAMPLE,
            "url": "https://example.com/account",
            "title": "Your account",
        },
        ops=("state.load",),
        # Its own class: it rewrites a site's cookies and storage, so neither a rule for clicks nor one for
        # JavaScript covers it, and a rule for it covers nothing else.
        approval="state",
        **_GATE,
        cli=Cli("load-state", positional=("name",)),
    ),
    Command(
        "configure",
        "delete_state",
        "config",
        "delete a saved state",
        _delete_state,
        StateNameArgs,
        returns=StateDeleted,
        example={"name": "logged-in"},
        example_result={"deleted": True, "name": "logged-in"},
        **_GATE,
        cli=Cli("delete-state", positional=("name",)),
    ),
    Command(
        "configure",
        "list_states",
        "read",  # lists what is saved and changes nothing, as list_routes and export_workflow are
        "saved states (counts, never values)",
        _list_states,
        returns=States,
        example_result={
            "states": [
                {
                    "name": "logged-in",
                    "url": "https://example.com/account",
                    "saved_at": 1767225600.0,
                    **COUNTS_EXAMPLE,
                }
            ]
        },
        **_GATE,
        cli=Cli("states"),
    ),
]
