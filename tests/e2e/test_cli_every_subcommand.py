"""Every subcommand of the shell CLI (desktop/tabpilot/cli/cli_spec.json) as a real `tabpilot <sub> ...` process
against the running app, its managed Chromium and the fixture site: a table keyed by subcommand says what
to run and what its output must say, a few tests (one browser session) run the table's rows in an order
that sets each one up, and a test fails when the spec has a subcommand the table lacks."""

from __future__ import annotations

import json
import re
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tabpilot.app import App
from tabpilot.cli import shell
from tabpilot.engine.page.handoffs import handoff_book
from tests.e2e.conftest import E2E
from tests.e2e.test_cli_subcommands import cli, show
from tests.support.site import FixtureSite
from tests.support.waiting import until

pytestmark = [pytest.mark.e2e]


@dataclass(frozen=True)
class Case:
    """One subcommand's run: its words after the name, and what it must answer.

    Words and expectations may hold placeholders the test fills in: <site> (the fixture site's origin),
    <tab> (the test's tab id), <tmp> (a folder of the test's), <run> (a word new to each test, for names
    of files, workflows and states), and what earlier rows printed (<cid>, <wf>, <replay_run>, <new_tab>)."""

    group: str
    words: tuple[str, ...]
    says: tuple[str, ...]
    """Each of these is in its stdout (it exits 0)."""
    page: tuple[tuple[str, Any], ...] = ()
    """(JS expression, value) pairs the test's tab must show right after: what a person would see."""


READS, CAPTURE, ACTIONS, TABS, WORKFLOWS, SETTINGS, PERSON = (
    "reads", "capture", "actions", "tabs", "workflows", "settings", "person"
)  # fmt: skip

CHECKS = json.dumps([{"type": "visible", "selector": "h1"}, {"type": "text", "selector": "h1", "contains": "Reading"}])
SCHEMA = json.dumps({"name": ".name | text", "points": ".points | number"})
STEPS = json.dumps(
    [
        {"type": "navigate", "url": "<site>/extract.html"},
        {"type": "extract", "selector": "tbody tr", "schema": {"name": ".name | text"}},
    ]
)
IMPORTED = json.dumps(
    {"workflow_id": "wf-cli-imported", "name": "cli imported", "steps": [{"type": "navigate", "url": "<site>/"}]}
)

