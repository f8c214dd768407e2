"""`interact {action:"scrape"}`: one call for structured data — extract, workflow (recordable), replay."""

from __future__ import annotations

import copy
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal, NotRequired, TypedDict, cast

from tabpilot.engine.context import CommandContext
from tabpilot.engine.contract import results
from tabpilot.engine.contract.args import FrameArgs, TabArgs, arg
from tabpilot.engine.contract.commands import ApprovalScope, Command
from tabpilot.engine.contract.params import Param
from tabpilot.engine.contract.placeholders import PLACEHOLDER
from tabpilot.engine.contract.steps import page_changing_kinds
from tabpilot.engine.errors import TabpilotError
from tabpilot.engine.safety.policy import steps_hash
from tabpilot.engine.safety.sites import origin_of
from tabpilot.engine.workflows.extract import (
    DEFAULT_ELEMENT_TIMEOUT_MS,
    DEFAULT_MAX_PAGES,
    Pagination,
    check_extract_options,
    extract,
)
from tabpilot.engine.workflows.extract_spec import parse_schema
from tabpilot.engine.workflows.runner import RunOutcome, RunStopped, StepError, StepFailed, WorkflowRunner
from tabpilot.engine.workflows.runs import LiveRun, end_run, start_run
from tabpilot.engine.workflows.workflows import (
    MAX_STEPS,
    Workflow,
    apply_overrides,
    check_error_recovery,
    check_params,
    check_steps,
    check_url,
    navigate_urls,
    new_workflow_id,
    parse_workflow,
    refuse_literal_secrets,
    refuse_refs,
    resolve,
    scrub,
    walk_steps,
)

RUNS_KEPT = 10
KEEPS_PARTIAL = ("navigation_redirect", "tab_closed", "extension_not_connected")
"""Failures that keep the rows of completed steps even under on_failure:abort (seed 000's edge cases)."""

WAIT = Param("wait_ms", "integer", "answer 'running' after (default 30000)", minimum=0, maximum=600_000)


@dataclass(frozen=True, kw_only=True)
class ExtractArgs(FrameArgs):
    selector: str = arg("CSS selector of the rows")
    schema: dict[str, Any] = arg("{field:'css | text|html|attr:N|number|boolean'} or JSON Schema (x-selector)")
    options: dict[str, Any] | None = arg(
        "{wait_for, timeout_ms, paginate:{next_selector, max_pages, delay_ms}}", default=None
    )


@dataclass(frozen=True, kw_only=True)
class RunArgs(TabArgs):
    params: dict[str, Any] | None = arg("values for {{name}}", default=None)
    step_delay_ms: int | None = arg("default 500", default=None, minimum=0, maximum=60_000)


@dataclass(frozen=True, kw_only=True)
class WorkflowArgs(RunArgs):
    steps: list[Any] = arg("[{type: <step kind>, ...}]: observe {what:'help', mode:'workflow'} lists the kinds")
    name: str | None = arg("workflow name", default=None)
    error_recovery: dict[str, Any] | None = arg(
        "{on_timeout: retry_step|skip|abort, max_retries, on_failure}", default=None
    )
    record: bool = arg("save it", default=False)


@dataclass(frozen=True, kw_only=True)
class ReplayArgs(RunArgs):
    workflow_id: str = arg("a saved workflow's id")
    override_params: dict[str, Any] | None = arg("{'steps[0].url':..,'params.N':..}", default=None)
    allow_domain_change: bool = arg("replay on another site", default=False)


class ExtractMetadata(TypedDict):
    pages_scraped: int
    rows_extracted: int
    duration_ms: int
    url: str
    errors: list[StepError]
    warnings: list[str]
    truncated: NotRequired[Literal[True]]
    pagination: NotRequired[str]
    """How the pages came: navigate, replace or append."""
    validation_errors: NotRequired[list[dict[str, Any]]]


class RunMetadata(ExtractMetadata):
    workflow_id: str
    recorded: NotRequired[Literal[True]]
    replayed_from: NotRequired[str]


