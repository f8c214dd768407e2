"""Headless answers to approval requests (`serve --approve deny|auto|prompt`)."""

from __future__ import annotations

import asyncio
import json
import logging
import sys
import threading
from typing import Literal

from tabpilot.engine.ports import ApprovalAnswer, ApprovalRequest

log = logging.getLogger("tabpilot.approval")

ApproveMode = Literal["deny", "auto", "prompt"]


class DenyAll:
    async def decide(self, request: ApprovalRequest) -> ApprovalAnswer:
        log.info("denied %s.%s for %s (serve --approve deny)", request.tool, request.mode, request.agent)
        return "deny"


class AutoApprove:
    async def decide(self, request: ApprovalRequest) -> ApprovalAnswer:
        log.info(
            "auto-approved %s.%s for %s: %s",
            request.tool,
            request.mode,
            request.agent,
            json.dumps(dict(request.params))[:300],
        )
        return "allow"


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

    async def decide(self, request: ApprovalRequest) -> ApprovalAnswer:
        async with self._lock:
            lines = self._reader()
            while not lines.empty():
                lines.get_nowait()  # typed while nobody was asking
            where = f" on {request.tab_url}" if request.tab_url else ""
            steps = "".join(f"\n           - {json.dumps(dict(step))}" for step in request.steps)
            sys.stderr.write(
                f"\n[tabpilot] {request.agent} wants {request.tool} {request.mode}{where}\n"
                f"           {json.dumps(dict(request.params))}{steps}\n           Allow? [y/N] "
            )
            sys.stderr.flush()
            answer = await asyncio.wait_for(lines.get(), self._timeout_s)
            verdict: ApprovalAnswer = "allow" if answer.strip().lower() in ("y", "yes") else "deny"
            log.info("%s %s.%s for %s at the terminal", verdict, request.tool, request.mode, request.agent)
            return verdict


def headless_approvals(mode: ApproveMode) -> DenyAll | AutoApprove | TerminalPrompt:
    if mode == "auto":
        return AutoApprove()
    if mode == "prompt":
        return TerminalPrompt()
    return DenyAll()
