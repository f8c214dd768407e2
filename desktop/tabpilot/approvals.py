"""Headless answers to approval requests (`serve --approve deny|auto|prompt`)."""

from __future__ import annotations

import asyncio
import json
import logging
import sys
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
    """Asks on the terminal that started `serve`; one question at a time; no answer in time denies."""

    def __init__(self, timeout_s: float = 120.0) -> None:
        self._lock = asyncio.Lock()
        self._timeout_s = timeout_s

    async def decide(self, request: ApprovalRequest) -> ApprovalAnswer:
        async with self._lock:
            where = f" on {request.tab_url}" if request.tab_url else ""
            question = (
                f"\n[tabpilot] {request.agent} wants {request.tool} {request.mode}{where}\n"
                f"           {json.dumps(dict(request.params))[:400]}\n           Allow? [y/N] "
            )
            loop = asyncio.get_running_loop()
            try:
                answer = await asyncio.wait_for(loop.run_in_executor(None, _ask, question), self._timeout_s)
            except TimeoutError:
                return "deny"
            verdict: ApprovalAnswer = "allow" if answer.strip().lower() in ("y", "yes") else "deny"
            log.info("%s %s.%s for %s at the terminal", verdict, request.tool, request.mode, request.agent)
            return verdict


def _ask(question: str) -> str:
    sys.stderr.write(question)
    sys.stderr.flush()
    return sys.stdin.readline()


def headless_approvals(mode: ApproveMode) -> DenyAll | AutoApprove | TerminalPrompt:
    if mode == "auto":
        return AutoApprove()
    if mode == "prompt":
        return TerminalPrompt()
    return DenyAll()
