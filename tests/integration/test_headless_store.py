"""The app with no OS keyring in reach (serve on a server), and the pairing routes the CLI uses."""

from __future__ import annotations

import asyncio
import json
import stat
from collections.abc import Iterator
from pathlib import Path

import aiohttp
import keyring
import pytest

from tabpilot import logsetup
from tabpilot.paths import Paths
from tabpilot.storage import statefile
from tabpilot.vault.keyring_store import TOKENS_SERVICE, KeyringDocument, StoredPairings, flush_writes
from tests.conftest import AppFactory
from tests.support.fake_extension import paired_with
from tests.support.headless import no_os_keyring
from tests.support.processes import tabpilot
from tests.support.waiting import until


@pytest.fixture
def no_keyring(secret_service: None) -> Iterator[None]:
    with no_os_keyring():
        yield


async def test_without_a_keyring_serve_keeps_its_token_in_one_private_file_and_nowhere_else(
    make_app: AppFactory, home: Path, no_keyring: None
) -> None:
    paths = Paths.resolve(home)
    logsetup.configure(paths, verbose=True, stderr=False)
    try:
        app = await make_app(mode="serve", pilot=False)
        assert app.vault.location == "file"
        assert paths.token_file.read_text().strip() == app.token
        assert stat.S_IMODE(paths.token_file.stat().st_mode) == 0o600
        state = statefile.read(paths.state_file)
        assert state is not None and state.secrets == "file"
        await app.api_call("observe", {"what": "pilot"}, "test")
        app.set_pilot(True, remember=True)  # only for this run: never written to a file
        app.set_capability("capture_network_bodies", True)
        await app.stop()
    finally:
        logsetup.detach()
    written = [p for p in home.rglob("*") if p.is_file()]
    assert paths.log_file in written
    for path in written:
        text = path.read_text(errors="replace")
        if path != paths.token_file:
            assert app.token not in text, f"the token leaked into {path}"
        assert "capture_network_bodies" not in text or path == paths.log_file, path
        assert "pilot:" not in path.name
    again = await make_app(mode="serve", pilot=None)  # what the tray would do: ask for the remembered choice
    assert again.engine.pilot.ai_web_pilot is False
    assert again.engine.pilot.capabilities["capture_network_bodies"] is False
    assert again.token == app.token  # every shell keeps finding it across restarts


async def test_without_a_keyring_nothing_is_written_to_the_keyring(make_app: AppFactory, home: Path) -> None:
    with no_os_keyring():
        app = await make_app(mode="serve", pilot=False)
        app.pairings.pair(None, {"browser": {"name": "Chrome"}})
        await app.stop()
    account = Paths.resolve(home).keyring_account
    assert keyring.get_password(TOKENS_SERVICE, account) is None
    assert StoredPairings(KeyringDocument("pairings", account)).load() == []
    assert json.loads((Paths.resolve(home).vault_dir / "pairings.json").read_text())[0]["browser"] == "Chrome"


async def test_the_pairing_routes_want_the_token_and_a_cli_revoke_cuts_the_browser_off(
    make_app: AppFactory, home: Path
) -> None:
    app = await make_app()
    assert app.bridge is not None
    ext = paired_with(app)
    await ext.connect()
    pair_id = ext.pair_id
    base = f"http://127.0.0.1:{app.bridge.port}"
    async with aiohttp.ClientSession() as http:
        async with http.get(base + "/api/v1/pairings") as anonymous:
            assert anonymous.status == 401
        async with http.post(base + "/api/v1/pairings/revoke", json={"pair_id": pair_id}) as anonymous:
            assert anonymous.status == 401
        auth = {"Authorization": f"Bearer {app.token}"}
        async with http.get(base + "/api/v1/pairings", headers=auth) as listed:
            pairings = (await listed.json())["pairings"]
        async with http.post(base + "/api/v1/pairings/revoke", headers=auth, json={}) as bad:
            assert bad.status == 400
    assert [p["pair_id"] for p in pairings] == [pair_id]
    assert pairings[0]["browser"] == "FakeChrome"
    assert "key" not in pairings[0]

    shown = await asyncio.to_thread(tabpilot, home, "pairings")
    assert shown.returncode == 0, shown.stderr
    assert pair_id in shown.stdout and "FakeChrome 1.0" in shown.stdout
    unknown = await asyncio.to_thread(tabpilot, home, "pairings", "revoke", "pair-nope")
    assert unknown.returncode == 1
    assert "no paired browser" in unknown.stderr
    revoked = await asyncio.to_thread(tabpilot, home, "pairings", "revoke", pair_id)
    assert revoked.returncode == 0, revoked.stderr
    await until(lambda: ext.closed, timeout=10, what="the revoked browser to be cut off")
    assert app.pairings.paired() == []
    flush_writes()
    assert StoredPairings(KeyringDocument("pairings", app.paths.keyring_account)).load() == []
    await ext.close()
    assert not await _reconnects(ext)


async def _reconnects(ext: object) -> bool:
    from tests.support.fake_extension import FakeExtension

    assert isinstance(ext, FakeExtension)
    again = FakeExtension(ext.port, auth="paired", secret=ext.secret, pair_id=ext.pair_id)
    try:
        await again.connect()
    except Exception:
        return False
    finally:
        await again.close()
    return again.welcome is not None
