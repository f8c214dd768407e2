"""The four MCP tools as an agent lists them: names, discriminators, hints, and a small token footprint."""

from __future__ import annotations

import json
from typing import Any

import mcp_types as types
import pytest
from jsonschema import Draft202012Validator

from tabpilot.agent.tools import build_tools
from tabpilot.engine.catalog import build_registry
from tabpilot.engine.contract.commands import DISCRIMINATOR, Registry

MAX_TOOLS_JSON = 8 * 1024


@pytest.fixture
def registry() -> Registry:
    return build_registry()


@pytest.fixture
def tools(registry: Registry) -> dict[str, types.Tool]:
    return {t.name: t for t in build_tools(registry)}


def dump(tool: types.Tool) -> dict[str, Any]:
    return tool.model_dump(by_alias=True, exclude_none=True, mode="json")


def test_exactly_the_four_tools(registry: Registry) -> None:
    assert [t.name for t in build_tools(registry)] == ["observe", "interact", "configure", "generate"]


def test_the_discriminator_lists_exactly_the_registered_modes(registry: Registry, tools: dict[str, types.Tool]) -> None:
    for name, tool in tools.items():
        key = DISCRIMINATOR[name]
        schema = tool.input_schema
        assert schema["required"] == [key]
        assert schema["properties"][key]["enum"] == registry.mode_names(name), name


def test_every_parameter_of_every_mode_is_in_the_schema(registry: Registry, tools: dict[str, types.Tool]) -> None:
    # With room enough (no 8 KB budget), every parameter carries its doc; within the budget the notes are
    # the first thing dropped (the help mode has them), the names and types never.
    roomy = {t.name: t for t in build_tools(registry, budget=1 << 20)}
    for command in registry.all():
        properties = tools[command.tool].input_schema["properties"]
        full = roomy[command.tool].input_schema["properties"]
        for param in command.all_params:
            assert param.name in properties, f"{command.name} {param.name}"
            assert properties[param.name]["type"] == param.type
            docs = {p.doc for c in registry.modes(command.tool) for p in c.all_params if p.name == param.name}
            if len(docs) == 1:  # notes that differ by mode are the help mode's (tools/list stays under 8 KB)
                assert param.doc in full[param.name]["description"]
                assert properties[param.name].get("description", param.doc) == param.doc


def test_schemas_are_valid_json_schema_and_accept_real_calls(tools: dict[str, types.Tool]) -> None:
    for tool in tools.values():
        Draft202012Validator.check_schema(tool.input_schema)
    observe = Draft202012Validator(tools["observe"].input_schema)
    assert observe.is_valid({"what": "dom", "selector": "h1", "max_depth": 9})  # capped, not refused
    assert not observe.is_valid({"what": "screenshot"})
    assert not observe.is_valid({"selector": "h1"})


def test_annotations_follow_the_command_kinds(tools: dict[str, types.Tool]) -> None:
    observe = tools["observe"].annotations
    interact = tools["interact"].annotations
    assert observe is not None and interact is not None
    assert observe.read_only_hint is True and observe.destructive_hint is False
    assert not observe.open_world_hint  # left unset: reads stay in the browser
    assert interact.read_only_hint is False and interact.destructive_hint is True
    assert interact.open_world_hint is True
    configure = tools["configure"].annotations
    assert configure is not None and configure.read_only_hint is False  # it changes the session


def test_descriptions_name_every_mode_and_its_required_params(registry: Registry, tools: dict[str, types.Tool]) -> None:
    # However terse the budget makes them: each mode with what it requires, a mode's operations in the
    # schema (and, while there is room, in its line with theirs).
    for command in registry.all():
        description = tools[command.tool].description or ""
        required = [p.name for p in command.params if p.required]
        if command.operation:
            enum = tools[command.tool].input_schema["properties"]["operation"]["enum"]
            assert command.operation in enum, command.name
            continue
        named = command.mode + (f" ({', '.join(required)})" if required else "")
        assert any(named + end in description for end in (": ", ", ", ". ")), command.name
    assert "AI Web Pilot ON" in (tools["interact"].description or "")
    assert "command_result" in (tools["interact"].description or "")


def test_all_tool_definitions_fit_in_8_kb(tools: dict[str, types.Tool]) -> None:
    # Measured as the wire carries it: the MCP SDK sends tools/list as compact JSON (model_dump_json).
    size = len(json.dumps([dump(t) for t in tools.values()], separators=(",", ":")).encode())
    assert size < MAX_TOOLS_JSON, f"the tool definitions are {size} bytes (limit {MAX_TOOLS_JSON})"


def test_dumped_tools_use_the_wire_names(tools: dict[str, types.Tool]) -> None:
    wire = dump(tools["observe"])
    assert {"name", "description", "inputSchema", "annotations"} <= set(wire)
    assert "readOnlyHint" in wire["annotations"]


def test_an_empty_registry_offers_no_tools() -> None:
    assert build_tools(Registry()) == []
