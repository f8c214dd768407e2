"""Running a workflow's steps in one tab: rate limiting, retries, error routing, partial results."""

from __future__ import annotations

import asyncio
import re
import time
from asyncio import CancelledError, Future, current_task, ensure_future
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from typing import Any, Literal, NotRequired, TypedDict, TypeVar
from urllib.parse import parse_qsl, unquote, urlsplit

from tabpilot.engine.context import CommandContext
from tabpilot.engine.contract.steps import step_kinds
from tabpilot.engine.errors import TabpilotError, shown
from tabpilot.engine.workflows.extract import DEFAULT_ELEMENT_TIMEOUT_MS, Extracted, Pagination, extract
from tabpilot.engine.workflows.extract_spec import parse_schema
from tabpilot.engine.workflows.workflows import ErrorRecovery

ABORTING = frozenset({"navigation_redirect", "tab_closed", "extension_not_connected", "approval_denied"})
"""Failures no recovery policy can route around: the run stops and keeps what it has."""
LOGIN_HINTS = re.compile(r"log-?in|sign-?in|auth|sso|saml|oauth|session|account/(?:login|signin)", re.IGNORECASE)


def login_redirect(requested: str, final: str) -> bool:
    """Did a navigation land somewhere else because the site wants a login first?

    An ordinary redirect (http→https, `/` → `/home`) is not one; a move to a login-looking page (when
    the requested one did not look like one already: `/login` → `/auth/login` is the login page the
    workflow asked for), or to a page that carries the requested address to come back to, is.
    """
    want, got = urlsplit(requested), urlsplit(final)
    if (want.netloc, want.path.rstrip("/")) == (got.netloc, got.path.rstrip("/")):
        return False
    asked_for_login = bool(LOGIN_HINTS.search(want.netloc + want.path))
    return (not asked_for_login and bool(LOGIN_HINTS.search(got.netloc + got.path + "?" + got.query))) or (
        bool(want.path.strip("/")) and _carries(got.query, requested)
    )


def _carries(query: str, requested: str) -> bool:
    """Does a query hold the requested address (whole, or its path) to come back to after a login?"""
    want = urlsplit(requested)
    for _, value in parse_qsl(query, keep_blank_values=False):
        back = urlsplit(unquote(value))
        if value in (requested, want.path) or (back.path.rstrip("/") == want.path.rstrip("/") and back.path):
            return True
    return False


class StepError(TypedDict):
    """A step that failed and was skipped (error_recovery let the run go on)."""

    step: str
    type: str
    error: str
    message: str
    skipped: bool


StepStatus = Literal["complete", "skipped", "failed", "cancelled"]


class StepLog(TypedDict):
    """What one of the workflow's steps did, as the run record keeps it."""

    index: int
    """Its place in the workflow's `steps` (from 0, as `steps[N]` paths and `failed_step` count)."""
    label: NotRequired[str]
    type: str
    status: StepStatus
    attempts: int
    duration_ms: int
    warnings: NotRequired[list[str]]
    error: NotRequired[dict[str, str]]
    """{code, message}: why it failed, or why it was skipped (error_recovery let the run go on)."""


class RunStopped(Exception):
    """The run was asked to stop (configure stop_run): it ends between steps, or its step is interrupted."""


T = TypeVar("T")


@dataclass
class RunOutcome:
    data: list[dict[str, Any]] = field(default_factory=list)
    steps_completed: int = 0
    errors: list[StepError] = field(default_factory=list)
    extracted: Extracted = field(default_factory=Extracted)


class StepFailed(Exception):
    def __init__(self, index: str, error: TabpilotError) -> None:
        super().__init__(error.message)
        self.index = index
        self.error = error


