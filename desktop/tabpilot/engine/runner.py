"""Running a workflow's steps in one tab: rate limiting, retries, error routing, partial results."""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

from tabpilot.engine.context import CommandContext
from tabpilot.engine.errors import TabpilotError, shown
from tabpilot.engine.extract import DEFAULT_ELEMENT_TIMEOUT_MS, Extracted, Pagination, extract
from tabpilot.engine.extract_spec import parse_schema
from tabpilot.engine.workflows import ErrorRecovery

NAVIGATE_TIMEOUT_MS = 30_000
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


@dataclass
class RunOutcome:
    data: list[dict[str, Any]] = field(default_factory=list)
    steps_completed: int = 0
    errors: list[dict[str, Any]] = field(default_factory=list)
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

    async def run(self) -> RunOutcome:
        """Run every step; raise StepFailed (with the outcome so far kept here) when the run must stop."""
        total = len(self.steps)
        self.ctx.job.progress(0, total, "starting")
        for i, step in enumerate(self.steps):
            if i and self.step_delay_s:
                await asyncio.sleep(self.step_delay_s)
            await self._guarded(str(i), step)
            self.outcome.steps_completed = i + 1
            self.ctx.job.progress(i + 1, total, f"step {i + 1}/{total}: {step['type']} done")
        return self.outcome

    async def _guarded(self, index: str, step: dict[str, Any]) -> None:
        """One step under the error-recovery policy."""
        attempts = 0
        while True:
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
        timeout_ms = step.get("timeout_ms", NAVIGATE_TIMEOUT_MS if kind == "navigate" else DEFAULT_ELEMENT_TIMEOUT_MS)
        base = {"tab_id": self.tab_id, "timeout_ms": timeout_ms}
        wait_s = timeout_ms / 1000 + 5
        if kind == "navigate":
            result = await self.ctx.browser_request(
                "tab.navigate",
                {**base, "url": step["url"], "wait_until": step.get("wait_until", "load")},
                timeout_s=wait_s,
            )
            final = str(result.get("url") or step["url"])
            if not step.get("allow_redirect") and login_redirect(step["url"], final):
                raise TabpilotError(
                    "navigation_redirect",
                    f"Opening {step['url']} led to {final}: the site wants a login. Ask the user to sign in "
                    "in this browser, then run the workflow again.",
                    redirect_url=final,
                )
            self.outcome.extracted.url = final
        elif kind == "wait":
            await self.ctx.browser_request(
                "dom.wait",
                {**base, "selector": step["selector"], "state": step.get("state", "visible")},
                timeout_s=wait_s,
            )
        elif kind in ("click", "fill", "type", "select"):
            args: dict[str, Any] = {k: step[k] for k in ("selector", "value", "text") if k in step}
            await self.ctx.browser_request(f"dom.{kind}", {**base, **args}, timeout_s=wait_s)
        elif kind == "press":
            await self.ctx.browser_request(
                "dom.press", {**base, "key": step["key"], "selector": step.get("selector")}, timeout_s=wait_s
            )
        elif kind == "scroll":
            await self.ctx.browser_request("dom.scroll", {"tab_id": self.tab_id, "selector": step.get("selector")})
        elif kind == "delay":
            await asyncio.sleep(step["ms"] / 1000)
        elif kind == "extract":
            await extract(
                self.ctx,
                tab_id=self.tab_id,
                selector=step["selector"],
                schema=parse_schema(step["schema"], f"steps[{index}] (extract) schema"),
                wait_for=step.get("wait_for"),
                timeout_ms=timeout_ms,
                paginate=Pagination.of(step.get("paginate")),
                into=self.outcome.extracted,
            )
            self.outcome.data = self.outcome.extracted.rows
        elif kind == "if_exists":
            found = await self.ctx.browser_request("dom.count", {"tab_id": self.tab_id, "selector": step["selector"]})
            branch, name = (step.get("then") or [], "then") if found.get("count") else (step.get("else") or [], "else")
            for j, inner in enumerate(branch):
                if j and self.step_delay_s:
                    await asyncio.sleep(self.step_delay_s)
                await self._guarded(f"{index}.{name}[{j}]", inner)
        else:  # check_steps refuses unknown types before a run starts
            raise TabpilotError("invalid_params", f"unknown step type {shown(kind)}")
