"""Finding the command a tool call names: tools, discriminators and the parameters every mode gets."""

from __future__ import annotations

from typing import Any

import pytest

from tabpilot.engine.catalog import build_registry
from tabpilot.engine.contract.commands import DISCRIMINATOR, TOOLS, Command, Registry
from tabpilot.engine.errors import TabpilotError


@pytest.fixture
def registry() -> Registry:
    return build_registry()


def refused(registry: Registry, tool: str, args: dict[str, Any]) -> TabpilotError:
    with pytest.raises(TabpilotError) as info:
        registry.resolve(tool, args)
    assert info.value.code == "invalid_params"
    return info.value


def test_unknown_tool_lists_the_four_tools(registry: Registry) -> None:
    err = refused(registry, "browse", {"what": "page"})
    assert err.message == "Unknown tool 'browse'; the tools are observe, interact, configure, generate."
    assert err.details["param"] == "tool"


@pytest.mark.parametrize("tool", TOOLS)
@pytest.mark.parametrize("value", [None, "", 5, ["page"]])
def test_missing_or_malformed_discriminator_lists_the_modes(registry: Registry, tool: str, value: Any) -> None:
    key = DISCRIMINATOR[tool]
    args = {} if value is None else {key: value}
    err = refused(registry, tool, args)
    modes = ", ".join(registry.mode_names(tool))
    assert err.message == f"{tool}: '{key}' is required; one of {modes}."
    assert err.details["param"] == key


def test_unknown_mode_lists_the_modes(registry: Registry) -> None:
    err = refused(registry, "observe", {"what": "cookies"})
    modes = [c.mode for c in registry.modes("observe")]
    assert err.message == f"observe: unknown what 'cookies'; one of {', '.join(modes)}."
    assert {"page", "dom", "tabs", "pilot", "command_result"} <= set(modes)


def test_resolve_returns_the_command_and_validated_params(registry: Registry) -> None:
    command, params = registry.resolve("interact", {"action": "navigate", "url": "https://a.test/"})
    assert command.name == "interact.navigate"
    assert command.kind == "navigate"
    assert params == {
        "url": "https://a.test/",
        "wait_until": "load",
        "timeout_ms": 30_000,
        "tab_id": None,
        "background": False,
    }


def test_tab_targeting_commands_take_tab_id(registry: Registry) -> None:
    _, params = registry.resolve("observe", {"what": "page", "tab_id": 7})
    assert params == {"tab_id": 7}
    err = refused(registry, "observe", {"what": "tabs", "tab_id": 7})
    assert "unknown parameter 'tab_id'" in err.message


def test_background_is_offered_everywhere_but_observe(registry: Registry) -> None:
    for command in registry.all():
        names = {p.name for p in command.all_params}
        assert ("background" in names) == (command.tool != "observe"), command.name
    err = refused(registry, "observe", {"what": "page", "background": True})
    assert "unknown parameter 'background'" in err.message


def test_only_the_human_turns_the_pilot_on(registry: Registry) -> None:
    """No agent-reachable command is about the pilot switch except observe's read-only view."""
    for command in registry.all():
        names = {p.name for p in command.all_params}
        assert "ai_web_pilot" not in names and "pilot" not in names, command.name
        if "pilot" in command.mode:
            assert command.name == "observe.pilot"


def test_every_interact_mode_is_pilot_gated(registry: Registry) -> None:
    assert registry.modes("interact")
    assert all(c.pilot_gated for c in registry.modes("interact"))
    assert not any(c.pilot_gated for c in registry.modes("observe"))


def test_duplicate_commands_are_refused(registry: Registry) -> None:
    existing = registry.modes("observe")[0]
    with pytest.raises(ValueError, match="duplicate command observe"):
        registry.add(Command("observe", existing.mode, "read", "again", existing.handler))
