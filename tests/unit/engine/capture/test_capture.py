"""The capture buffers: fixed sizes, cursors without repeats or gaps, toggles, bounds, privacy."""

from __future__ import annotations

import json
from typing import Any

from tabpilot.engine.capture.capture import BUFFER_SIZES, CaptureStore, store_for
from tabpilot.engine.safety.pilot import PilotState


def log(n: int, level: str = "log") -> dict[str, Any]:
    return {"kind": "log", "level": level, "text": f"line {n}", "args": [n]}


def batch(tab_id: int, *items: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"tab_id": tab_id, "frame_id": 0, "url": f"https://site.test/{tab_id}", "items": list(items), **extra}


def texts(entries: list[dict[str, Any]]) -> list[str]:
    return [e["text"] for e in entries]


def test_each_kind_keeps_its_fixed_size_under_a_flood() -> None:
    store = CaptureStore()
    store.ingest(batch(1, *(log(n) for n in range(10_000))))
    store.ingest(batch(1, *({"kind": "ws", "event": "message", "data": str(n)} for n in range(5_000))))
    ring = store.tabs[1].rings
    assert len(ring["logs"].items) == BUFFER_SIZES["logs"] == 1000
    assert len(ring["websocket_events"].items) == BUFFER_SIZES["websocket_events"] == 200
    assert ring["logs"].received == 10_000 and ring["logs"].evicted == 9_000
    kept = [i["cursor"] for i in ring["logs"].items]
    assert kept == list(range(9_001, 10_001)), "the newest 1000, contiguous"
    assert BUFFER_SIZES == {"logs": 1000, "errors": 200, "network": 500, "network_bodies": 100, "websocket_events": 200}


def test_entries_are_newest_first_with_limit_and_the_next_cursor() -> None:
    store = CaptureStore()
    store.ingest(batch(1, *(log(n) for n in range(10))))
    page = store.entries("logs", tab_id=1, limit=3)
    assert texts(page.entries) == ["line 9", "line 8", "line 7"]
    assert page.more is True and page.cursor == store.cursor == 10 and page.buffered == 10
    assert all(e["tab_id"] == 1 and e["page"] == "https://site.test/1" for e in page.entries)


def test_since_cursor_gives_everything_after_without_repeats_or_gaps() -> None:
    store = CaptureStore()
    seen: list[str] = []
    cursor = store.entries("logs", tab_id=1).cursor
    n = 0
    for burst in (0, 3, 7, 1, 12, 0, 5):
        store.ingest(batch(1, *(log(n + i) for i in range(burst))))
        store.ingest(batch(2, log(-1)))  # another tab's lines move the cursor too
        n += burst
        while True:
            page = store.entries("logs", tab_id=1, limit=4, since_cursor=cursor)
            seen.extend(reversed(texts(page.entries)))
            cursor = page.cursor
            if not page.more:
                break
    assert seen == [f"line {i}" for i in range(n)]
    assert store.entries("logs", tab_id=1, since_cursor=cursor).entries == []


def test_a_chunk_after_since_cursor_is_the_oldest_part_and_its_cursor_continues() -> None:
    store = CaptureStore()
    store.ingest(batch(1, *(log(n) for n in range(10))))
    first = store.entries("logs", tab_id=1, limit=4, since_cursor=2)
    assert texts(first.entries) == ["line 5", "line 4", "line 3", "line 2"]
    assert first.more and first.cursor == 6
    rest = store.entries("logs", tab_id=1, limit=4, since_cursor=first.cursor)
    assert texts(rest.entries) == ["line 9", "line 8", "line 7", "line 6"] and not rest.more


def test_reading_after_an_overflow_says_entries_were_lost() -> None:
    store = CaptureStore(sizes={"logs": 5})
    store.ingest(batch(1, log(0)))
    cursor = store.cursor
    store.ingest(batch(1, *(log(n) for n in range(1, 9))))
    page = store.entries("logs", tab_id=1, since_cursor=cursor)
    assert page.evicted is True and texts(page.entries) == [f"line {n}" for n in range(8, 3, -1)]
    assert store.entries("logs", tab_id=1, since_cursor=store.cursor - 2).evicted is False


