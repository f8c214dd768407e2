"""Each agent its own tabs: which agent session owns which tab, and which tab a call goes to.

An agent session (one MCP session, or a CLI identity) owns the tabs it opened with `new_tab`, those its
tabs' pages opened (a target=_blank link, window.open) and those the person handed to it (popup or
tray). The rule, in one place (`check`):

- acting (navigate, click, close, ...) on another session's tab is refused with `tab_not_owned`;
- reading a tab that names its `tab_id` works on any tab (a read never changes a page; the issue's rule
  is about acting), so `observe tabs` and reads across tabs see everything;
- a call that names no tab goes to the session's current tab (the last it opened, switched to or was
  given), else the tab the extension picks (the tracked tab, else the one in front) — unless that one
  is another session's: then it is refused, read or act, and the message says how to get a tab;
- tabs nobody owns (the person's) stay open to every agent, as before, under the approval policy.

The extension stays the source of truth for which tabs exist: a closed tab's `tab_closed` event (and any
`tabs.list`) releases it. Ownership lives in the app's memory: a restart, or the session ending, gives
the tabs back to the person.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from tabpilot.engine.errors import TabpilotError
from tabpilot.observers import Observers

PERSON = "person"
"""The session key of calls a person starts (the tray). Only `PERSON_SESSION` is the person: an agent whose
client names itself "person" gets a Session with `person` False, an agent like any other."""


@dataclass(frozen=True)
class Session:
    """Who is calling: a key unique to one agent session, and the name its client reported."""

    key: str
    name: str
    person: bool = False
    """Set only by the channel a person uses (the tray, the popup), never from a name a client sends."""

    @property
    def label(self) -> str:
        """How the person and other agents see it: `claude-code 1.0 (mcp-2)`."""
        return self.key if self.name in ("", self.key) else f"{self.name} ({self.key})"


PERSON_SESSION = Session(PERSON, "you", person=True)


@dataclass
class _Held:
    owned: list[int] = field(default_factory=list)
    """Oldest first."""
    current: int | None = None


class TabOwners:
    def __init__(self) -> None:
        self._owner: dict[int, Session] = {}
        self._held: dict[str, _Held] = {}
        self._sessions: dict[str, Session] = {}
        self._changed: Observers[[]] = Observers("tab owners")

    # -- who is around ---------------------------------------------------------------------------

    def seen(self, session: Session) -> None:
        """A call from `session`: it is one the person can hand a tab to."""
        if session.person:
            return
        known = self._sessions.get(session.key)
        if known != session:
            self._sessions[session.key] = session
            if known is None or known.name != session.name:
                self._notify()

    def ended(self, key: str) -> None:
        """The session went away (its MCP connection closed): its tabs are the person's again."""
        held = self._held.pop(key, None)
        gone = self._sessions.pop(key, None)
        for tab_id in held.owned if held else []:
            self._owner.pop(tab_id, None)
        if held or gone:
            self._notify()

    def sessions(self) -> list[Session]:
        return list(self._sessions.values())

    def session(self, key: str) -> Session | None:
        return self._sessions.get(key)

    # -- owning ----------------------------------------------------------------------------------

    def claim(self, tab_id: int, session: Session) -> None:
        """`session` owns `tab_id` from now on (it opened it, or the person handed it over)."""
        self.release(tab_id, notify=False)
        self._owner[tab_id] = session
        held = self._held.setdefault(session.key, _Held())
        held.owned.append(tab_id)
        held.current = tab_id
        self._sessions.setdefault(session.key, session)
        self._notify()

    def release(self, tab_id: int, *, notify: bool = True) -> Session | None:
        """Nobody owns `tab_id` now (closed, or the person took it back); returns who did."""
        owner = self._owner.pop(tab_id, None)
        for held in self._held.values():
            if tab_id in held.owned:
                held.owned.remove(tab_id)
            if held.current == tab_id:
                held.current = held.owned[-1] if held.owned else None
        if owner is not None and notify:
            self._notify()
        return owner

    def closed(self, tab_id: int) -> None:
        """The extension says the tab is gone."""
        self.release(tab_id)

    def existing(self, tab_ids: Iterable[int]) -> None:
        """Every tab the browsers have now: owners of tabs missing from it are forgotten."""
        alive = set(tab_ids)
        for tab_id in [t for t in self._owner if t not in alive]:
            self.release(tab_id)

    def owner(self, tab_id: int) -> Session | None:
        return self._owner.get(tab_id)

    def owned(self) -> dict[int, Session]:
        return dict(self._owner)

    def switched(self, key: str, tab_id: int) -> None:
        """`switch_tab`: the session's calls that name no tab go to `tab_id` from now on."""
        self._held.setdefault(key, _Held()).current = tab_id

    def current(self, key: str) -> int | None:
        held = self._held.get(key)
        return held.current if held else None

    def others_own_tabs(self, key: str) -> bool:
        return any(s.key != key for s in self._owner.values())

    # -- the rule --------------------------------------------------------------------------------

    def check(self, session: Session, tab_id: int, *, acting: bool, named: bool) -> None:
        """Raise tab_not_owned when `session` may not use `tab_id` (see the module's rule)."""
        owner = self._owner.get(tab_id)
        if session.person or owner is None or owner.key == session.key:
            return
        if named and not acting:
            return
        how = (
            "Open your own tab with interact {action:'new_tab', url}, or ask the person to hand you this one "
            "(the Tabpilot popup or tray)."
        )
        if named:
            message = f"Tab {tab_id} belongs to another agent, {owner.label}; you may read it but not act on it. {how}"
        else:
            message = (
                f"The tab your call would go to (tab {tab_id}, the tracked or front tab) belongs to another "
                f"agent, {owner.label}. {how} To read it anyway, pass its tab_id."
            )
        raise TabpilotError("tab_not_owned", message, tab_id=tab_id, owner=owner.label)

    def hand(self, tab_id: int, key: str | None) -> Session | None:
        """The person hands `tab_id` to the session `key` (None: takes it back). Returns the new owner;
        an unknown session changes nothing (it may have just ended)."""
        if key is None:
            self.release(tab_id)
            return None
        session = self._sessions.get(key)
        if session is None:
            return None
        self.claim(tab_id, session)
        return session

    def on_browser_event(self, name: str, data: dict[str, Any]) -> None:
        """The extension's word: a tab closed, a page opened one, or the person handed a tab over in the popup."""
        tab_id = data.get("tab_id")
        if not isinstance(tab_id, int) or isinstance(tab_id, bool):
            return
        if name == "tab_closed":
            self.closed(tab_id)
        elif name == "tab_opened":
            # A page opened it (a target=_blank link, window.open): it is the opener's owner's, and where
            # that agent's calls go next, as the browser put it in front.
            opener = data.get("opener_tab_id")
            owner = self._owner.get(opener) if isinstance(opener, int) else None
            if owner is not None:
                self.claim(tab_id, owner)
        elif name == "hand_tab":
            to = data.get("to")
            self.hand(tab_id, to if isinstance(to, str) and to else None)

    def view(self) -> dict[str, Any]:
        """For the popup and the tray: the agents one can hand a tab to, and who owns which tab."""
        return {
            "agents": [{"session": s.key, "label": s.label} for s in self._sessions.values()],
            "owners": [{"tab_id": t, "session": s.key, "label": s.label} for t, s in self._owner.items()],
        }

    def subscribe(self, listener: Callable[[], None]) -> Callable[[], None]:
        """`listener()` when a tab changes hands or an agent session comes or goes."""
        return self._changed.subscribe(listener)

    def _notify(self) -> None:
        self._changed.notify()
