"""The shell CLI's subcommands come from the command definitions: each spec names real parameters, each
example parses back into its call, results print as plain text, and a call imports nothing heavy."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import shlex
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

import pytest

from tabpilot import contract
from tabpilot.cli import shell
from tabpilot.engine.catalog import build_registry
from tabpilot.engine.contract.commands import AnyCommand, Cli, Registry
from tabpilot.engine.contract.help import example_arguments
from tabpilot.engine.page.interact import SELECTOR_DOC

ROOT = Path(__file__).resolve().parents[2]
WITH_CLI = [c for c in build_registry().all() if c.cli is not None]


def test_every_cli_spec_names_real_parameters() -> None:
    assert contract.cli_problems(build_registry()) == []


def test_a_spec_naming_an_unknown_parameter_is_found() -> None:
    registry = Registry()
    for command in build_registry().all():
        if command.name == "interact.click":
            command = dataclasses.replace(command, cli=Cli("click", positional=("selectr",)))
        elif command.name == "observe.page":
            command = dataclasses.replace(command, cli=Cli("chain"))
        registry.add(command)
    problems = contract.cli_problems(registry)
    assert "interact.click (tabpilot click): no parameter 'selectr'" in problems
    assert any("observe.page (tabpilot chain): the name 'chain' is taken" in p for p in problems)
    with pytest.raises(ValueError, match="selectr"):
        contract.cli_spec(registry)


def test_the_main_modes_have_their_subcommands() -> None:
    names = shell.subcommands()
    for name, mode in {
        "goto": "navigate",
        "text": "text",
        "js": "execute_js",
        "click": "click",
        "fill": "fill",
        "tabs": "tabs",
        "screenshot": "screenshot",
    }.items():
        assert names[name]["mode"] == mode


@pytest.mark.parametrize("command", WITH_CLI, ids=lambda c: c.name)
def test_each_example_parses_back_into_its_call(command: AnyCommand) -> None:
    assert command.cli is not None
    entry = shell.subcommands()[command.cli.name]
    words = shlex.split(entry["example"])
    assert words[:2] == ["tabpilot", command.cli.name]
    arguments, _ = shell.parse(command.cli.name, words[2:])
    assert arguments == example_arguments(command)
    command.validate({k: v for k, v in arguments.items() if k != entry["key"]})


def test_help_takes_the_mode_as_a_word() -> None:
    assert shell.parse("help", ["interact.click"])[0] == {"what": "help", "mode": "interact.click"}
    assert shell.parse("help", [])[0] == {"what": "help"}


def test_positional_and_flag_arguments_become_the_call() -> None:
    assert shell.parse("fill", ["#q", "hello world", "--timeout-ms", "500"])[0] == {
        "action": "fill",
        "selector": "#q",
        "value": "hello world",
        "timeout_ms": 500,
    }
    assert shell.parse("text", [])[0] == {"what": "text"}
    assert shell.parse("screenshot", ["-f", "shot.png"])[0] == {"type": "screenshot", "full_page": True}
    assert shell.parse("styles", ["h1", "--properties", "color,font-size"])[0]["properties"] == ["color", "font-size"]
    with pytest.raises(shell.UsageError, match="SELECTOR"):
        shell.parse("click", [])
    with pytest.raises(shell.UsageError, match="invalid int"):
        shell.parse("track", ["twelve"])


def test_the_help_of_a_subcommand_comes_from_its_definition() -> None:
    text = shell.build_parser("click", shell.subcommands()["click"]).format_help()
    assert "usage: tabpilot click" in text and "SELECTOR" in text
    assert "(interact action=click; pilot + approval)" in text
    assert SELECTOR_DOC in " ".join(text.split())
    assert "example: tabpilot click '#search'" in text


def test_results_print_as_plain_text() -> None:
    subs = shell.subcommands()
    assert shell.render(subs["text"], {"url": "u", "text": "line one\nline two"}) == "line one\nline two"
    assert shell.render(subs["js"], {"success": True, "result": {"a": 1}}) == '{"a": 1}'
    tabs = {"tabs": [{"tab_id": 3, "active": True, "tracked": False, "url": "https://a.test/", "title": "A  page"}]}
    assert shell.render(subs["tabs"], tabs) == "3\tactive\t-\thttps://a.test/\tA page\tfree"
    assert shell.render(subs["goto"], {"status": "complete", "url": "https://a.test/", "title": "A"}) == (
        "status: complete\nurl: https://a.test/\ntitle: A"
    )
    assert shell.outline({"forms": [{"id": "f", "fields": [{"name": "q"}]}], "count": 1}) == (
        "forms:\n  - id: f\n    fields:\n      - name: q\ncount: 1"
    )


def test_plain_tabs_show_each_tabs_owner_as_observe_tabs_gives_it() -> None:
    def tab(tab_id: int, owner: str | None, mine: bool, tracked: bool = False) -> dict[str, Any]:
        url = f"https://{tab_id}.test/"
        return {
            "tab_id": tab_id,
            "url": url,
            "title": "T",
            "active": False,
            "tracked": tracked,
            "owner": owner,
            "mine": mine,
        }

    listed = {
        "tabs": [
            tab(1, "claude-code 1.0 (mcp-1)", True),
            tab(2, "cursor 2.1 (mcp-2)", False),
            tab(3, None, False, tracked=True),
            tab(4, None, False),
        ]
    }
    lines = shell.render(shell.subcommands()["tabs"], listed).split("\n")
    assert [line.split("\t")[5] for line in lines] == ["mine", "agent cursor 2.1 (mcp-2)", "person's", "free"]
    assert lines[2] == "3\t-\ttracked\thttps://3.test/\tT\tperson's"


HEAVY = ("PySide6", "mcp", "playwright", "aiohttp", "keyring", "qasync")
FAST_PATH_KEEPS_OUT = (
    *HEAVY,
    "tabpilot.engine",
    "tabpilot.cli.client",
    "tabpilot.paths",
    "tabpilot.storage",
    "platformdirs",
    "argparse",
    "json",
    "socket",
    "re",
    "enum",
    "typing",
    "pathlib",
    "dataclasses",
    "subprocess",
)
"""What a `tabpilot js 1+1` against a running app must not import (bench/bench_cli.py: each of these
costs milliseconds of a 30 ms budget; home.py, cli/local_call.py and quickjson.py say what replaces them)."""

LIGHT = (
    "import sys\n"
    "from tabpilot.cli import main\n"
    "code = main(sys.argv[2:])\n"
    "out = sys.argv[1].split(',')\n"
    "found = sorted({m for m in sys.modules for o in out if m == o or m.startswith(o + '.')})\n"
    "print(code, ','.join(found) or 'LIGHT')\n"
)


@pytest.mark.parametrize("argv", [["js", "1+1"], ["text", "h1"], ["call", "observe", '{"what":"page"}']])
def test_a_call_from_the_shell_imports_nothing_heavy(tmp_path: Path, argv: list[str]) -> None:
    """No app runs in this home, so the call goes as far as looking for one (exit 3)."""
    env = {"TABPILOT_HOME": str(tmp_path), "PYTHONPATH": str(ROOT / "desktop"), "PATH": "/usr/bin:/bin"}
    out = ",".join((*HEAVY, "tabpilot.engine", "argparse"))
    done = subprocess.run(
        [sys.executable, "-c", LIGHT, out, *argv], capture_output=True, text=True, env=env, timeout=60, check=True
    )
    assert done.stdout.split() == ["3", "LIGHT"], done.stdout + done.stderr
    assert "not running" in done.stderr


class FakeApp:
    """The app's local socket, answering the shell CLI's requests from a thread (what it asked is kept)."""

    def __init__(self, where: Path) -> None:
        where.parent.mkdir(parents=True, exist_ok=True)
        self.server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.server.bind(str(where))
        self.server.listen()
        self.asked: list[dict[str, Any]] = []
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        with contextlib.suppress(OSError):
            while True:
                conn, _ = self.server.accept()
                with conn, conn.makefile("rb") as lines:
                    request = json.loads(lines.readline())
                    self.asked.append(request)
                    result = {"success": True, "result": 2}
                    body: dict[str, Any] = {"ok": True, "result": result}
                    if request["api"] == "/api/v1/chain":
                        body = {"ok": True, "results": [body], "completed": 1, "total": 1}
                    conn.sendall(json.dumps({"status": 200, "body": body}).encode() + b"\n")

    def close(self) -> None:
        self.server.close()


@pytest.mark.parametrize("in_home", [True, False], ids=["TABPILOT_HOME", "user folders"])
@pytest.mark.parametrize(
    ("argv", "stdin", "printed"),
    [
        (["js", "1+1"], None, "2"),
        (["js", "--json", "1+1"], None, '"result": 2'),
        (["call", "interact", '{"action":"execute_js","script":"1+1"}'], None, '"result": 2'),
        (["chain"], '[["js", "1+1"]]', "==> js 1+1 <==\n2"),
    ],
)
def test_the_fast_path_to_a_running_app_stays_light(
    in_home: bool, argv: list[str], stdin: str | None, printed: str
) -> None:
    """The whole call, against an app's socket, imports none of FAST_PATH_KEEPS_OUT, wherever the home is,
    and says who calls (TABPILOT_SESSION) as the full path does."""
    short = Path(tempfile.mkdtemp(prefix="tp-", dir="/tmp"))  # a socket's path has ~100 bytes at most
    env = {"PYTHONPATH": str(ROOT / "desktop"), "PATH": "/usr/bin:/bin", "HOME": str(short / "user")}
    if in_home:
        env["TABPILOT_HOME"] = str(short)
        where = short / "tabpilot.sock"
    else:
        env["XDG_STATE_HOME"] = str(short / "state")
        env["TABPILOT_SESSION"] = "mine"
        where = short / "state" / "tabpilot" / "tabpilot.sock"
    app = FakeApp(where)
    try:
        done = subprocess.run(
            [sys.executable, "-c", LIGHT, ",".join(FAST_PATH_KEEPS_OUT), *argv],
            input=stdin,
            capture_output=True,
            text=True,
            env=env,
            timeout=60,
            check=True,
        )
    finally:
        app.close()
        shutil.rmtree(short, ignore_errors=True)
    *shown, last = done.stdout.strip().rsplit("\n", 1)
    assert last == "0 LIGHT", done.stdout + done.stderr
    assert printed in "\n".join(shown)
    call = app.asked[0]["body"]
    calls = call["calls"] if argv[0] == "chain" else [call]
    assert calls[0]["arguments"] == {"action": "execute_js", "script": "1+1"}
    assert (call["agent"], call["session"]) == ("cli", None if in_home else "mine")


def test_the_generated_spec_is_the_one_checked_in() -> None:
    assert json.loads((ROOT / contract.CLI_SPEC).read_text(encoding="utf-8")) == contract.cli_spec()


def test_an_errors_hint_names_the_cli_command_to_a_shell_user(capsys: pytest.CaptureFixture[str]) -> None:
    """The engine words its hints for agents; the CLI says them as commands a shell user can type."""
    shell._fail(
        "scrape-replay",
        {
            "error": "workflow_not_found",
            "message": "No saved workflow has the id 'x'; observe {what:'workflows'} lists them.",
        },
    )
    said = capsys.readouterr().err
    assert said.startswith("tabpilot scrape-replay: workflow_not_found: No saved workflow has the id 'x'; ")
    assert said.endswith("; `tabpilot workflows` lists them.\n")
    assert "`tabpilot new-tab`" in shell.in_cli_words("Open your own tab with interact {action:'new_tab', url}.")
    assert "`tabpilot help`" in shell.in_cli_words('see `observe {"what":"help","mode":"click"}`')
    kept = "configure {action:'no_such_mode'} is left as it is"
    assert shell.in_cli_words(kept) == kept


def test_an_unknown_first_word_names_the_browser_commands_too(capsys: pytest.CaptureFixture[str]) -> None:
    from tabpilot.cli import entry as cli

    with pytest.raises(SystemExit) as exited:
        cli.main(["sanpshot"])
    assert exited.value.code == 2
    said = capsys.readouterr().err
    assert "invalid choice: 'sanpshot'" in said and "Did you mean snapshot" in said
    assert "serve, mcp, status" in said and "goto" in said and "workflows" in said
