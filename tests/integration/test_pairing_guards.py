"""Pairing against the real bridge: the one-time code goes to the person only (never to the log), a
stranger's knocks and wrong codes neither block nor spend the person's pairing, and the person's own
browser connects beside another one (or, when the app is full, keeps its pairing and waits)."""

from __future__ import annotations

import asyncio
import re
import time
from pathlib import Path

import pytest

from tabpilot import logsetup
from tabpilot.app import App
from tabpilot.bridge import pairing
from tabpilot.bridge.pairing import KNOCK_STALE_S, MAX_BAD_PROOFS, MAX_WAITING, normalize_code
from tabpilot.paths import Paths
from tests.conftest import AppFactory
from tests.support.fake_extension import FakeExtension, paired_with
from tests.support.processes import Serve
from tests.support.waiting import until

CODE = re.compile(r"\b([2-9A-HJ-NP-Z]{4}-[2-9A-HJ-NP-Z]{4})\b")


def port(app: App) -> int:
    assert app.bridge is not None
    return app.bridge.port


async def knock(app_port: int, instance: str | None = None) -> FakeExtension:
    fake = FakeExtension(app_port, auth="none")
    if instance:
        fake.instance_id = instance
    await fake.connect(browser={"name": "Chromium", "version": "130.0", "os": "Linux"})
    await fake.close()
    return fake


async def prove(app: App, code: str, instance: str | None = None) -> FakeExtension:
    fake = FakeExtension(port(app), auth="pairing", secret=normalize_code(code))
    if instance:
        fake.instance_id = instance
    await fake.connect(browser={"name": "Chromium", "version": "130.0", "os": "Linux"})
    return fake


def codes_in(text: str) -> set[str]:
    return {normalize_code(c) for c in CODE.findall(text)}


async def test_serve_shows_a_knocking_browsers_code_on_its_terminal_and_never_in_the_log(tmp_path: Path) -> None:
    """A real `tabpilot serve` run: the code of a browser that knocks is printed on the terminal (stderr)
    for the person; the log file, which any program of the user's can read, says only where to look."""
    home = tmp_path / "home"
    serve = Serve(home, "--browser", "none", "--port", "0")
    try:
        status = await serve.start(connected=False)
        fake = await knock(status["port"])
        assert fake.refused is not None and fake.refused["code"] == "unpaired"
        assert serve.proc is not None and serve.proc.stderr is not None
        terminal = b""
        deadline = time.monotonic() + 15
        while not CODE.search(terminal.decode()) and time.monotonic() < deadline:
            terminal += await asyncio.wait_for(serve.proc.stderr.readline(), deadline - time.monotonic())
        [shown] = codes_in(terminal.decode())
        # The code shown is the one that pairs that browser.
        paired = FakeExtension(status["port"], auth="pairing", secret=shown)
        paired.instance_id = fake.instance_id
        await paired.connect()
        assert paired.welcome is not None, paired.refused
        await paired.close()
    finally:
        await serve.stop()
    log = Paths.resolve(home).log_file.read_text()
    assert shown not in normalize_code(log), "the pairing code reached the log file"
    assert codes_in(log) == set()
    assert "A browser wants to connect (Chromium 130.0 on Linux)" in log
    assert "the terminal running `tabpilot serve` shows" in fake.refused["reason"]  # the popup says where


@pytest.mark.parametrize("verbose", [False, True])
async def test_the_tray_keeps_pairing_codes_out_of_the_log_even_with_v(
    make_app: AppFactory, home: Path, verbose: bool
) -> None:
    """Tray mode: the window shows the code (ui/pairing.py); neither a knock's code nor one the person asks
    for ("Pair your own browser…") is written to the log, also under -v."""
    paths = Paths.resolve(home)
    logsetup.configure(paths, verbose=verbose, stderr=False)
    try:
        app = await make_app(mode="tray")
        fake = await knock(port(app))
        [knocked] = app.pairings.pending()
        offered = app.offer_pairing_code()["code"]
        wrong = await prove(app, "ABCD-EFGH")
        assert wrong.refused is not None
        right = await prove(app, offered)
        assert right.welcome is not None, right.refused
        await right.close()
    finally:
        logsetup.detach()
    log = paths.log_file.read_text()
    assert "A browser wants to connect" in log
    flat = log.upper().replace("-", "")
    assert knocked.code not in flat and normalize_code(offered) not in flat
    assert fake.refused is not None and "window “A browser wants to connect”" in fake.refused["reason"]


