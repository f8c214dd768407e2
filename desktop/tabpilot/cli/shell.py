"""The shell CLI's per-mode subcommands (`tabpilot goto URL`, `tabpilot text [SEL]`, `tabpilot js EXPR`)
and `tabpilot chain`, for agents that have a shell.

Everything here comes from the command definitions, through desktop/tabpilot/cli/cli_spec.json, which
`python -m tabpilot.contract` generates from them (each command's `cli=Cli(...)`). Reading that file
instead of importing the engine keeps a call light: no Qt, MCP SDK, Playwright or aiohttp, and none of
the engine's modules (measured: importing the registry costs ~200 ms; the spec loads in well under 1).
The app does the work: one HTTP request per call (`/api/v1/call`), one per chain (`/api/v1/chain`),
through the same path as MCP calls — policy, approvals, activity.

Exit codes: 0 done; 1 the command failed (stderr names the contract's error code); 2 bad usage;
3 no app running.
"""

from __future__ import annotations

import os
import sys

from tabpilot import quickjson

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from typing import Any, NoReturn

EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_NOT_RUNNING = 3
MAX_CHAIN = 50
"""Commands in one chain, as the app accepts them (engine/chain.py says the same)."""
BUILTIN = ("serve", "mcp", "status", "stop", "pair", "call", "secret", "pairings", "chain")
"""Subcommands of cli/entry.py itself: no command's CLI spec may take these names."""
SPEC_FILE = os.path.join(os.path.dirname(__file__), "cli_spec.json")
ATTACHMENTS = "_attachments"

_spec: dict[str, Any] | None = None


def spec() -> dict[str, Any]:
    global _spec
    if _spec is None:
        with open(SPEC_FILE, encoding="utf-8") as f:
            _spec = quickjson.loads(f.read())
    return _spec


def subcommands() -> dict[str, dict[str, Any]]:
    found: dict[str, dict[str, Any]] = spec()["subcommands"]
    return found


class UsageError(Exception):
    """Arguments a subcommand cannot take: exit 2, with its usage."""


_parser_class: type[argparse.ArgumentParser] | None = None


def _parser(**options: Any) -> argparse.ArgumentParser:
    """An ArgumentParser that raises instead of exiting, so `chain` can say which of its commands is wrong.

    Made on first use: the common calls never build one (`_quick_parse`), and argparse costs ~7 ms."""
    global _parser_class
    if _parser_class is None:
        import argparse

        class _Parser(argparse.ArgumentParser):
            def error(self, message: str) -> NoReturn:
                raise UsageError(f"{self.format_usage().strip()}\n{self.prog}: error: {message}")

        _parser_class = _Parser
    return _parser_class(**options)


# -- from a definition to a parser --------------------------------------------------------------------


def _dest(name: str) -> str:
    return "param_" + name


def _value_type(param: dict[str, Any]) -> Any:
    kind = param["type"]
    if kind == "integer":
        return int
    if kind == "number":
        return float
    if kind in ("array", "object"):

        def parse(text: str) -> Any:
            from argparse import ArgumentTypeError  # only when the words are wrong: then argparse runs anyway

            if text.lstrip()[:1] in ("[", "{"):
                try:
                    return quickjson.loads(text)
                except ValueError as exc:
                    raise ArgumentTypeError(f"not JSON: {exc}") from exc
            if kind == "array":  # a comma-separated list of words
                return [part.strip() for part in text.split(",") if part.strip()]
            raise ArgumentTypeError("an object is given as JSON")

        parse.__name__ = "JSON " + kind
        return parse
    return str


def _help_of(param: dict[str, Any]) -> str:
    import json

    text = str(param["doc"])
    extra = []
    if param.get("enum"):
        extra.append("one of " + ", ".join(param["enum"]))
    if param.get("default") not in (None, False) and "default" not in text:
        extra.append(f"default {json.dumps(param['default'])}")
    if param["type"] in ("array", "object"):
        extra.append("JSON" + (" or a,b,c" if param["type"] == "array" else ""))
    return text + (f" ({'; '.join(extra)})" if extra else "")


