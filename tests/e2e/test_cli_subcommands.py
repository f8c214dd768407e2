"""The shell CLI for agents, as a real subprocess against a real running app and browser: a subcommand per
mode printing plain text, `tabpilot chain` running ten commands in one request, and exit codes that name
the contract's error codes."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tabpilot.app import App
from tests.e2e.conftest import E2E, home_env
from tests.support.site import FixtureSite
from tests.support.waiting import until

pytestmark = [pytest.mark.e2e, E2E]


async def cli(home: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    def run() -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "tabpilot", *args],
            env=home_env(home),
            input=stdin,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )

    return await asyncio.to_thread(run)


async def ok(home: Path, *args: str, stdin: str | None = None) -> str:
    done = await cli(home, *args, stdin=stdin)
    assert done.returncode == 0, f"tabpilot {' '.join(args)}: {done.returncode}\n{done.stderr}"
    return done.stdout


async def test_a_reader_that_goes_away_gets_no_traceback(e2e_home: Path, tab: Any) -> None:
    # `tabpilot page | head -1`: the reader closes the pipe before the CLI has written.
    read_end, write_end = os.pipe()
    os.close(read_end)

    def run() -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "tabpilot", "page"],
            env=home_env(e2e_home),
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            timeout=60,
            check=False,
        )

    try:
        done = await asyncio.to_thread(run)
    finally:
        os.close(write_end)
    assert (done.returncode, done.stderr) == (0, "")


async def show(app: App, tab: Any, site: FixtureSite, path: str) -> str:
    url = site.url(path)
    await tab.goto(url)

    async def targeted() -> bool:
        return (await app.link.request("tabs.resolve", {}, timeout_s=5))["url"] == url

    await until(targeted, timeout=5, what=f"commands to go to the tab showing {path}")
    return url


async def test_the_reads_print_plain_text(e2e_app: App, e2e_home: Path, tab: Any, site: FixtureSite) -> None:
    url = await show(e2e_app, tab, site, "/reading.html")
    assert await ok(e2e_home, "text", "#prices") == "Name\tPrice\nTea\t3\n"
    text = await ok(e2e_home, "text")
    assert "Visible paragraph with a relative link and bold words." in text and "DISPLAYNONE" not in text
    assert await ok(e2e_home, "html", "h1") == "<h1>Reading helpers</h1>\n"
    assert f"a relative link\t{site.url('/second.html')}\n" in await ok(e2e_home, "links")
    markdown = await ok(e2e_home, "markdown")
    assert "# Reading helpers" in markdown and "**bold words**" in markdown
    forms = await ok(e2e_home, "forms")
    assert "label: Email address" in forms and "ATTR-PASSWORD-1" not in forms and "TYPED-PASSWORD-2" not in forms
    data = await ok(e2e_home, "data")
    assert "headline: Ld Headline" in data and "title: Reading OG Title" in data
    assert f"src: {site.url('/pixel.png')}" in await ok(e2e_home, "media")
    styles = await ok(e2e_home, "styles", "#styled", "--properties", "color,padding-top")
    assert "color: rgb(10, 20, 30)" in styles and "padding-top: 7px" in styles
    page = json.loads(await ok(e2e_home, "page", "--json"))
    assert page["url"] == url and page["title"] == "Reading Fixture"
    assert "tag: h1" in await ok(e2e_home, "dom", "h1")
    tabs = (await ok(e2e_home, "tabs")).splitlines()
    assert any(line.split("\t")[1:4] == ["active", "-", url] for line in tabs), tabs
    assert "ai_web_pilot: false" in await ok(e2e_home, "pilot")
    assert f"url: {url}" in await ok(e2e_home, "across-tabs", "text")
    await ok(e2e_home, "logs")  # capture reads answer too (what they hold is another test's)


async def test_the_actions_change_the_page(
    e2e_app: App, e2e_home: Path, tab: Any, site: FixtureSite, pilot_on: None, tmp_path: Path
) -> None:
    await show(e2e_app, tab, site, "/index.html")
    went = await ok(e2e_home, "goto", site.url("/actions.html"))
    assert went == f"status: complete\nurl: {site.url('/actions.html')}\ntitle: Actions\n"
    assert await ok(e2e_home, "js", "document.title") == "Actions\n"
    assert await ok(e2e_home, "js", "1+1") == "2\n"
    await ok(e2e_home, "click", "#change")
    assert await tab.text_content("#clicks") == "clicked, trusted=true, at a point"
    await ok(e2e_home, "fill", "#name", "new name")
    assert await tab.input_value("#name") == "new name"
    await ok(e2e_home, "type", "#keys", "abc")
    assert await tab.input_value("#keys") == "abc"
    await ok(e2e_home, "select", "#color", "Green")
    assert await tab.input_value("#color") == "g"
    await ok(e2e_home, "scroll", "#bottom")
    assert await tab.evaluate("window.scrollY") > 1000
    shot = tmp_path / "shot.png"
    printed = await ok(e2e_home, "screenshot", str(shot))
    assert printed.startswith(str(shot)) and shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    await ok(e2e_home, "fill", "#q", "cli search")
    pressed = await ok(e2e_home, "press", "Enter", "#q")
    assert "pressed: Enter" in pressed
    assert tab.url.startswith(site.url("/submitted?q=cli+search"))


async def test_a_chain_of_ten_runs_in_one_request(
    e2e_app: App, e2e_home: Path, tab: Any, site: FixtureSite, pilot_on: None
) -> None:
    await show(e2e_app, tab, site, "/index.html")
    commands = [
        ["goto", site.url("/actions.html")],
        ["text", "h1"],
        ["click", "#change"],
        ["text", "#clicks"],
        ["fill", "#name", "chained"],
        ["js", "document.getElementById('name').value"],
        ["select", "#color", "b"],
        ["js", "document.getElementById('color').value"],
        ["call", "observe", '{"what":"page"}'],
        ["html", "#change"],
    ]
    out = await ok(e2e_home, "chain", stdin=json.dumps(commands))
    blocks = out.split("==> ")[1:]
    assert len(blocks) == 10
    assert blocks[0].startswith(f"goto {site.url('/actions.html')} <==\nstatus: complete")
    assert blocks[1] == "text h1 <==\nActions\n"
    assert blocks[3] == "text #clicks <==\nclicked, trusted=true, at a point\n"
    assert blocks[5].endswith("<==\nchained\n")
    assert blocks[7].endswith("<==\nb\n")
    assert "title: Actions" in blocks[8]
    assert blocks[9].endswith('<==\n<button id="change" type="button">Clicked</button>\n')
    assert await tab.input_value("#name") == "chained"
    calls = [e for e in e2e_app.engine.activity.recent() if e.phase == "finished" and e.agent == "cli"]
    assert [e.mode for e in calls[-10:]] == [
        "navigate", "text", "click", "text", "fill", "execute_js", "select", "execute_js", "page", "html"
    ]  # fmt: skip

    as_json = json.loads(await ok(e2e_home, "chain", "--json", stdin='[["text","h1"],["js","1+1"]]'))
    assert as_json["ok"] is True and as_json["completed"] == 2
    assert [r["result"].get("text", r["result"].get("result")) for r in as_json["results"]] == ["Actions", 2]


async def test_a_chain_stops_at_the_first_error(
    e2e_app: App, e2e_home: Path, tab: Any, site: FixtureSite, pilot_on: None
) -> None:
    await show(e2e_app, tab, site, "/actions.html")
    commands = [["text", "h1"], ["click", "#nothing-here", "--timeout-ms", "300"], ["click", "#change"]]
    done = await cli(e2e_home, "chain", stdin=json.dumps(commands))
    assert done.returncode == 1
    assert "tabpilot click: element_not_found:" in done.stderr
    assert done.stdout.count("==> ") == 2
    assert await tab.text_content("#change") == "Click me", "nothing after the failure ran"
    bad = await cli(e2e_home, "chain", stdin='[["text"], ["click"]]')
    assert bad.returncode == 2 and "command 2" in bad.stderr and "SELECTOR" in bad.stderr
    assert (await cli(e2e_home, "chain", stdin="not json")).returncode == 2


async def test_failures_exit_non_zero_naming_the_error_code(
    e2e_app: App, e2e_home: Path, tab: Any, site: FixtureSite, tmp_path: Path
) -> None:
    await show(e2e_app, tab, site, "/actions.html")
    off = await cli(e2e_home, "click", "#change")  # the pilot is off
    assert off.returncode == 1 and off.stdout == ""
    assert off.stderr.startswith("tabpilot click: ai_web_pilot_disabled: AI Web Pilot is off.")
    assert await tab.text_content("#change") == "Click me"
    missing = await cli(e2e_home, "text", "#nothing-here")
    assert missing.returncode == 1 and "tabpilot text: element_not_found:" in missing.stderr
    as_json = await cli(e2e_home, "text", "#nothing-here", "--json")
    assert json.loads(as_json.stdout)["error"] == "element_not_found"
    usage = await cli(e2e_home, "fill", "#name")
    assert usage.returncode == 2 and "VALUE" in usage.stderr
    nobody = await cli(tmp_path / "empty-home", "text")
    assert nobody.returncode == 3 and "not running" in nobody.stderr


async def test_checks_that_fail_exit_non_zero_and_an_unwritable_path_is_one_clear_line(
    e2e_app: App, e2e_home: Path, tab: Any, site: FixtureSite, tmp_path: Path
) -> None:
    await show(e2e_app, tab, site, "/index.html")
    # assert: exit 0 when every check holds, 1 (and "passed: false" on stderr) when one does not.
    holds = json.dumps([{"type": "visible", "selector": "h1"}])
    assert "passed: true" in await ok(e2e_home, "assert", "--checks", holds)
    fails = await cli(e2e_home, "assert", "--checks", json.dumps([{"type": "visible", "selector": "#nope"}]))
    assert fails.returncode == 1 and "passed: false" in fails.stderr
    # visual-diff: a first run stores the baseline (a match); a changed page is not one, and exits 1.
    name = f"cli-{tmp_path.name}"
    assert (await cli(e2e_home, "visual-diff", "--name", name)).returncode == 0
    await tab.evaluate("document.querySelector('h1').style.background = 'rgb(255, 0, 0)'")
    changed = await cli(e2e_home, "visual-diff", "--name", name)
    assert changed.returncode == 1 and "match: false" in changed.stderr
    assert "similarity" in changed.stdout and not list(Path.cwd().glob("visual_diff-*"))  # no stray copy here
    # A picture for a folder that does not exist: one line saying so, no traceback.
    missing = await cli(e2e_home, "screenshot", str(tmp_path / "no" / "such" / "x.png"))
    assert missing.returncode == 1 and "Traceback" not in missing.stderr
    assert missing.stderr.strip().startswith("tabpilot screenshot: cannot write the picture")
