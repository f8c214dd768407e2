"""BrowserPort over the extensions' WebSockets: requests matched to futures by id, routed by tab.

Several browsers may be connected at once (the managed browser and the person's own, say). Tab ids are
each browser's own small numbers, so the link gives each browser a slot and shows the engine tab ids
that name both: `slot * SLOT_SPAN + the browser's tab id` (the first browser's ids stay as they are). A
command that names a tab goes to that tab's browser; one that names none goes to the default browser:
the one whose tab was tracked last, else the person's own browser (the newest that is not managed), else
the managed one. `tabs.list` asks every browser and says which browser each tab is in.
"""

from __future__ import annotations

import asyncio
import inspect
import itertools
import logging
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from tabpilot import trace
from tabpilot.bridge.protocol import OPS, CommandMsg, Hello, encode
from tabpilot.engine.errors import TabpilotError, coerce_code, new_log_ref
from tabpilot.observers import Observers

OLDER_EXTENSION = re.compile(r"does not know the operation|: unknown parameter '")
"""What an extension older than the app says of what the app asks (the app checked the request already)."""
OLDER_EXTENSION_HINT = (
    "This browser's Tabpilot extension is older than the app: reload it (chrome://extensions → Tabpilot → "
    "reload), or restart Tabpilot for the browser it manages."
)

log = logging.getLogger("tabpilot.bridge")

SLOT_SPAN = 2**31
"""Chrome's tab ids are positive 32-bit integers."""
EventHandler = Callable[[str, dict[str, Any]], None]
"""Told of an event a browser sent: its name and data (with the app's tab ids)."""
MAX_BROWSERS = 4
"""Browsers connected at once; one more is refused `busy` (its reason says which are connected)."""


HEALTH_PROBE_OP = "tabs.list"
"""The health probe: cheap, and answered by the service worker alone (Chrome's tabs API, no page), so a
missing answer means the worker itself is stuck (issue 18: a backtracking pattern froze it for minutes
while the link still said connected), not a slow page."""
HEALTH_EVERY_S = 10.0
HEALTH_ANSWER_S = 5.0
HEALTH_GIVE_UP = 3
"""Probes unanswered in a row after which the link gives up on that socket: its waiting calls fail now
(instead of each waiting out its own timeout) and the socket is closed, so the extension connects afresh
once its worker runs again (Chrome ends a worker stuck on one task)."""

EVERY_BROWSER: dict[str, tuple[str, ...]] = {"tabs.list": ("tabs",), "dialogs.list": ("open", "armed", "recent")}
"""Operations that, naming no tab, ask every connected browser: the lists of their answers are joined."""


class Socket(Protocol):
    async def send_str(self, data: str) -> None: ...

    async def close(self, *, code: int = ..., message: bytes = ...) -> bool: ...


LinkListener = Callable[[bool], None]


@dataclass
class _Browser:
    socket: Socket
    hello: Hello
    slot: int
    order: int
    page: dict[str, Any] = field(default_factory=dict)
    unanswered: int = 0
    """Health probes unanswered in a row (0: it answered the last one)."""
    unanswered_since: float | None = None
    """When the first of those was sent (loop time)."""

    @property
    def managed(self) -> bool:
        return self.hello.get("auth") == "managed"


def _default_label(hello: Hello) -> str:
    if hello.get("auth") == "managed":
        return "managed browser"
    return str(hello["browser"].get("name") or "browser")


