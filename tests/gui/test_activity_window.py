"""The activity window: every command with its outcome, the filter, the redacted detail view, Copy as
JSON, live progress of a running workflow, and a bounded, batched model."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtGui import QGuiApplication
from tests.conftest import AppFactory
from tests.gui.conftest import ExtensionFactory, TrayFactory, click_menu_item, find_action
from tests.gui.ui_support import (
    ORIGIN,
    JobsSite,
    PageError,
    click,
    jobs_workflow,
    save_workflow,
    secret_name,
    secret_value,
    ui_settled,
)
from tests.support.waiting import until

from tabpilot.engine.errors import TabpilotError
from tabpilot.engine.events import ActivityEvent
from tabpilot.ui.activity_window import (
    COLUMNS,
    DURATION,
    OUTCOME,
    PROGRESS_ROLE,
    SHOWN_CHARS,
    ActivityModel,
    ActivityWindow,
)

ROLES = (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole)


def row_texts(window: ActivityWindow) -> list[dict[str, str]]:
    model = window.shown_model()
    return [
        {COLUMNS[c]: str(model.data(model.index(r, c)) or "") for c in range(len(COLUMNS))}
        for r in range(model.rowCount())
    ]


def everything_shown(window: ActivityWindow) -> str:
    """Every text the table can show (display and tooltips) plus the detail view."""
    model = window.model
    texts = [
        str(model.data(model.index(r, c), role) or "")
        for r in range(model.rowCount())
        for c in range(len(COLUMNS))
        for role in ROLES
    ]
    return "\n".join([*texts, window.detail.toPlainText(), window.detail_json])


async def detail_of(window: ActivityWindow, correlation_id: str) -> dict[str, Any]:
    assert window.select(correlation_id), f"{correlation_id} is not in the table"
    await until(
        lambda: window.detail_id == correlation_id and f'"{correlation_id}"' in window.detail.toPlainText(),
        what=f"the detail of {correlation_id}",
    )
    await ui_settled()
    detail: dict[str, Any] = json.loads(window.detail.toPlainText())
    return detail


async def test_every_command_with_its_outcome_and_secrets_only_as_references(
    make_app: AppFactory,
    make_tray: TrayFactory,
    connect_extension: ExtensionFactory,
) -> None:
    app = await make_app(pilot=True)
    app.engine.config.step_delay_ms = 0
    tray = make_tray(app)
    name, value = secret_name(), secret_value()
    app.secrets.set(name, value)
    site = JobsSite(secret_value=value)

    def missing(params: dict[str, Any]) -> dict[str, Any]:
        raise PageError("element_not_found", f"No element matches {params['selector']}.")

    await connect_extension(app, dom_click=missing, **site.handlers())
    save_workflow(app, jobs_workflow(secret=name))
    await click_menu_item(tray.menu, find_action(tray.menu, "Activity…"))
    window = tray.windows["activity"]
    assert isinstance(window, ActivityWindow)
    agent = "Claude Code 1.2"

    page = await app.engine.call("observe", {"what": "page"}, agent=agent)
    assert page["title"] == "Jobs"
    await app.engine.call("interact", {"action": "navigate", "url": f"{ORIGIN}/login"}, agent=agent)
    filled = await app.engine.call(
        "interact", {"action": "fill", "selector": "#password", "value": f"{{{{secret:{name}}}}}"}, agent=agent
    )
    assert value not in json.dumps(filled)
    with pytest.raises(TabpilotError) as clicked:
        await app.engine.call("interact", {"action": "click", "selector": "#nope"}, agent=agent)
    assert clicked.value.code == "element_not_found"
    leaked = await app.engine.call("interact", {"action": "execute_js", "script": "pw.value"}, agent=agent)
    assert value not in json.dumps(leaked), "what goes back to the agent is scrubbed"
    # The job keeps the page's answer as it came (the engine scrubs on the way out): the window must mask it.
    [event] = [e for e in app.engine.activity.recent() if e.mode == "execute_js" and e.phase == "finished"]
    job = app.engine.jobs.get(event.correlation_id)
    assert job is not None and value in json.dumps(job.result)
    run = await app.run_workflow("wf-jobs", {"city": "Lyon"})
    assert site.filled == [value, value]

    await until(lambda: window.model.rowCount() == 6 and window.model.running == 0, what="six finished commands")
    rows = row_texts(window)
    assert [r["Command"] for r in rows] == [
        "interact scrape",
        "interact execute_js",
        "interact click",
        "interact fill",
        "interact navigate",
        "observe page",
    ], "newest first"
    assert [r["Who"] for r in rows] == ["you (tray)"] + [f'agent says it is "{agent}"'] * 5
    assert [r["Decided by"] for r in rows] == ["you"] + ["--approve auto"] * 3 + ["no approval needed"] * 2
    assert rows[1]["Target"] == "script: pw.value", "a script's row says what it runs"
    assert [r["Site"] for r in rows] == [ORIGIN] * 6, "every row says where"
    assert [r["Outcome"] for r in rows] == ["ok · 3/3 steps", "ok", "error", "ok", "ok", "ok"]
    assert rows[2]["Error"] == "element_not_found"
    assert rows[2]["Target"] == "#nope"
    assert rows[4]["Target"] == f"{ORIGIN}/login"
    assert rows[0]["Target"] == "wf-jobs"
    assert all(r["Time"] and r["Duration"].endswith(("ms", "s")) for r in rows)
    assert window.count_label.text() == "6 commands"

    # The detail: parameters from the event (the secret as its reference), the result from the job.
    fill = await detail_of(window, window.model.commands()[3].correlation_id)
    assert fill["parameters"]["value"] == f"{{{{secret:{name}}}}}"
    assert fill["agent"] == f'agent says it is "{agent}"'
    assert fill["decided_by"] == "--approve auto"
    assert fill["site"] == ORIGIN
    assert fill["status"] == "ok"
    assert fill["result"]["changed"] == f"text '{{{{secret:{name}}}}}' appeared"
    script = await detail_of(window, window.model.commands()[1].correlation_id)
    assert script["result"]["result"] == f"field holds {{{{secret:{name}}}}}"
    failed = await detail_of(window, window.model.commands()[2].correlation_id)
    assert failed["error_detail"]["error"] == "element_not_found"
    workflow = await detail_of(window, run["correlation_id"])
    assert workflow["parameters"]["params"] == {"city": "Lyon"}, "a param that no step types is shown"
    assert workflow["steps_total"] == 3
    assert [r["title"] for r in workflow["result"]["data"]] == ['Dev, "senior"', "Ops", "Leaky"]

    # Nowhere in the window, the detail, its JSON copy, or the saved runs: the secret's value.
    for command in window.model.commands():
        await detail_of(window, command.correlation_id)
        assert value not in everything_shown(window), f"{command.tool} {command.mode} shows the secret"
        click(window.copy_button)
        assert QGuiApplication.clipboard().text() == window.detail_json
        assert value not in QGuiApplication.clipboard().text()
    assert value not in json.dumps(app.workflows.runs("wf-jobs"))
    assert f"{{{{secret:{name}}}}}" in json.dumps(app.workflows.runs("wf-jobs")), "the reference is kept"

    # The filter narrows the table to matching commands, on any column.
    window.filter_box.setText("ELEMENT_NOT")
    assert [r["Command"] for r in row_texts(window)] == ["interact click"]
    window.filter_box.setText("interact")
    assert len(row_texts(window)) == 5
    window.filter_box.clear()
    assert len(row_texts(window)) == 6
    await ui_settled()


async def test_a_running_workflow_shows_live_progress(
    make_app: AppFactory,
    make_tray: TrayFactory,
    connect_extension: ExtensionFactory,
) -> None:
    app = await make_app()
    app.engine.config.step_delay_ms = 0
    tray = make_tray(app)
    site = JobsSite(hold=asyncio.Event())
    await connect_extension(app, **site.handlers())
    save_workflow(app, jobs_workflow())
    window = tray.show_activity()
    assert isinstance(window, ActivityWindow)

    run = asyncio.get_running_loop().create_task(app.run_workflow("wf-jobs", {"city": "Paris"}))
    await until(lambda: window.model.rowCount() == 1 and window.model.commands()[0].steps_completed == 1)
    command = window.model.commands()[0]
    index = window.model.index(0, OUTCOME)
    assert window.model.data(index, PROGRESS_ROLE) == (1, 2)
    assert window.model.data(index) == "running 1/2"
    assert window.count_label.text() == "1 commands · 1 running"
    assert tray.running_action.text() == "Running 1 command"
    detail = await detail_of(window, command.correlation_id)
    assert detail["result"] == "(still running)"

    # The bar is painted (a progress bar in the cell, not text).
    window.resize(900, 400)
    window.show()
    await until(window.isVisible)
    image = window.table.viewport().grab().toImage()
    assert not image.isNull()

    assert site.hold is not None
    site.hold.set()
    await asyncio.wait_for(run, 10)
    await until(lambda: not command.running, what="the run to finish in the window")
    assert window.model.data(index, PROGRESS_ROLE) is None
    assert window.model.data(index) == "ok · 2/2 steps"
    await until(lambda: window.detail_json and '"data"' in window.detail_json, what="the detail to follow the end")
    await ui_settled()


async def test_a_secret_cut_short_in_the_detail_shows_none_of_its_value(
    make_app: AppFactory,
    make_tray: TrayFactory,
    connect_extension: ExtensionFactory,
) -> None:
    """A long result is shortened to SHOWN_CHARS: a secret across that point is replaced before the cut, so
    no prefix of its value is left on screen."""
    app = await make_app(pilot=True)
    tray = make_tray(app)
    name, value = secret_name(), secret_value()
    app.secrets.set(name, value)
    before = SHOWN_CHARS - 12  # the value starts 12 characters before the cut and ends after it
    long_text = "x" * before + value + " and more"

    def script(params: dict[str, Any]) -> dict[str, Any]:
        return {"success": True, "result": long_text}

    await connect_extension(app, **{**JobsSite().handlers(), "js_execute": script})
    window = tray.show_activity()
    assert isinstance(window, ActivityWindow)
    leaked = await app.engine.call("interact", {"action": "execute_js", "script": "pw.value"}, agent="Claude Code")
    assert leaked["result"] == long_text
    await until(lambda: window.model.rowCount() == 1 and window.model.running == 0, what="the finished command")

    detail = await detail_of(window, window.model.commands()[0].correlation_id)
    reference = f"{{{{secret:{name}}}}}"
    scrubbed = "x" * before + reference + " and more"
    assert detail["result"]["result"] == scrubbed[:SHOWN_CHARS] + f"… ({len(scrubbed)} chars)"
    assert value[:12] not in everything_shown(window), "the part of the value before the cut is shown"
    click(window.copy_button)
    assert value[:12] not in QGuiApplication.clipboard().text()
    await ui_settled()


def event(n: int, phase: str = "started", **extra: Any) -> ActivityEvent:
    base: dict[str, Any] = {
        "correlation_id": f"corr-{n}",
        "phase": phase,
        "time": 1_700_000_000 + n,
        "agent": "bench",
        "tool": "observe",
        "mode": "page",
        "kind": "read",
        "target": f"https://a.test/{n}",
    }
    return ActivityEvent(**{**base, **extra})


def test_the_model_is_bounded_and_batched(qapp: Any) -> None:
    model = ActivityModel(max_rows=100)
    inserted: list[tuple[int, int]] = []
    removed: list[tuple[int, int]] = []
    changed: list[tuple[int, int]] = []
    model.rowsInserted.connect(lambda _p, first, last: inserted.append((first, last)))
    model.rowsRemoved.connect(lambda _p, first, last: removed.append((first, last)))
    model.dataChanged.connect(lambda a, b, _roles=(): changed.append((a.row(), b.row())))

    model.apply([event(n) for n in range(60)])
    assert inserted == [(0, 59)], "one insert for the batch"
    model.apply([event(n, "finished", outcome="ok", duration_ms=3.0) for n in range(50, 60)] + [event(60)])
    assert changed == [(0, 9)], "one change for the finished ones (signalled before the new row moves them)"
    assert inserted[-1] == (0, 0)
    finished = model.command("corr-59")
    assert finished is not None
    assert model.data(model.index(model.row_of(finished), OUTCOME)) == "ok"
    assert model.data(model.index(model.row_of(finished), DURATION)) == "3 ms"
    model.apply([event(n) for n in range(61, 161)])
    assert model.rowCount() == 100
    assert removed == [(100, 160)]
    assert model.command("corr-0") is None, "the oldest dropped off"
    assert model.commands()[0].correlation_id == "corr-160"
    assert model.data(model.index(0, 2)) == "observe page"
    assert model.data(QModelIndex()) is None