def build_parser(name: str, entry: dict[str, Any], prog: str = "tabpilot") -> argparse.ArgumentParser:
    """`tabpilot NAME`'s parser: the positional parameters in order, every other one a --long option."""
    import argparse

    formatter = argparse.RawDescriptionHelpFormatter
    parser = _parser(
        prog=f"{prog} {name}",
        description=description(entry),
        epilog=epilog(entry),
        formatter_class=formatter,
    )
    params = {p["name"]: p for p in entry["params"]}
    short = entry.get("short", {})
    for pname in entry["positional"]:
        param = params[pname]
        parser.add_argument(
            _dest(pname),
            metavar=pname.upper(),
            nargs=None if param["required"] else "?",
            type=_value_type(param),
            choices=param.get("enum"),
            help=_help_of(param),
        )
    for pname, param in params.items():
        if pname in entry["positional"]:
            continue
        flags = [f"-{short[pname]}"] if pname in short else []
        flags.append("--" + pname.replace("_", "-"))
        if param["type"] == "boolean":
            parser.add_argument(
                *flags, dest=_dest(pname), action=argparse.BooleanOptionalAction, default=None, help=param["doc"]
            )
            continue
        parser.add_argument(
            *flags,
            dest=_dest(pname),
            metavar=pname.upper(),
            type=_value_type(param),
            choices=param.get("enum"),
            required=param["required"],
            help=_help_of(param),
        )
    if entry.get("save"):
        parser.add_argument("path", metavar="PATH", nargs="?", help="where the file goes (default: in this folder)")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    return parser


def description(entry: dict[str, Any]) -> str:
    summary = entry["summary"]
    lines = [f"{summary[:1].upper()}{summary[1:]} ({entry['tool']} {entry['key']}={entry['mode']}; {entry['needs']})."]
    if entry.get("notes"):
        lines += ["", entry["notes"]]
    return "\n".join(lines)


def epilog(entry: dict[str, Any]) -> str:
    return f"result: {entry['result']}\nexample: {entry['example']}" if entry.get("result") else ""


def parse(name: str, argv: list[str]) -> tuple[dict[str, Any], Any]:
    """A tool call's arguments from `tabpilot NAME ARGV...`, and the options (`json`, `path`); raises UsageError."""
    quick = _quick_parse(name, argv)
    if quick is not None:
        return quick
    entry = subcommands()[name]
    parsed = build_parser(name, entry).parse_args(argv)
    return _arguments(entry, {p["name"]: getattr(parsed, _dest(p["name"])) for p in entry["params"]}), parsed


def _arguments(entry: dict[str, Any], given: dict[str, Any]) -> dict[str, Any]:
    arguments: dict[str, Any] = {entry["key"]: entry["mode"]}
    if entry.get("operation"):
        arguments["operation"] = entry["operation"]
    for param in entry["params"]:
        value = given.get(param["name"])
        if value is not None:
            arguments[param["name"]] = value
    return arguments


class _Options:
    """What run and _deliver read of argparse's Namespace, for words that needed no parser."""

    def __init__(self, json: bool) -> None:
        self.json = json
        self.path = None


def _quick_parse(name: str, argv: list[str]) -> tuple[dict[str, Any], _Options] | None:
    """The common case without argparse (~7 ms to import, more to build a parser): positional words
    only, each valid for its parameter, and perhaps --json. None for anything else — an option, help,
    a word starting with `-`, a missing or wrong value — which argparse then parses (or refuses) as
    it always has, so usage errors and help read the same as before."""
    entry = subcommands()[name]
    words = [word for word in argv if word != "--json"]
    positional = entry["positional"]
    if entry.get("save") or len(words) > len(positional) or any(word[:1] == "-" for word in words):
        return None
    given: dict[str, Any] = {}
    for param in entry["params"]:
        pname = param["name"]
        if pname not in positional:
            if param["required"]:
                return None  # a required option that is not there: argparse says so
            continue
        at = positional.index(pname)
        if at >= len(words):
            if param["required"]:
                return None
            continue
        try:
            value = _value_type(param)(words[at])
        except Exception:  # argparse runs again on these words and says what is wrong
            return None
        if param.get("enum") and value not in param["enum"]:
            return None
        given[pname] = value
    return _arguments(entry, given), _Options(json=len(words) < len(argv))


