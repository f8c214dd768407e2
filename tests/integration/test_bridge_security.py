"""The bridge listens on loopback, wants the token for its API and the extension's Origin for its socket."""

from __future__ import annotations

import json
import os
import secrets
import stat
from pathlib import Path

import aiohttp
import keyring
import pytest

from tabpilot import logsetup
from tabpilot.app import App
from tabpilot.bridge.protocol import PROTOCOL_VERSION
from tabpilot.paths import Paths
from tabpilot.resources import extension_id
from tabpilot.storage import statefile
from tabpilot.vault.keyring_store import TOKENS_SERVICE
from tests.conftest import AppFactory
from tests.support.fake_extension import FakeExtension, paired_with


async def _get(url: str, headers: dict[str, str] | None = None) -> tuple[int, str]:
    async with aiohttp.ClientSession() as session, session.get(url, headers=headers or {}) as resp:
        return resp.status, await resp.text()


async def test_api_and_mcp_refuse_requests_without_the_token(make_app: AppFactory) -> None:
    app = await make_app()
    base = f"http://127.0.0.1:{app.bridge.port}"  # type: ignore[union-attr]
    for path in ("/api/v1/status", "/mcp"):
        status, _ = await _get(base + path)
        assert status == 401, path
        status, _ = await _get(base + path, {"Authorization": "Bearer not-the-token"})
        assert status == 401, path
    status, body = await _get(base + "/api/v1/status", {"Authorization": f"Bearer {app.token}"})
    assert status == 200
    assert '"app": "tabpilot"' in body or '"app":"tabpilot"' in body
    async with (
        aiohttp.ClientSession() as session,
        session.post(base + "/api/v1/call", json={"tool": "observe", "arguments": {"what": "pilot"}}) as r,
    ):
        assert r.status == 401


async def test_a_web_page_cannot_reach_the_api_even_with_the_token(make_app: AppFactory) -> None:
    app = await make_app()
    base = f"http://127.0.0.1:{app.bridge.port}"  # type: ignore[union-attr]
    headers = {"Authorization": f"Bearer {app.token}", "Origin": "https://evil.example"}
    status, _ = await _get(base + "/api/v1/status", headers)
    assert status == 403
    rebinding = {"Authorization": f"Bearer {app.token}", "Host": f"evil.example:{app.bridge.port}"}  # type: ignore[union-attr]
    status, _ = await _get(base + "/api/v1/status", rebinding)
    assert status == 403


@pytest.mark.parametrize(
    "origin",
    [
        "https://evil.example",
        "http://127.0.0.1:8000",
        "null",
        "chrome-extension://abcdefghijklmnopabcdefghijklmnop",
    ],
)
async def test_websocket_upgrade_from_another_origin_is_403(make_app: AppFactory, origin: str) -> None:
    app = await make_app()
    async with aiohttp.ClientSession() as session:
        with pytest.raises(aiohttp.WSServerHandshakeError) as err:
            await session.ws_connect(f"http://127.0.0.1:{app.bridge.port}/ws", headers={"Origin": origin})  # type: ignore[union-attr]
    assert err.value.status == 403
    assert not app.link.connected


async def test_websocket_without_origin_is_403(make_app: AppFactory) -> None:
    app = await make_app()
    async with aiohttp.ClientSession() as session:
        with pytest.raises(aiohttp.WSServerHandshakeError) as err:
            await session.ws_connect(f"http://127.0.0.1:{app.bridge.port}/ws")  # type: ignore[union-attr]
    assert err.value.status == 403


async def test_the_bundled_extension_origin_connects(make_app: AppFactory) -> None:
    app = await make_app()
    ext = paired_with(app)
    try:
        await ext.connect()
        assert ext.welcome is not None
        assert ext.welcome["state"]["ai_web_pilot"] is False
        assert app.link.connected
    finally:
        await ext.close()


async def test_an_extension_speaking_another_protocol_version_is_refused_with_a_reason(
    make_app: AppFactory,
) -> None:
    app = await make_app()
    ext = FakeExtension(app.bridge.port, protocol=99)  # type: ignore[union-attr]
    try:
        await ext.connect()
        assert ext.refused is not None
        assert ext.refused["code"] == "protocol_mismatch"
        assert "99" in ext.refused["reason"]
        assert f"protocol {PROTOCOL_VERSION}" in ext.refused["reason"]
        assert not app.link.connected
    finally:
        await ext.close()


async def test_the_bridge_listens_on_loopback_only(make_app: AppFactory) -> None:
    app = await make_app()
    port = app.bridge.port  # type: ignore[union-attr]
    listening = {conn.laddr.ip for conn in _listening(port)}
    assert listening == {"127.0.0.1"}


