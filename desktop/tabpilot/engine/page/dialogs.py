"""Dialogs never hang a tab: `observe dialogs` and `interact handle_dialog`.

The extension watches the tabs it works in (extension/background/dialogs.js): an operation on a tab that
shows an alert, confirm, prompt or beforeunload answers `dialog_open` at once, and the action that raised
one reports it in its answer (`dialog: {type, message, …}`). These two commands list the dialogs and
answer them; what happens to a dialog nobody answers is the person's setting (leave it for the agent, or
dismiss it after N seconds), which the app sends to the extension with its state.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, NotRequired, TypedDict

from tabpilot.engine.context import CommandContext
from tabpilot.engine.contract import results
from tabpilot.engine.contract.args import Args, TabArgs, arg
from tabpilot.engine.contract.commands import Command
from tabpilot.engine.contract.results import DialogSeen


@dataclass(frozen=True, kw_only=True)
class DialogsArgs(Args):
    tab_id: int | None = arg("only this tab (default: every tab)", default=None)


@dataclass(frozen=True, kw_only=True)
class HandleDialogArgs(TabArgs):
    accept: bool = arg("true: OK / leave the page; false: Cancel / stay")
    prompt_text: str | None = arg("a prompt's answer (accept:true)", default=None, allow_empty=True)


async def _dialogs(ctx: CommandContext, a: DialogsArgs) -> Dialogs:
    return results.relayed(Dialogs, await ctx.browser_request("dialogs.list", a.wire()))


async def _handle_dialog(ctx: CommandContext, a: HandleDialogArgs) -> Handled:
    return results.relayed(Handled, await ctx.browser_request("dialog.handle", a.wire()))


class OpenDialog(TypedDict):
    tab_id: int
    type: str
    message: str
    default_prompt: NotRequired[str]
    url: str
    open_ms: int
    browser: NotRequired[str]


class ArmedAnswer(TypedDict):
    tab_id: int
    accept: bool
    prompt_text: bool
    """Whether a prompt text is armed (never the text)."""
    browser: NotRequired[str]


class Policy(TypedDict):
    unanswered: str
    after_ms: NotRequired[int]


class Dialogs(TypedDict):
    open: list[OpenDialog]
    armed: list[ArmedAnswer]
    recent: list[DialogSeen]
    policy: Policy


class Handled(TypedDict):
    handled: bool
    dialog: NotRequired[DialogSeen]
    tab_id: int
    armed: NotRequired[Literal[True]]
    accept: NotRequired[bool]
    note: NotRequired[str]


COMMANDS: list[Command[Any]] = [
    Command(
        "observe",
        "dialogs",
        "read",
        "open, armed and recently answered JS dialogs",
        _dialogs,
        DialogsArgs,
        returns=Dialogs,
        notes="A tab that shows a dialog (alert, confirm, prompt, beforeunload) answers every other call with "
        "`dialog_open` until it is answered; the action that raised it says so in its answer (`dialog`). `recent` "
        "names who answered each: `agent` (handle_dialog), `armed` (an answer set up before), `policy` (the "
        "person's setting: dismiss after N seconds) or `person` (in the browser window). Prompt text is never shown.",
        example_result={
            "open": [
                {
                    "tab_id": 12,
                    "type": "confirm",
                    "message": "Delete this item?",
                    "url": "https://example.com/items",
                    "open_ms": 2300,
                }
            ],
            "armed": [],
            "recent": [],
            "policy": {"unanswered": "leave"},
        },
        ops=("dialogs.list",),
    ),
    Command(
        "interact",
        "handle_dialog",
        "mutate",
        "answer the tab's JS dialog, or arm the answer for its next one",
        _handle_dialog,
        HandleDialogArgs,
        returns=Handled,
        result="{handled:true, dialog:{tab_id, type, message, url, accepted, by}, tab_id} or "
        "{handled:false, armed:true, accept, tab_id, note}",
        notes="Answers the dialog open in the tab: `accept:true` is OK (a prompt gets `prompt_text`; a beforeunload "
        "leaves the page), `false` is Cancel. With no dialog open, the answer is armed: the tab's next dialog is "
        "answered so at once (call it before the click that raises a confirm). The prompt text is never echoed.",
        example={"accept": True},
        example_result={
            "handled": True,
            "dialog": {
                "tab_id": 12,
                "type": "confirm",
                "message": "Delete this item?",
                "url": "https://example.com/items",
                "accepted": True,
                "by": "agent",
            },
            "tab_id": 12,
        },
        ops=("dialog.handle",),
        pilot_gated=True,
        capability="page_actions",
        approval="element",
    ),
]
