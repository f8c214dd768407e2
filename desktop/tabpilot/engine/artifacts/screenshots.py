"""`generate screenshot` (viewport, full page, element, clip; scaled; annotated with snapshot refs;
responsive) and `generate zoom_region`, all through the bridge op `tab.screenshot` (CDP
Page.captureScreenshot in the extension).

A picture is answered inline (an MCP image) by default; with `save` or `path` it is written under the
home's artifacts folder (engine/artifacts/artifacts.py) and the answer has its path instead of the image. Sizes
are the picture's own pixels: CSS px x the page's devicePixelRatio x `scale`. A capture taller (or
wider) than MAX_PIXELS is cut there, with a note naming the clip that shows the rest.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass, replace
from pathlib import PurePath
from typing import Any, NotRequired, TypedDict

from tabpilot.engine.artifacts.artifacts import write_artifact
from tabpilot.engine.artifacts.generate import ATTACHMENTS
from tabpilot.engine.artifacts.shot_drawing import Area, Drawn, draw_refs
from tabpilot.engine.context import CommandContext
from tabpilot.engine.contract import results
from tabpilot.engine.contract.args import FrameArgs, TabArgs, arg, build
from tabpilot.engine.contract.commands import ApprovalScope, Cli, Command
from tabpilot.engine.errors import TabpilotError
from tabpilot.engine.page.interact import SELECTOR_DOC

MAX_PIXELS = 16384
"""The picture's longest side (extension/background/shot_geometry.js MAX_PIXELS says why)."""
CAPTURE_TIMEOUT_S = 30.0


@dataclass(frozen=True)
class Device:
    name: str
    width: int
    height: int
    device_scale_factor: float
    mobile: bool

    def wire(self) -> dict[str, Any]:
        return {
            "width": self.width,
            "height": self.height,
            "device_scale_factor": self.device_scale_factor,
            "mobile": self.mobile,
        }


RESPONSIVE: tuple[Device, ...] = (
    Device("mobile", 375, 812, 2, True),
    Device("tablet", 768, 1024, 2, True),
    Device("desktop", 1280, 800, 1, False),
)
"""`responsive:true`'s three devices: a phone (iPhone X-class CSS size, at 2x rather than 3x to keep
the picture small), a portrait tablet (iPad) and a laptop screen."""
RESPONSIVE_DOC = ", ".join(f"{d.name} {d.width}x{d.height}@{d.device_scale_factor:g}x" for d in RESPONSIVE)


@dataclass(frozen=True, kw_only=True)
class ScreenshotArgs(FrameArgs):
    selector: str | None = arg(f"only this element ({SELECTOR_DOC})", default=None)
    clip: dict[str, Any] | None = arg("{x, y, width, height}: CSS px from the page's top-left", default=None)
    full_page: bool = arg("not just the viewport", default=False)
    format: str = arg("default png", default="png", enum=("png", "jpeg"))
    quality: int = arg("jpeg quality", default=80, minimum=1, maximum=100)
    scale: float = arg("picture px = CSS px x devicePixelRatio x scale", default=1.0, minimum=0.1, maximum=3)
    annotate: bool = arg("draw the interactive elements' snapshot refs (@e1...) on it", default=False)
    responsive: bool = arg(f"three shots: {RESPONSIVE_DOC} (resizes the tab: pilot + approval)", default=False)
    save: bool = arg("write a file under the artifacts folder; answer its path, not the image", default=False)
    path: str | None = arg("file name inside the artifacts folder (implies save)", default=None, path=True)
    timeout_ms: int = arg("wait for the element; default 10000", default=10_000, minimum=100, maximum=120_000)


@dataclass(frozen=True, kw_only=True)
class ZoomArgs(TabArgs):
    x: float = arg("left edge, CSS px in the viewport", minimum=0)
    y: float = arg("top edge, CSS px in the viewport", minimum=0)
    width: float = arg("CSS px", minimum=1)
    height: float = arg("CSS px", minimum=1)
    scale: float = arg("magnification 1-3, default 2", default=2.0, minimum=1, maximum=3)