async def test_a_strangers_wrong_codes_neither_spend_nor_block_the_persons_code(make_app: AppFactory) -> None:
    """Someone on the machine tries codes — as one browser, and posing as many — while the person's code is
    open: that stranger is held off, the person's code stays open, and the person's browser pairs with it."""
    app = await make_app()
    offered = app.offer_pairing_code()["code"]
    guesses = [f"ZZZZ-ZZZ{ch}" for ch in pairing.CODE_ALPHABET if f"ZZZZ-ZZZ{ch}" != offered]
    for n, code in enumerate(guesses[: MAX_BAD_PROOFS * 2]):
        guess = await prove(app, code, instance=f"posing-{n}")
        assert guess.refused is not None and guess.refused["code"] == "bad_proof"
        await guess.close()
    for _ in range(MAX_BAD_PROOFS):
        guess = await prove(app, guesses[-1], instance="stranger")
        await guess.close()
    held = await prove(app, offered, instance="stranger")  # even the right code: that browser waits now
    assert held.refused is not None and held.refused["code"] == "throttled", held.refused
    assert "try again in 5 minutes" in held.refused["reason"]
    await held.close()
    assert [normalize_code(offered)] == [p.code for p in app.pairings.pending()]

    mine = await prove(app, offered)
    assert mine.welcome is not None, mine.refused
    assert mine.pairing is not None and mine.app_verified
    await until(lambda: app.link.connected, what="the person's browser to connect")
    await mine.close()


async def test_a_few_one_off_knocks_do_not_keep_the_persons_browser_out(make_app: AppFactory) -> None:
    """Three knocks that come and go fill the waiting places only until they are stale; meanwhile the
    refusal says how the person pairs anyway, and a code the person asks for always works."""
    app = await make_app()
    book = app.pairings
    for n in range(MAX_WAITING):
        await knock(port(app), instance=f"one-off-{n}")
    mine = await knock(port(app), instance="my-browser")
    assert mine.refused is not None and mine.refused["code"] == "busy"
    assert "Pair your own browser…" in mine.refused["reason"] and "tabpilot pair" in mine.refused["reason"]
    offered = app.offer_pairing_code()["code"]  # never limited by knocks
    assert normalize_code(offered) in {p.code for p in book.pending()}

    real = book.clock
    book.clock = lambda: real() + KNOCK_STALE_S + 1  # the one-off knockers went away a minute ago
    mine = await knock(port(app), instance="my-browser")
    assert mine.refused is not None and mine.refused["code"] == "unpaired", mine.refused
    [its_code] = [p for p in book.pending() if p.instance_id == "my-browser"]
    paired = await prove(app, its_code.code, instance="my-browser")
    assert paired.welcome is not None, paired.refused
    await paired.close()


