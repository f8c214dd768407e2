"""Entry points: `tabpilot` (tray), `serve`, `mcp`, `status`, `stop`, `pair`, `call`, `secret`, `pairings`,
and a subcommand per command mode for agents with a shell (`goto`, `text`, `click`, ..., `chain`: cli/shell.py).

Imports stay few at the top: `tabpilot goto URL` and `tabpilot call` must start fast (no Qt, MCP SDK,
Playwright, aiohttp or engine, and for the common calls not even argparse, json, socket or pathlib:
bench/bench_cli.py); each entry point imports what it needs.
"""

from __future__ import annotations

import os
import sys

from tabpilot import __version__, quickjson
from tabpilot.cli import shell

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable
    from typing import Any, NoReturn

    from tabpilot.app import AppOptions
    from tabpilot.paths import Paths

EXIT_NOT_RUNNING = 3
AUTO_IDLE_EXIT_S = 30 * 60

MCP_HELP = """\
An MCP server on stdio for AI agents: it relays to the running Tabpilot app (tray or serve) and, when
none runs for this home, starts `tabpilot serve --browser managed --headless` in the background (AI Web
Pilot off; it stops after 30 idle minutes). Add it to your agent, e.g.:

  claude mcp add tabpilot -- /path/to/tabpilot/.venv/bin/tabpilot mcp
  {"mcpServers": {"tabpilot": {"command": "/path/to/tabpilot/.venv/bin/tabpilot", "args": ["mcp"]}}}

"""

CALL_HELP = """\
One tool call from a shell, against the running app: prints the result as JSON and exits 0; an error
result is printed and exits 1; arguments that are not JSON exit 2; no app running exits 3.

Tabs: every shell of yours is one agent, `cli`, which owns the tabs it opens (interact new_tab); set
TABPILOT_SESSION=NAME to be an agent of your own (`cli:NAME`), whose tabs other sessions cannot act on.

"""

SECRET_HELP = """\
Named secrets that workflows use as {{secret:NAME}}. They live in the OS keyring (service `tabpilot`);
where no keyring can be reached (a server, a container, CI), in the private file vault/secrets.json
beside the state file (mode 0600) - the same store the running app reads. Values are never printed.
"""

PAIRINGS_HELP = """\
Your own browsers paired with this app (the managed browser needs no pairing). With the app running
this asks the app, and a revoke cuts the browser off at once; otherwise it reads the store the app
uses (the OS keyring, or where none is reachable vault/pairings.json beside the state file).
"""


def _tools(style: str) -> Callable[[], str]:
    def render() -> str:
        from tabpilot.cli.tool_help import tools_help

        return tools_help("call" if style == "call" else "mcp")

    return render


