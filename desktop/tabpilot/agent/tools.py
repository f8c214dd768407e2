"""The four MCP tools, derived from the command registry: compact schemas and annotations by kind."""

from __future__ import annotations

import json
from typing import Any

import mcp_types as types

from tabpilot.engine.contract.commands import DISCRIMINATOR, SUB_DISCRIMINATOR, TOOLS, AnyCommand, Registry
from tabpilot.engine.contract.params import Param

TOOL_PURPOSE = {
    "observe": "Read the user's browser; never changes a page; works with AI Web Pilot off.",
    "interact": "Act in the user's browser. Needs AI Web Pilot ON (a switch only the user has); "
    "page changes may wait for the user's approval.",
    "configure": "Session settings.",
    "generate": "Artifacts from the page.",
}
MAX_TOOLS_BYTES = 8 * 1024
"""What tools/list may cost an agent in every conversation, however many modes there are."""
FULL, SHARED_NOTES, TYPES_ONLY, TYPED_TERSE, BARE_TERSE, NAMES_ONLY, TERSE = 6, 5, 4, 3, 2, 1, 0
"""How much the tools carry (build_tools picks the most that fits): every parameter's note, the notes all
modes share, the parameters' names and types; then the same without each mode's one-line summary (the
modes named with what they require); then each parameter with its type alone (no limits, no choices: the
app still checks them, and invalid_params names them); then the parameters only as named in the mode
lines; then those lines in one."""
MAX_LISTED_MODES = 2
"""A parameter note shared by more modes than this is shown without their names."""
HELP_NOTE = 'Any mode\'s parameters and an example: observe {"what":"help","mode":"<tool>.<mode>"}.'
LONG_RUNNING_NOTE = "Slow calls answer {status, correlation_id}; poll observe command_result."


def annotations_for(tool: str, commands: list[AnyCommand]) -> types.ToolAnnotations:
    """The one place where command kinds become MCP hints."""
    kinds = {c.kind for c in commands}
    read_only = kinds == {"read"} and tool != "configure"
    return types.ToolAnnotations(
        read_only_hint=read_only,
        destructive_hint="mutate" in kinds,
        idempotent_hint=True if read_only else None,
        open_world_hint=True if kinds & {"navigate", "mutate"} else None,
    )


def _needs(command: AnyCommand) -> str:
    required = [p.name for p in command.params if p.required]
    return f" ({', '.join(required)})" if required else ""


def _mode_lines(registry: Registry, tool: str) -> list[str]:
    """One line per mode (a mode with operations: its operations on that line)."""
    lines = []
    for mode in registry.mode_names(tool):
        operations = registry.operations(tool, mode)
        if operations:
            each = "; ".join(f"{c.operation}{_needs(c)}: {c.summary}" for c in operations)
            lines.append(f"{mode} ({SUB_DISCRIMINATOR}): {each}")
        else:
            command = registry.get(f"{tool}.{mode}")
            assert command is not None
            lines.append(f"{mode}{_needs(command)}: {command.summary}")
    return lines


def _merged(params: list[tuple[str, Param]], all_modes: int) -> dict[str, Any]:
    """One property for a parameter several modes share: the widest bounds, and each mode's own note
    where their notes differ (so execute_js does not advertise navigate's timeout)."""
    schemas = [p.schema() for _, p in params]
    merged = dict(schemas[0])
    for bound, pick in (("minimum", min), ("maximum", max)):
        values = [s[bound] for s in schemas if bound in s]
        if len(values) == len(schemas):
            merged[bound] = pick(values)
        else:
            merged.pop(bound, None)
    enums = [s.get("enum") for s in schemas]
    if any(e is None for e in enums):
        merged.pop("enum", None)
    else:
        merged["enum"] = list(dict.fromkeys(v for e in enums if e for v in e))
    by_doc: dict[str, list[str]] = {}
    for mode, param in params:
        by_doc.setdefault(param.doc, []).append(mode)
    if len(by_doc) == 1 and len(params) == all_modes:
        merged["description"] = params[0][1].doc
    else:
        # A note many modes share goes first and unlabelled (its text says what it is about, e.g.
        # the tab, or how many entries a list returns); listing them all would cost more than it tells.
        parts = [
            doc if len(modes) > MAX_LISTED_MODES else f"[{','.join(modes)}] {doc}" for doc, modes in by_doc.items()
        ]
        merged["description"] = "; ".join(sorted(parts, key=lambda part: part.startswith("[")))
    return merged


