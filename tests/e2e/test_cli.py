"""The programs as people and agents run them: serve, mcp, status, stop, the tray without a display."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

import pytest

from tabpilot.storage import statefile
from tests.support.mcp_stdio import StdioMcp
from tests.support.processes import Serve, env_for, status, tabpilot
from tests.support.site import FixtureSite
from tests.support.waiting import until

pytestmark = [pytest.mark.e2e]


@pytest.fixture
async def site() -> FixtureSite:  # type: ignore[misc]
    site = FixtureSite()
    await site.start()
    yield site
    await site.stop()


async def test_serve_with_pilot_lets_an_agent_act_then_status_and_stop(
    secret_service: None, tmp_path: Path, site: FixtureSite
) -> None:
    home = tmp_path / "home"
    serve = Serve(home, "--headless", "--pilot", "--approve", "auto", "--port", "0")
    try:
        ready = await serve.start()
        assert ready["ai_web_pilot"] is True
        assert ready["mode"] == "serve"
        assert ready["auto_started"] is False
        mcp = StdioMcp({"TABPILOT_HOME": str(home)})
        await mcp.start()
        try:
            nav = await mcp.ok("interact", {"action": "navigate", "url": site.url("/second.html")})
            assert nav == {"status": "complete", "url": site.url("/second.html"), "title": "Second Page"}
            assert await mcp.ok("interact", {"action": "execute_js", "script": "1 + 1"}) == {
                "success": True,
                "result": 2,
            }
        finally:
            await mcp.close()

        called = await asyncio.to_thread(tabpilot, home, "call", "observe", '{"what": "pilot"}')
        assert called.returncode == 0, called.stderr
        assert json.loads(called.stdout)["extension_connected"] is True
        refused = await asyncio.to_thread(tabpilot, home, "call", "observe", '{"what": "nothing"}')
        assert refused.returncode == 1
        assert json.loads(refused.stdout)["error"] == "invalid_params"
        bad_json = await asyncio.to_thread(tabpilot, home, "call", "observe", "{what")
        assert bad_json.returncode == 2
        assert "not JSON" in bad_json.stderr
        paired = await asyncio.to_thread(tabpilot, home, "pair")
        assert paired.returncode == 0
        assert re.search(r"Type [2-9A-Z]{4}-[2-9A-Z]{4} into the Tabpilot extension's popup", paired.stdout)

        shown = await asyncio.to_thread(tabpilot, home, "status")
        assert shown.returncode == 0
        assert f"port:         {ready['port']}" in shown.stdout
        assert "browser link: connected (Chromium" in shown.stdout
        assert "managed" in shown.stdout
        assert "AI Web Pilot: ON" in shown.stdout

        stopped = await asyncio.to_thread(tabpilot, home, "stop")
        assert stopped.returncode == 0
        assert await serve.wait_exit() == 0
        after = await asyncio.to_thread(tabpilot, home, "status")
        assert after.returncode == 3
        assert "not running" in after.stdout
        assert not (home / "tabpilot.state.json").exists()
    finally:
        await serve.stop()


async def test_serve_without_pilot_refuses_actions_and_default_approvals_deny(
    secret_service: None, tmp_path: Path, site: FixtureSite
) -> None:
    home = tmp_path / "home"
    off = Serve(home, "--headless", "--port", "0")
    try:
        await off.start()
        mcp = StdioMcp({"TABPILOT_HOME": str(home)})
        await mcp.start()
        try:
            err = await mcp.error("interact", {"action": "navigate", "url": site.url("/second.html")})
            assert err["error"] == "ai_web_pilot_disabled"
        finally:
            await mcp.close()
    finally:
        await off.stop()
    denying = Serve(home, "--headless", "--pilot", "--port", "0")
    try:
        await denying.start()
        mcp = StdioMcp({"TABPILOT_HOME": str(home)})
        await mcp.start()
        try:
            await mcp.ok("interact", {"action": "navigate", "url": site.url("/index.html")})
            err = await mcp.error("interact", {"action": "execute_js", "script": "document.title = 'changed'"})
            assert err["error"] == "approval_denied"
            page = await mcp.ok("observe", {"what": "page"})
            assert page["title"] == "Tabpilot Fixture", "a denied step has no side effect"
        finally:
            await mcp.close()
    finally:
        await denying.stop()


async def test_two_homes_run_side_by_side_without_touching_each_other(secret_service: None, tmp_path: Path) -> None:
    a, b = Serve(tmp_path / "a", "--headless"), Serve(tmp_path / "b", "--headless")
    try:
        first = await a.start()
        second = await b.start()
        assert first["port"] != second["port"]
        assert first["home"] == str(tmp_path / "a")
        assert second["home"] == str(tmp_path / "b")
        assert first["browser"]["instance_id"] != second["browser"]["instance_id"]
        for name in ("a", "b"):
            state = statefile.read(tmp_path / name / "tabpilot.state.json")
            assert state is not None
            assert (tmp_path / name / "browser-profile").is_dir()
        await asyncio.to_thread(tabpilot, tmp_path / "a", "stop")
        assert await a.wait_exit() == 0
        still = await asyncio.to_thread(status, tmp_path / "b")
        assert still["exit"] == 0
        assert still["extension_connected"] is True
        assert still["port"] == second["port"]
    finally:
        await a.stop()
        await b.stop()


async def test_mcp_starts_a_headless_serve_when_no_app_runs(secret_service: None, tmp_path: Path) -> None:
    home = tmp_path / "home"
    mcp = StdioMcp({"TABPILOT_HOME": str(home)})
    await mcp.start()
    try:
        pilot = await until(lambda: _connected(mcp), timeout=45, what="the auto-started serve's browser to connect")
        assert pilot["ai_web_pilot"] is False
        running = await asyncio.to_thread(status, home)
        assert running["exit"] == 0
        assert running["auto_started"] is True
        assert running["managed_browser"] == "running"
    finally:
        await mcp.close()
        await asyncio.to_thread(tabpilot, home, "stop")
    gone = await asyncio.to_thread(status, home)
    assert gone["exit"] == 3


async def _connected(mcp: StdioMcp) -> dict[str, object] | None:
    pilot = await mcp.ok("observe", {"what": "pilot"})
    return pilot if pilot["extension_connected"] else None


def test_the_tray_without_a_display_says_to_use_serve(tmp_path: Path) -> None:
    env = env_for(tmp_path / "home")
    for var in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"):
        env.pop(var, None)
    done = tabpilot(tmp_path / "home", env=env)
    assert done.returncode != 0
    assert "tabpilot serve" in done.stderr


def test_status_and_stop_when_nothing_runs(tmp_path: Path) -> None:
    shown = tabpilot(tmp_path / "home", "status")
    assert shown.returncode == 3
    assert "not running" in shown.stdout
    stopped = tabpilot(tmp_path / "home", "stop")
    assert stopped.returncode == 3
