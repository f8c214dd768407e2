"""Runs (interface §5): every run of a workflow has a `run_id` and a record written as it goes; the runs
going on now can be stopped; `observe runs` and `configure stop_run` see and stop them.

A run is a record first: `run.json` is rewritten whole, atomically, after each step (RunRecordStore), with
`data.jsonl` beside it once rows come in, so what a run did is on disk whatever happens to the app next.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal, NotRequired, TypedDict

from tabpilot.engine.context import CommandContext
from tabpilot.engine.contract.args import Args, arg
from tabpilot.engine.contract.commands import Command
from tabpilot.engine.errors import TabpilotError, shown
from tabpilot.engine.per_engine import per_engine
from tabpilot.engine.safety.redact import typed, typed_param_names
from tabpilot.engine.safety.tab_locks import TabHold
from tabpilot.engine.workflows.runner import StepLog, WorkflowRunner
from tabpilot.engine.workflows.workflows import Workflow, scrub

log = logging.getLogger("tabpilot.runs")

RunStatus = Literal[
    "queued",
    "running",
    "awaiting_approval",
    "awaiting_user",
    "complete",
    "partial",
    "failed",
    "cancelled",
    "interrupted",
]
Trigger = Literal["agent", "tray"]
"""Who started a run: an agent's call (MCP or the CLI), or the person from the tray."""
ADHOC_FOLDER = ".adhoc"
"""Where the runs of a workflow that was never saved are kept (`scrape workflow` without record): its
generated workflow_id names no file and may be given to a recorded workflow later, whose runs these are not.
No workflow_id starts with a dot, so the name is free."""
RUNS_LISTED = 100
"""`observe runs` answers with at most this many, newest first."""
STOP_WAIT_S = 2.0
"""How long stop_run waits for the run to end before answering (a stop takes effect between steps or by
interrupting the current one: milliseconds)."""


def new_run_id(now: datetime) -> str:
    """`run-20260128-101500-123-a1b2c3`: sorts by when the run started (folders are trimmed by that order)."""
    return f"run-{now:%Y%m%d-%H%M%S}-{now.microsecond // 1000:03d}-{secrets.token_hex(3)}"


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


class RunError(TypedDict):
    code: str
    message: str


class RunRecord(TypedDict):
    run_id: str
    workflow_id: str
    status: RunStatus
    trigger: Trigger
    started_by: str
    """The name the caller reported (an agent's client), or `you (tray)`."""
    started_at: str
    finished_at: str | None
    correlation_id: str
    params: dict[str, Any]
    """Secrets as `{{secret:NAME}}`; a value typed into a page as its length only."""
    steps_total: int
    steps: list[StepLog]
    rows: int
    warnings: list[str]
    error: NotRequired[RunError]


class RunSummary(TypedDict):
    run_id: str
    workflow_id: str
    status: RunStatus
    trigger: Trigger
    started_at: str
    finished_at: str | None
    steps_completed: int
    steps_total: int
    rows: int
    warnings: list[str]


class RunDetail(RunSummary):
    started_by: str
    params: dict[str, Any]
    steps: list[StepLog]
    error: NotRequired[RunError]


@dataclass
class LiveRun:
    """A run going on now: its record (saved after each step), the runner that can be stopped, its tab."""

    ctx: CommandContext
    folder: str
    record: RunRecord
    runner: WorkflowRunner
    hold: TabHold
    tab_id: int
    secrets: dict[str, str]
    ended: asyncio.Event = field(default_factory=asyncio.Event)
    _rows_saved: int = 0

    @property
    def run_id(self) -> str:
        return self.record["run_id"]

    def save(self) -> None:
        """The record as it stands, whole and atomically; the rows when there are new ones."""
        store = self.ctx.engine.run_records
        try:
            store.write(self.folder, scrub(dict(self.record), self.secrets))
            rows = self.runner.outcome.extracted.rows
            if len(rows) != self._rows_saved:
                store.write_rows(self.folder, self.run_id, scrub(rows, self.secrets))
                self._rows_saved = len(rows)
        except OSError as exc:  # a full disk must not end the run: its answer still carries its rows
            log.warning("the record of run %s could not be written: %s", self.run_id, exc)

    def step_done(self, entry: StepLog) -> None:
        self.record["steps"].append(entry)
        self.record["rows"] = len(self.runner.outcome.extracted.rows)
        self.record["warnings"] = list(self.runner.outcome.extracted.warnings)
        self.save()

    def finish(self, status: RunStatus, error: TabpilotError | None = None) -> None:
        self.record["status"] = status
        self.record["finished_at"] = _now()
        self.record["rows"] = len(self.runner.outcome.extracted.rows)
        self.record["warnings"] = list(self.runner.outcome.extracted.warnings)
        if error is not None:
            self.record["error"] = {"code": error.code, "message": error.message}
        self.save()


