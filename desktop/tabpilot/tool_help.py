"""The tools and their modes as `tabpilot mcp --help` and `tabpilot call --help` show them.

Everything comes from the command registry (engine/catalog.py): a mode added there shows up here.
Only sample values are written by hand, one per parameter name, to make each mode's example.
"""

from __future__ import annotations

import json
import textwrap
from typing import Any, Literal

from tabpilot.engine.catalog import build_registry
from tabpilot.engine.commands import DISCRIMINATOR, TOOLS, Command
from tabpilot.engine.params import Param

Style = Literal["call", "mcp"]

SAMPLES: dict[str, Any] = {
    "selector": "#search",
    "url": "https://example.com/",
    "script": "document.title",
    "value": "hello",
    "text": "hello",
    "key": "Enter",
    "correlation_id": "corr-1a2b3c4d5e6f",
    "workflow_id": "wf-news-20260101",
    "workflow": {
        "workflow_id": "wf-news-20260101",
        "name": "news",
        "steps": [{"type": "navigate", "url": "https://example.com/"}],
    },
    "schema": {"title": "h2 | text"},
}
SHOWN_WHEN_OPTIONAL = ("selector", "schema")
"""Optional parameters an example shows anyway: without them it would do little (press, scroll, scrape)."""

_BY_TYPE: dict[str, Any] = {"string": "text", "integer": 1, "number": 1, "boolean": True, "object": {}, "array": []}


def _sample(param: Param) -> Any:
    if param.name in SAMPLES:
        return SAMPLES[param.name]
    if param.enum:
        return param.enum[0]
    if param.default is not None:
        return param.default
    if param.minimum is not None and param.type in ("integer", "number"):
        return param.minimum
    return _BY_TYPE[param.type]


def example_arguments(command: Command) -> dict[str, Any]:
    """A call of `command` that its own validation accepts: its mode, required parameters, and the few
    optional ones that make the example do something."""
    args: dict[str, Any] = {DISCRIMINATOR[command.tool]: command.mode}
    for param in command.params:
        if param.required or param.name in SHOWN_WHEN_OPTIONAL:
            args[param.name] = _sample(param)
    return args


def _gate(command: Command) -> str:
    if not command.pilot_gated:
        return "no pilot needed"
    if command.kind == "mutate":
        return "pilot + approval"
    if command.approval_steps is not None:
        return "pilot; approval for steps that change the page"
    return "pilot"


def _example(command: Command, style: Style) -> str:
    args = json.dumps(example_arguments(command), ensure_ascii=False, separators=(",", ":"))
    if style == "call":
        return f"tabpilot call {command.tool} '{args}'"
    return f"{command.tool} {args}"


def tools_help(style: Style) -> str:
    """One block per tool: each mode with its summary, what it needs, its parameters and an example."""
    registry = build_registry()
    lines = [
        "Tools and modes. [no pilot needed]: works with AI Web Pilot off; [pilot]: needs AI Web Pilot",
        "ON (only the person switches it on); [pilot + approval]: also needs the person's approval or a",
        "standing rule. Parameters marked * are required; any call but observe may add",
        '"background": true to get a correlation_id at once. Full details: README.md, "Tools".',
    ]
    for tool in TOOLS:
        commands = registry.modes(tool)
        if not commands:
            continue
        lines += ["", f'{tool}  ("{DISCRIMINATOR[tool]}" names the mode)']
        width = max(len(c.mode) for c in commands)
        for command in commands:
            lines.append(f"  {command.mode:<{width}}  [{_gate(command)}] {command.summary}")
            params = [p.name + ("*" if p.required else "") for p in command.params]
            if params:
                lines += textwrap.wrap(
                    f"parameters: {', '.join(params)}", 100, initial_indent="      ", subsequent_indent="        "
                )
            lines.append(f"      e.g. {_example(command, style)}")
    return "\n".join(lines)
