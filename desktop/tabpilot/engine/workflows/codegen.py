"""A saved workflow as a Playwright (Python) script a person could have written: the same steps as
straight-line code with Playwright's own locators and waits, and nothing of the extension in it.

Extraction reads each page's rows with one `eval_on_selector_all` and a short reader (READ_ROWS_JS)
that takes the fields as data; numbers and booleans are converted in Python. Elements the
redaction settings name (passwords, [data-sensitive], ...) read as [REDACTED], as in Tabpilot.
Only the helpers a workflow needs are written: a plain 10-step workflow stays well under 10 KB.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tabpilot.engine.workflows.extract_spec import parse_schema
from tabpilot.engine.workflows.pycode import (
    css_locator,
    doc_text,
    locator_code,
    one_line,
    py,
    secret_env,
    secret_helper,
    secret_names,
    uses_params,
    uses_secrets,
    value_expr,
)
from tabpilot.engine.workflows.workflows import Workflow, walk_steps

ELEMENT_TIMEOUT_MS = 10_000
NAVIGATION_TIMEOUT_MS = 30_000
DEFAULT_REDACT = ("input[type=password]", "[data-sensitive]", "[data-private]", ".sensitive")


@dataclass
class Script:
    """What the steps' code needs besides itself: helpers, imports, constants (each written once)."""

    helpers: set[str] = field(default_factory=set)
    constants: list[str] = field(default_factory=list)
    timeout_factor: int = 1
    """retry_step: a step that times out is tried again, so each step may wait that many times as long."""

    def timeout(self, step: dict[str, Any], default: int) -> str:
        """`, timeout=N` when the step waits longer or shorter than the script's default."""
        ms = step.get("timeout_ms")
        return "" if ms is None or ms == default else f", timeout={int(ms) * self.timeout_factor:_}"

    def value(self, text: str) -> str:
        if uses_secrets(text):
            self.helpers.add("secret")
        return value_expr(text)


Emit = Callable[[dict[str, Any], str, Script], list[str]]
"""(step, where its elements are — `page` or a frame —, the script) → the lines that do the step."""


def _el(step: dict[str, Any], scope: str, key: str = "selector") -> str:
    return locator_code(css_locator(str(step[key])), scope)


def _navigate(step: dict[str, Any], scope: str, s: Script) -> list[str]:
    extra = f", wait_until={py(step['wait_until'])}" if step.get("wait_until", "load") != "load" else ""
    return [f"page.goto({s.value(step['url'])}{extra}{s.timeout(step, NAVIGATION_TIMEOUT_MS)})"]


def _wait(step: dict[str, Any], scope: str, s: Script) -> list[str]:
    state = step.get("state", "visible")
    how = "" if state == "visible" else f"state={py(state)}"
    wait = f"wait_for({how}{s.timeout(step, ELEMENT_TIMEOUT_MS)})".replace("(, ", "(")
    return [f"{_el(step, scope)}.{wait}"]


def _click(step: dict[str, Any], scope: str, s: Script) -> list[str]:
    extra = ""
    if step.get("button", "left") != "left":
        extra += f"button={py(step['button'])}, "
    if step.get("modifiers"):
        extra += f"modifiers={py(step['modifiers'])}, "
    verb = "dblclick" if step.get("click_count") == 2 else "click"
    if step.get("click_count") == 3:
        extra += "click_count=3, "
    args = (extra + s.timeout(step, ELEMENT_TIMEOUT_MS).lstrip(", ")).rstrip(", ")
    return [f"{_el(step, scope)}.{verb}({args})"]


def _fill(step: dict[str, Any], scope: str, s: Script) -> list[str]:
    return [f"{_el(step, scope)}.fill({s.value(step['value'])}{s.timeout(step, ELEMENT_TIMEOUT_MS)})"]


def _type(step: dict[str, Any], scope: str, s: Script) -> list[str]:
    return [f"{_el(step, scope)}.press_sequentially({s.value(step['text'])}{s.timeout(step, ELEMENT_TIMEOUT_MS)})"]


def _press(step: dict[str, Any], scope: str, s: Script) -> list[str]:
    if step.get("selector"):
        return [f"{_el(step, scope)}.press({py(step['key'])}{s.timeout(step, ELEMENT_TIMEOUT_MS)})"]
    return [f"page.keyboard.press({py(step['key'])})"]


