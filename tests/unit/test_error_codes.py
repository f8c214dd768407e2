"""The contract's error codes are pinned: engine/errors.py's `ErrorCode` is exactly the list the README
names (the contract's own list, interface.md "### Error codes", which lives outside the repository and was
compared with it when this test was written), and every code the app or the extension raises is one of them.

The list is parsed from the README, not copied here, so a code added, renamed or dropped on either side
fails a test until both sides say the same.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path
from typing import get_args

from tabpilot.engine.errors import ERROR_CODES, ErrorCode

ROOT = Path(__file__).resolve().parents[2]
DESKTOP = ROOT / "desktop" / "tabpilot"
EXTENSION = ROOT / "extension"

CODE = re.compile(r"`([a-z_]+)`")


def codes_after(text: str, start: str) -> list[str]:
    """The backticked names of the sentence that follows `start`, leaving out remarks in parentheses
    (`internal` (with a `log_ref` ...))."""
    at = text.index(start) + len(start)
    sentence = re.split(r"\.\s|\n\s*\n", re.sub(r"\([^)]*\)", "", text[at:]), maxsplit=1)[0]
    return CODE.findall(sentence)


def assert_same_codes(listed: list[str], where: str) -> None:
    assert len(listed) == len(set(listed)), f"{where} names a code twice: {listed}"
    assert set(listed) == ERROR_CODES, (
        f"{where} and engine/errors.py disagree: only in {where}: {sorted(set(listed) - ERROR_CODES)}; "
        f"only in errors.py: {sorted(ERROR_CODES - set(listed))}"
    )


def test_error_code_is_the_readmes_list() -> None:
    assert_same_codes(codes_after((ROOT / "README.md").read_text(encoding="utf-8"), "Error codes:"), "README.md")


def test_error_code_names_each_code_once() -> None:
    assert len(get_args(ErrorCode)) == len(ERROR_CODES)


def test_the_contract_parser_reads_only_the_code_paragraph() -> None:
    text = "### Error codes\n`a_code`, `other` (with `b`).\n`not_a_code` comes later.\n"
    assert codes_after(text, "### Error codes") == ["a_code", "other"]


def raised_codes(tree: ast.AST) -> Iterator[tuple[int, str | None]]:
    """(line, code) of every `TabpilotError(...)`: the code when it is written as a string, else None."""
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", None)
        if name != "TabpilotError":
            continue
        code = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "code"), None)
        yield node.lineno, code.value if isinstance(code, ast.Constant) and isinstance(code.value, str) else None


def test_every_code_the_app_raises_is_in_the_contract() -> None:
    unknown, seen = [], set()
    for path in sorted(DESKTOP.rglob("*.py")):
        for line, code in raised_codes(ast.parse(path.read_text(encoding="utf-8"))):
            where = f"{path.relative_to(ROOT)}:{line}"
            if code is None:
                # A code passed on (a caught error's, a parameter typed ErrorCode) is checked by mypy.
                continue
            seen.add(code)
            if code not in ERROR_CODES:
                unknown.append(f"{where} raises {code!r}")
    assert not unknown, "codes outside the contract: " + "; ".join(unknown)
    assert len(seen) > 10, "the scan found almost no TabpilotError(...): has the class been renamed?"


def test_the_scan_finds_a_code_outside_the_contract() -> None:
    tree = ast.parse('raise TabpilotError("no_such_code", "x")\nraise e.TabpilotError(code="timeout", message="y")')
    assert [code for _, code in raised_codes(tree)] == ["no_such_code", "timeout"]


def test_every_code_the_extension_raises_is_in_the_contract() -> None:
    # The service worker's `Codes` table, and the codes the in-page scripts throw as strings.
    protocol = (EXTENSION / "background" / "protocol.js").read_text(encoding="utf-8")
    table = re.search(r"export const Codes = Object\.freeze\(\{(.*?)\}\)", protocol, re.S)
    assert table, "extension/background/protocol.js has no `Codes` table"
    codes = {f"Codes: {c}" for c in re.findall(r':\s*"([a-z_]+)"', table.group(1))}
    for path in sorted((EXTENSION / "content").rglob("*.js")) + sorted((EXTENSION / "background").rglob("*.js")):
        text = path.read_text(encoding="utf-8")
        codes |= {f"{path.relative_to(ROOT)}: {c}" for c in re.findall(r'(?:PageError|TPError)\(\s*"([a-z_]+)"', text)}
    assert len(codes) > 5
    unknown = sorted(c for c in codes if c.rsplit(": ", 1)[1] not in ERROR_CODES)
    assert not unknown, f"codes outside the contract: {unknown}"