CASES: dict[str, Case] = {
    # -- reads, with the pilot off, on /reading.html ------------------------------------------------------
    "page": Case(READS, (), ("url: <site>/reading.html", "title: Reading Fixture")),
    "dom": Case(READS, ("h1",), ("tag: h1", "text: Reading helpers", "matchCount: 1")),
    "tabs": Case(READS, (), ("<tab>\tactive\t-\t<site>/reading.html\tReading Fixture",)),
    "pilot": Case(READS, (), ("ai_web_pilot: false", "extension_connected: true")),
    "help": Case(READS, ("interact.click",), ("mode: interact.click", "action: click", "kind: mutate")),
    "text": Case(READS, ("#prices",), ("Name\tPrice\nTea\t3",)),
    "html": Case(READS, ("h1",), ("<h1>Reading helpers</h1>",)),
    "links": Case(READS, (), ("a relative link\t<site>/second.html",)),
    "forms": Case(READS, (), ("label: Email address",)),
    "markdown": Case(READS, (), ("# Reading helpers", "**bold words**")),
    "data": Case(READS, (), ("headline: Ld Headline", "title: Reading OG Title")),
    "media": Case(READS, (), ("src: <site>/pixel.png",)),
    "styles": Case(READS, ("#styled", "--properties", "color,padding-top"), ("color: rgb(10, 20, 30)",)),
    "across-tabs": Case(READS, ("text",), ("url: <site>/reading.html", "Visible paragraph")),
    "snapshot": Case(READS, ("--interactive-only",), ('link "a relative link" @e',)),
    "a11y": Case(READS, (), ("axe_version:", "summary:")),
    "assert": Case(READS, ("--checks", CHECKS), ("passed: true", "passed_count: 2")),
    "injection-check": Case(READS, (), ("verdict: clean", "url: <site>/reading.html")),
    "performance": Case(READS, (), ("navigation:", "ttfb_ms:", "status: 200")),
    "screenshot": Case(READS, ("--selector", "h1", "<tmp>/h1.png"), ("<tmp>/h1.png (",)),
    "zoom-region": Case(
        READS,
        ("--x", "0", "--y", "0", "--width", "100", "--height", "50", "--scale", "2", "<tmp>/zoom.png"),
        ("<tmp>/zoom.png (200x100, ",),
    ),
    "visual-diff": Case(READS, ("--name", "cli-every-<run>"), ("match: true", "baseline_created: true")),
    "pdf": Case(READS, ("--path", "cli-every-<run>.pdf"), ("pages: 1", "cli-every-<run>.pdf")),
    "archive": Case(READS, ("--path", "cli-every-<run>.mhtml"), ("url: <site>/reading.html", ".mhtml")),
    "har": Case(READS, ("--path", "cli-every-<run>.har"), ("entries:", "bodies_captured: false", ".har")),
    # -- capture reads, on /capture.html once its load-time run is over --------------------------------
    "logs": Case(CAPTURE, (), ("warn line", "info line")),
    "errors": Case(CAPTURE, (), ("thrown on purpose", "rejected on purpose")),
    "network": Case(CAPTURE, (), ("url: <site>/api/json?tag=first", "status: 500")),
    "network-bodies": Case(CAPTURE, (), ("capture_enabled: false", "Network bodies")),
    "websocket-events": Case(CAPTURE, (), ("ws://127.0.0.1", "/ws/echo")),
    "clear-capture": Case(CAPTURE, (), ("cleared:",)),
    # -- actions, with the pilot on ---------------------------------------------------------------------
    "goto": Case(ACTIONS, ("<site>/actions.html",), ("status: complete", "title: Actions")),
    "js": Case(ACTIONS, ("document.title + '!'",), ("Actions!",)),
    "click": Case(
        ACTIONS, ("#change",), ("clicked: true",), page=(("clicks.textContent", "clicked, trusted=true, at a point"),)
    ),
    "fill": Case(
        ACTIONS,
        ("#name", "cli name"),
        ("filled: true",),
        page=(
            ("document.querySelector('#name').value", "cli name"),
            ("events.some((e) => e.startsWith('name:input:'))", True),
        ),
    ),
    "type": Case(
        ACTIONS,
        ("#keys", "abc"),
        ("typed: 3",),
        page=(("document.querySelector('#keys').value", "abc"), ("keyLog.includes('keydown:c:true')", True)),
    ),
    "select": Case(
        ACTIONS,
        ("#color", "Green"),
        ("selected:\n  - g",),
        page=(
            ("document.querySelector('#color').value", "g"),
            ("events.some((e) => e.startsWith('color:change:'))", True),
        ),
    ),
    "scroll": Case(ACTIONS, ("#bottom",), ("scroll:",), page=(("scrollY > 1000", True),)),
    "press": Case(ACTIONS, ("Enter", "#q"), ("pressed: Enter", "<site>/submitted?q=cli+search")),
    "drag": Case(ACTIONS, ("#card", "#bin"), ("html5: true", "dnd: dropped card"), page=(("trusted.drop", 1),)),
    "check": Case(ACTIONS, ("#terms",), ("checked: true", "terms: on"), page=(("terms.checked", True),)),
    "uncheck": Case(ACTIONS, ("#terms",), ("checked: false",), page=(("terms.checked", False),)),
    "hover": Case(ACTIONS, ("#menu",), ("hovered: true", "hover: menu (submenu block)")),
    "focus": Case(ACTIONS, ("#email",), ("focused: true",), page=(("document.activeElement.id", "email"),)),
    "highlight": Case(ACTIONS, ("#menu", "--duration-ms", "500"), ("highlighted: true", "bounds:")),
    "upload": Case(ACTIONS, ("--selector", "#file", "--files", "cli-<run>.txt"), ("name: cli-<run>.txt", "size: 17")),
    "wait-for": Case(ACTIONS, ("--text", "cli-<run>.txt (17 bytes)"), ("condition: text", "url: <site>/upload")),
    "back": Case(ACTIONS, (), ("url: <site>/acts.html", "title: Acts")),
    "forward": Case(ACTIONS, (), ("url: <site>/upload", "title: Uploaded")),
    "reload": Case(ACTIONS, (), ("status: complete", "reloaded <site>/download-login")),
    "download": Case(ACTIONS, ("--url", "<site>/files/report.txt"), ("size: 42", "mime: text/plain", "downloads/")),
    "dismiss-overlays": Case(
        ACTIONS,
        (),
        ("dialog 'Newsletter'", "clicked 'Accept all'"),
        page=(("!!document.querySelector('#consent')", False),),
    ),
    # -- tabs -------------------------------------------------------------------------------------------
    "new-tab": Case(TABS, ("<site>/second.html",), ("tab_id:", "title: Second Page")),
    "switch-tab": Case(TABS, ("<tab>",), ("tab_id: <tab>", "url: <site>/index.html")),
    "track": Case(TABS, ("<new_tab>",), ("tracked:", "tab_id: <new_tab>", "title: Second Page")),
    "close-tab": Case(TABS, ("<new_tab>",), ("closed: true", "tab_id: <new_tab>")),
    # -- scraping and workflows -------------------------------------------------------------------------
    "scrape-extract": Case(
        WORKFLOWS,
        ("--selector", "tbody tr", "--schema", SCHEMA),
        ("name: Alice Johnson", "points: 1234", "rows_extracted: 3"),
    ),
    "scrape-workflow": Case(
        WORKFLOWS,
        ("--record", "--name", "cli-<run>", "--step-delay-ms", "0", "--steps", STEPS),
        ("steps_completed: 2", "name: Carol White", "recorded: true"),
    ),
    "workflows": Case(WORKFLOWS, (), ("workflow_id: <wf>", "name: cli-<run>", "steps: 2")),
    "scrape-replay": Case(WORKFLOWS, ("--workflow-id", "<wf>"), ("replayed_from:", "name: Bob Smith")),
    "runs": Case(WORKFLOWS, ("--workflow-id", "<wf>"), ("run_id: <replay_run>", "status: complete", "trigger: agent")),
    "stop-run": Case(WORKFLOWS, ("--run-id", "<replay_run>"), ("run_id: <replay_run>", "status: complete")),
    "export-workflow": Case(WORKFLOWS, ("--workflow-id", "<wf>"), ("workflow_id: <wf>", "selector: tbody tr")),
    "import-workflow": Case(WORKFLOWS, ("--workflow", IMPORTED), ("workflow_id: wf-cli-imported", "imported: true")),
    "delete-workflow": Case(WORKFLOWS, ("--workflow-id", "wf-cli-imported"), ("deleted: true",)),
    "playwright-script": Case(WORKFLOWS, ("--workflow-id", "<wf>"), ("from playwright", "tbody tr")),
    "playwright-test": Case(WORKFLOWS, (), ("path: ", "test_", "from playwright.sync_api import")),
    # -- browser settings: emulation, routes, saved states ----------------------------------------------
    "emulate-device": Case(
        SETTINGS, ("iPhone 15",), ("device: iPhone 15", "is_mobile: true"), page=(("innerWidth", 393),)
    ),
    "set-viewport": Case(SETTINGS, ("--width", "800", "--height", "600"), ("width: 800",), page=(("innerWidth", 800),)),
    "set-user-agent": Case(
        SETTINGS,
        ("--user-agent", "TabpilotCli/1.0"),
        ("user_agent: TabpilotCli/1.0",),
        page=(("navigator.userAgent", "TabpilotCli/1.0"),),
    ),
    "set-headers": Case(SETTINGS, ("--headers", '{"X-Cli-Run":"<run>"}'), ("- X-Cli-Run",)),
    "mock-route": Case(SETTINGS, ("--url", "**/api/items*", "--body", '{"items":["cli mocked"]}'), ("action: mock",)),
    "list-routes": Case(SETTINGS, (), ("url: **/api/items*", "action: mock")),
    "block-urls": Case(SETTINGS, ("--patterns", '["**/api/items*"]'), ("action: block",)),
    "clear-routes": Case(SETTINGS, (), ("cleared: 1",)),
    "save-state": Case(SETTINGS, ("cli-<run>",), ("saved: true", "localStorage: 1", "sessionStorage: 1")),
    "states": Case(SETTINGS, (), ("name: cli-<run>", "url: <site>/state/home")),
    "load-state": Case(SETTINGS, ("cli-<run>",), ("loaded: true", "url: <site>/state/home")),
    "delete-state": Case(SETTINGS, ("cli-<run>",), ("deleted: true",)),
    # -- what needs the person: dialogs and a hand-off ---------------------------------------------------
    "dialogs": Case(PERSON, (), ("type: confirm", "message: Delete item 7?")),
    "handle-dialog": Case(
        PERSON, ("--accept",), ("handled: true", "accepted: true"), page=(("confirmed.value", "deleted"),)
    ),
    "handoff": Case(PERSON, ("--reason", "Sign in, then Resume"), ("status: awaiting_user", "tab_id: <tab>")),
    "result": Case(PERSON, ("<cid>",), ("status: resumed", "resumed_by: tray", "Welcome, alice")),
}


