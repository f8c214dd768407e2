"""PairingBook: codes per knocking browser, wrong codes counted per browser (no one spends another's
code), and paired browsers told apart (browser, version, OS, a name the person edits, last seen)."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from tabpilot.bridge.pairing import (
    HOLD_OFF_S,
    KNOCK_STALE_S,
    MAX_BAD_PROOFS,
    MAX_WAITING,
    MemoryPairingVault,
    PairingBook,
    pairings_from_json,
    pairings_to_json,
)


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


def knock(instance: str, **browser: Any) -> dict[str, Any]:
    return {
        "instance_id": instance,
        "extension_id": "ext",
        "browser": {"name": "Chromium", "version": "126.0", "os": "Linux", **browser},
    }


def book() -> tuple[PairingBook, Clock]:
    clock = Clock()
    return PairingBook(MemoryPairingVault(), clock=clock), clock


def test_a_strangers_wrong_codes_never_withdraw_the_code_the_person_asked_for() -> None:
    pairings, _ = book()
    mine = pairings.offer()
    for n in range(MAX_BAD_PROOFS * 4):  # many strangers, or one stranger posing as many browsers
        pairings.bad_proof(f"stranger-{n % 3}")
    assert mine in pairings.pending()
    assert [p for p, _key in pairings.codes("my-browser")] == [mine]
    assert pairings.held_off("my-browser") == 0


def test_five_wrong_codes_hold_off_that_browser_only_and_withdraw_only_its_own_code() -> None:
    pairings, clock = book()
    offered = pairings.offer()
    its_code = pairings.request(knock("guesser"))
    other = pairings.request(knock("someone-else"))
    assert its_code is not None and other is not None
    for _ in range(MAX_BAD_PROOFS - 1):
        assert pairings.bad_proof("guesser") is False
    assert pairings.held_off("guesser") == 0
    assert pairings.bad_proof("guesser") is True
    assert pairings.held_off("guesser") > HOLD_OFF_S - 1
    codes = {p.code for p in pairings.pending()}
    assert its_code.code not in codes
    assert {offered.code, other.code} <= codes
    assert pairings.held_off("someone-else") == 0
    clock.now += HOLD_OFF_S + 1
    assert pairings.held_off("guesser") == 0


def test_a_right_code_clears_that_browsers_wrong_guesses() -> None:
    pairings, _ = book()
    for _ in range(MAX_BAD_PROOFS - 1):
        pairings.bad_proof("typo")
    pairings.good_proof("typo")
    assert pairings.bad_proof("typo") is False


def test_one_off_knocks_give_their_place_to_a_browser_that_knocks_later() -> None:
    pairings, clock = book()
    for n in range(MAX_WAITING):
        assert pairings.request(knock(f"stranger-{n}")) is not None
    assert pairings.request(knock("mine")) is None  # three browsers that still knock: full
    clock.now += KNOCK_STALE_S + 1  # the strangers knocked once and went away
    mine = pairings.request(knock("mine"))
    assert mine is not None and mine.knocks == 1
    again = pairings.request(knock("mine"))
    assert again is mine and again.knocks == 2  # the same browser keeps its code
    offered = pairings.offer()  # what the person asks for is never limited
    assert offered in pairings.pending()


def test_a_pairing_records_browser_version_os_a_name_and_when_it_was_seen() -> None:
    pairings, clock = book()
    first, _ = pairings.pair(None, knock("a"))
    second, _ = pairings.pair(None, knock("b"))
    assert (first.browser, first.version, first.os) == ("Chromium", "126.0", "Linux")
    assert first.name == "Chromium on Linux"
    assert second.name == "Chromium on Linux (2)"  # told apart from the start
    assert first.last_seen == clock.now

    assert pairings.rename(first.pair_id, "  Work   laptop ")
    clock.now += 60
    pairings.seen(first.pair_id, {"name": "Chromium", "version": "127.0", "os": "Linux"})
    [renamed, _] = pairings.paired()
    assert (renamed.name, renamed.version, renamed.last_seen) == ("Work laptop", "127.0", clock.now)
    assert renamed.describe() == "Work laptop (Chromium 127.0 on Linux)"
    assert pairings.rename(first.pair_id, "") and pairings.paired()[0].name == "Chromium on Linux"
    assert not pairings.rename("pair-unknown", "x")


def test_what_a_browser_says_about_itself_is_kept_short_and_printable() -> None:
    pairings, _ = book()
    pending = pairings.request(
        {"instance_id": "x" * 10_000, "browser": {"name": "Evil\nERROR forged log line", "version": ["1"], "os": 7}}
    )
    assert pending is not None
    assert pending.browser == {"name": "EvilERROR forged log line", "os": "7"}
    assert len(pending.instance_id) <= 128


def test_records_saved_before_the_new_fields_still_load_and_round_trip() -> None:
    old = {
        "pair_id": "pair-1",
        "key": "00" * 32,
        "browser": "Chromium",
        "version": "120",
        "extension_id": "ext",
        "instance_id": "i",
        "profile": "",
        "created_at": 5.0,
    }
    [loaded] = pairings_from_json([old, {"pair_id": "broken"}])
    assert (loaded.pair_id, loaded.os, loaded.name, loaded.last_seen) == ("pair-1", "", "", 0.0)
    assert loaded.label() == "Chromium"
    assert pairings_from_json(pairings_to_json([loaded])) == [loaded]
    assert set(asdict(loaded)) >= set(old)