def command_line(name: str, entry: dict[str, Any], arguments: dict[str, Any]) -> str:
    """How `arguments` (a call of the subcommand's mode) is written as `tabpilot NAME ...`."""
    import shlex

    words = ["tabpilot", name]
    rest = {k: v for k, v in arguments.items() if k not in (entry["key"], "operation")}
    for pname in entry["positional"]:
        if pname not in rest:
            break
        words.append(_word(rest.pop(pname)))
    for pname, value in rest.items():
        flag = "--" + pname.replace("_", "-")
        if value is True:
            words.append(flag)
        elif value is False:
            words.append("--no-" + pname.replace("_", "-"))
        else:
            words += [flag, _word(value)]
    return " ".join(shlex.quote(w) for w in words)


def _word(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list) and value and all(isinstance(v, str) and v and "," not in v for v in value):
        return ",".join(value)  # a list of words reads as a,b,c
    return quickjson.dumps_compact(value)


def usage_line(name: str, entry: dict[str, Any]) -> str:
    """`goto URL`, `text [SELECTOR]`: a subcommand and its positional parameters."""
    params = {p["name"]: p for p in entry["params"]}
    words = [name]
    for pname in entry["positional"]:
        words.append(pname.upper() if params[pname]["required"] else f"[{pname.upper()}]")
    if entry.get("save"):
        words.append("[PATH]")
    return " ".join(words)


def listing() -> str:
    """The subcommands for `tabpilot --help`: usage and summary, a line each."""
    rows = [(usage_line(name, entry), entry["summary"]) for name, entry in subcommands().items()]
    rows.append(("chain", "run a JSON list of commands from stdin in one request"))
    width = max(len(u) for u, _ in rows)
    lines = ["commands for agents, one per mode (`tabpilot NAME --help` says more):"]
    lines += [f"  {u:<{width}}  {summary}" for u, summary in rows]
    return "\n".join(lines)


# -- rendering ----------------------------------------------------------------------------------------


def render(entry: dict[str, Any], result: dict[str, Any]) -> str:
    """The result as plain text: the field the subcommand shows, a line per row, or a readable outline."""
    show = entry.get("show", "")
    if show.startswith("rows:"):
        _, field, keys = show.split(":", 2)
        rows = result.get(field)
        if isinstance(rows, list):
            return "\n".join(_row(item, keys.split(",")) for item in rows)
    elif show and show in result:
        value = result[show]
        return value if isinstance(value, str) else quickjson.dumps_text(value)
    return outline(result)


def _whose(tab: dict[str, Any]) -> str:
    """A tab's owner as `observe tabs` gives it (`owner`, `mine`, `tracked`), in words: `mine`, `agent
    <label>` (another agent's: yours to read, not to act on), `person's` (the tab the person tracks, open
    to every agent) or `free` (nobody's)."""
    if tab.get("mine") is True:
        return "mine"
    if isinstance(tab.get("owner"), str) and tab["owner"]:
        return f"agent {tab['owner']}"
    return "person's" if tab.get("tracked") is True else "free"


DERIVED_CELLS = {"whose": _whose}
"""Cells a `rows:` show may name that no result field holds: made from the row's fields."""


def _row(item: Any, keys: list[str]) -> str:
    if not isinstance(item, dict):
        return str(item)
    cells = []
    for key in keys:
        if key in DERIVED_CELLS:
            cells.append(" ".join(DERIVED_CELLS[key](item).split()))
            continue
        value = item.get(key)
        if isinstance(value, bool):
            cells.append(key if value else "-")
        else:
            cells.append("" if value is None else " ".join(str(value).split()))
    return "\t".join(cells)


def outline(value: Any, indent: int = 0) -> str:
    """A readable, YAML-like rendering: `key: value` lines, lists as `- ` items, nesting by indent."""
    pad = "  " * indent
    if isinstance(value, dict):
        if not value:
            return pad + "{}"
        lines = []
        for key, item in value.items():
            if isinstance(item, dict | list) and item:
                lines.append(f"{pad}{key}:")
                lines.append(outline(item, indent + 1))
            else:
                lines.append(f"{pad}{key}: {_scalar(item, indent + 1)}")
        return "\n".join(lines)
    if isinstance(value, list):
        if not value:
            return pad + "[]"
        lines = []
        for item in value:
            body = (
                outline(item, indent + 1) if isinstance(item, dict | list) else pad + "  " + _scalar(item, indent + 1)
            )
            lines.append(pad + "- " + body.lstrip())
        return "\n".join(lines)
    return pad + _scalar(value, indent)


