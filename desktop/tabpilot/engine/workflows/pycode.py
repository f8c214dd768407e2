"""Pieces of Python source for the generated Playwright code (engine/workflows/codegen.py, engine/workflows/testgen.py):
literals, values with `{{param}}` / `{{secret:NAME}}` placeholders, and locators.

A locator is what the page said about an element when it was acted on (`dom.describe`,
content/snapshot.js) or, without that, the CSS selector: `{"by": "role", "role": "button", "name":
"Search"}`, `{"by": "label", "label": "Email"}`, `{"by": "placeholder" | "text" | "test_id", ...}`,
`{"by": "css", "css": "#go", "first": true}`.
"""

from __future__ import annotations

import json
import re
from typing import Any

from tabpilot.engine.contract.placeholders import PLACEHOLDER

_ID_ONLY = re.compile(r"^#[A-Za-z_][\w-]*$")
_ENV_UNSAFE = re.compile(r"[^A-Z0-9]+")


def py(value: Any) -> str:
    """A Python literal for a JSON value, strings in double quotes as a person writes them."""
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if value is None or isinstance(value, bool):
        return repr(value)
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, tuple):
        return (
            "(" + "".join(f"{py(v)}, " for v in value).rstrip(" ") + ")"
            if len(value) == 1
            else ("(" + ", ".join(py(v) for v in value) + ")")
        )
    if isinstance(value, list):
        return "[" + ", ".join(py(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{py(str(k))}: {py(v)}" for k, v in value.items()) + "}"
    return py(str(value))


def env_name(*hints: str | None) -> str:
    """An environment variable's name for a value the code must not hold (a password typed in plain)."""
    for hint in hints:
        if hint:
            name = _ENV_UNSAFE.sub("_", hint.upper()).strip("_")
            if name:
                return name if not name[0].isdigit() else f"V_{name}"
    return "PASSWORD"


def value_expr(text: str, *, params: str = "params") -> str:
    """`text` as a Python expression: a literal, `params["q"]`, `secret("NAME")` or an f-string mixing them."""
    parts: list[tuple[str, str]] = []  # ("lit", text) | ("code", expression)
    last = 0
    for match in PLACEHOLDER.finditer(text):
        if match.start() > last:
            parts.append(("lit", text[last : match.start()]))
        name = match.group(2)
        parts.append(("code", f"secret({py(name)})" if match.group(1) else f"{params}[{py(name)}]"))
        last = match.end()
    if last < len(text):
        parts.append(("lit", text[last:]))
    if not any(kind == "code" for kind, _ in parts):
        return py(text)
    if len(parts) == 1:
        return parts[0][1]
    body = ""
    for kind, piece in parts:
        if kind == "code":
            body += "{" + piece.replace('"', "'") + "}"
        else:
            body += json.dumps(piece, ensure_ascii=False)[1:-1].replace("{", "{{").replace("}", "}}")
    return f'f"{body}"'


def uses_secrets(text: str) -> bool:
    return any(m.group(1) for m in PLACEHOLDER.finditer(text))


def uses_params(text: str) -> bool:
    return any(not m.group(1) for m in PLACEHOLDER.finditer(text))


def css_locator(selector: str) -> dict[str, Any]:
    """A CSS selector as a locator: the first match, as Tabpilot acts on it (an #id is one element anyway)."""
    return {"by": "css", "css": selector, "first": not _ID_ONLY.match(selector.strip())}


def locator_code(loc: dict[str, Any], scope: str = "page") -> str:
    """The Playwright locator for `loc`, on `scope` (a page, a frame or a frame locator)."""
    by = loc.get("by")
    exact = ", exact=True" if loc.get("exact") else ""
    if by == "role":
        name = loc.get("name")
        named = f", name={py(name)}{exact}" if name else ""
        code = f"{scope}.get_by_role({py(loc['role'])}{named})"
    elif by == "label":
        code = f"{scope}.get_by_label({py(loc['label'])}{exact})"
    elif by == "placeholder":
        code = f"{scope}.get_by_placeholder({py(loc['placeholder'])}{exact})"
    elif by == "text":
        code = f"{scope}.get_by_text({py(loc['text'])}{exact})"
    elif by == "test_id":
        code = f"{scope}.get_by_test_id({py(loc['test_id'])})"
    else:
        code = f"{scope}.locator({py(str(loc.get('css', '')))})"
    if loc.get("nth"):
        return f"{code}.nth({int(loc['nth'])})"
    return f"{code}.first" if loc.get("first") else code


def frame_scope(frame: str | dict[str, Any] | None) -> str:
    """Where a step in `frame` finds its elements: an <iframe>'s CSS selector (a workflow's), or what the
    recorder found — the <iframe>'s locator, a frame's name or URL pattern."""
    if not frame:
        return "page"
    if isinstance(frame, str):
        return f"page.frame_locator({py(frame)})"
    if isinstance(frame.get("locator"), dict):
        return f"{locator_code(frame['locator'])}.content_frame"
    if "name" in frame:
        return f"page.frame(name={py(frame['name'])})"
    if "url" in frame:
        return f"page.frame(url={py(str(frame['url']))})"
    return "page"  # a frame ref (@f12) nobody could describe: the top document is the best guess


def secret_names(texts: list[str]) -> list[str]:
    """The `{{secret:NAME}}` names in `texts`, each once, in order."""
    names = [m.group(2) for text in texts for m in PLACEHOLDER.finditer(text) if m.group(1)]
    return list(dict.fromkeys(names))


def secret_env(name: str) -> str:
    """The environment variable generated code reads a `{{secret:NAME}}` from when the OS keyring has none
    or the machine has no keyring (Tabpilot then keeps its secrets in its own file vault, which a script
    cannot open): TABPILOT_SECRET_ and the name in upper case, `.` and `-` as `_`."""
    return "TABPILOT_SECRET_" + name.upper().replace(".", "_").replace("-", "_")


def secret_helper(give_up: str) -> str:
    """The `secret(name)` function of a generated script (`give_up`: "sys.exit") or test ("pytest.skip"):
    the OS keyring first, as Tabpilot reads it, then the variable secret_env names; a value is never written."""
    return (
        "def secret(name: str) -> str:\n"
        '    """A {{secret:NAME}}: from the OS keyring (service "tabpilot"), as Tabpilot reads it, else from the\n'
        '    environment variable TABPILOT_SECRET_<NAME> (upper case, . and - as _)."""\n'
        '    variable = "TABPILOT_SECRET_" + name.upper().replace(".", "_").replace("-", "_")\n'
        "    try:\n"
        "        import keyring\n"
        "\n"
        '        value = keyring.get_password("tabpilot", name)\n'
        "    except Exception:  # no keyring package, or no keyring on this machine (NoKeyringError)\n"
        "        value = None\n"
        "    if value is None:\n"
        "        value = os.environ.get(variable)\n"
        "    if value is None:\n"
        f"        {give_up}(\n"
        "            f\"The secret {name!r} is neither in the OS keyring (service 'tabpilot': \"\n"
        '            f"keyring set tabpilot {name}) nor in the environment variable {variable}."\n'
        "        )\n"
        "    return value\n"
    )


def one_line(text: Any) -> str:
    """`text` fit for a `#` comment: one line (a description or a selector may hold line breaks, which
    would end the comment and make the rest code)."""
    return " ".join(str(text).split())


def doc_text(text: Any) -> str:
    """`text` fit for a line of a docstring: one line, backslashes doubled (`\\N` would not compile) and no
    closing triple quote."""
    return one_line(text).replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