class Shot(TypedDict):
    device: str
    viewport: dict[str, Any]
    width: int
    height: int
    size_bytes: int
    path: NotRequired[str]
    note: NotRequired[str]


class Screenshot(TypedDict):
    width: NotRequired[int]
    height: NotRequired[int]
    format: str
    size_bytes: NotRequired[int]
    path: NotRequired[str]
    """With save or path: the file written (no image then)."""
    note: NotRequired[str]
    refs: NotRequired[list[Drawn]]
    """With annotate: the refs drawn, each with its box in the picture's pixels."""
    shots: NotRequired[list[Shot]]
    """With responsive: one per device, in the order of the images."""
    _attachments: NotRequired[list[results.Attachment]]
    """The images when not saved (generate.ATTACHMENTS: MCP image content, not in the JSON)."""


class Zoomed(TypedDict):
    width: int
    height: int
    format: str
    size_bytes: int
    region: dict[str, Any]
    scale: float
    note: NotRequired[str]
    _attachments: NotRequired[list[results.Attachment]]


@dataclass(frozen=True)
class Picture:
    data: bytes
    width: int
    height: int
    clip: Area
    ratio: float
    note: str | None


def _invalid(message: str, param: str) -> TabpilotError:
    return TabpilotError("invalid_params", message, param=param)


def _clip(clip: dict[str, Any]) -> dict[str, float]:
    extra = sorted(set(clip) - {"x", "y", "width", "height"})
    if extra:
        raise _invalid(f"'clip' takes x, y, width and height (CSS px), not {', '.join(extra)}.", "clip")
    out: dict[str, float] = {}
    for key in ("x", "y", "width", "height"):
        value = clip.get(key)
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise _invalid(f"'clip.{key}' must be a number of CSS pixels.", "clip")
        out[key] = value
    if out["width"] <= 0 or out["height"] <= 0:
        raise _invalid("'clip.width' and 'clip.height' must be more than 0.", "clip")
    return out


def _check(a: ScreenshotArgs) -> None:
    given = [name for name, on in (("selector", a.selector), ("clip", a.clip), ("full_page", a.full_page)) if on]
    if len(given) > 1:
        raise _invalid(
            f"Give one of selector, clip or full_page (or none: the viewport), not {' and '.join(given)}.", given[1]
        )
    if a.frame and not a.selector:
        raise _invalid("'frame' says where 'selector' is: give a selector too.", "frame")
    if a.clip is not None:
        _clip(a.clip)
    if a.responsive and (a.selector or a.clip is not None or a.annotate):
        raise _invalid(
            "'responsive' takes the viewport (or full_page) of each device: no selector, clip or annotate.",
            "responsive",
        )


def _op_params(a: ScreenshotArgs) -> dict[str, Any]:
    params: dict[str, Any] = {"format": a.format, "scale": a.scale}
    if a.format == "jpeg":
        params["quality"] = a.quality
    if a.selector:
        params["selector"] = a.selector
        params["timeout_ms"] = a.timeout_ms
        if a.frame:
            params["frame"] = a.frame
    elif a.clip is not None:
        params["clip"] = _clip(a.clip)
    elif a.full_page:
        params["full_page"] = True
    if a.tab_id is not None:
        params["tab_id"] = a.tab_id
    return params


async def take(ctx: CommandContext, params: dict[str, Any]) -> Picture:
    """One `tab.screenshot`, decoded."""
    wait_s = params.get("timeout_ms", 0) / 1000
    shot = await ctx.browser_request("tab.screenshot", params, timeout_s=CAPTURE_TIMEOUT_S + wait_s)
    clip = shot.get("clip") or {}
    return Picture(
        data=base64.b64decode(str(shot["data"])),
        width=int(shot["width"]),
        height=int(shot["height"]),
        clip=Area(
            float(clip.get("x", 0)),
            float(clip.get("y", 0)),
            float(clip.get("width", shot["width"])),
            float(clip.get("height", shot["height"])),
        ),
        ratio=float(shot.get("ratio") or 1),
        note=shot.get("note"),
    )


def _suffix(fmt: str) -> str:
    return "jpg" if fmt == "jpeg" else "png"


