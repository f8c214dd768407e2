"""`configure emulate_device | set_viewport | set_user_agent | set_headers`: how a tab presents itself.

Each sets standing state of the tab through CDP (extension/background/emulation.js, kept by
overrides.js): it lasts across navigations in the tab until it is reset, and the person takes it back
by pressing Cancel on Chrome's debugging bar. All change what the page gets, so each is asked for like
a page-changing step: emulation under its own approval class, extra headers under `network` (with
mocked and blocked routes, engine/browser_state/routes.py).

Extra header values may be credentials (an Authorization header): answers and activity rows name the
headers only, and a value may be `{{secret:NAME}}` from the OS keyring, as typed text may.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal, NotRequired, TypedDict

from tabpilot.engine.browser_state import devices
from tabpilot.engine.context import CommandContext
from tabpilot.engine.contract.args import TabArgs, arg
from tabpilot.engine.contract.commands import Cli, Command
from tabpilot.engine.contract.placeholders import PLACEHOLDER
from tabpilot.engine.errors import TabpilotError, shown

HEADER_NAME = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]{1,256}")
MAX_HEADERS = 50
MAX_HEADER_VALUE = 8192
MAX_USER_AGENT = 1024
_GATE: dict[str, Any] = {"pilot_gated": True}


@dataclass(frozen=True, kw_only=True)
class EmulateDeviceArgs(TabArgs):
    device: str | None = arg('Playwright device name ("iPhone 15", "Pixel 7"; case/spaces ignored)', default=None)
    reset: bool = arg("undo the emulation (device or set_viewport)", default=False)


@dataclass(frozen=True, kw_only=True)
class SetViewportArgs(TabArgs):
    width: int | None = arg("CSS pixels", default=None, minimum=100, maximum=10_000)
    height: int | None = arg("CSS pixels", default=None, minimum=100, maximum=10_000)
    device_scale_factor: float | None = arg("default: the screen's", default=None, minimum=0.25, maximum=5)
    mobile: bool = arg("mobile viewport (meta viewport, overlay scrollbars)", default=False)
    reset: bool = arg("undo it", default=False)


@dataclass(frozen=True, kw_only=True)
class SetUserAgentArgs(TabArgs):
    user_agent: str | None = arg('navigator.userAgent and the header; "" resets', default=None)
    reset: bool = arg("back to the browser's own", default=False)


@dataclass(frozen=True, kw_only=True)
class SetHeadersArgs(TabArgs):
    headers: dict[str, Any] = arg("name → value on every request of the tab; {} clears; {{secret:NAME}} ok")


class Viewport(TypedDict):
    width: int
    height: int


class PageSeen(TypedDict):
    """What the page reports after the change (window.innerWidth, navigator.userAgent, …)."""

    width: int
    height: int
    device_pixel_ratio: float
    user_agent: str
    coarse_pointer: bool
    touch_points: int


class Emulated(TypedDict):
    """What was applied (device, viewport, …), or after reset:true: `reset` and what `was` emulated."""

    device: NotRequired[str | None]
    """The device's Playwright name; null for set_viewport."""
    viewport: NotRequired[Viewport]
    device_scale_factor: NotRequired[float | None]
    is_mobile: NotRequired[bool]
    has_touch: NotRequired[bool]
    user_agent: NotRequired[str]
    reset: NotRequired[Literal[True]]
    was: NotRequired[str | None]
    """After a reset: the device (or `viewport`) that was emulated; null: none was."""
    page: PageSeen | None


class UserAgentSet(TypedDict):
    user_agent: str | None
    """The user agent set; null after a reset (the device's, else the browser's own, holds again)."""
    page: PageSeen | None


class HeadersSet(TypedDict):
    headers: list[str]
    """The names of the headers now added to the tab's requests (never their values)."""


def _seen(answer: dict[str, Any]) -> PageSeen | None:
    page = answer.get("page")
    return page if isinstance(page, dict) else None  # type: ignore[return-value]


async def _reset(ctx: CommandContext, a: TabArgs) -> Emulated:
    answer = await ctx.browser_request("emulation.set", {"reset": True, "tab_id": a.tab_id})
    was = answer.get("was")
    name = (was.get("name") or "viewport") if isinstance(was, dict) else None
    return {"reset": True, "was": name, "page": _seen(answer)}


