"""`tabpilot mcp --help` and `tabpilot call --help`: every mode of the registry, each with an example
that the registry itself accepts."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from dataclasses import dataclass

import pytest

from tabpilot.cli import tool_help
from tabpilot.engine.catalog import build_registry
from tabpilot.engine.contract.args import Args, arg
from tabpilot.engine.contract.commands import DISCRIMINATOR, AnyCommand, Command, Registry


@pytest.mark.parametrize("command", build_registry().all(), ids=lambda c: c.name)
def test_each_example_is_a_valid_call(command: AnyCommand) -> None:
    args = tool_help.example_arguments(command)
    assert args[DISCRIMINATOR[command.tool]] == command.mode
    resolved, _ = build_registry().resolve(command.tool, args)  # raises invalid_params when it is not
    assert resolved is command or resolved.name == command.name


def test_every_mode_is_listed_with_an_example_in_both_styles() -> None:
    registry = build_registry()
    for style, prefix in (("call", "tabpilot call "), ("mcp", "")):
        text = tool_help.tools_help(style)  # type: ignore[arg-type]
        for command in registry.all():
            label = f"{command.mode} {command.operation}" if command.operation else command.mode
            assert re.search(rf"^  {label}\s+\[", text, re.M), (style, command.name)
            example = json.dumps(tool_help.example_arguments(command), ensure_ascii=False, separators=(",", ":"))
            quoted = f"'{example}'" if style == "call" else example
            assert f"e.g. {prefix}{command.tool} {quoted}" in text, (style, command.name)


def test_the_list_follows_the_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    @dataclass(frozen=True, kw_only=True)
    class WiggleArgs(Args):
        selector: str = arg("CSS selector")
        times: int | None = arg("how often", default=None)

    async def handler(ctx: object, params: WiggleArgs) -> dict[str, object]:
        return {}

    def registry() -> Registry:
        reg = build_registry()
        reg.add(
            Command(
                "interact",
                "wiggle",
                "mutate",
                "wiggle an element",
                handler,  # type: ignore[arg-type]
                WiggleArgs,
                pilot_gated=True,
                approval="element",
            )
        )
        return reg

    monkeypatch.setattr(tool_help, "build_registry", registry)
    text = tool_help.tools_help("call")
    assert "  wiggle" in text
    assert "[pilot + approval] wiggle an element" in text
    assert "parameters: selector*, times" in text
    assert """e.g. tabpilot call interact '{"action":"wiggle","selector":"#search"}'""" in text


def _help(*argv: str) -> subprocess.CompletedProcess[str]:
    code = (
        "import sys\n"
        "from tabpilot.cli import main\n"
        "try:\n"
        f"    main({list(argv)!r})\n"
        "except SystemExit:\n"
        "    pass\n"
        "print('QT-IMPORTED' if any(m.startswith('PySide6') for m in sys.modules) else 'NO-QT')\n"
    )
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)


@pytest.mark.parametrize("command", ["call", "mcp"])
def test_the_help_of_call_and_mcp_lists_the_tools_without_importing_qt(command: str) -> None:
    out = _help(command, "--help").stdout
    assert out.rstrip().endswith("NO-QT")
    for tool in ("observe", "interact", "configure", "generate"):
        assert f'{tool}  ("' in out
    assert "execute_js" in out and "[pilot + approval]" in out
    if command == "call":
        assert """e.g. tabpilot call observe '{"what":"page"}'""" in out
        assert "exits 3" in out
    else:
        assert """e.g. observe {"what":"page"}""" in out
        assert "claude mcp add tabpilot" in out


def test_plain_cli_use_does_not_build_the_tools_list() -> None:
    out = _help("status", "--help").stdout
    assert "interact" not in out
