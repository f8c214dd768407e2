"""Text an agent or a page supplies is shown as itself, never as markup (issue 18, item 5).

An agent named `Claude<br>wants to take a screenshot.<span style='font-size:1px'>` once made the approval
prompt read as a screenshot request and hid "wants to click an element". Here hostile names — the agent's,
a workflow's, step values, a selector, a page's title and address, a rule's site, a browser's name — are
set on every window, and each place a person reads them must show the very characters given: a label's
text as Qt draws it, a tooltip as Qt would render it, a menu item without its mnemonic `&` eaten, a window
title without its `[*]` taken, a notification with nothing a notification server would render as markup.
"""

from __future__ import annotations

import re

import pytest
from PySide6 import QtGui
from PySide6.QtCore import QModelIndex, QPoint, Qt
from PySide6.QtGui import QTextDocument
from PySide6.QtWidgets import QApplication, QLabel, QMenu, QMessageBox, QWidget
from tests.conftest import AppFactory
from tests.gui.conftest import ExtensionFactory, TrayFactory, find_action
from tests.gui.ui_support import JobsSite, Notifications, jobs_workflow, save_workflow, ui_settled, window_of
from tests.support.waiting import until
from tests.unit.fakes import page_info

from tabpilot.engine.ports import ApprovalDecision, ApprovalRequest
from tabpilot.ui.activity_window import AGENT, TOOLTIP, ActivityWindow
from tabpilot.ui.approval_dialog import ApprovalDialog
from tabpilot.ui.pairing import open_paired_browsers, open_pairing_code
from tabpilot.ui.rules_window import open_rules_window
from tabpilot.ui.workflow_plan import plan_for
from tabpilot.ui.workflows_menu import ParamsDialog, RunViewer

HOSTILE_AGENT = "Claude<br>wants to take a screenshot.<span style='font-size:1px'>"
MARKUP = "<b>B</b><br><span style='font-size:1px'>tiny</span><img src='/etc/x.png'>&amp;"
FRAGMENTS = ("<b>", "<br>", "<span style='font-size:1px'>", "<img src='/etc/x.png'>", "&amp;")
"""Each must be seen literally wherever MARKUP is shown."""
WF_NAME = "Jobs <b>x</b> &amp; [*]"
SELECTOR = "#go<br><b>here</b>"
TAB_TITLE = "<i>Sign</i> &amp; in"
ORIGIN = "https://shop.test"
URL = "https://shop.test/login?next=<b>home</b>&amp;x=1"


def displayed(text: str, text_format: Qt.TextFormat = Qt.TextFormat.AutoText) -> str:
    """What a person reads: rich text (AutoText guesses it from tags) is rendered, plain text is as is."""
    rich = text_format == Qt.TextFormat.RichText or (
        text_format == Qt.TextFormat.AutoText and QtGui.Qt.mightBeRichText(text)
    )
    if not rich:
        return text
    document = QTextDocument()
    document.setHtml(text)
    return document.toPlainText()


INVISIBLE = dict.fromkeys(map(ord, "\u200b\u2060"))
"""Zero-width characters the windows may put in to let a long name wrap, or to keep `[*]` as it is."""


def label_shows(label: QLabel) -> str:
    return displayed(label.text(), label.textFormat()).translate(INVISIBLE)


def menu_shows(text: str) -> str:
    """A menu item's text as drawn: `&&` is one `&`, a lone `&` marks the next letter (and is not drawn)."""
    return re.sub(r"&(.)", r"\1", text)


def title_shows(window: QWidget) -> str:
    """A window's title as the window manager gets it (Qt takes `[*]` as the "modified" placeholder)."""
    handle = window.windowHandle()
    assert handle is not None, "the window is not shown"
    return handle.title().translate(INVISIBLE)


def literally(shown: str, text: str = MARKUP) -> None:
    assert text in shown, f"{text!r} is not shown literally in {shown!r}"


def box_shows(box: QMessageBox) -> str:
    labels = [box.findChild(QLabel, name) for name in ("qt_msgbox_label", "qt_msgbox_informativelabel")]
    return "\n".join(label_shows(label) for label in labels if label is not None)


# -- the approval prompt ---------------------------------------------------------------------------------