class ExtensionLink:
    """The app's live connections to browsers' extensions (none, one or several)."""

    def __init__(self, max_browsers: int = MAX_BROWSERS) -> None:
        self.max_browsers = max_browsers
        self._browsers: dict[int, _Browser] = {}
        self._slots: dict[str, int] = {}
        """instance_id → slot, for the app's life: a browser that reconnects keeps its tab ids."""
        self._tracked_slot: int | None = None
        self._pending: dict[str, tuple[asyncio.Future[dict[str, Any]], int]] = {}
        self._marks: dict[str, list[object]] = {}
        """The extension's hop marks of traced requests, by request id (TABPILOT_TRACE)."""
        self._ids = itertools.count(1)
        self._order = itertools.count(1)
        self._connection: Observers[[bool]] = Observers("browser connection")
        self._event_handlers: Observers[[str, dict[str, Any]]] = Observers("browser event")
        """The app's parts that follow the extension's events (capture, tab owners, hand-offs, the engine's
        tab lookups). Plain calls, not awaited: each files what it heard and returns at once, so one that
        fails is logged and the others still hear of the event (a broken capture store must not keep a
        closed tab from being forgotten)."""
        self._last_page: dict[str, Any] = {}
        self.connects = 0
        """How many times an extension has connected since the app started (reconnects show here)."""
        self.label: Callable[[Hello], str] = _default_label
        """What `tabs.list` calls a browser (the app names paired browsers as the person does)."""

    # -- BrowserPort ---------------------------------------------------------------------------

    @property
    def connected(self) -> bool:
        return bool(self._browsers)

    @property
    def page(self) -> dict[str, Any]:
        """The latest tab a browser reported (url, title) — shown in approval prompts."""
        return self._last_page

    def info(self) -> dict[str, Any]:
        """The default browser (where commands that name no tab go), and how many are connected."""
        browser = self._default()
        if browser is None:
            return {}
        hello = browser.hello
        return {
            **hello["browser"],
            "extension_version": hello["extension_version"],
            "extension_id": hello["extension_id"],
            "instance_id": hello["instance_id"],
            "managed": browser.managed,
            "active_url": browser.page.get("url"),
            **({"browsers_connected": len(self._browsers)} if len(self._browsers) > 1 else {}),
            **self._health(browser),
        }

    def _health(self, browser: _Browser) -> dict[str, Any]:
        """`responding`: whether the extension answered its last health probe; when not, for how long."""
        if browser.unanswered_since is None:
            return {"responding": True}
        since = asyncio.get_running_loop().time() - browser.unanswered_since
        return {"responding": False, "unanswered_s": round(since, 1)}

    async def probe(self) -> None:
        """Ask each connected browser the health probe at once; give up on one that keeps not answering."""
        await asyncio.gather(*(self._probe(b) for b in list(self._browsers.values())))

    async def _probe(self, browser: _Browser) -> None:
        sent = asyncio.get_running_loop().time()
        try:
            await self._ask(browser, HEALTH_PROBE_OP, {}, HEALTH_ANSWER_S)
        except TabpilotError as err:
            if err.code != "timeout":  # any answer, even an error, is the worker answering
                browser.unanswered, browser.unanswered_since = 0, None
                return
        else:
            browser.unanswered, browser.unanswered_since = 0, None
            return
        if self._browsers.get(browser.slot) is not browser:
            return  # it went away meanwhile
        browser.unanswered += 1
        if browser.unanswered_since is None:
            browser.unanswered_since = sent
            log.warning("the browser extension did not answer a health probe within %g s", HEALTH_ANSWER_S)
            self._notify(self.connected)
        if browser.unanswered >= HEALTH_GIVE_UP:
            log.warning("the browser extension stopped answering: closing its connection so it reconnects")
            self._fail_pending(
                f"The browser extension stopped answering ({browser.unanswered} health checks in a row); "
                "its connection was reset and it reconnects once it answers again.",
                browser.slot,
            )
            self.detach(browser.socket)
            await browser.socket.close(code=4002, message=b"unresponsive")

    async def watch_health(self, every_s: float = HEALTH_EVERY_S) -> None:
        """Probe the connected browsers every `every_s` seconds, for the app's life."""
        while True:
            await asyncio.sleep(every_s)
            await self.probe()

    async def request(self, op: str, params: Mapping[str, Any], *, timeout_s: float) -> dict[str, Any]:
        if op not in OPS:
            raise ValueError(f"op {op!r} is not in the bridge protocol")
        if not self._browsers:
            raise TabpilotError("extension_not_connected", "The browser extension is not connected.")
        tab_id = params.get("tab_id")
        if op in EVERY_BROWSER and not isinstance(tab_id, int):
            return await self._list_every_browser(op, params, timeout_s)
        if op == "tabs.track" and params.get("clear") and not isinstance(tab_id, int):
            for other in list(self._browsers.values())[:-1]:
                await self._ask(other, op, params, timeout_s)  # no tab is tracked anywhere now
            self._tracked_slot = None
            return await self._ask(list(self._browsers.values())[-1], op, params, timeout_s)
        if isinstance(tab_id, int) and not isinstance(tab_id, bool):
            slot, local = divmod(tab_id, SLOT_SPAN)
            browser = self._browsers.get(slot)
            if browser is None:
                raise TabpilotError(
                    "tab_closed", f"Tab {tab_id} is in a browser that is not connected now.", tab_id=tab_id
                )
            params = {**params, "tab_id": local}
        else:
            browser = self._default()
            assert browser is not None
        result = await self._ask(browser, op, params, timeout_s)
        if op == "tabs.track":
            self._tracked_slot = None if params.get("clear") else browser.slot
        return result

    async def _list_every_browser(self, op: str, params: Mapping[str, Any], timeout_s: float) -> dict[str, Any]:
        """Every browser's answer in one: their lists joined (each entry saying its browser), the rest from
        the first browser that answered."""
        browsers = sorted(self._browsers.values(), key=lambda b: b.slot)
        answers = await asyncio.gather(*(self._ask(b, op, params, timeout_s) for b in browsers), return_exceptions=True)
        joined: dict[str, Any] = {key: [] for key in EVERY_BROWSER[op]}
        failures = []
        for browser, answer in zip(browsers, answers, strict=True):
            if isinstance(answer, BaseException):
                failures.append(answer)
                continue
            for key, value in answer.items():
                if key not in EVERY_BROWSER[op]:
                    joined.setdefault(key, value)
                    continue
                for entry in value if isinstance(value, list) else []:
                    if isinstance(entry, dict):
                        joined[key].append({**entry, "browser": self.label(browser.hello)})
        if failures and len(failures) == len(browsers):
            raise failures[0]
        return joined

    async def _ask(self, browser: _Browser, op: str, params: Mapping[str, Any], timeout_s: float) -> dict[str, Any]:
        msg_id = f"m{next(self._ids)}"
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._pending[msg_id] = (future, browser.slot)
        msg: CommandMsg = {
            "type": "command",
            "id": msg_id,
            "op": op,
            "params": dict(params),
            "timeout_ms": int(timeout_s * 1000),
        }
        if trace.active():
            msg["trace"] = True
            trace.mark("bridge_send")
        try:
            await browser.socket.send_str(encode(msg))
            result = await asyncio.wait_for(future, timeout_s)
            if msg.get("trace"):
                trace.extend(self._marks.pop(msg_id, None))
            return result
        except TimeoutError as exc:
            raise TabpilotError("timeout", f"The browser did not answer '{op}' within {timeout_s:g} s.", op=op) from exc
        except ConnectionError as exc:
            raise TabpilotError("extension_not_connected", "The connection to the browser extension was lost.") from exc
        finally:
            self._pending.pop(msg_id, None)

    def _default(self) -> _Browser | None:
        if self._tracked_slot in self._browsers:
            return self._browsers[self._tracked_slot]
        if not self._browsers:
            return None
        own = [b for b in self._browsers.values() if not b.managed]
        return max(own or self._browsers.values(), key=lambda b: b.order)

    # -- driven by the server -------------------------------------------------------------------

    @property
    def hello(self) -> Hello | None:
        """The default browser's hello (None when no browser is connected)."""
        browser = self._default()
        return browser.hello if browser is not None else None

    def hellos(self) -> list[Hello]:
        """Every connected browser's hello, oldest connection first."""
        return [b.hello for b in sorted(self._browsers.values(), key=lambda b: b.order)]

    def full(self) -> bool:
        """As many browsers are connected as the app takes: another one must wait for one to go."""
        return len(self._browsers) >= self.max_browsers

    def has_room(self, hello: Hello) -> bool:
        """Whether `hello`'s browser may connect now: it is connected already (a reconnect), or there is room."""
        return self._slot_of(hello["instance_id"]) in self._browsers or len(self._browsers) < self.max_browsers

    def _slot_of(self, instance_id: str) -> int:
        slot = self._slots.get(instance_id)
        if slot is None:
            slot = self._slots[instance_id] = len(self._slots)
        return slot

    def attach(self, socket: Socket, hello: Hello) -> Socket | None:
        """Add `socket` as its browser's live link; returns the socket of that same browser it replaces (a
        reconnect), which the caller closes."""
        slot = self._slot_of(hello["instance_id"])
        previous = self._browsers.get(slot)
        if previous is not None:
            self._fail_pending("The browser extension reconnected; the request was lost.", slot)
        self._browsers[slot] = _Browser(socket, hello, slot, next(self._order))
        self.connects += 1
        log.info(
            "extension connected: %s %s (extension %s)",
            hello["browser"].get("name", "browser"),
            hello["browser"].get("version", ""),
            hello["extension_version"],
        )
        self._notify(True)
        return previous.socket if previous is not None else None

    def detach(self, socket: Socket) -> None:
        browser = self._by_socket(socket)
        if browser is None:
            return
        del self._browsers[browser.slot]
        if self._tracked_slot == browser.slot:
            self._tracked_slot = None
        self._fail_pending("The browser extension disconnected.", browser.slot)
        log.info("extension disconnected")
        self._notify(self.connected)

    async def close(self, reason: str) -> None:
        """Cut every browser off (the app goes away)."""
        for browser in list(self._browsers.values()):
            await browser.socket.close(code=4001, message=reason.encode())

    async def close_pairing(self, pair_id: str, reason: str) -> None:
        """Cut off the browser connected with that pairing, if one is."""
        for browser in list(self._browsers.values()):
            if browser.hello.get("pair_id") == pair_id:
                await browser.socket.close(code=4001, message=reason.encode())

    def _fail_pending(self, message: str, slot: int) -> None:
        for msg_id, (future, where) in list(self._pending.items()):
            if where == slot:
                if not future.done():
                    future.set_exception(TabpilotError("extension_not_connected", message))
                del self._pending[msg_id]

    def _by_socket(self, socket: Socket) -> _Browser | None:
        return next((b for b in self._browsers.values() if b.socket is socket), None)

    def is_current(self, socket: Socket) -> bool:
        return self._by_socket(socket) is not None

    async def send(self, msg: Mapping[str, Any]) -> None:
        """To every connected browser (the pilot state, say)."""
        text = encode(msg)
        for browser in list(self._browsers.values()):
            try:
                await browser.socket.send_str(text)
            except ConnectionError:
                log.debug("send on a closing socket dropped")

    def resolve(self, msg: Mapping[str, Any]) -> None:
        entry = self._pending.get(msg["id"])
        if entry is None or entry[0].done():
            log.debug("result for unknown or finished request %s", msg["id"])
            return
        future, slot = entry
        if trace.enabled and isinstance(msg.get("trace"), list):
            # Read here, in the socket's task; the call's own task adds them to its marks.
            self._marks[msg["id"]] = [*msg["trace"], ["bridge_recv", trace.now_ms()]]
        if msg["ok"]:
            future.set_result(_global_tabs(msg.get("data") or {}, slot))
        else:
            err = msg["error"]
            details = err.get("details") if isinstance(err.get("details"), dict) else {}
            # The envelope's own keys cannot be overridden from the wire (nor clash with the arguments).
            details = {k: v for k, v in _global_tabs(details, slot).items() if k not in ("code", "message", "error")}
            message = str(err.get("message") or "browser error")
            if OLDER_EXTENSION.search(message):
                message = f"{message} {OLDER_EXTENSION_HINT}"
            code = coerce_code(err.get("code"))
            if code == "internal" and not isinstance(details.get("log_ref"), str):
                # The contract: `internal` always carries a log reference. The extension's own failures
                # (a Chrome API refusing, a bug) come without one: the app logs them under a fresh one.
                ref = details["log_ref"] = new_log_ref()
                log.warning("extension error [%s]: %s", ref, message)
                message = f"{message} (see its log under {ref})"
            future.set_exception(TabpilotError(code, message, **details))

    async def handle_event(self, name: str, data: dict[str, Any], socket: Socket | None = None) -> None:
        browser = self._by_socket(socket) if socket is not None else self._default()
        if browser is not None:
            data = _global_tabs(data, browser.slot)
        if name == "page":
            self._last_page = data
            if browser is not None:
                browser.page = data
        self._event_handlers.notify(name, data)

    def on_event(self, handler: EventHandler) -> Callable[[], None]:
        """`handler(name, data)` for every event a browser sends; returns the call that stops it."""
        if inspect.iscoroutinefunction(handler):
            # Its coroutine would be made and never awaited: the event silently lost.
            raise TypeError("an event handler is a plain function; start a task from it for async work")
        return self._event_handlers.subscribe(handler)

    def subscribe(self, listener: LinkListener) -> Callable[[], None]:
        """`listener(connected)` whenever a browser connects or leaves; returns the call that stops it."""
        return self._connection.subscribe(listener)

    def _notify(self, connected: bool) -> None:
        self._connection.notify(connected)


def _global_tabs(data: dict[str, Any], slot: int) -> dict[str, Any]:
    """`data` with every `…tab_id` a browser reported made the app-wide id of that browser's slot."""
    if slot == 0:
        return data
    return {key: _global_value(key, value, slot) for key, value in data.items()}


def _global_value(key: str, value: Any, slot: int) -> Any:
    if key.endswith("tab_id") and isinstance(value, int) and not isinstance(value, bool) and 0 <= value < SLOT_SPAN:
        return slot * SLOT_SPAN + value
    if isinstance(value, dict):
        return _global_tabs(value, slot)
    if isinstance(value, list):
        return [_global_tabs(v, slot) if isinstance(v, dict) else v for v in value]
    return value
