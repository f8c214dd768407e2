"""The core stands below every feature: loading it loads no feature package and not the catalog (issue 19).

The catalog knows the features and the composition root hands its registry to the Engine; the recorder and
the hand-off book are the features' own (kept per engine), so nothing the core imports leads up to them."""

from __future__ import annotations

import json
import os
import subprocess
import sys

FEATURES = ("page", "browser_state", "capture", "artifacts", "workflows")


def loaded_after(module: str) -> list[str]:
    code = f"import json, sys, {module}; print(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=os.environ)
    return [m for m in json.loads(out.stdout) if m.startswith("tabpilot.")]


def test_the_core_alone_loads_no_feature() -> None:
    loaded = loaded_after("tabpilot.engine.core")
    assert "tabpilot.engine.core" in loaded and "tabpilot.engine.contract.commands" in loaded
    above = [m for m in loaded if m == "tabpilot.engine.catalog" or m.split(".")[2:3] in ([f] for f in FEATURES)]
    assert above == [], f"the core pulled in {above}"


def test_the_catalog_loads_every_feature() -> None:
    """The check above would pass on an empty list: here the same look sees the features when they are there."""
    loaded = loaded_after("tabpilot.engine.catalog")
    assert {f"tabpilot.engine.{f}" for f in FEATURES} <= set(loaded)
