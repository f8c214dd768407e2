"""A standing check: after a session that typed values — literal text, a secret from the keyring — with
`-v` logging, no file under the home holds any of them, nor the bridge token; neither does the terminal's
output. The managed browser saves no passwords and no autofill entries."""

from __future__ import annotations

import asyncio
import base64
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tabpilot.cli import client
from tabpilot.paths import Paths
from tests.support.mcp_stdio import StdioMcp
from tests.support.processes import env_for, http_status, tabpilot
from tests.support.site import FixtureSite
from tests.support.waiting import until

pytestmark = [pytest.mark.e2e]

LITERAL = "typed-literal-4242"
KEYS = "typed-keys-5151"
SECRET = "S3cr3t-Hunter2-XY"


@pytest.fixture
async def site() -> FixtureSite:  # type: ignore[misc]
    site = FixtureSite()
    await site.start()
    yield site
    await site.stop()


def files_holding(root: Path, values: dict[str, str]) -> list[str]:
    found = []
    for path in root.rglob("*"):
        if path.is_symlink() or not path.is_file():
            continue
        try:
            data = path.read_bytes()
        except OSError:
            continue
        for name, value in values.items():
            for form in (value.encode(), value.encode("utf-16-le")):
                if form in data:
                    found.append(f"{name} in {path.relative_to(root)}")
    return found


async def test_nothing_typed_nor_the_token_is_left_in_any_file_after_a_verbose_session(
    secret_service: None, tmp_path: Path, site: FixtureSite
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    saved = await asyncio.to_thread(
        subprocess.run,
        [sys.executable, "-m", "tabpilot", "secret", "set", "apikey"],
        input=SECRET + "\n",
        env=env_for(home),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert saved.returncode == 0, saved.stderr
    terminal = tmp_path / "serve-terminal.log"
    with terminal.open("wb") as out:
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "tabpilot",
            "-v",
            "serve",
            "--headless",
            "--pilot",
            "--approve",
            "auto",
            "--port",
            "0",
            env=env_for(home),
            stdout=out,
            stderr=out,
        )
        try:

            async def ready() -> bool:
                if proc.returncode is not None:
                    raise AssertionError(f"serve exited: {terminal.read_text()[-2000:]}")
                now = await asyncio.to_thread(http_status, home)
                return bool(now and now["extension_connected"])

            await until(ready, timeout=60, interval=0.1, what="serve -v to be ready")
            token = client.find(Paths.resolve(home)).token
            mcp = StdioMcp({"TABPILOT_HOME": str(home)})
            await mcp.start()
            try:
                await mcp.ok("interact", {"action": "navigate", "url": site.url("/login")})
                await mcp.ok("interact", {"action": "fill", "selector": "#user", "value": LITERAL})
                await mcp.ok("interact", {"action": "type", "selector": "#user", "text": KEYS})
                steps = [
                    {"type": "navigate", "url": site.url("/login")},
                    {"type": "fill", "selector": "#user", "value": "alice"},
                    {"type": "fill", "selector": "#password", "value": "{{secret:apikey}}"},
                    {"type": "click", "selector": "#go"},
                    {"type": "wait", "selector": "h1", "timeout_ms": 10_000},
                ]
                run = await mcp.ok(
                    "interact",
                    {"action": "scrape", "operation": "workflow", "steps": steps, "step_delay_ms": 0},
                )
                assert run["status"] == "complete", run
                # The secret sits in the page now: no read gives it back, plain or encoded.
                again = [
                    {"type": "navigate", "url": site.url("/login")},
                    {"type": "fill", "selector": "#user", "value": "{{secret:apikey}}"},
                ]
                await mcp.ok("interact", {"action": "scrape", "operation": "workflow", "steps": again})
                script = "const v = document.querySelector('#user').value; return [v, btoa(v), encodeURIComponent(v)];"
                reads = [
                    await mcp.ok("interact", {"action": "execute_js", "script": script}),
                    await mcp.ok("observe", {"what": "dom", "selector": "#user", "properties": ["value"]}),
                    await mcp.ok(
                        "interact",
                        {
                            "action": "scrape",
                            "operation": "extract",
                            "selector": "form",
                            "schema": {"u": "#user | attr:value"},
                        },
                    ),
                ]
                shown = json.dumps(reads)
                assert SECRET not in shown and base64.b64encode(SECRET.encode()).decode() not in shown, shown
                assert "{{secret:apikey}}" in shown, "the reads name the secret instead"
            finally:
                await mcp.close()
            stopped = await asyncio.to_thread(tabpilot, home, "stop")
            assert stopped.returncode == 0, stopped.stderr
            await asyncio.wait_for(proc.wait(), 30)
        finally:
            if proc.returncode is None:
                proc.kill()
                await proc.wait()
    assert "workflow" in (home / "logs" / "tabpilot.log").read_text(encoding="utf-8"), "the session was logged"
    values = {"literal text": LITERAL, "typed keys": KEYS, "keyring secret": SECRET, "bridge token": token}
    found = files_holding(home, values)
    assert found == [], "\n".join(found)
    assert files_holding(tmp_path, values) == []
