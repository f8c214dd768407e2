"""The README's run command on a fresh headless machine: no desktop session, no OS keyring.

Every process here gets an environment built for the purpose (no D-Bus session, no display, its own
TABPILOT_HOME), as on a server, in a container or in CI: `scripts/run` in one process, and `tabpilot
status`, `tabpilot mcp` and `tabpilot stop` from others.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import stat
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import keyring
import pytest
import pytest_asyncio

from tabpilot.bridge.pairing import PairingBook
from tabpilot.paths import Paths
from tabpilot.storage import statefile
from tabpilot.vault.keyring_store import SECRETS_SERVICE
from tabpilot.vault.store import FileVault
from tests.support.headless import fresh_headless_env
from tests.support.mcp_stdio import StdioMcp
from tests.support.processes import Serve, tabpilot
from tests.support.waiting import until

pytestmark = [pytest.mark.e2e]

REPO = Path(__file__).resolve().parents[2]


@dataclass
class Machine:
    home: Path
    env: dict[str, str]
    repo: Path

    def tabpilot(self, *args: str, stdin: str | None = None, timeout: float = 60) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "tabpilot", *args],
            env=self.env,
            input=stdin,
            stdin=None if stdin is not None else subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )

    def status(self) -> dict[str, Any]:
        done = self.tabpilot("status", "--json")
        return {"exit": done.returncode, **json.loads(done.stdout)}


@pytest.fixture
def machine(tmp_path: Path) -> Machine:
    """A fresh headless machine, and a copy of the repository's scripts/run whose bootstrap step is a
    no-op (the shared test install must not be touched) and whose .venv/bin/tabpilot is this Python."""
    env = fresh_headless_env(tmp_path / "home", tmp_path / "runtime")
    repo = tmp_path / "repo"
    (repo / "scripts").mkdir(parents=True)
    for script in ("run", "with-keyring"):  # with-keyring: what an older scripts/run used here
        shutil.copy2(REPO / "scripts" / script, repo / "scripts" / script)
    _executable(repo / "scripts" / "bootstrap", "#!/bin/sh\nexit 0\n")
    _executable(repo / ".venv" / "bin" / "tabpilot", f'#!/bin/sh\nexec "{sys.executable}" -m tabpilot "$@"\n')
    probe = subprocess.run(
        [sys.executable, "-c", "import keyring; print(type(keyring.get_keyring()).__module__)"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert probe.stdout.strip() == "keyring.backends.fail", "the test machine must have no keyring in reach"
    return Machine(tmp_path / "home", env, repo)


def _gone(pid: int) -> bool:
    """The process has ended (an orphan's zombie waiting for whoever adopted it to reap it counts)."""
    if not statefile.pid_alive(pid):
        return True
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except (OSError, IndexError):
        return True


def _executable(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(0o755)


@pytest_asyncio.fixture
async def run_script(machine: Machine) -> AsyncIterator[list[asyncio.subprocess.Process]]:
    """`scripts/run ARGS` processes started by the test; ended (and reaped) at the end."""
    started: list[asyncio.subprocess.Process] = []
    yield started
    for proc in started:
        if proc.returncode is None:
            proc.terminate()
            try:
                await asyncio.wait_for(proc.wait(), 20)
            except TimeoutError:
                proc.kill()
                await proc.wait()


async def _start_run(machine: Machine, started: list[asyncio.subprocess.Process], *args: str) -> dict[str, Any]:
    proc = await asyncio.create_subprocess_exec(
        str(machine.repo / "scripts" / "run"),
        *args,
        env=machine.env,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )
    started.append(proc)

    async def running() -> dict[str, Any] | None:
        if proc.returncode is not None:
            err = await proc.stderr.read() if proc.stderr else b""
            raise AssertionError(f"scripts/run exited with {proc.returncode}: {err.decode()[-2000:]}")
        now = await asyncio.to_thread(machine.status)
        return now if now["exit"] == 0 else None

    return await until(running, timeout=60, interval=0.2, what="`tabpilot status` in another shell to see the app")


async def test_scripts_run_then_status_mcp_and_stop_from_other_shells(
    machine: Machine, run_script: list[asyncio.subprocess.Process]
) -> None:
    shown = await _start_run(machine, run_script, "--browser", "none", "--port", "0")
    assert shown["running"] is True
    assert shown["mode"] == "serve"
    assert shown["home"] == str(machine.home)
    paths = Paths.resolve(machine.home)
    state = statefile.read(paths.state_file)
    assert state is not None and state.secrets == "file"
    text = await asyncio.to_thread(machine.tabpilot, "status")
    assert text.returncode == 0, text.stdout + text.stderr
    assert f"pid {shown['pid']}" in text.stdout
    assert f"secrets:      files only you can read, in {machine.home} (no OS keyring)" in text.stdout
    assert shown["secrets"] == "file"

    mcp = StdioMcp({})
    mcp.env = machine.env  # the agent's own shell, with no keyring either
    await mcp.start()
    try:
        tools = await mcp.list_tools()
        assert {t.name for t in tools.tools} == {"observe", "interact", "configure", "generate"}
        pilot = await mcp.ok("observe", {"what": "pilot"})
        assert pilot["ai_web_pilot"] is False
        assert pilot["extension_connected"] is False
    finally:
        await mcp.close()

    stopped = await asyncio.to_thread(machine.tabpilot, "stop")
    assert stopped.returncode == 0, stopped.stdout + stopped.stderr
    assert await asyncio.wait_for(run_script[0].wait(), 20) == 0
    assert _gone(int(shown["pid"]))
    assert (await asyncio.to_thread(machine.status))["exit"] == 3

    token = paths.token_file.read_text().strip()
    assert len(token) >= 32
    assert stat.S_IMODE(paths.token_file.stat().st_mode) == 0o600
    for path in machine.home.rglob("*"):
        if path.is_file() and path != paths.token_file:
            assert token not in path.read_text(errors="replace"), f"the token is also in {path}"


async def test_a_shell_that_cannot_reach_the_apps_keyring_is_told_so_at_once(
    secret_service: None, machine: Machine, tmp_path: Path
) -> None:
    """The app started in a desktop session (a keyring); a shell with none says so instead of
    'not running', and `tabpilot mcp` does not wait 30 s to start a second app that cannot start."""
    serve = Serve(machine.home, "--browser", "none", "--port", "0")
    try:
        ready = await serve.start(connected=False)
        shown = await asyncio.to_thread(machine.status)
        assert shown["exit"] == 1
        assert shown["running"] is True and shown["reachable"] is False
        assert shown["pid"] == ready["pid"]
        assert "keyring of the session it was started in" in shown["message"]
        began = time.monotonic()
        relay = await asyncio.to_thread(machine.tabpilot, "mcp", timeout=30)
        assert relay.returncode == 1
        assert time.monotonic() - began < 15
        assert "keyring of the session it was started in" in relay.stderr
        stop = await asyncio.to_thread(machine.tabpilot, "stop")
        assert stop.returncode == 1
        assert f"kill {ready['pid']}" in stop.stderr
        same_session = await asyncio.to_thread(tabpilot, machine.home, "status")  # the app's own session
        assert same_session.returncode == 0
    finally:
        await serve.stop()


async def test_pairings_from_a_terminal_act_on_the_running_app_and_on_the_store(
    machine: Machine, run_script: list[asyncio.subprocess.Process]
) -> None:
    paths = Paths.resolve(machine.home)
    book = PairingBook(FileVault(paths).pairings())  # a browser paired on an earlier run
    first, _ = book.pair(None, {"browser": {"name": "Chrome", "version": "131.0", "profile": "Work"}})
    second, _ = book.pair(None, {"browser": {"name": "Brave", "version": "1.70"}})
    await _start_run(machine, run_script, "--browser", "none", "--port", "0")

    listed = await asyncio.to_thread(machine.tabpilot, "pairings", "--json")
    assert listed.returncode == 0, listed.stderr
    assert [p["pair_id"] for p in json.loads(listed.stdout)] == [first.pair_id, second.pair_id]
    assert all("key" not in p for p in json.loads(listed.stdout))
    text = await asyncio.to_thread(machine.tabpilot, "pairings")
    assert f"{first.pair_id}  Chrome 131.0" in text.stdout
    assert "profile: Work" in text.stdout
    revoked = await asyncio.to_thread(machine.tabpilot, "pairings", "revoke", first.pair_id)
    assert revoked.returncode == 0, revoked.stderr
    after = await asyncio.to_thread(machine.tabpilot, "pairings", "--json")
    assert [p["pair_id"] for p in json.loads(after.stdout)] == [second.pair_id]  # the app's own list
    stored = json.loads((paths.vault_dir / "pairings.json").read_text())
    assert [p["pair_id"] for p in stored] == [second.pair_id]

    assert (await asyncio.to_thread(machine.tabpilot, "stop")).returncode == 0
    offline = await asyncio.to_thread(machine.tabpilot, "pairings", "revoke", second.pair_id)  # no app: the store
    assert offline.returncode == 0, offline.stderr
    none_left = await asyncio.to_thread(machine.tabpilot, "pairings")
    assert "No paired browsers" in none_left.stdout
    assert str(paths.vault_dir) in none_left.stdout


def test_secrets_from_a_terminal_without_a_keyring_go_to_the_private_file(machine: Machine) -> None:
    value = "s3cr3t-Hunter2-XY"
    saved = machine.tabpilot("secret", "set", "api_key", stdin=value + "\n")
    assert saved.returncode == 0, saved.stderr
    store = Paths.resolve(machine.home).vault_dir / "secrets.json"
    assert json.loads(store.read_text()) == {"api_key": value}  # the trailing newline is not the value's
    assert stat.S_IMODE(store.stat().st_mode) == 0o600
    listed = machine.tabpilot("secret", "list")
    assert listed.stdout.split() == ["api_key"]
    removed = machine.tabpilot("secret", "rm", "api_key")
    assert removed.returncode == 0
    assert machine.tabpilot("secret", "list").stdout == ""
    missing = machine.tabpilot("secret", "rm", "api_key")
    assert missing.returncode == 1
    bad = machine.tabpilot("secret", "set", "no spaces", stdin="x")
    assert bad.returncode == 2
    empty = machine.tabpilot("secret", "set", "empty", stdin="")
    assert empty.returncode == 2
    for done in (saved, listed, removed, missing, bad, empty):
        assert value not in done.stdout + done.stderr
    assert all(value not in p.read_text(errors="replace") for p in machine.home.rglob("*") if p.is_file())
    no_value_argument = machine.tabpilot("secret", "set", "api_key", value)
    assert no_value_argument.returncode == 2  # a value is never an argument


def test_secrets_from_a_terminal_with_a_keyring_go_to_the_keyring(secret_service: None, tmp_path: Path) -> None:
    home = tmp_path / "home"
    value = "kr-" + os.urandom(6).hex()
    saved = _with_stdin(home, value)
    assert saved.returncode == 0, saved.stderr
    assert "the OS keyring" in saved.stdout
    try:
        assert keyring.get_password(SECRETS_SERVICE, "cli_test_secret") == value
        assert "cli_test_secret" in tabpilot(home, "secret", "list").stdout.split()
    finally:
        assert tabpilot(home, "secret", "rm", "cli_test_secret").returncode == 0
    assert keyring.get_password(SECRETS_SERVICE, "cli_test_secret") is None
    assert not (Paths.resolve(home).vault_dir / "secrets.json").exists()


def _with_stdin(home: Path, value: str) -> subprocess.CompletedProcess[str]:
    from tests.support.processes import env_for

    return subprocess.run(
        [sys.executable, "-m", "tabpilot", "secret", "set", "cli_test_secret"],
        env=env_for(home),
        input=value,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


async def test_mcp_on_a_headless_machine_starts_an_app_that_every_shell_reaches(machine: Machine) -> None:
    """No app running, no keyring: `tabpilot mcp` starts `serve --browser managed --headless`, and a
    plain shell's status and stop reach it (its token is in the file)."""
    mcp = StdioMcp({})
    mcp.env = machine.env
    await mcp.start(timeout=90)
    try:

        async def connected() -> dict[str, Any] | None:
            pilot = await mcp.ok("observe", {"what": "pilot"})
            return pilot if pilot["extension_connected"] else None

        pilot = await until(connected, timeout=60, what="the auto-started serve's browser to connect")
        assert pilot["ai_web_pilot"] is False
        shown = await asyncio.to_thread(machine.status)
        assert shown["exit"] == 0
        assert shown["auto_started"] is True
    finally:
        await mcp.close()
        stopped = await asyncio.to_thread(machine.tabpilot, "stop")
    assert stopped.returncode == 0, stopped.stdout + stopped.stderr
    await until(lambda: _gone(int(shown["pid"])), timeout=20, what="the auto-started app's process to end")
    log = Paths.resolve(machine.home).log_dir / "serve-autostart.log"
    assert stat.S_IMODE(log.stat().st_mode) == 0o600