def _select(step: dict[str, Any], scope: str, s: Script) -> list[str]:
    # Playwright's label is the option's label, which is its text when it has no label attribute.
    by = next((key for key in ("label", "text") if step.get(key) is not None), "value")
    keyword = "value" if by == "value" else "label"
    chosen = s.value(str(step[by]))
    return [f"{_el(step, scope)}.select_option({keyword}={chosen}{s.timeout(step, ELEMENT_TIMEOUT_MS)})"]


def _scroll(step: dict[str, Any], scope: str, s: Script) -> list[str]:
    dx, dy = step.get("delta_x") or 0, step.get("delta_y") or 0
    if step.get("selector") and (dx or dy):
        return [f'{_el(step, scope)}.evaluate("(el) => el.scrollBy({dx}, {dy})")']
    if step.get("selector"):
        return [f"{_el(step, scope)}.scroll_into_view_if_needed()"]
    if dx or dy:
        return [f"page.mouse.wheel({dx}, {dy})"]
    if step.get("to") == "top":
        return ['page.evaluate("window.scrollTo(0, 0)")']
    return ['page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")']


def _simple(method: str) -> Emit:
    def emit(step: dict[str, Any], scope: str, s: Script) -> list[str]:
        return [f"{_el(step, scope)}.{method}({s.timeout(step, ELEMENT_TIMEOUT_MS).lstrip(', ')})"]

    return emit


def _drag(step: dict[str, Any], scope: str, s: Script) -> list[str]:
    return [f"{_el(step, scope)}.drag_to({_el(step, scope, 'target')})"]


def _wait_for(step: dict[str, Any], scope: str, s: Script) -> list[str]:
    if step.get("selector"):
        return _wait({**step, "state": step.get("state") or "visible"}, scope, s)
    if step.get("text") is not None:
        wait = f"wait_for({s.timeout(step, ELEMENT_TIMEOUT_MS)[2:]})"
        return [f"{scope}.get_by_text({s.value(step['text'])}).first.{wait}"]
    if step.get("url") is not None:
        return [f"page.wait_for_url({_url_pattern(str(step['url']), s)}{s.timeout(step, ELEMENT_TIMEOUT_MS)})"]
    state = "networkidle" if step.get("network_idle") else "load"
    return [f"page.wait_for_load_state({py(state)})"]


def _url_pattern(pattern: str, s: Script) -> str:
    """Tabpilot's URL patterns in Playwright's terms: a glob (* and **) is one already; /regex/ and a
    substring of the URL become a regular expression."""
    if len(pattern) > 2 and pattern.startswith("/") and pattern.rfind("/") > 0:
        s.helpers.add("re")
        return f"re.compile({py(pattern[1 : pattern.rfind('/')])})"
    if "*" in pattern or "?" in pattern:
        return py(pattern)
    s.helpers.add("re")
    return f"re.compile({py(re.escape(pattern))})"


def _history(method: str) -> Emit:
    def emit(step: dict[str, Any], scope: str, s: Script) -> list[str]:
        return [f"page.{method}()"]

    return emit


def _dismiss_overlays(step: dict[str, Any], scope: str, s: Script) -> list[str]:
    s.helpers.add("dismiss_overlays")
    return ["dismiss_overlays(page)"]


def _delay(step: dict[str, Any], scope: str, s: Script) -> list[str]:
    return [f"page.wait_for_timeout({int(step['ms'])})"]


def _extract(step: dict[str, Any], scope: str, s: Script) -> list[str]:
    s.helpers.add("extract")
    fields: dict[str, tuple[str, ...]] = {}
    for spec in parse_schema(step["schema"]).fields:
        ops = tuple(op["op"] + (f":{op['name']}" if op["op"] == "attr" else "") for op in spec.ops)
        fields[spec.name] = (spec.selector, *ops)
        if any(op in ("number", "boolean") for op in ops):
            s.helpers.add("convert")
    name = f"FIELDS_{len(s.constants) + 1}"
    s.constants.append(f"{name} = {py(fields)}")
    lines = []
    if step.get("wait_for"):
        lines += [f"{_el({'selector': step['wait_for']}, scope)}.wait_for({s.timeout(step, ELEMENT_TIMEOUT_MS)[2:]})"]
    paginate = step.get("paginate")
    more = ""
    if paginate:
        s.helpers.add("next_page")
        more = f", paginate={py(paginate)}"
    lines.append(f"rows += extract({scope}, {py(step['selector'])}, {name}{more})")
    return lines


