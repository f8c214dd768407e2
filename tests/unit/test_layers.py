"""The layers of pyproject's [tool.importlinter] hold for the real package, and an import that breaks one is
caught: a copy of the package gets one bad import and `lint-imports` (what scripts/test runs) fails on it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def lint_imports(desktop: Path, config: Path) -> subprocess.CompletedProcess[str]:
    code = "import sys; from importlinter.cli import lint_imports_command; sys.exit(lint_imports_command())"
    env = {**os.environ, "PYTHONPATH": str(desktop)}
    return subprocess.run(
        [sys.executable, "-c", code, "--no-cache", str(config)],
        capture_output=True,
        text=True,
        env=env,
        cwd=config.parent,
        check=False,
    )


def test_the_real_package_keeps_its_layers() -> None:
    run = lint_imports(ROOT / "desktop", ROOT / "pyproject.toml")
    assert run.returncode == 0, run.stdout + run.stderr
    assert "0 broken" in run.stdout


@pytest.mark.parametrize(
    ("module", "bad_import", "broken"),
    [
        # The core reaching up into a feature (as it did to the recorder before issue 19).
        ("engine/core.py", "from tabpilot.engine.workflows import recorder", "The core imports no feature"),
        # One feature importing another without a line in the contract saying why.
        ("engine/page/reading.py", "from tabpilot.engine.capture import har", "Engine layers"),
        # The pure engine importing the network library.
        ("engine/errors.py", "import aiohttp", "The engine imports no Qt"),
    ],
)
def test_a_bad_import_is_caught(tmp_path: Path, module: str, bad_import: str, broken: str) -> None:
    desktop = tmp_path / "desktop"
    shutil.copytree(ROOT / "desktop" / "tabpilot", desktop / "tabpilot", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    assert lint_imports(desktop, tmp_path / "pyproject.toml").returncode == 0, "the copy keeps the layers"

    target = desktop / "tabpilot" / module
    target.write_text(target.read_text(encoding="utf-8") + f"\n{bad_import}  # noqa\n", encoding="utf-8")
    run = lint_imports(desktop, tmp_path / "pyproject.toml")
    assert run.returncode != 0
    broken_line = next((line for line in run.stdout.splitlines() if line.startswith(broken)), "")
    assert "BROKEN" in broken_line or "BROKEN" in run.stdout.split(broken, 1)[1][:200], run.stdout
