"""A pytest-playwright test from what an agent session did (engine/workflows/recorder.py) or from a saved workflow.

The test is what a person would write: Playwright's own locators (role and name, label, text before
CSS), `expect` where the session waited or checked, `page.wait_for_url` where an action navigated.
Addresses on the recorded site start with BASE_URL (an environment variable may point the test at
another copy of the site); a password typed in plain is read from an environment variable and a
`{{secret:NAME}}` from the OS keyring, so no secret is written into the file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from tabpilot.engine.contract.placeholders import PLACEHOLDER
from tabpilot.engine.workflows.extract_spec import parse_schema
from tabpilot.engine.workflows.pycode import (
    css_locator,
    doc_text,
    frame_scope,
    locator_code,
    one_line,
    py,
    secret_env,
    secret_helper,
    secret_names,
    value_expr,
)
from tabpilot.engine.workflows.workflows import Workflow

_NOT_IDENTIFIER = re.compile(r"[^a-z0-9_]+")
_JS_REGEX = re.compile(r"^/(.*)/([a-z]*)$", re.S)


@dataclass
class Output:
    base: str = ""
    """The recorded site's origin: BASE_URL's default."""
    env: set[str] = field(default_factory=set)
    secrets: list[str] = field(default_factory=list)
    """The {{secret:NAME}} names the test reads (through `secret`)."""
    regex: bool = False

    def url(self, url: str) -> str:
        if self.base and (url == self.base or url.startswith(self.base + "/")):
            rest = url[len(self.base) :]
            inside = py(rest)[1:-1].replace("{", "{{").replace("}", "}}")
            return f'f"{{BASE_URL}}{inside}"' if rest else "BASE_URL"
        return py(url)

    def value(self, typed: dict[str, Any]) -> str:
        if "env" in typed:
            self.env.add(str(typed["env"]))
            return f"os.environ[{py(typed['env'])}]"
        text = str(typed.get("text", ""))
        self.secrets += [name for name in secret_names([text]) if name not in self.secrets]
        # A workflow's {{name}} without a default: the test reads it from the environment.
        self.env |= {m.group(2) for m in PLACEHOLDER.finditer(text) if not m.group(1)}
        return value_expr(text, params="os.environ")

    def pattern(self, text: str, *, ignore_case: bool = False, escape: bool = False) -> str:
        self.regex = True
        flags = ", re.IGNORECASE" if ignore_case else ""
        return f"re.compile({py(re.escape(text) if escape else text)}{flags})"


def _element(entry: dict[str, Any], t: Output, key: str = "locator") -> str:
    locator = entry.get(key) or {}
    return locator_code(locator, frame_scope(entry.get("frame")))


def _matcher(check: dict[str, Any], t: Output) -> str:
    """expected / contains / pattern (a JavaScript /regex/flags or a bare one) as expect's argument."""
    ignore = bool(check.get("ignore_case"))
    if "pattern" in check:
        found = _JS_REGEX.match(str(check["pattern"]))
        body, flags = (found.group(1), found.group(2)) if found else (str(check["pattern"]), "")
        return t.pattern(body, ignore_case=ignore or "i" in flags)
    if "contains" in check:
        return t.pattern(str(check["contains"]), ignore_case=ignore, escape=True)
    if ignore:
        return t.pattern(f"^{re.escape(str(check['expected']))}$", ignore_case=True)
    return py(str(check.get("expected", "")))


STATE_EXPECTS = {
    "visible": "to_be_visible()",
    "hidden": "to_be_hidden()",
    "enabled": "to_be_enabled()",
    "disabled": "to_be_disabled()",
    "checked": "to_be_checked()",
    "unchecked": "not_to_be_checked()",
}
COUNT_OPS = {"ne": "!=", "gt": ">", "gte": ">=", "lt": "<", "lte": "<="}