EMITTERS: dict[str, Emit] = {
    "navigate": _navigate,
    "wait": _wait,
    "click": _click,
    "fill": _fill,
    "type": _type,
    "press": _press,
    "select": _select,
    "scroll": _scroll,
    "check": _simple("check"),
    "uncheck": _simple("uncheck"),
    "hover": _simple("hover"),
    "focus": _simple("focus"),
    "drag": _drag,
    "wait_for": _wait_for,
    "back": _history("go_back"),
    "forward": _history("go_forward"),
    "reload": _history("reload"),
    "dismiss_overlays": _dismiss_overlays,
    "delay": _delay,
    "extract": _extract,
}
"""One emitter per step kind (if_exists, a block of steps, is _step_code's own); a test checks that every
step kind of engine/contract/steps.py has one."""
BLOCK_KINDS = ("if_exists",)


# -- the helpers a script may need ------------------------------------------------------------------

HELPERS: dict[str, str] = {
    "frame_of": '''
def frame_of(page: Page, frame: str) -> Frame:
    """A step's frame, as Tabpilot finds it: a frame's name, an <iframe>'s CSS selector or a URL pattern."""
    found = page.frame(name=frame)
    if found is None:
        try:
            handle = page.query_selector(frame)
            found = handle.content_frame() if handle else None
        except Error:
            found = None  # not a selector: a URL pattern
    found = found or page.frame(url=re.compile(".*".join(re.escape(p) for p in frame.split("*"))))
    if found is None:
        raise RuntimeError(f"no frame matches {frame!r}")
    return found
''',
    "dismiss_overlays": '''
def dismiss_overlays(page: Page) -> None:
    """Cookie banners and modals: a visible accept or close button is clicked (simpler than Tabpilot's)."""
    words = re.compile(r"^\\s*(accept|agree|allow all|ok|got it|close|dismiss|no thanks)\\b", re.I)
    for button in page.get_by_role("button", name=words).all():
        if button.is_visible():
            button.click()
''',
    "extract": '''
READ_ROWS_JS = """(rows, [fields, redact]) => {
  const clean = (s) => s.replace(/\\\\s+/g, " ").trim();
  const scrubbed = (el) => {
    const copy = el.cloneNode(true);
    copy.querySelectorAll(redact).forEach((s) => s.replaceWith(" [REDACTED] "));
    return copy;
  };
  const text = (el) => {
    if (el.matches("input, textarea")) return el.value;
    if (el.matches("select")) return [...el.selectedOptions].map((o) => clean(o.text)).join(", ") || null;
    return clean((el.querySelector(redact) ? scrubbed(el) : el).textContent);
  };
  const toggle = (el) => {
    if (el.matches("input[type=checkbox], input[type=radio]")) return el.checked;
    const aria = el.getAttribute("aria-checked") ?? el.getAttribute("aria-pressed");
    if (aria !== null) return aria === "true" ? true : aria === "false" ? false : null;
    const inside = el.querySelectorAll("input[type=checkbox], input[type=radio]");
    const word = /\\\\b(yes|no|true|false|on|off)\\\\b/i.test(text(el));
    return inside.length === 1 && !word ? inside[0].checked : text(el);
  };
  const read = (el, how) => {
    if (el.closest(redact)) return "[REDACTED]";
    if (how === "html") return (el.querySelector(redact) ? scrubbed(el) : el).innerHTML;
    if (how.startsWith("attr:")) return el.getAttribute(how.slice(5));
    return how === "boolean" ? toggle(el) : text(el);
  };
  return rows.map((row) => Object.fromEntries(Object.entries(fields).map(([name, [selector, how]]) => {
    const el = !selector ? row : row.querySelector(/^\\\\s*[>+~]/.test(selector) ? `:scope ${selector}` : selector);
    return [name, el ? read(el, how) : null];
  })));
}"""
''',
    "convert": '''
def converted(value, ops: tuple) -> object:
    """A field's value after its conversions (`number`, `boolean`), as Tabpilot converts it."""
    for op in ops:
        if value is None or value == "[REDACTED]":
            return value
        if op == "number":
            value = to_number(value)
        elif op == "boolean":
            value = to_boolean(value)
        elif op == "text" and not isinstance(value, str):
            value = str(value).lower() if isinstance(value, bool) else str(value)
    return value


NUMBER = re.compile(r"\\d(?:[\\d.,' \\u00a0\\u202f\\u2009]*\\d)?")
SPACES = r"[ '\\u00a0\\u202f\\u2009]"


def to_number(value) -> float | int | None:
    """The first number written in `value`: 1,234.50 and 1.234,50 alike, a leading minus or (accounting)."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int | float):
        return value
    text = str(value).replace("\\u2212", "-")
    match = NUMBER.search(text)
    if not match:
        return None
    token = match.group()
    if re.search(SPACES, token):
        grouped = re.fullmatch(r"\\d{1,3}(?:[ '\\u00a0\\u202f\\u2009]\\d{3})+(?:[.,]\\d+)?", token)
        token = re.sub(SPACES, "", token) if grouped else re.split(SPACES, token)[0]
    if "." in token and "," in token:
        decimal = "." if token.rfind(".") > token.rfind(",") else ","
        token = token.replace("," if decimal == "." else ".", "").replace(decimal, ".")
    elif "," in token:
        parts = token.split(",")
        token = "".join(parts) if len(parts) > 2 or len(parts[1]) == 3 else ".".join(parts)
    elif token.count(".") > 1:
        token = token.replace(".", "")
    number = float(token)
    before, after = text[: match.start()], text[match.end() :]
    exponent = re.match(r"[eE]([-+]?\\d+)", after)
    if exponent:
        number *= 10 ** int(exponent.group(1))
    accounting = re.search(r"\\(\\s*\\W?$", before) and re.match(r"\\s*\\W?\\)", after)
    if re.search(r"(?:^|[^\\w-])-\\W?$", before) or accounting:
        number = -number
    return int(number) if number.is_integer() else number


def to_boolean(value) -> bool | None:
    if isinstance(value, bool) or value is None:
        return value
    word = str(value).strip().lower()
    if word in ("yes", "true", "on", "y", "1"):
        return True
    return False if word in ("no", "false", "off", "n", "0") else None
''',
    "next_page": '''
def next_page(page: Page | Frame, rows_selector: str, paginate: dict) -> bool:
    """Click the next-page control when it is there and enabled; True once the rows changed."""
    button = page.locator(paginate["next_selector"]).first
    off = "b => b.matches(':disabled, [aria-disabled=true], .disabled') || !!b.parentElement?.matches('.disabled')"
    if not button.is_visible() or button.evaluate(off):
        return False
    rows = page.locator(rows_selector)
    before = rows.first.text_content()
    button.click()
    try:
        expect(rows.first).not_to_have_text(before or "", timeout=paginate.get("timeout_ms", 10_000))
    except AssertionError:
        return False
    page.wait_for_timeout(paginate.get("delay_ms", 500))
    return True
''',
}
HELPER_ORDER = ("frame_of", "dismiss_overlays", "extract", "convert", "next_page")


