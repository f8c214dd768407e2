"""The command contract: every command Tabpilot offers is one `Command` definition.

A definition says everything about a command once — tool, mode (and scrape's operation), kind,
typed parameters with their limits and docs (an `Args` dataclass), the result's shape with an example,
the bridge operations it uses, the capability that gates it, its approval class, and whether it is a
workflow step. From it come: validation and the handler's typed arguments, the MCP tool schemas
(agent/tools.py), the help mode and `tabpilot … --help` (engine/contract/help.py, cli/tool_help.py), the workflow
step kinds (engine/contract/steps.py), the runner's and the code generator's dispatch, the extension's
operation allow-list (engine/contract/operations.py → extension/background/operations.js) and
docs/commands.md with the README's tool table (tabpilot/contract.py). Tests fail when any of those
drift from the definitions.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, Literal

from tabpilot.engine.contract import results
from tabpilot.engine.contract.args import A, Args, NoArgs, TabArgs, build, params_of
from tabpilot.engine.contract.params import Param, validate
from tabpilot.engine.errors import TabpilotError, shown

if TYPE_CHECKING:
    from tabpilot.engine.context import CommandContext
    from tabpilot.engine.core import Engine
    from tabpilot.engine.safety.tab_owners import Session

Kind = Literal["read", "navigate", "mutate", "config"]
"""read: changes nothing; navigate: moves a tab to another page (or scrolls it); mutate: changes a page
(needs approval); config: changes Tabpilot's own data (tracked tab, saved workflows, capture buffers)."""
ToolName = Literal["observe", "interact", "configure", "generate"]
ApprovalClass = Literal["element", "javascript", "state", "emulation", "network", "workflows"]

TOOLS: tuple[ToolName, ...] = ("observe", "interact", "configure", "generate")
DISCRIMINATOR: dict[str, str] = {
    "observe": "what",
    "interact": "action",
    "configure": "action",
    "generate": "type",
}
SUB_DISCRIMINATOR = "operation"
"""A mode with several operations (`interact scrape`) names one with this parameter."""


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
    action_class: ApprovalClass | None = None
    """The class this call is asked as when its parameters decide it (a mock that can run in the page is
    JavaScript, not network); None: the command's own class."""
    pinned: Any = None
    """What the steps were read from (a replay's saved workflow, read once): the handler runs this copy
    (`CommandContext.pinned`), never the file read again, so what runs is what was approved even when the
    file changes while the prompt waits. Kept even when no step needs approval."""


ApprovalSteps = Callable[["Engine", dict[str, Any], "Session"], ApprovalScope | None]
"""What a call would need approved, from the engine, its parameters and who is calling."""
Handler = Callable[["CommandContext", A], Awaitable[Mapping[str, Any]]]
"""Answers the command's result, annotated as the TypedDict the command declares (`Command.returns`) so mypy
checks what it builds; tests/unit/engine/test_handler_types.py holds every handler to that. What the browser
built comes in through `results.relayed`, the one cast."""


@dataclass(frozen=True)
class Cli:
    """How a command is a subcommand of the shell CLI (`tabpilot goto URL`, `tabpilot text [SEL]`).

    The CLI reads this from the generated desktop/tabpilot/cli/cli_spec.json (so it need not import the
    engine); every parameter not named here is a `--long-option`, and `tabpilot SUBCOMMAND --help` is
    made from the definition.
    """

    name: str
    positional: tuple[str, ...] = ()
    """Parameters given in order without a flag (`fill SEL VALUE`); an optional one may be left out."""
    short: tuple[tuple[str, str], ...] = ()
    """(parameter, letter) pairs: a one-letter flag besides the long one (`snapshot -i`)."""
    show: str = ""
    """What stdout shows: "" a readable rendering of the result; `field` that field as it is (`text`);
    `rows:field:a,b,c` a line per item of the list `field`, keys a, b, c separated by tabs (a key may also
    be one of shell.DERIVED_CELLS, a cell made from the item: `whose`, a tab's owner in words)."""
    save: bool = False
    """The result carries a file (a screenshot): an optional trailing PATH says where the CLI writes it."""
    verdict: str = ""
    """A boolean field of the result that says whether what was checked holds (`passed`, `match`): when it
    is false the CLI says so on stderr and exits 1, so a script or CI can stop on it."""


BACKGROUND = Param("background", "boolean", "answer {status:'queued'} at once", default=False)