def _listening(port: int):  # type: ignore[no-untyped-def]
    """Sockets in LISTEN state on `port`, from /proc/net/tcp{,6} (no psutil needed)."""

    class Conn:
        def __init__(self, ip: str) -> None:
            self.laddr = type("Addr", (), {"ip": ip})()

    found = []
    for table, v6 in (("/proc/net/tcp", False), ("/proc/net/tcp6", True)):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            local, state = fields[1], fields[3]
            ip_hex, port_hex = local.split(":")
            if state != "0A" or int(port_hex, 16) != port:
                continue
            if v6:
                found.append(Conn("ipv6:" + ip_hex))
            else:
                octets = [str(int(ip_hex[i : i + 2], 16)) for i in (6, 4, 2, 0)]
                found.append(Conn(".".join(octets)))
    return found


async def test_the_token_lives_in_the_keyring_and_in_none_of_our_files(make_app: AppFactory, home: Path) -> None:
    paths = Paths.resolve(home)
    logsetup.configure(paths, verbose=True, stderr=False)
    try:
        await _token_stays_out_of_files(await make_app(), paths, home)
    finally:
        logsetup.detach()


async def _token_stays_out_of_files(app: App, paths: Paths, home: Path) -> None:
    assert keyring.get_password(TOKENS_SERVICE, paths.keyring_account) == app.token
    assert len(app.token) >= 32
    # make the app write its files: a call, a setting, the log
    await app.api_call("observe", {"what": "pilot"}, "test")
    app.set_pilot(True, remember=True)
    app.set_pilot(False, remember=True)
    state = statefile.read(paths.state_file)
    assert state is not None
    assert state.pid == os.getpid()
    assert state.port == app.bridge.port
    assert stat.S_IMODE(paths.state_file.stat().st_mode) == 0o600
    written = [p for p in home.rglob("*") if p.is_file()]
    assert paths.config_file in written
    assert paths.state_file in written
    assert paths.log_file in written
    for path in written:
        assert app.token.encode() not in path.read_bytes(), f"the token leaked into {path}"


async def test_a_restarted_app_keeps_its_token_and_two_homes_have_different_ones(
    make_app: AppFactory, home: Path, tmp_path: Path
) -> None:
    first = await make_app()
    token = first.token
    await first.stop()
    again = await make_app()
    assert again.token == token
    other = await make_app(root=tmp_path / "other-home")
    assert other.token != token
    assert other.bridge.port != again.bridge.port  # type: ignore[union-attr]


async def test_a_second_app_on_the_same_home_refuses_to_start(make_app: AppFactory) -> None:
    from tabpilot.app import AlreadyRunning

    first = await make_app()
    with pytest.raises(AlreadyRunning) as err:
        await make_app()
    assert str(first.bridge.port) in str(err.value)  # type: ignore[union-attr]


async def test_a_pairing_code_gives_nothing_to_crack_and_each_try_counts(make_app: AppFactory) -> None:
    """With a code the browser proves first: a knock reveals no proof keyed by the code, walking away
    counts as a wrong guess, and after five that browser is held off (the person's code stays open for
    the person's own browser: tests/integration/test_pairing_guards.py)."""
    app = await make_app()
    port = app.bridge.port  # type: ignore[union-attr]
    offered = app.offer_pairing_code()["code"]
    for _attempt in range(5):
        async with (
            aiohttp.ClientSession() as session,
            session.ws_connect(f"http://127.0.0.1:{port}/ws", headers={"Origin": FakeExtension(port).origin}) as ws,
        ):
            await ws.send_json(
                {
                    "type": "hello",
                    "protocol": PROTOCOL_VERSION,
                    "extension_version": "0",
                    "extension_id": extension_id(),
                    "instance_id": "the-guesser",
                    "browser": {},
                    "client_nonce": secrets.token_hex(16),
                    "auth": "pairing",
                }
            )
            challenge = json.loads((await ws.receive()).data)
            assert challenge["type"] == "challenge"
            assert challenge["app_proofs"] == []  # nothing keyed by the code before the browser proves it
        # the socket closes without an answer: one wrong guess
    # five tries: that browser is held off, even with the right code
    held = FakeExtension(port, auth="pairing", secret=offered.replace("-", ""))
    held.instance_id = "the-guesser"
    await held.connect()
    assert held.refused is not None and held.refused["code"] == "throttled"
    await held.close()
    assert [p.code for p in app.pairings.pending()] == [offered.replace("-", "")]
