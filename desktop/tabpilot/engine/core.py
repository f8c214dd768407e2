"""The engine: resolve a tool call to a command, gate it, ask for approval, run it as a job."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from tabpilot import trace
from tabpilot.engine.context import CommandContext
from tabpilot.engine.contract.commands import AnyCommand as Command
from tabpilot.engine.contract.commands import ApprovalScope, Registry
from tabpilot.engine.errors import TabpilotError, new_log_ref
from tabpilot.engine.events import ActivityEvent, ActivityStream, Decider, Outcome
from tabpilot.engine.jobs import Job, JobTable, ProgressCallback
from tabpilot.engine.ports import (
    ApprovalPort,
    ApprovalRequest,
    BrowserPort,
    Clock,
    DecidedBy,
    MemoryRunRecords,
    NoSecrets,
    RunRecordStore,
    SecretStore,
    StateStore,
    SystemClock,
    WorkflowStore,
)
from tabpilot.engine.safety import scrubbing
from tabpilot.engine.safety.pilot import PilotState
from tabpilot.engine.safety.policy import action_class, as_decision
from tabpilot.engine.safety.redact import redact_params, typed_param_names, without_file_contents
from tabpilot.engine.safety.sites import origin_of
from tabpilot.engine.safety.tab_locks import TabLocks
from tabpilot.engine.safety.tab_owners import PERSON, Session, TabOwners

log = logging.getLogger("tabpilot.engine")

DEFAULT_APPROVAL_WAIT_MS = 20_000
APPROVAL_REPLY_MARGIN_S = 0.1  # the answer still has to travel back to the agent's client
ANSWERED_AT_ONCE_S = 0.25
"""An approval answered this fast came from a rule or `--approve auto`, not from a person reading a
prompt: the tab cannot have moved on meanwhile, so it is not looked at again (a round trip saved)."""
TAB_MOVES = frozenset({"tab_updated", "page", "tab_opened", "tab_closed", "hand_tab"})
"""The extension's events after which a tab's address, or the tab a call would go to, may differ."""
DEFAULT_REDACT = ("input[type=password]", "[data-sensitive]", "[data-private]", ".sensitive")


@dataclass
class EngineConfig:
    step_delay_ms: int = 500
    """Rate limiting: the pause between workflow steps unless a request says otherwise."""
    redact_selectors: tuple[str, ...] = DEFAULT_REDACT
    approval_wait_ms: int = DEFAULT_APPROVAL_WAIT_MS
    tray_runs_saved_workflows: bool = True
    """A person can run saved workflows from the tray menu without prompts (the tray app; not `serve`)."""
    uploads_dir: Path | None = None
    """The home's uploads/ folder: `interact upload` takes files from it (None: no files from paths)."""
    upload_folders: tuple[Path, ...] = ()
    """Folders the person allowed in settings, besides uploads/."""
    downloads_dir: Path | None = None
    """Where `interact download` saves (None: downloads are not supported)."""
    artifacts_dir: Path | None = None
    """Where `generate` writes its files (engine/artifacts/artifacts.py; None: only inline answers)."""
    describe_elements: bool = False
    """Ask the page, alongside each agent's page action, how Playwright's locators name its element
    (engine/workflows/recorder.py: generate playwright_test). The app does; a bare engine records CSS selectors."""


PILOT_OFF_MESSAGE = (
    "AI Web Pilot is off. Ask the user to turn it on in the Tabpilot tray menu "
    "(or start `tabpilot serve --pilot`); an agent cannot turn it on."
)