async def test_your_own_browser_connects_beside_another_and_commands_go_to_the_tabs_browser(
    make_app: AppFactory,
) -> None:
    """The person pairs their own browser while another one (the managed browser, or another paired one) is
    connected: both stay connected; `observe tabs` lists both browsers' tabs and says which browser each is
    in; a command goes to the browser whose tab it names, and one naming none to the person's own browser."""
    app = await make_app()
    other = paired_with(app)
    other.on(
        "tabs.list",
        lambda p: {
            "tabs": [{"tab_id": 1, "url": "https://other.test/", "title": "Other", "active": True, "tracked": False}]
        },
    )
    other.on("page.info", lambda p: {"tab_id": p.get("tab_id"), "url": "https://other.test/"})
    await other.connect()
    await until(lambda: app.link.connected, what="the other browser")
    offered = app.offer_pairing_code()["code"]
    mine = FakeExtension(port(app), auth="pairing", secret=normalize_code(offered))
    mine.on(
        "tabs.list",
        lambda p: {
            "tabs": [{"tab_id": 1, "url": "https://mine.test/", "title": "Mine", "active": True, "tracked": False}]
        },
    )
    mine.on("page.info", lambda p: {"tab_id": p.get("tab_id") or 1, "url": "https://mine.test/"})
    await mine.connect(browser={"name": "Chromium", "version": "130.0", "os": "Linux"})
    assert mine.welcome is not None, mine.refused
    await until(lambda: len(app.link.hellos()) == 2, what="both browsers connected")
    assert not other.closed

    tabs = (await app.engine.call("observe", {"what": "tabs"}))["tabs"]
    assert [(t["url"], t["browser"]) for t in tabs] == [
        ("https://other.test/", "FakeChrome"),
        ("https://mine.test/", "Chromium on Linux"),
    ]
    other_tab, my_tab = (t["tab_id"] for t in tabs)
    assert other_tab != my_tab
    assert (await app.link.request("page.info", {"tab_id": other_tab}, timeout_s=5))["url"] == "https://other.test/"
    assert (await app.link.request("page.info", {"tab_id": my_tab}, timeout_s=5))["url"] == "https://mine.test/"
    assert (await app.link.request("page.info", {}, timeout_s=5))["url"] == "https://mine.test/"
    status = app.status()
    assert status["extension_connected"] and status["browser"]["browsers_connected"] == 2

    # Revoking one cuts off that one only.
    assert mine.pairing is not None
    assert app.revoke_pairing(mine.pairing["pair_id"])
    await until(lambda: len(app.link.hellos()) == 1, what="the revoked browser to be cut off")
    assert app.link.connected and not other.closed
    await mine.close()
    await other.close()


async def test_a_browser_paired_while_the_app_is_full_keeps_its_pairing_and_connects_after(
    make_app: AppFactory,
) -> None:
    """When the app has all the browsers it takes, a right code is not wasted: the browser is paired, told
    who is connected and what to do, and connects by itself once one is gone."""
    app = await make_app()
    app.link.max_browsers = 1
    other = paired_with(app)
    await other.connect()
    await until(lambda: app.link.connected, what="the other browser")
    offered = app.offer_pairing_code()["code"]
    mine = await prove(app, offered)
    assert mine.welcome is None
    refused = mine.refused
    assert refused is not None and refused["code"] == "busy"
    assert refused["reason"].startswith("Tabpilot has one browser connected (FakeChrome), as many as it takes")
    assert "This browser connects by itself once one is gone: close a browser" in refused["reason"]
    # The pairing rides along, with the app's proof that it knows the code (as in a welcome).
    assert refused["pairing"]["token"] and refused["pairing"]["pair_id"]
    assert mine.app_verified, "the busy refusal carries the app's proof over the code, checked before keeping the token"
    assert len(app.pairings.paired()) == 2
    assert app.pairings.pending() == []  # the code is spent on the person's browser, as it should be
    await mine.close()

    # While the other is connected, the paired browser waits (refused busy, not unpaired).
    token, pair_id = refused["pairing"]["token"], refused["pairing"]["pair_id"]
    waiting = FakeExtension(port(app), auth="paired", secret=token, pair_id=pair_id)
    waiting.instance_id = mine.instance_id
    await waiting.connect()
    assert waiting.refused is not None and waiting.refused["code"] == "busy"
    assert "pairing" not in waiting.refused
    await waiting.close()

    await other.close()
    await until(lambda: not app.link.connected, what="the other browser to leave")
    back = FakeExtension(port(app), auth="paired", secret=token, pair_id=pair_id)
    back.instance_id = mine.instance_id
    await back.connect()
    assert back.welcome is not None, back.refused
    await until(lambda: app.link.connected, what="the person's browser to connect")
    await back.close()


async def test_a_serve_that_an_agent_started_prints_no_code_and_says_to_run_tabpilot_pair(
    make_app: AppFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    """`tabpilot mcp` starts serve with its stderr in a file: no code goes there; the knock's refusal says
    how the person gets one (`tabpilot pair`, which prints it on the person's own terminal)."""
    app = await make_app(mode="serve", auto_started=True)
    fake = await knock(port(app))
    assert fake.refused is not None and "run `tabpilot pair` in a terminal" in fake.refused["reason"]
    [pending] = app.pairings.pending()
    printed = capsys.readouterr()
    assert pending.code not in normalize_code(printed.err + printed.out)


def _tab(url: str, title: str) -> dict[str, object]:
    """A tab as tabs.list lists it."""
    return {"tab_id": 1, "url": url, "title": title, "active": True, "tracked": False}