def _check_lines(item: dict[str, Any], frame: str | None, t: Output) -> list[str]:
    check = item["check"]
    kind = check.get("type")
    scope = frame_scope(frame)
    element = locator_code(item.get("locator") or {}, scope) if item.get("locator") else ""
    if not item.get("passed"):
        return [f"# checked, but it did not hold when recorded: {py(check)}"]
    if kind in STATE_EXPECTS:
        return [f"expect({element}).{STATE_EXPECTS[kind]}"]
    if kind == "text":
        verb = "to_contain_text" if "contains" in check and not check.get("ignore_case") else "to_have_text"
        wanted = py(str(check["contains"])) if verb == "to_contain_text" else _matcher(check, t)
        return [f"expect({element}).{verb}({wanted})"]
    if kind == "value":
        return [f"expect({element}).to_have_value({_matcher(check, t)})"]
    if kind == "attribute":
        has = any(k in check for k in ("expected", "contains", "pattern"))
        wanted = _matcher(check, t) if has else t.pattern(".*")
        return [f"expect({element}).to_have_attribute({py(str(check['name']))}, {wanted})"]
    if kind == "count":
        rows = f"{scope}.locator({py(str(check['selector']))})"
        op = check.get("op", "eq")
        if op == "eq":
            return [f"expect({rows}).to_have_count({int(check['expected'])})"]
        return [f"assert {rows}.count() {COUNT_OPS[op]} {int(check['expected'])}"]
    if kind in ("url", "title"):
        return [f"expect(page).to_have_{kind}({_matcher(check, t)})"]
    return [f"# a {kind} check this generator does not know: {py(check)}"]


def _wait_lines(entry: dict[str, Any], t: Output) -> list[str]:
    if entry.get("locator"):
        state = entry.get("state", "visible")
        verb = {"visible": "to_be_visible()", "hidden": "to_be_hidden()", "attached": "to_be_attached()"}
        return [f"expect({_element(entry, t)}).{verb.get(state, 'not_to_be_attached()')}"]
    if "text" in entry:
        return [f"expect(page.get_by_text({py(entry['text'])}).first).to_be_visible()"]
    if "url" in entry:
        url = str(entry["url"])
        found = _JS_REGEX.match(url)
        if found:
            pattern = t.pattern(found.group(1), ignore_case="i" in found.group(2))
        elif "*" in url or "?" in url:
            pattern = py(url)  # Playwright's globs are Tabpilot's
        else:
            pattern = t.pattern(url, escape=True)
        return [f"page.wait_for_url({pattern})"]
    return [f"page.wait_for_load_state({py(entry.get('load_state', 'load'))})"]


def _text_lines(entry: dict[str, Any], t: Output) -> list[str]:
    text = " ".join(str(entry["text"]).split())
    lines = [line.strip() for line in str(entry["text"]).splitlines() if line.strip()]
    if "\n" not in str(entry["text"]).strip() and len(text) <= 120:
        return [f"expect({_element(entry, t)}).to_have_text({py(text)})"]
    return [f"expect({_element(entry, t)}).to_contain_text({py(lines[0][:80])})"]


def _rows_lines(entry: dict[str, Any], t: Output) -> list[str]:
    scope = frame_scope(entry.get("frame"))
    rows = f"{scope}.locator({py(str(entry['selector']))})"
    lines = []
    if entry.get("count") is not None:
        lines.append(f"expect({rows}).to_have_count({int(entry['count'])})")
    elif not entry.get("first"):
        lines.append(f"expect({rows}.first).to_be_visible()")
    for selector, text in (entry.get("first") or {}).items():
        lines.append(f"expect({rows}.first.locator({py(selector)}).first).to_have_text({py(text)})")
    return lines


