"""configure emulate_device / set_viewport / set_user_agent / set_headers / mock_route / block_urls /
list_routes / clear_routes with a fake browser: device names, what goes to the extension, approvals,
and header values kept out of every answer and activity row."""

from __future__ import annotations

import pytest

from tabpilot.engine.browser_state import devices, routes
from tabpilot.engine.catalog import build_registry
from tabpilot.engine.core import Engine
from tabpilot.engine.errors import TabpilotError
from tabpilot.engine.ports import ActionClass, ApprovalDecision, ApprovalRequest
from tabpilot.engine.safety.pilot import PilotState
from tabpilot.engine.safety.policy import ApprovalPolicy, Rule, class_name
from tests.unit.engine.conftest import EngineFactory
from tests.unit.fakes import DictSecrets, FakeApprovals, FakeBrowser

TOKEN = "tok-5f2c9a71e04b"


@pytest.fixture
def approvals() -> FakeApprovals:
    return FakeApprovals(*["allow"] * 10)


# -- device names -----------------------------------------------------------------------------------


@pytest.mark.parametrize("typed", ["iPhone 15", "iphone15", "IPHONE-15", " iphone_15 ", "i.Phone 15"])
def test_a_device_name_matches_ignoring_case_spaces_and_punctuation(typed: str) -> None:
    found = devices.find(typed)
    assert found is not None and found.name == "iPhone 15"
    assert (found.width, found.height, found.device_scale_factor) == (393, 659, 3.0)
    assert found.is_mobile and found.has_touch and "iPhone" in found.user_agent


def test_nothing_looser_matches_and_the_nearest_names_are_suggested() -> None:
    assert devices.find("iPhnoe 15") is None
    assert devices.find("iPhone") is None  # which one? not guessed
    assert devices.suggestions("iPhnoe 15")[0] == "iPhone 15"
    assert all(name.startswith("Pixel ") for name in devices.suggestions("pixel"))
    assert devices.suggestions("ipad pro") == ["iPad Pro 11", "iPad Pro 11 landscape"]
    assert devices.suggestions("!!!") == []


def test_the_vendored_list_is_playwrights() -> None:
    listed = devices.devices()
    assert len(listed) > 100
    assert {"iPhone 15", "Pixel 7", "Desktop Chrome", "Galaxy S9+"} <= set(listed)
    assert len({devices.key(n) for n in listed}) == len(listed)  # no two names collide once normalised


# -- emulation --------------------------------------------------------------------------------------


async def test_emulate_device_sends_the_descriptor_and_is_asked_as_emulation(
    make_engine: EngineFactory, browser: FakeBrowser, approvals: FakeApprovals
) -> None:
    engine = make_engine()
    answer = await engine.call("configure", {"action": "emulate_device", "device": "pixel7"})
    assert answer["device"] == "Pixel 7" and answer["viewport"] == {"width": 412, "height": 839}
    sent = browser.acting_calls[-1]
    assert sent.op == "emulation.set"
    assert sent.params["mobile"] is True and sent.params["touch"] is True and sent.params["name"] == "Pixel 7"
    assert sent.params["screen_width"] == 412
    [asked] = approvals.requests
    assert asked.action_class == "emulation"
    assert "emulate_device" in class_name("emulation") and "set_user_agent" in class_name("emulation")

    browser.replies["emulation.set"] = {"reset": True, "was": {"name": "Pixel 7"}, "page": None}
    reset = await engine.call("configure", {"action": "emulate_device", "reset": True})
    assert reset == {"reset": True, "was": "Pixel 7", "page": None}


async def test_an_unknown_device_sends_nothing_and_suggests(make_engine: EngineFactory, browser: FakeBrowser) -> None:
    engine = make_engine()
    with pytest.raises(TabpilotError) as bad:
        await engine.call("configure", {"action": "emulate_device", "device": "iPhnoe 15"})
    assert bad.value.code == "invalid_params"
    assert bad.value.details["suggestions"][0] == "iPhone 15"
    with pytest.raises(TabpilotError):
        await engine.call("configure", {"action": "emulate_device"})
    assert browser.acting_calls == []


async def test_set_viewport_and_user_agent_check_their_input(make_engine: EngineFactory, browser: FakeBrowser) -> None:
    engine = make_engine()
    answer = await engine.call("configure", {"action": "set_viewport", "width": 800, "height": 600})
    assert answer["viewport"] == {"width": 800, "height": 600} and answer["device"] is None
    sent = browser.acting_calls[-1].params
    assert sent == {"width": 800, "height": 600, "mobile": False, "touch": False, "tab_id": 1}
    for bad in ({"width": 800}, {"width": 800, "height": 600, "reset": True}, {"width": 50, "height": 600}):
        with pytest.raises(TabpilotError) as refused:
            await engine.call("configure", {"action": "set_viewport", **bad})
        assert refused.value.code == "invalid_params"
    for bad_agent in ({"user_agent": "a\nb"}, {}, {"user_agent": "x", "reset": True}):
        with pytest.raises(TabpilotError) as refused:
            await engine.call("configure", {"action": "set_user_agent", **bad_agent})
        assert refused.value.code == "invalid_params"
    answer = await engine.call("configure", {"action": "set_user_agent", "reset": True})
    assert answer["user_agent"] is None
    assert browser.acting_calls[-1].params["user_agent"] == ""


