"""ExtensionLink: requests matched to replies by id over a (fake) socket; failures as contract codes."""

from __future__ import annotations

import asyncio
import json
import logging
import re
from typing import Any

import pytest

from tabpilot.bridge import link as link_module
from tabpilot.bridge.link import OLDER_EXTENSION_HINT, ExtensionLink
from tabpilot.bridge.link import SLOT_SPAN as SPAN
from tabpilot.bridge.protocol import Hello
from tabpilot.engine.errors import TabpilotError
from tests.support.waiting import until

HELLO: Hello = {
    "type": "hello",
    "protocol": 1,
    "extension_version": "0.1.0",
    "extension_id": "mlkkpgdajhikmngjhninkfngfhbknalp",
    "instance_id": "inst-1",
    "browser": {"name": "Chromium", "version": "126"},
}


class FakeSocket:
    def __init__(self, *, broken: bool = False) -> None:
        self.sent: list[dict[str, Any]] = []
        self.broken = broken
        self.closed = False

    async def send_str(self, data: str) -> None:
        if self.broken:
            raise ConnectionResetError("socket is closing")
        self.sent.append(json.loads(data))

    async def close(self, *, code: int = 1000, message: bytes = b"") -> bool:
        self.closed = True
        return True


@pytest.fixture
def socket() -> FakeSocket:
    return FakeSocket()


@pytest.fixture
def link(socket: FakeSocket) -> ExtensionLink:
    link = ExtensionLink()
    link.attach(socket, HELLO)
    return link


async def sent_commands(socket: FakeSocket, count: int) -> list[dict[str, Any]]:
    await until(lambda: len(socket.sent) >= count, timeout=5, what=f"{count} command frames")
    return socket.sent


async def failure(awaitable: Any) -> TabpilotError:
    with pytest.raises(TabpilotError) as info:
        await awaitable
    return info.value


def ok(msg_id: str, data: Any) -> dict[str, Any]:
    return {"type": "result", "id": msg_id, "ok": True, "data": data}


def err(msg_id: str, error: dict[str, Any]) -> dict[str, Any]:
    return {"type": "result", "id": msg_id, "ok": False, "error": error}


async def test_not_connected() -> None:
    link = ExtensionLink()
    assert not link.connected
    assert link.info() == {}
    e = await failure(link.request("page.info", {}, timeout_s=1))
    assert e.code == "extension_not_connected"


async def test_a_command_frame_carries_op_params_and_timeout(link: ExtensionLink, socket: FakeSocket) -> None:
    task = asyncio.create_task(link.request("dom.query", {"selector": "h1"}, timeout_s=2.5))
    (frame,) = await sent_commands(socket, 1)
    assert frame == {
        "type": "command",
        "id": frame["id"],
        "op": "dom.query",
        "params": {"selector": "h1"},
        "timeout_ms": 2500,
    }
    link.resolve(ok(frame["id"], {"matchCount": 1}))
    assert await task == {"matchCount": 1}


async def test_out_of_order_replies_reach_the_right_callers(link: ExtensionLink, socket: FakeSocket) -> None:
    first = asyncio.create_task(link.request("page.info", {"n": 1}, timeout_s=5))
    second = asyncio.create_task(link.request("tabs.list", {"n": 2}, timeout_s=5))
    frames = await sent_commands(socket, 2)
    ids = [f["id"] for f in frames]
    assert len(set(ids)) == 2
    by_op = {f["op"]: f["id"] for f in frames}
    link.resolve(ok(by_op["tabs.list"], {"tabs": []}))
    link.resolve(ok(by_op["page.info"], {"title": "A"}))
    assert await first == {"title": "A"}
    assert await second == {"tabs": []}


async def test_an_empty_success_is_an_empty_object(link: ExtensionLink, socket: FakeSocket) -> None:
    task = asyncio.create_task(link.request("tabs.track", {}, timeout_s=5))
    (frame,) = await sent_commands(socket, 1)
    link.resolve({"type": "result", "id": frame["id"], "ok": True})
    assert await task == {}


async def test_no_reply_in_time_is_timeout(link: ExtensionLink, socket: FakeSocket) -> None:
    e = await failure(link.request("js.execute", {"script": "1"}, timeout_s=0.05))
    assert e.code == "timeout"
    assert "'js.execute'" in e.message and "0.05 s" in e.message
    # A late reply is dropped quietly.
    link.resolve(ok(socket.sent[0]["id"], {"late": True}))


async def test_detach_fails_pending_requests(link: ExtensionLink, socket: FakeSocket) -> None:
    states: list[bool] = []
    link.subscribe(states.append)
    task = asyncio.create_task(link.request("page.info", {}, timeout_s=5))
    await sent_commands(socket, 1)
    link.detach(socket)
    e = await failure(task)
    assert e.code == "extension_not_connected"
    assert "disconnected" in e.message
    assert not link.connected and link.info() == {}
    assert states == [False]


