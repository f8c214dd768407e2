"""`observe snapshot` (the page's accessibility tree as compact text with refs) and `interact highlight`.

The extension builds the text (content/snapshot.js in each frame, stitched by background/snapshot.js);
here it gets its budget and its diff. The budget (`max_bytes`) cuts between lines — a line is one node —
and says how to see the rest. The diff compares with the text this agent last saw of the same tab with
the same options; a new document (refs renumbered) or no earlier snapshot gives the whole text instead.
"""

from __future__ import annotations

import difflib
import re
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Literal, NotRequired, TypedDict

from tabpilot.engine.context import CommandContext
from tabpilot.engine.contract import results
from tabpilot.engine.contract.args import FrameArgs, arg
from tabpilot.engine.contract.commands import Cli, Command
from tabpilot.engine.page.interact import SELECTOR_DOC, TIMEOUT_MARGIN_S, ElementArgs
from tabpilot.engine.per_engine import per_engine

DEFAULT_MAX_BYTES = 50_000
SNAPSHOT_TIMEOUT_MS = 15_000
DIFF_CONTEXT = 1
"""Unchanged lines shown around each change: enough to place it, few enough to stay short."""
MAX_BASELINES = 64
REF = re.compile(r"@(?:f\d+)?e\d+")


# -- the budget --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Cut:
    shown_lines: int
    hidden_lines: int
    scope_hint: str | None


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _scope_hint(lines: list[str], at: int) -> str | None:
    """A ref to scope to for the rest: the nearest ancestor of the first hidden line that has one, else
    the first ref among the hidden lines."""
    if at >= len(lines):
        return None
    level = _indent(lines[at])
    for line in reversed(lines[:at]):
        if _indent(line) < level:
            level = _indent(line)
            found = REF.search(line)
            if found:
                return found.group(0)
    for line in lines[at:]:
        found = REF.search(line)
        if found:
            return found.group(0)
    return None


def fit(text: str, max_bytes: int) -> tuple[str, Cut | None]:
    """`text` cut to at most `max_bytes` (UTF-8) at a line boundary; the cut's facts, or None when whole."""
    if len(text.encode()) <= max_bytes:
        return text, None
    lines = text.split("\n")
    used = 0
    shown = 0
    for line in lines:
        size = len(line.encode()) + 1
        if used + size > max_bytes:
            break
        used += size
        shown += 1
    return "\n".join(lines[:shown]), Cut(shown, len(lines) - shown, _scope_hint(lines, shown))


def cut_note(cut: Cut, max_bytes: int) -> str:
    scope = f"scope:'{cut.scope_hint}' (the part the cut falls in), " if cut.scope_hint else ""
    return (
        f"Cut at max_bytes={max_bytes} after {cut.shown_lines} lines; {cut.hidden_lines} more not shown. See the rest "
        f"with {scope}"
        "a scope selector, max_depth, interactive_only, or a larger max_bytes."
    )


# -- the diff ----------------------------------------------------------------------------------------


def unified(before: str, after: str, context: int = DIFF_CONTEXT) -> str:
    """The changed lines (`-` gone, `+` new) with `context` lines around each change; "" when none."""
    lines = difflib.unified_diff(before.split("\n"), after.split("\n"), lineterm="", n=context)
    return "\n".join(line for line in lines if not line.startswith(("---", "+++")))


@dataclass(frozen=True)
class Baseline:
    document: str
    text: str


BaselineKey = tuple[str, int, str | None, str | None, bool, int | None]


@dataclass
class Baselines:
    """The last snapshot text each agent saw of each tab (with the same options), the oldest dropped first."""

    limit: int = MAX_BASELINES
    items: OrderedDict[BaselineKey, Baseline] = field(default_factory=OrderedDict)

    def swap(self, key: BaselineKey, new: Baseline) -> Baseline | None:
        """Remember `new`; answer what was there before."""
        old = self.items.pop(key, None)
        self.items[key] = new
        while len(self.items) > self.limit:
            self.items.popitem(last=False)
        return old


baselines_for = per_engine(lambda _engine: Baselines())


class Snapshot(TypedDict):
    url: str
    title: str
    frame: NotRequired[str]
    """With `frame`: the frame's ref (@f12)."""
    snapshot: str
    refs: int
    bytes: int
    frames: NotRequired[int]
    """Frames stitched into the tree."""
    diff: NotRequired[Literal["full", "changes"]]
    diff_note: NotRequired[str]
    changed_lines: NotRequired[int]
    truncated: NotRequired[Literal[True]]
    note: NotRequired[str]


class Bounds(TypedDict):
    x: int
    y: int
    width: int
    height: int


class Highlighted(TypedDict):
    highlighted: Literal[True]
    selector: str
    bounds: Bounds
    duration_ms: int
    role: str
    name: str
    frame: NotRequired[str]


# -- observe snapshot --------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class SnapshotArgs(FrameArgs):
    interactive_only: bool = arg("interactive elements only, one line each", default=False)
    scope: str | None = arg("selector or ref: that subtree only", default=None)
    max_depth: int | None = arg("levels shown below the top (deeper: …)", default=None, minimum=0, maximum=200)
    max_bytes: int = arg(
        "budget; cut between nodes, with a note", default=DEFAULT_MAX_BYTES, minimum=500, maximum=5_000_000
    )
    diff: bool = arg("only what changed since your last snapshot of the tab", default=False)


class SnapshotTail(TypedDict, total=False):
    """Snapshot's last fields: what a `diff:true` answer says about its diff, and where the budget cut it."""

    diff: Literal["full", "changes"]
    diff_note: str
    changed_lines: int
    truncated: Literal[True]
    note: str


