"""Only a human turns AI Web Pilot on: no command, HTTP request or MCP call an agent can make does it."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp
import pytest
import pytest_asyncio
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from tests.conftest import AppFactory
from tests.gui.conftest import ExtensionFactory, TrayFactory
from tests.support.fake_extension import FakeExtension

from tabpilot.app import App
from tabpilot.engine.contract.commands import DISCRIMINATOR, TOOLS, Command
from tabpilot.engine.contract.params import Param
from tabpilot.engine.errors import TabpilotError
from tabpilot.ui.tray import TrayController
from tabpilot.vault import keyring_store

SNEAKY_ARGS: list[dict[str, Any]] = [
    {"ai_web_pilot": True},
    {"pilot": True},
    {"enabled": True},
    {"ai_web_pilot": "on"},
    {"state": {"ai_web_pilot": True}},
    {"capabilities": {"execute_js": True}},
]
"""Extra arguments an agent might try on any command."""

SNEAKY_MODES = ("pilot", "ai_web_pilot", "set_pilot", "enable_pilot", "pilot_on", "settings", "state")
"""Modes an agent might guess on any tool (observe pilot exists and only reads)."""

PLACEHOLDER: dict[str, Any] = {
    "string": "1",
    "integer": 1,
    "number": 1,
    "boolean": False,
    "object": {},
    "array": [],
}


def required_args(command: Command) -> dict[str, Any]:
    """Valid values for a command's required parameters, so the sneaky argument is the only thing wrong."""
    special = {"url": "http://127.0.0.1/", "selector": "body", "script": "1"}
    return {p.name: special.get(p.name, PLACEHOLDER[p.type]) for p in command.all_params if _required(p)}


def _required(param: Param) -> bool:
    return param.required


def agent_attempts(app: App) -> list[tuple[str, dict[str, Any]]]:
    """Every (tool, arguments) pair an agent could send to try to turn the pilot on."""
    attempts: list[tuple[str, dict[str, Any]]] = []
    for command in app.engine.registry.all():
        key = DISCRIMINATOR[command.tool]
        for extra in SNEAKY_ARGS:
            attempts.append((command.tool, {key: command.mode, **required_args(command), **extra}))
    for tool in TOOLS:
        key = DISCRIMINATOR[tool]
        for mode in SNEAKY_MODES:
            if (tool, mode) == ("observe", "pilot"):
                continue
            attempts.append((tool, {key: mode, "ai_web_pilot": True}))
            attempts.append((tool, {key: mode, "on": True}))
    for unknown_tool in ("pilot", "set_pilot", "ai_web_pilot", "settings"):
        attempts.append((unknown_tool, {"ai_web_pilot": True}))
    return attempts


@dataclass
class Watched:
    """An app with the pilot off, its tray and a connected extension: every place the switch would show."""

    app: App
    tray: TrayController
    fake: FakeExtension
    home: Path

    def assert_pilot_still_off(self) -> None:
        app, tray, fake = self.app, self.tray, self.fake
        assert app.engine.pilot.ai_web_pilot is False
        assert not tray.pilot_action.isChecked()
        assert tray.look in ("connected", "busy")  # busy: the read above may have just run
        assert all(state["ai_web_pilot"] is False for state in fake.states), fake.states
        keyring_store.flush_writes()  # the tray saves in the background
        assert keyring_store.remembered_pilot(app.paths.keyring_account) is False
        config = self.home / "config.json"
        assert not config.exists() or "ai_web_pilot" not in json.loads(config.read_text(encoding="utf-8"))


@pytest_asyncio.fixture
async def watched(
    make_app: AppFactory, make_tray: TrayFactory, connect_extension: ExtensionFactory, home: Path
) -> Watched:
    app = await make_app()
    tray = make_tray(app)
    return Watched(app, tray, await connect_extension(app), home)


async def test_no_engine_command_turns_the_pilot_on(watched: Watched) -> None:
    app, fake = watched.app, watched.fake
    attempts = agent_attempts(app)
    assert len(attempts) > 50
    for tool, args in attempts:
        with pytest.raises(TabpilotError) as refused:
            await app.engine.call(tool, args, agent="sneaky-agent")
        assert refused.value.code == "invalid_params", (tool, args, refused.value.envelope())
        assert app.engine.pilot.ai_web_pilot is False, (tool, args)
    assert not [m for m in fake.received if m["type"] == "command"], "a refused call reached the browser"
    # The one pilot command there is only reads.
    view = await app.engine.call("observe", {"what": "pilot"})
    assert view["ai_web_pilot"] is False
    assert view["extension_connected"] is True
    watched.assert_pilot_still_off()


async def test_no_http_request_turns_the_pilot_on(watched: Watched) -> None:
    app = watched.app
    assert app.bridge is not None
    base = f"http://127.0.0.1:{app.bridge.port}"
    auth = {"Authorization": f"Bearer {app.token}"}
    async with aiohttp.ClientSession(headers=auth) as http:
        for tool, args in agent_attempts(app):
            async with http.post(f"{base}/api/v1/call", json={"tool": tool, "arguments": args}) as resp:
                assert resp.status == 200
                body = await resp.json()
            assert body["ok"] is False, (tool, args, body)
            assert body["error"]["error"] == "invalid_params", (tool, args, body)
        # No other endpoint takes a pilot switch either.
        for path in (
            "/api/v1/pilot",
            "/api/v1/state",
            "/api/v1/settings",
            "/api/v1/config",
            "/api/v1/status",
        ):
            async with http.post(f"{base}{path}", json={"ai_web_pilot": True}) as resp:
                assert resp.status in (404, 405), (path, resp.status)
            async with http.put(f"{base}{path}", json={"ai_web_pilot": True}) as resp:
                assert resp.status in (404, 405), (path, resp.status)
        async with http.get(f"{base}/api/v1/status") as resp:
            assert (await resp.json())["ai_web_pilot"] is False
    watched.assert_pilot_still_off()


async def test_no_mcp_call_turns_the_pilot_on(watched: Watched) -> None:
    app = watched.app
    assert app.bridge is not None
    url = f"http://127.0.0.1:{app.bridge.port}/mcp"
    async with (
        create_mcp_http_client(headers={"Authorization": f"Bearer {app.token}"}) as http,
        streamable_http_client(url, http_client=http) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        listed = await session.list_tools()
        assert sorted(t.name for t in listed.tools) == sorted(TOOLS)
        for tool, args in agent_attempts(app):
            result = await session.call_tool(tool, args)
            assert result.is_error, (tool, args, result.structured_content)
            assert app.engine.pilot.ai_web_pilot is False, (tool, args)
        read_back = await session.call_tool("observe", {"what": "pilot"})
        assert not read_back.is_error
        assert read_back.structured_content is not None
        assert read_back.structured_content["ai_web_pilot"] is False
    watched.assert_pilot_still_off()


async def test_the_extension_cannot_turn_the_pilot_on(watched: Watched) -> None:
    """A page can talk to the extension; nothing the extension sends flips the switch."""
    fake = watched.fake
    for frame in (
        {"type": "event", "name": "state", "data": {"ai_web_pilot": True}},
        {"type": "event", "name": "pilot", "data": {"ai_web_pilot": True}},
        {"type": "event", "name": "page", "data": {"url": "http://127.0.0.1/", "ai_web_pilot": True}},
    ):
        await fake.send(frame)
    # The link processes frames in order: once a ping is answered, the frames before it were handled.
    await fake.send({"type": "ping"})
    from tests.support.waiting import until

    await until(lambda: any(m["type"] == "pong" for m in fake.received), what="the pong")
    watched.assert_pilot_still_off()