def _extract_function(*, convert: bool, paginate: bool) -> str:
    """`extract` as this script needs it: only a script with a number or boolean field calls `converted`,
    only one with a paginated extraction calls `next_page` (nothing named in the file is left undefined)."""
    rows = "[{name: converted(row[name], fields[name][1:]) for name in fields} for row in rows]" if convert else "rows"
    read = "page.eval_on_selector_all(selector, READ_ROWS_JS, [fields, REDACT])"
    if not paginate:
        return (
            "def extract(page: Page | Frame, selector: str, fields: dict) -> list[dict]:\n"
            '    """The rows `selector` matches, a field each as `fields` says: (selector in the row, how to read\n'
            '    it, then conversions)."""\n'
            f"    rows = {read}\n"
            f"    return {rows}\n"
        )
    return (
        "def extract(page: Page | Frame, selector: str, fields: dict, paginate: dict | None = None) -> list[dict]:\n"
        '    """The rows `selector` matches, a field each as `fields` says: (selector in the row, how to read\n'
        '    it, then conversions). With `paginate`, the next pages\' rows too."""\n'
        "    found: list[dict] = []\n"
        '    for _ in range(paginate.get("max_pages", 5) if paginate else 1):\n'
        f"        rows = {read}\n"
        f"        found += {rows}\n"
        "        if not paginate or not rows or not next_page(page, selector, paginate):\n"
        "            break\n"
        "    return found\n"
    )


# -- the steps --------------------------------------------------------------------------------------