class Engine:
    def __init__(
        self,
        registry: Registry,
        browser: BrowserPort,
        approvals: ApprovalPort,
        *,
        pilot: PilotState | None = None,
        clock: Clock | None = None,
        approval_wait_ms: int | None = None,
        config: EngineConfig | None = None,
        secrets: SecretStore | None = None,
        workflows: WorkflowStore | None = None,
        states: StateStore | None = None,
        run_records: RunRecordStore | None = None,
    ) -> None:
        self.registry = registry
        self.browser = browser
        self.approvals = approvals
        self.pilot = pilot or PilotState()
        self.clock = clock or SystemClock()
        self.activity = ActivityStream()
        self.jobs = JobTable()
        self.config = config or EngineConfig()
        self.approval_wait_ms = approval_wait_ms if approval_wait_ms is not None else self.config.approval_wait_ms
        self.secrets: SecretStore = secrets or NoSecrets()
        self.workflows = workflows
        self.states = states
        """Saved browser states (configure save_state, ...); None: this engine keeps none."""
        self.run_records: RunRecordStore = run_records or MemoryRunRecords()
        """The record of every workflow run (engine/workflows/runs.py writes it); in memory unless given."""
        self.known_secrets: dict[str, str] = {}
        """Secret values this engine resolved for a command: scrubbed from everything read back later
        (captured logs, requests, WebSocket messages)."""
        self.workflow_authors: dict[str, str] = {}
        """Which agent session saved which workflow (import, record) while the app runs: overwriting a
        workflow another session (or the person, or a file) made is shown to the person first."""
        self.tab_locks = TabLocks()
        """Which run acts in which tab (engine/safety/tab_locks.py): no other command acts there meanwhile."""
        self.last_call = self.clock.monotonic()
        self.browser_expected: Callable[[], bool] = lambda: False
        """True while a browser is on its way (a managed browser launching): calls wait for it."""
        self.browser_ready = asyncio.Event()
        self.tab_owners = TabOwners()
        """Which agent session owns which tab (each agent its own tabs)."""
        self._tabs_seen: dict[int | None, tuple[int | None, str]] = {}
        """Which tab a call (by its tab_id, or None: the extension's pick) went to and the address it
        showed, as an approval last looked them up: kept until the browser says a tab moved (an address, the
        tab in front, a window's focus, a tab opened or closed) or a command that may move one ends, so that
        back-to-back actions on one page do not each ask the browser again (a round trip per call)."""
        self._tasks: set[asyncio.Task[None]] = set()

    # -- the one entry point for agents (MCP, CLI) ---------------------------------------------------

    async def call(
        self,
        tool: str,
        args: dict[str, Any],
        *,
        agent: str = "agent",
        progress: ProgressCallback | None = None,
        approved: bool = False,
        session: str | None = None,
    ) -> dict[str, Any]:
        """Run a tool call and return its result object; raises TabpilotError with a contract code.

        `approved` is for runs a person starts in the UI (they are the one acting): no pilot gate and no
        prompt; a replay's domain lock still holds. Agents' paths (MCP, HTTP) never set it.
        `session` names the agent session that owns tabs (one MCP session, the CLI); none: the agent's name.
        """
        caller = Session(PERSON, agent, person=True) if approved else Session(session or agent, agent)
        self.tab_owners.seen(caller)
        try:
            return dict(self._scrubbed(await self._call(tool, args, caller, progress, approved)))
        except TabpilotError as exc:
            # Every answer to an agent passes here (MCP, the HTTP API, the CLI): secrets the engine typed
            # this run never go back — not in results, not in error messages or their details.
            if self.known_secrets:
                exc.message = self._scrubbed(exc.message)
                exc.args = (exc.message,)
                exc.details = self._scrubbed(exc.details)
            raise

    def _scrubbed(self, value: Any) -> Any:
        if not self.known_secrets:
            return value
        return scrubbing.scrub(value, self.known_secrets, prefixes=scrubbing.MIN_RESULT_PREFIX)

    async def _call(
        self, tool: str, args: dict[str, Any], caller: Session, progress: ProgressCallback | None, approved: bool
    ) -> dict[str, Any]:
        self.last_call = self.clock.monotonic()
        command, params = self.registry.resolve(tool, args)
        trace.mark("validated")
        if not approved:
            self._gate(command, params)
        background = bool(params.pop("background", False))
        wait_ms = params.pop(command.wait_param, None) if command.wait_param else None
        job = self.jobs.create(command.tool, command.mode, self.clock.monotonic())
        if progress is not None:
            job.progressed.subscribe(progress)
        self._start(job, command, params, caller, approved)
        if background:
            return {"status": "queued", "correlation_id": job.correlation_id}
        limit_ms = (wait_ms if wait_ms is not None else command.default_wait_ms) if command.wait_param else None
        return await self.wait(job, limit_ms)

    def _gate(self, command: Command, params: dict[str, Any]) -> None:
        if command.gated(params) and not self.pilot.ai_web_pilot:
            raise TabpilotError("ai_web_pilot_disabled", PILOT_OFF_MESSAGE)
        if command.capability and not self.pilot.allows(command.capability):
            raise TabpilotError(
                "ai_web_pilot_disabled",
                f"The '{command.capability}' capability is turned off in the Tabpilot tray menu.",
                capability=command.capability,
            )

    async def wait(self, job: Job, limit_ms: float | None) -> dict[str, Any]:
        """Wait for `job` to end; answer with its pending view once the limit or the approval wait passes.

        A call waiting on a person never blocks longer than approval_wait_ms counted from its arrival
        (what the agent's client measures), less a little for the way back to it.
        """
        start = self.clock.monotonic()
        deadline = None if limit_ms is None else start + limit_ms / 1000
        approval_wait_s = self.approval_wait_ms / 1000
        approval_ends = start + approval_wait_s - min(APPROVAL_REPLY_MARGIN_S, approval_wait_s / 20)
        while not job.done:
            if job.status == "awaiting_user":
                return job.pending_view()  # a person may take minutes: the agent hears so at once
            now = self.clock.monotonic()
            approval_deadline = approval_ends if job.status == "awaiting_approval" else None
            ends = [d for d in (deadline, approval_deadline) if d is not None]
            if ends and min(ends) <= now:
                return job.pending_view()
            await job.wait_changed(min(ends) - now if ends else None)
        return self.outcome(job)

    def outcome(self, job: Job) -> dict[str, Any]:
        if job.error is not None:
            raise job.error
        if job.result is None:
            return job.pending_view()
        return job.result

    # -- running ---------------------------------------------------------------------------------

    def _start(self, job: Job, command: Command, params: dict[str, Any], caller: Session, approved: bool) -> None:
        task = asyncio.get_running_loop().create_task(self._run(job, command, params, caller, approved))
        job.task = task
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _run(self, job: Job, command: Command, params: dict[str, Any], caller: Session, approved: bool) -> None:
        agent = caller.name
        started = ActivityEvent(
            correlation_id=job.correlation_id,
            phase="started",
            time=self.clock.time(),
            agent=agent,
            tool=command.tool,
            mode=command.mode,
            kind=command.kind,
            target=_target_of(command.mode, params),
            params=redact_params(params, command.mode, self._typed_params(params)),
            actor="person" if approved else "agent",
            site=_site_of(command.mode, params),
        )
        self.activity.emit(started)
        outcome: Outcome = "ok"
        error: str | None = None
        try:
            scope, pinned = self._approval_scope(command, params, caller)
            acting = command.targets_tab and (command.kind in ("navigate", "mutate") or scope is not None)
            if command.targets_tab:
                await self._pick_tab(params, caller, acting=acting)
            if acting:
                # Before any prompt: a refused action is not asked about.
                await self._check_tab_lock(params)
            if scope is not None:
                # Whatever its command's kind, a call with a page-changing step (a pagination click) is one.
                started = replace(started, kind="mutate")
                if scope.origin and " " not in scope.origin and not started.site:
                    started = replace(started, site=scope.origin)  # a workflow's one site, known at once
            if approved:
                started = replace(started, decided_by="person")  # the person started it from the tray
            elif scope is None:
                started = replace(started, decided_by="not_needed")
            else:
                self.activity.emit(replace(started, phase="awaiting_approval", time=self.clock.time()))
                asked_at = self.clock.monotonic()
                tab_id, tab_url = await self._which_tab(job, params.get("tab_id"))
                started = replace(started, site=origin_of(tab_url or "") or started.site)
                try:
                    decided_by = await self._approve(
                        job, command, _shown_in_full(params), agent, scope, tab_id, tab_url
                    )
                except TabpilotError as exc:  # denied (it says by whom), or nobody answered in time
                    who = _DENIERS.get(str(exc.details.get("decided_by")), "timeout")
                    started = replace(started, decided_by=who)
                    raise
                started = replace(started, decided_by=decided_by)
                waited = self.clock.monotonic() - asked_at > ANSWERED_AT_ONCE_S
                self._gate(command, params)  # the user may have switched the pilot off while the prompt waited
                if tab_id is not None and command.targets_tab:
                    # What was approved is this tab, showing this site: not whichever tab is in front
                    # by the time the person answers.
                    params["tab_id"] = tab_id
                    if waited and (command.approval_steps is None or scope.acts_on_current_tab):
                        await self._still_on(tab_id, tab_url, command)
                if acting and isinstance(params.get("tab_id"), int):
                    self.tab_locks.check(params["tab_id"])  # a run may have started there while the prompt waited
            job.progressed.subscribe(self._progress_events(started, job))
            job.set_status("running")
            trace.mark("handler_start")
            context = CommandContext(self, job, agent, session=caller, pinned=pinned)
            hook = self.registry.run_hook
            result = await (hook(self)(command, context, params) if hook else command.run(context, params))
            trace.mark("handler_done")
            job.finish(result)
            if not started.site:
                started = replace(started, site=_site_in(result))
        except TabpilotError as exc:
            outcome = "denied" if exc.code in ("approval_denied", "approval_timeout") else "error"
            error = exc.code
            exc.details.setdefault("correlation_id", job.correlation_id)
            job.fail(exc)
        except asyncio.CancelledError:
            job.fail(TabpilotError("internal", "The command was cancelled because Tabpilot is stopping."))
            outcome, error = "error", "internal"
            raise
        except Exception:
            ref = new_log_ref()
            log.exception("command %s failed [%s]", command.name, ref)
            job.fail(
                TabpilotError(
                    "internal",
                    f"Tabpilot hit an internal error running {command.name}; see its log under {ref}.",
                    log_ref=ref,
                    correlation_id=job.correlation_id,
                )
            )
            outcome, error = "error", "internal"
        finally:
            if command.kind not in ("read", "mutate"):
                # It may have moved or tracked a tab. (An action that navigates as a side effect is told
                # by the browser's tab_updated event, which reaches the app before the action's answer.)
                self._tabs_seen.clear()
            self.jobs.finished(job, self.clock.monotonic())
            self.activity.emit(
                replace(
                    started,
                    phase="finished",
                    time=self.clock.time(),
                    duration_ms=round((self.clock.monotonic() - job.started) * 1000, 1),
                    outcome=outcome,
                    error=error,
                    steps_completed=job.steps_completed if job.steps_total else None,
                    steps_total=job.steps_total,
                )
            )

    def _typed_params(self, params: dict[str, Any]) -> set[str] | None:
        """For a replay: the saved workflow's params that its steps type (None: not known, hide them all)."""
        workflow_id = params.get("workflow_id")
        if params.get("steps") is not None or not isinstance(workflow_id, str) or self.workflows is None:
            return None
        entry = self.workflows.get(workflow_id)
        return typed_param_names(entry.workflow.steps) if entry is not None and entry.workflow is not None else None

    def _progress_events(self, started: ActivityEvent, job: Job) -> ProgressCallback:
        """Steps of a long command as activity events (progress bars in the activity window)."""

        def emit(completed: int, total: int | None, message: str) -> None:
            self.activity.emit(
                replace(
                    started,
                    phase="progress",
                    time=self.clock.time(),
                    steps_completed=completed,
                    steps_total=total,
                    duration_ms=round((self.clock.monotonic() - job.started) * 1000, 1),
                    target=message or started.target,
                )
            )

        return emit

    def _approval_scope(
        self, command: Command, params: dict[str, Any], caller: Session
    ) -> tuple[ApprovalScope | None, Any]:
        """What needs approval (None: nothing), and what it was read from, which the handler then runs."""
        if command.approval_steps is not None:
            scope = command.approval_steps(self, params, caller)
            pinned = scope.pinned if scope is not None else None
            return (scope if scope is not None and scope.steps else None), pinned
        if command.kind == "mutate":
            step = {"type": command.mode, **{k: v for k, v in params.items() if v is not None and k != "tab_id"}}
            return ApprovalScope(steps=[step], selector=params.get("selector")), None
        return None, None

    async def _pick_tab(self, params: dict[str, Any], caller: Session, *, acting: bool) -> None:
        """The tab a call goes to, by the ownership rule (engine/safety/tab_owners.py); set in `params` when the
        caller's own tab is the one (or when it had to be looked up, so that it cannot change meanwhile)."""
        if caller.person:
            return
        owners = self.tab_owners
        named = params.get("tab_id")
        if isinstance(named, int):
            owners.check(caller, named, acting=acting, named=True)
            return
        current = owners.current(caller.key)
        if current is not None:
            params["tab_id"] = current
            return
        if not owners.others_own_tabs(caller.key) or not self.browser.connected:
            return  # the extension's own pick (tracked, else in front) is nobody's: no round trip needed
        tab = await self.browser.request("tabs.resolve", {}, timeout_s=3)
        found = tab.get("tab_id")
        if isinstance(found, int) and not isinstance(found, bool):
            owners.check(caller, found, acting=acting, named=False)
            params["tab_id"] = found

    async def _check_tab_lock(self, params: dict[str, Any]) -> None:
        """An action in a tab a run holds is refused (`workflow_in_progress`, naming the run). A call that
        names no tab goes to the extension's pick: looked up, but only while some run holds a tab, and then
        pinned to the tab checked, so that a tab coming to the front meanwhile cannot be the one acted in."""
        if not self.tab_locks.any():
            return
        tab_id = params.get("tab_id")
        if not isinstance(tab_id, int) or isinstance(tab_id, bool):
            if not self.browser.connected:
                return  # nothing can act anywhere: the command says extension_not_connected itself
            found = (await self.browser.request("tabs.resolve", {}, timeout_s=3)).get("tab_id")
            if not isinstance(found, int) or isinstance(found, bool):
                return
            params["tab_id"] = tab_id = found  # only commands that target a tab act (see `acting`)
        self.tab_locks.check(tab_id)

    async def _which_tab(self, job: Job, tab_id: int | None) -> tuple[int | None, str | None]:
        """The tab an approval is for and its address, as the prompt will show them."""
        if not self.browser.connected:
            return tab_id, None
        seen = self._tabs_seen.get(tab_id)
        if seen is not None:
            return seen
        try:
            tab = await self.browser.request("tabs.resolve", {"tab_id": tab_id} if tab_id else {}, timeout_s=3)
        except TabpilotError:
            log.debug("could not tell which tab %s is for", job.correlation_id)
            return tab_id, None
        found = tab.get("tab_id", tab_id)
        answer = (found if isinstance(found, int) else None), str(tab.get("url") or "")
        self._tabs_seen[tab_id] = answer
        return answer

    def on_browser_event(self, name: str, data: dict[str, Any]) -> None:
        """The extension's word that a tab may have moved: the tabs looked up before are looked up again."""
        if name in TAB_MOVES:
            self._tabs_seen.clear()

    async def _approve(
        self,
        job: Job,
        command: Command,
        shown: dict[str, Any],
        agent: str,
        scope: ApprovalScope,
        tab_id: int | None,
        tab_url: str | None,
    ) -> DecidedBy:
        """Ask; returns who allowed it. A refusal raises approval_denied (with `decided_by`), or
        approval_timeout when nobody answered."""
        steps = tuple(_shown_in_full(s) for s in scope.steps)
        request = ApprovalRequest(
            correlation_id=job.correlation_id,
            agent=agent,
            tool=command.tool,
            mode=command.mode,
            params=shown,
            tab_url=tab_url,
            steps=steps,
            origin=_origins(scope, tab_url),
            tab_id=tab_id,
            selector=scope.selector,
            workflow_id=scope.workflow_id,
            steps_hash=scope.steps_hash,
            action_class="workflows"
            if scope.site_free
            else (scope.action_class or command.approval_class(shown) or action_class(steps)),
        )
        job.set_status("awaiting_approval")
        try:
            decision = as_decision(await self.approvals.decide(request))
        except TimeoutError as exc:
            raise TabpilotError(
                "approval_timeout", f"Nobody answered the approval prompt for {command.name} in time."
            ) from exc
        if not decision.allow:
            by: DecidedBy = "policy" if decision.decided_by == "auto" else decision.decided_by  # auto never denies
            raise TabpilotError("approval_denied", _denied_message(command.name, by), decided_by=by)
        return decision.decided_by

    async def _still_on(self, tab_id: int, approved_url: str | None, command: Command) -> None:
        """The tab must still show the site that was approved (the prompt may have waited a while)."""
        if not approved_url:
            return
        tab = await self.browser.request("tabs.resolve", {"tab_id": tab_id}, timeout_s=3)
        now = str(tab.get("url") or "")
        if origin_of(now) != origin_of(approved_url):
            raise TabpilotError(
                "domain_changed",
                f"While the prompt waited, the tab moved from {origin_of(approved_url) or approved_url} to "
                f"{origin_of(now) or now}; {command.name} was not done. Ask again.",
                origin=origin_of(now),
                approved_origin=origin_of(approved_url),
            )

    async def wait_for_browser(self, timeout_s: float = 15.0) -> None:
        """When a browser is on its way, give it a moment instead of failing the first call."""
        if not self.browser_expected():
            return
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.browser_ready.wait(), timeout_s)

    def set_browser_connected(self, connected: bool) -> None:
        self._tabs_seen.clear()
        if connected:
            self.browser_ready.set()
        else:
            self.browser_ready.clear()

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)


