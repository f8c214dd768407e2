"""The approval dialog with the real App and bridge and a fake extension: what it shows, how it answers,
and that no keystroke, no closed window and no silence ever allows anything."""

from __future__ import annotations

import asyncio
import base64
import json
from typing import Any

import pytest
from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QRect, Qt
from PySide6.QtGui import QColor, QImage, QPainter
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication
from tests.conftest import AppFactory
from tests.gui.approvals import button, button_texts, click, click_call, next_dialog, outline_drawn
from tests.gui.conftest import ExtensionFactory
from tests.support.fake_extension import FakeExtension
from tests.support.waiting import until

from tabpilot.app import App
from tabpilot.engine.catalog import build_registry
from tabpilot.engine.errors import TabpilotError
from tabpilot.engine.ports import ApprovalDecision, ApprovalRequest
from tabpilot.engine.safety.policy import class_name
from tabpilot.ui.approval_dialog import ApprovalDialogs, headline

CLICKED = {"clicked": True, "changed": "no visible change"}
"""What the extension answers for a click that changed nothing visible."""

SCRIPT = "document.title = 'changed'; return 1 + 1"
PAGE = "https://shop.example/cart?step=2"


def js_commands(fake: FakeExtension, op: str = "js.execute") -> list[dict[str, Any]]:
    return [m for m in fake.received if m["type"] == "command" and m["op"] == op]


def execute_js(app: App, script: str = SCRIPT, agent: str = "Claude Code 1.0") -> asyncio.Task[dict[str, Any]]:
    return asyncio.get_running_loop().create_task(
        app.engine.call("interact", {"action": "execute_js", "script": script}, agent=agent)
    )


async def denied(call: asyncio.Task[dict[str, Any]], code: str = "approval_denied") -> TabpilotError:
    with pytest.raises(TabpilotError) as err:
        await asyncio.wait_for(call, 5)
    assert err.value.code == code
    return err.value


def page_png(width: int = 220, height: int = 130, box: QRect | None = None) -> str:
    """A stand-in for the extension's crop: a white page with a dark button at `box`."""
    image = QImage(width, height, QImage.Format.Format_RGB32)
    image.fill(QColor("white"))
    if box is not None:
        painter = QPainter(image)
        painter.fillRect(box, QColor("#2a3b4c"))
        painter.end()
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    image.save(buffer, "PNG")
    return base64.b64encode(bytes(data.data())).decode()


def tab(_params: dict[str, Any]) -> dict[str, Any]:
    return {"tab_id": 7, "url": PAGE, "title": "Cart"}


async def test_deny_has_no_side_effect_and_allow_once_runs(
    make_app: AppFactory, connect_extension: ExtensionFactory, qapp: QApplication
) -> None:
    dialogs = ApprovalDialogs(arm_delay_ms=0)
    app = await make_app(approvals=dialogs, pilot=True)
    dialogs.attach(app.facade)
    ran: list[dict[str, Any]] = []

    def js_execute(params: dict[str, Any]) -> dict[str, Any]:
        ran.append(params)
        return {"success": True, "result": 2}

    fake = await connect_extension(app, js_execute=js_execute, tabs_resolve=tab)

    # Deny: the call fails with approval_denied and the browser never hears of the script.
    call = execute_js(app)
    dialog = await next_dialog(dialogs)
    assert dialog.title_label.text() == 'An agent that says it is "Claude Code 1.0" wants to run JavaScript in the page'
    assert dialog.agent_label.text() == 'says it is "Claude Code 1.0"'
    assert dialog.action_label.text() == "interact · execute_js"
    assert dialog.url_label.text() == PAGE
    assert dialog.origin_label.text() == "https://shop.example"
    assert dialog.script_view is not None and dialog.script_view.toPlainText() == SCRIPT
    assert json.loads(dialog.params_view.toPlainText()) == {"timeout_ms": 5000}, "the rest of the parameters"
    assert dialog.picture_state == "none", "execute_js has no element to show"
    deny = button(dialog, "Deny")
    assert deny.isDefault(), "Deny must be the default"
    assert button_texts(dialog) == ["Allow once", "Allow for this site", "Deny"], "no workflow rule for a script"
    assert dialog.windowFlags() & Qt.WindowType.WindowStaysOnTopHint
    assert dialog.testAttribute(Qt.WidgetAttribute.WA_ShowWithoutActivating), "it must not take the keyboard"
    assert [job.status for job in app.engine.jobs.running()] == ["awaiting_approval"]
    QTest.mouseClick(deny, Qt.MouseButton.LeftButton)
    await denied(call)
    assert dialogs.open == []
    assert js_commands(fake) == []
    assert ran == []

    # Allow once: it runs, exactly once, with the script the prompt showed, and leaves no rule behind.
    call = execute_js(app)
    dialog = await next_dialog(dialogs)
    await click(dialog, "Allow once")
    assert await asyncio.wait_for(call, 5) == {"success": True, "result": 2}
    assert dialogs.open == []
    assert [c["params"]["script"] for c in js_commands(fake)] == [SCRIPT]
    assert [p["script"] for p in ran] == [SCRIPT]
    assert app.policy.rules() == []
    call = execute_js(app)
    dialog = await next_dialog(dialogs)  # asks again
    QTest.mouseClick(button(dialog, "Deny"), Qt.MouseButton.LeftButton)
    await denied(call)


