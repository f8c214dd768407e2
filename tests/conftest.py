"""Shared fixtures: an isolated home per test, the real OS keyring, in-process apps."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
import pytest_asyncio

if TYPE_CHECKING:
    from tabpilot.app import App
    from tabpilot.engine.ports import ApprovalPort

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# Every real answer a command gives in the tests is checked against its declared result (engine/contract/results.py).
os.environ.setdefault("TABPILOT_CHECK_RESULTS", "1")


@pytest.fixture(scope="session")
def secret_service() -> None:
    """The real Secret Service must be there: run the suite through scripts/test (or scripts/with-keyring)."""
    import keyring

    backend = keyring.get_keyring()
    name = type(backend).__module__
    if "SecretService" not in name and "macOS" not in name and "Windows" not in name:
        pytest.fail(
            f"no OS keyring backend ({name}); run the tests with scripts/test, which starts gnome-keyring",
            pytrace=False,
        )


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "home"
    monkeypatch.setenv("TABPILOT_HOME", str(root))
    return root


AppFactory = Callable[..., Awaitable["App"]]


@pytest_asyncio.fixture
async def make_app(secret_service: None, home: Path) -> AsyncIterator[AppFactory]:
    """Start in-process apps (no browser unless asked); all are stopped at the end of the test."""
    # Imported here so that the unit tests do not pay for the whole app.
    from tabpilot.app import App, AppOptions
    from tabpilot.approvals import AutoApprove
    from tabpilot.paths import Paths

    apps: list[App] = []

    async def factory(*, approvals: ApprovalPort | None = None, root: Path | None = None, **options: Any) -> App:
        options.setdefault("browser", "none")
        options.setdefault("port", 0)
        app = App(Paths.resolve(root or home), AppOptions(**options), approvals or AutoApprove())
        await app.start()
        apps.append(app)
        return app

    yield factory
    for app in reversed(apps):
        await app.stop()
