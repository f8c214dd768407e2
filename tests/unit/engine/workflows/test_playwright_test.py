"""generate playwright_test from a session's record (engine/workflows/recorder.py, testgen.py), on fakes."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tabpilot.engine.context import CommandContext
from tabpilot.engine.contract.args import FrameArgs, arg
from tabpilot.engine.contract.commands import Command, Registry
from tabpilot.engine.core import Engine, EngineConfig
from tabpilot.engine.workflows.recorder import MAX_ACTIONS, Recorder, recorder_of
from tabpilot.engine.workflows.testgen import Output, entry_lines, playwright_test
from tabpilot.engine.workflows.workflows import Workflow
from tests.unit.engine.conftest import EngineFactory
from tests.unit.fakes import DictSecrets, FakeApprovals, FakeBrowser, MemoryWorkflowStore


@pytest.fixture
def approvals() -> FakeApprovals:
    return FakeApprovals(*["allow"] * 20)


@pytest.fixture
def recording(make_engine: EngineFactory, tmp_path: Path) -> Engine:
    return make_engine(config=EngineConfig(artifacts_dir=tmp_path / "artifacts", describe_elements=True))


def described(locator: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"locator": locator, "tag": "input", "sensitive": False, **extra}


async def test_a_session_becomes_a_test_with_the_locators_the_page_named(
    recording: Engine, browser: FakeBrowser, tmp_path: Path
) -> None:
    browser.queue(
        "dom.describe",
        described({"by": "label", "label": "Username"}),
        described({"by": "label", "label": "Password"}, sensitive=True, name="password"),
        described({"by": "role", "role": "button", "name": "Sign in"}, tag="button"),
    )
    browser.queue(
        "dom.click",
        {"clicked": True, "changed": "navigated", "navigation": {"url": "https://a.test/home", "status": "complete"}},
    )
    agent = {"session": "mcp-1"}
    await recording.call("interact", {"action": "navigate", "url": "https://a.test/login"}, **agent)
    await recording.call("interact", {"action": "fill", "selector": "#u", "value": "alice"}, **agent)
    await recording.call("interact", {"action": "fill", "selector": "#p", "value": "hunter2"}, **agent)
    await recording.call("interact", {"action": "click", "selector": "@e7"}, **agent)
    # The page is asked about the element before the action, so a click cannot take it away first.
    ops = [op for op in browser.ops if op in ("dom.describe", "dom.click")]
    assert ops.count("dom.describe") == 3 and ops[-2:] == ["dom.describe", "dom.click"]
    made = await recording.call("generate", {"type": "playwright_test", "name": "sign in"}, **agent)
    code = made["code"]
    assert made["actions"] == 4 and Path(made["path"]) == (tmp_path / "artifacts" / "test_sign_in.py").resolve()
    assert Path(made["path"]).read_text(encoding="utf-8") == code
    assert 'page.goto(f"{BASE_URL}/login")' in code
    assert 'page.get_by_label("Username").fill("alice")' in code
    assert 'page.get_by_label("Password").fill(os.environ["PASSWORD"])' in code and "hunter2" not in code
    assert 'page.get_by_role("button", name="Sign in").click()\n    page.wait_for_url(f"{BASE_URL}/home")' in code
    compile(code, "test_sign_in.py", "exec")
    # Another session has its own record.
    other = await recording.call("generate", {"type": "playwright_test", "path": "other"}, session="mcp-2")
    assert other["actions"] == 0 and "Nothing to replay was recorded in this session" in other["note"]


async def test_without_descriptions_css_is_used_and_secrets_stay_references(
    engine: Engine, tmp_path: Path, make_engine: EngineFactory
) -> None:
    engine = make_engine(config=EngineConfig(artifacts_dir=tmp_path), secrets=DictSecrets(bank_pin="4321"))
    await engine.call("interact", {"action": "fill", "selector": "input.name", "value": "Ann"})
    await engine.call("interact", {"action": "fill", "selector": "#password", "value": "s3cret"})
    await engine.call("interact", {"action": "fill", "selector": "#pin", "value": "{{secret:bank_pin}}"})
    await engine.call("interact", {"action": "select", "selector": "#sort", "label": "Price"})
    await engine.call("interact", {"action": "press", "key": "Enter"})
    code = (await engine.call("generate", {"type": "playwright_test"}))["code"]
    assert 'page.locator("input.name").first.fill("Ann")' in code
    assert 'page.locator("#password").fill(os.environ["PASSWORD"])' in code and "s3cret" not in code
    assert 'page.locator("#pin").fill(secret("bank_pin"))' in code and "def secret(name: str)" in code
    assert "4321" not in code
    assert 'page.locator("#sort").select_option(label="Price")' in code
    assert 'page.keyboard.press("Enter")' in code


async def test_what_a_person_does_from_the_tray_is_not_an_agents_record(engine: Engine) -> None:
    await engine.call("interact", {"action": "navigate", "url": "https://a.test/"}, approved=True)
    assert recorder_of(engine).entries("person") == ([], 0)


def test_the_record_is_bounded_and_says_what_it_cut() -> None:
    recorder = Recorder()
    for n in range(MAX_ACTIONS + 5):
        recorder.add("s", {"kind": "navigate", "url": f"https://a.test/{n}"})
    entries, dropped = recorder.entries("s")
    assert len(entries) == MAX_ACTIONS and dropped == 5 and entries[0]["url"] == "https://a.test/5"
    code = playwright_test(entries, source="a session", dropped=dropped)
    assert f"kept only the session's last {MAX_ACTIONS} actions (5 before were cut)" in code


@pytest.mark.parametrize(
    ("check", "line"),
    [
        ({"type": "visible", "selector": "#a"}, 'expect(page.get_by_role("button", name="Go")).to_be_visible()'),
        ({"type": "unchecked", "selector": "#a"}, 'expect(page.get_by_role("button", name="Go")).not_to_be_checked()'),
        (
            {"type": "text", "selector": "#a", "contains": "Tot"},
            'expect(page.get_by_role("button", name="Go")).to_contain_text("Tot")',
        ),
        (
            {"type": "text", "selector": "#a", "pattern": "/^ord/i"},
            'expect(page.get_by_role("button", name="Go")).to_have_text(re.compile("^ord", re.IGNORECASE))',
        ),
        (
            {"type": "attribute", "selector": "#a", "name": "href", "expected": "/x"},
            'expect(page.get_by_role("button", name="Go")).to_have_attribute("href", "/x")',
        ),
        ({"type": "count", "selector": "li", "expected": 3}, 'expect(page.locator("li")).to_have_count(3)'),
        ({"type": "count", "selector": "li", "expected": 3, "op": "gte"}, 'assert page.locator("li").count() >= 3'),
        ({"type": "url", "contains": "/cart"}, 'expect(page).to_have_url(re.compile("/cart"))'),
        ({"type": "title", "expected": "Cart"}, 'expect(page).to_have_title("Cart")'),
    ],
)
def test_each_passing_check_is_an_expect(check: dict[str, Any], line: str) -> None:
    item: dict[str, Any] = {"check": check, "passed": True}
    if check["type"] not in ("count", "url", "title"):
        item["locator"] = {"by": "role", "role": "button", "name": "Go"}
    assert entry_lines({"kind": "expect", "checks": [item]}, Output()) == [line]


def test_a_check_that_failed_when_recorded_is_only_a_comment() -> None:
    item = {"check": {"type": "visible", "selector": "#a"}, "passed": False, "locator": {"by": "css", "css": "#a"}}
    assert entry_lines({"kind": "expect", "checks": [item]}, Output())[0].startswith("# checked, but it did not hold")


async def test_a_saved_workflow_becomes_a_test(make_engine: EngineFactory, tmp_path: Path) -> None:
    store = MemoryWorkflowStore()
    store.save(
        Workflow(
            workflow_id="wf-find",
            name="find lamps",
            params={"q": "lamps"},
            steps=[
                {"type": "navigate", "url": "https://shop.test/search?q={{q}}"},
                {"type": "wait", "selector": "#results li"},
                {"type": "extract", "selector": "#results li", "schema": {"t": "a"}},
            ],
        )
    )
    engine = make_engine(config=EngineConfig(artifacts_dir=tmp_path), workflows=store)
    made = await engine.call("generate", {"type": "playwright_test", "workflow_id": "wf-find"})
    assert made["actions"] == 3 and made["path"].endswith("test_find_lamps.py")
    assert 'page.goto(f"{BASE_URL}/search?q=lamps")' in made["code"]
    assert 'expect(page.locator("#results li").first).to_be_visible()' in made["code"]
    compile(made["code"], "t.py", "exec")


@dataclass(frozen=True, kw_only=True)
class AssertArgs(FrameArgs):
    checks: list[dict[str, Any]] = arg("checks")


async def _asserted(ctx: CommandContext, a: AssertArgs) -> dict[str, Any]:
    """observe assert as the checks helper answers it: each check passes unless its selector says 'missing'."""
    results = [{"index": i, "pass": "missing" not in str(c.get("selector"))} for i, c in enumerate(a.checks)]
    return {"passed": all(r["pass"] for r in results), "results": results}


async def test_the_checks_of_observe_assert_become_expects(
    registry: Registry, recording: Engine, browser: FakeBrowser
) -> None:
    checks = [
        {"type": "text", "selector": "#total", "contains": "3"},
        {"type": "visible", "selector": "#missing"},
        {"type": "url", "pattern": "/cart$/"},
    ]
    if registry.get("observe.assert") is None:  # the checks helper's command is not on this branch yet
        registry.extend([Command("observe", "assert", "read", "checks", _asserted, AssertArgs)])
    else:  # it is: the page's answer, as content/checks.js gives it
        results = [
            {"index": i, "type": c["type"], "pass": i != 1, "expected": "x", "found": "x"} for i, c in enumerate(checks)
        ]
        browser.queue("page.assert", {"url": "https://a.test/cart", "title": "Cart", "results": results})
    browser.queue("dom.describe", described({"by": "text", "text": "Total: 3"}, tag="p"))
    await recording.call("observe", {"what": "assert", "checks": checks}, session="s")
    code = (await recording.call("generate", {"type": "playwright_test"}, session="s"))["code"]
    assert 'expect(page.get_by_text("Total: 3")).to_contain_text("3")' in code
    assert "# checked, but it did not hold when recorded: " in code and "#missing" in code
    assert 'expect(page).to_have_url(re.compile("cart$"))' in code and "\nimport re\n" in code
    compile(code, "t.py", "exec")


async def test_an_action_in_a_frame_is_scoped_to_that_frames_iframe(recording: Engine, browser: FakeBrowser) -> None:
    browser.queue(
        "dom.describe",
        described({"by": "css", "css": "#checkout", "first": False}, tag="iframe"),  # the frame, in the top
        described({"by": "role", "role": "button", "name": "Pay"}, tag="button"),  # the button, in the frame
    )
    await recording.call("interact", {"action": "click", "selector": "#pay", "frame": "#checkout"}, session="s")
    asked = [c.params for c in browser.calls if c.op == "dom.describe"]
    assert {"selector": "#checkout"}.items() <= asked[0].items() and "frame" not in asked[0]
    assert asked[1]["frame"] == "#checkout"
    code = (await recording.call("generate", {"type": "playwright_test"}, session="s"))["code"]
    frame = 'page.locator("#checkout").content_frame'
    assert f'{frame}.get_by_role("button", name="Pay").click()' in code


def test_extracted_rows_become_a_count_and_the_first_rows_text() -> None:
    from tabpilot.engine.workflows.recorder import _rows_entry

    params = {"selector": "#results li", "schema": {"title": "a", "price": ".price | number", "who": "b | text"}}
    rows = [{"title": "Dune", "price": 9.5, "who": "[REDACTED]"}, {"title": "Emma", "price": 7, "who": "x"}]
    entry = _rows_entry(params, {"data": rows, "metadata": {}}, None)
    assert entry is not None
    assert entry_lines(entry, Output()) == [
        'expect(page.locator("#results li")).to_have_count(2)',
        'expect(page.locator("#results li").first.locator("a").first).to_have_text("Dune")',
    ]
    paged = _rows_entry({**params, "options": {"paginate": {"next_selector": "a.next"}}}, {"data": rows}, None)
    assert paged is not None and paged["count"] is None  # rows of several pages: no count on one page


def test_addresses_on_the_recorded_site_start_with_base_url() -> None:
    out = Output(base="https://a.test")
    assert out.url("https://a.test") == "BASE_URL"
    assert out.url("https://a.test/q?x={1}") == 'f"{BASE_URL}/q?x={{1}}"'
    assert out.url("https://b.test/") == '"https://b.test/"'


def test_a_workflow_param_without_a_default_is_read_from_the_environment() -> None:
    from tabpilot.engine.workflows.testgen import workflow_entries

    workflow = Workflow(
        workflow_id="wf-q",
        name="q",
        params={"who": "ann"},
        steps=[{"type": "fill", "selector": "#q", "value": "{{query}} by {{who}}"}],
    )
    code = playwright_test(workflow_entries(workflow), source="a workflow")
    assert """page.locator("#q").fill(f"{os.environ['query']} by ann")""" in code
    assert "the test reads them from there: query." in code
    compile(code, "t.py", "exec")


async def test_a_record_of_only_notes_answers_a_note_and_a_test_that_skips(recording: Engine) -> None:
    await recording.call("interact", {"action": "navigate", "url": "about:blank"}, session="mcp-3")  # not kept
    recorder_of(recording).add("mcp-3", {"kind": "note", "text": "the session ran JavaScript here"})
    made = await recording.call("generate", {"type": "playwright_test"}, session="mcp-3")
    assert made["actions"] == 1
    assert made["note"].startswith("Nothing to replay was recorded in this session (1 recorded actions")
    assert "interact in this same session first" in made["note"]
    assert (
        made["code"]
        .rstrip()
        .endswith('pytest.skip("nothing to replay was recorded: act on a page through interact in the session first")')
    )
    compile(made["code"], "t.py", "exec")


async def test_a_workflow_with_nothing_a_test_replays_answers_a_note(
    make_engine: EngineFactory, tmp_path: Path
) -> None:
    store = MemoryWorkflowStore()
    store.save(Workflow(workflow_id="wf-wait", name="wait", steps=[{"type": "delay", "ms": 100}]))
    engine = make_engine(config=EngineConfig(artifacts_dir=tmp_path), workflows=store)
    made = await engine.call("generate", {"type": "playwright_test", "workflow_id": "wf-wait"})
    assert "None of this workflow's steps can be replayed" in made["note"] and "pytest.skip(" in made["code"]