@dataclass(frozen=True)
class Command(Generic[A]):
    tool: ToolName
    mode: str
    kind: Kind
    summary: str
    """One line for tools/list and the help: what the mode does."""
    handler: Handler[A]
    args: type[A] = NoArgs  # type: ignore[assignment]
    """The typed parameters (an Args dataclass): validation, schema and docs come from its fields."""
    returns: type[Any] | None = None
    """The result's declaration, a TypedDict: the handler's return type, the docs' shape (`result`), and
    what the test suites check every real answer against (engine/contract/results.py)."""
    result: str = ""
    """The result's shape, as the docs show it: `{url, title, ...}`; made from `returns` when not given."""
    notes: str = ""
    """What else a user of the mode should know (docs/commands.md and the help mode show it)."""
    example: dict[str, Any] | None = None
    """An example call's parameters (without the mode); None: made from sample values."""
    example_result: dict[str, Any] | None = None
    """What that call answers, for the docs and the help mode."""
    operation: str | None = None
    """For a mode with several operations (scrape): which one this definition is."""
    ops: tuple[str, ...] = ()
    """The bridge operations the handler sends to the extension (engine/contract/operations.py has them all)."""
    pilot_gated: bool = False
    """Needs AI Web Pilot ON. Everything under `interact` is; reads are not."""
    capability: str | None = None
    """A per-capability toggle that must also be on (execute_js, page_actions, scrape, ...)."""
    approval: ApprovalClass | None = None
    """The class of standing rule that can cover it; None: no approval, or it depends on the call
    (approval_steps)."""
    step: bool = False
    """A workflow step of kind `mode` is this action: the same parameters, the same limits."""
    step_params: tuple[Param, ...] = ()
    """Parameters only a workflow step has (navigate's allow_redirect)."""
    wait: Param | None = None
    """A parameter holding how long the call waits before answering {status:'running'} (workflows)."""
    default_wait_ms: int = 30_000
    cli: Cli | None = None
    """Its subcommand in the shell CLI; None: only through `tabpilot call`."""
    approval_steps: ApprovalSteps | None = None
    """For a command whose need for approval depends on its parameters (a workflow): what changes a
    page, approved all at once. None or no steps: no approval needed."""
    emulates_when: str | None = None
    """A boolean parameter that, true, makes this read emulate a device in the tab, which the page can
    observe (`generate screenshot responsive:true` resizes it, and its resize listeners run): the call is
    then gated and approved as the `emulation` class is (configure emulate_device): the pilot on, and a
    person's yes or a standing emulation rule. False or absent: the plain read it is."""
    params: tuple[Param, ...] = field(init=False)
    """The declared parameters (from `args`)."""
    all_params: tuple[Param, ...] = field(init=False)
    """What a call may pass: the declared ones, the wait, and `background` (all tools but observe)."""

    def __post_init__(self) -> None:
        declared = params_of(self.args)
        extra: list[Param] = [self.wait] if self.wait is not None else []
        if self.tool != "observe":
            extra.append(BACKGROUND)
        object.__setattr__(self, "params", declared)
        object.__setattr__(self, "all_params", declared + tuple(extra))
        if self.returns is not None and not self.result:
            object.__setattr__(self, "result", results.shape(self.returns))
        if self.kind == "mutate" and self.approval is None and self.approval_steps is None:
            raise ValueError(f"{self.name}: a page-changing command needs an approval class")

    def emulates(self, params: Mapping[str, Any]) -> bool:
        """Does this call emulate a device in the tab (see `emulates_when`)?"""
        return self.emulates_when is not None and params.get(self.emulates_when) is True

    def gated(self, params: Mapping[str, Any]) -> bool:
        """Does this call need AI Web Pilot on?"""
        return self.pilot_gated or self.emulates(params)

    def approval_class(self, params: Mapping[str, Any]) -> ApprovalClass | None:
        """The class of standing rule that can cover this call."""
        return "emulation" if self.approval is None and self.emulates(params) else self.approval

    @property
    def name(self) -> str:
        return f"{self.tool}.{self.mode}" + (f".{self.operation}" if self.operation else "")

    @property
    def title(self) -> str:
        """How a person reads the mode: `interact action=scrape operation=extract`."""
        head = f"{self.tool} {DISCRIMINATOR[self.tool]}={self.mode}"
        return head + (f" {SUB_DISCRIMINATOR}={self.operation}" if self.operation else "")

    @property
    def subcommand(self) -> Cli:
        """The command in the shell CLI: its own `cli`, else a subcommand named after the mode (every
        command is one; `cli` only names it otherwise, or takes parameters in order)."""
        if self.cli is not None:
            return self.cli
        name = self.mode if self.operation is None else f"{self.mode}_{self.operation}"
        return Cli(name.replace("_", "-"))

    @property
    def targets_tab(self) -> bool:
        return issubclass(self.args, TabArgs)

    @property
    def wait_param(self) -> str | None:
        return self.wait.name if self.wait is not None else None

    def validate(self, args: dict[str, Any]) -> dict[str, Any]:
        return validate(self.all_params, args, self.title)

    def typed(self, values: dict[str, Any]) -> A:
        return build(self.args, values)

    async def run(self, ctx: CommandContext, values: dict[str, Any]) -> dict[str, Any]:
        """The handler, with its typed arguments."""
        answer = await self.handler(ctx, self.typed(values))
        if self.returns is not None and results.checking():
            wrong = results.problems(
                answer,
                self.returns,
                also=results.TabFields if self.targets_tab else None,
                partial=self.targets_tab and results.cut_short(answer),
            )
            if wrong:
                raise TabpilotError("internal", f"{self.name} answered outside its declaration: {'; '.join(wrong)}.")
        return dict(answer)


