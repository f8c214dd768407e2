"""The command registry: the one list that the MCP tools, the CLI, workflow steps and the docs derive from."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from tabpilot.engine.errors import TabpilotError
from tabpilot.engine.params import Param, validate

if TYPE_CHECKING:
    from tabpilot.engine.context import CommandContext
    from tabpilot.engine.core import Engine

Kind = Literal["read", "navigate", "mutate"]
ToolName = Literal["observe", "interact", "configure", "generate"]

TOOLS: tuple[ToolName, ...] = ("observe", "interact", "configure", "generate")
DISCRIMINATOR: dict[str, str] = {
    "observe": "what",
    "interact": "action",
    "configure": "action",
    "generate": "type",
}

Handler = Callable[["CommandContext", dict[str, Any]], Awaitable[dict[str, Any]]]


@dataclass(frozen=True)
class ApprovalScope:
    """What a person approves: the page-changing steps (all at once for a workflow) and where."""

    steps: list[dict[str, Any]]
    origin: str = ""
    workflow_id: str = ""
    steps_hash: str = ""
    selector: str | None = None
    acts_on_current_tab: bool = False
    """Some step changes the page the tab shows now (before any navigate): its site counts too."""
    site_free: bool = False
    """Not about any site (saving or deleting a workflow): no standing rule for a site covers it."""


ApprovalSteps = Callable[["Engine", dict[str, Any]], ApprovalScope | None]

BACKGROUND = Param("background", "boolean", "answer {status:'queued'} at once", default=False)
TAB_ID = Param("tab_id", "integer", "tab (default: tracked, else active)")


@dataclass(frozen=True)
class Command:
    tool: ToolName
    mode: str
    kind: Kind
    summary: str
    handler: Handler
    params: tuple[Param, ...] = ()
    pilot_gated: bool = False
    """Needs AI Web Pilot ON. Everything under `interact` is; reads are not."""
    capability: str | None = None
    """A per-capability toggle that must also be on (execute_js, page_actions, scrape, ...)."""
    targets_tab: bool = False
    wait_param: str | None = None
    """A parameter holding how long the call waits before answering {status:'running'} (workflows)."""
    default_wait_ms: int = 30_000
    approval_steps: ApprovalSteps | None = None
    """For a command whose need for approval depends on its parameters (a workflow): what changes a
    page, approved all at once. None or no steps: no approval needed."""
    all_params: tuple[Param, ...] = field(init=False)

    def __post_init__(self) -> None:
        extra: list[Param] = []
        if self.targets_tab:
            extra.append(TAB_ID)
        if self.tool != "observe":
            extra.append(BACKGROUND)
        object.__setattr__(self, "all_params", self.params + tuple(extra))

    @property
    def name(self) -> str:
        return f"{self.tool}.{self.mode}"

    def validate(self, args: dict[str, Any]) -> dict[str, Any]:
        return validate(self.all_params, args, f"{self.tool} {DISCRIMINATOR[self.tool]}={self.mode}")


class Registry:
    def __init__(self) -> None:
        self._commands: dict[tuple[str, str], Command] = {}

    def add(self, command: Command) -> Command:
        key = (command.tool, command.mode)
        if key in self._commands:
            raise ValueError(f"duplicate command {command.name}")
        self._commands[key] = command
        return command

    def extend(self, commands: Iterable[Command]) -> None:
        for command in commands:
            self.add(command)

    def modes(self, tool: str) -> list[Command]:
        return [c for (t, _), c in self._commands.items() if t == tool]

    def all(self) -> list[Command]:
        return list(self._commands.values())

    def resolve(self, tool: str, args: dict[str, Any]) -> tuple[Command, dict[str, Any]]:
        """Find the command an agent's tool call names and validate its parameters."""
        if tool not in DISCRIMINATOR:
            raise TabpilotError(
                "invalid_params", f"Unknown tool '{tool}'; the tools are {', '.join(TOOLS)}.", param="tool"
            )
        key = DISCRIMINATOR[tool]
        modes = [c.mode for c in self.modes(tool)]
        mode = args.get(key)
        if not isinstance(mode, str) or not mode:
            raise TabpilotError("invalid_params", f"{tool}: '{key}' is required; one of {', '.join(modes)}.", param=key)
        command = self._commands.get((tool, mode))
        if command is None:
            raise TabpilotError(
                "invalid_params",
                f"{tool}: unknown {key} '{mode}'; one of {', '.join(modes)}.",
                param=key,
            )
        rest = {k: v for k, v in args.items() if k != key}
        return command, command.validate(rest)
