"""generate playwright_test: an agent's session on the fixture catalog (sign in, search, open a result),
recorded through the real MCP client, the real extension and Chromium, becomes a pytest-playwright file
that passes when run with pytest against the site — and fails once the site's search is broken."""

from __future__ import annotations

import asyncio
import json
import os
import re
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import keyring
import pytest
import pytest_asyncio

from tabpilot.app import App
from tabpilot.vault.keyring_store import SECRETS_SERVICE
from tests.e2e.conftest import E2E
from tests.support.mcp_stdio import StdioMcp
from tests.support.pyflakes_check import undefined_or_unused
from tests.support.site import FixtureSite

pytestmark = [pytest.mark.e2e, E2E]

PASSWORD = FixtureSite.USERS["alice"]


@pytest_asyncio.fixture(loop_scope="session")
async def agent(e2e_app: App, e2e_home: Path) -> AsyncIterator[StdioMcp]:
    """An agent session of its own (a new MCP client): what it records starts empty."""
    client = StdioMcp({"TABPILOT_HOME": str(e2e_home)})
    await client.start()
    yield client
    await client.close()


@pytest_asyncio.fixture(autouse=True, loop_scope="session")
async def signed_out(tab: Any) -> AsyncIterator[None]:
    """These tests sign in to the fixture site: the shared browser is signed out again after each."""
    yield
    await tab.context.clear_cookies()


async def run_pytest(test_file: Path, folder: Path) -> tuple[int, str]:
    """The generated file run as a person would: pytest with pytest-playwright, Debian's Chromium."""
    env = {
        **os.environ,
        "TABPILOT_BROWSER": os.environ.get("TABPILOT_BROWSER", "/usr/bin/chromium"),
        "PASSWORD": PASSWORD,
    }
    env.pop("PYTEST_ADDOPTS", None)
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "pytest",
        str(test_file),
        "-q",
        "-p",
        "no:cacheprovider",
        "--rootdir",
        str(folder),
        cwd=folder,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    out, _ = await asyncio.wait_for(proc.communicate(), 120)
    return proc.returncode or 0, out.decode(errors="replace")


def ref_of(snapshot: str, line_start: str) -> str:
    line = next(line for line in snapshot.splitlines() if line.strip().startswith(line_start))
    found = re.search(r"@e\d+", line)
    assert found, line
    return found.group()


async def test_a_recorded_session_becomes_a_test_that_passes_and_fails_when_the_site_breaks(
    agent: StdioMcp, tab: Any, pilot_on: None, site: FixtureSite, tmp_path: Path
) -> None:
    await agent.ok("interact", {"action": "navigate", "url": site.url("/catalog/login")})
    await agent.ok("interact", {"action": "fill", "selector": "#user", "value": "alice"})
    await agent.ok("interact", {"action": "fill", "selector": "#password", "value": PASSWORD})
    snapshot = (await agent.ok("observe", {"what": "snapshot", "interactive_only": True}))["snapshot"]
    signed_in = await agent.ok("interact", {"action": "click", "selector": ref_of(snapshot, '- button "Sign in"')})
    assert signed_in["navigation"]["url"] == site.url("/catalog")
    await agent.ok("interact", {"action": "fill", "selector": "#q", "value": "hobbit"})
    await agent.ok("interact", {"action": "press", "key": "Enter", "selector": "#q"})
    await agent.ok("interact", {"action": "wait_for", "text": "1 found"})
    await agent.ok("interact", {"action": "click", "selector": "#results li a"})
    seen = await agent.ok("observe", {"what": "text", "selector": "h1"})
    assert seen["text"] == "The Hobbit"

    generated = await agent.ok("generate", {"type": "playwright_test", "name": "sign in, search and open a result"})
    code = generated["code"]
    test_file = Path(generated["path"])
    assert test_file.read_text(encoding="utf-8") == code
    assert test_file.name == "test_sign_in_search_and_open_a_result.py"
    assert generated["actions"] == 9
    # Stable locators, as a person writes them, computed in the page when the agent acted (a ref included).
    assert 'page.get_by_label("Username").fill("alice")' in code
    assert 'page.get_by_label("Password").fill(os.environ["PASSWORD"])' in code
    assert 'page.get_by_role("button", name="Sign in").click()' in code
    assert 'page.wait_for_url(f"{BASE_URL}/catalog")' in code
    assert 'page.get_by_label("Search books").press("Enter")' in code
    assert 'expect(page.get_by_text("1 found").first).to_be_visible()' in code
    assert 'page.get_by_role("link", name="The Hobbit").click()' in code
    assert 'expect(page.get_by_role("heading", name="The Hobbit")).to_have_text("The Hobbit")' in code
    # The password typed in plain is nowhere in the file, and nothing of the extension is.
    assert PASSWORD not in code and "__tabpilot" not in code
    assert undefined_or_unused(code, test_file.name) == ""

    folder = tmp_path / "run"
    folder.mkdir()
    passed, output = await run_pytest(test_file, folder)
    assert passed == 0, output[-3000:]
    assert "1 passed" in output

    site.catalog_broken = True  # the search finds nothing now: the result link never comes
    try:
        failed, output = await run_pytest(test_file, folder)
    finally:
        site.catalog_broken = False
    assert failed != 0, output[-3000:]
    assert "1 failed" in output and "1 found" in output


