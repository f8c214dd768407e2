"""The composition root: wires the engine to the bridge, the MCP endpoint, the keyring and the browser."""

from __future__ import annotations

import asyncio
import importlib
import logging
import os
import sys
import time
from dataclasses import asdict, dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from tabpilot import __version__, logsetup, memory
from tabpilot.agent.local_socket import LocalSocket
from tabpilot.app_facade import AppFacade
from tabpilot.bridge.app_auth import AppAuth
from tabpilot.bridge.link import ExtensionLink
from tabpilot.bridge.pairing import CODE_LIFETIME_S, PairingBook, PendingRequest, show_code
from tabpilot.bridge.protocol import Hello
from tabpilot.bridge.server import LOCAL_API, BridgeHooks, BridgeServer, answer_api
from tabpilot.browser.managed import ManagedBrowser
from tabpilot.engine.capture.capture import store_for
from tabpilot.engine.catalog import build_registry
from tabpilot.engine.core import Engine, EngineConfig
from tabpilot.engine.errors import TabpilotError, new_log_ref
from tabpilot.engine.events import DECIDER_TEXT, ActivityEvent
from tabpilot.engine.page.handoffs import handoff_book
from tabpilot.engine.ports import ApprovalPort
from tabpilot.engine.safety.policy import ApprovalPolicy
from tabpilot.engine.workflows.workflows import placeholders
from tabpilot.paths import Paths
from tabpilot.resources import extension_origin
from tabpilot.storage import statefile
from tabpilot.storage.lock import InstanceLock
from tabpilot.storage.run_records import DiskRunRecords
from tabpilot.storage.settings import Settings
from tabpilot.storage.state_store import EncryptedStates
from tabpilot.storage.workflow_store import DiskWorkflowStore
from tabpilot.vault.store import open_vault

if TYPE_CHECKING:
    from tabpilot.agent.server import McpEndpoint

log = logging.getLogger("tabpilot.app")


class AlreadyRunning(RuntimeError):
    def __init__(self, state: statefile.AppState | None) -> None:
        where = f" (pid {state.pid}, port {state.port})" if state else ""
        super().__init__(f"Tabpilot is already running for this home{where}.")
        self.state = state


@dataclass
class AppOptions:
    mode: Literal["tray", "serve"] = "serve"
    browser: Literal["managed", "none"] = "managed"
    headless: bool = False
    pilot: bool | None = None
    """None: the tray's remembered choice (in the keyring); True/False: this run only (serve --pilot)."""
    port: int | None = None
    auto_started: bool = False
    idle_exit_s: float | None = None


def _secrets_of(app: App) -> list[str]:
    """What no log line may show: the bridge token (also after a rotation), the managed browser's launch
    secret, the pairing codes open now, and the keyring secrets this run resolved."""
    values = [app.token, *app.engine.known_secrets.values()]
    if app.managed is not None and app.managed.nonce:
        values.append(app.managed.nonce)
    for code in app.pairings.open_codes():
        values += [code, show_code(code)]
    return values