def _parser() -> argparse.ArgumentParser:
    import argparse

    class _Parser(argparse.ArgumentParser):
        """A parser whose epilog is built only when its help is shown (the tools' list imports the registry)."""

        def __init__(self, *args: Any, lazy_epilog: Callable[[], str] | None = None, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.lazy_epilog = lazy_epilog

        def format_help(self) -> str:
            if self.lazy_epilog is not None:
                self.epilog = (self.epilog or "") + self.lazy_epilog()
            return super().format_help()

        def error(self, message: str) -> NoReturn:
            if self.prog == "tabpilot" and "invalid choice" in message:
                message = shell.unknown_command(message)
            super().error(message)

    raw = argparse.RawDescriptionHelpFormatter
    parser = _Parser(
        prog="tabpilot",
        description="Let AI coding agents read and drive your own browser, on localhost, under your control. "
        "With no command: the tray app.",
        formatter_class=raw,
        lazy_epilog=shell.listing,
    )
    parser.add_argument("--version", action="version", version=f"tabpilot {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="log debug detail")
    sub = parser.add_subparsers(dest="command", parser_class=_Parser)

    serve = sub.add_parser("serve", help="run the engine and bridge with no UI (servers, CI, headless use)")
    serve.add_argument(
        "--browser",
        choices=("managed", "none"),
        default="managed",
        help="managed: launch Chromium with the extension (default); none: wait for your own browser",
    )
    serve.add_argument("--headless", action="store_true", help="the managed browser has no window")
    serve.add_argument("--pilot", action="store_true", help="AI Web Pilot is ON for this run (logged)")
    serve.add_argument(
        "--approve",
        choices=("deny", "auto", "prompt"),
        default="deny",
        help="how steps that change a page are answered: deny (default), auto, or prompt here",
    )
    serve.add_argument("--port", type=int, help="port on 127.0.0.1 (default 47615, else a free one)")
    serve.add_argument("--auto-started", action="store_true", help=argparse.SUPPRESS)
    serve.add_argument("--idle-exit", type=float, help=argparse.SUPPRESS)

    sub.add_parser(
        "mcp",
        help="an MCP server on stdio; starts a headless serve when no app runs",
        description=MCP_HELP,
        formatter_class=raw,
        lazy_epilog=_tools("mcp"),
    )
    status = sub.add_parser("status", help="is the app running; its port, browser link and pilot state")
    status.add_argument("--json", action="store_true", help="print the status as JSON")
    sub.add_parser("stop", help="stop the running app (tray or serve)")
    sub.add_parser("pair", help="a one-time code to type into the extension's popup, to pair your own browser")
    call = sub.add_parser(
        "call",
        help='run one tool call: tabpilot call observe \'{"what":"page"}\'',
        description=CALL_HELP,
        formatter_class=raw,
        lazy_epilog=_tools("call"),
    )
    call.add_argument("tool", choices=shell.spec()["tools"])
    call.add_argument("arguments", nargs="?", default="{}", help="the tool's arguments as JSON (default {})")
    call.add_argument(
        "-o", "--output", metavar="DIR", help="where images in the answer are written (default: this folder)"
    )

    secret = sub.add_parser(
        "secret", help="named secrets for workflows: set, list, rm", description=SECRET_HELP, formatter_class=raw
    )
    secret_sub = secret.add_subparsers(dest="secret_action", required=True, metavar="{set,list,rm}")
    secret_set = secret_sub.add_parser(
        "set",
        help="save a secret; the value is asked for (hidden) or read from stdin, never an argument",
        description="Save (or change) secret NAME. On a terminal the value is asked for twice, hidden; "
        "otherwise it is read from stdin (one trailing newline dropped), e.g. `pass show x | tabpilot secret "
        "set x`. Never pass a value as an argument: others can read a command line.",
    )
    secret_set.add_argument("name", help="letters, digits, _ . -, starting with a letter or _ (at most 64)")
    secret_sub.add_parser("list", help="the names of the saved secrets (never their values)")
    secret_rm = secret_sub.add_parser("rm", help="delete a secret")
    secret_rm.add_argument("name")

    pairings = sub.add_parser(
        "pairings",
        help="list your paired browsers; `pairings revoke ID` forgets one",
        description=PAIRINGS_HELP,
        formatter_class=raw,
    )
    pairings.add_argument("--json", action="store_true", help="print them as JSON")
    pairings_sub = pairings.add_subparsers(dest="pairings_action", metavar="{list,revoke}")
    listing = pairings_sub.add_parser("list", help="the paired browsers (the default)")
    listing.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help="print them as JSON")
    revoke = pairings_sub.add_parser("revoke", help="forget a paired browser; it is cut off if connected")
    revoke.add_argument("pair_id", metavar="ID", help="the pairing's id, as `tabpilot pairings` shows it")
    return parser


def main(argv: list[str] | None = None) -> int:
    try:
        code = _main(argv)
        sys.stdout.flush()  # here, not at exit: a reader gone is caught below
        return code
    except BrokenPipeError:
        # Whoever read our output went away (`tabpilot page | head -1`): the rest has nowhere to go. No
        # traceback, and stdout pointed at nothing so that Python's own flush at exit does not fail again.
        import os

        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0


def _main(argv: list[str] | None) -> int:
    words = sys.argv[1:] if argv is None else argv
    if words == ["mcp"]:
        # An agent starting its session: straight to the running app's socket, before any parser or spec.
        from tabpilot.agent import local_relay

        relayed = local_relay.run()
        if relayed is not None:
            return relayed
    if words and words[0] in shell.subcommands():
        return shell.run(words[0], words[1:])
    if words and words[0] == "chain":
        return shell.chain(words[1:])
    if words and words[0] == "call" and _plain_call(words[1:]):
        return call_tool(words[1], words[2] if len(words) > 2 else "{}")
    from tabpilot.paths import Paths

    args = _parser().parse_args(argv)
    paths = Paths.resolve()
    command = args.command
    if command is None:
        return _tray(paths, args)
    if command == "serve":
        return _serve(paths, args)
    if command == "mcp":
        from tabpilot.agent import local_relay

        relayed = local_relay.run()
        if relayed is not None:
            return relayed
        from tabpilot.agent.relay import run_relay

        return run_relay(paths)
    if command == "status":
        return _status(paths, args)
    if command == "stop":
        return _stop(paths)
    if command == "pair":
        return _pair(paths)
    if command == "secret":
        from tabpilot.cli.stores import secret_command

        return secret_command(paths, args)
    if command == "pairings":
        from tabpilot.cli.stores import pairings_command

        return pairings_command(paths, args)
    return call_tool(args.tool, args.arguments, args.output)


def has_display() -> bool:
    if sys.platform in ("darwin", "win32"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def _tray(paths: Paths, args: argparse.Namespace) -> int:
    if not has_display() and os.environ.get("QT_QPA_PLATFORM") != "offscreen":
        print(
            "tabpilot: no display found. On a server or in CI use `tabpilot serve` "
            "(add --pilot to let agents act, --headless for no browser window).",
            file=sys.stderr,
        )
        return 2
    from tabpilot.ui.main import run_tray

    return run_tray(paths, verbose=args.verbose)


def serve_options(args: argparse.Namespace) -> AppOptions:
    """A serve that `tabpilot mcp` started stops after 30 idle minutes; one a person started runs on."""
    from tabpilot.app import AppOptions

    idle = args.idle_exit if args.idle_exit else (AUTO_IDLE_EXIT_S if args.auto_started else None)
    return AppOptions(
        mode="serve",
        browser=args.browser,
        headless=args.headless,
        pilot=bool(args.pilot),
        port=args.port,
        auto_started=args.auto_started,
        idle_exit_s=idle,
    )


def _serve(paths: Paths, args: argparse.Namespace) -> int:
    import asyncio
    import signal

    from tabpilot import logsetup
    from tabpilot.app import AlreadyRunning, App
    from tabpilot.approvals import headless_approvals
    from tabpilot.vault.keyring_store import KeyringUnavailable

    # An auto-started serve has no one reading its stderr (it goes to serve-autostart.log): it logs to
    # its rotating log file only, so a storm of warnings cannot fill the disk.
    logsetup.configure(paths, verbose=args.verbose, stderr=not args.auto_started)
    options = serve_options(args)

    async def run() -> int:
        app = App(paths, options, headless_approvals(args.approve))
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, app.request_stop)
        try:
            await app.start()
        except AlreadyRunning as exc:
            print(f"tabpilot: {exc} Use `tabpilot stop` first.", file=sys.stderr)
            return 1
        except KeyringUnavailable as exc:
            print(f"tabpilot: {exc}", file=sys.stderr)
            return 1
        if args.pilot:
            import logging

            logging.getLogger("tabpilot.app").warning("AI Web Pilot is ON for this run (--pilot)")
        assert app.bridge is not None
        print(
            f"Tabpilot serving on 127.0.0.1:{app.bridge.port} — browser: {args.browser}"
            f"{' (headless)' if args.headless and args.browser == 'managed' else ''}, "
            f"AI Web Pilot {'ON' if args.pilot else 'off'}, approvals: {args.approve}. "
            "Ctrl+C or `tabpilot stop` ends it.",
            file=sys.stderr,
            flush=True,
        )
        if app.vault.location == "file":
            print(
                f"No OS keyring here: the bridge token is in {app.vault.token_where}, so `tabpilot status`, "
                f"`mcp` and `stop` work from every shell of yours; named secrets go in {app.vault.secrets.where} "
                "(`tabpilot secret set NAME`).",
                file=sys.stderr,
                flush=True,
            )
        try:
            await app.stopped.wait()
        finally:
            await app.stop()
        return 0

    return asyncio.run(run())


def _status(paths: Paths, args: argparse.Namespace) -> int:
    import json

    from tabpilot.cli import client

    try:
        target = client.find(paths)
        status: dict[str, Any] = client.request(target, "GET", "/api/v1/status", timeout=5)
    except client.Unreachable as exc:
        # It runs, but this shell cannot prove it may talk to it: say so, not "not running".
        if args.json:
            state = exc.state
            print(
                json.dumps(
                    {"running": True, "reachable": False, "pid": state.pid, "port": state.port, "message": str(exc)}
                )
            )
        else:
            print(str(exc))
        return 1
    except client.NotRunning as exc:
        if args.json:
            print(json.dumps({"running": False, "message": str(exc)}))
        else:
            print(str(exc))
        return EXIT_NOT_RUNNING
    secrets = target.state.secrets
    if args.json:
        print(json.dumps({"running": True, **status, "secrets": secrets}, indent=2))
        return 0
    browser = status.get("browser") or {}
    link = (
        f"connected ({browser.get('name', 'browser')} {browser.get('version', '')}".rstrip()
        + (", managed)" if browser.get("managed") else ")")
        if status.get("extension_connected")
        else "not connected"
    )
    if browser.get("responding") is False:
        link += f" — NOT RESPONDING for {browser.get('unanswered_s', 0):g} s (the link resets it if it stays so)"
    print(f"Tabpilot {status.get('version')} is running ({status.get('mode')}, pid {status.get('pid')}).")
    print(f"  port:         {status.get('port')}")
    print(f"  browser link: {link}")
    print(f"  AI Web Pilot: {'ON' if status.get('ai_web_pilot') else 'off'}")
    print(f"  home:         {status.get('home')}")
    where = "the OS keyring"
    if secrets == "file":
        where = f"files only you can read, in {paths.state_dir} (no OS keyring)"
    print(f"  secrets:      {where}")
    return 0


def _stop(paths: Paths) -> int:
    import time

    from tabpilot.cli import client
    from tabpilot.storage.lock import InstanceLock

    try:
        target = client.find(paths)
    except client.Unreachable as exc:
        print(f"tabpilot stop: {exc} (`kill {exc.state.pid}` there ends it too.)", file=sys.stderr)
        return 1
    except client.NotRunning as exc:
        print(str(exc))
        return EXIT_NOT_RUNNING
    lock = InstanceLock(paths.lock_file)
    try:
        client.request(target, "POST", "/api/v1/stop", {}, timeout=5)
    except client.NotRunning as exc:
        print(f"tabpilot stop: the app did not answer ({exc}).", file=sys.stderr)
        return 1
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and lock.held_elsewhere():
        time.sleep(0.05)
    if lock.held_elsewhere():
        print(f"tabpilot stop: Tabpilot (pid {target.state.pid}) is still stopping.", file=sys.stderr)
        return 1
    print(f"Tabpilot (pid {target.state.pid}) stopped.")
    return 0


def _pair(paths: Paths) -> int:
    from tabpilot.cli import client

    try:
        offer = client.request(client.find(paths), "POST", "/api/v1/pair", {}, timeout=5)
    except client.NotRunning as exc:
        print(str(exc), file=sys.stderr)
        return EXIT_NOT_RUNNING
    minutes = int(offer["expires_in_s"]) // 60
    print(f"Type {offer['code']} into the Tabpilot extension's popup (valid {minutes} minutes).")
    return 0


def _plain_call(words: list[str]) -> bool:
    """`call TOOL [JSON]` as it is nearly always typed: then argparse (~7 ms) has nothing to add."""
    return 1 <= len(words) <= 2 and words[0] in shell.spec()["tools"] and not any(w[:1] == "-" for w in words)


def call_tool(tool: str, text: str, output: str | None = None) -> int:
    """`tabpilot call TOOL JSON`: through the app's local socket when there is one, else over HTTP.
    Images in the answer (a screenshot) are written to files in `output` (default: this folder), their
    paths printed in the answer's `files`."""
    from tabpilot import home
    from tabpilot.cli import local_call

    try:
        arguments = quickjson.loads(text)
    except ValueError as exc:
        print(f"tabpilot call: the arguments are not JSON: {exc}", file=sys.stderr)
        return 2
    # TABPILOT_SESSION: tabs this shell opens are its own, apart from other shells' (default: one `cli`).
    body = {"tool": tool, "arguments": arguments, "agent": "cli", "session": os.environ.get("TABPILOT_SESSION")}
    try:
        try:
            reply = local_call.post(home.local_socket(), "/api/v1/call", body, timeout=600)
        except local_call.NoSocket:
            from tabpilot.cli import client
            from tabpilot.paths import Paths

            reply = client.request(client.find(Paths.resolve()), "POST", "/api/v1/call", body, timeout=600)
    except local_call.NotRunning as exc:
        print(str(exc), file=sys.stderr)
        return EXIT_NOT_RUNNING
    if reply.get("ok"):
        result = reply["result"]
        attachments = result.pop(shell.ATTACHMENTS, None)
        if attachments:
            # Files named after the mode (`screenshot-...png`): each tool's mode key, as the CLI spec has it.
            key = next((e["key"] for e in shell.subcommands().values() if e["tool"] == tool), "")
            stem = str(arguments.get(key) or tool) if isinstance(arguments, dict) else tool
            try:
                if output:
                    os.makedirs(output, exist_ok=True)
                result["files"] = shell.save_attachments(attachments, output or ".", stem)
            except OSError as exc:
                print(
                    f"tabpilot call: cannot write the pictures to {output or '.'}: {exc.strerror or exc}",
                    file=sys.stderr,
                )
                return 1
        print(quickjson.dumps_pretty(result))
        return 0
    print(quickjson.dumps_pretty(reply.get("error")))
    return 1