async def test_a_ten_step_workflow_exports_as_a_small_script_that_signs_in_with_the_keyring_and_reads_the_rows(
    mcp: StdioMcp, tab: Any, pilot_on: None, site: FixtureSite, e2e_home: Path
) -> None:
    keyring.set_password(SECRETS_SERVICE, "catalog_password", PASSWORD)
    steps = [
        {"type": "navigate", "url": site.url("/catalog/login")},
        {"type": "fill", "selector": "#user", "value": "{{user}}"},
        {"type": "fill", "selector": "#password", "value": "{{secret:catalog_password}}"},
        {"type": "click", "selector": "button[type=submit]", "description": "sign in"},
        {"type": "wait_for", "url": "**/catalog"},
        {"type": "fill", "selector": "#q", "value": "{{query}}"},
        {"type": "press", "key": "Enter", "selector": "#q"},
        {"type": "wait_for", "text": "found"},
        {"type": "wait", "selector": "#results li"},
        {"type": "extract", "selector": "#results li", "schema": {"title": "a", "link": "a | attr:href"}},
    ]
    recorded = await mcp.ok(
        "interact",
        {
            "action": "scrape",
            "operation": "workflow",
            "name": "find a book",
            "steps": steps,
            "params": {"user": "alice", "query": "hobbit"},
            "record": True,
            "step_delay_ms": 0,
        },
    )
    assert recorded["data"] == [{"title": "The Hobbit", "link": "/catalog/item/hobbit"}]

    generated = await mcp.ok("generate", {"type": "playwright_script", "workflow_id": recorded["workflow_id"]})
    code = generated["code"]
    assert generated["size_bytes"] == len(code.encode()) <= 10_000
    assert "__tabpilot" not in code and "add_init_script" not in code and PASSWORD not in code
    assert 'page.locator("#password").fill(secret("catalog_password"))' in code
    assert "TABPILOT_SECRET_CATALOG_PASSWORD" in code
    assert undefined_or_unused(code, Path(generated["path"]).name) == ""

    # Run as a person would, with another query: the rows the app would read for it.
    env = {**os.environ, "TABPILOT_BROWSER": os.environ.get("TABPILOT_BROWSER", "/usr/bin/chromium")}
    env.pop("TABPILOT_SECRET_CATALOG_PASSWORD", None)
    returncode, out, err = await run_script(generated["path"], env, "--param", "query=dune")
    assert returncode == 0, err[-2000:]
    assert json.loads(out) == [{"title": "Dune", "link": "/catalog/item/dune"}]

    # A machine with no keyring at all (keyring's own "fail" backend raises NoKeyringError): the secret
    # comes from its environment variable, and without that the script stops with one line naming both.
    no_keyring = {**env, "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring"}
    returncode, out, err = await run_script(generated["path"], no_keyring)
    assert returncode != 0 and out == ""
    assert err.strip().count("\n") == 0 and "Traceback" not in err, err
    assert "keyring set tabpilot catalog_password" in err and "TABPILOT_SECRET_CATALOG_PASSWORD" in err
    with_variable = {**no_keyring, "TABPILOT_SECRET_CATALOG_PASSWORD": PASSWORD}
    returncode, out, err = await run_script(generated["path"], with_variable)
    assert returncode == 0, err[-2000:]
    assert json.loads(out) == [{"title": "The Hobbit", "link": "/catalog/item/hobbit"}]


