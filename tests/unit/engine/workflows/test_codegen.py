"""The Playwright script export (engine/workflows/codegen.py): code a person would write, small, nothing pasted in."""

from __future__ import annotations

from typing import Any

import pytest

from tabpilot.engine.workflows.codegen import HELPERS, playwright_script
from tabpilot.engine.workflows.workflows import ErrorRecovery, Workflow

TEN_STEPS: list[dict[str, Any]] = [
    {"type": "navigate", "url": "https://shop.test/login"},
    {"type": "fill", "selector": "#user", "value": "{{user}}"},
    {"type": "fill", "selector": "#password", "value": "{{secret:shop_password}}"},
    {"type": "click", "selector": "button[type=submit]", "description": "sign in"},
    {"type": "wait_for", "url": "**/account"},
    {"type": "fill", "selector": "input[name=q]", "value": "lamps"},
    {"type": "press", "key": "Enter", "selector": "input[name=q]"},
    {"type": "select", "selector": "#sort", "label": "Price"},
    {"type": "check", "selector": "#in-stock"},
    {
        "type": "extract",
        "selector": "#results li",
        "schema": {"title": "a | text", "link": "a | attr:href", "price": ".price | number", "new": ".new | boolean"},
        "paginate": {"next_selector": "a.next", "max_pages": 3},
    },
]


def workflow(steps: list[dict[str, Any]], **extra: Any) -> Workflow:
    return Workflow(workflow_id="wf-shop", name="shop", steps=steps, params={"user": "alice"}, **extra)


def test_a_ten_step_workflow_is_a_small_readable_script_with_nothing_of_the_extension() -> None:
    code = playwright_script(workflow(TEN_STEPS))
    assert len(code.encode()) <= 10_000
    for pasted in ("__tabpilot", "add_init_script", "PAGE_LIBRARY", "scrape.extract", "in_page("):
        assert pasted not in code
    compile(code, "wf-shop.py", "exec")
    assert 'page.goto("https://shop.test/login")' in code
    assert 'page.locator("#user").fill(params["user"])' in code
    assert 'page.locator("#password").fill(secret("shop_password"))' in code
    assert 'page.locator("button[type=submit]").first.click()' in code
    assert "    # sign in\n" in code
    assert 'page.locator("#sort").select_option(label="Price")' in code
    assert 'page.locator("#in-stock").check()' in code
    assert 'page.wait_for_url("**/account")' in code
    assert 'FIELDS_1 = {"title": ("a", "text"), "link": ("a", "attr:href"), "price": (".price", "number")' in code
    assert 'rows += extract(page, "#results li", FIELDS_1, paginate=' in code
    # Redaction as the app does it, and the secret's value nowhere (it comes from the keyring when run).
    assert 'REDACT = "input[type=password], [data-sensitive], [data-private], .sensitive"' in code
    assert 'keyring.get_password("tabpilot", name)' in code


def test_a_workflow_without_extraction_params_or_secrets_carries_none_of_their_helpers() -> None:
    code = playwright_script(
        workflow([{"type": "navigate", "url": "https://a.test/"}, {"type": "click", "selector": "#go"}])
    )
    for helper in ("READ_ROWS_JS", "def secret", "def to_number", "def next_page", "--param", "PARAMS", "REDACT"):
        assert helper not in code
    assert len(code.encode()) < 3_000
    compile(code, "wf.py", "exec")


def test_error_recovery_skip_and_continue_become_a_guard_around_each_step() -> None:
    recovery = ErrorRecovery(on_timeout="skip", max_retries=0, on_failure="continue")
    code = playwright_script(workflow([{"type": "click", "selector": "#go"}], error_recovery=recovery))
    assert 'with tolerated("step 0 (click)"):\n        page.locator("#go").click()' in code
    assert "except PlaywrightTimeout:" in code and "except Error as exc:" in code
    assert "page.set_default_timeout(10_000)" in code
    compile(code, "wf.py", "exec")


def test_retry_step_waits_longer_instead_of_looping() -> None:
    code = playwright_script(workflow([{"type": "click", "selector": "#go", "timeout_ms": 2000}]))
    assert "page.set_default_timeout(30_000)" in code  # 10 s, tried 3 times
    assert 'page.locator("#go").click(timeout=6_000)' in code


def test_a_param_inside_text_is_an_f_string() -> None:
    code = playwright_script(workflow([{"type": "navigate", "url": "https://a.test/search?q={{user}}&x={1}"}]))
    assert """page.goto(f"https://a.test/search?q={params['user']}&x={{1}}")""" in code


@pytest.mark.parametrize(
    ("text", "number"),
    [
        ("$1,010.50", 1010.5),
        ("1.234,5 €", 1234.5),
        ("12,5", 12.5),
        ("(12.00)", -12),
        ("\u22123", -3),
        ("1 234 567", 1234567),
        ("none", None),
        ("4 items", 4),
    ],
)
def test_the_scripts_numbers_read_as_the_apps(text: str, number: float | None) -> None:
    scope: dict[str, Any] = {}
    exec("import re\n" + HELPERS["convert"], scope)
    assert scope["to_number"](text) == number


@pytest.mark.parametrize(
    ("url", "call"),
    [
        ("**/cart", 'page.wait_for_url("**/cart")'),
        ("/cart", 'page.wait_for_url(re.compile("/cart"))'),
        ("/\\/item\\/\\d+/", 'page.wait_for_url(re.compile("\\\\/item\\\\/\\\\d+"))'),
    ],
)
def test_tabpilots_url_patterns_are_playwrights(url: str, call: str) -> None:
    code = playwright_script(workflow([{"type": "wait_for", "url": url}]))
    assert call in code
    assert ("\nimport re\n" in code) == ("re.compile" in call)
    compile(code, "wf.py", "exec")