def test_filters_apply_before_the_limit() -> None:
    store = CaptureStore()
    store.ingest(batch(1, *(log(n, "error" if n % 3 == 0 else "log") for n in range(10))))
    page = store.entries("logs", tab_id=1, limit=2, match=lambda e: e["level"] == "error")
    assert texts(page.entries) == ["line 9", "line 6"] and page.more


def test_all_tabs_merge_newest_first() -> None:
    store = CaptureStore()
    store.ingest(batch(1, log(1)))
    store.ingest(batch(2, log(2)))
    store.ingest(batch(1, log(3)))
    page = store.entries("logs")
    assert [(e["tab_id"], e["text"]) for e in page.entries] == [(1, "line 3"), (2, "line 2"), (1, "line 1")]


def test_the_least_recently_active_tab_is_forgotten_past_the_tab_limit() -> None:
    store = CaptureStore(max_tabs=3)
    for tab in (1, 2, 3):
        store.ingest(batch(tab, log(tab)))
    store.ingest(batch(1, log(10)))
    store.ingest(batch(4, log(4)))
    assert list(store.tabs) == [3, 1, 4]


def test_toggled_kinds_are_dropped_while_off_and_forgotten_when_switched_off() -> None:
    pilot = PilotState()
    store = CaptureStore(pilot)
    body = {"kind": "body", "url": "/api", "responseBody": "{}"}
    ws = {"kind": "ws", "event": "message", "data": "hi"}
    assert store.ingest(batch(1, body, ws)) == 1, "bodies are off by default, WebSockets on"
    assert not store.enabled("network_bodies") and store.enabled("websocket_events")
    pilot.set_capability("capture_network_bodies", True)
    assert store.ingest(batch(1, body)) == 1
    pilot.set_capability("capture_network_bodies", False)
    assert len(store.tabs[1].rings["network_bodies"].items) == 0
    pilot.set_capability("capture_websockets", False)
    assert len(store.tabs[1].rings["websocket_events"].items) == 0
    assert store.ingest(batch(1, ws)) == 0


def test_items_are_bounded_and_sensitive_headers_never_kept() -> None:
    pilot = PilotState()
    pilot.set_capability("capture_network_bodies", True)
    store = CaptureStore(pilot)
    store.ingest(
        batch(
            1,
            {"kind": "log", "text": "x" * 10_000, "args": [list(range(100))], "kind2": {"a": {"b": {"c": {"d": 1}}}}},
            {
                "kind": "body",
                "responseBody": "y" * 40_000,
                "requestHeaders": {"Authorization": "Bearer s", "X-Session-Token": "t", "Accept": "x/y"},
                "responseHeaders": {"set-cookie": "a=b", "x-api-key": "k", "My-Secret": "s", "content-type": "a/b"},
            },
            {"kind": "nonsense"},
            "not an item",
        )
    )
    [entry] = store.entries("logs", tab_id=1).entries
    assert len(entry["text"]) == 4096 and entry["truncated"] is True and len(entry["args"][0]) == 50
    [body] = store.entries("network_bodies", tab_id=1).entries
    assert len(body["responseBody"]) == 16 * 1024 and body["truncated"] is True
    assert body["requestHeaders"] == {"accept": "x/y"} and body["responseHeaders"] == {"content-type": "a/b"}


def test_a_page_cannot_choose_the_tab_cursor_or_frame_of_its_items() -> None:
    store = CaptureStore()
    store.ingest(batch(1, {"kind": "log", "text": "t", "tab_id": 99, "cursor": 10**9, "frame_id": 7}))
    store.ingest({"tab_id": 1, "frame_id": 3, "url": "https://frame.test/", "items": [log(1)]})
    first, second = reversed(store.entries("logs", tab_id=1).entries)
    assert (first["tab_id"], first["cursor"], "frame_id" in first) == (1, 1, False)
    assert (second["frame_id"], second["page"]) == (3, "https://frame.test/")
    assert store.tabs[1].url == "https://site.test/1", "a frame does not change the tab's URL"
    assert store.ingest({"tab_id": "1", "items": [log(1)]}) == 0