async def test_detaching_a_replaced_socket_changes_nothing(link: ExtensionLink, socket: FakeSocket) -> None:
    newer = FakeSocket()
    assert link.attach(newer, HELLO) is socket  # the same browser reconnected
    link.detach(socket)
    assert link.connected and link.is_current(newer) and not link.is_current(socket)
    assert link.info()["instance_id"] == "inst-1"


async def test_a_reconnect_fails_requests_sent_on_the_old_socket(link: ExtensionLink, socket: FakeSocket) -> None:
    task = asyncio.create_task(link.request("page.info", {}, timeout_s=5))
    await sent_commands(socket, 1)
    link.attach(FakeSocket(), HELLO)
    e = await failure(task)
    assert e.code == "extension_not_connected"
    assert "reconnected" in e.message


async def test_a_broken_socket_is_extension_not_connected() -> None:
    link = ExtensionLink()
    link.attach(FakeSocket(broken=True), HELLO)
    e = await failure(link.request("page.info", {}, timeout_s=5))
    assert e.code == "extension_not_connected"


@pytest.mark.parametrize(
    ("error", "code", "message", "details"),
    [
        (
            {"code": "element_not_found", "message": "No '#x'.", "details": {"selector": "#x"}},
            "element_not_found",
            "No '#x'.",
            {"selector": "#x"},
        ),
        ({"code": "timeout", "message": "slow"}, "timeout", "slow", {}),
        ({"code": "weird_new_code", "message": "odd"}, "internal", "odd", {}),
        ({"code": 5}, "internal", "browser error", {}),
        ({"message": "m", "details": "not an object"}, "internal", "m", {}),
        (
            {
                "code": "timeout",
                "message": "slow",
                "details": {"message": "x", "code": "y", "error": "z", "n": 1},
            },
            "timeout",
            "slow",
            {"n": 1},
        ),
        # An extension older than the app: the person is told how to update it.
        (
            {"code": "not_supported", "message": "This extension does not know the operation 'tab.pdf'."},
            "not_supported",
            "This extension does not know the operation 'tab.pdf'. " + OLDER_EXTENSION_HINT,
            {},
        ),
        (
            {"code": "invalid_params", "message": "dom.query: unknown parameter 'frame' (expected: selector)."},
            "invalid_params",
            "dom.query: unknown parameter 'frame' (expected: selector). " + OLDER_EXTENSION_HINT,
            {},
        ),
    ],
)
async def test_error_results_map_to_contract_codes(
    link: ExtensionLink,
    socket: FakeSocket,
    error: dict[str, Any],
    code: str,
    message: str,
    details: dict[str, Any],
) -> None:
    task = asyncio.create_task(link.request("dom.query", {"selector": "#x"}, timeout_s=5))
    (frame,) = await sent_commands(socket, 1)
    link.resolve(err(frame["id"], error))
    e = await failure(task)
    if code == "internal":  # the app gives it a log reference (test below)
        ref = e.details.pop("log_ref")
        message = f"{message} (see its log under {ref})"
    assert (e.code, e.message, e.details) == (code, message, details)
    assert e.envelope()["error"] == code


async def test_an_internal_error_from_the_extension_gets_a_log_reference_and_its_message_is_logged(
    link: ExtensionLink, socket: FakeSocket, caplog: pytest.LogCaptureFixture
) -> None:
    failing = 'Extension error: Cannot access contents of url "chrome://newtab/".'
    task = asyncio.create_task(link.request("page.performance", {}, timeout_s=5))
    (frame,) = await sent_commands(socket, 1)
    with caplog.at_level(logging.WARNING, logger="tabpilot.bridge"):
        link.resolve(err(frame["id"], {"code": "internal", "message": failing}))
        e = await failure(task)
    ref = e.details["log_ref"]
    assert e.code == "internal" and re.fullmatch(r"ERR-[0-9a-f]{8}", ref)
    assert e.message == f"{failing} (see its log under {ref})" and e.envelope()["log_ref"] == ref
    (record,) = [r for r in caplog.records if ref in r.getMessage()]
    assert record.levelno == logging.WARNING and failing in record.getMessage()

    # One that already names its log reference keeps it.
    task = asyncio.create_task(link.request("page.performance", {}, timeout_s=5))
    (_, frame) = await sent_commands(socket, 2)
    link.resolve(err(frame["id"], {"code": "internal", "message": "m", "details": {"log_ref": "ERR-00000001"}}))
    e = await failure(task)
    assert (e.message, e.details) == ("m", {"log_ref": "ERR-00000001"})