def input_schema(tool: str, commands: list[AnyCommand], detail: int = FULL) -> dict[str, Any]:
    key = DISCRIMINATOR[tool]
    props: dict[str, Any] = {key: {"type": "string", "enum": list(dict.fromkeys(c.mode for c in commands))}}
    operations = [c.operation for c in commands if c.operation]
    if operations:
        props[SUB_DISCRIMINATOR] = {"type": "string", "enum": operations}
    users: dict[str, list[tuple[str, Param]]] = {}
    for command in commands:
        for param in command.all_params:
            users.setdefault(param.name, []).append((command.operation or command.mode, param))
    for name, params in users.items():
        types_seen = {p.type for _, p in params}
        if len(types_seen) > 1:
            raise ValueError(f"{tool}: parameter '{name}' has different types across modes: {types_seen}")
        props[name] = _merged(params, len(commands))
        # SHARED_NOTES: a parameter's note only when it holds for every mode that has it (one doc, no
        # per-mode labels); the per-mode notes are in the help mode.
        if detail < SHARED_NOTES or (detail == SHARED_NOTES and len({p.doc for _, p in params}) > 1):
            props[name].pop("description", None)
        elif detail == SHARED_NOTES:
            props[name]["description"] = params[0][1].doc
    if detail == BARE_TERSE:
        props = {k: (v if k in (key, SUB_DISCRIMINATOR) else {"type": v["type"]}) for k, v in props.items()}
    if detail <= NAMES_ONLY:
        # Only the modes: each mode's parameters come from the help mode and from invalid_params answers.
        props = {k: v for k, v in props.items() if k in (key, SUB_DISCRIMINATOR)}
        return {"type": "object", "properties": props, "required": [key], "additionalProperties": True}
    return {"type": "object", "properties": props, "required": [key]}


def build_tools(registry: Registry, budget: int = MAX_TOOLS_BYTES) -> list[types.Tool]:
    """The four tools as compact as the budget needs: every mode is always named with its required
    parameters; parameter notes, then the modes' summaries, then the parameters themselves give way as
    the surface grows (the help mode has them all)."""
    for detail in (FULL, SHARED_NOTES, TYPES_ONLY, TYPED_TERSE, BARE_TERSE, NAMES_ONLY, TERSE):
        tools = _tools(registry, detail)
        if size_of(tools) <= budget:
            break
    return tools


def size_of(tools: list[types.Tool]) -> int:
    """Bytes of the tools as tools/list sends them (compact JSON)."""
    dumped = [t.model_dump(by_alias=True, exclude_none=True) for t in tools]
    return len(json.dumps(dumped, ensure_ascii=False, separators=(",", ":")).encode())


def _tools(registry: Registry, detail: int) -> list[types.Tool]:
    tools = []
    for tool in TOOLS:
        commands = registry.modes(tool)
        if not commands:
            continue
        modes = _mode_lines(registry, tool)
        if detail in (
            TYPED_TERSE,
            BARE_TERSE,
            TERSE,
        ):  # each mode named, with what it requires; its summary in the help
            modes = ["Modes: " + ", ".join(line.split(": ", 1)[0] for line in modes) + ". " + HELP_NOTE]
        lines = [TOOL_PURPOSE[tool], *modes]
        if tool == "interact":
            lines.append(LONG_RUNNING_NOTE)
        tools.append(
            types.Tool(
                name=tool,
                description="\n".join(lines),
                input_schema=input_schema(tool, commands, detail),
                annotations=annotations_for(tool, commands),
            )
        )
    return tools