class Scraped(TypedDict):
    status: Literal["complete"]
    correlation_id: str
    data: list[dict[str, Any]]
    """The rows."""
    metadata: ExtractMetadata


class WorkflowRun(TypedDict):
    status: Literal["complete", "cancelled"]
    """`cancelled`: stopped (configure stop_run) before its last step; the rows read until then are kept."""
    correlation_id: str
    run_id: str
    """Its record: observe {what:'runs', run_id}."""
    workflow_id: str
    steps_completed: int
    steps_total: int
    data: list[dict[str, Any]]
    metadata: RunMetadata


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


# -- extract -----------------------------------------------------------------------------------------


async def _extract(ctx: CommandContext, a: ExtractArgs) -> Scraped:
    schema = parse_schema(a.schema)
    options = check_extract_options(a.options)
    started = time.monotonic()
    out = await extract(
        ctx,
        tab_id=a.tab_id,
        frame=a.frame,
        selector=a.selector,
        schema=schema,
        wait_for=options.get("wait_for"),
        timeout_ms=options.get("timeout_ms", DEFAULT_ELEMENT_TIMEOUT_MS),
        paginate=Pagination.of(options.get("paginate")),
    )
    metadata: ExtractMetadata = {
        "pages_scraped": out.pages,
        "rows_extracted": len(out.rows),
        "duration_ms": round((time.monotonic() - started) * 1000),
        "url": out.url,
        "errors": [],
        "warnings": out.warnings,
    }
    if out.truncated:
        metadata["truncated"] = True
    if out.pagination:
        metadata["pagination"] = out.pagination
    if schema.row_schema is not None:
        metadata["validation_errors"] = out.validation_errors
    return {"status": "complete", "correlation_id": ctx.job.correlation_id, "data": out.rows, "metadata": metadata}


# -- workflows ---------------------------------------------------------------------------------------


async def _workflow(ctx: CommandContext, a: WorkflowArgs) -> WorkflowRun:
    name = (a.name or "workflow").strip() or "workflow"
    steps = check_steps(a.steps)
    if not steps:
        raise TabpilotError("invalid_params", "scrape workflow: a workflow needs at least one step.", param="steps")
    workflow = Workflow(
        workflow_id="",
        name=name,
        steps=steps,
        error_recovery=check_error_recovery(a.error_recovery),
        params=check_params(a.params),
        created_at=_now(),
    )
    _check_size(workflow)
    store = ctx.engine.workflows
    exists = (lambda wid: store.get(wid) is not None) if store is not None else (lambda wid: False)
    workflow.workflow_id = new_workflow_id(name, datetime.now(UTC).date(), exists)
    tab = await ctx.browser_request("tabs.resolve", {"tab_id": a.tab_id})
    urls = navigate_urls(steps)
    workflow.origin = origin_of(_fill_params(urls[0], workflow.params)) if urls else origin_of(str(tab.get("url", "")))
    recorded = a.record
    if recorded:
        if store is None:
            raise TabpilotError("not_supported", "This Tabpilot has no workflow folder to record into.")
        refuse_literal_secrets(workflow)
        refuse_refs(workflow)
        _preflight(ctx.engine, workflow, int(tab["tab_id"]))  # a refused workflow is not recorded
        store.save(workflow)
        ctx.engine.workflow_authors[workflow.workflow_id] = ctx.session.key
    return await _run(ctx, workflow, int(tab["tab_id"]), a.step_delay_ms, recorded=recorded, replayed=False)


async def _replay(ctx: CommandContext, a: ReplayArgs) -> WorkflowRun:
    saved = _approved_copy(ctx, a.workflow_id)
    doc = saved.document()
    if a.params:
        doc["params"] = {**doc.get("params", {}), **check_params(a.params)}
    workflow = parse_workflow(apply_overrides(doc, a.override_params), where="override_params")
    tab = await ctx.browser_request("tabs.resolve", {"tab_id": a.tab_id})
    if not a.allow_domain_change:
        _check_domain(saved, workflow, str(tab.get("url", "")))
    return await _run(ctx, workflow, int(tab["tab_id"]), a.step_delay_ms, recorded=False, replayed=True)