async def test_everything_but_listing_needs_the_pilot(make_engine: EngineFactory) -> None:
    engine = make_engine(pilot_on=False)
    for args in (
        {"action": "emulate_device", "device": "iPhone 15"},
        {"action": "set_headers", "headers": {}},
        {"action": "mock_route", "url": "**/x"},
        {"action": "clear_routes"},
    ):
        with pytest.raises(TabpilotError) as off:
            await engine.call("configure", args)
        assert off.value.code == "ai_web_pilot_disabled"
    assert "routes" in await engine.call("configure", {"action": "list_routes"})


# -- headers ----------------------------------------------------------------------------------------


async def test_header_values_reach_the_browser_only(
    make_engine: EngineFactory, browser: FakeBrowser, approvals: FakeApprovals
) -> None:
    engine = make_engine(secrets=DictSecrets(API_TOKEN=TOKEN))
    browser.replies["network.headers"] = {"headers": ["Authorization", "X-Run"]}
    answer = await engine.call(
        "configure",
        {"action": "set_headers", "headers": {"Authorization": "Bearer {{secret:API_TOKEN}}", "X-Run": "run-value-zz"}},
    )
    assert answer == {"headers": ["Authorization", "X-Run"]}
    sent = browser.acting_calls[-1]
    assert sent.params["headers"] == {"Authorization": f"Bearer {TOKEN}", "X-Run": "run-value-zz"}
    [asked] = approvals.requests
    assert asked.action_class == "network"
    assert TOKEN not in repr(asked)  # the prompt shows the reference, as for typed secrets
    rows = repr(engine.activity.recent())
    assert TOKEN not in rows and "run-value-zz" not in rows and "Authorization" in rows

    with pytest.raises(TabpilotError) as missing:
        await engine.call("configure", {"action": "set_headers", "headers": {"A": "{{secret:NOPE}}"}})
    assert missing.value.code == "invalid_params" and missing.value.details["secret"] == "NOPE"
    for bad in ({"a b": "1"}, {"A": "x\r\nInjected: 1"}, {"A": 5}):
        with pytest.raises(TabpilotError) as refused:
            await engine.call("configure", {"action": "set_headers", "headers": bad})
        assert refused.value.code == "invalid_params"
        assert "Injected" not in refused.value.message


# -- routes -----------------------------------------------------------------------------------------


async def test_mock_route_and_block_urls_send_routes_and_are_asked_as_network(
    make_engine: EngineFactory, browser: FakeBrowser, approvals: FakeApprovals
) -> None:
    engine = make_engine()
    mock = {"url": "**/api/*", "status": 503, "body": "{}", "headers": {"X-A": "1"}, "delay_ms": 50}
    await engine.call("configure", {"action": "mock_route", **mock})
    [route] = browser.acting_calls[-1].params["routes"]
    assert route == {**mock, "action": "mock"}
    await engine.call("configure", {"action": "block_urls", "patterns": ["**/*.png", "/ads\\//"]})
    assert [r["action"] for r in browser.acting_calls[-1].params["routes"]] == ["block", "block"]
    assert [a.action_class for a in approvals.requests] == ["network", "network"]
    assert "mock_route" in class_name("network") and "set_headers" in class_name("network")

    await engine.call("configure", {"action": "list_routes"})
    await engine.call("configure", {"action": "clear_routes"})
    assert len(approvals.requests) == 2  # listing reads, clearing gives the real backend back: not asked

    for bad in (
        {"action": "mock_route", "url": " "},
        {"action": "mock_route", "url": "**/x", "status": 99},
        {"action": "mock_route", "url": "**/x", "delay_ms": 600_000},
        {"action": "mock_route", "url": "**/x", "body": "x" * (1024 * 1024 + 1)},
        {"action": "block_urls", "patterns": []},
    ):
        with pytest.raises(TabpilotError) as refused:
            await engine.call("configure", bad)
        assert refused.value.code == "invalid_params"


# -- standing rules ---------------------------------------------------------------------------------


@pytest.mark.parametrize("cls", ["emulation", "network"])
async def test_a_site_rule_for_the_class_covers_that_class_only(cls: ActionClass) -> None:
    human = FakeApprovals(ApprovalDecision(allow=True, remember="site", minutes=15))
    policy = ApprovalPolicy(human)

    def request(action_class: ActionClass, origin: str = "https://shop.test") -> ApprovalRequest:
        return ApprovalRequest("c", "agent", "configure", "x", {}, origin=origin, action_class=action_class)

    assert (await policy.decide(request(cls))).allow
    [rule] = policy.rules()
    assert rule.action_class == cls
    assert class_name(cls) in rule.describe()
    assert policy.matching(request(cls)) is rule
    assert policy.matching(request("element")) is None
    assert policy.matching(request("javascript")) is None
    assert policy.matching(request(cls, "https://other.test")) is None
    assert Rule.from_dict(rule.__dict__) == rule  # kept across restarts


