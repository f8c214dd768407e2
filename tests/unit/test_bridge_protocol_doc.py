"""docs/bridge-protocol.md is written by hand (what each operation does, which the definitions cannot say),
so these tests keep it beside engine/contract/operations.py: every operation has its entry there, every entry is
an operation, and an entry names the operation's parameters."""

from __future__ import annotations

import re
from pathlib import Path

from tabpilot.engine.contract.operations import OPERATIONS, Operation

DOC = Path(__file__).resolve().parents[2] / "docs" / "bridge-protocol.md"
GENERAL = {"tab_id", "frame"}
"""Parameters the doc describes once for every operation (## Operations, *Selectors, refs and frames*)."""

# An operation's entry: a table row `| `op` | params | result |`, a heading `### `op``, or a paragraph
# that starts by naming it: `op` (`param`) → result.
OP = r"[a-z0-9_]+\.[a-z0-9_]+"  # group.name
ENTRY = re.compile(rf"^(?:\| `(?P<row>{OP})` \||#+ `(?P<head>{OP})`|`(?P<para>{OP})` \()")


def entries(text: str) -> dict[str, str]:
    """Each operation the doc's Operations part (and what follows it) describes, with its entry's line."""
    found: dict[str, str] = {}
    for line in text[text.index("\n## Operations") :].splitlines():
        match = ENTRY.match(line)
        if match:
            name = match.group("row") or match.group("head") or match.group("para")
            found.setdefault(name, line)
    return found


def missing(text: str, operations: tuple[Operation, ...] = OPERATIONS) -> list[str]:
    """What the doc lacks or has too many: operations without an entry, entries of no operation, and
    parameters an operation's entry does not name."""
    documented = entries(text)
    out = [f"{op.name}: no entry" for op in operations if op.name not in documented]
    names = {op.name for op in operations}
    out += [f"{name}: an entry, but no such operation" for name in documented if name not in names]
    for op in operations:
        line = documented.get(op.name, "")
        out += [
            f"{op.name}: its entry does not name `{p.name}`"
            for p in op.params
            if line and p.name not in GENERAL and not re.search(rf"`{re.escape(p.name)}\b", line)
        ]
    return out


def test_every_operation_has_its_entry_in_the_bridge_protocol_doc() -> None:
    assert missing(DOC.read_text(encoding="utf-8")) == [], "describe it in docs/bridge-protocol.md"


def test_a_missing_or_stale_entry_is_found() -> None:
    text = DOC.read_text(encoding="utf-8")
    without_crop = "\n".join(line for line in text.splitlines() if not line.startswith("| `tab.crop` |"))
    assert missing(without_crop) == ["tab.crop: no entry"]
    renamed = text.replace("| `dom.hover` |", "| `dom.hoover` |")
    assert missing(renamed) == ["dom.hover: no entry", "dom.hoover: an entry, but no such operation"]
    without_param = text.replace("| `dom.drag` | `selector` (source), `target`,", "| `dom.drag` | `selector`,")
    assert missing(without_param) == ["dom.drag: its entry does not name `target`"]