def _approved_copy(ctx: CommandContext, workflow_id: str) -> Workflow:
    """The saved workflow as it was read when the call arrived, and shown to the person if a prompt asked:
    the file is not read again, so an overwrite while the prompt waits changes nothing that runs."""
    if isinstance(ctx.pinned, Workflow) and ctx.pinned.workflow_id == workflow_id:
        return ctx.pinned
    _load(ctx, workflow_id)  # not there, or not valid: its own error
    raise TabpilotError(  # it appeared after the call was checked: nobody saw what it would do
        "workflow_not_found",
        f"The workflow '{workflow_id}' was saved while this replay was being checked; call again.",
        workflow_id=workflow_id,
    )


def _load(ctx: CommandContext, workflow_id: str) -> Workflow:
    store = ctx.engine.workflows
    entry = store.get(workflow_id) if store is not None else None
    if entry is None:
        raise TabpilotError(
            "workflow_not_found",
            f"No saved workflow has the id '{workflow_id}'; observe {{what:'workflows'}} lists them.",
            workflow_id=workflow_id,
        )
    if entry.workflow is None:
        raise TabpilotError(
            "invalid_params",
            f"The workflow file {entry.file} is not valid: {entry.error}",
            workflow_id=workflow_id,
        )
    return entry.workflow


def _fill_params(text: str, params: dict[str, str]) -> str:
    """`{{name}}` (and `{{ name }}`) filled from params, as `resolve` does; secrets and unknowns stay."""
    return PLACEHOLDER.sub(lambda m: m.group(0) if m.group(1) else params.get(m.group(2), m.group(0)), text)


def _check_domain(saved: Workflow, effective: Workflow, tab_url: str) -> None:
    """Domain lock: a replay may only open the sites the workflow was recorded on."""
    allowed = {saved.origin} | {origin_of(_fill_params(u, saved.params)) for u in navigate_urls(saved.steps)}
    allowed.discard("")
    targets = [origin_of(_fill_params(u, effective.params)) for u in navigate_urls(effective.steps)]
    if not targets and tab_url:
        targets = [origin_of(tab_url)]
    for origin in targets:
        if allowed and origin and origin not in allowed:
            raise TabpilotError(
                "domain_changed",
                f"The workflow was recorded on {saved.origin or ', '.join(sorted(allowed))}; this replay would run "
                f"on {origin}. Pass allow_domain_change:true if that is intended.",
                recorded_origin=saved.origin,
                origin=origin,
            )


def _check_size(workflow: Workflow) -> None:
    count = workflow.step_count()
    if count > MAX_STEPS:
        raise TabpilotError("invalid_params", f"{count} steps; a workflow may have at most {MAX_STEPS}.", param="steps")


async def _run(
    ctx: CommandContext, workflow: Workflow, tab_id: int, delay: int | None, *, recorded: bool, replayed: bool
) -> WorkflowRun:
    engine = ctx.engine
    _preflight(engine, workflow, tab_id)
    steps, secrets = resolve(workflow.steps, workflow.params, engine.secrets.get)
    engine.known_secrets.update(secrets)
    for url in navigate_urls(steps):
        check_url(url)
    runner = WorkflowRunner(
        ctx,
        steps,
        tab_id=tab_id,
        recovery=workflow.error_recovery,
        step_delay_ms=engine.config.step_delay_ms if delay is None else delay,
    )
    live = start_run(ctx, workflow, runner, tab_id, secrets, saved=recorded or replayed)
    started_at, started = _now(), time.monotonic()
    failure: StepFailed | None = None
    stopped = False
    try:
        try:
            outcome = await runner.run()
        except StepFailed as exc:
            failure, outcome = exc, runner.outcome
        except RunStopped:
            stopped, outcome = True, runner.outcome
        ended = _Ended(outcome, failure, stopped, started, started_at)
        return _finish(ctx, workflow, live, steps, secrets, ended, recorded=recorded, replayed=replayed)
    finally:
        end_run(live)


