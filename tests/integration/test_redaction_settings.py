"""Redaction cannot be switched off by editing config.json: the built-in selectors always reach the engine."""

from __future__ import annotations

import json
from pathlib import Path

from tabpilot.engine.core import DEFAULT_REDACT
from tabpilot.paths import Paths
from tabpilot.storage.settings import Settings
from tests.conftest import AppFactory


async def test_an_empty_redact_list_in_config_json_keeps_the_built_in_selectors(
    make_app: AppFactory, home: Path
) -> None:
    paths = Paths.resolve(home)
    paths.ensure()
    paths.config_file.write_text(json.dumps({"redact_selectors": [], "step_delay_ms": 0}), encoding="utf-8")
    app = await make_app()
    assert app.settings.step_delay_ms == 0  # the file was read
    assert set(DEFAULT_REDACT) <= set(app.engine.config.redact_selectors)
    app.apply_settings(Settings(redact_selectors=[".card-number"]))
    assert app.engine.config.redact_selectors == (*DEFAULT_REDACT, ".card-number")