async def _emulate_device(ctx: CommandContext, a: EmulateDeviceArgs) -> Emulated:
    if a.reset == (a.device is not None):
        raise TabpilotError("invalid_params", "Give either 'device' or reset:true.", param="device")
    if a.reset:
        return await _reset(ctx, a)
    assert a.device is not None
    device = devices.find(a.device)
    if device is None:
        near = devices.suggestions(a.device)
        hint = f" Did you mean {', '.join(near)}?" if near else ""
        raise TabpilotError(
            "invalid_params",
            f"No device is called {shown(a.device)}.{hint} (Playwright's {len(devices.devices())} device names.)",
            param="device",
            suggestions=near,
        )
    wire: dict[str, Any] = {
        "width": device.width,
        "height": device.height,
        "device_scale_factor": device.device_scale_factor,
        "mobile": device.is_mobile,
        "touch": device.has_touch,
        "user_agent": device.user_agent,
        "name": device.name,
        "tab_id": a.tab_id,
    }
    if device.screen_width and device.screen_height:
        wire |= {"screen_width": device.screen_width, "screen_height": device.screen_height}
    answer = await ctx.browser_request("emulation.set", wire)
    result: Emulated = {
        "device": device.name,
        "viewport": {"width": device.width, "height": device.height},
        "device_scale_factor": device.device_scale_factor,
        "is_mobile": device.is_mobile,
        "has_touch": device.has_touch,
        "user_agent": device.user_agent,
        "page": _seen(answer),
    }
    return result


async def _set_viewport(ctx: CommandContext, a: SetViewportArgs) -> Emulated:
    sized = a.width is not None and a.height is not None
    if a.reset:
        if a.width is not None or a.height is not None:
            raise TabpilotError("invalid_params", "Give either 'width' and 'height', or reset:true.", param="reset")
        return await _reset(ctx, a)
    if not sized:
        raise TabpilotError("invalid_params", "'width' and 'height' are both required.", param="width")
    wire = {
        "width": a.width,
        "height": a.height,
        "device_scale_factor": a.device_scale_factor,
        "mobile": a.mobile,
        "touch": False,
        "tab_id": a.tab_id,
    }
    answer = await ctx.browser_request("emulation.set", {k: v for k, v in wire.items() if v is not None})
    result: Emulated = {
        "device": None,
        "viewport": {"width": int(a.width or 0), "height": int(a.height or 0)},
        "device_scale_factor": a.device_scale_factor,
        "is_mobile": a.mobile,
        "has_touch": False,
        "page": _seen(answer),
    }
    return result


async def _set_user_agent(ctx: CommandContext, a: SetUserAgentArgs) -> UserAgentSet:
    agent = (a.user_agent or "").strip()
    if a.reset and agent:
        raise TabpilotError("invalid_params", "Give either 'user_agent' or reset:true.", param="reset")
    if not a.reset and a.user_agent is None:
        raise TabpilotError(
            "invalid_params", "'user_agent' is required (\"\" or reset:true resets).", param="user_agent"
        )
    if len(agent) > MAX_USER_AGENT or any(c in agent for c in "\r\n\0"):
        raise TabpilotError(
            "invalid_params",
            f"'user_agent' must be one line of at most {MAX_USER_AGENT} characters.",
            param="user_agent",
        )
    answer = await ctx.browser_request("emulation.user_agent", {"user_agent": agent, "tab_id": a.tab_id})
    return {"user_agent": agent or None, "page": _seen(answer)}


def _with_secrets(ctx: CommandContext, headers: dict[str, str]) -> tuple[dict[str, str], dict[str, str]]:
    """`{{secret:NAME}}` in header values, from the OS keyring; (headers, the secret values used)."""
    used: dict[str, str] = {}

    def fill(match: re.Match[str]) -> str:
        if not match.group(1):
            return match.group(0)  # {{name}} without secret: is the value's own text
        name = match.group(2)
        value = ctx.engine.secrets.get(name)
        if value is None:
            raise TabpilotError(
                "invalid_params",
                f"Tabpilot has no secret named '{name}'; the user can add it in the tray's Secrets window "
                "or with `tabpilot secret set NAME`.",
                param="headers",
                secret=name,
            )
        used[name] = value
        return value

    return {k: PLACEHOLDER.sub(fill, v) for k, v in headers.items()}, used


def check_headers(headers: dict[str, Any], param: str = "headers") -> dict[str, str]:
    """Header names as HTTP allows them, string values on one line; the message never quotes a value."""
    if len(headers) > MAX_HEADERS:
        raise TabpilotError("invalid_params", f"'{param}' takes at most {MAX_HEADERS} headers.", param=param)
    out: dict[str, str] = {}
    for name, value in headers.items():
        if not HEADER_NAME.fullmatch(name):
            raise TabpilotError("invalid_params", f"{shown(name)} is not a valid header name.", param=param)
        if not isinstance(value, str) or len(value) > MAX_HEADER_VALUE or any(c in value for c in "\r\n\0"):
            raise TabpilotError(
                "invalid_params",
                f"Header {shown(name)}'s value must be one line of text (at most {MAX_HEADER_VALUE} characters).",
                param=param,
            )
        out[name] = value
    return out