async def test_escape_enter_and_closing_the_window_all_deny(
    make_app: AppFactory, connect_extension: ExtensionFactory, qapp: QApplication
) -> None:
    dialogs = ApprovalDialogs(arm_delay_ms=0)
    app = await make_app(approvals=dialogs, pilot=True)
    fake = await connect_extension(app, js_execute=lambda params: {"success": True, "result": 2})
    for how in ("escape", "enter", "close"):
        call = execute_js(app)
        dialog = await next_dialog(dialogs)
        await until(lambda d=dialog: button(d, "Allow once").isEnabled(), what="armed")  # type: ignore[misc]
        if how == "escape":
            QTest.keyClick(dialog, Qt.Key.Key_Escape)
        elif how == "enter":
            QTest.keyClick(dialog, Qt.Key.Key_Return)
        else:
            dialog.close()
        await denied(call)
        assert dialogs.open == [], how
    assert js_commands(fake) == []


async def test_no_keystroke_can_allow_and_a_fresh_prompt_is_not_armed(
    make_app: AppFactory, connect_extension: ExtensionFactory, qapp: QApplication
) -> None:
    """Someone typing elsewhere when the prompt pops up: no key presses an allow button (they never take the
    focus, Deny is the default), and for a moment after it appears a click on them does nothing either."""
    dialogs = ApprovalDialogs(arm_delay_ms=400)
    app = await make_app(approvals=dialogs, pilot=True)
    fake = await connect_extension(app, js_execute=lambda params: {"success": True, "result": 2})

    call = execute_js(app)
    dialog = await next_dialog(dialogs)
    allow = button(dialog, "Allow once")
    assert not allow.isEnabled(), "a click that lands as the prompt appears must not allow"
    QTest.mouseClick(allow, Qt.MouseButton.LeftButton)
    await until(allow.isEnabled, what="the allow buttons to arm")
    assert not call.done()
    for b in dialog.allow_buttons():
        assert b.focusPolicy() == Qt.FocusPolicy.NoFocus, f"{b.text()} could be pressed with a key"
        assert not b.isDefault() and not b.autoDefault()
    # The person comes to the window and tabs around, pressing Space (which presses a focused button) and
    # typing: focus never reaches an allow button, and nothing is allowed. Enter presses Deny.
    dialog.activateWindow()
    visited: list[object] = []
    for _ in range(8):
        QTest.keyClick(QApplication.focusWidget() or dialog, Qt.Key.Key_Tab)
        focused = QApplication.focusWidget()
        assert focused not in dialog.allow_buttons(), f"{focused} took the focus"
        visited.append(focused)
        if focused is not button(dialog, "Deny"):
            QTest.keyClick(focused or dialog, Qt.Key.Key_Space)
        QTest.keyClicks(focused or dialog, "yesallow")
        assert not call.done()
    assert set(visited) == {dialog.script_view, dialog.params_view, button(dialog, "Deny")}, (
        "Tab goes round the texts and Deny only"
    )
    QTest.keyClick(QApplication.focusWidget() or dialog, Qt.Key.Key_Return)
    await denied(call)
    assert js_commands(fake) == []


async def test_no_answer_in_time_raises_timeout_and_the_agent_gets_approval_timeout(
    make_app: AppFactory, connect_extension: ExtensionFactory, qapp: QApplication
) -> None:
    dialogs = ApprovalDialogs(timeout_s=0.5, arm_delay_ms=0)
    app = await make_app(approvals=dialogs, pilot=True)
    fake = await connect_extension(app, js_execute=lambda params: {"success": True, "result": 2})
    call = execute_js(app)
    dialog = await next_dialog(dialogs)
    assert "denies it" in dialog.countdown_label.text()
    await denied(call, "approval_timeout")
    assert dialogs.open == []
    assert js_commands(fake) == []
    # decide() itself raises TimeoutError (the engine turns it into approval_timeout)
    with pytest.raises(TimeoutError):
        await dialogs.decide(ApprovalRequest("corr-x", "agent", "interact", "click", {"selector": "#a"}))


