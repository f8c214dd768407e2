"""Secrets Tabpilot typed this run never go back to an agent: not in results, not in error messages,
not encoded (URL, JSON, HTML, base64), and — in capture reads — not even their beginnings."""

from __future__ import annotations

import base64
import json
from urllib.parse import quote

import pytest

from tabpilot.engine.catalog import build_registry
from tabpilot.engine.core import Engine, EngineConfig
from tabpilot.engine.errors import TabpilotError
from tabpilot.engine.safety import scrubbing
from tabpilot.engine.safety.pilot import PilotState
from tests.unit.fakes import DictSecrets, FakeApprovals, FakeBrowser

SECRET = "S3cr3t-Hunter2-XY"
REF = "{{secret:apikey}}"


def test_every_form_of_a_secret_is_replaced_by_its_reference() -> None:
    forms = [
        SECRET,
        quote(SECRET, safe=""),
        json.dumps(SECRET)[1:-1],
        base64.b64encode(SECRET.encode()).decode(),
        base64.b64encode(b"x:" + SECRET.encode()).decode(),  # inside a longer encoding, another alignment
    ]
    for form in forms:
        out = scrubbing.scrub({"text": f"before {form} after", form: 1}, {"apikey": SECRET})
        assert SECRET not in json.dumps(out) and form not in json.dumps(out), form
    assert scrubbing.scrub(f"a {SECRET} b", {"apikey": SECRET}) == f"a {REF} b"


def test_prefixes_are_scrubbed_only_where_asked() -> None:
    echoes = [f"typed into user: {SECRET[:n]}" for n in range(1, len(SECRET) + 1)]
    plain = scrubbing.scrub(echoes, {"apikey": SECRET})
    assert plain[7] == echoes[7], "results keep text that merely starts like a secret"
    scrubbed = scrubbing.scrub(echoes, {"apikey": SECRET}, prefixes=True)
    for line in scrubbed[scrubbing.MIN_PREFIX - 1 :]:
        assert SECRET[: scrubbing.MIN_PREFIX] not in line, line


def test_short_values_are_not_looked_for() -> None:
    assert scrubbing.scrub("a b c", {"x": "b"}) == "a b c"


def engine_with(browser: FakeBrowser) -> Engine:
    return Engine(
        build_registry(),
        browser,
        FakeApprovals(*["allow"] * 10),
        pilot=PilotState(True),
        config=EngineConfig(step_delay_ms=0),
        secrets=DictSecrets(apikey=SECRET),
    )


async def test_results_and_errors_of_every_later_call_are_scrubbed() -> None:
    browser = FakeBrowser(active_url="https://shop.test/")
    engine = engine_with(browser)
    browser.replies["dom.fill"] = {"filled": True, "changed": "no visible change"}
    await engine.call("interact", {"action": "fill", "selector": "#key", "value": REF})
    assert engine.known_secrets == {"apikey": SECRET}

    # The page shows what was typed: a DOM read, a script's answer, its base64 — all come back as references.
    match = {
        "selector": "#key",
        "tag": "input",
        "attributes": {"value": SECRET},
        "text": f"key: {SECRET}",
        "boundingBox": {"x": 0, "y": 0, "width": 200, "height": 20},
        "visible": True,
    }
    browser.replies["dom.query"] = {
        "url": "https://shop.test/",
        "title": "Shop",
        "matches": [match],
        "matchCount": 1,
        "returnedCount": 1,
    }
    read = await engine.call("observe", {"what": "dom", "selector": "#key"})
    assert SECRET not in json.dumps(read) and REF in json.dumps(read)
    encoded = base64.b64encode(SECRET.encode()).decode()
    browser.replies["js.execute"] = {"success": True, "result": [SECRET, encoded, quote(SECRET, safe="")]}
    answer = await engine.call("interact", {"action": "execute_js", "script": "1"})
    assert SECRET not in json.dumps(answer) and encoded not in json.dumps(answer)

    browser.replies["dom.click"] = TabpilotError("element_not_found", f"No element shows {SECRET}", found=SECRET)
    with pytest.raises(TabpilotError) as failure:
        await engine.call("interact", {"action": "click", "selector": "#x"})
    assert SECRET not in failure.value.message and SECRET not in json.dumps(failure.value.envelope())
    assert SECRET not in str(failure.value)


async def test_a_script_that_returns_a_secrets_beginning_gets_it_scrubbed_from_six_characters() -> None:
    """`execute_js` returning `secret.slice(0, 9)` once handed back a 9-character prefix as it was."""
    browser = FakeBrowser(active_url="https://shop.test/")
    engine = engine_with(browser)
    engine.approvals = FakeApprovals(*["allow"] * 20)
    browser.replies["dom.fill"] = {"filled": True, "changed": "no visible change"}
    await engine.call("interact", {"action": "fill", "selector": "#key", "value": REF})
    for n in range(scrubbing.MIN_RESULT_PREFIX, len(SECRET)):
        browser.replies["js.execute"] = {"success": True, "result": f"got {SECRET[:n]}!"}
        answer = await engine.call("interact", {"action": "execute_js", "script": f"secret.slice(0, {n})"})
        assert SECRET[:n] not in json.dumps(answer), n
        assert answer["result"] == f"got {REF}!"
    browser.replies["js.execute"] = {"success": True, "result": SECRET[5:]}
    assert (await engine.call("interact", {"action": "execute_js", "script": "secret.slice(5)"}))["result"] == REF
    # Shorter beginnings are ordinary text ("S3cr3" could be any word's start): kept, as the README says.
    browser.replies["js.execute"] = {"success": True, "result": SECRET[:5]}
    assert (await engine.call("interact", {"action": "execute_js", "script": "1"}))["result"] == SECRET[:5]
