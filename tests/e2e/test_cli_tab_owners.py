"""`tabpilot tabs` in plain text says whose each tab is, as `observe tabs` gives it: a real CLI subprocess
per agent session (TABPILOT_SESSION) against the real app and browser. A tab one CLI session opened is
`mine` to it and `agent <its label>` to another; a tab nobody owns is `free`."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tabpilot.app import App
from tests.e2e.conftest import E2E, home_env
from tests.e2e.test_page_actions import open_page
from tests.support.site import FixtureSite

pytestmark = [pytest.mark.e2e, E2E]


async def as_session(home: Path, session: str, *args: str) -> str:
    def run() -> subprocess.CompletedProcess[str]:
        env = {**home_env(home), "TABPILOT_SESSION": session}
        return subprocess.run(
            [sys.executable, "-m", "tabpilot", *args], env=env, capture_output=True, text=True, timeout=60, check=False
        )

    done = await asyncio.to_thread(run)
    assert done.returncode == 0, f"tabpilot {' '.join(args)}: {done.returncode}\n{done.stderr}"
    return done.stdout


def whose(listing: str, url: str) -> str:
    """The owner cell of the line for `url` in `tabpilot tabs` output (tab_id, active, tracked, url, title, whose)."""
    cells = [line.split("\t") for line in listing.splitlines()]
    found = [c[5] for c in cells if len(c) == 6 and c[3] == url]
    assert len(found) == 1, listing
    return found[0]


async def test_plain_tabs_say_mine_another_agents_or_free(
    e2e_app: App, e2e_home: Path, tab: Any, site: FixtureSite, pilot_on: None
) -> None:
    await open_page(e2e_app, tab, site, "/index.html")
    opened_url = site.url("/second.html")
    opened = await as_session(e2e_home, "alpha", "new-tab", opened_url)
    tab_id = next(line.split(": ", 1)[1] for line in opened.splitlines() if line.startswith("tab_id: "))
    try:
        mine = await as_session(e2e_home, "alpha", "tabs")
        assert whose(mine, opened_url) == "mine"
        assert whose(mine, site.url("/index.html")) == "free"  # the test's own tab: nobody's, not tracked
        theirs = await as_session(e2e_home, "beta", "tabs")
        assert whose(theirs, opened_url).startswith("agent ") and "alpha" in whose(theirs, opened_url)
        assert whose(theirs, site.url("/index.html")) == "free"
    finally:
        await as_session(e2e_home, "alpha", "close-tab", tab_id)
