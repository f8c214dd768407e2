"""Field specs (`"<css> | text | number"`) and JSON Schema extraction: parsing, errors, row validation."""

from __future__ import annotations

from typing import Any

import pytest

from tabpilot.engine.errors import TabpilotError
from tabpilot.engine.workflows.extract_spec import FieldSpec, parse_field, parse_schema, split_spec, validate_rows


def invalid(schema: Any) -> str:
    with pytest.raises(TabpilotError) as info:
        parse_schema(schema)
    assert info.value.code == "invalid_params"
    assert info.value.details["param"] == "schema"
    return info.value.message


@pytest.mark.parametrize(
    ("spec", "parts"),
    [
        ("td.name | text", ["td.name", "text"]),
        ("td.name|text|number", ["td.name", "text", "number"]),
        ("a[lang|=en] | attr:href", ["a[lang|=en]", "attr:href"]),
        ("a[lang |= en]", ["a[lang |= en]"]),
        ('a[title="x|y"] | attr:title', ['a[title="x|y"]', "attr:title"]),
        ("a[title='x | y'] | text", ["a[title='x | y']", "text"]),
        ('a[title="say \\"|\\""] | text', ['a[title="say \\"|\\""]', "text"]),
        ("li:not([data-x|=a]) | html", ["li:not([data-x|=a])", "html"]),
        ("td:nth-child(2)", ["td:nth-child(2)"]),
        ("", [""]),
        (" . | text ", [".", "text"]),
    ],
)
def test_split_keeps_pipes_inside_brackets_and_quotes(spec: str, parts: list[str]) -> None:
    assert split_spec(spec) == parts


def test_parse_field_ops_in_order() -> None:
    field = parse_field("points", "td.points | text | number")
    assert field == FieldSpec("points", "td.points", ({"op": "text"}, {"op": "number"}))
    assert field.wire() == {"name": "points", "selector": "td.points", "ops": [{"op": "text"}, {"op": "number"}]}


@pytest.mark.parametrize(
    ("spec", "selector", "ops"),
    [
        ("td", "td", [{"op": "text"}]),  # no op: text
        (".", "", [{"op": "text"}]),  # the row itself
        ("", "", [{"op": "text"}]),
        (". | html", "", [{"op": "html"}]),
        ("img | attr:src", "img", [{"op": "attr", "name": "src"}]),
        ("img | attr : data-src ", "img", [{"op": "attr", "name": "data-src"}]),
        ("input | BOOLEAN", "input", [{"op": "boolean"}]),
        ("td | attr:title | number", "td", [{"op": "attr", "name": "title"}, {"op": "number"}]),
        ("td | number", "td", [{"op": "number"}]),
        ("td | text | boolean", "td", [{"op": "text"}, {"op": "boolean"}]),
    ],
)
def test_parse_field_variants(spec: str, selector: str, ops: list[dict[str, str]]) -> None:
    field = parse_field("f", spec)
    assert field.selector == selector
    assert [dict(op) for op in field.ops] == ops


@pytest.mark.parametrize(
    ("spec", "needle"),
    [
        ("td | shout", "unknown operation 'shout'"),
        ("td | text:upper", "unknown operation 'text:upper'"),
        ("td || text", "unknown operation ''"),
        ("img | attr", "attr needs a name, as in attr:href"),
        ("img | attr:  ", "attr needs a name"),
        ("td | number | text", "'text' reads the element, so it can only come first"),
        ("td | text | html", "'html' reads the element"),
        ("td | boolean | attr:x", "'attr' reads the element"),
    ],
)
def test_parse_field_errors_name_the_field(spec: str, needle: str) -> None:
    message = invalid({"price": spec})
    assert "field 'price'" in message
    assert needle in message


def test_field_spec_must_be_a_string() -> None:
    assert "field 'n' must be a spec string" in invalid({"n": 3})
    assert "got list" in invalid({"n": ["td"]})


def test_schema_must_be_a_non_empty_object() -> None:
    for bad in ({}, [], "td | text", None):
        assert "must be an object of field specs" in invalid(bad)


def test_too_many_fields() -> None:
    assert "at most 100 fields" in invalid({f"f{i}": "td" for i in range(101)})
    assert len(parse_schema({f"f{i}": "td" for i in range(100)}).fields) == 100


def test_mapping_schema() -> None:
    schema = parse_schema({"name": "td:nth-child(1) | text", "row": ". | html"})
    assert schema.row_schema is None
    assert schema.wire() == [
        {"name": "name", "selector": "td:nth-child(1)", "ops": [{"op": "text"}]},
        {"name": "row", "selector": "", "ops": [{"op": "html"}]},
    ]