@dataclass(frozen=True)
class _Ended:
    """How a run's steps ended: all done, one failed, or stopped; and when it started."""

    outcome: RunOutcome
    failure: StepFailed | None
    stopped: bool
    started: float
    started_at: str


def _finish(
    ctx: CommandContext,
    workflow: Workflow,
    live: LiveRun,
    steps: list[dict[str, Any]],
    secrets: dict[str, str],
    ended: _Ended,
    *,
    recorded: bool,
    replayed: bool,
) -> WorkflowRun:
    """The run's answer (or its error), and its record's last state."""
    outcome, failure, stopped, started = ended.outcome, ended.failure, ended.stopped, ended.started
    extracted = outcome.extracted
    metadata: RunMetadata = {
        "duration_ms": round((time.monotonic() - started) * 1000),
        "workflow_id": workflow.workflow_id,
        "pages_scraped": extracted.pages,
        "rows_extracted": len(extracted.rows),
        "url": extracted.url,
        "errors": outcome.errors,
        "warnings": extracted.warnings,
    }
    if extracted.pagination:
        metadata["pagination"] = extracted.pagination
    if recorded:
        metadata["recorded"] = True
    if replayed:
        metadata["replayed_from"] = workflow.workflow_id
    if extracted.truncated:
        metadata["truncated"] = True
    if extracted.validation_errors:
        metadata["validation_errors"] = extracted.validation_errors
    built: WorkflowRun = {
        "status": "cancelled" if stopped else "complete",
        "correlation_id": ctx.job.correlation_id,
        "run_id": live.run_id,
        "workflow_id": workflow.workflow_id,
        "steps_completed": outcome.steps_completed,
        "steps_total": len(steps),
        "data": extracted.rows,
        "metadata": metadata,
    }
    # scrub() replaces secret values inside the answer, its shape kept: the same WorkflowRun.
    result = results.relayed(WorkflowRun, scrub(built, secrets))
    error: TabpilotError | None = None
    if failure is not None:
        cause = failure.error
        keep = workflow.error_recovery.on_failure != "abort" or cause.code in KEEPS_PARTIAL
        details = {k: v for k, v in cause.details.items() if k not in ("correlation_id",)}
        details = {
            **scrub(details, secrets),  # the wire's details first: ours win where names clash
            "run_id": live.run_id,
            "workflow_id": workflow.workflow_id,
            "failed_step": failure.index,
            "steps_completed": outcome.steps_completed,
            "steps_total": len(steps),
            "data": result["data"] if keep else [],
            # rows_extracted counts what the answer carries: none when `abort` drops the partial data
            "metadata": result["metadata"]
            if keep
            else {**cast("dict[str, Any]", result["metadata"]), "rows_extracted": 0},
        }
        error = TabpilotError(
            cause.code,
            scrub(f"Step {failure.index} ({_step_at(steps, failure.index)}) failed: {cause.message}", secrets),
            **details,
        )
        live.finish("partial" if keep and extracted.rows else "failed", error)
    else:
        live.finish("cancelled" if stopped else "complete")
    _keep_run(ctx, workflow, ended.started_at, result, error, recorded or replayed)
    if error is not None:
        raise error
    return result


def _preflight(engine: Any, workflow: Workflow, tab_id: int) -> None:
    """What refuses a workflow before any step runs (and before it is recorded)."""
    engine.tab_locks.check(tab_id)  # a run in this tab already (the gate checked too: a tab looked up since)
    _refuse_page_actions(engine, workflow.steps)
    for url in navigate_urls(workflow.steps):
        filled = _fill_params(url, workflow.params)
        if "{{" not in filled:  # secrets are checked once resolved, just before the run
            check_url(filled)


def _refuse_page_actions(engine: Any, steps: list[dict[str, Any]], what: str = "This workflow") -> None:
    """Page-changing actions switched off in the tray: no click, typing or next-page click either."""
    if not engine.pilot.allows("page_actions") and page_changing_steps(steps):
        raise TabpilotError(
            "ai_web_pilot_disabled",
            f"{what} clicks or types, and page-changing actions are switched off in the Tabpilot tray.",
            capability="page_actions",
        )