def _scalar(value: Any, indent: int) -> str:
    if isinstance(value, dict | list):
        return "{}" if isinstance(value, dict) else "[]"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str) and "\n" in value:
        pad = "  " * indent
        return "|\n" + "\n".join(pad + line for line in value.splitlines())
    return str(value)


# -- running ----------------------------------------------------------------------------------------


def _target() -> Any:
    from tabpilot.cli import client
    from tabpilot.paths import Paths

    return client.find(Paths.resolve())


def _caller() -> dict[str, Any]:
    """Who calls: the `cli` agent, in its own session when TABPILOT_SESSION names one (its own tabs)."""
    return {"agent": "cli", "session": os.environ.get("TABPILOT_SESSION")}


def _post(path: str, body: dict[str, Any]) -> Any:
    """Through the app's local socket when there is one (no token, no keyring, no TCP), else over HTTP."""
    from tabpilot import home
    from tabpilot.cli import local_call

    try:
        return local_call.post(home.local_socket(), path, body, timeout=600)
    except local_call.NoSocket:
        from tabpilot.cli import client

        return client.post(_target(), path, body, timeout=600)


def _fail(name: str, error: Any) -> None:
    if isinstance(error, dict):
        code, message = error.get("error", "internal"), error.get("message", "")
    else:
        code, message = "internal", str(error)
    print(f"tabpilot {name}: {code}: {in_cli_words(str(message))}", file=sys.stderr)


_TOOL_CALL = (
    r"\b(observe|interact|configure|generate) \{\s*[\"']?(?:what|action|type)[\"']?\s*:\s*['\"]([a-z_]+)['\"][^{}]*\}"
)
"""An agent's call as a hint writes it (`observe {what:'workflows'}`): the tool and the mode."""


def in_cli_words(message: str) -> str:
    """An error's hint as a shell user acts on it: `observe {what:'workflows'}` becomes `tabpilot workflows`
    where the CLI has that subcommand (the engine words its hints for agents, who call the tools)."""
    import re  # here: `re` is not among what a plain call imports (test_shell's light fast path)

    by_mode = {(e["tool"], e["mode"]): name for name, e in subcommands().items()}

    def swap(match: re.Match[str]) -> str:
        name = by_mode.get((match.group(1), match.group(2)))
        return f"`tabpilot {name}`" if name else match.group(0)

    return re.sub(r"`?" + _TOOL_CALL + r"`?", swap, message)


def unknown_command(message: str) -> str:
    """argparse's "invalid choice" for the first word, naming the browser commands too (not only the app's)."""
    import difflib
    import re

    chosen = re.search(r"invalid choice: '([^']*)'", message)
    head, _, listed = message.partition(" (choose from ")
    app = re.findall(r"'([^']*)'", listed)  # argparse's own list: the app's commands
    names = [*sorted(subcommands()), "chain"]
    near = difflib.get_close_matches(chosen.group(1), app + names, n=3) if chosen else []
    hint = f" Did you mean {', '.join(near)}?" if near else ""
    return (
        f"{head}.{hint} The app's commands are {', '.join(app)}; the browser's are {', '.join(names)} "
        "(`tabpilot --help` says what each does)."
    )


