"""Generated scripts and tests name only what they define or import (pyflakes finds nothing), for a range
of workflows and records; their `secret()` works without a keyring (an environment variable) and says
both ways when neither has the secret."""

from __future__ import annotations

import sys
import types
from typing import Any

import pytest

from tabpilot.engine.workflows.codegen import playwright_script
from tabpilot.engine.workflows.pycode import secret_env, secret_helper
from tabpilot.engine.workflows.testgen import playwright_test, workflow_entries
from tabpilot.engine.workflows.workflows import ErrorRecovery, Workflow
from tests.support.pyflakes_check import undefined_or_unused

NAV = {"type": "navigate", "url": "https://shop.test/"}
ROWS = {"type": "extract", "selector": "#results li"}
WORKFLOWS: dict[str, list[dict[str, Any]]] = {
    "navigate, fill, click, extract text": [
        NAV,
        {"type": "fill", "selector": "input[name=q]", "value": "lamps"},
        {"type": "click", "selector": "#go"},
        {**ROWS, "schema": {"title": "a", "link": "a | attr:href", "html": ".d | html"}},
    ],
    "a number field": [NAV, {**ROWS, "schema": {"price": ".price | number"}}],
    "a boolean field": [NAV, {**ROWS, "schema": {"new": ".new | boolean"}}],
    "pagination without conversions": [
        NAV,
        {**ROWS, "schema": {"title": "a"}, "paginate": {"next_selector": "a.next", "max_pages": 3}},
    ],
    "pagination and a number, one page without": [
        NAV,
        {**ROWS, "schema": {"p": ".p | number"}, "paginate": {"next_selector": "a.next"}},
        {**ROWS, "schema": {"t": "a"}},
    ],
    "a frame": [
        NAV,
        {"type": "click", "selector": "#pay", "frame": "#checkout"},
        {**ROWS, "schema": {"title": "a"}, "frame": "checkout"},
    ],
    "a secret and params": [
        NAV,
        {"type": "fill", "selector": "#user", "value": "{{user}}"},
        {"type": "fill", "selector": "#pw", "value": "{{secret:shop.password}}"},
        {"type": "type", "selector": "#q", "text": "{{query}} by {{secret:api-key}}"},
    ],
    "every other step kind": [
        NAV,
        {"type": "wait", "selector": "#list", "state": "hidden", "timeout_ms": 500},
        {"type": "press", "key": "Enter"},
        {"type": "select", "selector": "#sort", "value": "price"},
        {"type": "scroll", "to": "top"},
        {"type": "scroll", "selector": "#list", "delta_y": 200},
        {"type": "check", "selector": "#a"},
        {"type": "uncheck", "selector": "#a"},
        {"type": "hover", "selector": "#a"},
        {"type": "focus", "selector": "#a"},
        {"type": "drag", "selector": "#a", "target": "#b"},
        {"type": "wait_for", "url": "/cart"},
        {"type": "wait_for", "text": "Done"},
        {"type": "wait_for", "network_idle": True},
        {"type": "back"},
        {"type": "forward"},
        {"type": "reload"},
        {"type": "dismiss_overlays"},
        {"type": "delay", "ms": 100},
        {"type": "if_exists", "selector": "#promo", "then": [{"type": "click", "selector": "#close"}]},
    ],
    "only steps a test cannot replay": [{"type": "delay", "ms": 100}, {"type": "dismiss_overlays"}],
}
RECOVERIES = {
    f"{timeout}, {failure}": ErrorRecovery(on_timeout=timeout, max_retries=2, on_failure=failure)
    for timeout in ("abort", "skip", "retry_step")
    for failure in ("abort", "abort_with_partial", "continue")
}

LOCATOR = {"by": "role", "role": "button", "name": "Go"}
RECORDS: dict[str, list[dict[str, Any]]] = {
    "nothing": [],
    "notes only": [{"kind": "note", "text": "the session ran JavaScript here"}, {"kind": "scroll", "frame": None}],
    "actions without checks": [
        {"kind": "navigate", "url": "https://a.test/login"},
        {"kind": "fill", "locator": {"by": "label", "label": "User"}, "value": {"text": "ann"}, "frame": None},
        {"kind": "fill", "locator": {"by": "label", "label": "Password"}, "value": {"env": "PASSWORD"}},
        {"kind": "fill", "locator": {"by": "label", "label": "PIN"}, "value": {"text": "{{secret:bank.pin}}"}},
        {"kind": "click", "locator": LOCATOR, "navigated": "https://a.test/home"},
    ],
    "checks, waits and frames": [
        {"kind": "navigate", "url": "https://a.test/"},
        {"kind": "wait", "url": "/^https:\\/\\/a/i"},
        {"kind": "wait", "state": "visible", "locator": LOCATOR, "frame": {"name": "pay"}},
        {"kind": "expect", "checks": [{"check": {"type": "url", "contains": "/cart"}, "passed": True}]},
        {"kind": "expect", "checks": [{"check": {"type": "title", "expected": "x"}, "passed": False}]},
        {"kind": "expect_text", "locator": LOCATOR, "text": "Go", "frame": {"locator": {"by": "css", "css": "#f"}}},
        {"kind": "expect_rows", "selector": "li", "count": 2, "first": {"a": "Dune"}, "frame": None},
    ],
}


