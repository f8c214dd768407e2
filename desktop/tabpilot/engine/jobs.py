"""Every command runs as a job with a correlation id, so a slow one can be followed and fetched later."""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from tabpilot.engine.errors import TabpilotError
from tabpilot.observers import Observers

JobStatus = Literal["queued", "running", "awaiting_approval", "awaiting_user", "complete", "error"]
ProgressCallback = Callable[[int, int | None, str], None]


def new_correlation_id() -> str:
    return "corr-" + secrets.token_hex(6)


@dataclass
class Job:
    correlation_id: str
    tool: str
    mode: str
    status: JobStatus = "queued"
    steps_completed: int = 0
    steps_total: int | None = None
    result: dict[str, Any] | None = None
    error: TabpilotError | None = None
    partial: dict[str, Any] | None = None
    started: float = 0.0
    ended: float | None = None
    changed: asyncio.Event = field(default_factory=asyncio.Event, repr=False)
    progressed: Observers[[int, int | None, str]] = field(
        default_factory=lambda: Observers("job progress"), init=False, repr=False, compare=False
    )
    """Told (steps completed, steps in all if known, message) as the command reports progress."""
    task: asyncio.Task[None] | None = field(default=None, repr=False)
    waiting_for: dict[str, Any] | None = None
    """While `awaiting_user`: what the person is asked (a hand-off's reason and tab), shown with the status."""

    @property
    def done(self) -> bool:
        return self.status in ("complete", "error")

    def set_status(self, status: JobStatus) -> None:
        self.status = status
        self._wake()

    def progress(self, completed: int, total: int | None = None, message: str = "") -> None:
        self.steps_completed = completed
        if total is not None:
            self.steps_total = total
        self.progressed.notify(completed, self.steps_total, message)
        self._wake()

    def await_user(self, about: dict[str, Any]) -> None:
        """The command waits for the person in the tab (a hand-off): its caller hears so at once."""
        self.waiting_for = about
        self.set_status("awaiting_user")

    def finish(self, result: dict[str, Any]) -> None:
        self.result = result
        self.set_status("complete")

    def fail(self, error: TabpilotError) -> None:
        self.error = error
        self.set_status("error")

    def pending_view(self) -> dict[str, Any]:
        view: dict[str, Any] = {"status": self.status, "correlation_id": self.correlation_id}
        if self.status == "awaiting_user" and self.waiting_for is not None:
            return {**view, **self.waiting_for}
        if self.status != "queued" or self.steps_total is not None:
            view["steps_completed"] = self.steps_completed
            view["steps_total"] = self.steps_total
        return view

    def _wake(self) -> None:
        self.changed.set()
        self.changed = asyncio.Event()

    async def wait_changed(self, within_s: float | None) -> None:
        event = self.changed
        if within_s is not None and within_s <= 0:
            return
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(event.wait(), within_s)


KEEP_FINISHED = 200
KEEP_FOR_S = 15 * 60
KEEP_BYTES = 32 * 1024 * 1024
"""All kept finished results together, about (issue 18): screenshots, PDFs and pages read are a megabyte
or more each, and 200 of them held for 15 minutes kept the app 150 MB larger long after a busy minute."""


def result_size(value: Any, depth: int = 0) -> int:
    """About how many bytes a result holds: its strings' lengths, a few bytes for anything else."""
    if isinstance(value, str | bytes):
        return len(value) + 8
    if depth > 50:
        return 8
    if isinstance(value, dict):
        return 8 + sum(len(str(k)) + result_size(v, depth + 1) for k, v in value.items())
    if isinstance(value, list | tuple):
        return 8 + sum(result_size(v, depth + 1) for v in value)
    return 8


class JobTable:
    """Running jobs plus recent finished ones, looked up by correlation id. Finished results are kept
    for 15 minutes and at most the last 200, and no more than KEEP_BYTES of them together (the newest
    always: a caller told to fetch it later can)."""

    def __init__(
        self, keep_finished: int = KEEP_FINISHED, keep_for_s: float = KEEP_FOR_S, keep_bytes: int = KEEP_BYTES
    ) -> None:
        self._jobs: OrderedDict[str, Job] = OrderedDict()
        self._ended: OrderedDict[str, tuple[float, int]] = OrderedDict()
        """Finished jobs by when they ended (and their results' size), oldest first: trimming looks at the
        oldest only (a call's cost must not grow with the number of results kept)."""
        self._keep = keep_finished
        self._keep_for_s = keep_for_s
        self._keep_bytes = keep_bytes
        self._kept_bytes = 0

    def create(self, tool: str, mode: str, started: float) -> Job:
        job = Job(new_correlation_id(), tool, mode, started=started)
        self._jobs[job.correlation_id] = job
        return job

    def get(self, correlation_id: str) -> Job | None:
        return self._jobs.get(correlation_id)

    def running(self) -> list[Job]:
        return [j for j in self._jobs.values() if not j.done]

    def finished(self, job: Job, now: float) -> None:
        """A job just ended (every job is told here once it has): the newest results are kept, up to the
        count and for their time."""
        job.ended = now
        if job.correlation_id not in self._jobs:
            return
        self._jobs.move_to_end(job.correlation_id)
        size = result_size(job.result) + result_size(job.partial)
        if job.correlation_id in self._ended:
            self._kept_bytes -= self._ended[job.correlation_id][1]
        self._ended[job.correlation_id] = (now, size)
        self._ended.move_to_end(job.correlation_id)
        self._kept_bytes += size
        while self._ended:
            oldest, (ended, _size) = next(iter(self._ended.items()))
            over = len(self._ended) > self._keep or (self._kept_bytes > self._keep_bytes and len(self._ended) > 1)
            if not over and ended >= now - self._keep_for_s:
                break
            self._forget(oldest)

    def _forget(self, correlation_id: str) -> None:
        _ended, size = self._ended.pop(correlation_id)
        self._kept_bytes -= size
        self._jobs.pop(correlation_id, None)