@dataclass
class Runner:
    """Runs the table's rows as `tabpilot` processes and checks them; remembers which it ran."""

    home: Path
    tab: Any
    values: dict[str, str]
    ran: list[str] = field(default_factory=list)

    def fill(self, text: str) -> str:
        return re.sub(r"<(\w+)>", lambda m: self.values.get(m.group(1), m.group(0)), text)

    async def run(self, name: str) -> str:
        case = CASES[name]
        words = [self.fill(w) for w in case.words]
        done = await cli(self.home, name, *words)
        shown = (
            f"tabpilot {name} {' '.join(words)} -> {done.returncode}\nstdout:\n{done.stdout}\nstderr:\n{done.stderr}"
        )
        assert done.returncode == 0, shown
        for said in case.says:
            assert self.fill(said) in done.stdout, f"{self.fill(said)!r} missing: {shown}"
        for expression, value in case.page:
            assert await self.tab.evaluate(expression) == value, f"{expression} after {shown}"
        self.ran.append(name)
        return done.stdout

    def covered(self, group: str) -> None:
        """The test ran every row of its group (a new row cannot sit in the table unrun)."""
        assert sorted(self.ran) == sorted(n for n, c in CASES.items() if c.group == group)


def field_of(out: str, key: str) -> str:
    found = re.search(rf"^\s*{key}: (.+)$", out, re.MULTILINE)
    assert found, f"no {key} in {out}"
    return found.group(1).strip()


