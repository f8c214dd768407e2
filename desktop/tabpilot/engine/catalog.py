"""All commands Tabpilot offers, gathered into one registry."""

from __future__ import annotations

from tabpilot.engine import (
    a11y,
    checks,
    configure,
    dialogs,
    emulation,
    generate,
    handoffs,
    har,
    interact,
    observe,
    page_actions,
    performance,
    printing,
    reading,
    routes,
    scrape,
    screenshots,
    snapshot,
    state_snapshots,
    tab_commands,
    telemetry,
    visual_diff,
    workflow_commands,
)
from tabpilot.engine.commands import Registry


def build_registry() -> Registry:
    registry = Registry()
    for module in (
        observe,
        reading,
        telemetry,
        a11y,
        interact,
        page_actions,
        tab_commands,
        scrape,
        snapshot,
        workflow_commands,
        configure,
        state_snapshots,
        screenshots,
        generate,
        visual_diff,
        dialogs,
        handoffs,
        checks,
        emulation,
        routes,
        printing,
        har,
        performance,
    ):
        registry.extend(module.COMMANDS)
    return registry
