"""Help generated from the command definitions: what `observe {what:"help"}` answers, and the pieces
`tabpilot … --help` and docs/commands.md are made of.

Only sample values are written by hand, one per parameter name, for the modes whose definition gives
no example of its own.
"""

from __future__ import annotations

import json
from typing import Any

from tabpilot.engine.contract.commands import DISCRIMINATOR, SUB_DISCRIMINATOR, TOOLS, AnyCommand, Registry
from tabpilot.engine.contract.params import Param
from tabpilot.engine.contract.steps import step_kinds
from tabpilot.engine.errors import TabpilotError, shown

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


def example_arguments(command: AnyCommand) -> dict[str, Any]:
    """A call of `command` that its own validation accepts: its mode, required parameters, and the few
    optional ones that make the example do something."""
    args: dict[str, Any] = {DISCRIMINATOR[command.tool]: command.mode}
    if command.operation:
        args[SUB_DISCRIMINATOR] = command.operation
    if command.example is not None:
        return {**args, **command.example}
    for param in command.params:
        if param.required or param.name in SHOWN_WHEN_OPTIONAL:
            args[param.name] = _sample(param)
    return args


def gate_of(command: AnyCommand) -> str:
    """What a mode needs, in the words the help and the docs use."""
    if not command.pilot_gated:
        if command.emulates_when is not None:
            return f"no pilot needed; with {command.emulates_when}: pilot + approval (emulation)"
        return "no pilot needed"
    if command.kind == "mutate":
        return "pilot + approval"
    if command.approval_steps is not None:
        return "pilot; approval for steps that change the page"
    return "pilot"


def param_info(param: Param) -> dict[str, Any]:
    """A parameter as the help mode answers it."""
    info: dict[str, Any] = {"name": param.name, "type": param.type, "required": param.required, "doc": param.doc}
    if param.items:
        info["items"] = param.items
    if param.default is not None:
        info["default"] = param.default
    if param.enum:
        info["enum"] = list(param.enum)
    if param.minimum is not None:
        info["minimum"] = param.minimum
    if param.maximum is not None:
        info["maximum"] = param.maximum
        if param.clamp:
            info["capped"] = True
    return info


def param_line(param: Param, note: str = "") -> str:
    """A parameter as a row of docs/commands.md: `| name* | type | doc; default, range |`."""
    kind = f"{param.type} of {param.items}s" if param.items else param.type
    extra = []
    if param.enum:
        extra.append("one of " + ", ".join(f"`{v}`" for v in param.enum))
    if param.default is not None and param.default is not False:
        extra.append(f"default `{json.dumps(param.default)}`")
    if param.minimum is not None or param.maximum is not None:
        low = "" if param.minimum is None else f"{param.minimum:g}"
        high = "" if param.maximum is None else f"{param.maximum:g}"
        extra.append(f"{low}…{high}" + (" (capped)" if param.clamp else ""))
    doc = (param.doc + (f" ({'; '.join(extra)})" if extra else "") + note).replace("|", "\\|")
    return f"| `{param.name}`{'*' if param.required else ''} | {kind} | {doc} |"


def command_help(command: AnyCommand) -> dict[str, Any]:
    """Everything about one mode: what it needs, its parameters, its result and an example."""
    out: dict[str, Any] = {
        "mode": command.name,
        "tool": command.tool,
        DISCRIMINATOR[command.tool]: command.mode,
    }
    if command.operation:
        out[SUB_DISCRIMINATOR] = command.operation
    out.update(
        summary=command.summary,
        kind=command.kind,
        needs=gate_of(command),
        parameters=[param_info(p) for p in command.all_params],
        result=command.result,
        example={"tool": command.tool, "arguments": example_arguments(command)},
    )
    if command.notes:
        out["notes"] = command.notes
    if command.capability:
        out["capability"] = command.capability
    if command.example_result is not None:
        out["example_result"] = command.example_result
    if command.step:
        out["workflow_step"] = {"type": command.mode, "also": [param_info(p) for p in command.step_params]}
    return out


def steps_help() -> dict[str, Any]:
    """The workflow step kinds and their parameters."""
    return {
        "mode": "steps",
        "summary": "Workflow step kinds: {type: <kind>, ...}. A step of an interact action's kind is that action.",
        "steps": [
            {
                "type": kind.kind,
                "summary": kind.summary,
                "changes_page": kind.changes_page,
                "parameters": [param_info(p) for p in kind.params],
            }
            for kind in step_kinds().values()
        ],
    }


def overview(registry: Registry) -> dict[str, Any]:
    """Every tool and mode in a line each, and how to ask for one."""
    tools = {}
    for tool in TOOLS:
        commands = registry.modes(tool)
        if commands:
            tools[tool] = {c.name: f"{c.summary} [{gate_of(c)}]" for c in commands}
    return {
        "tools": tools,
        "more": 'observe {"what":"help","mode":"<tool>.<mode>"} for one mode\'s parameters, result and example; '
        '"steps" for workflow step kinds.',
    }


def find(registry: Registry, name: str) -> AnyCommand | list[AnyCommand] | None:
    """A mode by its name (`interact.click`, `click`, `scrape.extract`), or the modes a name fits."""
    name = name.strip().removeprefix("/")
    exact = registry.get(name) or next((c for c in registry.all() if c.subcommand.name == name), None)
    if exact is not None:
        return exact
    fits = [c for c in registry.all() if c.name.endswith("." + name) or c.name.split(".", 1)[1] == name]
    if not fits:
        # A parent mode (`interact.scrape`, `scrape`) or a tool: the operations or modes under it.
        fits = [c for c in registry.all() if c.mode == name or c.tool == name or c.name.startswith(name + ".")]
    if len(fits) == 1:
        return fits[0]
    return fits or None


def help_for(registry: Registry, mode: str | None) -> dict[str, Any]:
    """What the help mode answers for `mode` (None: the overview)."""
    if mode is None or not mode.strip():
        return overview(registry)
    if mode.strip() in ("steps", "workflow", "workflow_steps"):
        return steps_help()
    found = find(registry, mode)
    if isinstance(found, list):
        return {"mode": mode, "modes": [command_help(c) for c in found]}
    if found is None:
        names = ", ".join(c.name for c in registry.all())
        raise TabpilotError(
            "invalid_params",
            f"No mode is called {shown(mode)}; the modes are {names}, and steps (workflow step kinds).",
            param="mode",
        )
    return command_help(found)