def _denied_message(name: str, decided_by: DecidedBy) -> str:
    if decided_by == "policy":
        return (
            f"Nobody could be asked to approve {name}, so it was refused and nothing was done in the page: this "
            "Tabpilot runs without a window and answers every approval with deny (`tabpilot serve`, "
            "`--approve deny` by default); the person running it can restart it with `--approve prompt` (asks "
            "on its terminal) or `--approve auto` (allows and logs every step)."
        )
    if decided_by == "rule":
        return f"A standing approval rule denied {name}; nothing was done in the page."
    return f"The user denied {name}; nothing was done in the page."


_DENIERS: dict[str, Decider] = {"person": "person", "rule": "rule", "policy": "policy"}
"""Who an approval_denied names as having decided (anything else: nobody answered in time)."""


def _target_of(mode: str, params: dict[str, Any]) -> str:
    if mode == "execute_js" and isinstance(params.get("script"), str):
        script = " ".join(params["script"].split())  # one line
        return "script: " + (script if len(script) <= 120 else script[:119] + "…")
    for key in ("url", "selector", "workflow_id", "correlation_id"):
        value = params.get(key)
        if isinstance(value, str) and value:
            return value[:200] + _next_page_of(params)
    return ""


def _next_page_of(params: dict[str, Any]) -> str:
    """`, clicking <next_selector> for next pages`: a scrape's pagination clicks, named in its activity row."""
    options = params.get("options")
    paginate = options.get("paginate") if isinstance(options, dict) else None
    selector = paginate.get("next_selector") if isinstance(paginate, dict) else None
    return f", clicking {selector[:100]} for next pages" if isinstance(selector, str) and selector else ""


def _site_in(result: dict[str, Any]) -> str:
    """The site a finished command was on, from its result (a navigation's url, a scrape's metadata.url)."""
    metadata = result.get("metadata")
    url = result.get("url") or (metadata.get("url") if isinstance(metadata, dict) else None)
    return origin_of(url) if isinstance(url, str) else ""


def _site_of(mode: str, params: dict[str, Any]) -> str:
    """The site a command acts on when its parameters say (navigate's url); else found out later."""
    url = params.get("url")
    return origin_of(url) if mode == "navigate" and isinstance(url, str) else ""


def _shown_in_full(params: dict[str, Any]) -> dict[str, Any]:
    """What a person approves is shown whole: nothing hidden past a cut (secrets stay as references); an
    uploaded file's inline content is named with its size instead of its bytes."""
    return without_file_contents({k: v for k, v in params.items() if v is not None})


def _origins(scope: ApprovalScope, tab_url: str | None) -> str:
    """The site(s) an approval is for; several, space-separated, match no one-site rule."""
    if scope.site_free:
        return ""
    sites = set(scope.origin.split())
    if not sites or scope.acts_on_current_tab:
        sites.add(origin_of(tab_url or ""))
    return " ".join(sorted(sites - {""}))
