"""Headless answers to approval requests (`serve --approve deny|auto|prompt`)."""

from __future__ import annotations

import asyncio
import json
import logging
import sys
import threading
from typing import Literal

from tabpilot.engine.ports import ApprovalDecision, ApprovalRequest, reported_agent
from tabpilot.engine.safety.redact import redact_params
from tabpilot.visible_text import visible

log = logging.getLogger("tabpilot.approval")

ApproveMode = Literal["deny", "auto", "prompt"]


def _for(request: ApprovalRequest) -> str:
    site = f" on {request.origin}" if request.origin else ""
    return f"{request.tool}.{request.mode}{site} for the agent that {reported_agent(request.agent)}"


class DenyAll:
    """`serve --approve deny`: nobody can be asked, so the policy refuses (decided_by `policy`)."""

    async def decide(self, request: ApprovalRequest) -> ApprovalDecision:
        log.info("denied %s: nobody can be asked (serve --approve deny)", _for(request))
        return ApprovalDecision(allow=False, decided_by="policy")


class AutoApprove:
    """`serve --approve auto`: every step is allowed and logged (typed values as their length only)."""

    async def decide(self, request: ApprovalRequest) -> ApprovalDecision:
        log.info(
            "auto-approved %s: %s",
            _for(request),
            json.dumps(redact_params(dict(request.params), request.mode), ensure_ascii=False)[:300],
        )
        return ApprovalDecision(allow=True, decided_by="auto")


class TerminalPrompt:
    """Asks on the terminal that started `serve`, one question at a time. One reader thread owns stdin,
    so an answer typed after a prompt timed out is dropped instead of answering the next one; a
    prompt nobody answers in time ends in approval_timeout."""

    def __init__(self, timeout_s: float = 120.0) -> None:
        self._lock = asyncio.Lock()
        self._timeout_s = timeout_s
        self._lines: asyncio.Queue[str] | None = None

    def _reader(self) -> asyncio.Queue[str]:
        if self._lines is None:
            loop = asyncio.get_running_loop()
            lines: asyncio.Queue[str] = asyncio.Queue()

            def pump() -> None:
                for line in sys.stdin:
                    loop.call_soon_threadsafe(lines.put_nowait, line)
                loop.call_soon_threadsafe(lines.put_nowait, "")

            threading.Thread(target=pump, name="tabpilot-terminal", daemon=True).start()
            self._lines = lines
        return self._lines

    async def decide(self, request: ApprovalRequest) -> ApprovalDecision:
        async with self._lock:
            lines = self._reader()
            while not lines.empty():
                lines.get_nowait()  # typed while nobody was asking
            where = f" on {visible(request.tab_url, keep='')}" if request.tab_url else ""
            steps = "".join(f"\n           - {json.dumps(dict(step))}" for step in request.steps)
            agent = visible(reported_agent(request.agent), keep="")
            sys.stderr.write(
                f"\n[tabpilot] an agent that {agent} wants {request.tool} {request.mode}{where}\n"
                f"           {json.dumps(dict(request.params))}{steps}\n           Allow? [y/N] "
            )
            sys.stderr.flush()
            answer = await asyncio.wait_for(lines.get(), self._timeout_s)
            allow = answer.strip().lower() in ("y", "yes")
            log.info("%s %s at the terminal", "allowed" if allow else "denied", _for(request))
            return ApprovalDecision(allow=allow, decided_by="person")


def headless_approvals(mode: ApproveMode) -> DenyAll | AutoApprove | TerminalPrompt:
    if mode == "auto":
        return AutoApprove()
    if mode == "prompt":
        return TerminalPrompt()
    return DenyAll()
