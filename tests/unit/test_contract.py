"""One definition per command: everything derived from the definitions stays in step with them.

Each test here fails when a derived list drifts: a stale generated file (the extension's operation
table, docs/commands.md, the README's tool table), a command naming an operation the extension does
not have, a mode without docs, a step kind the runner or the code generator cannot dispatch, or a
tools/list that outgrows what an agent should pay for it, a capability or approval class worded by hand.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from tabpilot import contract
from tabpilot.agent.tools import MAX_TOOLS_BYTES, build_tools, size_of
from tabpilot.engine.catalog import build_registry
from tabpilot.engine.contract.args import Args, arg
from tabpilot.engine.contract.commands import Command, Registry
from tabpilot.engine.contract.help import example_arguments
from tabpilot.engine.contract.operations import BY_NAME, OPERATIONS, problems
from tabpilot.engine.contract.results import problems as problems_of_result
from tabpilot.engine.contract.steps import page_changing_kinds, step_kinds
from tabpilot.engine.safety.capabilities import CAPABILITIES
from tabpilot.engine.safety.pilot import PilotState
from tabpilot.engine.safety.policy import action_class, class_name
from tabpilot.engine.workflows.codegen import BLOCK_KINDS, EMITTERS
from tabpilot.engine.workflows.runner import STEP_RUNNERS

ROOT = Path(__file__).resolve().parents[2]


def test_the_generated_files_are_up_to_date() -> None:
    assert contract.stale(ROOT) == [], "run `python -m tabpilot.contract` and commit what it writes"


def test_a_stale_generated_file_is_found(tmp_path: Path) -> None:
    for name in contract.GENERATED:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text((ROOT / name).read_text(encoding="utf-8"), encoding="utf-8")
    assert contract.stale(tmp_path) == []
    js = tmp_path / contract.OPERATIONS_JS
    js.write_text(js.read_text(encoding="utf-8").replace('"dom.click"', '"dom.klick"'), encoding="utf-8")
    assert contract.stale(tmp_path) == [contract.OPERATIONS_JS]


def test_the_extension_table_lists_every_operation_and_its_page_changing_ones() -> None:
    text = (ROOT / contract.OPERATIONS_JS).read_text(encoding="utf-8")
    for op in OPERATIONS:
        assert f'"{op.name}": {{' in text
    changing = text.split("PAGE_CHANGING_OPS = new Set([", 1)[1].split("])", 1)[0]
    assert {name.strip().strip('"') for name in changing.split(",")} == {o.name for o in OPERATIONS if o.page_changing}


def test_every_operation_a_command_names_exists_and_every_operation_is_used() -> None:
    registry = build_registry()
    named = {op for command in registry.all() for op in command.ops}
    assert named <= set(BY_NAME), named - set(BY_NAME)
    # tab.crop is the approval prompt's (app.py), dom.describe the session recorder's (engine/workflows/recorder.py),
    # the rest are commands' or the runner's.
    assert set(BY_NAME) - named <= {"tab.crop", "dom.count", "dom.describe"}


def test_a_request_the_extension_would_refuse_is_named() -> None:
    assert problems("dom.click", {"selector": "#a", "tab_id": 3}) == []
    assert problems("dom.click", {"selector": "#a", "force": True}) == ["dom.click: unknown parameter 'force'"]
    assert problems("dom.click", {}) == ["dom.click: 'selector' is required"]
    assert problems("dom.select", {"selector": "s", "value": ["a", "b"]}) == []
    assert problems("dom.wait", {"selector": "s", "state": "gone"}) == [
        "dom.wait: 'state' must be one of visible, attached, hidden, detached"
    ]
    assert problems("dom.clack", {}) == ["unknown operation 'dom.clack'"]


def test_every_page_changing_command_uses_only_page_changing_operations_or_reads() -> None:
    """A mutate command's bridge operation is one the extension refuses while the pilot is off."""
    for command in build_registry().all():
        if command.kind == "mutate":
            assert command.ops and all(BY_NAME[op].page_changing for op in command.ops), command.name


@pytest.mark.parametrize("command", build_registry().all(), ids=lambda c: c.name)
def test_every_mode_is_documented(command: Command[Any]) -> None:
    assert command.summary and command.result, command.name
    assert command.example_result is not None, f"{command.name} has no example result for the docs"
    for param in command.all_params:
        assert param.doc, f"{command.name}.{param.name} has no doc"
    json.dumps(command.example_result)  # plain JSON
    registry = build_registry()
    resolved, _ = registry.resolve(command.tool, example_arguments(command))
    assert resolved is not None and resolved.name == command.name
    docs = (ROOT / contract.COMMANDS_MD).read_text(encoding="utf-8")
    assert f'<a id="{command.name.replace(".", "-")}"></a>' in docs