def _mime(fmt: str) -> str:
    return "image/jpeg" if fmt == "jpeg" else "image/png"


async def _annotated(ctx: CommandContext, a: ScreenshotArgs, picture: Picture) -> tuple[Picture, list[Drawn]]:
    """The refs of the page's interactive elements (the snapshot's, as observe snapshot interactive_only
    names them) drawn on `picture`; the snapshot comes after the capture, so the page is where it was."""
    params: dict[str, Any] = {"interactive_only": True, "boxes": True}
    if a.tab_id is not None:
        params["tab_id"] = a.tab_id
    seen = await ctx.browser_request("dom.snapshot", params, timeout_s=20)
    data, drawn = draw_refs(
        picture.data, list(seen.get("boxes") or []), picture.clip, picture.ratio, fmt=a.format, quality=a.quality
    )
    return Picture(data, picture.width, picture.height, picture.clip, picture.ratio, picture.note), drawn


def _device_path(path: str | None, device: str) -> str | None:
    if path is None or not path.strip():
        return None
    named = PurePath(path)
    return str(named.with_name(f"{named.stem}-{device}{named.suffix}"))


async def _responsive(ctx: CommandContext, a: ScreenshotArgs) -> Screenshot:
    shots: list[Shot] = []
    attachments: list[results.Attachment] = []
    saving = a.save or a.path is not None
    for device in RESPONSIVE:
        params = {**_op_params(a), "device": device.wire()}
        picture = await take(ctx, params)
        shot: Shot = {
            "device": device.name,
            "viewport": device.wire(),
            "width": picture.width,
            "height": picture.height,
            "size_bytes": len(picture.data),
        }
        if picture.note:
            shot["note"] = picture.note
        if saving:
            written = write_artifact(
                ctx,
                _device_path(a.path, device.name),
                picture.data,
                kind=f"screenshot-{device.name}",
                suffix=_suffix(a.format),
            )
            shot["path"] = str(written)
        else:
            attachments += _inline(picture, a.format)
        shots.append(shot)
    answer: Screenshot = {"format": a.format, "shots": shots}
    if attachments:
        answer[ATTACHMENTS] = attachments
    return answer


def _inline(picture: Picture, fmt: str) -> list[results.Attachment]:
    return [{"mime_type": _mime(fmt), "data": base64.b64encode(picture.data).decode()}]


def deliver(ctx: CommandContext, picture: Picture, *, fmt: str, save: bool, path: str | None) -> Screenshot:
    """The answer for one picture: inline (an MCP image), or written under the artifacts folder."""
    answer: Screenshot = {
        "path": "",  # first when there is a file; gone when there is none
        "width": picture.width,
        "height": picture.height,
        "format": fmt,
        "size_bytes": len(picture.data),
    }
    if picture.note:
        answer["note"] = picture.note
    if save or path is not None:
        answer["path"] = str(write_artifact(ctx, path, picture.data, kind="screenshot", suffix=_suffix(fmt)))
    else:
        del answer["path"]
        answer[ATTACHMENTS] = _inline(picture, fmt)
    return answer


def _responsive_scope(engine: Any, params: dict[str, Any], _caller: Any) -> ApprovalScope | None:
    """A responsive call is approved as an emulation of the tab it shows (commands.py `emulates_when`);
    its parameters are checked first, so a bad call is refused before anyone is asked."""
    _check(build(ScreenshotArgs, params))
    if params.get("responsive") is not True:
        return None
    shown = {k: v for k, v in params.items() if v is not None and v is not False and k != "tab_id"}
    step = {"type": "screenshot", **shown}
    return ApprovalScope(steps=[step], acts_on_current_tab=True)


async def _screenshot(ctx: CommandContext, a: ScreenshotArgs) -> Screenshot:
    _check(a)
    if a.format == "png" and a.path and a.path.lower().endswith((".jpg", ".jpeg")):
        a = replace(a, format="jpeg")  # the file's name asks for a JPEG: write one, not PNG bytes in a .jpg
    if a.responsive:
        return await _responsive(ctx, a)
    picture = await take(ctx, _op_params(a))
    drawn: list[Drawn] | None = None
    if a.annotate:
        picture, drawn = await _annotated(ctx, a, picture)
    answer = deliver(ctx, picture, fmt=a.format, save=a.save, path=a.path)
    if drawn is not None:
        answer["refs"] = drawn
    return answer


