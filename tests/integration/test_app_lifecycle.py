"""How long an app lives: one `tabpilot mcp` started stops when idle; one a person started does not."""

from __future__ import annotations

import pytest

from tabpilot import cli
from tests.conftest import AppFactory
from tests.support.fake_extension import FakeExtension
from tests.support.waiting import until


async def test_an_auto_started_app_stops_after_its_idle_time(make_app: AppFactory) -> None:
    app = await make_app(auto_started=True, idle_exit_s=0.5)
    await until(app.stopped.is_set, timeout=10, what="the idle app to stop by itself")
    assert not app.paths.state_file.exists()


async def test_calls_keep_an_auto_started_app_alive(make_app: AppFactory) -> None:
    app = await make_app(auto_started=True, idle_exit_s=1.0)
    ext = FakeExtension(app.bridge.port)  # type: ignore[union-attr]
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