RESERVED_REQUEST_HEADERS = frozenset(
    {"host", "content-length", "connection", "transfer-encoding", "upgrade", "keep-alive", "te", "trailer", "expect"}
)
"""What the browser itself sets for each request (where it goes, how it is framed): an added one would
send requests elsewhere or break them, so set_headers refuses them, as Chrome's own header rules do."""


async def _set_headers(ctx: CommandContext, a: SetHeadersArgs) -> HeadersSet:
    for name in a.headers:
        if name.lower() in RESERVED_REQUEST_HEADERS or name.lower().startswith("proxy-"):
            raise TabpilotError(
                "invalid_params",
                f"{shown(name)} is set by the browser for each request; set_headers cannot add it.",
                param="headers",
            )
    headers, used = _with_secrets(ctx, check_headers(a.headers))
    ctx.engine.known_secrets.update(used)  # a page that echoes one is scrubbed in later reads too
    answer = await ctx.browser_request("network.headers", {"headers": headers, "tab_id": a.tab_id})
    names = answer.get("headers")
    result: HeadersSet = {"headers": [str(n) for n in names] if isinstance(names, list) else list(headers)}
    return result


PAGE_EXAMPLE = {
    "width": 393,
    "height": 659,
    "device_pixel_ratio": 3,
    "user_agent": "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) …",
    "coarse_pointer": True,
    "touch_points": 5,
}

COMMANDS: list[Command[Any]] = [
    Command(
        "configure",
        "emulate_device",
        "mutate",
        "emulate a device (viewport, scale, touch, UA) in the tab; reset:true undoes",
        _emulate_device,
        EmulateDeviceArgs,
        returns=Emulated,
        notes="Devices are Playwright's descriptors; names match ignoring case, spaces and punctuation "
        '("iphone15"), an unknown name fails with suggestions. Lasts across navigations in the tab until reset '
        "(or Cancel on Chrome's debugging bar). `page` is what the page reports afterwards.",
        example={"device": "iPhone 15"},
        example_result={
            "device": "iPhone 15",
            "viewport": {"width": 393, "height": 659},
            "device_scale_factor": 3,
            "is_mobile": True,
            "has_touch": True,
            "user_agent": "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) …",
            "page": PAGE_EXAMPLE,
        },
        ops=("emulation.set",),
        approval="emulation",
        **_GATE,
        cli=Cli("emulate-device", positional=("device",)),
    ),
    Command(
        "configure",
        "set_viewport",
        "mutate",
        "set the tab's viewport size (and scale, mobile); reset:true undoes",
        _set_viewport,
        SetViewportArgs,
        returns=Emulated,
        notes="Replaces a device emulation. Lasts across navigations in the tab until reset.",
        example={"width": 1024, "height": 768},
        example_result={
            "device": None,
            "viewport": {"width": 1024, "height": 768},
            "device_scale_factor": None,
            "is_mobile": False,
            "has_touch": False,
            "page": {**PAGE_EXAMPLE, "width": 1024, "height": 768, "device_pixel_ratio": 1, "coarse_pointer": False},
        },
        ops=("emulation.set",),
        approval="emulation",
        **_GATE,
    ),
    Command(
        "configure",
        "set_user_agent",
        "mutate",
        'set the tab\'s user agent (navigator and header); "" or reset:true undoes',
        _set_user_agent,
        SetUserAgentArgs,
        returns=UserAgentSet,
        notes="Wins over a device's user agent until reset, then the device's (if any) holds again.",
        example={"user_agent": "TabpilotTest/1.0"},
        example_result={"user_agent": "TabpilotTest/1.0", "page": {**PAGE_EXAMPLE, "user_agent": "TabpilotTest/1.0"}},
        ops=("emulation.user_agent",),
        approval="emulation",
        **_GATE,
    ),
    Command(
        "configure",
        "set_headers",
        "mutate",
        "add headers to every request of the tab; {} clears",
        _set_headers,
        SetHeadersArgs,
        returns=HeadersSet,
        notes="Values may be credentials: answers, list_routes and activity rows show header names only; a value "
        "may be {{secret:NAME}} from the OS keyring. Replaces the earlier set; lasts across navigations.",
        example={"headers": {"Authorization": "Bearer {{secret:API_TOKEN}}", "X-Test-Run": "42"}},
        example_result={"headers": ["Authorization", "X-Test-Run"]},
        ops=("network.headers",),
        approval="network",
        **_GATE,
    ),
]