class WorkflowRunner:
    def __init__(
        self,
        ctx: CommandContext,
        steps: list[dict[str, Any]],
        *,
        tab_id: int,
        recovery: ErrorRecovery,
        step_delay_ms: int,
    ) -> None:
        self.ctx = ctx
        self.steps = steps
        self.tab_id = tab_id
        self.recovery = recovery
        self.step_delay_s = step_delay_ms / 1000
        self.outcome = RunOutcome()
        self.on_step: Callable[[StepLog], None] | None = None
        """Told after each of the workflow's steps (the run record is written from it)."""
        self.stop_requested = False
        self._current: Future[Any] | None = None
        self._attempts = 0

    def stop(self) -> None:
        """End the run: before its next step, or now, by cancelling what its current step waits on (a wait,
        a delay, a browser request; the extension's reply to a cancelled request is dropped)."""
        self.stop_requested = True
        if self._current is not None:
            self._current.cancel()

    async def _interruptible(self, work: Awaitable[T]) -> T:
        # The task machinery by name: tests stand in for this module's `asyncio` to record its sleeps.
        task = ensure_future(work)
        self._current = task
        try:
            return await task
        except CancelledError:
            current = current_task()
            if self.stop_requested and task.cancelled() and not (current is not None and current.cancelling()):
                raise RunStopped from None  # our stop, not the app stopping (that cancels this task too)
            raise
        finally:
            self._current = None

    async def run(self) -> RunOutcome:
        """Run every step; raise StepFailed or RunStopped (with the outcome so far kept here) when the run
        must stop."""
        total = len(self.steps)
        self.ctx.job.progress(0, total, "starting")
        for i, step in enumerate(self.steps):
            if self.stop_requested:
                raise RunStopped
            if i and self.step_delay_s:
                await self._interruptible(asyncio.sleep(self.step_delay_s))
            await self._logged(i, step)
            self.outcome.steps_completed = i + 1
            self.ctx.job.progress(i + 1, total, f"step {i + 1}/{total}: {step['type']} done")
        return self.outcome

    async def _logged(self, i: int, step: dict[str, Any]) -> None:
        """One of the workflow's steps, told to `on_step` however it ends."""
        started = time.monotonic()
        warned, noted = len(self.outcome.extracted.warnings), len(self.outcome.errors)
        self._attempts = 0
        status: StepStatus = "complete"
        error: TabpilotError | None = None
        try:
            await self._interruptible(self._guarded(str(i), step))
        except StepFailed as exc:
            if self.stop_requested:  # a step that turned the cancellation into an error of its own
                status = "cancelled"
                raise RunStopped from exc
            status, error = "failed", exc.error
            raise
        except (RunStopped, CancelledError):
            status = "cancelled"
            raise
        finally:
            skipped = [e for e in self.outcome.errors[noted:] if e["step"] == str(i)]
            if status == "complete" and skipped:
                status = "skipped"
            entry: StepLog = {
                "index": i,
                "type": str(step["type"]),
                "status": status,
                "attempts": max(self._attempts, 1),
                "duration_ms": round((time.monotonic() - started) * 1000),
            }
            if isinstance(step.get("label"), str):
                entry["label"] = step["label"]
            warnings = self.outcome.extracted.warnings[warned:]
            if warnings:
                entry["warnings"] = list(warnings)
            if error is not None:
                entry["error"] = {"code": error.code, "message": error.message}
            elif status == "skipped":
                entry["error"] = {"code": skipped[-1]["error"], "message": skipped[-1]["message"]}
            if self.on_step is not None:
                self.on_step(entry)

    async def _guarded(self, index: str, step: dict[str, Any]) -> None:
        """One step under the error-recovery policy."""
        attempts = 0
        while True:
            if "." not in index:
                self._attempts += 1  # the workflow's own step (not one inside a branch): counted in its log
            try:
                await self._step(index, step)
                return
            except TabpilotError as exc:
                if exc.code in ABORTING:
                    raise StepFailed(index, exc) from exc
                if exc.code == "timeout":
                    if self.recovery.on_timeout == "retry_step" and attempts < self.recovery.max_retries:
                        attempts += 1
                        self.outcome.extracted.warn(f"step {index} ({step['type']}) timed out; retry {attempts}")
                        continue
                    if self.recovery.on_timeout == "skip":
                        self._note(index, step, exc, skipped=True)
                        return
                    if self.recovery.on_timeout == "abort":  # whatever on_failure says
                        raise StepFailed(index, exc) from exc
                if self.recovery.on_failure == "continue":
                    self._note(index, step, exc, skipped=True)
                    return
                raise StepFailed(index, exc) from exc

    def _note(self, index: str, step: dict[str, Any], exc: TabpilotError, *, skipped: bool) -> None:
        self.outcome.errors.append(
            {"step": index, "type": step["type"], "error": exc.code, "message": exc.message, "skipped": skipped}
        )

    async def _step(self, index: str, step: dict[str, Any]) -> None:
        kind = step["type"]
        run = STEP_RUNNERS.get(kind)
        if run is None:
            # An interact action that is a step: its own handler, with the step's values.
            definition = step_kinds().get(kind)
            if definition is None or not definition.action:  # check_steps refuses unknown types before a run
                raise TabpilotError("invalid_params", f"unknown step type {shown(kind)}")
            await self._action(index, step)
            return
        await run(self, index, step)

    async def _action(self, index: str, step: dict[str, Any]) -> dict[str, Any]:
        command = self.ctx.engine.registry.get(f"interact.{step['type']}")
        if command is None:
            raise TabpilotError("not_supported", f"This Tabpilot has no interact action {shown(step['type'])}.")
        given = {p.name: step.get(p.name) for p in command.params if p.name != "tab_id"}
        values = command.validate(given)
        values.pop("background", None)
        values["tab_id"] = self.tab_id
        # The steps' placeholders are filled in already (and their secrets known): not resolved twice.
        return await command.run(replace(self.ctx, placeholders_resolved=True), values)

    def timeout_ms(self, step: dict[str, Any]) -> int:
        return int(step.get("timeout_ms", DEFAULT_ELEMENT_TIMEOUT_MS))


