"""Parameter checking as an agent meets it: JSON types, enums, bounds, caps and unknown names."""

from __future__ import annotations

import math
from typing import Any

import pytest

from tabpilot.engine.catalog import build_registry
from tabpilot.engine.contract.params import Param, validate
from tabpilot.engine.errors import TabpilotError

WHERE = "test mode=x"


def refused(params: list[Param], given: dict[str, Any]) -> TabpilotError:
    with pytest.raises(TabpilotError) as info:
        validate(params, given, WHERE)
    assert info.value.code == "invalid_params"
    assert info.value.message.startswith(WHERE + ":")
    return info.value


@pytest.mark.parametrize("value", [True, False])
def test_a_boolean_is_not_an_integer(value: bool) -> None:
    err = refused([Param("n", "integer", "")], {"n": value})
    assert err.message == f"{WHERE}: 'n' must be an integer, got a boolean. Valid parameters: n."
    assert err.details == {"param": "n", "valid_params": ["n"]}


def test_a_boolean_is_not_a_number() -> None:
    err = refused([Param("n", "number", "")], {"n": True})
    assert "'n' must be a number" in err.message


def test_an_integral_float_is_accepted_as_an_integer() -> None:
    out = validate([Param("n", "integer", "")], {"n": 3.0}, WHERE)
    assert out == {"n": 3}
    assert type(out["n"]) is int


@pytest.mark.parametrize("value", [3.5, "3", [3], {"n": 3}, math.inf])
def test_integer_refuses_other_types(value: Any) -> None:
    err = refused([Param("n", "integer", "")], {"n": value})
    assert "'n' must be an integer" in err.message


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf])
def test_number_refuses_non_finite(value: float) -> None:
    refused([Param("x", "number", "")], {"x": value})


def test_number_accepts_ints_and_floats() -> None:
    params = [Param("a", "number", ""), Param("b", "number", "")]
    assert validate(params, {"a": 2, "b": 2.5}, WHERE) == {"a": 2, "b": 2.5}


@pytest.mark.parametrize(
    ("type_", "value", "described"),
    [
        ("string", 5, "the number 5"),
        ("boolean", "true", "a string"),
        ("object", [], "a list"),
        ("array", {}, "an object"),
    ],
)
def test_type_mismatch_names_what_was_given(type_: Any, value: Any, described: str) -> None:
    err = refused([Param("p", type_, "")], {"p": value})
    assert err.message.endswith(f"got {described}. Valid parameters: p.")


def test_enum_lists_the_allowed_values() -> None:
    param = Param("wait_until", "string", "", enum=("load", "domcontentloaded", "networkidle"))
    err = refused([param], {"wait_until": "idle"})
    assert "one of load, domcontentloaded, networkidle" in err.message
    assert "'idle'" in err.message
    assert validate([param], {"wait_until": "networkidle"}, WHERE) == {"wait_until": "networkidle"}


def test_required_missing_or_null() -> None:
    param = Param("selector", "string", "", required=True)
    for given in ({}, {"selector": None}):
        err = refused([param], given)
        assert err.message == f"{WHERE}: 'selector' is required. Valid parameters: selector* (* required)."
        assert err.details["valid_params"] == ["selector"]


@pytest.mark.parametrize("blank", ["", "   ", "\n\t"])
def test_a_required_string_must_not_be_blank(blank: str) -> None:
    err = refused([Param("selector", "string", "", required=True)], {"selector": blank})
    assert "'selector' must not be empty" in err.message


def test_an_optional_string_may_be_empty() -> None:
    assert validate([Param("s", "string", "")], {"s": ""}, WHERE) == {"s": ""}


def test_minimum_and_maximum() -> None:
    param = Param("timeout_ms", "integer", "", minimum=100, maximum=1000)
    assert "at least 100" in refused([param], {"timeout_ms": 99}).message
    assert "at most 1000" in refused([param], {"timeout_ms": 1001}).message
    assert validate([param], {"timeout_ms": 100}, WHERE) == {"timeout_ms": 100}
    assert validate([param], {"timeout_ms": 1000}, WHERE) == {"timeout_ms": 1000}


def test_clamp_lowers_to_the_cap_instead_of_refusing() -> None:
    param = Param("max_depth", "integer", "", default=3, minimum=0, maximum=5, clamp=True)
    assert validate([param], {"max_depth": 9}, WHERE) == {"max_depth": 5}
    assert validate([param], {"max_depth": 9.0}, WHERE) == {"max_depth": 5}
    assert "at least 0" in refused([param], {"max_depth": -1}).message


def test_observe_dom_caps_max_depth_at_5() -> None:
    command, params = build_registry().resolve("observe", {"what": "dom", "selector": "a", "max_depth": 9})
    assert command.name == "observe.dom"
    assert params["max_depth"] == 5


def test_defaults_fill_in_absent_values() -> None:
    params = [Param("fmt", "string", "", default="png"), Param("tab", "integer", "")]
    assert validate(params, {}, WHERE) == {"fmt": "png", "tab": None}


def test_unknown_parameters_are_named_and_the_expected_ones_listed() -> None:
    params = [Param("selector", "string", ""), Param("max_depth", "integer", "")]
    err = refused(params, {"selecter": "a", "zzz": 1})
    assert "unknown parameter 'selecter', 'zzz'" in err.message
    assert "Valid parameters: selector, max_depth." in err.message
    assert err.details == {"param": "selecter", "valid_params": ["selector", "max_depth"]}


def test_unknown_parameter_when_none_are_expected() -> None:
    err = refused([], {"x": 1})
    assert "This mode takes no parameters." in err.message


def test_array_items_are_checked() -> None:
    strings = Param("properties", "array", "", items="string")
    assert validate([strings], {"properties": ["color"]}, WHERE) == {"properties": ["color"]}
    assert "list of strings" in refused([strings], {"properties": ["color", 3]}).message
    numbers = Param("xs", "array", "", items="integer")
    assert "list of integers" in refused([numbers], {"xs": [1, True]}).message


def test_a_list_of_booleans_is_a_list_of_booleans() -> None:
    flags = Param("flags", "array", "", items="boolean")
    assert validate([flags], {"flags": [True, False]}, WHERE) == {"flags": [True, False]}
    refused([flags], {"flags": [1]})


def test_schema_is_compact_json_schema() -> None:
    assert Param("n", "integer", "", minimum=1, maximum=9).schema() == {
        "type": "integer",
        "minimum": 1,
        "maximum": 9,
    }
    # A clamped cap is not a refusal, so it is not advertised as one.
    assert "maximum" not in Param("d", "integer", "", maximum=5, clamp=True).schema()
    assert Param("p", "array", "", items="string").schema() == {"type": "array", "items": {"type": "string"}}
    assert Param("e", "string", "", enum=("a", "b")).schema() == {"type": "string", "enum": ["a", "b"]}