def _describe(step: dict[str, Any]) -> str:
    return one_line(step.get("description") or "")


def _step_code(step: dict[str, Any], indent: str, s: Script, guard: bool, number: str) -> list[str]:
    kind = step["type"]
    lines = [f"{indent}# {_describe(step)}"] if _describe(step) else []
    if kind in BLOCK_KINDS:
        sel = py(step["selector"])
        lines.append(f"{indent}if page.locator({sel}).count() > 0:")
        lines += _block(step.get("then") or [], indent + "    ", s, guard, f"{number}.then")
        if step.get("else"):
            lines.append(f"{indent}else:")
            lines += _block(step["else"], indent + "    ", s, guard, f"{number}.else")
        return lines
    scope = "page"
    if step.get("frame"):
        s.helpers.add("frame_of")
        scope = f"frame_of(page, {py(step['frame'])})"
    code = EMITTERS[kind](step, scope, s)  # check_steps refuses unknown kinds before a workflow is saved
    if guard:
        what = f"step {number} ({kind})"
        lines.append(f"{indent}with tolerated({py(what)}):")
        return lines + [f"{indent}    {line}" for line in code]
    return lines + [f"{indent}{line}" for line in code]


def _block(steps: list[dict[str, Any]], indent: str, s: Script, guard: bool, prefix: str) -> list[str]:
    lines: list[str] = []
    for i, step in enumerate(steps):
        lines += _step_code(step, indent, s, guard, f"{prefix}[{i}]" if prefix else str(i))
    return lines or [f"{indent}pass"]


def _tolerated(on_timeout: str, on_failure: str) -> str:
    clauses = []
    if on_timeout == "skip":
        clauses.append('    except PlaywrightTimeout:\n        print(f"{step} timed out; skipped", file=sys.stderr)')
    elif on_timeout == "abort" and on_failure == "continue":
        clauses.append("    except PlaywrightTimeout:\n        raise")
    if on_failure == "continue":
        clauses.append('    except Error as exc:\n        print(f"{step} failed: {exc}; going on", file=sys.stderr)')
    return (
        "@contextmanager\ndef tolerated(step: str) -> Iterator[None]:\n"
        '    """The workflow\'s error_recovery for one step."""\n    try:\n        yield\n' + "\n".join(clauses) + "\n"
    )


