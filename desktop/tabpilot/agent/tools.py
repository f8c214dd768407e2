"""The four MCP tools, derived from the command registry: compact schemas and annotations by kind."""

from __future__ import annotations

from typing import Any

import mcp_types as types

from tabpilot.engine.commands import DISCRIMINATOR, TOOLS, Command, Registry

TOOL_PURPOSE = {
    "observe": "Read the browser: never changes the page, works with AI Web Pilot off.",
    "interact": "Act on the page in the user's browser. Needs AI Web Pilot ON (only the user can turn it "
    "on); page-changing steps may need the user's approval.",
    "configure": "Session settings: which tab to work in.",
    "generate": "Make artifacts from the page.",
}
LONG_RUNNING_NOTE = (
    "Slow calls answer {status:'running'|'queued'|'awaiting_approval', correlation_id}; "
    "fetch the outcome with observe what=command_result."
)


def annotations_for(tool: str, commands: list[Command]) -> types.ToolAnnotations:
    """The one place where command kinds become MCP hints."""
    kinds = {c.kind for c in commands}
    read_only = kinds == {"read"} and tool != "configure"
    return types.ToolAnnotations(
        read_only_hint=read_only,
        destructive_hint="mutate" in kinds,
        idempotent_hint=read_only,
        open_world_hint=bool(kinds & {"navigate", "mutate"}),
    )


def _mode_line(command: Command) -> str:
    required = [p.name for p in command.params if p.required]
    needs = f" ({', '.join(required)})" if required else ""
    return f"{command.mode}{needs}: {command.summary}"


def input_schema(tool: str, commands: list[Command]) -> dict[str, Any]:
    key = DISCRIMINATOR[tool]
    props: dict[str, Any] = {key: {"type": "string", "enum": [c.mode for c in commands]}}
    users: dict[str, list[str]] = {}
    for command in commands:
        for param in command.all_params:
            if param.name not in props:
                props[param.name] = {**param.schema(), "description": param.doc}
            users.setdefault(param.name, []).append(command.mode)
    for name, modes in users.items():
        if len(commands) > 1 and len(modes) < len(commands):
            props[name]["description"] = f"[{','.join(modes)}] {props[name]['description']}"
    return {"type": "object", "properties": props, "required": [key]}


def build_tools(registry: Registry) -> list[types.Tool]:
    tools = []
    for tool in TOOLS:
        commands = registry.modes(tool)
        if not commands:
            continue
        lines = [TOOL_PURPOSE[tool], *(_mode_line(c) for c in commands)]
        if tool != "observe":
            lines.append(LONG_RUNNING_NOTE)
        tools.append(
            types.Tool(
                name=tool,
                description="\n".join(lines),
                input_schema=input_schema(tool, commands),
                annotations=annotations_for(tool, commands),
            )
        )
    return tools