AnyCommand = Command[Any]
RunCommand = Callable[[AnyCommand, "CommandContext", dict[str, Any]], Awaitable[dict[str, Any]]]
"""How an engine runs a command with its context and params (Registry.run_hook)."""


class Registry:
    def __init__(self) -> None:
        self._commands: dict[tuple[str, str, str | None], AnyCommand] = {}
        self.run_hook: Callable[[Engine], RunCommand] | None = None
        """How an engine runs a command, when not `command.run` alone: the catalog sets the recorder's (what
        agents did, for generate playwright_test), so that the core need not know the feature."""

    def add(self, command: AnyCommand) -> AnyCommand:
        key = (command.tool, command.mode, command.operation)
        if key in self._commands:
            raise ValueError(f"duplicate command {command.name}")
        if (command.tool, command.mode, None) in self._commands and command.operation:
            raise ValueError(f"{command.name}: the mode has no operations")
        self._commands[key] = command
        return command

    def extend(self, commands: Iterable[AnyCommand]) -> None:
        for command in commands:
            self.add(command)

    def modes(self, tool: str) -> list[AnyCommand]:
        """Every definition of a tool (a mode with operations: each of them)."""
        return [c for (t, _, _), c in self._commands.items() if t == tool]

    def mode_names(self, tool: str) -> list[str]:
        return list(dict.fromkeys(c.mode for c in self.modes(tool)))

    def operations(self, tool: str, mode: str) -> list[AnyCommand]:
        return [c for (t, m, o), c in self._commands.items() if t == tool and m == mode and o is not None]

    def all(self) -> list[AnyCommand]:
        return list(self._commands.values())

    def get(self, name: str) -> AnyCommand | None:
        """A definition by its name: `interact.click`, `interact.scrape.extract`."""
        parts = name.split(".")
        if len(parts) == 2:
            return self._commands.get((parts[0], parts[1], None))
        if len(parts) == 3:
            return self._commands.get((parts[0], parts[1], parts[2]))
        return None

    def resolve(self, tool: str, args: dict[str, Any]) -> tuple[AnyCommand, dict[str, Any]]:
        """Find the command an agent's tool call names and validate its parameters."""
        if tool not in DISCRIMINATOR:
            raise TabpilotError(
                "invalid_params", f"Unknown tool '{tool}'; the tools are {', '.join(TOOLS)}.", param="tool"
            )
        key = DISCRIMINATOR[tool]
        modes = self.mode_names(tool)
        mode = args.get(key)
        if not isinstance(mode, str) or not mode:
            raise TabpilotError("invalid_params", f"{tool}: '{key}' is required; one of {', '.join(modes)}.", param=key)
        command = self._commands.get((tool, mode, None))
        rest = {k: v for k, v in args.items() if k != key}
        if command is None and mode in modes:
            command = self._operation(tool, mode, rest)
            rest.pop(SUB_DISCRIMINATOR, None)
        if command is None:
            raise TabpilotError(
                "invalid_params",
                f"{tool}: unknown {key} {shown(mode)}; one of {', '.join(modes)}.",
                param=key,
            )
        values = command.validate(rest)
        if command.operation:
            # What the call named stays with it: activity rows, prompts and logs say which operation.
            values = {SUB_DISCRIMINATOR: command.operation, **values}
        return command, values

    def _operation(self, tool: str, mode: str, args: dict[str, Any]) -> AnyCommand:
        operations = self.operations(tool, mode)
        names = ", ".join(str(c.operation) for c in operations)
        given = args.get(SUB_DISCRIMINATOR)
        where = f"{tool} {DISCRIMINATOR[tool]}={mode}"
        if given is None:
            raise TabpilotError(
                "invalid_params",
                f"{where}: '{SUB_DISCRIMINATOR}' is required; one of {names}.",
                param=SUB_DISCRIMINATOR,
            )
        for command in operations:
            if command.operation == given:
                return command
        raise TabpilotError(
            "invalid_params",
            f"{where}: '{SUB_DISCRIMINATOR}' must be one of {names}; got {shown(given)}.",
            param=SUB_DISCRIMINATOR,
        )


__all__ = ["A", "Args", "NoArgs", "TabArgs"]
