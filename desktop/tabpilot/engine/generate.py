"""`generate`: artifacts made from the page (screenshots: engine/screenshots.py; PDFs, scripts and tests)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, TypedDict

from tabpilot.engine.args import Args, arg
from tabpilot.engine.commands import Command
from tabpilot.engine.context import CommandContext
from tabpilot.engine.errors import TabpilotError

ATTACHMENTS = "_attachments"
"""Binary payloads (base64) that adapters deliver as MCP image/resource content, not inside the JSON."""


@dataclass(frozen=True, kw_only=True)
class WorkflowIdArgs(Args):
    workflow_id: str = arg("a saved workflow's id")


class Script(TypedDict):
    workflow_id: str
    filename: str
    language: Literal["python"]
    script: str


async def _playwright_script(ctx: CommandContext, a: WorkflowIdArgs) -> Script:
    from tabpilot.engine.codegen import playwright_script

    store = ctx.engine.workflows
    entry = store.get(a.workflow_id) if store is not None else None
    if entry is None:
        raise TabpilotError(
            "workflow_not_found",
            f"No saved workflow has the id '{a.workflow_id}'; observe {{what:'workflows'}} lists them.",
            workflow_id=a.workflow_id,
        )
    if entry.workflow is None:
        raise TabpilotError("invalid_params", f"{entry.file} is not a valid workflow: {entry.error}")
    library = ctx.engine.config.page_library
    if library is None:
        raise TabpilotError("not_supported", "This Tabpilot cannot find its in-page code to put in a script.")
    script = playwright_script(entry.workflow, library(), step_delay_ms=ctx.engine.config.step_delay_ms)
    return {
        "workflow_id": entry.workflow_id,
        "filename": f"{entry.workflow_id}.py",
        "language": "python",
        "script": script,
    }


COMMANDS: list[Command[Any]] = [
    Command(
        "generate",
        "playwright_script",
        "read",
        "a saved workflow as a Playwright Python script",
        _playwright_script,
        WorkflowIdArgs,
        returns=Script,
        notes="A runnable Playwright (Python) script doing the same steps and printing the rows.",
        example_result={
            "workflow_id": "wf-news-20260101",
            "filename": "wf-news-20260101.py",
            "language": "python",
            "script": "#!/usr/bin/env python3\n...",
        },
    ),
]
