"""How long an app lives: one `tabpilot mcp` started stops when idle; one a person started does not."""

from __future__ import annotations

from pathlib import Path

import pytest

from tabpilot.cli import entry as cli
from tests.conftest import AppFactory
from tests.support.fake_extension import paired_with
from tests.support.waiting import until


async def test_an_auto_started_app_stops_after_its_idle_time(make_app: AppFactory) -> None:
    app = await make_app(auto_started=True, idle_exit_s=0.5)
    await until(app.stopped.is_set, timeout=10, what="the idle app to stop by itself")
    assert not app.paths.state_file.exists()


async def test_calls_keep_an_auto_started_app_alive(make_app: AppFactory) -> None:
    app = await make_app(auto_started=True, idle_exit_s=1.0)
    ext = paired_with(app)
    ext.on("tabs.list", lambda p: {"tabs": []})
    await ext.connect()
    try:
        for _ in range(8):
            await app.engine.call("observe", {"what": "tabs"})
            assert not app.stopped.is_set()
            await until(lambda: app.engine.clock.monotonic() - app.engine.last_call > 0.25, timeout=2)
        assert not app.stopped.is_set()
    finally:
        await ext.close()


@pytest.mark.parametrize(
    ("argv", "idle"),
    [(["serve"], None), (["serve", "--pilot"], None), (["serve", "--auto-started"], 30 * 60)],
)
def test_only_the_serve_that_mcp_starts_has_an_idle_limit(argv: list[str], idle: float | None) -> None:
    assert cli.serve_options(cli._parser().parse_args(argv)).idle_exit_s == idle


async def test_the_tray_remembers_the_pilot_in_the_keyring_and_a_config_edit_cannot_turn_it_on(
    make_app: AppFactory, home: Path
) -> None:
    app = await make_app(mode="tray", pilot=None)
    assert app.engine.pilot.ai_web_pilot is False
    await app.stop()
    # an agent with file access writes the switch into config.json: ignored
    (home / "config.json").write_text('{"ai_web_pilot": true}', encoding="utf-8")
    again = await make_app(mode="tray", pilot=None)
    assert again.engine.pilot.ai_web_pilot is False
    # the human turns it on in the tray: remembered across a restart, in the keyring
    again.set_pilot(True, remember=True)
    await again.stop()
    third = await make_app(mode="tray", pilot=None)
    assert third.engine.pilot.ai_web_pilot is True
    third.set_pilot(False, remember=True)
    await third.stop()
    assert (await make_app(mode="tray", pilot=None)).engine.pilot.ai_web_pilot is False
