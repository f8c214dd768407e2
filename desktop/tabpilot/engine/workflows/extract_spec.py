"""Field specs for structured extraction: `"<css> | text | html | attr:NAME | number | boolean"`.

A schema is either a mapping of field name to spec, or a JSON Schema (an object, or an array of
objects) whose properties carry their spec in `x-selector`; the JSON Schema then also validates rows.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from tabpilot.engine.errors import TabpilotError

VALUE_OPS = ("text", "html", "attr")
MAX_FIELDS = 100


@dataclass(frozen=True)
class FieldSpec:
    name: str
    selector: str
    """'' is the row element itself."""
    ops: tuple[dict[str, str], ...]

    def wire(self) -> dict[str, Any]:
        return {"name": self.name, "selector": self.selector, "ops": [dict(op) for op in self.ops]}


@dataclass(frozen=True)
class ExtractSchema:
    fields: tuple[FieldSpec, ...]
    row_schema: dict[str, Any] | None = None
    """The JSON Schema a row must satisfy, when the request gave one."""
    notes: list[str] = field(default_factory=list)

    def wire(self) -> list[dict[str, Any]]:
        return [f.wire() for f in self.fields]


def split_spec(spec: str) -> list[str]:
    """Split on `|` outside brackets, parentheses and quotes (`[lang|=en]` stays whole)."""
    parts: list[str] = []
    depth, quote, start = 0, "", 0
    for i, ch in enumerate(spec):
        if quote:
            if ch == quote and spec[i - 1] != "\\":
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch in "[(":
            depth += 1
        elif ch in "])":
            depth = max(0, depth - 1)
        elif ch == "|" and depth == 0 and spec[i + 1 : i + 2] != "=":
            parts.append(spec[start:i])
            start = i + 1
    parts.append(spec[start:])
    return [p.strip() for p in parts]


def parse_field(name: str, spec: Any, where: str = "schema") -> FieldSpec:
    if not isinstance(spec, str):
        raise TabpilotError(
            "invalid_params",
            f"{where}: field '{name}' must be a spec string like \"td.name | text\", got {type(spec).__name__}.",
            param="schema",
        )
    selector, *op_words = split_spec(spec)
    if selector == ".":
        selector = ""
    ops: list[dict[str, str]] = []
    for word in op_words:
        op, _, arg = word.partition(":")
        op = op.strip().lower()
        if op == "attr":
            if not arg.strip():
                raise TabpilotError(
                    "invalid_params",
                    f"{where}: field '{name}': attr needs a name, as in attr:href.",
                    param="schema",
                )
            ops.append({"op": "attr", "name": arg.strip()})
        elif op in ("text", "html", "number", "boolean") and not arg:
            ops.append({"op": op})
        else:
            raise TabpilotError(
                "invalid_params",
                f"{where}: field '{name}': unknown operation '{word}'; use text, html, attr:NAME, number, boolean.",
                param="schema",
            )
    if not ops:
        ops.append({"op": "text"})
    for later in ops[1:]:
        if later["op"] in VALUE_OPS:
            raise TabpilotError(
                "invalid_params",
                f"{where}: field '{name}': '{later['op']}' reads the element, so it can only come first.",
                param="schema",
            )
    return FieldSpec(name, selector, tuple(ops))


def parse_schema(schema: Any, where: str = "schema") -> ExtractSchema:
    if not isinstance(schema, dict) or not schema:
        raise TabpilotError(
            "invalid_params",
            f"{where} must be an object of field specs, or a JSON Schema with x-selector properties.",
            param="schema",
        )
    if _is_json_schema(schema):
        return _from_json_schema(schema, where)
    if len(schema) > MAX_FIELDS:
        raise TabpilotError("invalid_params", f"{where}: at most {MAX_FIELDS} fields.", param="schema")
    return ExtractSchema(tuple(parse_field(str(name), spec, where) for name, spec in schema.items()))


def _is_json_schema(schema: dict[str, Any]) -> bool:
    return schema.get("type") in ("object", "array") and ("properties" in schema or "items" in schema)


def _from_json_schema(schema: dict[str, Any], where: str) -> ExtractSchema:
    row: dict[str, Any] = schema
    if schema.get("type") == "array":
        items = schema.get("items")
        row = items if isinstance(items, dict) else {}
    props = row.get("properties")
    if not isinstance(props, dict) or not props:
        raise TabpilotError("invalid_params", f"{where}: the JSON Schema has no properties.", param="schema")
    _check_json_schema(row, where)
    fields = []
    for name, prop in props.items():
        if not isinstance(prop, dict) or not isinstance(prop.get("x-selector"), str):
            raise TabpilotError(
                "invalid_params",
                f"{where}: property '{name}' needs an x-selector field spec, like \"td.price | number\".",
                param="schema",
            )
        spec = parse_field(str(name), prop["x-selector"], where)
        implied = _implied_conversion(prop)
        if implied and not any(op["op"] == implied for op in spec.ops):
            spec = FieldSpec(spec.name, spec.selector, (*spec.ops, {"op": implied}))
        fields.append(spec)
    return ExtractSchema(tuple(fields), row_schema=row)


def _implied_conversion(prop: dict[str, Any]) -> str | None:
    kinds = prop.get("type")
    kinds = kinds if isinstance(kinds, list) else [kinds]
    if "number" in kinds or "integer" in kinds:
        return "number"
    if "boolean" in kinds:
        return "boolean"
    return None


def _check_json_schema(row: dict[str, Any], where: str) -> None:
    import jsonschema

    clean = strip_extensions(row)
    try:
        jsonschema.validators.validator_for(clean).check_schema(clean)
    except jsonschema.SchemaError as exc:
        raise TabpilotError(
            "invalid_params", f"{where}: not a valid JSON Schema: {exc.message}", param="schema"
        ) from exc


def strip_extensions(schema: Any) -> Any:
    if isinstance(schema, dict):
        return {k: strip_extensions(v) for k, v in schema.items() if not k.startswith("x-")}
    if isinstance(schema, list):
        return [strip_extensions(v) for v in schema]
    return schema


def validate_rows(rows: list[dict[str, Any]], row_schema: dict[str, Any]) -> list[dict[str, Any]]:
    """Every way each row fails the schema: `{row, path, message}`."""
    import jsonschema

    clean = strip_extensions(row_schema)
    validator = jsonschema.validators.validator_for(clean)(clean)
    problems = []
    for index, row in enumerate(rows):
        for error in sorted(validator.iter_errors(row), key=lambda e: list(e.path)):
            path = "/".join(str(p) for p in error.absolute_path) or "(row)"
            problems.append({"row": index, "path": path, "message": _message(error)})
    return problems


def _shown(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 60 else text[:57] + "..."


def _message(error: Any) -> str:
    """jsonschema's message in JSON's words (null, true, "text"), not Python's (None, True, 'text')."""
    expected = error.validator_value
    if error.validator == "type":
        names = expected if isinstance(expected, list) else [expected]
        return f"{_shown(error.instance)} is not of type {' or '.join(str(n) for n in names)}"
    if error.validator == "enum" and isinstance(expected, list):
        return f"{_shown(error.instance)} is not one of {_shown(expected)}"
    if error.validator == "const":
        return f"{_shown(error.instance)} is not {_shown(expected)}"
    if error.validator == "required" and isinstance(error.instance, dict) and isinstance(expected, list):
        missing = [name for name in expected if name not in error.instance]
        if missing:
            return f"the required property {_shown(missing[0])} is missing"
    return str(error.message)
