"""Saved workflows as agents see them: list and read (observe), export, import, delete (configure)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal, NotRequired, TypedDict

from tabpilot.engine.artifacts.generate import WorkflowIdArgs
from tabpilot.engine.context import CommandContext
from tabpilot.engine.contract import results
from tabpilot.engine.contract.args import Args, arg
from tabpilot.engine.contract.commands import ApprovalScope, Command
from tabpilot.engine.errors import TabpilotError, shown
from tabpilot.engine.ports import WorkflowEntry, WorkflowStore
from tabpilot.engine.safety.tab_owners import Session
from tabpilot.engine.workflows.workflows import MAX_FILE_BYTES, parse_workflow, refuse_literal_secrets


def _store(ctx: CommandContext) -> WorkflowStore:
    if ctx.engine.workflows is None:
        raise TabpilotError("not_supported", "This Tabpilot has no workflow folder.")
    return ctx.engine.workflows


def _entry(ctx: CommandContext, workflow_id: str) -> WorkflowEntry:
    entry = _store(ctx).get(workflow_id)
    if entry is None:
        raise TabpilotError(
            "workflow_not_found",
            f"No saved workflow has the id {shown(workflow_id)}; observe {{what:'workflows'}} lists them.",
            workflow_id=workflow_id,
        )
    return entry


class WorkflowSummary(TypedDict):
    workflow_id: str
    file: str
    name: NotRequired[str]
    origin: NotRequired[str]
    steps: NotRequired[int]
    params: NotRequired[list[str]]
    error: NotRequired[str | None]
    """Instead of name, origin, steps and params: why the file is not a valid workflow."""
    last_run: str | None
    last_status: str | None


class Exported(TypedDict):
    workflow_id: str
    workflow: dict[str, Any]


class Imported(TypedDict):
    workflow_id: str
    imported: Literal[True]
    steps: int


class Deleted(TypedDict):
    workflow_id: str
    deleted: Literal[True]


class WorkflowDetail(WorkflowSummary):
    workflow: dict[str, Any] | None
    runs: list[dict[str, Any]]


class Observed(TypedDict):
    """The list, or with workflow_id that one workflow with its runs (what the docs and checks read)."""

    workflows: NotRequired[list[WorkflowSummary]]
    workflow_id: NotRequired[str]
    file: NotRequired[str]
    name: NotRequired[str]
    origin: NotRequired[str]
    steps: NotRequired[int]
    params: NotRequired[list[str]]
    error: NotRequired[str | None]
    last_run: NotRequired[str | None]
    last_status: NotRequired[str | None]
    workflow: NotRequired[dict[str, Any] | None]
    runs: NotRequired[list[dict[str, Any]]]


def summary(entry: WorkflowEntry) -> WorkflowSummary:
    item: WorkflowSummary = {
        "workflow_id": entry.workflow_id,
        "file": entry.file,
        "last_run": entry.last_run,
        "last_status": entry.last_status,
    }
    if entry.workflow is not None:
        item["name"] = entry.workflow.name
        item["origin"] = entry.workflow.origin
        item["steps"] = entry.workflow.step_count()
        item["params"] = sorted(entry.workflow.params)
    else:
        item["error"] = entry.error
    return item


@dataclass(frozen=True, kw_only=True)
class ListWorkflowsArgs(Args):
    workflow_id: str | None = arg("one, with its last runs", default=None)


@dataclass(frozen=True, kw_only=True)
class ImportArgs(Args):
    workflow: dict[str, Any] = arg("{workflow_id, name, steps,...}")
    overwrite: bool = arg("replace a same-id one", default=False)


async def _observe(ctx: CommandContext, a: ListWorkflowsArgs) -> Observed:
    if a.workflow_id is None:
        return {"workflows": [summary(e) for e in _store(ctx).entries()]}
    entry = _entry(ctx, a.workflow_id)
    detail: WorkflowDetail = {
        **summary(entry),
        "workflow": entry.workflow.document() if entry.workflow else None,
        "runs": _store(ctx).runs(entry.workflow_id),
    }
    # Observed is the docs' one form of both answers, every field optional: mypy does not take a TypedDict's
    # required fields for another's optional ones, so the detail, checked as WorkflowDetail, is cast here.
    return results.relayed(Observed, detail)


async def _export(ctx: CommandContext, a: WorkflowIdArgs) -> Exported:
    entry = _entry(ctx, a.workflow_id)
    if entry.workflow is None:
        raise TabpilotError("invalid_params", f"{entry.file} is not a valid workflow: {entry.error}")
    return {"workflow_id": entry.workflow_id, "workflow": entry.workflow.document()}


async def _import(ctx: CommandContext, a: ImportArgs) -> Imported:
    workflow = parse_workflow(a.workflow)
    refuse_literal_secrets(workflow)
    size = len(json.dumps(workflow.document(), indent=2, ensure_ascii=False).encode())
    if size > MAX_FILE_BYTES:
        # Refused here, not saved and then listed as too large to read.
        raise TabpilotError(
            "invalid_params",
            f"The workflow is {size / 1024 / 1024:.1f} MB as a file; a workflow file may be at most 2 MB.",
            param="workflow",
        )
    store = _store(ctx)
    if store.get(workflow.workflow_id) is not None and not a.overwrite:
        raise TabpilotError(
            "invalid_params",
            f"A workflow '{workflow.workflow_id}' exists already; pass overwrite:true to replace it.",
            param="overwrite",
        )
    store.save(workflow)
    ctx.engine.workflow_authors[workflow.workflow_id] = ctx.session.key
    return {"workflow_id": workflow.workflow_id, "imported": True, "steps": workflow.step_count()}


async def _delete(ctx: CommandContext, a: WorkflowIdArgs) -> Deleted:
    entry = _entry(ctx, a.workflow_id)
    _store(ctx).delete(entry.workflow_id)
    return {"workflow_id": entry.workflow_id, "deleted": True}


# Saving or deleting a workflow changes no page, so the contract asks no approval for it. In the tray
# app the person is asked anyway, because they may run a saved workflow from its menu without any
# prompt: they see what an agent saves (or takes away) when it happens. `serve` has no such menu.
def _approve_import(engine: Any, p: dict[str, Any], caller: Session) -> ApprovalScope | None:
    if engine.workflows is None:
        return None  # nowhere to save (not_supported)
    given = p.get("workflow")
    raw: dict[str, Any] = given if isinstance(given, dict) else {}
    if not engine.config.tray_runs_saved_workflows and not _replaces_anothers(engine, raw, p, caller):
        return None  # no menu to run it from, and nobody else's workflow changes
    listed = raw.get("steps")
    steps: list[Any] = listed if isinstance(listed, list) else []
    head = {
        "type": "import_workflow",
        "workflow_id": raw.get("workflow_id"),
        "name": raw.get("name"),
        "overwrite": bool(p.get("overwrite")),
    }
    return ApprovalScope(steps=[head, *[s for s in steps if isinstance(s, dict)]], site_free=True)


def _replaces_anothers(engine: Any, raw: dict[str, Any], p: dict[str, Any], caller: Session) -> bool:
    """Does this import overwrite a workflow this agent session did not save (the person's, a file's, another
    agent's)? Then it is a change the person sees first, in `serve` too (where the policy answers)."""
    wid = raw.get("workflow_id")
    if caller.person or not p.get("overwrite") or not isinstance(wid, str):
        return False
    return engine.workflows.get(wid) is not None and engine.workflow_authors.get(wid) != caller.key


def _approve_delete(engine: Any, p: dict[str, Any], caller: Session) -> ApprovalScope | None:
    wid = p.get("workflow_id", "")
    if engine.workflows is None or not isinstance(wid, str) or engine.workflows.get(wid) is None:
        return None  # nothing to delete: the command says workflow_not_found without a prompt
    # In `serve` too when it is not this session's own: deleting then importing is an overwrite by two calls.
    theirs = not caller.person and engine.workflow_authors.get(wid) != caller.key
    if not engine.config.tray_runs_saved_workflows and not theirs:
        return None
    return ApprovalScope(steps=[{"type": "delete_workflow", "workflow_id": p.get("workflow_id")}], site_free=True)


WORKFLOW_EXAMPLE = {
    "workflow_id": "wf-news-20260101",
    "name": "news",
    "origin": "https://example.com",
    "created_at": "2026-01-01T09:00:00+00:00",
    "steps": [{"type": "navigate", "url": "https://example.com/"}],
    "error_recovery": {"on_timeout": "retry_step", "max_retries": 2, "on_failure": "abort_with_partial"},
    "params": {},
}

COMMANDS: list[Command[Any]] = [
    Command(
        "observe",
        "workflows",
        "read",
        "saved workflows (workflow_id: one, with runs)",
        _observe,
        ListWorkflowsArgs,
        returns=Observed,
        result="{workflows:[{workflow_id, file, name, origin, steps, params, last_run, last_status} | "
        "{workflow_id, file, error}]}; with workflow_id: that one plus {workflow, runs}",
        example_result={
            "workflows": [
                {
                    "workflow_id": "wf-news-20260101",
                    "file": "wf-news-20260101.json",
                    "name": "news",
                    "origin": "https://example.com",
                    "steps": 1,
                    "params": [],
                    "last_run": None,
                    "last_status": None,
                }
            ]
        },
    ),
    Command(
        "configure",
        "export_workflow",
        "read",
        "a saved workflow as JSON",
        _export,
        WorkflowIdArgs,
        returns=Exported,
        example_result={"workflow_id": "wf-news-20260101", "workflow": WORKFLOW_EXAMPLE},
    ),
    Command(
        "configure",
        "import_workflow",
        "config",
        "validate and save a workflow",
        _import,
        ImportArgs,
        returns=Imported,
        notes="In the tray app the person is shown its steps first (saved workflows run from the tray menu "
        "without prompts).",
        example_result={"workflow_id": "wf-news-20260101", "imported": True, "steps": 1},
        approval_steps=_approve_import,
    ),
    Command(
        "configure",
        "delete_workflow",
        "config",
        "delete a saved workflow",
        _delete,
        WorkflowIdArgs,
        returns=Deleted,
        notes="Off the list; the file and its runs are kept in `workflows/.deleted/` (moved back, it is listed "
        "again; the newest 200 are kept, for 90 days). The tray app asks the person first.",
        example_result={"workflow_id": "wf-news-20260101", "deleted": True},
        approval_steps=_approve_delete,
    ),
]
