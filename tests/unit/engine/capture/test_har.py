"""generate har through the engine with a fake browser: the capture's requests as HAR 1.2 entries, bodies
matched to their requests only while bodies are captured, the page's document and timings, no secrets."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from haralyzer import HarParser

from tabpilot.engine.capture.capture import store_for
from tabpilot.engine.capture.har import build_har
from tabpilot.engine.core import Engine, EngineConfig
from tabpilot.engine.errors import TabpilotError
from tests.support.har_schema import validate_har
from tests.unit.engine.conftest import EngineFactory
from tests.unit.fakes import FakeBrowser

TS = "2026-01-15T10:30:00.000Z"
PERF = {
    "url": "https://shop.test/cart",
    "title": "Cart",
    "time_origin": 1768473000000,
    "navigation": {
        "type": "navigate",
        "ttfb_ms": 40.5,
        "response_end_ms": 52.0,
        "dom_content_loaded_ms": 120.0,
        "load_ms": 300.0,
        "transfer_size": 2000,
        "decoded_body_size": 1800,
        "status": 200,
    },
}


def network(url: str, *, method: str = "GET", status: int = 200, ts: str = TS, **extra: Any) -> dict[str, Any]:
    return {
        "kind": "network",
        "source": "fetch",
        "method": method,
        "url": url,
        "status": status,
        "ok": 200 <= status < 300,
        "duration_ms": 12.5,
        "content_type": "application/json",
        "response_size": 20,
        "ts": ts,
        **extra,
    }


def body(url: str, *, method: str = "GET", ts: str = TS, **extra: Any) -> dict[str, Any]:
    return {
        "kind": "body",
        "source": "fetch",
        "method": method,
        "url": url,
        "status": 200,
        "contentType": "application/json",
        "requestHeaders": {"content-type": "application/json", "authorization": "Bearer nope"},
        "responseHeaders": {"content-type": "application/json"},
        "requestBody": None,
        "responseBody": '{"ok":true}',
        "ts": ts,
        **extra,
    }


def feed(engine: Engine, tab_id: int, *items: dict[str, Any]) -> None:
    store_for(engine).ingest({"tab_id": tab_id, "frame_id": 0, "url": "https://shop.test/cart", "items": list(items)})


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    return tmp_path / "artifacts"


def engine_with(make_engine: EngineFactory, browser: FakeBrowser, folder: Path, *, bodies: bool) -> Engine:
    browser.replies["page.performance"] = PERF
    engine = make_engine(config=EngineConfig(artifacts_dir=folder))
    engine.pilot.set_capability("capture_network_bodies", bodies)
    return engine


def read(answer: dict[str, Any]) -> dict[str, Any]:
    har: dict[str, Any] = json.loads(Path(answer["path"]).read_text(encoding="utf-8"))
    validate_har(har)
    return har


async def test_the_tabs_requests_become_har_entries_after_its_document(
    make_engine: EngineFactory, browser: FakeBrowser, folder: Path
) -> None:
    engine = engine_with(make_engine, browser, folder, bodies=False)
    feed(
        engine,
        1,
        network("https://shop.test/api/cart?id=7&token=abc"),
        network("https://shop.test/api/pay", method="POST", status=500, request_size=30),
        {**network("https://shop.test/logo.png"), "source": "resource", "initiator": "img", "transfer_size": 900},
    )
    feed(engine, 2, network("https://other.test/elsewhere"))
    answer = await engine.call("generate", {"type": "har", "path": "cart"})
    assert answer["entries"] == 4 and answer["bodies"] == 0 and answer["bodies_captured"] is False
    har = read(answer)
    assert Path(answer["path"]).name == "cart.har" and answer["size_bytes"] == Path(answer["path"]).stat().st_size
    parsed = HarParser(har)
    (page,) = parsed.pages
    assert page.title == "Cart" and page.pageTimings == {"onContentLoad": 120.0, "onLoad": 300.0}
    entries = har["log"]["entries"]
    assert [e["request"]["url"] for e in entries] == [
        "https://shop.test/cart",
        "https://shop.test/api/cart?id=7&token=[REDACTED]",
        "https://shop.test/api/pay",
        "https://shop.test/logo.png",
    ]
    document, cart, pay, logo = entries
    assert document["startedDateTime"] == "2026-01-15T10:30:00.000Z" and document["_resourceType"] == "document"
    assert document["timings"]["wait"] == 40.5 and document["response"]["bodySize"] == 2000
    assert cart["request"]["queryString"] == [{"name": "id", "value": "7"}, {"name": "token", "value": "[REDACTED]"}]
    assert cart["response"]["content"] == {"size": 20, "mimeType": "application/json"}
    assert (pay["request"]["method"], pay["response"]["status"], pay["request"]["bodySize"]) == ("POST", 500, 30)
    assert logo["_resourceType"] == "image" and logo["response"]["bodySize"] == 900
    assert all(e["pageref"] == "page_1" and e["time"] >= 0 for e in entries)


async def test_bodies_join_their_requests_while_bodies_are_captured(
    make_engine: EngineFactory, browser: FakeBrowser, folder: Path
) -> None:
    engine = engine_with(make_engine, browser, folder, bodies=True)
    later = "2026-01-15T10:30:01.000Z"
    feed(
        engine,
        1,
        network("https://shop.test/api/cart"),
        network("https://shop.test/api/cart", ts=later),
        network("https://shop.test/api/login", method="POST"),
        body("https://shop.test/api/cart", ts=later, responseBody='{"n":2}'),
        body(
            "https://shop.test/api/login",
            method="POST",
            requestBody='{"user":"ann","password":"hunter2"}',
            responseBody="[Binary: 5 bytes, application/octet-stream]",
        ),
    )
    answer = await engine.call("generate", {"type": "har", "url_filter": "/API/"})
    assert answer["bodies_captured"] is True and answer["entries"] == 3 and answer["bodies"] == 2
    har = read(answer)
    first, second, login = har["log"]["entries"]  # the document's URL does not match the filter
    assert har["log"]["pages"][0]["title"] == "Cart" and har["log"]["pages"][0]["pageTimings"]["onLoad"] == 300
    assert "text" not in first["response"]["content"] and second["response"]["content"]["text"] == '{"n":2}'
    assert login["request"]["postData"] == {
        "mimeType": "application/json",
        "text": '{"user":"ann","password":"[REDACTED]"}',
    }
    assert "text" not in login["response"]["content"], "a binary body stays out"
    assert {h["name"] for h in login["request"]["headers"]} == {"content-type"}, "no authorization header"


async def test_secrets_tabpilot_typed_never_reach_the_file(
    make_engine: EngineFactory, browser: FakeBrowser, folder: Path
) -> None:
    engine = engine_with(make_engine, browser, folder, bodies=False)
    engine.known_secrets["pin"] = "Zx9-secret-Q"
    feed(engine, 1, network("https://shop.test/search?q=Zx9-secret-Q"), network("https://shop.test/search?q=Zx9-s"))
    written = Path((await engine.call("generate", {"type": "har"}))["path"]).read_text(encoding="utf-8")
    assert "Zx9" not in written and "{{secret:pin}}" in written


async def test_an_unreadable_page_still_gives_a_har(
    make_engine: EngineFactory, browser: FakeBrowser, folder: Path
) -> None:
    engine = engine_with(make_engine, browser, folder, bodies=False)
    browser.replies["page.performance"] = TabpilotError("not_supported", "Tabpilot cannot work in chrome://")
    feed(engine, 1, network("https://shop.test/api/cart"))
    har = read(await engine.call("generate", {"type": "har"}))
    assert len(har["log"]["entries"]) == 1 and har["log"]["pages"][0]["title"] == "tab 1"
    assert har["log"]["pages"][0]["pageTimings"] == {"onContentLoad": -1, "onLoad": -1}


def test_an_empty_capture_is_an_empty_but_valid_har() -> None:
    har = build_har([], [], title="nothing")
    assert har["log"]["entries"] == [] and har["log"]["version"] == "1.2"
    validate_har(har)
    HarParser(har)


def test_a_failed_request_is_an_entry_with_status_0_and_its_error() -> None:
    failed = network("https://down.test/api", status=0, error="Failed to fetch", duration_ms=None)
    har = build_har([failed], [], title="down")
    validate_har(har)
    (entry,) = har["log"]["entries"]
    assert entry["response"]["status"] == 0 and entry["_error"] == "Failed to fetch" and entry["time"] == 0


async def test_the_har_is_the_current_pages_and_the_tab_hands_over_its_buffer_first(
    make_engine: EngineFactory, browser: FakeBrowser, folder: Path
) -> None:
    engine = engine_with(make_engine, browser, folder, bodies=False)
    # A page the tab showed before this one (its requests came before the current page's time origin).
    feed(engine, 1, network("https://shop.test/api/old-page", ts="2026-01-15T10:29:59.000Z"))

    async def flushed(params: dict[str, Any]) -> dict[str, Any]:
        # What the page still had buffered reaches the app before the flush answers.
        feed(engine, 1, network("https://shop.test/api/just-now", ts="2026-01-15T10:30:05.000Z"))
        return {"flushed": 1}

    browser.replies["capture.flush"] = flushed
    har = read(await engine.call("generate", {"type": "har"}))
    assert [e["request"]["url"] for e in har["log"]["entries"]] == [
        "https://shop.test/cart",
        "https://shop.test/api/just-now",
    ]
    assert [c.params for c in browser.calls if c.op == "capture.flush"] == [{"tab_id": 1}]


def test_mocked_and_blocked_requests_say_so_in_the_har() -> None:
    mocked = network("https://shop.test/api/items", status=201, mocked=True, route="**/api/items*")
    blocked = network(
        "https://shop.test/ads.js", status=0, ok=False, blocked=True, route="**/ads.js", error="Failed to fetch"
    )
    silent = network("https://shop.test/ads2.js", status=0, blocked=True, route="**/ads2.js")
    real = network("https://shop.test/api/real")
    har = build_har([mocked, blocked, silent, real], [], title="routes")
    validate_har(har)
    HarParser(har)
    by_url = {e["request"]["url"].rsplit("/", 1)[1]: e for e in har["log"]["entries"]}
    assert by_url["items"]["_mocked"] is True and by_url["items"]["_route"] == "**/api/items*"
    assert by_url["items"]["response"]["status"] == 201 and "_blocked" not in by_url["items"]
    assert by_url["ads.js"]["_blocked"] is True and by_url["ads.js"]["_route"] == "**/ads.js"
    assert by_url["ads.js"]["response"]["status"] == 0 and by_url["ads.js"]["_error"] == "Failed to fetch"
    assert by_url["ads2.js"]["response"]["status"] == 0 and "block_urls" in by_url["ads2.js"]["_error"]
    assert not {"_mocked", "_blocked", "_route"} & set(by_url["real"])