@pytest.mark.parametrize("recovery", list(RECOVERIES))
@pytest.mark.parametrize("steps", list(WORKFLOWS))
def test_every_generated_script_and_test_defines_what_it_names(steps: str, recovery: str) -> None:
    workflow = Workflow(
        workflow_id="wf-x",
        name="x",
        steps=WORKFLOWS[steps],
        params={"user": "alice", "query": "lamps"},
        error_recovery=RECOVERIES[recovery],
    )
    assert undefined_or_unused(playwright_script(workflow), "wf_x.py") == ""
    assert undefined_or_unused(playwright_test(workflow_entries(workflow), source="a workflow"), "test_x.py") == ""


@pytest.mark.parametrize("record", list(RECORDS))
def test_every_recorded_session_is_a_test_that_defines_what_it_names(record: str) -> None:
    code = playwright_test(RECORDS[record], source="a session", dropped=3 if record == "notes only" else 0)
    assert undefined_or_unused(code, "test_session.py") == ""


def test_a_record_with_nothing_to_replay_is_a_test_that_skips_saying_why() -> None:
    for record in ("nothing", "notes only"):
        code = playwright_test(RECORDS[record], source="a session")
        assert 'pytest.skip("nothing to replay was recorded: act on a page through interact' in code


def test_a_script_without_conversions_or_pagination_writes_neither() -> None:
    plain = Workflow(workflow_id="wf-x", name="x", steps=WORKFLOWS["navigate, fill, click, extract text"])
    code = playwright_script(plain)
    for absent in ("converted", "to_number", "to_boolean", "next_page", "paginate"):
        assert absent not in code
    assert "    return rows\n" in code


@pytest.fixture
def no_keyring(monkeypatch: pytest.MonkeyPatch) -> None:
    """A machine whose keyring package finds no backend: get_password raises, as keyring's NoKeyringError does."""

    class NoKeyringError(RuntimeError):
        pass

    def get_password(service: str, name: str) -> str | None:
        raise NoKeyringError("No recommended backend was available.")

    monkeypatch.setitem(sys.modules, "keyring", types.SimpleNamespace(get_password=get_password))
    monkeypatch.delenv("TABPILOT_SECRET_SHOP_PASSWORD", raising=False)


def script_secret() -> Any:
    scope: dict[str, Any] = {}
    exec("import os\nimport sys\n" + secret_helper("sys.exit"), scope)
    return scope["secret"]


@pytest.mark.usefixtures("no_keyring")
def test_without_a_keyring_a_secret_comes_from_its_environment_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    assert secret_env("shop.password") == "TABPILOT_SECRET_SHOP_PASSWORD"
    monkeypatch.setenv("TABPILOT_SECRET_SHOP_PASSWORD", "hunter2")
    assert script_secret()("shop.password") == "hunter2"


@pytest.mark.usefixtures("no_keyring")
def test_a_secret_in_neither_place_stops_the_script_with_one_line_naming_both() -> None:
    with pytest.raises(SystemExit) as stopped:
        script_secret()("shop.password")
    message = str(stopped.value.code)
    assert "\n" not in message
    assert "keyring set tabpilot shop.password" in message and "TABPILOT_SECRET_SHOP_PASSWORD" in message


def test_the_keyring_comes_first_and_the_files_name_the_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "keyring", types.SimpleNamespace(get_password=lambda service, name: "from-ring"))
    monkeypatch.setenv("TABPILOT_SECRET_SHOP_PASSWORD", "from-env")
    assert script_secret()("shop.password") == "from-ring"
    workflow = Workflow(workflow_id="wf-x", name="x", steps=WORKFLOWS["a secret and params"], params={"user": "a"})
    for code in (playwright_script(workflow), playwright_test(workflow_entries(workflow), source="a workflow")):
        assert "TABPILOT_SECRET_SHOP_PASSWORD, TABPILOT_SECRET_API_KEY" in code


HOSTILE = 'a """ quote, a \\N{bad} escape\nand a line break\r\nimport os'


def test_names_descriptions_and_refs_with_quotes_escapes_and_line_breaks_stay_text() -> None:
    steps = [{**NAV, "description": HOSTILE}, {"type": "click", "selector": "#go", "description": HOSTILE}]
    workflow = Workflow(workflow_id="wf-x", name=HOSTILE, steps=steps, origin=HOSTILE)
    record = [
        {"kind": "navigate", "url": "https://a.test/"},
        {"kind": "click", "locator": {"by": "ref", "css": "@e7\nimport os"}, "frame": None},
        {"kind": "note", "text": HOSTILE},
    ]
    for code, filename in (
        (playwright_script(workflow), "wf_x.py"),
        (playwright_test(workflow_entries(workflow), name=HOSTILE, source=HOSTILE), "test_x.py"),
        (playwright_test(record, name=HOSTILE, source="a session"), "test_y.py"),
    ):
        assert undefined_or_unused(code, filename) == ""
        # The text's "import os" stayed inside its comment or docstring line: only the file's own import is code.
        assert [line for line in code.splitlines() if line.strip() == "import os"] == ["import os"]
