"""All commands Tabpilot offers, gathered into one registry."""

from __future__ import annotations

from tabpilot.engine import (
    a11y,
    configure,
    dialogs,
    generate,
    handoffs,
    interact,
    observe,
    scrape,
    telemetry,
    workflow_commands,
)
from tabpilot.engine.commands import Registry


def build_registry() -> Registry:
    registry = Registry()
    for module in (
        observe,
        telemetry,
        a11y,
        interact,
        scrape,
        workflow_commands,
        configure,
        generate,
        dialogs,
        handoffs,
    ):
        registry.extend(module.COMMANDS)
    return registry