def _step_at(steps: list[dict[str, Any]], index: str) -> str:
    head = index.split(".", 1)[0]
    return str(steps[int(head)]["type"]) if head.isdigit() and int(head) < len(steps) else "step"


def _keep_run(
    ctx: CommandContext,
    workflow: Workflow,
    started_at: str,
    result: WorkflowRun,
    error: TabpilotError | None,
    saved: bool,
) -> None:
    store = ctx.engine.workflows
    if store is None or not saved:
        return
    run = {
        "run_id": result["run_id"],
        "correlation_id": ctx.job.correlation_id,
        "started_at": started_at,
        "finished_at": _now(),
        "status": "error" if error else result["status"],
        "error": error.code if error else None,
        "message": error.message if error else None,
        "steps_completed": result["steps_completed"],
        "steps_total": result["steps_total"],
        "data": error.details.get("data", []) if error else result["data"],
        "metadata": result["metadata"],
    }
    store.add_run(workflow.workflow_id, run)


# -- approval: a workflow is approved as a unit ----------------------------------------------------


def next_page_click(paginate: dict[str, Any]) -> dict[str, Any]:
    """Pagination as the page-changing step it is: a click on `next_selector`, up to max_pages - 1 times."""
    clicks = int(paginate.get("max_pages", DEFAULT_MAX_PAGES)) - 1
    return {
        "type": "click",
        "selector": paginate["next_selector"],
        "purpose": f"next page (pagination), up to {clicks} click{'s' if clicks != 1 else ''}",
    }