class App:
    def __init__(self, paths: Paths, options: AppOptions, approvals: ApprovalPort) -> None:
        self.paths = paths
        self.options = options
        self.settings = Settings.load(paths.config_file)
        self.link = ExtensionLink()
        self.link.label = self.browser_label
        self.workflows = DiskWorkflowStore(paths.workflows_dir, paths.runs_dir)
        self.vault = open_vault(paths, options.mode)  # the OS keyring; serve without one: private files
        self.secrets = self.vault.secrets
        self.human_approvals = approvals
        self.policy = ApprovalPolicy(approvals, self.vault.rules())
        self.pairings = PairingBook(self.vault.pairings())
        self.engine = Engine(
            build_registry(),
            self.link,
            self.policy,
            config=EngineConfig(
                step_delay_ms=self.settings.step_delay_ms,
                redact_selectors=tuple(self.settings.redact_selectors),
                approval_wait_ms=self.settings.approval_wait_ms,
                tray_runs_saved_workflows=options.mode == "tray",
                uploads_dir=paths.uploads_dir,
                upload_folders=tuple(Path(f).expanduser() for f in self.settings.upload_folders),
                downloads_dir=paths.downloads_dir,
                artifacts_dir=paths.artifacts_dir,
                describe_elements=True,
            ),
            secrets=self.secrets,
            workflows=self.workflows,
            run_records=DiskRunRecords(paths.runs_dir),
            states=EncryptedStates(paths.states_dir, self.vault.state_key),
        )
        pilot = self.engine.pilot
        pilot.ai_web_pilot = bool(options.pilot)
        self._capabilities = self.vault.document("capabilities")
        self.capture = store_for(self.engine)  # the pages' console, errors, network, WebSockets
        self.link.on_event(self.capture.on_link_event)
        self.link.on_event(self.engine.tab_owners.on_browser_event)
        self.link.on_event(self.engine.on_browser_event)  # a tab moved: look it up again for approvals
        self.link.on_event(handoff_book(self.engine).on_link_event)  # Resume in the popup, a hand-off's tab closed
        self.token = ""
        self.bridge: BridgeServer | None = None
        self.mcp: McpEndpoint | None = None
        self.local_socket: LocalSocket | None = None
        self.managed: ManagedBrowser | None = None
        self.stopped = asyncio.Event()
        self._started_at = time.time()
        self._lock = InstanceLock(paths.lock_file)
        self._awaiting_link = False
        self._linked_pairs: set[str] = set()
        self._tasks: set[asyncio.Task[Any]] = set()
        logsetup.register_secret_source(self, _secrets_of)
        self.facade = AppFacade(self)
        """What the tray's windows may do (ui/ reaches the app through this alone)."""

    # -- lifecycle -------------------------------------------------------------------------------

    async def start(self) -> None:
        self.paths.ensure()
        if not self._lock.acquire():
            raise AlreadyRunning(statefile.read(self.paths.state_file))
        try:
            await self._start()
        except BaseException:
            await self.stop()
            raise

    async def _start(self) -> None:
        if not self.paths.config_file.exists():
            self.settings.save(self.paths.config_file)  # a fresh home shows its settings, for editing
        if self.options.browser == "managed":
            self._prepare_managed(self.options.headless).warm_up_soon()
        self.token = await asyncio.to_thread(self.vault.get_or_create_token)
        if self.options.pilot is None:
            self.engine.pilot.ai_web_pilot = await asyncio.to_thread(self.vault.remembered_pilot)
        remembered = await asyncio.to_thread(self._capabilities.read)
        if isinstance(remembered, dict):
            for name, on in remembered.items():
                if name in self.engine.pilot.capabilities and isinstance(on, bool):
                    self.engine.pilot.capabilities[name] = on
        hooks = BridgeHooks(
            api_call=self.api_call,
            api_chain=self.api_chain,
            status=self.status,
            stop=self.request_stop,
            auth=AppAuth(
                self.pairings,
                managed_nonce=lambda: self.managed.nonce if self.managed is not None else "",
                knocked=self.show_pairing_request,
                hint=self.pairing_hint,
                full=self.browsers_full,
            ),
            welcome_state=self._link_state,
            pair=self.offer_pairing_code,
            pairings=self.pairing_list,
            revoke_pairing=self.revoke_pairing,
        )
        self.bridge = BridgeServer(self.link, self.token, extension_origin(), hooks)
        port = self.options.port if self.options.port is not None else self.settings.port
        await self.bridge.start(port, fallback=self.options.port is None)
        self._spawn(self._trim_when_idle())  # memory a burst of calls freed goes back to the system
        self._spawn(self.link.watch_health())  # a stuck extension shows in status, and its link is reset
        self.link.subscribe(self.engine.set_browser_connected)
        self.link.subscribe(self._link_changed)
        self.engine.pilot.subscribe(lambda _p: self._spawn(self._push_state()))
        self.engine.tab_owners.subscribe(lambda: self._spawn(self._push_state()))
        self.engine.activity.subscribe(_log_finished)
        statefile.write(
            self.paths.state_file,
            statefile.AppState(
                pid=os.getpid(),
                port=self.bridge.port,
                mode=self.options.mode,
                auto_started=self.options.auto_started,
                version=__version__,
                started_at=self._started_at,
                secrets=self.vault.location,
            ),
        )
        log.info(
            "Tabpilot %s %s on 127.0.0.1:%d (home %s, pilot %s)",
            __version__,
            self.options.mode,
            self.bridge.port,
            self.paths.data_dir,
            "ON" if self.engine.pilot.ai_web_pilot else "off",
        )
        if self.options.browser == "managed":
            self._spawn(self.open_managed_browser())
        await asyncio.to_thread(self.workflows.watch)
        await self._start_mcp()
        if self.options.idle_exit_s:
            self._spawn(self._idle_watch(self.options.idle_exit_s))

    async def _start_mcp(self) -> None:
        """The MCP SDK takes a second to import: do it while the managed browser starts."""
        assert self.bridge is not None
        module = await asyncio.to_thread(importlib.import_module, "tabpilot.agent.server")
        self.mcp = module.McpEndpoint(self.engine)
        await self.mcp.start()
        self.bridge.serve_mcp(self.mcp.handle, self.mcp.handle_socket)
        hooks = self.bridge.hooks
        self.local_socket = LocalSocket(
            self.paths.local_socket, self.mcp.serve_stream, partial(answer_api, hooks), LOCAL_API
        )
        await self.local_socket.start()

    def _prepare_managed(self, headless: bool) -> ManagedBrowser:
        if self.managed is None:
            managed = ManagedBrowser(
                self.paths,
                headless=headless,
                executable=self.settings.browser_executable,
                relaunch=self.options.mode == "serve",
            )
            # Calls wait for a browser that is on its way (launching, or launched and not yet linked);
            # once a linked browser is lost they fail fast with extension_not_connected.
            managed.on_launch = lambda: setattr(self, "_awaiting_link", True)
            self.engine.browser_expected = lambda: managed.launching or self._awaiting_link
            self.managed = managed
        return self.managed

    async def open_managed_browser(self, headless: bool | None = None) -> None:
        assert self.bridge is not None
        managed = self._prepare_managed(self.options.headless)
        if headless is not None and not managed.running:
            managed.headless = headless
        managed.port = self.bridge.port
        try:
            await managed.start()
        except Exception as exc:
            self._awaiting_link = False
            ref = new_log_ref()
            log.exception("the managed browser could not start [%s]", ref)
            raise TabpilotError(
                "internal", f"The managed browser could not start: {exc} (log ref {ref}).", log_ref=ref
            ) from exc

    async def stop(self) -> None:
        if self.stopped.is_set():
            return
        log.info("stopping")
        me = asyncio.current_task()
        for task in list(self._tasks):
            if task is not me:
                task.cancel()
        await self.engine.close()
        if self.managed is not None:
            await self.managed.stop()
        if self.local_socket is not None:
            await self.local_socket.stop()
        if self.mcp is not None:
            await self.mcp.stop()
        if self.bridge is not None:
            await self.bridge.stop()
        self.workflows.close()
        await asyncio.to_thread(self.vault.flush)
        statefile.remove(self.paths.state_file, os.getpid())
        self._lock.release()
        self.stopped.set()

    def request_stop(self) -> None:
        self._spawn(self.stop())

    # -- what the bridge and the UI ask ---------------------------------------------------------------

    async def api_call(
        self, tool: str, arguments: dict[str, Any], agent: str, session: str | None = None
    ) -> dict[str, Any]:
        """A call over the HTTP API or the local socket (the CLI): its tabs belong to `agent` (one `cli` per
        user), or to `agent:session` when the caller names a session (`TABPILOT_SESSION`)."""
        key = _session_key(agent, session)
        try:
            return {"ok": True, "result": await self.engine.call(tool, arguments, agent=agent, session=key)}
        except TabpilotError as exc:
            return {"ok": False, "error": exc.envelope()}

    async def api_chain(self, body: Any, agent: str, session: str | None = None) -> dict[str, Any]:
        """`tabpilot chain`: its calls in order, each through the engine as if it came alone."""
        from tabpilot.engine.chain import parse_calls, run_chain

        try:
            calls = parse_calls(body)
        except TabpilotError as exc:
            return exc.envelope()
        return await run_chain(self.engine, calls, agent, _session_key(agent, session))

    def status(self) -> dict[str, Any]:
        assert self.bridge is not None
        managed = self.managed
        return {
            "app": "tabpilot",
            "version": __version__,
            "pid": os.getpid(),
            "port": self.bridge.port,
            "mode": self.options.mode,
            "home": str(self.paths.data_dir),
            "auto_started": self.options.auto_started,
            "ai_web_pilot": self.engine.pilot.ai_web_pilot,
            "extension_connected": self.link.connected,
            "extension_connects": self.link.connects,
            "browser": {k: v for k, v in self.link.info().items() if k != "active_url"},
            "managed_browser": "none"
            if managed is None
            else "launching"
            if managed.launching
            else "running"
            if managed.running
            else "stopped",
            "uptime_s": round(time.time() - self._started_at, 1),
            "idle_s": round(self.engine.clock.monotonic() - self.engine.last_call, 1),
        }

    def set_pilot(self, on: bool, *, remember: bool) -> None:
        """Only humans reach this: the tray toggle and `serve --pilot`."""
        self.engine.pilot.set_pilot(on)
        log.info("AI Web Pilot turned %s by the user", "ON" if on else "off")
        if remember:
            self.vault.remember_pilot(on)

    def capture_status(self) -> dict[str, Any]:
        """For the tray: the two capture toggles, and per tab what capture holds (entries per kind)."""
        caps = self.engine.pilot.capabilities
        return {
            "websockets": caps["capture_websockets"],
            "network_bodies": caps["capture_network_bodies"],
            "tabs": self.capture.status(),
        }

    def set_capability(self, name: str, on: bool) -> None:
        """A tray toggle (execute_js, page actions, scrape, state snapshots, capture); kept in the keyring."""
        self.engine.pilot.set_capability(name, on)
        self._capabilities.write(dict(self.engine.pilot.capabilities))
        log.info("capability %s turned %s by the user", name, "on" if on else "off")

    async def run_workflow(self, workflow_id: str, params: dict[str, str] | None = None) -> dict[str, Any]:
        """A saved workflow the person starts from the tray: no prompts (they are acting), domain lock kept."""
        args: dict[str, Any] = {"action": "scrape", "operation": "replay", "workflow_id": workflow_id}
        if params:
            args["params"] = params
        return await self.engine.call("interact", args, agent="you (tray)", approved=True)

    def secret_usage(self) -> dict[str, list[str]]:
        """Which saved workflows refer to each secret name."""
        usage: dict[str, list[str]] = {}
        for entry in self.workflows.entries():
            if entry.workflow is not None:
                for name in sorted(placeholders(entry.workflow.steps)[1]):
                    usage.setdefault(name, []).append(entry.workflow_id)
        return usage

    def apply_settings(self, settings: Settings) -> list[str]:
        """Save new settings and use what can change at once; returns the ones that need a restart."""
        before = self.settings
        settings.bound()  # the same ranges as a loaded file
        settings.save(self.paths.config_file)
        self.settings = settings
        self.engine.config.step_delay_ms = settings.step_delay_ms
        self.engine.config.redact_selectors = tuple(settings.redact_selectors)
        self.engine.config.upload_folders = tuple(Path(f).expanduser() for f in settings.upload_folders)
        self.engine.config.approval_wait_ms = self.engine.approval_wait_ms = settings.approval_wait_ms
        if before.dialog_state() != settings.dialog_state():
            self._spawn(self._push_state())  # the extension applies the dialog policy
        restart = [
            name
            for name in ("port", "browser_executable", "managed_headless")
            if getattr(before, name) != getattr(settings, name)
        ]
        log.info("settings changed%s", f" (after a restart: {', '.join(restart)})" if restart else "")
        return restart

    def rotate_token(self) -> None:
        """A new bridge token: clients holding the old one (tabpilot mcp sessions) must reconnect."""
        self.token = self.vault.rotate_token()
        if self.bridge is not None:
            self.bridge.set_token(self.token)
        log.warning("the bridge token was rotated; running `tabpilot mcp` sessions must restart")

    async def crop(self, tab_id: int | None, selector: str | None) -> dict[str, Any] | None:
        """A picture of the element an approval is about (no change to the page); None when unavailable."""
        if not self.link.connected or not selector:
            return None
        try:
            return await self.link.request("tab.crop", {"tab_id": tab_id, "selector": selector}, timeout_s=5)
        except TabpilotError:
            return None

    def offer_pairing(self) -> PendingRequest:
        """A one-time code a person types into the extension's popup to pair their browser."""
        pending = self.pairings.offer()
        log.info("pairing code offered (valid %d minutes)", CODE_LIFETIME_S // 60)
        return pending

    def offer_pairing_code(self) -> dict[str, Any]:
        """offer_pairing, as `tabpilot pair` shows it."""
        return {"code": show_code(self.offer_pairing().code), "expires_in_s": CODE_LIFETIME_S}

    def pairing_list(self) -> list[dict[str, Any]]:
        """The paired browsers as `tabpilot pairings` shows them: every field but the key."""
        return [{k: v for k, v in asdict(p).items() if k != "key"} for p in self.pairings.paired()]

    def show_pairing_request(self, pending: PendingRequest) -> None:
        """An unpaired browser knocked: its code goes to the person only — the tray's pairing window
        (ui/pairing.py watches the book), or the terminal of a `serve` a person started — and never to the
        log, which any program of the user's can read."""
        browser = pending.browser
        about = f"{browser.get('name') or 'browser'} {browser.get('version') or ''}".strip()
        if browser.get("os"):
            about += f" on {browser['os']}"
        on_terminal = self.options.mode == "serve" and not self.options.auto_started
        if on_terminal:
            where = "the terminal running `tabpilot serve` shows its pairing code"
        elif self.options.mode == "tray":
            where = "the Tabpilot window “A browser wants to connect” shows its pairing code"
        else:
            where = "run `tabpilot pair` in a terminal for a pairing code to type into its popup"
        log.warning("A browser wants to connect (%s); %s.", about, where)
        if on_terminal:
            print(
                f"Tabpilot: a browser wants to connect ({about}). If it is yours, type {show_code(pending.code)} "
                f"into the Tabpilot extension's popup there within {CODE_LIFETIME_S // 60} minutes.",
                file=sys.stderr,
                flush=True,
            )

    def pairing_hint(self) -> str:
        """What a browser that is not paired yet should do (its popup shows this)."""
        if self.options.mode == "tray":
            how = "type the code that Tabpilot's window “A browser wants to connect” shows"
        elif not self.options.auto_started:
            how = "type the code that the terminal running `tabpilot serve` shows"
        else:
            how = "run `tabpilot pair` in a terminal and type the code it prints"
        return f"To pair this browser with Tabpilot, {how}."

    def browser_label(self, hello: Hello) -> str:
        """What the person calls a connected browser (`observe tabs` says it for each tab)."""
        if hello.get("auth") == "managed":
            return "managed browser"
        pairing = next((p for p in self.pairings.paired() if p.pair_id == hello.get("pair_id")), None)
        return pairing.label() if pairing else str(hello["browser"].get("name") or "browser")

    def browsers_full(self) -> str:
        """Why a browser cannot connect now (the app has all the browsers it takes), and what the person can do."""
        hellos = self.link.hellos()
        names = ", ".join(self.browser_label(h) for h in hellos)
        hows = []
        if any(h.get("auth") == "managed" for h in hellos):
            hows.append(
                "restart Tabpilot with `tabpilot serve --browser none`"
                if self.options.mode == "serve"
                else "close the managed browser's window"
            )
        if any(h.get("auth") != "managed" for h in hellos):
            hows.append("close a browser, or revoke it in Paired browsers")
        count = "one browser" if len(hellos) == 1 else f"{len(hellos)} browsers"
        return (
            f"Tabpilot has {count} connected ({names}), as many as it takes at once. "
            f"This browser connects by itself once one is gone: {' or '.join(hows)}."
        )

    def revoke_pairing(self, pair_id: str) -> bool:
        """Forget a paired browser; if it is connected, cut it off now."""
        revoked = self.pairings.revoke(pair_id)
        if revoked:
            self._spawn(self.link.close_pairing(pair_id, "revoked"))
        return revoked

    def _link_changed(self, connected: bool) -> None:
        if connected:
            self._awaiting_link = False
        # "Last seen" of a paired browser: when it connected, and when it left.
        now = {str(h.get("pair_id")) for h in self.link.hellos() if h.get("pair_id")}
        for pair_id in self._linked_pairs - now:
            self.pairings.seen(pair_id)
        self._linked_pairs = now

    def _link_state(self) -> dict[str, Any]:
        """What the extension's popup shows: the pilot, the agents one can hand a tab to, the dialog policy."""
        return {
            **self.engine.pilot.snapshot(),
            **self.engine.tab_owners.view(),
            "dialogs": self.settings.dialog_state(),
        }

    async def _push_state(self) -> None:
        await self.link.send({"type": "state", "state": self._link_state()})

    async def _idle_watch(self, idle_s: float) -> None:
        while True:
            if self.mcp is not None and self.mcp.open_sessions:
                self.engine.last_call = self.engine.clock.monotonic()  # a connected agent is not idle
            idle = self.engine.clock.monotonic() - self.engine.last_call
            if idle >= idle_s and not self.engine.jobs.running():
                log.info("no calls for %.0f minutes; stopping (started by `tabpilot mcp`)", idle / 60)
                self.request_stop()
                return
            await asyncio.sleep(max(1.0, min(60.0, idle_s - idle)))

    async def _trim_when_idle(self, quiet_s: float = 10.0) -> None:
        """Once the calls have stopped for `quiet_s`, give back what they freed (memory.py); once per burst."""
        trimmed_at: float | None = None
        while True:
            await asyncio.sleep(quiet_s)
            last = self.engine.last_call
            quiet = self.engine.clock.monotonic() - last >= quiet_s and not self.engine.jobs.running()
            if quiet and last != trimmed_at:
                trimmed_at = last
                await asyncio.to_thread(memory.give_back_freed)

    def _spawn(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._task_done)

    def _task_done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("background task failed: %s", task.exception())


def _log_finished(event: ActivityEvent) -> None:
    """One log line per finished command: who, what, how it ended. Parameters stay out of the log."""
    if event.phase == "finished":
        log.info(
            "%s %s.%s -> %s%s%s in %.0f ms [%s]",
            event.who,
            event.tool,
            event.mode,
            event.outcome,
            f" ({event.error})" if event.error else "",
            f", decided by {DECIDER_TEXT[event.decided_by]}" if event.decided_by not in (None, "not_needed") else "",
            event.duration_ms or 0,
            event.correlation_id,
        )


def _session_key(agent: str, session: str | None) -> str:
    """Whose tabs a shell's calls act on: one `cli` identity per user, or one per named session."""
    return f"{agent}:{session}" if session else agent