async def runner(app: App, home: Path, tab: Any, site: FixtureSite, tmp_path: Path) -> Runner:
    tab_id = (await app.link.request("tabs.resolve", {}, timeout_s=5))["tab_id"]
    values = {"site": site.origin, "tab": str(tab_id), "tmp": str(tmp_path), "run": uuid.uuid4().hex[:8]}
    return Runner(home, tab, values)


def test_the_table_has_a_row_for_every_subcommand_in_the_spec() -> None:
    spec = set(shell.subcommands())
    assert sorted(spec - set(CASES)) == [], "subcommands with no row in CASES (add one: what to run, what it says)"
    assert sorted(set(CASES) - spec) == [], "rows for subcommands the spec no longer has"
    assert {c.group for c in CASES.values()} == {READS, CAPTURE, ACTIONS, TABS, WORKFLOWS, SETTINGS, PERSON}


@E2E
async def test_the_reads_and_files(e2e_app: App, e2e_home: Path, tab: Any, site: FixtureSite, tmp_path: Path) -> None:
    run = await runner(e2e_app, e2e_home, tab, site, tmp_path)
    await show(e2e_app, tab, site, "/reading.html")
    for name in ("page", "dom", "tabs", "pilot", "help", "text", "html", "links", "forms", "markdown", "data"):
        await run.run(name)
    for name in ("media", "styles", "across-tabs", "snapshot", "a11y", "assert", "injection-check", "performance"):
        await run.run(name)
    await run.run("screenshot")
    assert (tmp_path / "h1.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    await run.run("zoom-region")
    assert (tmp_path / "zoom.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    await run.run("visual-diff")
    artifacts = e2e_app.paths.artifacts_dir
    await run.run("pdf")
    assert (artifacts / f"cli-every-{run.values['run']}.pdf").read_bytes()[:5] == b"%PDF-"
    await run.run("archive")
    assert "Reading helpers" in (artifacts / f"cli-every-{run.values['run']}.mhtml").read_text(errors="replace")
    await run.run("har")
    har = json.loads((artifacts / f"cli-every-{run.values['run']}.har").read_text())
    assert any(e["request"]["url"] == site.url("/reading.html") for e in har["log"]["entries"])
    run.covered(READS)


@E2E
async def test_the_capture_reads(e2e_app: App, e2e_home: Path, tab: Any, site: FixtureSite, tmp_path: Path) -> None:
    run = await runner(e2e_app, e2e_home, tab, site, tmp_path)
    await show(e2e_app, tab, site, "/capture.html")
    await until(lambda: tab.evaluate("window.results.done === true"), timeout=15, what="the capture page's run")
    for name in ("logs", "errors", "network", "network-bodies", "websocket-events", "clear-capture"):
        await run.run(name)
    assert "entries: []" in (await cli(e2e_home, "logs")).stdout, "clear-capture emptied the buffers"
    run.covered(CAPTURE)


@E2E
async def test_the_actions(
    e2e_app: App, e2e_home: Path, tab: Any, site: FixtureSite, pilot_on: None, tmp_path: Path
) -> None:
    run = await runner(e2e_app, e2e_home, tab, site, tmp_path)
    await run.run("goto")
    await run.run("js")
    await tab.evaluate("window.clicks = document.getElementById('clicks')")
    for name in ("click", "fill", "type", "select", "scroll"):
        await run.run(name)
    await cli(e2e_home, "fill", "#q", "cli search")
    await run.run("press")

    await show(e2e_app, tab, site, "/acts.html")
    await tab.evaluate("window.terms = document.getElementById('terms')")
    # drag before hover: hovering #menu opens its submenu, which shifts what lies below it.
    for name in ("drag", "check", "uncheck", "hover", "focus", "highlight"):
        await run.run(name)
    uploads = e2e_app.paths.uploads_dir
    uploads.mkdir(parents=True, exist_ok=True)
    (uploads / f"cli-{run.values['run']}.txt").write_bytes(b"hello from a cli\n")
    await run.run("upload")
    assert (await cli(e2e_home, "click", "#upload-go")).returncode == 0
    await run.run("wait-for")  # the server's answer names the file it received
    await run.run("back")
    await run.run("forward")

    await show(e2e_app, tab, site, "/download-login")  # sets the cookie /files/report.txt wants
    await run.run("reload")
    saved = Path(field_of(await run.run("download"), "path"))
    assert saved.parent == e2e_app.paths.downloads_dir and saved.read_bytes() == FixtureSite.REPORT
    await show(e2e_app, tab, site, "/overlays.html")
    await run.run("dismiss-overlays")
    run.covered(ACTIONS)


@E2E
async def test_the_tabs(
    e2e_app: App, e2e_home: Path, tab: Any, site: FixtureSite, pilot_on: None, tmp_path: Path
) -> None:
    run = await runner(e2e_app, e2e_home, tab, site, tmp_path)
    run.values["new_tab"] = field_of(await run.run("new-tab"), "tab_id")
    assert await _active(e2e_home) == run.values["new_tab"], "the new tab is in front"
    await run.run("switch-tab")
    assert await _active(e2e_home) == run.values["tab"], "ours is in front again"
    await run.run("track")
    await run.run("close-tab")
    listed = (await cli(e2e_home, "tabs")).stdout
    assert run.values["new_tab"] not in listed and run.values["tab"] in listed
    run.covered(TABS)


@E2E
async def test_the_scrapes_and_workflows(
    e2e_app: App, e2e_home: Path, tab: Any, site: FixtureSite, pilot_on: None, tmp_path: Path
) -> None:
    run = await runner(e2e_app, e2e_home, tab, site, tmp_path)
    await show(e2e_app, tab, site, "/extract.html")
    await run.run("scrape-extract")
    run.values["wf"] = field_of(await run.run("scrape-workflow"), "workflow_id")
    await run.run("workflows")
    run.values["replay_run"] = field_of(await run.run("scrape-replay"), "run_id")
    for name in ("runs", "stop-run", "export-workflow", "import-workflow", "delete-workflow"):
        await run.run(name)  # stop-run of a run that has ended: it answers with how the run ended
    assert "wf-cli-imported" not in (await cli(e2e_home, "workflows")).stdout
    await run.run("playwright-script")
    written = Path(field_of(await run.run("playwright-test"), "path"))
    assert written.is_file() and "def test_" in written.read_text()
    run.covered(WORKFLOWS)


@E2E
async def test_the_browser_settings(
    e2e_app: App, e2e_home: Path, tab: Any, site: FixtureSite, pilot_on: None, tmp_path: Path
) -> None:
    run = await runner(e2e_app, e2e_home, tab, site, tmp_path)
    await show(e2e_app, tab, site, "/device.html")
    for name in ("emulate-device", "set-viewport", "set-user-agent"):
        await run.run(name)
    assert "reset: true" in (await cli(e2e_home, "emulate-device", "--reset")).stdout

    await run.run("set-headers")
    digests = await tab.evaluate("fetch('/api/echo-headers').then((r) => r.json())")
    assert digests["headers"]["x-cli-run"] == _digest(run.values["run"]), "the page's request carried the header"
    await cli(e2e_home, "set-headers", "--headers", "{}")
    await run.run("mock-route")
    await run.run("list-routes")
    await show(e2e_app, tab, site, "/mockapp.html")
    await until(
        lambda: tab.evaluate("!document.getElementById('status').textContent.startsWith('loading')"), timeout=10
    )
    assert await tab.text_content("#items") == "cli mocked"
    await cli(e2e_home, "clear-routes")
    await run.run("block-urls")
    await show(e2e_app, tab, site, "/mockapp.html?blocked")
    await until(
        lambda: tab.evaluate("!document.getElementById('status').textContent.startsWith('loading')"), timeout=10
    )
    assert (await tab.text_content("#status")).startswith("failed")
    await run.run("clear-routes")

    # Saved state: signed in (an HttpOnly cookie and both storages), saved, all gone, loaded back.
    await show(e2e_app, tab, site, "/state/login?user=clara")
    await until(lambda: tab.evaluate("document.getElementById('status').textContent === 'signed in'"), timeout=5)
    await show(e2e_app, tab, site, "/state/home")
    await run.run("save-state")
    await run.run("states")
    await tab.context.clear_cookies(name="sid")  # HttpOnly: the page's script cannot drop it
    await tab.evaluate("localStorage.clear(); sessionStorage.clear()")
    await tab.reload()
    assert await tab.text_content("#status") == "not logged in: no cookie, localStorage, sessionStorage"
    await run.run("load-state")
    assert await tab.text_content("#status") == "logged in as clara"
    await tab.context.clear_cookies(name="sid")
    await run.run("delete-state")
    assert f"cli-{run.values['run']}" not in (await cli(e2e_home, "states")).stdout
    run.covered(SETTINGS)


@E2E
async def test_the_dialogs_and_a_handoff(
    e2e_app: App, e2e_home: Path, tab: Any, site: FixtureSite, pilot_on: None, tmp_path: Path
) -> None:
    run = await runner(e2e_app, e2e_home, tab, site, tmp_path)
    await show(e2e_app, tab, site, "/dialogs.html")
    await tab.evaluate("window.confirmed = document.getElementById('confirmed')")
    assert "changed: a confirm dialog opened" in (await cli(e2e_home, "click", "#confirm")).stdout
    await run.run("dialogs")
    await run.run("handle-dialog")

    await show(e2e_app, tab, site, "/login?next=/account")
    run.values["cid"] = field_of(await run.run("handoff"), "correlation_id")
    waiting = await cli(e2e_home, "result", run.values["cid"])
    assert "status: awaiting_user" in waiting.stdout
    await tab.fill("#user", "alice")  # the person signs in
    await tab.fill("#password", "correct horse battery staple")
    await tab.click("#go")
    await tab.wait_for_url("**/account")
    assert handoff_book(e2e_app.engine).resume(run.values["cid"], by="tray")  # the person's Resume in the tray

    async def resumed() -> bool:
        return "status: resumed" in (await cli(e2e_home, "result", run.values["cid"])).stdout

    await until(resumed, timeout=10, what="the hand-off to end")
    assert "correct horse" not in await run.run("result")
    await tab.context.clear_cookies(name="session")  # signed out again: other tests meet the sign-in page
    run.covered(PERSON)


async def _active(home: Path) -> str:
    """The tab `tabpilot tabs` says is in front."""
    rows = [line.split("\t") for line in (await cli(home, "tabs")).stdout.splitlines()]
    [front] = [row[0] for row in rows if row[1] == "active"]
    return front


def _digest(value: str) -> str:
    import hashlib

    return hashlib.sha256(value.encode()).hexdigest()[:16]