def test_the_prompt_headline_says_the_real_action_whatever_the_agent_is_called(qapp: QApplication) -> None:
    request = ApprovalRequest(
        "c-click",
        HOSTILE_AGENT,
        "interact",
        "click",
        {"selector": SELECTOR},
        tab_url=URL,
        origin=ORIGIN,
        tab_id=1,
        selector=SELECTOR,
    )
    dialog = ApprovalDialog(request, timeout_s=60)
    try:
        headline = label_shows(dialog.title_label)
        assert headline == f'An agent that says it is "{HOSTILE_AGENT}" wants to click an element', headline
        literally(label_shows(dialog.agent_label), HOSTILE_AGENT)
        literally(displayed(dialog.agent_label.toolTip()), HOSTILE_AGENT)
        literally(label_shows(dialog.url_label), URL)
        literally(displayed(dialog.url_label.toolTip()), URL)
        literally(label_shows(dialog.picture_caption), SELECTOR)
        literally(displayed(dialog.allow_site_button.toolTip()), HOSTILE_AGENT)
        dialog.show_crop({"found": False})
        literally(label_shows(dialog.picture), SELECTOR)
        dialog.show_crop({"found": True, "on_screen": False})
        literally(label_shows(dialog.picture), SELECTOR)
    finally:
        dialog.deleteLater()

    files = ["<b>cv</b>.pdf", "a&amp;b.txt"]
    upload = ApprovalRequest(
        "c-up",
        HOSTILE_AGENT,
        "interact",
        "upload",
        {"selector": "#file", "files": files},
        origin=ORIGIN,
        steps=({"type": "upload", "selector": "#file", "files": files},),
    )
    dialog = ApprovalDialog(upload, timeout_s=60)
    try:
        headline = label_shows(dialog.title_label)
        assert headline.endswith("wants to upload 2 files into the page: <b>cv</b>.pdf, a&amp;b.txt"), headline
    finally:
        dialog.deleteLater()


def test_the_workflow_prompt_shows_names_and_values_as_given(qapp: QApplication) -> None:
    steps = [
        {"type": "navigate", "url": URL},
        {"type": "fill", "selector": SELECTOR, "value": MARKUP},
        {"type": "click", "selector": SELECTOR},
    ]
    request = ApprovalRequest(
        "c-wf",
        HOSTILE_AGENT,
        "interact",
        "scrape",
        {"operation": "workflow", "name": WF_NAME, "steps": steps, "record": True},
        steps=tuple(steps[1:]),
        origin=ORIGIN,
    )
    dialog = ApprovalDialog(request, timeout_s=60, plan=plan_for(request))
    try:
        headline = label_shows(dialog.title_label)
        assert headline == (
            f'An agent that says it is "{HOSTILE_AGENT}" wants to run the workflow “{WF_NAME}” (2 page-changing steps)'
        ), headline
        assert dialog.steps_view is not None and dialog.notes_label is not None
        plan = dialog.steps_view.toPlainText()
        literally(plan, f'Fill {SELECTOR} with "{MARKUP}"')
        literally(plan, f"Click {SELECTOR}")
        literally(label_shows(dialog.notes_label), WF_NAME)
    finally:
        dialog.deleteLater()

    replay = ApprovalRequest(
        "c-replay",
        HOSTILE_AGENT,
        "interact",
        "scrape",
        {"operation": "replay", "workflow_id": "wf-jobs"},
        origin=ORIGIN,
        workflow_id="wf-jobs",
        steps_hash="0" * 64,
    )
    saved = {"workflow_id": "wf-jobs", "name": WF_NAME, "steps": steps}
    dialog = ApprovalDialog(replay, timeout_s=60, plan=plan_for(replay, saved))
    try:
        literally(label_shows(dialog.title_label), f"wants to replay the saved workflow “{WF_NAME}”")
        assert dialog.workflow_label is not None
        literally(label_shows(dialog.workflow_label), WF_NAME)
        assert dialog.allow_workflow_button is not None
        literally(displayed(dialog.allow_workflow_button.toolTip()), HOSTILE_AGENT)
    finally:
        dialog.deleteLater()


# -- the tray's menus and windows ------------------------------------------------------------------------


def workflow_submenu(menu: QMenu, name: str) -> QMenu | None:
    """The submenu a person finds by the name as drawn."""
    for action in menu.actions():
        if menu_shows(action.text()) == name and isinstance(action.menu(), QMenu):
            found = action.menu()
            return found if isinstance(found, QMenu) else None
    return None


