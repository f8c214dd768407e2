"""A seeded, bounded fuzz of tool calls against a real page, from the command registry (issue 18).

Every mode of every tool, in turn (each gets its share however many there are); each parameter given a
value that fits its declared type and range (aimed at the fixture page, so calls get past validation to
the page) or a hostile one by its type: regular expressions that backtrack for ever, globs that do,
very long strings, NUL, unicode, negative and huge numbers, the wrong type, nested objects.

Shared by the e2e fuzz (tests/e2e/test_fuzz_page.py) and bench/bench_fuzz.py. Plain `random` with a seed
(not Hypothesis): the same seed gives the same calls, so a failure printed with its seed can be replayed.

Nothing generated navigates outside the fixture site: a `url` gets one of its URLs, about:blank, or a
string no engine takes for an absolute URL; workflow steps the same; `close_tab` never gets the tab the
fuzz runs in.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from tabpilot.engine.contract.commands import DISCRIMINATOR, SUB_DISCRIMINATOR, AnyCommand, Registry
from tabpilot.engine.contract.params import Param
from tabpilot.engine.contract.steps import step_kinds
from tabpilot.engine.page.checks import CHECK_TYPES, COUNT_OPS, MATCHERS

REGEX = r"^([\s\S]*e){14}QQQ$"
"""Catastrophic backtracking in a backtracking engine: exponential in the length of the text it meets."""
GLOB = "*a" * 18 + "*Z"
"""As a glob turned into a regular expression (`.*a.*a….*Z`), exponential on a long run of 'a'."""
LONG_A = "a" * 48
"""The run of 'a' in the fixture iframe's URL and links: what GLOB backtracks on."""

HOSTILE_STRINGS: tuple[str, ...] = (
    REGEX,
    GLOB,
    "(a+)+$",
    "^(a|aa)*$",
    "x" * 70_000,
    "é" * 5_000,
    "a\x00b",
    "\x00",
    "",
    " ",
    "\u202eevil\u202c",
    "🦊" * 300,
    "\U0001d518\U0001d52b\U0001d526",  # mathematical letters (outside the BMP)
    "../../etc/passwd",
    "{{secret:x}}",
    "{{p}}",
    "@e999999",
    "@f3 >> button",
    "a >> b >> c >> d",
    "[[[[",
    "*",
)
"""Strings by type; none of them is an absolute URL (the fuzz never leaves the fixture site)."""

HOSTILE_NUMBERS: tuple[Any, ...] = (-1, 0, -(2**63), 2**63, 2**70, 1e308, -1e308, 0.5, -0.0, 3.999)
WRONG_TYPES: tuple[Any, ...] = ([], {}, True, False, ["x"], {"k": "v"}, "1", 1, 1.5)
KNOWN_HANGS = frozenset({REGEX, GLOB, "(a+)+$", "^(a|aa)*$"})
"""Backtracking patterns that froze the extension before issue 18's linear-time matcher. `tame=True` leaves
them out (to measure an older build); the e2e fuzz and the bench send them. (No lone surrogate is sent: the
MCP SDK's client cannot encode one; tests/integration/test_local_relay.py sends one raw.)"""
SELECTORS = ("#name", "#go", "button", "iframe", "#long", "a", "input", "select", "@e1", "#missing", "body")
FRAMES = ("#frame", "iframe", "frame-inner", f"*{LONG_A[:10]}*", "@f1")
SMALL_MS = (0, 100, 300, 800, 1500)
"""Fitting waits: small, so that a few hundred calls fit in two minutes (huge ones are refused)."""


def nested(depth: int, leaf: Any = "deep") -> Any:
    value = leaf
    for n in range(depth):
        value = [value] if n % 2 else {"k": value}
    return value


@dataclass
class Targets:
    """What fitting values aim at: the fixture site's URLs and the tab the fuzz runs in."""

    urls: Sequence[str]
    tab_id: int | None = None
    other_tab_ids: list[int] = field(default_factory=list)
    """Tabs `close_tab` and `switch_tab` may be given (never `tab_id`, the fuzz's own)."""