def _deliver(name: str, entry: dict[str, Any], result: dict[str, Any], parsed: Any) -> int:
    """Print (or save) one command's result; its exit code."""
    attachments = result.pop(ATTACHMENTS, None)
    if attachments and not entry.get("save"):
        attachments = None  # a picture beside the answer (visual_diff's diff image): its path is in it
    if attachments:
        # The pictures are written to files (a terminal has no use for base64): PATH, or this folder.
        shots = result.get("shots")
        names = [str(s.get("device", n)) for n, s in enumerate(shots, 1)] if isinstance(shots, list) else None
        where = getattr(parsed, "path", None)
        try:
            paths = save_attachments(attachments, where, entry["mode"], names)
        except OSError as exc:
            print(
                f"tabpilot {name}: cannot write the picture to {where or '.'}: {exc.strerror or exc}", file=sys.stderr
            )
            return EXIT_FAILED
        if isinstance(shots, list) and len(shots) == len(paths):
            for shot, path in zip(shots, paths, strict=True):
                shot["path"] = path
        else:
            result["path"] = paths[0]
            if len(paths) > 1:
                result["files"] = paths
    if parsed.json:
        print(quickjson.dumps_pretty(result))
    elif isinstance(result.get("shots"), list) and all("path" in s for s in result["shots"]):
        for shot in result["shots"]:
            print(f"{shot['path']} ({shot.get('width')}x{shot.get('height')}, {shot.get('size_bytes')} bytes)")
    elif "path" in result and (entry.get("save") or attachments):
        print(f"{result['path']} ({result.get('width')}x{result.get('height')}, {result.get('size_bytes')} bytes)")
    else:
        text = render(entry, result)
        if text:
            print(text)
    if result.get("note"):
        print(f"note: {result['note']}", file=sys.stderr)
    if result.get("success") is False:  # a script that threw: the call worked, the command did not
        print(f"tabpilot {name}: {result.get('error', 'failed')}", file=sys.stderr)
        return EXIT_FAILED
    verdict = entry.get("verdict")
    if verdict and result.get(verdict) is False:  # what was checked does not hold (assert, visual-diff)
        print(f"tabpilot {name}: {verdict}: false", file=sys.stderr)
        return EXIT_FAILED
    return 0


def save_attachments(
    attachments: list[dict[str, Any]], path: str | None, stem: str, names: list[str] | None = None
) -> list[str]:
    """Write each attachment (base64) to a file: `path` (a folder: new files in it; else the file, and
    `<name>-<label>.<ext>` beside it for more than one), or new `<stem>-<time>.<ext>` files in this
    folder; never over a file it was not told to write. The absolute paths written."""
    import base64
    import time

    labels = names if names and len(names) == len(attachments) else [str(n) for n in range(1, len(attachments) + 1)]
    written = []
    for attachment, label in zip(attachments, labels, strict=True):
        ext = "jpg" if attachment.get("mime_type") == "image/jpeg" else "png"
        data = base64.b64decode(attachment["data"])
        if path and not os.path.isdir(path):
            base, given = os.path.splitext(path)
            target = path if len(attachments) == 1 else f"{base}-{label}{given or '.' + ext}"
            with open(target, "wb") as f:
                f.write(data)
        else:
            name = f"{stem}-{time.strftime('%Y%m%d-%H%M%S')}" + (f"-{label}" if len(attachments) > 1 else "")
            target = _new_file(os.path.join(path or ".", name), ext, data)
        written.append(os.path.abspath(target))
    return written


def _new_file(base: str, ext: str, data: bytes) -> str:
    """`base.ext`, or `base-2.ext`, ... the first that does not exist yet, written with `data`."""
    for n in range(1, 1000):
        target = f"{base}.{ext}" if n == 1 else f"{base}-{n}.{ext}"
        try:
            fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:
            continue
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        return target
    raise FileExistsError(f"{base}.{ext}")


def run(name: str, argv: list[str]) -> int:
    """`tabpilot NAME ARGV...`: one call of NAME's mode against the running app."""
    from tabpilot.cli.local_call import NotRunning

    entry = subcommands()[name]
    try:
        arguments, parsed = parse(name, argv)
    except UsageError as exc:
        print(exc, file=sys.stderr)
        return EXIT_USAGE
    try:
        reply = _post("/api/v1/call", {"tool": entry["tool"], "arguments": arguments, **_caller()})
    except NotRunning as exc:
        print(str(exc), file=sys.stderr)
        return EXIT_NOT_RUNNING
    if not reply.get("ok"):
        if parsed.json:
            print(quickjson.dumps_pretty(reply.get("error")))
        _fail(name, reply.get("error"))
        return EXIT_FAILED
    return _deliver(name, entry, reply["result"], parsed)


# -- chain ------------------------------------------------------------------------------------------

CHAIN_HELP = """\
Runs a list of commands, read as JSON from stdin, in one request to the app, in order, stopping at the
first that fails (or that waits on the person: an approval not answered in time). Each command is a
list of words as you would type them after `tabpilot`:

  echo '[["goto","https://example.com"],["click","a"],["text","h1"]]' | tabpilot chain

Each goes through the app's usual path (pilot, approvals, activity). Every result is printed as its
subcommand prints it, after a `==> goto https://example.com <==` header; --json prints
{ok, results:[{ok, result | error}], completed, total}. Exit 1 when one failed (stderr names it), 2 when
the list is not valid (nothing runs), 3 when no app runs. At most 50 commands.
"""


