"""One managed Chromium with the real extension for the whole e2e session, an MCP client over stdio,
and a fresh tab per test."""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from tabpilot import logsetup
from tabpilot.app import App, AppOptions
from tabpilot.approvals import AutoApprove
from tabpilot.paths import Paths
from tests.support.managed import managed_up
from tests.support.mcp_stdio import StdioMcp
from tests.support.site import FixtureSite
from tests.support.waiting import until

E2E = pytest.mark.asyncio(loop_scope="session")


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def site() -> AsyncIterator[FixtureSite]:
    site = FixtureSite()
    await site.start()
    yield site
    await site.stop()


@pytest.fixture(scope="session")
def e2e_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("e2e-home")


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def e2e_app(secret_service: None, e2e_home: Path) -> AsyncIterator[App]:
    """The app `serve --browser managed --headless` runs, in this process so tests can open tabs."""
    paths = Paths.resolve(e2e_home)
    logsetup.configure(paths, verbose=True, stderr=False)
    app = App(paths, AppOptions(mode="serve", browser="managed", headless=True, pilot=False, port=0), AutoApprove())
    await app.start()
    # Its extension connected, and Playwright's launch has returned (the extension may connect first: the
    # tests open their tabs through Playwright's context).
    await until(lambda: managed_up(app), timeout=30, what="the managed browser's extension to connect")
    yield app
    await app.stop()
    logsetup.detach()


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def mcp(e2e_app: App, e2e_home: Path) -> AsyncIterator[StdioMcp]:
    client = StdioMcp({"TABPILOT_HOME": str(e2e_home)})
    await client.start()
    yield client
    await client.close()


@pytest_asyncio.fixture(loop_scope="session")
async def tab(e2e_app: App, site: FixtureSite) -> AsyncIterator[Any]:
    """A fresh tab on the fixture's index page, in front; closed afterwards. The pilot starts off."""
    e2e_app.set_pilot(False, remember=False)
    assert e2e_app.managed is not None
    page = await e2e_app.managed.context.new_page()
    url = site.url(f"/index.html?tab={uuid.uuid4().hex[:8]}")
    await page.goto(url)
    await page.bring_to_front()
    # The extension learns which tab is in front from browser events: wait until it agrees.
    await until(lambda: _resolves_to(e2e_app, url), timeout=10, what="the extension to see the new tab in front")
    yield page
    await page.close()
    e2e_app.set_pilot(False, remember=False)


@pytest_asyncio.fixture(loop_scope="session")
async def pilot_on(e2e_app: App) -> None:
    """The human switches AI Web Pilot on (the tray toggle, or `serve --pilot`)."""
    e2e_app.set_pilot(True, remember=False)


def home_env(home: Path) -> dict[str, str]:
    return {**os.environ, "TABPILOT_HOME": str(home)}


async def _resolves_to(app: App, url: str) -> bool:
    tab = await app.link.request("tabs.resolve", {}, timeout_s=5)
    return bool(tab.get("url") == url)