async def test_parameters_are_shown_whole_and_secrets_only_as_references(
    make_app: AppFactory, connect_extension: ExtensionFactory, qapp: QApplication
) -> None:
    dialogs = ApprovalDialogs(arm_delay_ms=0)
    app = await make_app(approvals=dialogs, pilot=True)
    app.secrets.set("BANK_PW", "hunter2-very-secret")
    try:
        filled: list[dict[str, Any]] = []

        def dom_fill(params: dict[str, Any]) -> dict[str, Any]:
            filled.append(params)
            return {"filled": True, "changed": "no visible change"}

        await connect_extension(app, dom_fill=dom_fill, tabs_resolve=tab, tab_crop=lambda p: {"found": False})
        call = asyncio.get_running_loop().create_task(
            app.engine.call(
                "interact", {"action": "fill", "selector": "#pw", "value": "{{secret:BANK_PW}}"}, agent="agent"
            )
        )
        dialog = await next_dialog(dialogs)
        shown = dialog.params_view.toPlainText()
        assert json.loads(shown)["value"] == "{{secret:BANK_PW}}"
        assert "hunter2" not in shown
        assert all("hunter2" not in label.text() for label in dialog.findChildren(type(dialog.title_label)))
        await click(dialog, "Allow once")
        assert await asyncio.wait_for(call, 5) == {"filled": True, "changed": "no visible change"}
        assert filled[0]["value"] == "hunter2-very-secret", "the page gets the value, the person saw the name"

        # A long script is shown whole (it scrolls), never cut.
        script = "\n".join(f"document.body.dataset.n{i} = '{i}';" for i in range(400)) + "\nreturn 'the end'"
        call = execute_js(app, script)
        dialog = await next_dialog(dialogs)
        view = dialog.script_view
        assert view is not None and view.toPlainText() == script
        assert view.verticalScrollBar().maximum() > 0, "a long script scrolls"
        screen = dialog.screen().availableGeometry()
        assert dialog.frameGeometry().height() <= screen.height(), "and does not make the window taller than the screen"
        QTest.mouseClick(button(dialog, "Deny"), Qt.MouseButton.LeftButton)
        await denied(call)
    finally:
        app.secrets.delete("BANK_PW")


async def test_the_prompt_shows_at_once_then_the_outlined_picture(
    make_app: AppFactory, connect_extension: ExtensionFactory, qapp: QApplication
) -> None:
    dialogs = ApprovalDialogs(arm_delay_ms=0)
    app = await make_app(approvals=dialogs, pilot=True)
    dialogs.attach(app.facade)
    element = QRect(48, 48, 90, 28)
    crop_asked = asyncio.Event()
    release = asyncio.Event()
    answers: list[dict[str, Any]] = [
        {"found": True, "on_screen": True, "data": page_png(box=element), "width": 220, "height": 130,
         "box": {"x": 48, "y": 48, "width": 90, "height": 28}},
        {"found": True, "on_screen": False, "data": page_png(), "width": 220, "height": 130,
         "box": {"x": 48, "y": 48, "width": 90, "height": 28}},
        {"found": False},
    ]  # fmt: skip
    crops: list[dict[str, Any]] = []

    async def tab_crop(params: dict[str, Any]) -> dict[str, Any]:
        crops.append(params)
        crop_asked.set()
        await release.wait()
        return answers[len(crops) - 1]

    await connect_extension(
        app, tabs_resolve=tab, tab_crop=tab_crop, dom_click=lambda p: {"clicked": True, "changed": "no visible change"}
    )

    call = click_call(app, "#buy")
    dialog = await next_dialog(dialogs)
    await crop_asked.wait()
    assert dialog.picture_state == "loading", "the prompt must not wait for the picture"
    assert "Loading" in dialog.picture.text()
    assert crops == [{"tab_id": 7, "selector": "#buy"}]
    release.set()
    await until(lambda: dialog.picture_state == "shown", what="the picture")
    pixmap = dialog.picture.pixmap()
    assert not pixmap.isNull()
    assert (pixmap.width(), pixmap.height()) == (220, 130)
    assert dialog.outline == element
    assert outline_drawn(pixmap.toImage(), dialog)
    assert "#buy" in dialog.picture_caption.text()
    await click(dialog, "Allow once")
    assert await asyncio.wait_for(call, 5) == CLICKED

    call = click_call(app, "#below")
    dialog = await next_dialog(dialogs)
    await until(lambda: dialog.picture_state != "loading", what="the crop answer")
    assert dialog.picture_state == "off_screen"
    assert "off screen" in dialog.picture.text()
    QTest.keyClick(dialog, Qt.Key.Key_Escape)
    await denied(call)

    call = click_call(app, "#missing")
    dialog = await next_dialog(dialogs)
    await until(lambda: dialog.picture_state != "loading", what="the crop answer")
    assert dialog.picture_state == "not_found"
    assert "No element matches #missing" in dialog.picture.text()
    QTest.keyClick(dialog, Qt.Key.Key_Escape)
    await denied(call)