def page_changing_steps(steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every step that changes a page, a pagination click of an extract step included."""
    out: list[dict[str, Any]] = []
    for step in walk_steps(steps):
        if not isinstance(step, dict):
            continue
        if step.get("type") in page_changing_kinds():
            out.append(dict(step))
        elif step.get("type") == "extract" and isinstance(step.get("paginate"), dict):
            out.append(next_page_click(step["paginate"]))
    return out


def _approval_steps(engine: Any, p: dict[str, Any]) -> ApprovalScope | None:
    operation = p.get("operation")
    workflow_id, digest = "", ""
    pinned: Workflow | None = None
    if operation == "extract":
        # Following `next` clicks in the page the tab shows: approved like any click (a next_selector
        # can name any button, a delete button too).
        paginate = check_extract_options(p.get("options")).get("paginate")
        if not paginate:
            return None
        click = next_page_click(paginate)
        _refuse_page_actions(engine, [click], "Paginating")
        return ApprovalScope(steps=[click], selector=paginate["next_selector"], acts_on_current_tab=True)
    if operation == "workflow" and isinstance(p.get("steps"), list):
        steps = check_steps(p["steps"])
        params = check_params(p.get("params"))
    elif operation == "replay" and isinstance(p.get("workflow_id"), str) and engine.workflows is not None:
        entry = engine.workflows.get(p["workflow_id"])
        if entry is None or entry.workflow is None:
            return None
        pinned = copy.deepcopy(entry.workflow)  # read once: the replay runs this copy (see _approved_copy)
        doc = pinned.document()
        doc["params"] = {**doc["params"], **check_params(p.get("params"))}
        doc = apply_overrides(doc, p.get("override_params"))  # as _replay builds it
        steps = check_steps(doc.get("steps"))
        params = check_params(doc.get("params"))
        # An "always allow" answer binds to the steps and the values they run with: a changed
        # param (another host, another account) asks again.
        workflow_id, digest = pinned.workflow_id, steps_hash({"steps": steps, "params": params})
    else:
        return None
    # The sites these steps will act on, not the recorded origin: a replay may have been moved to
    # another site (overrides, params, allow_domain_change), and a rule for one site must not cover it.
    origins = sorted({origin_of(_fill_params(u, params)) for u in navigate_urls(steps)} - {""})
    origin = " ".join(origins)  # none: the tab's (the engine looks it up); several: no one-site rule matches
    changing = page_changing_steps(steps)
    if changing:
        _refuse_page_actions(engine, steps)  # before a prompt for something that would be refused anyway
    return ApprovalScope(
        steps=changing,
        origin=origin,
        workflow_id=workflow_id,
        steps_hash=digest,
        acts_on_current_tab=_changes_before_navigating(steps),
        pinned=pinned,
    )


def _changes_before_navigating(steps: list[dict[str, Any]]) -> bool:
    """Does a page-changing step come before the first navigate (acting on whatever the tab shows)?"""
    for step in walk_steps(steps):
        if step.get("type") == "navigate":
            return False
        if step.get("type") in page_changing_kinds() or (step.get("type") == "extract" and step.get("paginate")):
            return True
    return False


def _scrape(
    operation: str,
    summary: str,
    handler: Any,
    args: type[TabArgs],
    returns: type[Scraped] | type[WorkflowRun],
    example: dict[str, Any],
    example_result: dict[str, Any],
) -> Command[Any]:
    return Command(
        "interact",
        "scrape",
        "navigate",
        summary,
        handler,
        args,
        operation=operation,
        returns=returns,
        example=example,
        example_result=example_result,
        ops=("tabs.resolve", "dom.wait", "scrape.extract", "scrape.next_page")
        if operation == "extract"
        else ("tabs.resolve",),
        pilot_gated=True,
        capability="scrape",
        wait=WAIT,
        approval_steps=lambda engine, p, _caller: _approval_steps(engine, {**p, "operation": operation}),
    )


ROWS = [{"title": "First story", "points": 120}, {"title": "Second story", "points": 87}]

COMMANDS: list[Command[Any]] = [
    _scrape(
        "extract",
        "typed rows in one call",
        _extract,
        ExtractArgs,
        Scraped,
        {"selector": ".story", "schema": {"title": "h2 | text", "points": ".points | number"}},
        {
            "status": "complete",
            "correlation_id": "corr-1a2b3c4d5e6f",
            "data": ROWS,
            "metadata": {
                "pages_scraped": 1,
                "rows_extracted": 2,
                "duration_ms": 38,
                "url": "https://example.com/",
                "errors": [],
                "warnings": [],
            },
        },
    ),
    _scrape(
        "workflow",
        "run steps (record:true saves them)",
        _workflow,
        WorkflowArgs,
        WorkflowRun,
        {
            "name": "news",
            "steps": [
                {"type": "navigate", "url": "https://example.com/"},
                {"type": "extract", "selector": ".story", "schema": {"title": "h2 | text"}},
            ],
        },
        {
            "status": "complete",
            "correlation_id": "corr-1a2b3c4d5e6f",
            "run_id": "run-20260101-090000-123-a1b2c3",
            "workflow_id": "wf-news-20260101",
            "steps_completed": 2,
            "steps_total": 2,
            "data": [{"title": "First story"}, {"title": "Second story"}],
            "metadata": {
                "pages_scraped": 1,
                "rows_extracted": 2,
                "duration_ms": 812,
                "url": "https://example.com/",
                "workflow_id": "wf-news-20260101",
                "errors": [],
                "warnings": [],
            },
        },
    ),
    _scrape(
        "replay",
        "a saved workflow again",
        _replay,
        ReplayArgs,
        WorkflowRun,
        {"workflow_id": "wf-news-20260101", "params": {"query": "tabs"}},
        {
            "status": "complete",
            "correlation_id": "corr-1a2b3c4d5e6f",
            "run_id": "run-20260101-090000-123-a1b2c3",
            "workflow_id": "wf-news-20260101",
            "steps_completed": 2,
            "steps_total": 2,
            "data": [{"title": "First story"}],
            "metadata": {
                "pages_scraped": 1,
                "rows_extracted": 1,
                "duration_ms": 640,
                "url": "https://example.com/",
                "workflow_id": "wf-news-20260101",
                "replayed_from": "wf-news-20260101",
                "errors": [],
                "warnings": [],
            },
        },
    ),
]