def test_where_prefixes_errors() -> None:
    with pytest.raises(TabpilotError) as info:
        parse_schema({"a": "td | nope"}, where="steps[3] (extract) schema")
    assert info.value.message.startswith("steps[3] (extract) schema: field 'a'")


# -- JSON Schema ------------------------------------------------------------------------------------

OBJECT_SCHEMA = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "x-selector": "td.name"},
        "price": {"type": "number", "x-selector": "td.price | text"},
        "qty": {"type": ["integer", "null"], "x-selector": "td.qty"},
        "in_stock": {"type": "boolean", "x-selector": "input.stock"},
        "done": {"type": "boolean", "x-selector": "td.done | text | boolean"},
        "link": {"type": "string", "format": "uri", "x-selector": "a | attr:href"},
    },
    "required": ["name", "price"],
}


def test_json_schema_object_form_implies_conversions() -> None:
    schema = parse_schema(OBJECT_SCHEMA)
    ops = {f.name: [op["op"] for op in f.ops] for f in schema.fields}
    assert ops == {
        "name": ["text"],
        "price": ["text", "number"],
        "qty": ["text", "number"],
        "in_stock": ["text", "boolean"],
        "done": ["text", "boolean"],  # not added twice
        "link": ["attr"],
    }
    assert schema.row_schema is OBJECT_SCHEMA


def test_json_schema_array_form_validates_items() -> None:
    schema = parse_schema({"type": "array", "items": OBJECT_SCHEMA})
    assert [f.name for f in schema.fields] == list(OBJECT_SCHEMA["properties"])
    assert schema.row_schema is OBJECT_SCHEMA


def test_json_schema_without_properties() -> None:
    assert "has no properties" in invalid({"type": "object", "properties": {}})
    assert "has no properties" in invalid({"type": "array", "items": "nope"})
    assert "has no properties" in invalid({"type": "array", "items": {"type": "object", "properties": {}}})


def test_json_schema_property_needs_x_selector() -> None:
    message = invalid({"type": "object", "properties": {"name": {"type": "string"}}})
    assert "property 'name' needs an x-selector field spec" in message
    assert "x-selector" in invalid({"type": "object", "properties": {"name": {"type": "string", "x-selector": 5}}})


def test_json_schema_bad_x_selector_is_reported_like_a_field() -> None:
    message = invalid({"type": "object", "properties": {"p": {"type": "number", "x-selector": "td | cents"}}})
    assert "field 'p': unknown operation 'cents'" in message


def test_invalid_json_schema() -> None:
    message = invalid({"type": "object", "properties": {"a": {"type": "word", "x-selector": "td"}}})
    assert message.startswith("schema: not a valid JSON Schema:")
    assert "'word'" in message
    assert "not a valid JSON Schema" in invalid(
        {"type": "object", "properties": {"a": {"x-selector": "td"}}, "required": "a"}
    )


def test_validate_rows_lists_every_failure() -> None:
    schema = parse_schema(OBJECT_SCHEMA)
    assert schema.row_schema is not None
    rows = [
        {"name": "ok", "price": 3, "qty": None, "in_stock": True, "done": False, "link": "/a"},
        {"name": "bad", "price": "3 EUR", "qty": 1.5, "in_stock": True, "done": None, "link": "/b"},
        {"price": 1},
    ]
    problems = validate_rows(rows, schema.row_schema)
    assert {"row": 1, "path": "price", "message": '"3 EUR" is not of type number'} in problems
    assert {"row": 1, "path": "qty", "message": "1.5 is not of type integer or null"} in problems
    assert {"row": 1, "path": "done", "message": "null is not of type boolean"} in problems
    assert {"row": 2, "path": "(row)", "message": 'the required property "name" is missing'} in problems
    assert all(p["row"] != 0 for p in problems)
    assert all(set(p) == {"row", "path", "message"} for p in problems)
    assert [p["row"] for p in problems] == sorted(p["row"] for p in problems)


def test_validate_rows_nested_paths() -> None:
    row_schema = {
        "type": "object",
        "properties": {"tags": {"type": "array", "items": {"type": "string"}, "x-selector": "td"}},
    }
    assert validate_rows([{"tags": ["a", 2]}], row_schema) == [
        {"row": 0, "path": "tags/1", "message": "2 is not of type string"}
    ]
    assert validate_rows([], row_schema) == []