def test_every_step_kind_runs_and_exports() -> None:
    kinds = step_kinds()
    for name, kind in kinds.items():
        assert name in STEP_RUNNERS or kind.action, f"the runner cannot run a {name} step"
        assert name in EMITTERS or name in BLOCK_KINDS, f"the Playwright generator cannot write a {name} step"
    assert set(STEP_RUNNERS) <= set(kinds) and set(EMITTERS) <= set(kinds)


def test_a_step_is_its_interact_action() -> None:
    registry = build_registry()
    for name, kind in step_kinds().items():
        command = registry.get(f"interact.{name}")
        if command is None:
            assert not kind.action
            continue
        assert command.step and kind.action
        action = {p.name: p for p in command.params if p.name != "tab_id"}
        step = {p.name: p for p in kind.params}
        for pname, param in action.items():
            assert step[pname] == param, f"step {name}.{pname} differs from the action's"
        assert (name in page_changing_kinds()) == (command.kind == "mutate")


def test_tools_list_stays_small_and_names_every_mode_however_many_there_are() -> None:
    registry = build_registry()
    tools = build_tools(registry)
    assert size_of(tools) <= MAX_TOOLS_BYTES

    @dataclasses.dataclass(frozen=True, kw_only=True)
    class ManyArgs(Args):
        selector: str = arg("CSS selector of the element this imaginary action works on")
        distance: int | None = arg("how far, in pixels, with a long explanation of the unit", default=None)
        label: str | None = arg("some label the imaginary mode takes", default=None)

    async def nothing(ctx: Any, a: ManyArgs) -> dict[str, Any]:
        return {}

    grown = build_registry()
    for n in range(90):  # the surface triples and then some
        grown.add(Command("interact", f"imagined_{n}", "navigate", f"imagined action {n}", nothing, ManyArgs))
    big = build_tools(grown)
    assert size_of(big) <= MAX_TOOLS_BYTES
    interact = next(t for t in big if t.name == "interact")
    for n in range(90):
        assert f"imagined_{n}" in (interact.description or "")
        assert f"imagined_{n}" in interact.input_schema["properties"]["action"]["enum"]


def test_a_mode_with_operations_is_resolved_by_its_operation() -> None:
    registry: Registry = build_registry()
    command, params = registry.resolve(
        "interact", {"action": "scrape", "operation": "extract", "selector": "tr", "schema": {"a": "td"}}
    )
    assert command.name == "interact.scrape.extract"
    assert params["operation"] == "extract"  # kept for the activity row, the prompt and the log


def test_every_gate_and_approval_class_comes_from_a_definition() -> None:
    registry = build_registry()
    for command in registry.all():
        assert command.capability is None or command.capability in {c.name for c in CAPABILITIES}, command.name
    # The approval prompt and the rules window word a class by the actions it covers: a new element
    # action is listed there without anyone editing the words.
    element = [c.mode for c in registry.modes("interact") if c.approval == "element"]
    assert element and all(mode in class_name("element") for mode in element)
    assert "execute_js" not in class_name("element")
    assert action_class([{"type": m} for m in element]) == "element"
    assert action_class([{"type": "click"}, {"type": "execute_js"}]) == "javascript"
    assert action_class([{"type": "click"}, {"type": "navigate"}]) == "workflows"


def test_the_capabilities_the_extension_shows_are_the_apps() -> None:
    text = (ROOT / contract.CAPABILITIES_JS).read_text(encoding="utf-8")
    assert [line.split(":", 1)[0].strip() for line in text.splitlines() if line.startswith("  ")] == [
        c.name for c in CAPABILITIES
    ]
    assert PilotState().capabilities == {c.name: c.default for c in CAPABILITIES}


def test_every_command_declares_its_result() -> None:
    """Its answer is a TypedDict (`returns`): the docs' shape, mypy's check and the suites' check come from it."""
    undeclared = [c.name for c in build_registry().all() if c.returns is None]
    assert undeclared == [], f"declare these commands' results with returns=: {', '.join(undeclared)}"


@pytest.mark.parametrize("command", [c for c in build_registry().all() if c.returns is not None], ids=lambda c: c.name)
def test_every_example_answer_fits_its_declared_result(command: Command[Any]) -> None:
    assert command.example_result is not None
    assert problems_of_result(command.example_result, command.returns) == []


def test_every_command_is_a_shell_subcommand() -> None:
    spec = contract.cli_spec()["subcommands"]
    named = {(e["tool"], e["mode"], e.get("operation")) for e in spec.values()}
    assert named == {(c.tool, c.mode, c.operation) for c in build_registry().all()}
