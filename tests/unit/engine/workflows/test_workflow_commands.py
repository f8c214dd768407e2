"""Saved workflows as agents see them: observe workflows, export, import, delete."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tabpilot.engine.core import Engine, EngineConfig
from tests.unit.engine.conftest import EngineFactory
from tests.unit.engine.scrape_support import TAB, error_of, page, replay_args, rows
from tests.unit.fakes import FakeApprovals, FakeBrowser, MemoryWorkflowStore

GOOD: dict[str, Any] = {
    "workflow_id": "wf-board-20260128",
    "name": "board",
    "origin": "https://a.test",
    "created_at": "2026-01-28T10:00:00+00:00",
    "steps": [
        {"type": "navigate", "url": "https://a.test/boards/{{board}}"},
        {"type": "if_exists", "selector": ".x", "then": [{"type": "scroll"}]},
        {"type": "extract", "selector": "tr", "schema": {"name": "td | text"}},
    ],
    "params": {"board": "P1", "sprint": "4"},
}
BROKEN_ERROR = "not valid JSON: Expecting value: line 1 column 2 (char 1)"


@pytest.fixture
def store() -> MemoryWorkflowStore:
    store = MemoryWorkflowStore()
    store.put(GOOD)
    store.put_invalid("wf-broken", BROKEN_ERROR)
    return store


@pytest.fixture
def engine(make_engine: EngineFactory, store: MemoryWorkflowStore, approvals: FakeApprovals) -> Engine:
    approvals.script = ["allow"] * 20  # importing and deleting ask the person; here they say yes
    """Pilot OFF: reading and managing saved workflows does not need it."""
    return make_engine(pilot_on=False, workflows=store, config=EngineConfig(step_delay_ms=0))


async def observe(engine: Engine, **args: Any) -> dict[str, Any]:
    return await engine.call("observe", {"what": "workflows", **args})


async def configure(engine: Engine, action: str, **args: Any) -> dict[str, Any]:
    return await engine.call("configure", {"action": action, **args})


async def test_the_list_shows_valid_and_invalid_files(engine: Engine) -> None:
    assert await observe(engine) == {
        "workflows": [
            {
                "workflow_id": "wf-board-20260128",
                "file": "wf-board-20260128.json",
                "name": "board",
                "origin": "https://a.test",
                "steps": 4,
                "params": ["board", "sprint"],
                "last_run": None,
                "last_status": None,
            },
            {
                "workflow_id": "wf-broken",
                "file": "wf-broken.json",
                "error": BROKEN_ERROR,
                "last_run": None,
                "last_status": None,
            },
        ]
    }


async def test_the_list_shows_the_last_run(engine: Engine, browser: FakeBrowser) -> None:
    browser.replies["tabs.resolve"] = TAB
    browser.replies["scrape.extract"] = page(rows("a"))
    browser.replies["dom.count"] = {"count": 0}
    engine.pilot.set_pilot(True)
    await engine.call("interact", replay_args("wf-board-20260128"))
    (board, _) = (await observe(engine))["workflows"]
    assert board["last_status"] == "complete"
    assert board["last_run"].endswith("+00:00")


async def test_one_workflow_with_its_definition_and_runs(engine: Engine, store: MemoryWorkflowStore) -> None:
    store.add_run("wf-board-20260128", {"status": "complete", "finished_at": "2026-01-28T11:00:00+00:00", "data": []})
    result = await observe(engine, workflow_id="wf-board-20260128")
    assert result["workflow_id"] == "wf-board-20260128"
    assert result["name"] == "board"
    assert result["last_status"] == "complete"
    assert result["last_run"] == "2026-01-28T11:00:00+00:00"
    assert result["workflow"] == store.get("wf-board-20260128").workflow.document()  # type: ignore[union-attr]
    assert result["workflow"]["steps"][0]["url"] == "https://a.test/boards/{{board}}"
    assert result["runs"] == [{"status": "complete", "finished_at": "2026-01-28T11:00:00+00:00", "data": []}]


async def test_one_invalid_workflow(engine: Engine) -> None:
    result = await observe(engine, workflow_id="wf-broken")
    assert result["error"] == BROKEN_ERROR
    assert result["workflow"] is None
    assert result["runs"] == []


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        ("observe", {"what": "workflows", "workflow_id": "wf-nope"}),
        ("configure", {"action": "export_workflow", "workflow_id": "wf-nope"}),
        ("configure", {"action": "delete_workflow", "workflow_id": "wf-nope"}),
    ],
)
async def test_unknown_ids(engine: Engine, tool: str, args: dict[str, Any]) -> None:
    error = await error_of(engine.call(tool, args))
    assert error.code == "workflow_not_found"
    assert error.details["workflow_id"] == "wf-nope"


async def test_export(engine: Engine, store: MemoryWorkflowStore) -> None:
    result = await configure(engine, "export_workflow", workflow_id="wf-board-20260128")
    assert result == {
        "workflow_id": "wf-board-20260128",
        "workflow": store.get("wf-board-20260128").workflow.document(),  # type: ignore[union-attr]
    }
    error = await error_of(configure(engine, "export_workflow", workflow_id="wf-broken"))
    assert error.code == "invalid_params"
    assert BROKEN_ERROR in error.message


async def test_export_then_import_under_a_new_id(engine: Engine, store: MemoryWorkflowStore) -> None:
    exported = (await configure(engine, "export_workflow", workflow_id="wf-board-20260128"))["workflow"]
    copy = {**exported, "workflow_id": "wf-board-copy"}
    assert await configure(engine, "import_workflow", workflow=copy) == {
        "workflow_id": "wf-board-copy",
        "imported": True,
        "steps": 4,
    }
    assert store.get("wf-board-copy").workflow.document() == copy  # type: ignore[union-attr]
    ids = [w["workflow_id"] for w in (await observe(engine))["workflows"]]
    assert ids == ["wf-board-20260128", "wf-board-copy", "wf-broken"]


async def test_import_refuses_an_existing_id_unless_told_to_overwrite(
    engine: Engine, store: MemoryWorkflowStore
) -> None:
    changed = {**GOOD, "name": "board v2"}
    error = await error_of(configure(engine, "import_workflow", workflow=changed))
    assert error.code == "invalid_params"
    assert error.details["param"] == "overwrite"
    assert store.get("wf-board-20260128").workflow.name == "board"  # type: ignore[union-attr]
    await configure(engine, "import_workflow", workflow=changed, overwrite=True)
    assert store.get("wf-board-20260128").workflow.name == "board v2"  # type: ignore[union-attr]


async def test_import_replaces_an_invalid_file(engine: Engine, store: MemoryWorkflowStore) -> None:
    fixed = {"workflow_id": "wf-broken", "name": "fixed", "steps": [{"type": "scroll"}]}
    error = await error_of(configure(engine, "import_workflow", workflow=fixed))
    assert error.details["param"] == "overwrite"
    await configure(engine, "import_workflow", workflow=fixed, overwrite=True)
    assert store.get("wf-broken").error is None  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("workflow", "needle"),
    [
        ({"name": "x", "steps": [{"type": "scroll"}]}, "'workflow_id' must be letters, digits"),
        ({"workflow_id": "../escape", "name": "x", "steps": [{"type": "scroll"}]}, "'workflow_id' must be letters"),
        ({"workflow_id": "wf-x", "name": "x", "steps": []}, "a workflow needs at least one step"),
        ({"workflow_id": "wf-x", "name": "x", "steps": [{"type": "levitate"}]}, "unknown step type 'levitate'"),
        ({"workflow_id": "wf-x", "name": "x", "steps": [{"type": "scroll"}] * 51}, "at most 50"),
        ({"workflow_id": "wf-x", "name": "x", "steps": [{"type": "scroll"}], "owner": "me"}, "unknown field 'owner'"),
    ],
)
async def test_import_validates(
    engine: Engine, store: MemoryWorkflowStore, workflow: dict[str, Any], needle: str
) -> None:
    before = dict(store.files)
    error = await error_of(configure(engine, "import_workflow", workflow=workflow))
    assert error.code == "invalid_params"
    assert needle in error.message
    assert store.files == before


async def test_import_refuses_a_password_in_clear(engine: Engine, store: MemoryWorkflowStore) -> None:
    """What record:true refuses, an import refuses too: files never hold a password in clear."""
    doc = {"workflow_id": "wf-x", "name": "x", "steps": [{"type": "fill", "selector": "#password", "value": "hunter2"}]}
    error = await error_of(configure(engine, "import_workflow", workflow=doc))
    assert error.code == "invalid_params"
    assert "{{secret:NAME}}" in error.message
    assert "wf-x.json" not in json.dumps(store.files)


async def test_import_needs_a_workflow_object(engine: Engine) -> None:
    error = await error_of(configure(engine, "import_workflow"))
    assert error.code == "invalid_params"
    assert error.details["param"] == "workflow"


async def test_delete(engine: Engine, store: MemoryWorkflowStore) -> None:
    store.add_run("wf-board-20260128", {"status": "complete"})
    assert await configure(engine, "delete_workflow", workflow_id="wf-board-20260128") == {
        "workflow_id": "wf-board-20260128",
        "deleted": True,
    }
    assert [w["workflow_id"] for w in (await observe(engine))["workflows"]] == ["wf-broken"]
    assert store.runs("wf-board-20260128") == []
    assert (await error_of(observe(engine, workflow_id="wf-board-20260128"))).code == "workflow_not_found"
    assert await configure(engine, "delete_workflow", workflow_id="wf-broken") == {
        "workflow_id": "wf-broken",
        "deleted": True,
    }
    assert await observe(engine) == {"workflows": []}


async def test_without_a_workflow_folder(make_engine: EngineFactory) -> None:
    engine = make_engine()
    for call in (
        observe(engine),
        configure(engine, "export_workflow", workflow_id="wf-a"),
        configure(
            engine, "import_workflow", workflow={"workflow_id": "wf-a", "name": "a", "steps": [{"type": "scroll"}]}
        ),
        configure(engine, "delete_workflow", workflow_id="wf-a"),
    ):
        assert (await error_of(call)).code == "not_supported"


async def test_importing_and_deleting_ask_the_person_and_a_no_changes_nothing(
    make_engine: EngineFactory, store: MemoryWorkflowStore, approvals: FakeApprovals
) -> None:
    """What an agent saves, the person may later run from the tray without a prompt: so they see it now."""
    engine = make_engine(workflows=store)
    doc = {"workflow_id": "wf-new", "name": "new", "steps": [{"type": "click", "selector": "#buy"}]}
    approvals.script = ["deny"]
    error = await error_of(configure(engine, "import_workflow", workflow=doc))
    assert error.code == "approval_denied"
    assert store.get("wf-new") is None
    (request,) = approvals.requests
    assert [dict(s) for s in request.steps] == [
        {"type": "import_workflow", "workflow_id": "wf-new", "name": "new", "overwrite": False},
        {"type": "click", "selector": "#buy"},
    ]
    assert request.origin == ""  # no standing rule for a site covers saving a workflow
    approvals.script = ["deny"]
    error = await error_of(configure(engine, "delete_workflow", workflow_id="wf-board-20260128"))
    assert error.code == "approval_denied"
    assert store.get("wf-board-20260128") is not None


async def test_without_the_tray_saving_and_deleting_need_no_approval(
    make_engine: EngineFactory, store: MemoryWorkflowStore, approvals: FakeApprovals
) -> None:
    """`serve` has no menu that runs saved workflows without prompts; the contract asks approval only for
    steps that change a page, so a denying approvals port lets these through."""
    engine = make_engine(workflows=store, config=EngineConfig(tray_runs_saved_workflows=False))
    approvals.script = ["deny"] * 5
    doc = {"workflow_id": "wf-new", "name": "new", "steps": [{"type": "click", "selector": "#buy"}]}
    assert (await configure(engine, "import_workflow", workflow=doc))["workflow_id"] == "wf-new"
    assert store.get("wf-new") is not None
    assert (await configure(engine, "delete_workflow", workflow_id="wf-new"))["deleted"] is True
    assert store.get("wf-new") is None and approvals.requests == []


async def test_an_import_over_2_mb_is_refused_and_not_saved(engine: Engine, store: MemoryWorkflowStore) -> None:
    """A 3 MB import was once saved, then listed as "larger than 2 MB" and never usable."""
    big = {**GOOD, "workflow_id": "wf-big", "steps": [{"type": "fill", "selector": "#q", "value": "x" * 3_000_000}]}
    error = await error_of(configure(engine, "import_workflow", workflow=big))
    assert error.code == "invalid_params"
    assert "2 MB" in error.message
    assert len(error.message) < 200
    assert store.get("wf-big") is None
