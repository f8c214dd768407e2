"""Standing rules cover what the person saw and no more: the agent that asked, the site, the class of
action (element actions / JavaScript / that workflow); rules kept before classes existed grant nothing."""

from __future__ import annotations

from typing import Any

import pytest

from tabpilot.approvals import AutoApprove, DenyAll
from tabpilot.engine.catalog import build_registry
from tabpilot.engine.core import Engine
from tabpilot.engine.errors import TabpilotError
from tabpilot.engine.ports import ApprovalDecision, ApprovalRequest
from tabpilot.engine.safety.pilot import PilotState
from tabpilot.engine.safety.policy import ApprovalPolicy, MemoryRules, Rule, action_class
from tests.unit.fakes import FakeApprovals, FakeBrowser, FakeClock

SITE = "https://shop.test"


def request(agent: str = "claude-code 1.0", mode: str = "click", origin: str = SITE, **extra: Any) -> ApprovalRequest:
    steps = ({"type": mode, "selector": "#x"},)
    return ApprovalRequest(
        "corr-1", agent, "interact", mode, {}, origin=origin, steps=steps, action_class=action_class(steps), **extra
    )


async def test_a_site_rule_covers_the_agent_the_site_and_the_class_approved_only() -> None:
    person = FakeApprovals(ApprovalDecision(allow=True, remember="site", minutes=15))
    policy = ApprovalPolicy(person, clock=FakeClock())
    assert (await policy.decide(request())).allow
    [rule] = policy.rules()
    assert (rule.agent, rule.origin, rule.action_class) == ("claude-code 1.0", SITE, "element")

    # The same agent's element actions on that site: covered, answered by the rule.
    for mode in ("click", "fill", "type", "press", "select"):
        decision = await policy.decide(request(mode=mode))
        assert (decision.allow, decision.decided_by, decision.rule_id) == (True, "rule", rule.rule_id)
    assert len(person.requests) == 1

    # Another agent, JavaScript, another site: each asks the person again.
    assert policy.matching(request(agent="cursor 2.0")) is None
    assert policy.matching(request(mode="execute_js")) is None
    assert policy.matching(request(origin="https://bank.test")) is None
    assert policy.matching(request(origin=f"{SITE} https://bank.test")) is None


async def test_a_javascript_rule_covers_javascript_only() -> None:
    person = FakeApprovals(ApprovalDecision(allow=True, remember="site", minutes=5))
    policy = ApprovalPolicy(person, clock=FakeClock())
    await policy.decide(request(mode="execute_js"))
    [rule] = policy.rules()
    assert rule.action_class == "javascript"
    assert policy.matching(request(mode="execute_js")) is rule
    assert policy.matching(request(mode="click")) is None


async def test_an_always_allowed_workflow_covers_the_agent_that_asked_only() -> None:
    person = FakeApprovals(ApprovalDecision(allow=True, remember="workflow"))
    policy = ApprovalPolicy(person, clock=FakeClock())
    flow = request(mode="scrape", workflow_id="wf-orders", steps_hash="h1")
    await policy.decide(flow)
    assert policy.matching(flow) is not None
    assert policy.matching(request(mode="scrape", agent="other", workflow_id="wf-orders", steps_hash="h1")) is None
    assert policy.matching(request(mode="scrape", workflow_id="wf-orders", steps_hash="h2")) is None


async def test_answers_from_auto_and_the_policy_never_become_rules() -> None:
    for human in (AutoApprove(), DenyAll()):
        policy = ApprovalPolicy(human, clock=FakeClock())
        await policy.decide(request())
        assert policy.rules() == []


async def test_headless_answers_say_who_decided() -> None:
    assert await DenyAll().decide(request()) == ApprovalDecision(allow=False, decided_by="policy")
    assert await AutoApprove().decide(request()) == ApprovalDecision(allow=True, decided_by="auto")
    policy = ApprovalPolicy(DenyAll(), clock=FakeClock())
    assert (await policy.decide(request())).decided_by == "policy"


