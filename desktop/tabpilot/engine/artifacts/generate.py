"""`generate`: artifacts made from the page (screenshots: engine/artifacts/screenshots.py; PDFs, scripts and tests)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final, Literal, NotRequired, TypedDict

from tabpilot.engine.artifacts.artifacts import safe_stem, write_artifact
from tabpilot.engine.context import CommandContext
from tabpilot.engine.contract.args import Args, arg
from tabpilot.engine.contract.commands import Command
from tabpilot.engine.errors import TabpilotError
from tabpilot.engine.workflows.workflows import Workflow

ATTACHMENTS: Final = "_attachments"
"""Binary payloads (base64) that adapters deliver as MCP image/resource content, not inside the JSON."""


@dataclass(frozen=True, kw_only=True)
class WorkflowIdArgs(Args):
    workflow_id: str = arg("a saved workflow's id")


@dataclass(frozen=True, kw_only=True)
class WorkflowArtifactArgs(WorkflowIdArgs):
    path: str | None = arg("file name under the artifacts folder (default <workflow_id>.py)", default=None, path=True)


class Script(TypedDict):
    code: str
    """The script: Playwright's own API, nothing of the extension pasted in."""
    path: str
    """Where it was written, under the home's artifacts folder."""
    workflow_id: str
    language: Literal["python"]
    size_bytes: int


async def _playwright_script(ctx: CommandContext, a: WorkflowArtifactArgs) -> Script:
    from tabpilot.engine.workflows.codegen import playwright_script

    entry = saved_workflow(ctx, a.workflow_id)
    config = ctx.engine.config
    code = playwright_script(entry, redact=config.redact_selectors)
    data = code.encode("utf-8")
    path = write_artifact(ctx, a.path or f"{safe_stem(entry.workflow_id)}.py", data, kind="script", suffix="py")
    return {
        "code": code,
        "path": str(path),
        "workflow_id": entry.workflow_id,
        "language": "python",
        "size_bytes": len(data),
    }


def saved_workflow(ctx: CommandContext, workflow_id: str) -> Workflow:
    store = ctx.engine.workflows
    entry = store.get(workflow_id) if store is not None else None
    if entry is None:
        raise TabpilotError(
            "workflow_not_found",
            f"No saved workflow has the id '{workflow_id}'; observe {{what:'workflows'}} lists them.",
            workflow_id=workflow_id,
        )
    if entry.workflow is None:
        raise TabpilotError("invalid_params", f"{entry.file} is not a valid workflow: {entry.error}")
    return entry.workflow


@dataclass(frozen=True, kw_only=True)
class TestArgs(Args):
    workflow_id: str | None = arg("a saved workflow instead of this session's actions", default=None)
    name: str | None = arg("what the test is about (its function's name)", default=None)
    path: str | None = arg("file name under the artifacts folder (default test_<name>.py)", default=None, path=True)


class GeneratedTest(TypedDict):
    path: str
    """The test file, under the home's artifacts folder."""
    actions: int
    """How many recorded actions and checks (or workflow steps) it replays."""
    code: str
    note: NotRequired[str]
    """When the record was cut (it keeps a session's last actions) or holds nothing to replay (the test then
    skips, saying why)."""


async def _playwright_test(ctx: CommandContext, a: TestArgs) -> GeneratedTest:
    from tabpilot.engine.workflows.recorder import MAX_ACTIONS, recorder_of
    from tabpilot.engine.workflows.testgen import playwright_test, replayable, test_name, workflow_entries

    note = ""
    name: str | None = a.name
    if a.workflow_id is not None:
        workflow = saved_workflow(ctx, a.workflow_id)
        entries, dropped = workflow_entries(workflow), 0
        name = name or workflow.name
        source = f"the Tabpilot workflow {workflow.workflow_id}"
        if not replayable(entries):
            note = "None of this workflow's steps can be replayed in a test (delays, overlays, if_exists): it skips."
    else:
        entries, dropped = recorder_of(ctx.engine).entries(ctx.session.key)
        source = f"what an agent did in Tabpilot ({ctx.session.label})"
        if not replayable(entries):
            note = (  # an empty record, or one whose entries are only notes (execute_js, a scroll to the end, ...)
                "Nothing to replay was recorded in this session"
                + (f" ({len(entries)} recorded actions write no Playwright code)" if entries else "")
                + ": the test only skips. Act on a page through interact in this same session first (navigate, "
                "click, fill, ...; observe assert adds checks), then generate again. What the person or another "
                "session did is not in this session's record."
            )
        elif dropped:
            note = f"The record keeps a session's last {MAX_ACTIONS} actions; the {dropped} before were cut."
    code = playwright_test(entries, name=name, source=source, dropped=dropped)
    path = write_artifact(ctx, a.path or f"{test_name(name)}.py", code.encode("utf-8"), kind="test", suffix="py")
    answer: GeneratedTest = {"path": str(path), "actions": len(entries), "code": code}
    if note:
        answer["note"] = note
    return answer


COMMANDS: list[Command[Any]] = [
    Command(
        "generate",
        "playwright_script",
        "read",
        "a saved workflow as a Playwright Python script",
        _playwright_script,
        WorkflowArtifactArgs,
        returns=Script,
        notes="A runnable Playwright (Python) script doing the same steps and printing the rows as JSON, as a "
        "person would write it: Playwright's locators and waits, one small in-page reader for extraction "
        "(redaction kept: passwords and [data-sensitive] read as [REDACTED]), {{param}} from --param and "
        "{{secret:NAME}} from the OS keyring or else TABPILOT_SECRET_<NAME> (never written into the file). "
        "Written under the artifacts folder (`path` replaces a file of that name there).",
        example_result={
            "code": "#!/usr/bin/env python3\n...",
            "path": "/home/me/.local/share/tabpilot/artifacts/wf-news-20260101.py",
            "workflow_id": "wf-news-20260101",
            "language": "python",
            "size_bytes": 2412,
        },
    ),
    Command(
        "generate",
        "playwright_test",
        "read",
        "this session's actions as a pytest-playwright test",
        _playwright_test,
        TestArgs,
        returns=GeneratedTest,
        notes="The page actions this agent session did (navigate, click, fill, select, check, press, waits) and "
        "what it checked (observe assert, an element's text it read, rows it extracted), as a runnable "
        "pytest-playwright file: stable locators (role and name, label, text before CSS, as the page named the "
        "element when it was acted on), `expect` where the session waited or checked, `wait_for_url` where an "
        "action navigated. A password typed in plain becomes an environment variable, {{secret:NAME}} a keyring "
        "lookup (else TABPILOT_SECRET_<NAME>). Nothing replayable recorded yet: a `note` says so and the test "
        "skips. `workflow_id`: a saved workflow's steps instead. Written under the artifacts folder.",
        example_result={
            "path": "/home/me/.local/share/tabpilot/artifacts/test_sign_in_and_search.py",
            "actions": 7,
            "code": "from playwright.sync_api import Page, expect\n...",
        },
    ),
]