async def run_script(path: str, env: dict[str, str], *args: str) -> tuple[int, str, str]:
    proc = await asyncio.create_subprocess_exec(
        sys.executable, path, *args, env=env, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    out, err = await asyncio.wait_for(proc.communicate(), 120)
    return proc.returncode or 0, out.decode(), err.decode()


async def test_a_session_that_did_nothing_gets_a_note_and_a_test_that_skips_saying_so(
    agent: StdioMcp, tab: Any, pilot_on: None, site: FixtureSite, tmp_path: Path
) -> None:
    await agent.ok("observe", {"what": "tabs"})  # a read: nothing to replay
    generated = await agent.ok("generate", {"type": "playwright_test", "name": "nothing yet"})
    assert generated["actions"] == 0
    assert "Nothing to replay was recorded in this session" in generated["note"]
    assert "interact" in generated["note"]
    assert undefined_or_unused(generated["code"], "test_nothing_yet.py") == ""
    folder = tmp_path / "run"
    folder.mkdir()
    status, output = await run_pytest(Path(generated["path"]), folder)
    assert status == 0 and "1 skipped" in output, output[-3000:]


async def test_actions_in_a_cross_origin_frame_are_scoped_to_its_iframe_and_replay(
    agent: StdioMcp, tab: Any, pilot_on: None, site: FixtureSite, tmp_path: Path
) -> None:
    await agent.ok("interact", {"action": "navigate", "url": site.url("/frames.html")})
    await agent.ok("interact", {"action": "click", "selector": "#pay", "frame": "#cross"})
    seen = await agent.ok("observe", {"what": "text", "selector": "#paid", "frame": "#cross"})
    assert seen["text"] == "paid=1"
    generated = await agent.ok("generate", {"type": "playwright_test", "name": "pay in the frame"})
    code = generated["code"]
    frame = 'page.locator("#cross").content_frame'
    assert f'{frame}.get_by_role("button", name="Pay now").click()' in code
    assert f'expect({frame}.get_by_text("paid=1")).to_have_text("paid=1")' in code
    folder = tmp_path / "run"
    folder.mkdir()
    passed, output = await run_pytest(Path(generated["path"]), folder)
    assert passed == 0, output[-3000:]


async def test_the_checks_an_agent_made_become_expects_that_pass(
    agent: StdioMcp, tab: Any, pilot_on: None, site: FixtureSite, tmp_path: Path
) -> None:
    await agent.ok("interact", {"action": "navigate", "url": site.url("/catalog/login")})
    checks = [
        {"type": "visible", "selector": "#user"},
        {"type": "text", "selector": "h1", "expected": "Sign in to the catalog"},
        {"type": "count", "selector": "input", "expected": 3},
        {"type": "url", "contains": "/catalog/login"},
        {"type": "title", "expected": "Catalog: sign in"},
    ]
    checked = await agent.call("observe", {"what": "assert", "checks": checks})
    assert not checked.is_error and checked.structured_content["passed"] is True, checked.structured_content
    generated = await agent.ok("generate", {"type": "playwright_test", "name": "the sign-in page"})
    code = generated["code"]
    assert 'expect(page.get_by_label("Username")).to_be_visible()' in code
    assert 'expect(page.get_by_role("heading", name="Sign in to the catalog")).to_have_text(' in code
    assert 'expect(page.locator("input")).to_have_count(3)' in code
    assert 'expect(page).to_have_title("Catalog: sign in")' in code
    folder = tmp_path / "run"
    folder.mkdir()
    passed, output = await run_pytest(Path(generated["path"]), folder)
    assert passed == 0, output[-3000:]