StepRunner = Callable[[WorkflowRunner, str, dict[str, Any]], Awaitable[None]]


async def _navigate(runner: WorkflowRunner, index: str, step: dict[str, Any]) -> None:
    result = await runner._action(index, step)
    final = str(result.get("url") or step["url"])
    if not step.get("allow_redirect") and login_redirect(step["url"], final):
        raise TabpilotError(
            "navigation_redirect",
            f"Opening {step['url']} led to {final}: the site wants a login. Ask the user to sign in "
            "in this browser, then run the workflow again.",
            redirect_url=final,
        )
    runner.outcome.extracted.url = final


async def _wait(runner: WorkflowRunner, index: str, step: dict[str, Any]) -> None:
    timeout_ms = runner.timeout_ms(step)
    await runner.ctx.browser_request(
        "dom.wait",
        {
            "tab_id": runner.tab_id,
            "timeout_ms": timeout_ms,
            "selector": step["selector"],
            "state": step.get("state", "visible"),
        },
        timeout_s=timeout_ms / 1000 + 5,
    )


async def _delay(runner: WorkflowRunner, index: str, step: dict[str, Any]) -> None:
    await asyncio.sleep(step["ms"] / 1000)


async def _extract(runner: WorkflowRunner, index: str, step: dict[str, Any]) -> None:
    await extract(
        runner.ctx,
        tab_id=runner.tab_id,
        selector=step["selector"],
        schema=parse_schema(step["schema"], f"steps[{index}] (extract) schema"),
        wait_for=step.get("wait_for"),
        timeout_ms=runner.timeout_ms(step),
        paginate=Pagination.of(step.get("paginate")),
        into=runner.outcome.extracted,
    )
    runner.outcome.data = runner.outcome.extracted.rows


async def _if_exists(runner: WorkflowRunner, index: str, step: dict[str, Any]) -> None:
    found = await runner.ctx.browser_request("dom.count", {"tab_id": runner.tab_id, "selector": step["selector"]})
    branch, name = (step.get("then") or [], "then") if found.get("count") else (step.get("else") or [], "else")
    for j, inner in enumerate(branch):
        if runner.stop_requested:
            raise RunStopped
        if j and runner.step_delay_s:
            await asyncio.sleep(runner.step_delay_s)
        await runner._guarded(f"{index}.{name}[{j}]", inner)


STEP_RUNNERS: dict[str, StepRunner] = {
    "navigate": _navigate,  # the action, then: did it land on a login page?
    "wait": _wait,
    "delay": _delay,
    "extract": _extract,
    "if_exists": _if_exists,
}
"""Step kinds that need more than their interact action (or that only a workflow has). Every other
step kind is an interact action and runs as one; tests check that every kind runs one way or the other."""