def test_clear_empties_buffers_and_cursors_go_on() -> None:
    store = CaptureStore()
    store.ingest(batch(1, log(1), {"kind": "error", "message": "boom"}))
    store.ingest(batch(2, log(2)))
    assert store.clear(tab_id=1, kinds=("logs",)) == 1
    assert store.entries("errors", tab_id=1).entries and store.entries("logs", tab_id=2).entries
    assert store.clear() == 2
    store.ingest(batch(1, log(3)))
    assert store.entries("logs").entries[0]["cursor"] == 4


def test_status_counts_per_tab_and_page_side_drops() -> None:
    store = CaptureStore()
    store.ingest(batch(1, log(1), dropped=5, settings={"websockets": True, "bodies": False, "evil": True}))
    store.ingest(batch(2, {"kind": "network", "url": "/x", "status": 200}))
    two, one = store.status()
    assert two["tab_id"] == 2 and two["buffered"]["network"] == 1
    assert one["buffered"]["logs"] == 1 and one["received"]["logs"] == 1 and one["dropped_in_page"] == 5
    assert one["page_settings"] == {"websockets": True, "bodies": False}


def test_link_events_other_than_capture_are_ignored() -> None:
    store = CaptureStore()
    store.on_link_event("page", {"tab_id": 1, "url": "x"})
    store.on_link_event("capture", batch(1, log(1)))
    assert list(store.tabs) == [1]


def test_one_store_per_engine_following_its_pilot() -> None:
    class Engine:
        def __init__(self) -> None:
            self.pilot = PilotState()

    a, b = Engine(), Engine()
    assert store_for(a) is store_for(a) and store_for(a) is not store_for(b)
    assert store_for(a).pilot is a.pilot


def test_credentials_never_stay_in_captured_addresses() -> None:
    store = CaptureStore()
    store.ingest(
        batch(
            1,
            {"kind": "network", "url": "https://bob:hunter2@api.test/v1?token=abc&page=2&api_key=k#access_token=z&x=1"},
            {"kind": "ws", "url": "wss://live.test/socket?session=s1&room=7", "data": "hi", "direction": "incoming"},
        )
    )
    [request] = store.entries("network", tab_id=1).entries
    assert (
        request["url"] == "https://api.test/v1?token=[REDACTED]&page=2&api_key=[REDACTED]#access_token=[REDACTED]&x=1"
    )
    [message] = store.entries("websocket_events", tab_id=1).entries
    assert message["url"] == "wss://live.test/socket?session=[REDACTED]&room=7"


def test_a_page_cannot_grow_memory_with_large_items() -> None:
    """One console line of big nested objects is cut to the item budget; rings and the store have byte budgets."""
    store = CaptureStore(sizes={"logs": 1000})
    nested = [{"a": {"b": {"c": "x" * 500}}, "d": "y" * 500} for _ in range(10)]
    for _ in range(300):
        store.ingest(batch(1, {"kind": "log", "text": "z" * 4000, "args": nested * 5}))
    [newest] = store.entries("logs", tab_id=1, limit=1).entries
    assert newest["truncated"] is True
    assert len(json.dumps(newest)) < 20 * 1024
    assert store.tabs[1].rings["logs"].bytes <= 2 * 1024 * 1024
    assert store.bytes == sum(tab.bytes for tab in store.tabs.values())


def test_a_cursor_from_before_a_restart_gets_everything_held_and_says_so() -> None:
    store = CaptureStore()
    store.ingest(batch(1, log(1), log(2)))
    page = store.entries("logs", tab_id=1, since_cursor=5000)
    assert [e["text"] for e in page.entries] == ["line 2", "line 1"]
    assert page.reset is True


def test_entries_lost_with_a_forgotten_tab_are_reported_as_evicted() -> None:
    store = CaptureStore(max_tabs=2)
    store.ingest(batch(1, log(1)))
    seen = store.cursor
    store.ingest(batch(2, log(2)))
    store.ingest(batch(3, log(3)))  # tab 1 is forgotten
    page = store.entries("logs", since_cursor=0)
    assert page.evicted is True
    assert store.entries("logs", since_cursor=seen).evicted is False