def test_rules_kept_before_classes_existed_are_dropped() -> None:
    """An old "allow page changes on a site" allowed every agent JavaScript too: no one can tell what
    the person saw, so it grants nothing now (the person is asked again)."""
    old = [
        {"rule_id": "rule-1", "kind": "site", "created_at": 1.0, "origin": SITE, "expires_at": 9e9, "agent": "a"},
        {"rule_id": "rule-2", "kind": "site", "created_at": 1.0, "origin": SITE, "expires_at": 9e9},
        {"rule_id": "rule-3", "kind": "workflow", "created_at": 1.0, "workflow_id": "wf", "steps_hash": "h"},
        {
            "rule_id": "rule-4",
            "kind": "workflow",
            "created_at": 1.0,
            "workflow_id": "wf",
            "steps_hash": "h",
            "agent": "a",
        },
        {
            "rule_id": "rule-5",
            "kind": "site",
            "created_at": 1.0,
            "origin": SITE,
            "agent": "a",
            "action_class": "element",
        },
    ]
    kept = [r for r in map(Rule.from_dict, old) if r is not None]  # as the keyring's StoredRules loads them
    assert [r.rule_id for r in kept] == ["rule-4", "rule-5"]
    store = MemoryRules()
    store.rules = kept
    policy = ApprovalPolicy(FakeApprovals(), store, clock=FakeClock())
    assert policy.matching(request(agent="a", mode="execute_js")) is None
    assert policy.matching(request(agent="b")) is None
    assert policy.matching(request(agent="a")) is not None


def test_a_rule_says_exactly_what_it_allows() -> None:
    site = Rule(
        "rule-1", "site", 0.0, origin=SITE, expires_at=1_700_000_000.0, agent="you (tray)", action_class="element"
    )
    text = site.describe()
    assert 'says it is "you (tray)"' in text, "the agent's name is its own claim, never the person"
    assert "element actions (click, fill, type, press, select, check, uncheck, hover, focus, drag, upload," in text
    assert SITE in text and "until 20" in text
    js = Rule("rule-2", "site", 0.0, origin=SITE, expires_at=None, agent="a", action_class="javascript")
    assert "running JavaScript" in js.describe()
    flow = Rule("rule-3", "workflow", 0.0, workflow_id="wf-x", steps_hash="h", agent="a")
    assert "replay workflow wf-x with the same steps and values, until revoked" in flow.describe()


@pytest.mark.parametrize(
    ("first", "second"),
    [
        (("agent-a", {"action": "click", "selector": "#buy"}), ("agent-b", {"action": "click", "selector": "#buy"})),
        (("agent-a", {"action": "click", "selector": "#buy"}), ("agent-a", {"action": "execute_js", "script": "1"})),
    ],
)
async def test_through_the_engine_a_site_rule_for_a_click_does_not_cover_another_agent_or_javascript(
    first: tuple[str, dict[str, Any]], second: tuple[str, dict[str, Any]]
) -> None:
    browser = FakeBrowser(active_url="https://shop.test/cart")
    person = FakeApprovals(ApprovalDecision(allow=True, remember="site", minutes=15), "deny")
    engine = Engine(build_registry(), browser, ApprovalPolicy(person, clock=FakeClock()), pilot=PilotState(True))
    try:
        await engine.call("interact", first[1], agent=first[0])
        again = await engine.call("interact", first[1], agent=first[0])  # covered by the rule
        assert again["clicked"] is True and browser.calls[-1].op == "dom.click"
        assert len(person.requests) == 1
        with pytest.raises(TabpilotError) as denied:
            await engine.call("interact", second[1], agent=second[0])
        assert len(person.requests) == 2, "the person was asked"
        assert (denied.value.code, denied.value.details["decided_by"]) == ("approval_denied", "person")
        assert [c.op for c in browser.acting_calls] == ["dom.click", "dom.click"]
        finished = engine.activity.recent()[-1]
        assert finished.decided_by == "person"
        assert [e.decided_by for e in engine.activity.recent() if e.phase == "finished"] == ["person", "rule", "person"]
    finally:
        await engine.close()