@dataclass
class ActiveRuns:
    by_id: dict[str, LiveRun] = field(default_factory=dict)

    def find(self, run_id: str | None, correlation_id: str | None) -> LiveRun | None:
        if run_id is not None:
            return self.by_id.get(run_id)
        return next((r for r in self.by_id.values() if r.record["correlation_id"] == correlation_id), None)


active_runs = per_engine(lambda engine: ActiveRuns())


def start_run(
    ctx: CommandContext,
    workflow: Workflow,
    runner: WorkflowRunner,
    tab_id: int,
    secrets_used: dict[str, str],
    *,
    saved: bool,
) -> LiveRun:
    """The run's record (status running), its tab taken (nothing else acts there until it ends), and the
    runner told to write the record after each step."""
    run_id = new_run_id(datetime.now(UTC))
    typed_names = typed_param_names(workflow.steps)
    record: RunRecord = {
        "run_id": run_id,
        "workflow_id": workflow.workflow_id,
        "status": "running",
        "trigger": "tray" if ctx.session.person else "agent",
        "started_by": ctx.agent,
        "started_at": _now(),
        "finished_at": None,
        "correlation_id": ctx.job.correlation_id,
        "params": {k: typed(v) if k in typed_names else v for k, v in workflow.params.items()},
        "steps_total": len(runner.steps),
        "steps": [],
        "rows": 0,
        "warnings": [],
    }
    hold = TabHold(run_id, workflow.workflow_id)
    ctx.engine.tab_locks.take(tab_id, hold)
    live = LiveRun(ctx, workflow.workflow_id if saved else ADHOC_FOLDER, record, runner, hold, tab_id, secrets_used)
    runner.on_step = live.step_done
    active_runs(ctx.engine).by_id[run_id] = live
    live.save()
    return live


def end_run(live: LiveRun) -> None:
    """The tab given back and the run off the list of runs going on (its record is final by now)."""
    live.ctx.engine.tab_locks.release(live.tab_id, live.hold)
    active_runs(live.ctx.engine).by_id.pop(live.run_id, None)
    if live.record["status"] == "running":  # ended by something other than its steps: the app stopping
        live.finish("interrupted")
    live.ended.set()


# -- observe runs, configure stop_run ----------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class RunsArgs(Args):
    workflow_id: str | None = arg("only this workflow's runs", default=None)
    run_id: str | None = arg("one run, with its step log", default=None)


@dataclass(frozen=True, kw_only=True)
class StopRunArgs(Args):
    run_id: str | None = arg("the run to stop", default=None)
    correlation_id: str | None = arg("or the call that started it", default=None)


class Runs(TypedDict):
    runs: list[RunDetail] | list[RunSummary]


class Stopped(TypedDict):
    run_id: str
    workflow_id: str
    status: RunStatus
    rows: int
    steps_completed: int
    steps_total: int


def _completed(record: dict[str, Any]) -> int:
    return sum(1 for s in record.get("steps", []) if isinstance(s, dict) and s.get("status") in ("complete", "skipped"))


def _summary(record: dict[str, Any]) -> RunSummary:
    return {
        "run_id": str(record.get("run_id")),
        "workflow_id": str(record.get("workflow_id")),
        "status": record.get("status", "interrupted"),
        "trigger": record.get("trigger", "agent"),
        "started_at": str(record.get("started_at")),
        "finished_at": record.get("finished_at"),
        "steps_completed": _completed(record),
        "steps_total": int(record.get("steps_total") or 0),
        "rows": int(record.get("rows") or 0),
        "warnings": list(record.get("warnings") or []),
    }


def _detail(record: dict[str, Any]) -> RunDetail:
    s = _summary(record)
    detail: RunDetail = {
        "run_id": s["run_id"],
        "workflow_id": s["workflow_id"],
        "status": s["status"],
        "trigger": s["trigger"],
        "started_at": s["started_at"],
        "finished_at": s["finished_at"],
        "steps_completed": s["steps_completed"],
        "steps_total": s["steps_total"],
        "rows": s["rows"],
        "warnings": s["warnings"],
        "started_by": str(record.get("started_by", "")),
        "params": dict(record.get("params") or {}),
        "steps": list(record.get("steps") or []),
    }
    if isinstance(record.get("error"), dict):
        detail["error"] = record["error"]
    return detail


