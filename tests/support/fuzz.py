"""Hypothesis strategies for tool calls, derived from the command registry (never from a hand list).

Each call names one mode of one tool and gives some of that mode's parameters: values of the right type
and range, or hostile ones — deep nesting, huge strings and numbers, NaN, wrong types, unknown names.
Whatever comes, the answer must be a result or an error with a contract code other than `internal`.
"""

from __future__ import annotations

import json
import math
from typing import Any

from hypothesis import strategies as st

from tabpilot.engine.contract.commands import DISCRIMINATOR, SUB_DISCRIMINATOR, AnyCommand, Registry
from tabpilot.engine.contract.params import Param
from tabpilot.engine.contract.steps import step_kinds
from tabpilot.engine.errors import ERROR_CODES, MAX_MESSAGE_CHARS

HUGE_SIZES = (300, 70_000, 1_200_000)
"""Up to 1.2 M characters: a message of two such strings passes the 8 MB limit but not the 16 MB one."""


def nested(depth: int, leaf: Any = "deep") -> Any:
    value = leaf
    for n in range(depth):
        value = [value] if n % 2 else {"k": value}
    return value


def hostile(max_depth: int) -> st.SearchStrategy[Any]:
    scalars = st.one_of(
        st.none(),
        st.booleans(),
        st.integers(min_value=-(2**70), max_value=2**70),
        st.floats(allow_nan=True, allow_infinity=True),
        st.text(max_size=20),
        st.sampled_from(["../../etc/passwd", "a\x00b", "é" * 200, "{{secret:x}}", "{{p}}", " ", "1 +"]),
    )
    small = st.recursive(
        scalars,
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
        max_leaves=8,
    )
    return st.one_of(
        small,
        st.builds(lambda n, c: c * n, st.sampled_from(HUGE_SIZES), st.sampled_from(["x", "é", "["])),
        st.builds(nested, st.integers(min_value=20, max_value=max_depth)),
        st.builds(lambda d: nested(d, math.nan), st.integers(min_value=1, max_value=5)),
    )


def fitting(param: Param) -> st.SearchStrategy[Any]:
    """A value of the parameter's type and range (what a careful agent sends)."""
    if param.enum:
        return st.sampled_from(param.enum)
    if param.type in ("integer", "number"):
        low = None if param.minimum is None else math.ceil(param.minimum)
        high = None if param.maximum is None else math.floor(param.maximum)
        return st.integers(min_value=low, max_value=high)
    if param.type == "boolean":
        return st.booleans()
    if param.type == "string":
        return st.text(max_size=30) | st.sampled_from(["#q", "tr", "https://a.test/", "wf-x", "1 + 1"])
    if param.name == "workflow":
        return st.fixed_dictionaries(
            {"workflow_id": st.sampled_from(["wf-a", "w" * 300, "a/b"]), "name": st.just("n"), "steps": steps()}
        )
    if param.type == "array":
        if param.name == "steps":
            return steps()
        return st.lists(st.text(max_size=10) | st.integers(), max_size=3)
    return st.dictionaries(st.text(max_size=8), st.text(max_size=8) | st.integers(), max_size=3)


def steps() -> st.SearchStrategy[list[dict[str, Any]]]:
    """Workflow steps, with the step type itself sometimes a list or an object."""
    kind = st.sampled_from(sorted(step_kinds())) | st.sampled_from([["click"], {"a": 1}, None, 5, "hover"])
    step = st.fixed_dictionaries(
        {"type": kind},
        optional={
            "selector": st.sampled_from(["#a", "tr", ""]),
            "value": st.text(max_size=10),
            "url": st.sampled_from(["https://a.test/", "javascript:1", "{{p}}"]),
            "schema": st.just({"n": "td | text"}) | st.just({"n": ["x"]}),
            "then": st.just([{"type": "click", "selector": "#b"}]),
        },
    )
    return st.lists(step, max_size=4)


def call_for(command: AnyCommand, max_depth: int) -> st.SearchStrategy[dict[str, Any]]:
    """Required parameters always (mostly fitting, so that calls get past them to the mode's own
    checks), others sometimes, and now and then one the mode does not have."""

    def value(p: Param) -> st.SearchStrategy[Any]:
        return st.one_of(fitting(p), fitting(p), hostile(max_depth))

    required = {p.name: value(p) for p in command.all_params if p.required}
    optional = {p.name: value(p) for p in command.all_params if not p.required and p.name != "background"}
    optional["background"] = st.booleans()
    optional["zz_unknown"] = hostile(max_depth)
    names = {DISCRIMINATOR[command.tool]: st.just(command.mode)}
    if command.operation:
        names[SUB_DISCRIMINATOR] = st.just(command.operation)
    return st.fixed_dictionaries({**names, **required}, optional=optional)


def tool_calls(registry: Registry, max_depth: int = 400) -> st.SearchStrategy[tuple[str, dict[str, Any]]]:
    """Calls of any mode of any tool."""
    return st.sampled_from(registry.all()).flatmap(lambda command: calls_of(command, max_depth))


def calls_of(command: AnyCommand, max_depth: int = 400) -> st.SearchStrategy[tuple[str, dict[str, Any]]]:
    """Calls of one mode."""
    return st.tuples(st.just(command.tool), call_for(command, max_depth))


def check_error(envelope: Any, call: tuple[str, dict[str, Any]]) -> None:
    """A failure the agent can act on: a contract code (not internal), a short message, plain JSON."""
    assert isinstance(envelope, dict), (envelope, _short(call))
    assert envelope.get("error") in ERROR_CODES, (envelope, _short(call))
    assert envelope["error"] != "internal", (envelope, _short(call))
    assert isinstance(envelope.get("message"), str) and envelope["message"], (envelope, _short(call))
    text = json.dumps(envelope, allow_nan=False)  # what goes to the agent is strict JSON
    assert len(envelope["message"]) <= MAX_MESSAGE_CHARS
    assert len(text) < 20_000, _short(call)  # an excerpt of the input at most, never the input back


def check_result(result: Any, call: tuple[str, dict[str, Any]]) -> None:
    assert isinstance(result, dict), _short(call)
    json.dumps(result, allow_nan=False)


def _short(call: tuple[str, dict[str, Any]]) -> str:
    try:
        text = json.dumps(call, default=str)
    except (ValueError, RecursionError):
        text = repr(call)[:500]
    return text[:500]
