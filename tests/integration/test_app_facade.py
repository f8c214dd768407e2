"""The windows' facade (tabpilot/app_facade.py): what it adds to the app beyond passing calls on."""

from __future__ import annotations

from typing import Any

import pytest

from tabpilot.app import App
from tabpilot.app_facade import JobOutcome
from tests.conftest import AppFactory


@pytest.fixture
async def app(make_app: AppFactory) -> App:
    return await make_app()


def test_a_switch_set_to_the_state_it_is_in_changes_nothing(app: App, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[Any, ...]] = []
    monkeypatch.setattr(app, "set_pilot", lambda on, *, remember: calls.append(("pilot", on, remember)))
    monkeypatch.setattr(app, "set_capability", lambda name, on: calls.append(("capability", name, on)))
    facade = app.facade
    off = not facade.pilot_on()
    facade.set_pilot(not off)  # already so: not the person's change, nothing remembered
    facade.set_capability("execute_js", facade.capabilities()["execute_js"])
    assert calls == []
    js = facade.capabilities()["execute_js"]
    facade.set_pilot(off)
    facade.set_capability("execute_js", not js)
    assert calls == [("pilot", off, True), ("capability", "execute_js", not js)]


async def test_watch_pilot_hears_changes_until_unsubscribed(app: App) -> None:
    heard: list[bool] = []
    unsubscribe = app.facade.watch_pilot(lambda: heard.append(app.facade.pilot_on()))
    app.facade.set_pilot(True)
    unsubscribe()
    unsubscribe()
    app.facade.set_pilot(False)
    assert heard == [True]
    assert app.facade.pilot_on() is False


def test_capabilities_are_a_copy(app: App) -> None:
    app.facade.capabilities()["execute_js"] = False
    assert app.engine.pilot.capabilities["execute_js"] is True


def test_settings_are_a_copy_that_reaches_the_app_only_when_applied(app: App) -> None:
    settings = app.facade.settings()
    settings.step_delay_ms = 1234
    settings.redact_selectors.append("#mine")
    assert app.settings.step_delay_ms != 1234
    assert "#mine" not in app.settings.redact_selectors
    assert app.facade.apply_settings(settings) == []
    assert app.engine.config.step_delay_ms == 1234


def test_with_room_for_browsers_browsers_full_says_nothing(app: App) -> None:
    assert app.facade.browsers_full() == ""
    assert app.facade.connected_pairings() == set()
    assert app.bridge is not None and app.facade.port() == app.bridge.port


def test_an_offered_code_is_open_until_withdrawn_and_its_time_counts_down(app: App) -> None:
    facade = app.facade
    heard: list[int] = []
    unsubscribe = facade.watch_pairings(lambda: heard.append(len(facade.pairing_codes())))
    pending = facade.offer_pairing_code()
    assert pending in facade.pairing_codes()
    assert 0 < facade.seconds_left(pending) <= 5 * 60
    facade.withdraw_pairing_code(pending.code)
    assert pending not in facade.pairing_codes()
    assert heard == [1, 0]
    unsubscribe()
    pending.expires_at = 0  # long gone: no negative time left
    assert facade.seconds_left(pending) == 0


async def test_job_outcome_is_where_the_command_stands_not_the_job(app: App) -> None:
    assert app.facade.job_outcome("corr-nothing") is None
    answer = await app.engine.call("observe", {"what": "pilot"}, agent="test")
    [finished] = [e for e in app.facade.recent_activity() if e.phase == "finished"]
    outcome = app.facade.job_outcome(finished.correlation_id)
    assert isinstance(outcome, JobOutcome)
    assert outcome.done and outcome.status == "complete" and outcome.error is None
    assert outcome.result == answer


def test_secret_values_skip_empty_ones(app: App) -> None:
    facade = app.facade
    facade.set_secret("site_password", "hunter2")
    assert facade.secret_values().get("site_password") == "hunter2"
    facade.rename_secret("site_password", "pw")
    assert "pw" in facade.secret_names() and "site_password" not in facade.secret_names()
    facade.delete_secret("pw")
    assert "pw" not in facade.secret_values()