def _run_not_found(run_id: str | None, correlation_id: str | None) -> TabpilotError:
    named = f"run_id {shown(run_id)}" if run_id is not None else f"correlation_id {shown(correlation_id)}"
    return TabpilotError(
        "run_not_found",
        f"No run has the {named}; observe {{what:'runs'}} lists them.",
        **({"run_id": run_id} if run_id is not None else {"correlation_id": correlation_id}),
    )


def _record(ctx: CommandContext, run_id: str) -> dict[str, Any] | None:
    live = active_runs(ctx.engine).by_id.get(run_id)
    return dict(live.record) if live is not None else ctx.engine.run_records.record(run_id)


async def _observe_runs(ctx: CommandContext, a: RunsArgs) -> Runs:
    if a.run_id is not None:
        record = _record(ctx, a.run_id)
        if record is None or (a.workflow_id is not None and record.get("workflow_id") != a.workflow_id):
            raise _run_not_found(a.run_id, None)
        return {"runs": [_detail(record)]}
    store = ctx.engine.run_records
    if a.workflow_id is None:
        found = store.records()
    else:  # its folder, and the runs of an unsaved workflow with that generated id
        unsaved = [r for r in store.records(ADHOC_FOLDER) if r.get("workflow_id") == a.workflow_id]
        found = sorted(store.records(a.workflow_id) + unsaved, key=lambda r: str(r.get("run_id")), reverse=True)
    return {"runs": [_summary(r) for r in found[:RUNS_LISTED]]}


async def _stop_run(ctx: CommandContext, a: StopRunArgs) -> Stopped:
    if (a.run_id is None) == (a.correlation_id is None):
        raise TabpilotError(
            "invalid_params", "stop_run takes a run_id or a correlation_id (one of them).", param="run_id"
        )
    live = active_runs(ctx.engine).find(a.run_id, a.correlation_id)
    if live is not None:
        live.runner.stop()
        try:
            await asyncio.wait_for(live.ended.wait(), STOP_WAIT_S)
        except TimeoutError:
            log.warning("run %s had not ended %s s after it was asked to stop", live.run_id, STOP_WAIT_S)
        record: dict[str, Any] = dict(live.record)
    else:
        found = _record(ctx, a.run_id) if a.run_id is not None else None
        if found is None and a.correlation_id is not None:
            found = next(
                (r for r in ctx.engine.run_records.records() if r.get("correlation_id") == a.correlation_id), None
            )
        if found is None:
            raise _run_not_found(a.run_id, a.correlation_id)
        record = found  # it has ended already: its status says how
    summary = _summary(record)
    return {
        "run_id": summary["run_id"],
        "workflow_id": summary["workflow_id"],
        "status": summary["status"],
        "rows": summary["rows"],
        "steps_completed": summary["steps_completed"],
        "steps_total": summary["steps_total"],
    }


RUN_EXAMPLE: RunSummary = {
    "run_id": "run-20260101-090000-123-a1b2c3",
    "workflow_id": "wf-news-20260101",
    "status": "complete",
    "trigger": "agent",
    "started_at": "2026-01-01T09:00:00.123+00:00",
    "finished_at": "2026-01-01T09:00:01.935+00:00",
    "steps_completed": 2,
    "steps_total": 2,
    "rows": 2,
    "warnings": [],
}

COMMANDS: list[Command[Any]] = [
    Command(
        "observe",
        "runs",
        "read",
        "workflow runs, newest first (run_id: one, with its step log)",
        _observe_runs,
        RunsArgs,
        returns=Runs,
        result="{runs:[{run_id, workflow_id, status, trigger, started_at, finished_at, steps_completed, "
        "steps_total, rows, warnings}]}; with run_id: that run plus {started_by, params, steps, error?}",
        notes="Statuses: running, complete, partial (ended early, rows kept), failed, cancelled, interrupted. "
        "Records are kept in runs/<workflow_id>/<run_id>/ (run.json, data.jsonl), the newest 50 per workflow.",
        example_result={"runs": [RUN_EXAMPLE]},
    ),
    Command(
        "configure",
        "stop_run",
        "config",
        "stop a running workflow (rows kept)",
        _stop_run,
        StopRunArgs,
        returns=Stopped,
        notes="The run ends between steps, or its current step (a wait, a delay) is interrupted; it keeps the "
        "rows it read and ends `cancelled`. A run that has ended already answers with its status.",
        example={"run_id": "run-20260101-090000-123-a1b2c3"},
        example_result={
            "run_id": "run-20260101-090000-123-a1b2c3",
            "workflow_id": "wf-news-20260101",
            "status": "cancelled",
            "rows": 2,
            "steps_completed": 1,
            "steps_total": 3,
        },
    ),
]