async def test_several_prompts_at_once_each_get_their_own_answer(
    make_app: AppFactory, connect_extension: ExtensionFactory, qapp: QApplication
) -> None:
    dialogs = ApprovalDialogs(arm_delay_ms=0)
    app = await make_app(approvals=dialogs, pilot=True)
    clicked: list[str] = []

    def dom_click(params: dict[str, Any]) -> dict[str, Any]:
        clicked.append(params["selector"])
        return {"clicked": True, "changed": "no visible change"}

    await connect_extension(app, dom_click=dom_click)
    first, second, third = (click_call(app, s, agent=a) for s, a in (("#a", "one"), ("#b", "two"), ("#c", "three")))
    await next_dialog(dialogs, 3)
    by_agent = {d.request.agent: d for d in dialogs.open}
    assert set(by_agent) == {"one", "two", "three"}
    positions = {(d.x(), d.y()) for d in dialogs.open}
    assert len(positions) == 3, "stacked prompts are offset so each can be seen"
    await click(by_agent["two"], "Allow once")
    assert await asyncio.wait_for(second, 5) == CLICKED
    assert not first.done() and not third.done()
    QTest.mouseClick(button(by_agent["three"], "Deny"), Qt.MouseButton.LeftButton)
    await denied(third)
    await click(by_agent["one"], "Allow once")
    assert await asyncio.wait_for(first, 5) == CLICKED
    assert clicked == ["#b", "#a"]
    assert dialogs.open == []


async def test_allow_for_this_site_with_a_duration_and_workflow_buttons(
    make_app: AppFactory, connect_extension: ExtensionFactory, qapp: QApplication
) -> None:
    dialogs = ApprovalDialogs(arm_delay_ms=0)
    await make_app(approvals=dialogs)
    # The buttons a saved workflow's prompt has; the answers each gives.
    request = ApprovalRequest(
        "corr-1",
        "agent",
        "interact",
        "scrape",
        {"operation": "replay", "workflow_id": "wf-shop"},
        tab_url=PAGE,
        steps=({"type": "click", "selector": "#a"}, {"type": "fill", "selector": "#b", "value": "{{secret:PW}}"}),
        origin="https://shop.example",
        workflow_id="wf-shop",
        steps_hash="abc",
    )
    expected = {
        "Allow once": ApprovalDecision(allow=True),
        "Allow for this site": ApprovalDecision(allow=True, remember="site", minutes=60),
        "Always allow this workflow": ApprovalDecision(allow=True, remember="workflow"),
    }
    for text, decision in expected.items():
        decide = asyncio.get_running_loop().create_task(dialogs.decide(request))
        dialog = await next_dialog(dialogs)
        assert button_texts(dialog) == ["Allow once", "Allow for this site", "Always allow this workflow", "Deny"]
        assert dialog.steps_view is not None
        assert dialog.steps_view.toPlainText().splitlines() == ["1. Click #a", '2. Fill #b with "{{secret:PW}}"']
        assert (
            dialog.title_label.text() == 'An agent that says it is "agent" wants to replay the saved workflow “wf-shop”'
        )
        assert dialog.workflow_label is not None and dialog.workflow_label.text() == "wf-shop"
        minutes = [dialog.site_minutes.itemData(i) for i in range(dialog.site_minutes.count())]
        assert minutes == [5, 15, 60]
        assert dialog.site_minutes.currentData() == 15
        dialog.site_minutes.setCurrentIndex(2)
        await click(dialog, text)
        assert await asyncio.wait_for(decide, 5) == decision

    # Several sites: only "Allow once" (a one-site rule cannot cover it).
    several = ApprovalRequest(
        "corr-2", "agent", "interact", "scrape", {}, origin="https://a.example https://b.example", steps=({},)
    )
    decide = asyncio.get_running_loop().create_task(dialogs.decide(several))
    dialog = await next_dialog(dialogs)
    await until(lambda: button(dialog, "Allow once").isEnabled(), what="armed")
    assert not button(dialog, "Allow for this site").isEnabled()
    dialog.reject()
    assert await asyncio.wait_for(decide, 5) == ApprovalDecision(allow=False)

    # Restoring a saved browser state: no site rule is ever made for it, so none is offered.
    restore = ApprovalRequest(
        "corr-3",
        "agent",
        "configure",
        "load_state",
        {"name": "shop"},
        origin="https://shop.example",
        steps=({"type": "load_state", "name": "shop"},),
        action_class="state",
    )
    decide = asyncio.get_running_loop().create_task(dialogs.decide(restore))
    dialog = await next_dialog(dialogs)
    await until(lambda: button(dialog, "Allow once").isEnabled(), what="armed")
    assert not button(dialog, "Allow for this site").isEnabled()
    assert "restoring saved browser states" in button(dialog, "Allow for this site").toolTip()
    dialog.reject()
    assert await asyncio.wait_for(decide, 5) == ApprovalDecision(allow=False)


