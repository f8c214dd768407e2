"""What the JavaScript and workflow prompts tell a person: the script as code with what a script can do,
and a workflow's every step in words with the values it types, where it goes, whether approving also saves
it and that its rows go to the agent. The real App and bridge, a fake extension."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from PySide6.QtWidgets import QApplication, QLabel
from tests.conftest import AppFactory
from tests.gui.approvals import next_dialog
from tests.gui.conftest import ExtensionFactory
from tests.gui.ui_support import JobsSite, jobs_workflow, save_workflow
from tests.support.waiting import until

from tabpilot.app import App
from tabpilot.engine.errors import TabpilotError
from tabpilot.engine.ports import ApprovalRequest
from tabpilot.ui.approval_dialog import ApprovalDialog, ApprovalDialogs
from tabpilot.ui.workflow_plan import plan_for

SCRIPT = 'const rows = [...document.querySelectorAll("tr")];\nreturn rows.map((r) => r.innerText);'


async def prompted(make_app: AppFactory, connect_extension: ExtensionFactory) -> tuple[App, ApprovalDialogs]:
    dialogs = ApprovalDialogs(arm_delay_ms=0)
    app = await make_app(approvals=dialogs, pilot=True)
    dialogs.attach(app.facade)
    app.engine.config.step_delay_ms = 0
    await connect_extension(app, **JobsSite().handlers())
    return app, dialogs


async def ask(app: App, dialogs: ApprovalDialogs, args: dict[str, Any]) -> tuple[ApprovalDialog, asyncio.Task[Any]]:
    call = asyncio.get_running_loop().create_task(app.engine.call("interact", args, agent="agent"))
    await until(lambda: dialogs.open or call.done(), what="the prompt")
    if call.done():  # it ended without asking: say why
        pytest.fail(f"no prompt; the call answered {call.result() if not call.exception() else call.exception()!r}")
    return await next_dialog(dialogs), call


async def deny(dialog: ApprovalDialog, call: asyncio.Task[Any]) -> None:
    dialog.reject()
    with pytest.raises(TabpilotError):
        await asyncio.wait_for(call, 5)


def texts(dialog: ApprovalDialog) -> str:
    return "\n".join(label.text() for label in dialog.findChildren(QLabel) if label.isVisible())


async def test_a_script_is_shown_as_code_with_what_it_can_do_in_a_window_that_grows(
    make_app: AppFactory, connect_extension: ExtensionFactory, qapp: QApplication
) -> None:
    app, dialogs = await prompted(make_app, connect_extension)
    dialog, call = await ask(app, dialogs, {"action": "execute_js", "script": SCRIPT})
    view = dialog.script_view
    assert view is not None
    assert view.toPlainText() == SCRIPT, "real lines, not an escaped JSON string"
    assert "\\n" not in view.toPlainText()
    assert view.document().blockCount() == 2
    metrics = view.fontMetrics()
    assert metrics.horizontalAdvance("iiii") == metrics.horizontalAdvance("MMMM"), "code in a fixed-width font"
    assert "read everything on it" in texts(dialog) and "send what it read anywhere" in texts(dialog)

    # The person can make the window bigger, and the script gets the room.
    assert dialog.minimumSize() != dialog.maximumSize(), "the window can be resized"
    before, view_before = dialog.size(), view.size()
    dialog.resize(before.width() + 200, before.height() + 200)
    await until(lambda: dialog.size().height() > before.height(), what="the window to grow")
    await until(lambda: view.height() > view_before.height(), what="the script view to grow with it")
    assert view.width() > view_before.width()
    await deny(dialog, call)


async def test_a_new_workflow_shows_every_step_the_values_it_types_and_that_approving_saves_it(
    make_app: AppFactory, connect_extension: ExtensionFactory, qapp: QApplication
) -> None:
    app, dialogs = await prompted(make_app, connect_extension)
    app.secrets.set("SHOP_PW", "hunter2-not-shown")
    try:
        steps = [
            {"type": "navigate", "url": "https://jobs.test/login?user={{user}}"},
            {"type": "fill", "selector": "#user", "value": "{{user}}"},
            {"type": "fill", "selector": "#pw", "value": "{{secret:SHOP_PW}}"},
            {"type": "click", "selector": "#go"},
            {"type": "navigate", "url": "https://jobs.test/orders"},
            {
                "type": "extract",
                "selector": "tr.order",
                "schema": {"id": "td.id | text", "total": "td.total | number"},
                "paginate": {"next_selector": "a.next", "max_pages": 3},
            },
        ]
        args = {
            "action": "scrape",
            "operation": "workflow",
            "name": "Orders",
            "record": True,
            "params": {"user": "alice"},
            "steps": steps,
        }
        dialog, call = await ask(app, dialogs, args)
        assert (
            dialog.title_label.text()
            == 'An agent that says it is "agent" wants to run the workflow “Orders” (4 page-changing steps)'
        )
        assert dialog.steps_view is not None
        assert dialog.steps_view.toPlainText().splitlines() == [
            "1. Go to https://jobs.test/login?user=alice",
            '2. Fill #user with "alice"',
            '3. Fill #pw with "{{secret:SHOP_PW}}"',
            "4. Click #go",
            "5. Go to https://jobs.test/orders",
            "6. Read rows from tr.order (id, total) for the agent, clicking a.next for each next page, up to 3 pages",
        ]
        assert dialog.notes_label is not None
        notes = dialog.notes_label.text()
        assert "Approving also saves this workflow as “Orders”" in notes
        assert "The rows it reads are sent to the agent." in notes
        assert "{{secret:SHOP_PW}}" in notes
        # It goes to its own pages first: the tab's page now is not shown beside the site it acts on.
        assert not dialog.url_label.isVisible()
        assert "Page:" not in texts(dialog)
        assert dialog.origin_label.text() == "https://jobs.test"
        assert "hunter2" not in texts(dialog) + dialog.steps_view.toPlainText() + dialog.params_view.toPlainText()
        await deny(dialog, call)
    finally:
        app.secrets.delete("SHOP_PW")


async def test_a_replay_shows_the_saved_workflow_by_name_with_its_values(
    make_app: AppFactory, connect_extension: ExtensionFactory, qapp: QApplication
) -> None:
    app, dialogs = await prompted(make_app, connect_extension)
    save_workflow(app, jobs_workflow(secret="PW", name="Jobs in Lyon"))

    def saved() -> bool:  # read whole (the watcher may first see the file half-written)
        entry = app.workflows.get("wf-jobs")
        return entry is not None and entry.workflow is not None

    await until(saved, what="the saved workflow")
    args = {"action": "scrape", "operation": "replay", "workflow_id": "wf-jobs", "params": {"city": "Lyon"}}
    dialog, call = await ask(app, dialogs, args)
    assert (
        dialog.title_label.text()
        == 'An agent that says it is "agent" wants to replay the saved workflow “Jobs in Lyon”'
    )
    assert dialog.workflow_label is not None and dialog.workflow_label.text() == "Jobs in Lyon (wf-jobs)"
    assert dialog.steps_view is not None
    assert dialog.steps_view.toPlainText().splitlines() == [
        "1. Go to https://jobs.test/search?q=python&in=Lyon",
        '2. Fill #password with "{{secret:PW}}"',
        "3. Read rows from tr.job (title, city) for the agent",
    ]
    assert dialog.notes_label is not None
    assert "saves" not in dialog.notes_label.text(), "a replay saves nothing"
    await deny(dialog, call)


async def test_a_workflow_that_starts_on_the_page_the_tab_shows_says_so(
    make_app: AppFactory, connect_extension: ExtensionFactory, qapp: QApplication
) -> None:
    app, dialogs = await prompted(make_app, connect_extension)
    steps = [{"type": "click", "selector": "#accept"}, {"type": "fill", "selector": "#q", "value": "rust"}]
    dialog, call = await ask(app, dialogs, {"action": "scrape", "operation": "workflow", "steps": steps})
    assert (
        dialog.title_label.text()
        == 'An agent that says it is "agent" wants to run a workflow with 2 page-changing steps'
    )
    assert dialog.url_label.isVisible() and dialog.url_label.text() == "https://jobs.test/"
    assert "Starts on:" in texts(dialog)
    await deny(dialog, call)


def test_any_step_kind_is_listed_and_numbered_from_one() -> None:
    """Steps of kinds the prompt has no words for (e.g. the clicks that turn pages, which the engine may list)
    are shown as they are; nested ones are numbered under their step."""
    steps = [
        {"type": "navigate", "url": "https://a.test/"},
        {
            "type": "if_exists",
            "selector": "#cookie",
            "then": [{"type": "click", "selector": "#cookie button"}],
            "else": [{"type": "delay", "ms": 1500}],
        },
        {"type": "press", "key": "Enter", "selector": "#q"},
    ]
    request = ApprovalRequest(
        "corr",
        "agent",
        "interact",
        "scrape",
        {"operation": "workflow", "steps": steps},
        steps=(
            {"type": "click", "selector": "#cookie button"},
            {"type": "press", "key": "Enter", "selector": "#q"},
            {"type": "paginate_click", "selector": "a.next", "page": 2},
        ),
    )
    plan = plan_for(request)
    assert plan is not None
    assert [(s.number, s.text, s.changes_page) for s in plan.steps] == [
        ("1", "Go to https://a.test/", False),
        ("2", "Look whether #cookie is on the page", False),
        ("", "If it is:", False),
        ("2.1", "Click #cookie button", True),
        ("", "If it is not:", False),
        ("2.1", "Pause 1.5 s", False),
        ("3", "Press Enter in #q", True),
        ("", "Also part of this approval:", False),
        ("•", 'paginate_click  selector="a.next"  page=2', True),
    ]
    assert plan_for(ApprovalRequest("c", "a", "interact", "click", {"selector": "#x"})) is None


def test_a_replay_is_shown_with_its_overrides_and_params_as_it_will_run() -> None:
    saved = {
        "workflow_id": "wf-a",
        "name": "Search",
        "steps": [
            {"type": "navigate", "url": "https://a.test/?q={{q}}"},
            {"type": "type", "selector": "#box", "text": "{{q}} {{missing}}"},
        ],
        "params": {"q": "python"},
    }
    request = ApprovalRequest(
        "corr",
        "agent",
        "interact",
        "scrape",
        {
            "operation": "replay",
            "workflow_id": "wf-a",
            "params": {"q": "rust"},
            "override_params": {"steps[0].url": "https://b.test/?q={{q}}"},
        },
        steps=({"type": "type", "selector": "#box", "text": "{{q}} {{missing}}"},),
        workflow_id="wf-a",
    )
    plan = plan_for(request, saved)
    assert plan is not None and plan.name == "Search" and not plan.saves
    assert [s.text for s in plan.steps] == ["Go to https://b.test/?q=rust", 'Type "rust {{missing}}" into #box']
    assert plan.missing == ["missing"]
    # The saved file gone (or unreadable) meanwhile: what the request lists, still every approved step.
    fallback = plan_for(request, None)
    assert fallback is not None
    assert [(s.number, s.text) for s in fallback.steps] == [("1", 'Type "{{q}} {{missing}}" into #box')]
    assert fallback.missing == [], "values unknown here: none said to be missing"
