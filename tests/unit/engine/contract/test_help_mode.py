"""`observe {what:"help"}`: any mode's parameters, result and example, generated from its definition."""

from __future__ import annotations

import pytest

from tabpilot.agent.tools import build_tools
from tabpilot.engine.catalog import build_registry
from tabpilot.engine.contract.steps import step_kinds
from tabpilot.engine.core import Engine
from tabpilot.engine.errors import TabpilotError


async def test_help_for_one_mode_gives_its_parameters_and_a_valid_example(engine: Engine) -> None:
    out = await engine.call("observe", {"what": "help", "mode": "interact.click"})
    assert out["mode"] == "interact.click" and out["needs"] == "pilot + approval"
    names = [p["name"] for p in out["parameters"]]
    assert names[0] == "selector" and {"button", "click_count", "modifiers", "timeout_ms", "tab_id"} <= set(names)
    timeout = next(p for p in out["parameters"] if p["name"] == "timeout_ms")
    assert (timeout["default"], timeout["minimum"], timeout["maximum"]) == (10_000, 100, 120_000)
    example = out["example"]
    command, _ = engine.registry.resolve(example["tool"], example["arguments"])  # an example that validates
    assert command.name == "interact.click"
    assert out["workflow_step"]["type"] == "click"


async def test_short_names_and_operations_are_found(engine: Engine) -> None:
    assert (await engine.call("observe", {"what": "help", "mode": "click"}))["mode"] == "interact.click"
    extract = await engine.call("observe", {"what": "help", "mode": "scrape.extract"})
    assert extract["mode"] == "interact.scrape.extract" and extract["operation"] == "extract"
    scrape = await engine.call("observe", {"what": "help", "mode": "scrape"})
    assert [m["operation"] for m in scrape["modes"]] == ["extract", "workflow", "replay"]


async def test_without_a_mode_every_mode_is_listed(engine: Engine) -> None:
    out = await engine.call("observe", {"what": "help"})
    listed = {name for modes in out["tools"].values() for name in modes}
    assert {c.name for c in build_registry().all()} <= listed


async def test_steps_lists_every_workflow_step_kind(engine: Engine) -> None:
    out = await engine.call("observe", {"what": "help", "mode": "steps"})
    assert [s["type"] for s in out["steps"]] == list(step_kinds())


async def test_an_unknown_mode_names_the_modes(engine: Engine) -> None:
    with pytest.raises(TabpilotError) as info:
        await engine.call("observe", {"what": "help", "mode": "interact.wiggle"})
    assert info.value.code == "invalid_params"
    assert "interact.click" in info.value.message


def test_the_help_mode_is_named_in_tools_list() -> None:
    observe = next(t for t in build_tools(build_registry()) if t.name == "observe")
    assert "help" in observe.input_schema["properties"]["what"]["enum"]
    assert "help" in (observe.description or "")


async def test_a_parent_mode_lists_its_operations(engine: Engine) -> None:
    """`help interact.scrape` was refused: help existed only as interact.scrape.extract and its siblings."""
    for name in ("interact.scrape", "scrape"):
        answer = await engine.call("observe", {"what": "help", "mode": name})
        assert [m["mode"] for m in answer["modes"]] == [
            "interact.scrape.extract",
            "interact.scrape.workflow",
            "interact.scrape.replay",
        ], name


async def test_a_cli_subcommands_name_finds_its_mode(engine: Engine) -> None:
    """`tabpilot help mock-route` was refused: only configure.mock_route was known."""
    for name, mode in (
        ("mock-route", "configure.mock_route"),
        ("goto", "interact.navigate"),
        ("js", "interact.execute_js"),
    ):
        assert (await engine.call("observe", {"what": "help", "mode": name}))["mode"] == mode