async def test_the_rule_buttons_say_exactly_what_they_allow(make_app: AppFactory, qapp: QApplication) -> None:
    """Agent (as it named itself), site, class of action and how long: a click's site rule never covers
    JavaScript, a script's never covers clicks, and the tip follows the chosen duration."""
    dialogs = ApprovalDialogs(arm_delay_ms=0)
    await make_app(approvals=dialogs)
    click_request = ApprovalRequest(
        "corr-1",
        "you (tray)",
        "interact",
        "click",
        {"selector": "#buy"},
        tab_url=PAGE,
        steps=({"type": "click", "selector": "#buy"},),
        origin="https://shop.example",
        action_class="element",
    )
    decide = asyncio.get_running_loop().create_task(dialogs.decide(click_request))
    dialog = await next_dialog(dialogs)
    tip = button(dialog, "Allow for this site").toolTip()
    assert tip.startswith(
        'For 15 minutes, without asking: the agent that says it is "you (tray)" may do '
        f"{class_name('element')} on https://shop.example."
    )
    assert "element actions (click, fill" in tip
    assert "Not other agents, not other sites, and no JavaScript." in tip
    dialog.site_minutes.setCurrentIndex(2)
    assert button(dialog, "Allow for this site").toolTip().startswith("For 60 minutes, without asking")
    assert "once" in button(dialog, "Allow once").toolTip()
    assert dialog.agent_label.text() == 'says it is "you (tray)"'
    assert "cannot check" in dialog.agent_label.toolTip()
    dialog.reject()
    assert await asyncio.wait_for(decide, 5) == ApprovalDecision(allow=False)

    js_request = ApprovalRequest(
        "corr-2",
        "claude",
        "interact",
        "execute_js",
        {"script": "1"},
        tab_url=PAGE,
        steps=({"type": "execute_js", "script": "1"},),
        origin="https://shop.example",
        action_class="javascript",
    )
    decide = asyncio.get_running_loop().create_task(dialogs.decide(js_request))
    dialog = await next_dialog(dialogs)
    tip = button(dialog, "Allow for this site").toolTip()
    assert 'the agent that says it is "claude" may do running JavaScript (execute_js) on https://shop.example' in tip
    assert "no element actions (clicks, typing)" in tip
    dialog.reject()
    await asyncio.wait_for(decide, 5)

    flow = ApprovalRequest(
        "corr-3",
        "claude",
        "interact",
        "scrape",
        {"operation": "replay", "workflow_id": "wf-shop"},
        steps=({"type": "click", "selector": "#a"},),
        origin="https://shop.example",
        workflow_id="wf-shop",
        steps_hash="h",
    )
    decide = asyncio.get_running_loop().create_task(dialogs.decide(flow))
    dialog = await next_dialog(dialogs)
    tip = button(dialog, "Always allow this workflow").toolTip()
    assert tip.startswith(
        'Until you revoke it: the agent that says it is "claude" may replay the saved workflow “wf-shop” with '
        "exactly these steps and values, without asking."
    )
    dialog.reject()
    await asyncio.wait_for(decide, 5)


def test_every_command_that_asks_says_in_words_what_it_would_do() -> None:
    """A person reads "wants to block this tab's requests matching patterns", not "run configure block_urls"."""
    for command in build_registry().all():
        asks = command.approval is not None or command.emulates_when is not None  # a responsive screenshot asks
        if not asks or (command.tool, command.mode) in (("interact", "upload"), ("interact", "scrape")):
            continue
        request = ApprovalRequest("corr-1", "agent", command.tool, command.mode, {}, steps=({"type": command.mode},))
        assert f"run {command.tool} {command.mode}" not in headline(request), command.name
