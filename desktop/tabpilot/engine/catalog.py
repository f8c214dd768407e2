"""All commands Tabpilot offers, gathered into one registry."""

from __future__ import annotations

from tabpilot.engine import configure, generate, interact, observe
from tabpilot.engine.commands import Registry


def build_registry() -> Registry:
    registry = Registry()
    for module in (observe, interact, configure, generate):
        registry.extend(module.COMMANDS)
    return registry
