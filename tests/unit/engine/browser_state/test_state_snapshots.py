"""configure save_state / load_state / list_states / delete_state with a fake browser and store."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from tabpilot.engine.errors import TabpilotError
from tests.unit.engine.conftest import EngineFactory
from tests.unit.fakes import FakeApprovals, FakeBrowser

TAKEN = {
    "url": "https://a.test/account?token=QUERY-SECRET",
    "cookies": [{"name": "sid", "value": "COOKIE-SECRET", "httpOnly": True}],
    "localStorage": {"profile": "LOCAL-SECRET"},
    "sessionStorage": {"tab": "SESSION-SECRET"},
}
SECRETS = ("QUERY-SECRET", "COOKIE-SECRET", "LOCAL-SECRET", "SESSION-SECRET")


class MemoryStates:
    def __init__(self) -> None:
        self.saved: dict[str, dict[str, Any]] = {}

    def save(self, name: str, state: Mapping[str, Any]) -> None:
        self.saved[name] = dict(state)

    def load(self, name: str) -> dict[str, Any] | None:
        return self.saved.get(name)

    def names(self) -> list[str]:
        return sorted(self.saved)

    def delete(self, name: str) -> bool:
        return self.saved.pop(name, None) is not None


@pytest.fixture
def approvals() -> FakeApprovals:
    return FakeApprovals("allow")


async def test_save_load_list_delete_show_counts_never_values(
    make_engine: EngineFactory, browser: FakeBrowser, approvals: FakeApprovals
) -> None:
    store = MemoryStates()
    engine = make_engine(states=store)
    browser.replies["state.save"] = TAKEN
    saved = await engine.call("configure", {"action": "save_state", "name": "alice"})
    assert saved["url"] == "https://a.test/account"
    assert (saved["cookies"], saved["localStorage"], saved["sessionStorage"]) == (1, 1, 1)
    assert store.saved["alice"]["cookies"] == TAKEN["cookies"]

    browser.replies["state.load"] = {
        "restored": {"cookies": 1, "localStorage": 1, "sessionStorage": 1},
        "url": TAKEN["url"],
        "title": "Account",
    }
    loaded = await engine.call("configure", {"action": "load_state", "name": "alice"})
    assert loaded["restored"] == {"cookies": 1, "localStorage": 1, "sessionStorage": 1}
    sent = browser.calls[-1]
    assert sent.op == "state.load" and sent.params["navigate"] is True
    assert sent.params["state"]["localStorage"] == TAKEN["localStorage"]
    [asked] = approvals.requests  # load_state changes the page: asked, and the prompt names no value
    assert asked.mode == "load_state" and not any(s in repr(asked) for s in SECRETS)

    listed = await engine.call("configure", {"action": "list_states"})
    assert listed["states"][0]["name"] == "alice"
    # Listing reads: the activity shows it as one, and nobody is asked.
    assert {e.kind for e in engine.activity.recent() if e.mode == "list_states"} == {"read"}
    assert len(approvals.requests) == 1
    deleted = await engine.call("configure", {"action": "delete_state", "name": "alice"})
    assert deleted == {"deleted": True, "name": "alice"}
    answers = repr([saved, loaded, listed, deleted, engine.activity.recent()])
    assert not any(s in answers for s in SECRETS)


async def test_bad_names_missing_states_and_the_capability(make_engine: EngineFactory, browser: FakeBrowser) -> None:
    engine = make_engine(states=MemoryStates())
    for name in ("../x", "", ".hidden", "a" * 65):
        with pytest.raises(TabpilotError) as bad:
            await engine.call("configure", {"action": "save_state", "name": name})
        assert bad.value.code == "invalid_params"
    with pytest.raises(TabpilotError) as missing:
        await engine.call("configure", {"action": "delete_state", "name": "nope"})
    assert missing.value.code == "invalid_params" and "none is saved yet" in missing.value.message
    engine.pilot.set_capability("state_snapshots", False)
    with pytest.raises(TabpilotError) as off:
        await engine.call("configure", {"action": "list_states"})
    assert off.value.code == "ai_web_pilot_disabled" and off.value.details["capability"] == "state_snapshots"
    assert "state.save" not in browser.ops
