"""All commands Tabpilot offers, gathered into one registry: the one module that knows every feature.

The composition root (app.py) and the generators import it and hand the registry to the Engine, so the core
stands below the features; the recorder's hook on every command run is set here too (Registry.run_hook)."""

from __future__ import annotations

from tabpilot.engine.artifacts import generate, printing, screenshots, visual_diff
from tabpilot.engine.browser_state import emulation, routes, state_snapshots
from tabpilot.engine.capture import a11y, har, performance, telemetry
from tabpilot.engine.contract.commands import Registry
from tabpilot.engine.page import (
    checks,
    configure,
    dialogs,
    handoffs,
    interact,
    observe,
    page_actions,
    reading,
    snapshot,
    tab_commands,
)
from tabpilot.engine.workflows import runs, scrape, workflow_commands
from tabpilot.engine.workflows.recorder import recorder_of


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
        runs,
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
    registry.run_hook = lambda engine: recorder_of(engine).run
    return registry