def _diffed(before: Baseline | None, now: Baseline) -> tuple[str, SnapshotTail]:
    """What a `diff:true` call shows, and what the answer says about it."""
    if before is None:
        return now.text, {"diff": "full", "diff_note": "No earlier snapshot of this tab with these options: all of it."}
    if before.document != now.document:
        return now.text, {"diff": "full", "diff_note": "The tab shows a new document (refs start again): all of it."}
    body = unified(before.text, now.text)
    changed = sum(1 for line in body.split("\n") if line[:1] in "+-" and line)
    return body, {"diff": "changes", "changed_lines": changed}


async def _snapshot(ctx: CommandContext, a: SnapshotArgs) -> Snapshot:
    page = await ctx.browser_request(
        "dom.snapshot",
        {
            "tab_id": a.tab_id,
            "frame": a.frame,
            "scope": a.scope,
            "interactive_only": a.interactive_only or None,
            "max_depth": a.max_depth,
            "redact": list(ctx.engine.config.redact_selectors),
            "timeout_ms": SNAPSHOT_TIMEOUT_MS,
        },
        timeout_s=SNAPSHOT_TIMEOUT_MS / 1000 + TIMEOUT_MARGIN_S,
    )
    now = Baseline(str(page.get("document", "")), str(page.get("text", "")))
    key: BaselineKey = (ctx.agent, int(page["tab_id"]), a.frame, a.scope, a.interactive_only, a.max_depth)
    before = baselines_for(ctx.engine).swap(key, now)
    tail: SnapshotTail = {}
    text = now.text
    if a.diff:
        text, tail = _diffed(before, now)
    shown, cut = fit(text, a.max_bytes)
    if cut is not None:
        tail["truncated"] = True
        tail["note"] = cut_note(cut, a.max_bytes)
    result: Snapshot = {
        "url": page.get("url", ""),
        "title": page.get("title", ""),
        "frame": page.get("frame", ""),
        "snapshot": shown,
        "refs": page.get("refs", 0),
        "bytes": len(shown.encode()),
        "frames": page.get("frames", 0),
        **tail,
    }
    # Built in the order the answer shows; a frame and stitched frames only when there are some.
    if not result["frame"]:
        del result["frame"]
    if not result["frames"]:
        del result["frames"]
    return result


# -- interact highlight ------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class HighlightArgs(ElementArgs):
    selector: str = arg(SELECTOR_DOC)
    duration_ms: int = arg("default 5000", default=5_000, minimum=100, maximum=120_000)


async def _highlight(ctx: CommandContext, a: HighlightArgs) -> Highlighted:
    answer = await ctx.browser_request("dom.highlight", a.wire(), timeout_s=a.timeout_ms / 1000 + TIMEOUT_MARGIN_S)
    return results.relayed(Highlighted, answer)


COMMANDS: list[Command[Any]] = [
    Command(
        "observe",
        "snapshot",
        "read",
        "accessibility tree as text, refs @e1 for selectors",
        _snapshot,
        SnapshotArgs,
        returns=Snapshot,
        notes='One node a line: `- role "name" [state] @ref: value`; a table row of plain cells is one line '
        '(`- row: 1 | Ann | link "mail" @e4`). Interactive and named elements carry a ref that works wherever a '
        "selector does (interact actions, observe dom, scrape's selector, wait); a ref whose element has left the "
        "page fails at once with `stale_ref` (take a new snapshot); refs start again in a new document. Open "
        "shadow roots and same- and cross-origin iframes are in the tree; a frame's refs carry it (`@f12e3`). "
        "`diff:true` answers only the changed lines (unified style: `-` gone, `+` new) since your last snapshot "
        "of the tab with the same options. `max_bytes` cuts between nodes and the `note` says how to see the rest.",
        example={"interactive_only": True},
        example_result={
            "url": "https://example.com/login",
            "title": "Sign in",
            "snapshot": '- textbox "Email" @e1\n- textbox "Password" @e2\n- checkbox "Remember me" @e3\n'
            '- button "Sign in" @e4',
            "refs": 4,
            "bytes": 83,
        },
        ops=("dom.snapshot",),
        cli=Cli(
            "snapshot",
            positional=("scope",),
            short=(("interactive_only", "i"), ("diff", "D"), ("max_depth", "d")),
            show="snapshot",
        ),
    ),
    Command(
        "interact",
        "highlight",
        # Not `mutate`: the outline lives in a closed shadow root in the top layer, takes no pointer
        # events and changes no state of the page (no value, no focus, no event to its handlers); like
        # `scroll` it may bring the element into view. So: pilot on, no approval.
        "navigate",
        "outline + label an element for the person (duration_ms)",
        _highlight,
        HighlightArgs,
        returns=Highlighted,
        notes="Shows the person which element you mean: an outline and a label over it, scrolled into view, gone "
        "after `duration_ms` or at the next highlight. It never takes a click (pointer-events: none) and the "
        "page's styles cannot hide it. `bounds` are viewport CSS pixels of the tab.",
        example={"selector": "@e4", "duration_ms": 3000},
        example_result={
            "highlighted": True,
            "selector": "@e4",
            "bounds": {"x": 24, "y": 310, "width": 96, "height": 32},
            "duration_ms": 3000,
            "role": "button",
            "name": "Sign in",
        },
        ops=("dom.highlight",),
        pilot_gated=True,
        cli=Cli("highlight", positional=("selector",)),
    ),
]
