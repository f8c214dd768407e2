"""The approval rules window: every standing rule with what it covers and how long it lasts, Revoke,
live updates, and rules that run out disappear."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import shiboken6
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication
from tests.conftest import AppFactory
from tests.gui.approvals import ShiftedClock, close_our_windows
from tests.support.waiting import until

from tabpilot.engine.ports import ApprovalDecision, ApprovalRequest
from tabpilot.engine.safety.policy import class_name
from tabpilot.ui.rules_window import RulesWindow, open_rules_window, show_rules_window


@pytest.fixture(autouse=True)
def _windows_closed() -> Iterator[None]:
    yield
    close_our_windows()


class Scripted:
    """A person who gives the answers the test lines up."""

    def __init__(self) -> None:
        self.answers: list[ApprovalDecision] = []

    async def decide(self, request: ApprovalRequest) -> ApprovalDecision:
        return self.answers.pop(0)


ELEMENT_ACTIONS = "E" + class_name("element")[1:]
WORKFLOW_REPLAYS = "Replay this saved workflow, same steps and values"


def rows(window: RulesWindow) -> list[list[str]]:
    table = window.table
    out = []
    for row in range(table.rowCount()):
        cells = []
        for column in range(table.columnCount() - 1):
            item = table.item(row, column)
            cells.append(item.text() if item is not None else "")
        out.append(cells)
    return out


async def test_rules_are_listed_live_revocable_and_expire(make_app: AppFactory, qapp: QApplication) -> None:
    human = Scripted()
    app = await make_app(approvals=human)
    clock = ShiftedClock()
    app.policy.clock = clock
    window = open_rules_window(app.facade)
    await until(window.isVisible, what="the rules window")
    assert window.windowTitle() == "Tabpilot — Approval rules"
    assert rows(window) == []
    assert window.empty_label.isVisible()

    # A person answers "Allow for this site, 5 minutes" in a prompt: the rule shows up at once.
    human.answers.append(ApprovalDecision(allow=True, remember="site", minutes=5))
    site = ApprovalRequest("c1", "Claude Code", "interact", "click", {}, origin="http://127.0.0.1:8000")
    await app.policy.decide(site)
    [site_rule] = app.policy.rules()
    [[agent, allows, scope, left, _since]] = rows(window)
    assert (agent, allows, scope) == ('says it is "Claude Code"', ELEMENT_ACTIONS, "http://127.0.0.1:8000")
    assert left in ("5:00", "4:59")
    assert not window.empty_label.isVisible()

    human.answers.append(ApprovalDecision(allow=True, remember="workflow"))
    flow = ApprovalRequest(
        "c2", "Cursor", "interact", "scrape", {}, origin="https://a.example", workflow_id="wf-orders", steps_hash="h1"
    )
    await app.policy.decide(flow)
    assert [r[:4] for r in rows(window)] == [
        ['says it is "Claude Code"', ELEMENT_ACTIONS, "http://127.0.0.1:8000", left],
        ['says it is "Cursor"', WORKFLOW_REPLAYS, "workflow wf-orders", "until revoked"],
    ]

    # Time left counts down as the clock moves.
    clock.advance(120)
    await until(lambda: rows(window)[0][3] in ("3:00", "2:59"), timeout=3, what="the time left to count down")

    # Revoke: the rule is gone from the policy and from the window; the next request asks again.
    QTest.mouseClick(window.revoke_buttons[site_rule.rule_id], Qt.MouseButton.LeftButton)
    assert [r.kind for r in app.policy.rules()] == ["workflow"]
    assert [r[2] for r in rows(window)] == ["workflow wf-orders"]
    assert app.policy.matching(site) is None

    # A rule that runs out disappears by itself.
    human.answers.append(ApprovalDecision(allow=True, remember="site", minutes=5))
    await app.policy.decide(site)
    assert [r[2] for r in rows(window)] == ["workflow wf-orders", "http://127.0.0.1:8000"]
    clock.advance(5 * 60 + 1)
    await until(lambda: [r[2] for r in rows(window)] == ["workflow wf-orders"], timeout=3, what="the rule to expire")
    assert app.policy.matching(site) is None

    # One window per app: asking again brings the same one to the front.
    show_rules_window(app.facade)
    assert open_rules_window(app.facade) is window
    assert len(app.policy.changed) == 1
    window.close()
    assert len(app.policy.changed) == 0, "a closed window stops listening"
    await until(lambda: not shiboken6.isValid(window), what="the closed window to be deleted")
    again = open_rules_window(app.facade)
    assert again is not window
    assert [r[2] for r in rows(again)] == ["workflow wf-orders"]


async def test_no_rules_shows_only_the_line_saying_so(make_app: AppFactory, qapp: QApplication) -> None:
    human = Scripted()
    app = await make_app(approvals=human)
    window = open_rules_window(app.facade)
    await until(window.isVisible, what="the rules window")
    assert window.empty_label.isVisible()
    assert window.empty_label.text() == "No rules: every page change asks you first."
    assert not window.table.isVisible(), "an empty table is shown under the line saying there are no rules"

    # The first rule: the table in the line's place.
    human.answers.append(ApprovalDecision(allow=True, remember="site", minutes=5))
    await app.policy.decide(ApprovalRequest("c1", "Claude Code", "interact", "click", {}, origin="https://a.example"))
    [rule] = app.policy.rules()
    assert window.table.isVisible()
    assert not window.empty_label.isVisible()

    # Revoked, the last one: the line again, alone.
    QTest.mouseClick(window.revoke_buttons[rule.rule_id], Qt.MouseButton.LeftButton)
    assert app.policy.rules() == []
    assert window.empty_label.isVisible()
    assert not window.table.isVisible()


async def test_each_rule_says_exactly_what_it_allows(make_app: AppFactory, qapp: QApplication) -> None:
    """The agent (as it named itself), the class of action, the site, and until when: on the row, in its
    tooltip, and on Revoke. An agent calling itself "you (tray)" is an agent's claim, not the person."""
    human = Scripted()
    app = await make_app(approvals=human)
    window = open_rules_window(app.facade)
    await until(window.isVisible, what="the rules window")
    human.answers.append(ApprovalDecision(allow=True, remember="site", minutes=60))
    js = ({"type": "execute_js", "script": "1"},)
    await app.policy.decide(
        ApprovalRequest(
            "c1",
            "you (tray)",
            "interact",
            "execute_js",
            {},
            origin="https://a.example",
            steps=js,
            action_class="javascript",
        )
    )
    [rule] = app.policy.rules()
    [[agent, allows, scope, _left, _since]] = rows(window)
    assert (agent, allows, scope) == ('says it is "you (tray)"', "Running JavaScript (execute_js)", "https://a.example")
    tip = window.table.item(0, 1).toolTip()
    assert tip.startswith(
        'The agent that says it is "you (tray)" may do running JavaScript (execute_js) on https://a.example, until '
    )
    assert window.revoke_buttons[rule.rule_id].toolTip() == (
        "Revoke: from now on, ask before running JavaScript (execute_js) on https://a.example by the agent that "
        'says it is "you (tray)".'
    )
    assert window.table.horizontalHeaderItem(0).text() == "Agent (the name it gave)"
