"""observe logs, errors, network, network_bodies, websocket_events, a11y_audit and configure clear_capture,
through the engine with a fake browser."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tabpilot.engine.capture.capture import store_for
from tabpilot.engine.catalog import build_registry
from tabpilot.engine.core import DEFAULT_REDACT, Engine
from tabpilot.engine.errors import TabpilotError
from tests.unit.engine.conftest import EngineFactory
from tests.unit.fakes import FakeBrowser, FakeClock


def feed(engine: Engine, tab_id: int, *items: dict[str, Any]) -> None:
    store_for(engine).ingest({"tab_id": tab_id, "frame_id": 0, "url": "https://site.test/", "items": list(items)})


def request(n: int, method: str = "GET", status: int = 200, url: str = "/api/items") -> dict[str, Any]:
    return {
        "kind": "network",
        "source": "fetch",
        "method": method,
        "url": f"https://site.test{url}?n={n}",
        "status": status,
    }


async def test_reads_go_to_the_tab_commands_go_to(engine: Engine, browser: FakeBrowser) -> None:
    feed(engine, 1, {"kind": "log", "level": "log", "text": "mine"})
    feed(engine, 2, {"kind": "log", "level": "log", "text": "other tab"})
    answer = await engine.call("observe", {"what": "logs"})
    # The tab commands go to hands over what it buffered and says which it is (one round trip), then the read.
    assert browser.ops == ["capture.flush"] and browser.calls[0].params == {}
    assert answer["tab_id"] == 1 and [e["text"] for e in answer["entries"]] == ["mine"]
    assert answer["count"] == 1 and answer["cursor"] == 2 and answer["more"] is False
    other = await engine.call("observe", {"what": "logs", "tab_id": 2})
    assert [e["text"] for e in other["entries"]] == ["other tab"]


async def test_without_a_browser_every_tab_is_read(make_engine: EngineFactory, browser: FakeBrowser) -> None:
    browser.connect(False)
    engine = make_engine()
    feed(engine, 1, {"kind": "error", "message": "a"})
    feed(engine, 2, {"kind": "error", "message": "b"})
    answer = await engine.call("observe", {"what": "errors"})
    assert answer["tab_id"] is None and [e["message"] for e in answer["entries"]] == ["b", "a"]
    assert browser.calls == []


async def test_log_level_is_a_minimum(engine: Engine) -> None:
    feed(engine, 1, *({"kind": "log", "level": lv, "text": lv} for lv in ("debug", "log", "info", "warn", "error")))
    warn = await engine.call("observe", {"what": "logs", "level": "warn"})
    assert [e["text"] for e in warn["entries"]] == ["error", "warn"]
    info = await engine.call("observe", {"what": "logs", "level": "info"})
    assert [e["text"] for e in info["entries"]] == ["error", "warn", "info", "log"]
    with pytest.raises(TabpilotError) as bad:
        await engine.call("observe", {"what": "logs", "level": "loud"})
    assert bad.value.code == "invalid_params" and "debug, log, info, warn, error" in bad.value.message


async def test_network_filters(engine: Engine) -> None:
    feed(
        engine,
        1,
        request(1),
        request(2, "POST", 201),
        request(3, status=404, url="/missing"),
        request(4, status=500),
        {"kind": "network", "source": "fetch", "method": "GET", "url": "https://down.test/", "status": 0},
    )

    async def urls(**args: Any) -> list[str]:
        answer = await engine.call("observe", {"what": "network", **args})
        return [e["url"].rsplit("=", 1)[-1] if "?n=" in e["url"] else e["url"] for e in answer["entries"]]

    assert await urls(status_min=400) == ["4", "3"]
    assert await urls(status_min=200, status_max=299) == ["2", "1"]
    assert await urls(method="post") == ["2"]
    assert await urls(url_filter="MISSING") == ["3"]
    assert await urls(limit=2) == ["https://down.test/", "4"]
    with pytest.raises(TabpilotError) as bad:
        await engine.call("observe", {"what": "network", "status_min": 500, "status_max": 400})
    assert bad.value.code == "invalid_params"


async def test_bodies_stay_empty_with_a_note_until_the_user_enables_them(engine: Engine) -> None:
    body = {"kind": "body", "method": "GET", "url": "https://site.test/api", "status": 200, "responseBody": "{}"}
    feed(engine, 1, body)
    off = await engine.call("observe", {"what": "network_bodies"})
    assert off["entries"] == [] and off["capture_enabled"] is False and "tray" in off["note"]
    engine.pilot.set_capability("capture_network_bodies", True)
    feed(engine, 1, body)
    on = await engine.call("observe", {"what": "network_bodies", "status_max": 299})
    assert on["capture_enabled"] is True and [e["responseBody"] for e in on["entries"]] == ["{}"]


async def test_bodies_come_20_at_a_time_and_other_lists_50_unless_asked(engine: Engine) -> None:
    engine.pilot.set_capability("capture_network_bodies", True)
    for n in range(60):
        feed(engine, 1, request(n), {"kind": "body", "url": f"https://site.test/api?n={n}", "responseBody": "{}"})
    bodies = await engine.call("observe", {"what": "network_bodies"})
    assert len(bodies["entries"]) == 20 and bodies["more"] is True
    assert bodies["entries"][0]["url"].endswith("n=59")
    assert len((await engine.call("observe", {"what": "network"}))["entries"]) == 50
    assert len((await engine.call("observe", {"what": "network_bodies", "limit": 60}))["entries"]) == 60


async def test_websocket_filters(engine: Engine) -> None:
    feed(
        engine,
        1,
        {"kind": "ws", "event": "open", "connection_id": "a", "url": "ws://chat.test/"},
        {"kind": "ws", "event": "message", "connection_id": "a", "url": "ws://chat.test/", "direction": "outgoing"},
        {"kind": "ws", "event": "message", "connection_id": "b", "url": "ws://feed.test/", "direction": "incoming"},
    )

    async def events(**args: Any) -> list[tuple[str, str]]:
        answer = await engine.call("observe", {"what": "websocket_events", **args})
        return [(e["connection_id"], e["event"]) for e in answer["entries"]]

    assert await events(connection_id="a") == [("a", "message"), ("a", "open")]
    assert await events(direction="incoming") == [("b", "message")]
    assert await events(url_filter="chat") == [("a", "message"), ("a", "open")]
    with pytest.raises(TabpilotError):
        await engine.call("observe", {"what": "websocket_events", "direction": "sideways"})
    engine.pilot.set_capability("capture_websockets", False)
    off = await engine.call("observe", {"what": "websocket_events"})
    assert off["entries"] == [] and off["capture_enabled"] is False


async def test_since_cursor_through_the_engine(engine: Engine) -> None:
    feed(engine, 1, *({"kind": "log", "level": "log", "text": str(n)} for n in range(5)))
    first = await engine.call("observe", {"what": "logs", "limit": 2})
    feed(engine, 1, {"kind": "log", "level": "log", "text": "new"})
    later = await engine.call("observe", {"what": "logs", "since_cursor": first["cursor"]})
    assert [e["text"] for e in later["entries"]] == ["new"]


async def test_clear_capture(engine: Engine) -> None:
    feed(engine, 1, {"kind": "log", "text": "x"}, {"kind": "error", "message": "y"})
    cleared = await engine.call("configure", {"action": "clear_capture"})
    assert cleared == {"cleared": 2, "cursor": 2}
    assert (await engine.call("observe", {"what": "logs"}))["entries"] == []


# What the extension answers: the documented example, before the engine adds `cached`.
AUDIT = {k: v for k, v in (build_registry().get("observe.a11y_audit").example_result or {}).items() if k != "cached"}


async def test_a11y_audit_is_cached_30_s_per_url_and_options(make_engine: EngineFactory, browser: FakeBrowser) -> None:
    clock = FakeClock()
    engine = make_engine(clock=clock)
    browser.replies["a11y.audit"] = AUDIT
    first = await engine.call("observe", {"what": "a11y_audit"})
    assert first["cached"] is False and first["violations"] == AUDIT["violations"]
    [call] = [c for c in browser.calls if c.op == "a11y.audit"]
    redact = list(DEFAULT_REDACT)  # the settings' list travels along: snippets never show those elements' values
    assert call.params == {"tab_id": 1, "include_passes": False, "redact": redact} and call.timeout_s >= 30
    clock.advance(29)
    again = await engine.call("observe", {"what": "a11y_audit"})
    assert again["cached"] is True and again["cache_age_s"] == 29
    scoped = await engine.call("observe", {"what": "a11y_audit", "scope": "main", "tags": ["wcag2a"]})
    assert scoped["cached"] is False
    assert browser.calls[-1].params == {
        "tab_id": 1,
        "scope": "main",
        "tags": ["wcag2a"],
        "include_passes": False,
        "redact": redact,
    }
    forced = await engine.call("observe", {"what": "a11y_audit", "force_refresh": True})
    assert forced["cached"] is False
    clock.advance(31)
    assert (await engine.call("observe", {"what": "a11y_audit", "scope": "main", "tags": ["wcag2a"]}))[
        "cached"
    ] is False
    browser.active_url = "https://example.test/other"
    assert (await engine.call("observe", {"what": "a11y_audit"}))["cached"] is False
    assert sum(1 for c in browser.calls if c.op == "a11y.audit") == 5


async def test_a11y_audit_passes_on_the_extensions_errors(engine: Engine, browser: FakeBrowser) -> None:
    browser.replies["a11y.audit"] = TabpilotError("not_supported", "run scripts/bootstrap")
    with pytest.raises(TabpilotError) as info:
        await engine.call("observe", {"what": "a11y_audit"})
    assert info.value.code == "not_supported"
    browser.replies["a11y.audit"] = AUDIT
    assert (await engine.call("observe", {"what": "a11y_audit"}))["cached"] is False, "failures are not cached"


async def test_observe_reads_are_in_the_activity_stream(engine: Engine) -> None:
    await engine.call("observe", {"what": "logs", "level": "error"})
    finished = [e for e in engine.activity.recent() if e.phase == "finished"]
    assert [(e.tool, e.mode, e.outcome) for e in finished] == [("observe", "logs", "ok")]


async def test_secrets_tabpilot_typed_never_come_back_from_capture(engine: Engine) -> None:
    """A page echoes what was filled in (a console line, a login POST, a URL): the reader sees the reference."""
    engine.known_secrets["SHOP_PASSWORD"] = "p@ss word!"
    feed(
        engine,
        1,
        {"kind": "log", "level": "log", "text": "logging in with p@ss word!", "args": ["p@ss word!"]},
        {"kind": "network", "method": "GET", "status": 200, "url": "https://shop.test/login?pw=p%40ss%20word%21"},
    )
    logs = await engine.call("observe", {"what": "logs", "tab_id": 1})
    network = await engine.call("observe", {"what": "network", "tab_id": 1})
    text = json.dumps([logs, network])
    assert "p@ss word!" not in text and "p%40ss%20word%21" not in text
    assert logs["entries"][0]["text"] == "logging in with {{secret:SHOP_PASSWORD}}"


async def test_a_read_has_what_the_tab_handed_over_when_asked_and_goes_on_when_it_cannot(
    engine: Engine, browser: FakeBrowser
) -> None:
    async def flushed(params: dict[str, Any]) -> dict[str, Any]:
        feed(engine, 1, {"kind": "network", "method": "GET", "url": "https://a.test/api/x", "status": 200})
        return {"tab_id": 1, "flushed": 1, "frames": 1}

    browser.replies["capture.flush"] = flushed
    answer = await engine.call("observe", {"what": "network"})
    assert [e["url"] for e in answer["entries"]] == ["https://a.test/api/x"] and answer["tab_id"] == 1
    # An extension that cannot flush (or an older one that does not say which tab): the tab is asked apart.
    for cannot in (TabpilotError("not_supported", "This extension does not know the operation."), {"flushed": 0}):
        browser.calls.clear()
        browser.replies["capture.flush"] = cannot
        again = await engine.call("observe", {"what": "network", "since_cursor": answer["cursor"]})
        assert again["entries"] == [] and again["tab_id"] == 1
        assert browser.ops == ["capture.flush", "tabs.resolve"]