def _action_lines(entry: dict[str, Any], t: Output) -> list[str]:
    kind = entry["kind"]
    locator = entry.get("locator") or {}
    if locator.get("by") == "ref":
        ref = one_line(locator.get("css"))
        return [f"# {kind} on the snapshot ref {ref}: no locator was recorded for it"]
    element = _element(entry, t)
    if kind == "click":
        args = []
        if entry.get("button"):
            args.append(f"button={py(entry['button'])}")
        if entry.get("modifiers"):
            args.append(f"modifiers={py(entry['modifiers'])}")
        verb = "dblclick" if entry.get("click_count") == 2 else "click"
        return [f"{element}.{verb}({', '.join(args)})"]
    if kind in ("fill", "type"):
        verb = "fill" if kind == "fill" else "press_sequentially"
        return [f"{element}.{verb}({t.value(entry['value'])})"]
    if kind == "press":
        key = py(entry.get("key", ""))
        return [f"{element}.press({key})" if entry.get("locator") else f"page.keyboard.press({key})"]
    if kind == "select":
        option = entry["option"]
        return [f"{element}.select_option({option['by']}={t.value(option)})"]
    if kind == "drag":
        return [f"{element}.drag_to({_element(entry, t, 'target')})"]
    if kind == "scroll":
        if entry.get("locator"):
            return [f"{element}.scroll_into_view_if_needed()"]
        dy = entry.get("delta_y") or 0
        return [f"page.mouse.wheel({entry.get('delta_x') or 0}, {dy})"] if dy or entry.get("delta_x") else []
    return [f"{element}.{kind}()"]  # check, uncheck, hover, focus


def entry_lines(entry: dict[str, Any], t: Output) -> list[str]:
    kind = entry["kind"]
    if kind == "navigate":
        return [f"page.goto({t.url(str(entry['url']))})"]
    if kind in ("back", "forward"):
        return [f"page.go_{kind}()"]
    if kind == "reload":
        return ["page.reload()"]
    if kind == "wait":
        return _wait_lines(entry, t)
    if kind == "expect":
        return [line for item in entry["checks"] for line in _check_lines(item, entry.get("frame"), t)]
    if kind == "expect_text":
        return _text_lines(entry, t)
    if kind == "expect_rows":
        return _rows_lines(entry, t)
    if kind == "note":
        return [f"# {one_line(entry['text'])}"]
    lines = _action_lines(entry, t)
    if entry.get("navigated"):
        lines.append(f"page.wait_for_url({t.url(str(entry['navigated']))})")
    return lines


def test_name(name: str | None) -> str:
    stem = _NOT_IDENTIFIER.sub("_", (name or "recorded session").lower()).strip("_") or "recorded_session"
    return f"test_{stem}" if not stem.startswith("test_") else stem


NOTHING_REPLAYED = "nothing to replay was recorded: act on a page through interact in the session first"


def replays(lines: list[str]) -> bool:
    """Whether a test body does anything (the lines of some entries are only comments, or none)."""
    return any(not line.startswith("#") for line in lines)


def replayable(entries: list[dict[str, Any]]) -> bool:
    """Whether a test of `entries` would do anything on a page."""
    return replays([line for entry in entries for line in entry_lines(entry, Output())])


def playwright_test(entries: list[dict[str, Any]], *, name: str | None = None, source: str, dropped: int = 0) -> str:
    """The pytest file for `entries` (see the module's doc); `source` says where they came from."""
    first_url = next((str(e["url"]) for e in entries if e["kind"] == "navigate"), "")
    parts = urlsplit(first_url)
    t = Output(base=f"{parts.scheme}://{parts.netloc}" if parts.scheme in ("http", "https") else "")
    body: list[str] = []
    if dropped:
        body.append(f"# The record kept only the session's last {len(entries)} actions ({dropped} before were cut).")
    for entry in entries:
        body += entry_lines(entry, t)
    if not replays(body):
        # A test that passes doing nothing would look like a check that holds: it says why it skips instead.
        body.append(f"pytest.skip({py(NOTHING_REPLAYED)})")
    filename = f"{test_name(name)}.py"
    doc = [
        f'"""{doc_text(name or "A recorded session")}: {doc_text(source)}, as a Playwright test.',
        "",
        "    pip install pytest-playwright" + (" keyring" if t.secrets else ""),
        f"    pytest {filename}",
        "",
        "Playwright's Chromium (`playwright install chromium`) or your own: TABPILOT_BROWSER=/path/to/chromium.",
    ]
    if t.base:
        doc.append(f"BASE_URL (default {t.base}) points it at another copy of the site.")
    if t.env:
        # Passwords typed in plain when recorded, a workflow's {{name}} without a default.
        doc.append(f"Set these in the environment, the test reads them from there: {', '.join(sorted(t.env))}.")
    if t.secrets:
        variables = ", ".join(secret_env(secret) for secret in t.secrets)
        doc += [
            '{{secret:NAME}} values come from the OS keyring (service "tabpilot") or, where it has none or there is',
            f"no keyring, from the environment: {variables}. None is written here.",
        ]
    doc.append('"""')
    imports = ["from __future__ import annotations", "", "import os"]
    if t.regex:
        imports.append("import re")
    expects = any(line.startswith("expect(") for line in body)  # entry_lines start every expect's line
    imports += ["", "import pytest", f"from playwright.sync_api import Page{', expect' if expects else ''}"]
    head = ["\n".join(doc) + "\n\n" + "\n".join(imports)]
    if t.base:
        head[-1] += f'\n\nBASE_URL = os.environ.get("BASE_URL", {py(t.base)})'
    fixtures = [
        '@pytest.fixture(scope="session")\n'
        "def browser_type_launch_args(browser_type_launch_args: dict) -> dict:\n"
        '    """TABPILOT_BROWSER: a Chromium of your own instead of Playwright\'s download."""\n'
        '    path = os.environ.get("TABPILOT_BROWSER")\n'
        '    return {**browser_type_launch_args, "executable_path": path} if path else browser_type_launch_args'
    ]
    if t.secrets:
        fixtures.append(secret_helper("pytest.skip").rstrip("\n"))
    test = f"def {test_name(name)}(page: Page) -> None:\n" + "\n".join(f"    {line}" for line in body)
    return "\n\n\n".join([*head, *fixtures, test]) + "\n"


