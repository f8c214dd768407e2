"""A NUL character in a parameter that names a file (an upload's paths and names, every artifact's `path`)
is the caller's mistake: invalid_params naming the parameter, before the browser is asked or any file is
opened — not `internal` (Python's "embedded null byte" escaping as a bug)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tabpilot.engine.catalog import build_registry
from tabpilot.engine.core import EngineConfig
from tabpilot.engine.errors import TabpilotError
from tests.unit.engine.conftest import EngineFactory
from tests.unit.fakes import FakeApprovals, FakeBrowser

NUL = "report\x00.txt"


@pytest.mark.parametrize(
    ("tool", "args", "param"),
    [
        ("interact", {"action": "upload", "selector": "#f", "files": [NUL]}, "files"),
        ("interact", {"action": "upload", "selector": "#f", "files": ["/tmp/" + NUL]}, "files"),
        ("interact", {"action": "upload", "selector": "#f", "files": [{"name": NUL, "content_base64": ""}]}, "files"),
        ("generate", {"type": "screenshot", "path": NUL}, "path"),
        ("generate", {"type": "pdf", "path": NUL}, "path"),
        ("generate", {"type": "archive", "path": NUL}, "path"),
        ("generate", {"type": "har", "path": NUL}, "path"),
        ("generate", {"type": "playwright_script", "workflow_id": "w", "path": NUL}, "path"),
        ("generate", {"type": "playwright_test", "path": NUL}, "path"),
    ],
)
async def test_a_nul_in_a_file_parameter_is_invalid_params_before_anything_runs(
    make_engine: EngineFactory,
    browser: FakeBrowser,
    approvals: FakeApprovals,
    tmp_path: Path,
    tool: str,
    args: dict[str, Any],
    param: str,
) -> None:
    (tmp_path / "uploads").mkdir()
    engine = make_engine(config=EngineConfig(uploads_dir=tmp_path / "uploads"))
    approvals.script = ["allow"]
    with pytest.raises(TabpilotError) as caught:
        await engine.call(tool, args)
    assert caught.value.code == "invalid_params", caught.value.message
    assert caught.value.details["param"] == param
    assert "NUL" in caught.value.message
    assert browser.calls == [] and approvals.requests == []


def test_every_parameter_that_names_a_file_is_declared_so() -> None:
    """A new `path` parameter gets the same check: it is declared as a file name (arg(..., path=True))."""
    for command in build_registry().all():
        for p in command.params:
            if p.name in ("path", "files") or p.name.endswith("_path"):
                assert p.path, f"{command.tool}.{command.mode}: '{p.name}' is not declared path=True"