async def test_workflow_names_and_page_text_in_the_workflows_menu_and_its_windows(
    make_app: AppFactory,
    make_tray: TrayFactory,
    connect_extension: ExtensionFactory,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    app = await make_app(pilot=True)
    tray = make_tray(app)
    notifications = Notifications(tray, monkeypatch)
    site = JobsSite(fail_navigation=MARKUP)
    await connect_extension(app, **site.handlers())
    save_workflow(app, jobs_workflow(name=WF_NAME))
    submenu = await until(
        lambda: workflow_submenu(tray.workflows.menu, WF_NAME),
        timeout=3,
        what=f"{WF_NAME!r} in the menu, as drawn",
    )
    assert submenu is not None

    # The delete confirmation names it as it is.
    tray.workflows.ask_delete("wf-jobs")
    box = await window_of(QMessageBox, "the delete confirmation")
    literally(box_shows(box), f"Delete the workflow “{WF_NAME}”?")
    box.reject()
    await until(lambda: not box.isVisible(), what="the box to close")

    # Run with parameters: its heading and its title.
    tray.workflows.ask_params("wf-jobs")
    form = await window_of(ParamsDialog, "the parameters form")
    heading = form.findChildren(QLabel)[0]
    literally(label_shows(heading), f"Values for this run of {WF_NAME}")
    literally(title_shows(form), WF_NAME)
    form.reject()

    # A run the page makes fail with markup: the notification carries no markup a server would render.
    tray.workflows.run("wf-jobs", {"city": "Lyon"})
    said = await notifications.wait_for("Workflow ")
    assert not set("<>&") & set(said), said
    assert "Jobs" in said and "B" in said, said

    # Recent runs: the run's line, and its error on hover; the run's own window.
    tray.workflows.fill_recent_runs()
    [line] = [a for a in tray.workflows.recent_menu.actions() if not a.isSeparator()]
    literally(menu_shows(line.text()), WF_NAME)
    literally(displayed(line.toolTip()))
    viewer = tray.workflows.open_run("wf-jobs", app.facade.workflow_runs("wf-jobs")[0]["correlation_id"])
    assert isinstance(viewer, RunViewer)
    await until(viewer.isVisible, what="the run viewer")
    literally(title_shows(viewer), WF_NAME)
    literally(label_shows(viewer.status_label))
    viewer.close()

    # The activity window: the agent's name and the error, on hover.
    await app.engine.call("observe", {"what": "pilot"}, agent=HOSTILE_AGENT)
    activity = tray.show_activity()
    assert isinstance(activity, ActivityWindow)
    model = activity.model

    def tooltips(column: int) -> list[str]:
        return [
            displayed(str(model.data(model.index(row, column, QModelIndex()), TOOLTIP) or ""))
            for row in range(model.rowCount())
        ]

    await until(lambda: any(HOSTILE_AGENT in t for t in tooltips(AGENT)), what="the agent's row")
    literally(next(t for t in tooltips(AGENT) if "says it is" in t), HOSTILE_AGENT)
    activity.close()
    await ui_settled()


async def test_tab_titles_agent_names_rules_and_browsers_in_the_tray(
    make_app: AppFactory,
    make_tray: TrayFactory,
    connect_extension: ExtensionFactory,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    app = await make_app(pilot=True)
    tray = make_tray(app)
    notifications = Notifications(tray, monkeypatch)
    tabs = [{"tab_id": 7, "url": URL, "title": TAB_TITLE, "active": True, "tracked": False}]
    await connect_extension(
        app,
        tabs_list=lambda p: {"tabs": tabs},
        handoff_start=lambda p: {"tab_id": 7, "url": URL, "title": TAB_TITLE, "focused": True},
        handoff_end=lambda p: {"ended": True},
        page_info=lambda p: page_info(url=URL, title=TAB_TITLE),
    )

    # Hand a tab to an agent: the agent's submenu and the tab's line.
    await app.engine.call("observe", {"what": "pilot"}, agent=HOSTILE_AGENT, session="mcp-1")
    entry = find_action(tray.menu, "Hand a tab to an agent")
    await until(entry.isEnabled, what="the hand-a-tab entry")
    hand = tray.hand_tab_menu
    hand.popup(QPoint(40, 40))
    [agent_menu] = hand.agent_menus.values()
    literally(menu_shows(agent_menu.title()), HOSTILE_AGENT)
    await until(
        lambda: any(TAB_TITLE in menu_shows(a.text()) for a in agent_menu.actions()),
        what="the tab's line, its title as drawn",
    )
    hand.hide()

    # Capture: the tab named by its title.
    app.capture.ingest({"tab_id": 7, "url": URL, "items": [{"kind": "log", "text": "a"}]})
    capture = tray.capture_menu
    capture.popup(QPoint(40, 40))
    await until(
        lambda: any(TAB_TITLE in menu_shows(a.text()) for a in capture.actions()),
        what="the tab's title in Capture, as drawn",
    )
    capture.hide()

    # A hand-off whose reason is markup: the Resume item, its tooltip (the page's title), the notification.
    answer = await app.engine.call("interact", {"action": "handoff", "reason": MARKUP}, agent=HOSTILE_AGENT)
    assert answer["status"] == "awaiting_user"
    said = await notifications.wait_for("An agent needs you in the browser")
    assert not set("<>&") & set(said), said
    resume = next(a for a in tray.menu.actions() if a.text().startswith("Resume"))
    literally(menu_shows(resume.text()), MARKUP[:40])
    literally(displayed(resume.toolTip()), TAB_TITLE)
    app.facade.resume_handoff(answer["correlation_id"])

    async def resumed() -> bool:
        result = await app.engine.call(
            "observe", {"what": "command_result", "correlation_id": answer["correlation_id"]}
        )
        return result.get("status") == "resumed"

    await until(resumed, what="the hand-off to end (the browser told)")

    # The rules window: the agent, the site, what a row says on hover.
    class Answer:
        async def decide(self, request: ApprovalRequest) -> ApprovalDecision:
            return ApprovalDecision(allow=True, remember="site", minutes=60)

    app.policy.human = Answer()
    hostile_site = "https://<b>shop</b>.test&amp;"
    await app.policy.decide(
        ApprovalRequest("c-rule", HOSTILE_AGENT, "interact", "click", {}, origin=hostile_site, selector="#x")
    )
    rules = open_rules_window(app.facade)
    await until(lambda: rules.table.rowCount() == 1, what="the rule")
    cells = [rules.table.item(0, column) for column in range(rules.table.columnCount() - 1)]
    literally(" | ".join(c.text() for c in cells if c is not None), HOSTILE_AGENT)
    for cell in cells:
        if cell is not None:
            literally(displayed(cell.toolTip()), HOSTILE_AGENT)
            literally(displayed(cell.toolTip()), hostile_site)
    [revoke] = rules.revoke_buttons.values()
    literally(displayed(revoke.toolTip()), hostile_site)
    rules.close()

    # A browser paired with a hostile name while another is connected: the pairing window says it is paired
    # and waits (naming both), then the paired-browsers window.
    monkeypatch.setattr(app.facade, "browsers_full", lambda: "<b>Chrome</b>&amp; is connected now.")
    window = open_pairing_code(app.facade)
    browser = {"name": "<b>Chrome</b>&amp;", "version": "<br>131", "os": "<i>Linux</i>"}
    app.pairings.pair(
        window.pending, {"browser": browser, "extension_id": window.pending.extension_id, "instance_id": "i-1"}
    )
    await until(lambda: "paired" in window.instructions.text(), what="the pairing window to say paired")
    literally(label_shows(window.instructions), "<b>Chrome</b>&amp;")
    literally(label_shows(window.busy_label), "<b>Chrome</b>&amp; is connected now.")
    window.close()
    paired = open_paired_browsers(app.facade)
    await until(lambda: paired.table.rowCount() == 2, what="the fake extension's browser and the hostile one")
    [row] = [r for r in range(2) if (cell := paired.table.item(r, 1)) is not None and "Chrome</b>" in cell.text()]
    for column in (0, 1):
        cell = paired.table.item(row, column)
        assert cell is not None
        literally(cell.text(), "<b>Chrome</b>&amp;")
    browser_cell = paired.table.item(row, 1)
    assert browser_cell is not None
    literally(displayed(browser_cell.toolTip()), "<b>Chrome</b>&amp; <br>131 on <i>Linux</i>")
    [forget] = [b for b in paired.revoke_buttons.values() if "Chrome</b>" in displayed(b.toolTip())]
    literally(displayed(forget.toolTip()), "Forget <b>Chrome</b>&amp; on <i>Linux</i>")
    paired.close()
    await ui_settled()
