"""The tools and their modes as `tabpilot mcp --help` and `tabpilot call --help` show them.

Everything comes from the command definitions (engine/catalog.py): a mode added there shows up here,
with the example its definition gives or one made from sample values (engine/contract/help.py).
"""

from __future__ import annotations

import json
import textwrap
from typing import Literal

from tabpilot.engine.catalog import build_registry
from tabpilot.engine.contract.commands import DISCRIMINATOR, TOOLS, AnyCommand
from tabpilot.engine.contract.help import example_arguments, gate_of

Style = Literal["call", "mcp"]


def _label(command: AnyCommand) -> str:
    return f"{command.mode} {command.operation}" if command.operation else command.mode


def _example(command: AnyCommand, style: Style) -> str:
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
        width = max(len(_label(c)) for c in commands)
        for command in commands:
            lines.append(f"  {_label(command):<{width}}  [{gate_of(command)}] {command.summary}")
            params = [p.name + ("*" if p.required else "") for p in command.params]
            if params:
                lines += textwrap.wrap(
                    f"parameters: {', '.join(params)}", 100, initial_indent="      ", subsequent_indent="        "
                )
            lines.append(f"      e.g. {_example(command, style)}")
    return "\n".join(lines)