async def test_an_op_outside_the_protocol_is_a_programming_error(link: ExtensionLink, socket: FakeSocket) -> None:
    with pytest.raises(ValueError, match="not in the bridge protocol"):
        await link.request("fs.read", {}, timeout_s=1)
    assert socket.sent == []


def test_results_for_unknown_ids_are_ignored(link: ExtensionLink) -> None:
    link.resolve(ok("m999", {}))


def test_info_describes_the_connected_browser(link: ExtensionLink) -> None:
    assert link.info() == {
        "name": "Chromium",
        "version": "126",
        "extension_version": "0.1.0",
        "extension_id": "mlkkpgdajhikmngjhninkfngfhbknalp",
        "instance_id": "inst-1",
        "managed": False,
        "active_url": None,
        "responding": True,
    }
    link.attach(FakeSocket(), {**HELLO, "auth": "managed"})
    assert link.info()["managed"] is True


async def test_events_update_the_page_and_reach_handlers(link: ExtensionLink) -> None:
    seen: list[tuple[str, str]] = []
    link.on_event(lambda name, data: seen.append(("first", name)))
    stop = link.on_event(lambda name, data: seen.append(("second", name)))
    await link.handle_event("page", {"url": "https://a.test/", "title": "A"})
    assert link.info()["active_url"] == "https://a.test/"
    assert seen == [("first", "page"), ("second", "page")]
    stop()
    stop()  # twice: harmless
    await link.handle_event("page", {"url": "https://b.test/", "title": "B"})
    assert seen[2:] == [("first", "page")]


async def test_a_failing_event_handler_does_not_keep_the_others_from_hearing(
    link: ExtensionLink, caplog: pytest.LogCaptureFixture
) -> None:
    seen: list[str] = []

    def broken(name: str, data: dict[str, Any]) -> None:
        raise RuntimeError("the capture store is gone")

    link.on_event(broken)
    link.on_event(lambda name, data: seen.append(name))
    with caplog.at_level(logging.ERROR, logger="tabpilot.observers"):
        await link.handle_event("tab_closed", {"tab_id": 3})
    assert seen == ["tab_closed"]
    assert any("browser event listener failed" in r.getMessage() for r in caplog.records)


def test_an_async_event_handler_is_refused(link: ExtensionLink) -> None:
    async def handler(name: str, data: dict[str, Any]) -> None:
        pass

    with pytest.raises(TypeError, match="plain function"):
        link.on_event(handler)  # type: ignore[arg-type]


async def test_send_on_a_closing_socket_is_dropped() -> None:
    link = ExtensionLink()
    await link.send({"type": "state"})  # not connected: nothing to do
    link.attach(FakeSocket(broken=True), HELLO)
    await link.send({"type": "state"})


def test_listeners_hear_connects(socket: FakeSocket) -> None:
    link = ExtensionLink()
    states: list[bool] = []
    unsubscribe = link.subscribe(states.append)
    link.attach(socket, HELLO)
    unsubscribe()
    link.detach(socket)
    assert states == [True]


# -- several browsers at once ------------------------------------------------------------------------

MANAGED: Hello = {**HELLO, "instance_id": "managed-1", "auth": "managed"}  # type: ignore[typeddict-item]
OWN: Hello = {**HELLO, "instance_id": "own-1", "auth": "paired", "pair_id": "pair-1"}  # type: ignore[typeddict-item]


async def answer(socket: FakeSocket, n: int, data: Any, link: ExtensionLink) -> dict[str, Any]:
    frames = await sent_commands(socket, n)
    frame = frames[-1]
    link.resolve(ok(frame["id"], data(frame) if callable(data) else data))
    return frame