async def _zoom_region(ctx: CommandContext, a: ZoomArgs) -> Zoomed:
    region = {"x": a.x, "y": a.y, "width": a.width, "height": a.height}
    params: dict[str, Any] = {"format": "png", "clip": region, "clip_origin": "viewport", "scale": a.scale}
    if a.tab_id is not None:
        params["tab_id"] = a.tab_id
    try:
        picture = await take(ctx, params)
    except TabpilotError as exc:
        if exc.code == "invalid_params" and exc.details.get("param") == "clip":
            raise TabpilotError("invalid_params", exc.message.replace("'clip'", "the region"), param="x") from None
        raise
    answer: Zoomed = {
        "width": picture.width,
        "height": picture.height,
        "format": "png",
        "size_bytes": len(picture.data),
        "note": picture.note or "",
        # What it shows: the region cut to the viewport (the note says so when it was).
        "region": {
            "x": max(0.0, a.x),
            "y": max(0.0, a.y),
            "width": round(picture.clip.width, 2),
            "height": round(picture.clip.height, 2),
        },
        "scale": a.scale,
    }
    if not picture.note:
        del answer["note"]
    answer[ATTACHMENTS] = _inline(picture, "png")
    return answer


COMMANDS: list[Command[Any]] = [
    Command(
        "generate",
        "screenshot",
        "read",
        "PNG/JPEG of the viewport, full_page, an element or a clip",
        _screenshot,
        ScreenshotArgs,
        returns=Screenshot,
        result="{width, height, format, size_bytes} and the picture as an MCP image; with save/path {path, ...}",
        notes=(
            "At most one of selector (an element, scrolled into view), clip or full_page; none: the viewport. "
            "width/height are the picture's pixels: CSS px x devicePixelRatio x scale. A picture longer than "
            f"{MAX_PIXELS} px is cut there, with a note giving the clip for the rest. save/path write the file "
            "under the artifacts folder and answer its path instead of the image. annotate: boxes and refs "
            f"(as observe snapshot interactive_only gives them) drawn on the picture, listed in refs. responsive: "
            f"{RESPONSIVE_DOC}, one image each (shots), the tab's own size and emulation restored after. A "
            "responsive screenshot emulates each device in the person's tab, and the page sees it (resize events, "
            "its layout changing under the person's eyes): it needs AI Web Pilot on and is approved as an "
            "emulation (a standing emulation rule for the site covers it), as configure emulate_device is."
        ),
        example={"selector": "#chart", "scale": 2},
        example_result={"width": 1200, "height": 640, "format": "png", "size_bytes": 48213},
        ops=("tab.screenshot", "dom.snapshot"),
        # Not rendered out of the page's sight: CDP emulation on the tab itself is what the page sees, and a
        # hidden copy of the tab would load the page again (a second request, a fresh session state). So
        # a responsive shot is what it is, an emulation, and gated and approved as one.
        emulates_when="responsive",
        approval_steps=_responsive_scope,
        cli=Cli("screenshot", short=(("full_page", "f"),), save=True),
    ),
    Command(
        "generate",
        "zoom_region",
        "read",
        "a viewport region magnified (scale 1-3)",
        _zoom_region,
        ZoomArgs,
        returns=Zoomed,
        result="{width, height, format, size_bytes, region, scale} and the picture as an MCP image",
        notes="x, y, width, height are CSS px in the viewport as it is now; the picture has width x scale x "
        "devicePixelRatio pixels across.",
        example={"x": 100, "y": 40, "width": 200, "height": 120, "scale": 3},
        example_result={
            "width": 600,
            "height": 360,
            "format": "png",
            "size_bytes": 20411,
            "region": {"x": 100, "y": 40, "width": 200, "height": 120},
            "scale": 3,
        },
        ops=("tab.screenshot",),
        cli=Cli("zoom-region", save=True),
    ),
]