def _chain_parser() -> argparse.ArgumentParser:
    import argparse

    parser = _parser(
        prog="tabpilot chain", description=CHAIN_HELP, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--json", action="store_true", help="print the whole answer as JSON")
    return parser


def _chain_call(words: Any) -> tuple[str, dict[str, Any], dict[str, Any], Any]:
    if not isinstance(words, list) or not words or not all(isinstance(w, str | int | float) for w in words):
        import json

        raise UsageError(f'each command is a list of words, like ["click", "#go"]; got {json.dumps(words)[:100]}')
    name, *rest = (str(w) for w in words)
    if name == "call":
        if not rest or len(rest) > 2:
            raise UsageError('["call", TOOL, "JSON"] names a tool and its arguments')
        try:
            arguments = quickjson.loads(rest[1]) if len(rest) > 1 else {}
        except ValueError as exc:
            raise UsageError(f"call {rest[0]}: the arguments are not JSON: {exc}") from exc
        if rest[0] not in spec()["tools"] or not isinstance(arguments, dict):
            raise UsageError(f"call: the tool is one of {', '.join(spec()['tools'])}, with a JSON object")
        entry = {"tool": rest[0], "show": ""}
        return rest[0], entry, {"tool": rest[0], "arguments": arguments}, _Options(json=False)
    if name not in subcommands():
        raise UsageError(f"unknown command {name!r}; `tabpilot --help` lists them")
    arguments, parsed = parse(name, rest)
    entry = subcommands()[name]
    return name, entry, {"tool": entry["tool"], "arguments": arguments}, parsed


def chain(argv: list[str]) -> int:
    """`tabpilot chain`: the JSON list on stdin, checked whole, then run by the app in one request."""
    from tabpilot.cli.local_call import NotRunning

    if argv in ([], ["--json"]):  # the common case, without argparse
        options: Any = _Options(json=bool(argv))
    else:
        try:
            options = _chain_parser().parse_args(argv)
        except UsageError as exc:
            print(exc, file=sys.stderr)
            return EXIT_USAGE
    try:
        commands = quickjson.loads(sys.stdin.read())
    except ValueError as exc:
        print(f"tabpilot chain: stdin is not JSON: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if not isinstance(commands, list) or not commands or len(commands) > MAX_CHAIN:
        print(f"tabpilot chain: stdin must be a JSON list of 1 to {MAX_CHAIN} commands", file=sys.stderr)
        return EXIT_USAGE
    planned = []
    for n, words in enumerate(commands, 1):
        try:
            planned.append(_chain_call(words))
        except UsageError as exc:
            print(f"tabpilot chain: command {n}: {exc}", file=sys.stderr)
            return EXIT_USAGE
    try:
        reply = _post("/api/v1/chain", {"calls": [call for _, _, call, _ in planned], **_caller()})
    except NotRunning as exc:
        print(str(exc), file=sys.stderr)
        return EXIT_NOT_RUNNING
    if "results" not in reply:  # the app refused the request itself
        _fail("chain", reply)
        return EXIT_FAILED
    if options.json:
        for item in reply["results"]:
            if item.get("ok"):
                item["result"].pop(ATTACHMENTS, None)
        print(quickjson.dumps_pretty(reply))
        return 0 if reply.get("ok") else EXIT_FAILED
    code = 0
    for (name, entry, _, parsed), words, item in zip(planned, commands, reply["results"], strict=False):
        print(f"==> {' '.join(str(w) for w in words)} <==")
        if not item.get("ok"):
            _fail(name, item.get("error"))
            return EXIT_FAILED
        code = _deliver(name, entry, item["result"], parsed) or code
    if not reply.get("ok"):
        stopped = reply["results"][-1].get("result", {}) if reply["results"] else {}
        print(
            f"tabpilot chain: stopped after command {reply.get('completed')} of {reply.get('total')}: "
            f"it is {stopped.get('status', 'not finished')} (correlation_id {stopped.get('correlation_id')})",
            file=sys.stderr,
        )
        return EXIT_FAILED
    return code
