"""Saved workflows as agents see them: list and read (observe), export, import, delete (configure)."""

from __future__ import annotations

import json
from typing import Any

from tabpilot.engine.commands import ApprovalScope, Command
from tabpilot.engine.context import CommandContext
from tabpilot.engine.errors import TabpilotError, shown
from tabpilot.engine.params import Param
from tabpilot.engine.ports import WorkflowEntry, WorkflowStore
from tabpilot.engine.workflows import MAX_FILE_BYTES, parse_workflow, refuse_literal_secrets


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


def summary(entry: WorkflowEntry) -> dict[str, Any]:
    item: dict[str, Any] = {"workflow_id": entry.workflow_id, "file": entry.file}
    if entry.workflow is not None:
        item.update(
            name=entry.workflow.name,
            origin=entry.workflow.origin,
            steps=entry.workflow.step_count(),
            params=sorted(entry.workflow.params),
        )
    else:
        item["error"] = entry.error
    item.update(last_run=entry.last_run, last_status=entry.last_status)
    return item


async def _observe(ctx: CommandContext, p: dict[str, Any]) -> dict[str, Any]:
    if p["workflow_id"] is None:
        return {"workflows": [summary(e) for e in _store(ctx).entries()]}
    entry = _entry(ctx, p["workflow_id"])
    return {
        **summary(entry),
        "workflow": entry.workflow.document() if entry.workflow else None,
        "runs": _store(ctx).runs(entry.workflow_id),
    }


async def _export(ctx: CommandContext, p: dict[str, Any]) -> dict[str, Any]:
    entry = _entry(ctx, p["workflow_id"])
    if entry.workflow is None:
        raise TabpilotError("invalid_params", f"{entry.file} is not a valid workflow: {entry.error}")
    return {"workflow_id": entry.workflow_id, "workflow": entry.workflow.document()}


async def _import(ctx: CommandContext, p: dict[str, Any]) -> dict[str, Any]:
    workflow = parse_workflow(p["workflow"])
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
    if store.get(workflow.workflow_id) is not None and not p["overwrite"]:
        raise TabpilotError(
            "invalid_params",
            f"A workflow '{workflow.workflow_id}' exists already; pass overwrite:true to replace it.",
            param="overwrite",
        )
    store.save(workflow)
    return {"workflow_id": workflow.workflow_id, "imported": True, "steps": workflow.step_count()}


async def _delete(ctx: CommandContext, p: dict[str, Any]) -> dict[str, Any]:
    entry = _entry(ctx, p["workflow_id"])
    _store(ctx).delete(entry.workflow_id)
    return {"workflow_id": entry.workflow_id, "deleted": True}


# Saving or deleting a workflow changes no page, so the contract asks no approval for it. In the tray
# app the person is asked anyway, because they may run a saved workflow from its menu without any
# prompt: they see what an agent saves (or takes away) when it happens. `serve` has no such menu.
def _approve_import(engine: Any, p: dict[str, Any]) -> ApprovalScope | None:
    if engine.workflows is None or not engine.config.tray_runs_saved_workflows:
        return None  # nowhere to save (not_supported), or no menu to run it from
    given = p.get("workflow")
    raw: dict[str, Any] = given if isinstance(given, dict) else {}
    listed = raw.get("steps")
    steps: list[Any] = listed if isinstance(listed, list) else []
    head = {
        "type": "import_workflow",
        "workflow_id": raw.get("workflow_id"),
        "name": raw.get("name"),
        "overwrite": bool(p.get("overwrite")),
    }
    return ApprovalScope(steps=[head, *[s for s in steps if isinstance(s, dict)]], site_free=True)


def _approve_delete(engine: Any, p: dict[str, Any]) -> ApprovalScope | None:
    if not engine.config.tray_runs_saved_workflows:
        return None
    if engine.workflows is None or engine.workflows.get(p.get("workflow_id", "")) is None:
        return None  # nothing to delete: the command says workflow_not_found without a prompt
    return ApprovalScope(steps=[{"type": "delete_workflow", "workflow_id": p.get("workflow_id")}], site_free=True)


COMMANDS = [
    Command(
        "observe",
        "workflows",
        "read",
        "saved workflows (workflow_id: one, with runs)",
        _observe,
        params=(Param("workflow_id", "string", "one, with its last runs"),),
    ),
    Command(
        "configure",
        "export_workflow",
        "read",
        "a saved workflow as JSON",
        _export,
        params=(Param("workflow_id", "string", "a saved workflow's id", required=True),),
    ),
    Command(
        "configure",
        "import_workflow",
        "read",
        "validate and save a workflow",
        _import,
        params=(
            Param("workflow", "object", "{workflow_id, name, steps,...}", required=True),
            Param("overwrite", "boolean", "replace a same-id one", default=False),
        ),
        approval_steps=_approve_import,
    ),
    Command(
        "configure",
        "delete_workflow",
        "read",
        "delete a saved workflow",
        _delete,
        params=(Param("workflow_id", "string", "a saved workflow's id", required=True),),
        approval_steps=_approve_delete,
    ),
]