async def test_two_browsers_connect_side_by_side_and_commands_go_to_the_tabs_browser() -> None:
    link = ExtensionLink()
    managed, own = FakeSocket(), FakeSocket()
    assert link.attach(managed, MANAGED) is None
    assert link.attach(own, OWN) is None  # beside it, not instead of it
    assert link.connected and link.is_current(managed) and link.is_current(own)
    assert [h["instance_id"] for h in link.hellos()] == ["managed-1", "own-1"]
    assert link.info()["instance_id"] == "own-1"  # the person's own browser is the default
    assert link.info()["browsers_connected"] == 2

    # observe tabs: every browser's tabs, with ids that tell the browsers apart and the browser's name.
    listing = asyncio.create_task(link.request("tabs.list", {}, timeout_s=5))
    await answer(managed, 1, {"tabs": [{"tab_id": 5, "url": "https://m.test/", "active": True}]}, link)
    await answer(own, 1, {"tabs": [{"tab_id": 5, "url": "https://o.test/", "active": True}]}, link)
    tabs = (await listing)["tabs"]
    assert [(t["tab_id"], t["url"], t["browser"]) for t in tabs] == [
        (5, "https://m.test/", "managed browser"),
        (SPAN + 5, "https://o.test/", "Chromium"),
    ]

    # A command naming a tab goes to that tab's browser, with that browser's own id; its answer's ids are
    # the app's again.
    clicking = asyncio.create_task(link.request("page.info", {"tab_id": SPAN + 5}, timeout_s=5))
    frame = await answer(own, 2, {"tab_id": 5, "url": "https://o.test/"}, link)
    assert frame["params"]["tab_id"] == 5
    assert (await clicking)["tab_id"] == SPAN + 5
    navigating = asyncio.create_task(link.request("page.info", {"tab_id": 5}, timeout_s=5))
    await answer(managed, 2, {"tab_id": 5}, link)
    assert (await navigating)["tab_id"] == 5
    # None named: the default browser; tracking a tab makes its browser the default.
    plain = asyncio.create_task(link.request("page.info", {}, timeout_s=5))
    await answer(own, 3, {"tab_id": 7}, link)
    assert (await plain)["tab_id"] == SPAN + 7
    tracking = asyncio.create_task(link.request("tabs.track", {"tab_id": 5, "clear": False}, timeout_s=5))
    await answer(managed, 3, {"tracked": 5}, link)
    await tracking
    assert link.info()["instance_id"] == "managed-1"

    # Events carry the app's ids too; a browser that leaves takes only its own requests along.
    seen: list[dict[str, Any]] = []
    link.on_event(lambda name, data: seen.append(data))
    await link.handle_event("capture", {"tab_id": 3, "items": []}, own)
    assert seen[-1]["tab_id"] == SPAN + 3
    pending_own = asyncio.create_task(link.request("page.info", {"tab_id": SPAN + 5}, timeout_s=5))
    await sent_commands(own, 4)
    link.detach(own)
    assert (await failure(pending_own)).code == "extension_not_connected"
    assert link.connected and link.info()["instance_id"] == "managed-1"
    gone = await failure(link.request("page.info", {"tab_id": SPAN + 5}, timeout_s=5))
    assert gone.code == "tab_closed"

    # It comes back: same slot, same ids.
    again = FakeSocket()
    link.attach(again, OWN)
    back = asyncio.create_task(link.request("page.info", {"tab_id": SPAN + 5}, timeout_s=5))
    frame = await answer(again, 1, {"tab_id": 5}, link)
    assert frame["params"]["tab_id"] == 5 and (await back)["tab_id"] == SPAN + 5


def test_the_link_takes_so_many_browsers_and_a_reconnect_always() -> None:
    link = ExtensionLink(max_browsers=1)
    link.attach(FakeSocket(), MANAGED)
    assert link.full()
    assert not link.has_room(OWN)
    assert link.has_room(MANAGED)  # the same browser reconnecting


async def test_state_goes_to_every_browser_and_revoking_cuts_off_only_that_pairing() -> None:
    link = ExtensionLink()
    managed, own = FakeSocket(), FakeSocket()
    link.attach(managed, MANAGED)
    link.attach(own, OWN)
    await link.send({"type": "state", "state": {}})
    assert managed.sent == own.sent == [{"type": "state", "state": {}}]
    await link.close_pairing("pair-1", "revoked")
    assert own.closed and not managed.closed


# -- health (issue 18: a stuck service worker stayed "connected" while every call timed out) --------------


async def test_a_browser_that_stops_answering_is_reported_then_cut_off(
    link: ExtensionLink, socket: FakeSocket, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(link_module, "HEALTH_ANSWER_S", 0.05)
    assert link.info()["responding"] is True and link.connected
    waiting = asyncio.ensure_future(link.request("page.read", {}, timeout_s=600))  # a call stuck behind it
    await sent_commands(socket, 1)
    await link.probe()  # unanswered: the worker is stuck
    info = link.info()
    assert info["responding"] is False and info["unanswered_s"] >= 0
    assert link.connected and not waiting.done()
    for _ in range(link_module.HEALTH_GIVE_UP - 1):
        await link.probe()
    assert socket.closed and not link.connected
    with pytest.raises(TabpilotError) as caught:
        await waiting  # failed now, not after its 600 s
    assert caught.value.code == "extension_not_connected" and "stopped answering" in caught.value.message


async def test_a_browser_that_answers_its_probe_stays_healthy(link: ExtensionLink, socket: FakeSocket) -> None:
    probing = asyncio.ensure_future(link.probe())
    [probe] = await sent_commands(socket, 1)
    assert probe["op"] == link_module.HEALTH_PROBE_OP
    link.resolve({"type": "result", "id": probe["id"], "ok": True, "data": {"tabs": []}})
    await probing
    assert link.connected and link.info()["responding"] is True and not socket.closed
