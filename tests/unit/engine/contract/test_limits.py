"""Nesting measured without recursion, strict JSON, and excerpts that speak JSON."""

from __future__ import annotations

import math

import pytest

from tabpilot.engine.contract import limits
from tabpilot.engine.errors import MAX_DETAIL_CHARS, MAX_MESSAGE_CHARS, TabpilotError, shown


@pytest.mark.parametrize(
    ("text", "depth"),
    [
        ("1", 0),
        ("{}", 1),
        ('{"a": [1, {"b": []}]}', 4),
        ('{"a": "[[[[{{{{"}', 1),  # brackets inside strings do not count
        ('{"a": "\\"[[["}', 1),  # nor after an escaped quote
        ('{"a": [[[', 4),  # cut short: counted as far as it goes
    ],
)
def test_text_depth(text: str, depth: int) -> None:
    assert limits.text_depth(text) == depth


def test_text_depth_stops_past_the_limit_without_recursing() -> None:
    assert limits.text_depth("[" * 1_000_000, limit=64) == 65


@pytest.mark.parametrize("text", ["NaN", '{"a": Infinity}', "[-Infinity]", '{"a": 1', "[" * 100_000, "1" * 5000])
def test_loads_refuses_what_is_not_strict_json(text: str) -> None:
    with pytest.raises(limits.NotJson):
        limits.loads(text)


def test_problem_finds_depth_and_non_finite_numbers() -> None:
    deep: object = "x"
    for _ in range(5000):
        deep = [deep]
    assert limits.problem(deep) == f"nests deeper than {limits.MAX_DEPTH} levels"
    assert limits.problem({"a": [1.0, {"b": math.nan}]}) is not None
    assert limits.problem({"a": [1, {"b": "ok"}]}) is None


@pytest.mark.parametrize(
    ("value", "text"),
    [(None, "null"), (True, "true"), ({"a": None}, '{"a": null}'), ("x", "'x'"), (["a"], '["a"]')],
)
def test_shown_speaks_json(value: object, text: str) -> None:
    assert shown(value) == text


def test_shown_and_errors_never_carry_a_long_input_back() -> None:
    huge = "c" * 1_700_000
    assert len(shown(huge)) <= 62
    assert len(shown([huge])) <= 60
    error = TabpilotError("invalid_params", f"No command has correlation_id '{huge}'.", correlation_id=huge)
    assert len(error.message) <= MAX_MESSAGE_CHARS
    assert len(error.envelope()["correlation_id"]) <= MAX_DETAIL_CHARS