@pytest.mark.parametrize("name", ["Host", "content-length", "Transfer-Encoding", "Proxy-Authorization"])
async def test_headers_the_browser_sets_itself_are_refused(
    make_engine: EngineFactory, browser: FakeBrowser, name: str
) -> None:
    engine = make_engine()
    with pytest.raises(TabpilotError) as refused:
        await engine.call("configure", {"action": "set_headers", "headers": {name: "evil.example"}})
    assert refused.value.code == "invalid_params" and refused.value.details["param"] == "headers"
    assert "evil.example" not in refused.value.message
    assert browser.acting_calls == []


async def test_a_mock_the_page_could_run_is_asked_as_javascript_not_network(
    make_engine: EngineFactory, browser: FakeBrowser, approvals: FakeApprovals
) -> None:
    """A network rule for the site once let mock_route answer the page's own URL with a <script> body: that
    is running JavaScript in the page, and a rule for network traffic does not cover it."""
    engine = make_engine()
    runnable = (
        {"Content-Type": "text/html"},
        {"content-type": "application/javascript; charset=utf-8"},
        {"Content-Type": "image/svg+xml"},
        {"Content-Type": "application/json", "X-Content-Type-Options": "sniff-away"},
    )
    for headers in runnable:
        await engine.call(
            "configure", {"action": "mock_route", "url": "**/*", "body": "<script>1</script>", "headers": headers}
        )
    inert = (None, {"Content-Type": "application/json"}, {"Content-Type": "text/plain"}, {"X-A": "1"})
    for maybe in inert:
        await engine.call("configure", {"action": "mock_route", "url": "**/api/*", "body": "{}", "headers": maybe})
    assert [a.action_class for a in approvals.requests] == ["javascript"] * len(runnable) + ["network"] * len(inert)


async def test_a_network_site_rule_does_not_cover_a_mock_that_runs_code(browser: FakeBrowser) -> None:
    human = FakeApprovals(ApprovalDecision(allow=True, remember="site", minutes=15), "deny")
    engine = Engine(build_registry(), browser, ApprovalPolicy(human), pilot=PilotState(ai_web_pilot=True))
    browser.active_url = "https://shop.test/"
    await engine.call("configure", {"action": "mock_route", "url": "**/api/*", "body": "{}"})  # network, remembered
    await engine.call("configure", {"action": "block_urls", "patterns": ["**/*.png"]})  # covered by the rule
    assert len(human.requests) == 1
    with pytest.raises(TabpilotError) as refused:
        await engine.call(
            "configure",
            {
                "action": "mock_route",
                "url": "https://shop.test/",
                "body": "<script>steal()</script>",
                "headers": {"Content-Type": "text/html"},
            },
        )
    assert refused.value.code == "approval_denied"
    assert len(human.requests) == 2 and human.requests[1].action_class == "javascript"
    assert all("steal" not in repr(c.params) for c in browser.acting_calls)
    await engine.close()


@pytest.mark.parametrize(
    "headers",
    [
        {"X-Content-Type-Options": "nosniff\x1f"},
        {"X-Content-Type-Options": "nosniff\x0b", "Content-Type": "text/plain"},
        {"X-Content-Type-Options": "\u00a0nosniff", "Content-Type": "application/octet-stream"},
        {"Content-Type": "\u00a0text/plain"},
        {"Content-Type": "text/plain\x1f"},
    ],
)
def test_a_header_value_the_browser_reads_otherwise_counts_as_running_code(headers: dict[str, str]) -> None:
    """Python's strip() takes characters a browser keeps: `nosniff\\x1f` was read as nosniff, Chrome saw none."""
    assert routes.mock_runs_code(headers)


def test_inert_mocks_stay_network() -> None:
    for headers in (None, {}, {"X-Content-Type-Options": " nosniff\t"}, {"Content-Type": "text/plain; charset=utf-8"}):
        assert not routes.mock_runs_code(headers), headers


async def test_a_lone_surrogate_in_any_string_is_invalid_params_not_internal(
    make_engine: EngineFactory, browser: FakeBrowser
) -> None:
    """`"\\ud800"` is valid JSON but not text: mock_route's body answered `internal` (it could not be encoded)."""
    engine = make_engine()
    calls = (
        ("configure", {"action": "mock_route", "url": "**/x", "body": "\ud800"}),
        ("observe", {"what": "dom", "selector": "#a\udfff"}),
        ("interact", {"action": "fill", "selector": "#a", "value": "x\ud83d"}),
        ("configure", {"action": "set_headers", "headers": {"X-\ud800": "1"}}),
    )
    for tool, args in calls:
        with pytest.raises(TabpilotError) as refused:
            await engine.call(tool, args)
        assert refused.value.code == "invalid_params", (tool, args)
        assert "surrogate" in refused.value.message
    assert browser.acting_calls == []
    # A real astral character (a pair) is text.
    await engine.call("observe", {"what": "dom", "selector": "#a\U0001f600"})