def workflow_entries(workflow: Workflow) -> list[dict[str, Any]]:
    """A saved workflow's steps as entries (its selectors are CSS; an extraction checks its rows are there)."""
    entries: list[dict[str, Any]] = []
    for step in workflow.steps:
        step = {k: _with_defaults(v, workflow.params) for k, v in step.items()}
        kind, frame = step["type"], step.get("frame")
        selector = step.get("selector")
        locator = css_locator(str(selector)) if isinstance(selector, str) and selector else None
        base: dict[str, Any] = {"kind": kind, "frame": frame, "locator": locator}
        if kind == "navigate":
            entries.append({"kind": "navigate", "url": step["url"]})
        elif kind in ("wait", "wait_for"):
            waited = {k: step[k] for k in ("text", "url") if step.get(k) is not None}
            if locator:
                waited = {"state": step.get("state") or "visible", "locator": locator, "frame": frame}
            elif step.get("network_idle"):
                waited = {"load_state": "networkidle"}
            entries.append({"kind": "wait", **(waited or {"load_state": "load"})})
        elif kind == "extract":
            parse_schema(step["schema"])
            entries.append({"kind": "expect_rows", "selector": selector, "count": None, "first": {}, "frame": frame})
        elif kind in ("fill", "type"):
            entries.append({**base, "value": {"text": str(step.get("value", step.get("text", "")))}})
        elif kind == "select":
            by = next((k for k in ("label", "text") if step.get(k) is not None), "value")
            option = {"by": "value" if by == "value" else "label", "text": str(step[by])}
            entries.append({**base, "option": option})
        elif kind == "drag":
            entries.append({**base, "target": css_locator(str(step["target"]))})
        elif kind == "press":
            entries.append({**base, "key": step["key"]})
        elif kind == "delay":
            entries.append({"kind": "note", "text": f"the workflow paused {step['ms']} ms here"})
        elif kind in ("dismiss_overlays", "if_exists"):
            entries.append({"kind": "note", "text": f"a {kind} step of the workflow: not part of this test"})
        elif kind in ("back", "forward", "reload"):
            entries.append({"kind": kind})
        else:
            entries.append({**base, **{k: step[k] for k in ("button", "click_count", "modifiers") if step.get(k)}})
    return entries


def _with_defaults(value: Any, params: dict[str, str]) -> Any:
    """A step's {{param}} filled with the workflow's default (a test has no --param); secrets stay."""
    if not isinstance(value, str):
        return value

    def fill(match: re.Match[str]) -> str:
        return match.group(0) if match.group(1) or match.group(2) not in params else params[match.group(2)]

    return PLACEHOLDER.sub(fill, value)