@dataclass(frozen=True)
class FuzzCall:
    index: int
    tool: str
    arguments: dict[str, Any]
    budget_s: float
    """How long the answer may take: the call's own timeout (a scrape: the engine's wait for its pending
    view, if shorter) plus a margin."""

    def short(self, limit: int = 400) -> str:
        text = repr(self.arguments)
        return f"#{self.index} {self.tool} {text[:limit]}{'…' if len(text) > limit else ''}"


ENGINE_WAIT_S = 30.0
"""A command with no timeout of its own is answered within this long (a scrape, with its pending view)."""
MARGIN_S = 15.0


class HostileCalls:
    def __init__(
        self, registry: Registry, seed: int, targets: Targets, *, skip: Sequence[str] = (), tame: bool = False
    ) -> None:
        self.rng = random.Random(seed)
        self.tame = tame
        self.targets = targets
        self.commands = [c for c in registry.all() if _name(c) not in skip]

    def calls(self, count: int) -> Iterator[FuzzCall]:
        """`count` calls: the modes in a shuffled order, round after round."""
        order: list[AnyCommand] = []
        for index in range(count):
            if not order:
                order = list(self.commands)
                self.rng.shuffle(order)
            command = order.pop()
            arguments = self.arguments(command)
            if self.tame:
                arguments = _tamed(arguments)
            yield FuzzCall(index, command.tool, arguments, self.budget(command, arguments))

    def arguments(self, command: AnyCommand) -> dict[str, Any]:
        rng = self.rng
        out: dict[str, Any] = {DISCRIMINATOR[command.tool]: command.mode}
        if command.operation:
            out[SUB_DISCRIMINATOR] = command.operation
        for param in command.all_params:
            if param.name == "background":
                continue  # answered at once by design: the point is to wait for the real answer
            if not param.required and rng.random() < 0.5 and not param.name.endswith("_ms"):
                continue
            out[param.name] = self.fitting(command, param) if rng.random() < 0.5 else self.hostile(command, param)
        if rng.random() < 0.05:
            out["zz_unknown"] = self.hostile_value()
        return out

    def budget(self, command: AnyCommand, arguments: dict[str, Any]) -> float:
        limit_s = ENGINE_WAIT_S  # no timeout of its own: what any command takes at most, in practice
        for param in command.all_params:
            if param.name != "timeout_ms":
                continue
            given = arguments.get(param.name)
            ms = given if isinstance(given, int) and not isinstance(given, bool) else param.default
            if not isinstance(ms, int) or (param.minimum is not None and ms < param.minimum):
                ms = param.default  # refused at once anyway
            elif param.maximum is not None and ms > param.maximum:
                ms = int(param.maximum) if param.clamp else param.default
            limit_s = max(float(ms or 0), 0.0) / 1000
        if command.wait_param:  # past its wait, the engine answers with the pending view
            limit_s = min(limit_s, command.default_wait_ms / 1000)
        return limit_s + MARGIN_S

    # -- values that fit ------------------------------------------------------------------------

    def fitting(self, command: AnyCommand, param: Param) -> Any:
        rng, name = self.rng, param.name
        if name == "tab_id":
            if command.mode in ("close_tab", "switch_tab"):
                return rng.choice([*self.targets.other_tab_ids, 999_999])
            return self.targets.tab_id if self.targets.tab_id is not None else 1
        if param.enum:
            return rng.choice(param.enum)
        if name == "url":
            return self.url()
        if name.endswith("_ms"):
            low = int(param.minimum or 0)
            return max(low, rng.choice(SMALL_MS))
        if name in ("selector", "target", "scope"):
            return rng.choice(SELECTORS)
        if name == "frame":
            return rng.choice(FRAMES)
        if name in ("workflow_id", "name"):
            return rng.choice(["wf-fuzz", "fuzz", "missing"])
        if name == "path":
            return rng.choice(["fuzz.png", "sub/fuzz", "fuzz.har"])
        if name == "checks":
            return [self.check() for _ in range(rng.randint(1, 3))]
        if name == "steps":
            return [self.step() for _ in range(rng.randint(1, 3))]
        if name == "files":
            return rng.choice([["missing.txt"], [{"name": "a.txt", "content_base64": "YQ==", "mime": "text/plain"}]])
        if name == "patterns":
            return [rng.choice(["*://127.0.0.1:*/nothing*", GLOB, REGEX])]
        if name == "script":
            return rng.choice(["1 + 1", "document.title", "location.href.length", "[...document.links].length"])
        if name == "workflow":
            return {"workflow_id": "wf-fuzz", "name": "fuzz", "steps": [self.step()]}
        if name == "schema":
            return {"t": rng.choice(["a | text", "a | attr:href", "iframe | attr:src"])}
        if name == "headers":
            return {"X-Fuzz": rng.choice(["1", GLOB])}
        if param.type in ("integer", "number"):
            low = -5 if param.minimum is None else param.minimum
            high = 5_000 if param.maximum is None else min(param.maximum, 5_000)
            value = rng.uniform(low, high)
            return int(value) if param.type == "integer" else value
        if param.type == "boolean":
            return rng.random() < 0.5
        if param.type == "string":
            return rng.choice(["e", "a", "Go", LONG_A, "text", REGEX, GLOB])
        if param.type == "array":
            return [rng.choice(["color", "display", "e"])]
        return {"k": rng.choice(["v", GLOB])}

    def url(self) -> str:
        return self.rng.choice([*self.targets.urls, "about:blank"])

    def check(self) -> dict[str, Any]:
        rng = self.rng
        kind = rng.choice(CHECK_TYPES)
        check: dict[str, Any] = {"type": kind}
        if kind not in ("url", "title"):
            check["selector"] = rng.choice(SELECTORS)
        if kind == "count":
            check["expected"] = rng.randint(0, 3)
            check["op"] = rng.choice(COUNT_OPS)
        elif kind in ("text", "value", "attribute", "url", "title"):
            check[rng.choice(MATCHERS)] = rng.choice([REGEX, GLOB, "(a+)+$", "e", LONG_A])
            if kind == "attribute":
                check["name"] = rng.choice(["href", "src", "id"])
        return check

    def step(self) -> dict[str, Any]:
        rng = self.rng
        kind = rng.choice(sorted(step_kinds()))
        step: dict[str, Any] = {"type": kind}
        if kind == "navigate":
            step["url"] = self.url()
        elif kind in ("click", "fill", "type", "hover", "focus", "check", "uncheck", "select", "wait_for"):
            step["selector"] = rng.choice(SELECTORS)
            if kind in ("fill", "type"):
                step["value" if kind == "fill" else "text"] = rng.choice(["e", REGEX])
        elif kind == "extract":
            step["selector"] = "a"
            step["schema"] = {"t": "a | text"}
        elif kind == "delay":
            step["ms"] = rng.choice([0, 50])
        return step

    # -- hostile values -------------------------------------------------------------------------

    def hostile(self, command: AnyCommand, param: Param) -> Any:
        rng = self.rng
        roll = rng.random()
        if roll < 0.15:
            return self.hostile_value()  # any type: usually the wrong one
        if param.name == "tab_id" and command.mode in ("close_tab", "switch_tab"):
            return rng.choice(HOSTILE_NUMBERS)  # never the fuzz's own tab
        if param.type in ("integer", "number"):
            return rng.choice(HOSTILE_NUMBERS)
        if param.type == "string":
            return rng.choice(HOSTILE_STRINGS)
        if param.type == "array":
            return rng.choice(
                [[rng.choice(HOSTILE_STRINGS)], [None], [nested(30)], ["x"] * 2_000, [self.hostile_value()]]
            )
        if param.type == "object":
            return rng.choice(
                [nested(rng.randint(10, 60)), {rng.choice(HOSTILE_STRINGS)[:200]: GLOB}, {"a" * 10_000: 1}, {"": None}]
            )
        return rng.choice(WRONG_TYPES)

    def hostile_value(self) -> Any:
        rng = self.rng
        pool: list[Any] = [*HOSTILE_STRINGS, *HOSTILE_NUMBERS, *WRONG_TYPES, nested(rng.randint(5, 80))]
        return rng.choice(pool)


def _tamed(value: Any) -> Any:
    if isinstance(value, str):
        return "e" if value in KNOWN_HANGS else value
    if isinstance(value, dict):
        return {_tamed(k): _tamed(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_tamed(v) for v in value]
    return value


def _name(command: AnyCommand) -> str:
    return ".".join(p for p in (command.tool, command.mode, command.operation) if p)