def playwright_script(workflow: Workflow, *, redact: tuple[str, ...] = DEFAULT_REDACT) -> str:
    """The workflow as a runnable script (see the module's doc)."""
    recovery = workflow.error_recovery
    s = Script(timeout_factor=1 + recovery.max_retries if recovery.on_timeout == "retry_step" else 1)
    guard = recovery.on_timeout == "skip" or recovery.on_failure == "continue"
    body = _block(workflow.steps, "    ", s, guard, "")
    texts = [str(v) for step in walk_steps(workflow.steps) for v in step.values() if isinstance(v, str)]
    has_params = any(uses_params(t) for t in texts)
    helpers = [HELPERS[name] for name in HELPER_ORDER if name in s.helpers]  # "re" is an import only
    if "secret" in s.helpers:
        helpers.insert(0, secret_helper("sys.exit"))
    if "extract" in s.helpers:
        reader = _extract_function(convert="convert" in s.helpers, paginate="next_page" in s.helpers)
        helpers.insert(helpers.index(HELPERS["extract"]) + 1, reader)
    if guard:
        helpers.append(_tolerated(recovery.on_timeout, recovery.on_failure))
    filename = f"{doc_text(workflow.workflow_id)}.py"
    origin = f", recorded on {doc_text(workflow.origin)}" if workflow.origin else ""
    keyring = " keyring" if "secret" in s.helpers else ""  # optional: secrets may come from the environment
    usage = f"python {filename}{' [--param NAME=VALUE ...]' if has_params else ''} [--headed] [--out rows.json]"
    needs_re = bool(s.helpers & {"re", "frame_of", "dismiss_overlays", "convert"})
    sync_api = ["Error", "Page", "sync_playwright"]
    if "frame_of" in s.helpers or "extract" in s.helpers:
        sync_api.insert(1, "Frame")
    if "next_page" in s.helpers:
        sync_api.append("expect")
    if guard and recovery.on_timeout in ("skip", "abort"):
        sync_api.append("TimeoutError as PlaywrightTimeout")
    imports = ["argparse", "json", "os"] + (["re"] if needs_re else []) + ["sys"]
    typing_imports = ["Iterator"] if guard else []
    head = [
        "#!/usr/bin/env python3",
        f'"""{doc_text(workflow.name)}: the Tabpilot workflow {doc_text(workflow.workflow_id)} as a Playwright '
        f"script{origin}.",
        "",
        f"    {usage}",
        "",
        "It prints the rows its extract steps read as JSON. Needs `pip install playwright" + keyring + "` and a",
        "Chromium: `playwright install chromium`, or TABPILOT_BROWSER=/path/to/chromium.",
    ]
    if "secret" in s.helpers:
        variables = ", ".join(secret_env(name) for name in secret_names(texts))
        head += [
            '{{secret:NAME}} values come from the OS keyring (service "tabpilot") or, where it has none or there is',
            f"no keyring, from the environment: {variables}. None is written here.",
        ]
    head += ['"""', "", "from __future__ import annotations", ""]
    head += [f"import {name}" for name in imports]
    if typing_imports:
        head += [f"from collections.abc import {', '.join(typing_imports)}"]
    if guard:
        head += ["from contextlib import contextmanager"]
    head += ["", f"from playwright.sync_api import {', '.join(sync_api)}", ""]
    if has_params:
        head += [f"PARAMS = {py(dict(workflow.params))}  # the workflow's {{{{param}}}} defaults; --param overrides"]
    if "extract" in s.helpers:
        head += ["# What Tabpilot's redaction settings read as [REDACTED]:", f"REDACT = {py(', '.join(redact))}"]
    head += s.constants
    run_args = "page: Page, params: dict[str, str], rows: list[dict]" if has_params else "page: Page, rows: list[dict]"
    timeouts = []
    if s.timeout_factor != 1:
        timeouts.append(f"    # error_recovery retry_step: each step may wait {s.timeout_factor} times its timeout")
    timeouts += [
        f"    page.set_default_timeout({ELEMENT_TIMEOUT_MS * s.timeout_factor:_})",
        f"    page.set_default_navigation_timeout({NAVIGATION_TIMEOUT_MS * s.timeout_factor:_})",
    ]
    run = [f"def run({run_args}) -> None:", *timeouts, *body]
    parts = ["\n".join(head), *helpers, "\n".join(run), _main(workflow, has_params)]
    return "\n\n\n".join(part.strip("\n") for part in parts) + "\n"


def _main(workflow: Workflow, has_params: bool) -> str:
    abort = workflow.error_recovery.on_failure == "abort"
    lines = [
        "",
        "",
        "def main() -> int:",
        f"    parser = argparse.ArgumentParser(description={py(workflow.name)})",
    ]
    if has_params:
        lines.append('    parser.add_argument("--param", action="append", default=[], metavar="NAME=VALUE")')
    lines += [
        '    parser.add_argument("--headed", action="store_true", help="show the browser window")',
        '    parser.add_argument("--out", help="write the rows to this file instead of printing them")',
        "    args = parser.parse_args()",
    ]
    if has_params:
        lines.append('    params = PARAMS | dict(item.partition("=")[::2] for item in args.param)')
    call = "run(page, params, rows)" if has_params else "run(page, rows)"
    lines += [
        "    rows: list[dict] = []",
        "    failed = None",
        "    with sync_playwright() as pw:",
        "        browser = pw.chromium.launch(",
        '            executable_path=os.environ.get("TABPILOT_BROWSER") or None,',
        "            headless=not args.headed,",
        "        )",
        "        page = browser.new_page()",
        "        try:",
        f"            {call}",
        "        except Error as exc:",
        "            failed = str(exc)",
        "        finally:",
        "            browser.close()",
    ]
    if abort:
        lines += ["    if failed:", "        print(failed, file=sys.stderr)", "        return 2"]
    lines += [
        "    text = json.dumps(rows, indent=2, ensure_ascii=False)",
        "    if args.out:",
        '        with open(args.out, "w", encoding="utf-8") as out:',
        '            out.write(text + "\\n")',
        "    else:",
        "        print(text)",
    ]
    if not abort:
        lines += ["    if failed:", "        print(failed, file=sys.stderr)", "        return 1"]
    lines += ["    return 0", "", "", 'if __name__ == "__main__":', "    sys.exit(main())"]
    return "\n".join(lines)
