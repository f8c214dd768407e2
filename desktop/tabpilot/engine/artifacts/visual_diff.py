"""`generate {type:"visual_diff"}`: did anything move? The page (or one element) against a baseline picture
kept in the home's artifacts folder (artifacts/baselines/<name>.png).

The first call stores the capture as the baseline and says so; later calls compare with it
(engine/artifacts/imagediff.py: pixelmatch's measure) and write a diff image next to it
(artifacts/baselines/<name>.diff.png); `update_baseline` replaces it. Without a `name`, the baseline is
named after the page's address and viewport size, so the same page at the same size finds its own.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NotRequired, TypedDict
from urllib.parse import urlsplit

from tabpilot.engine.artifacts import imagediff
from tabpilot.engine.artifacts.artifacts import artifacts_folder, safe_stem, write_file
from tabpilot.engine.artifacts.generate import ATTACHMENTS
from tabpilot.engine.context import CommandContext
from tabpilot.engine.contract import results
from tabpilot.engine.contract.args import FrameArgs, arg
from tabpilot.engine.contract.commands import Cli, Command
from tabpilot.engine.errors import TabpilotError
from tabpilot.safe_files import read_regular

BASELINES = "baselines"
"""The artifacts folder's subfolder for baselines and their diff images."""
DIFF_SUFFIX = ".diff"
MAX_BASELINE_BYTES = 256 * 1024 * 1024
"""A bound only (a full-page PNG is far smaller): what sits in a baseline's place is never read without end."""


@dataclass(frozen=True, kw_only=True)
class VisualDiffArgs(FrameArgs):
    name: str | None = arg("baseline name (default: from URL + viewport size)", default=None)
    selector: str | None = arg("compare this element only", default=None)
    full_page: bool = arg("not just the viewport", default=False)
    threshold: float = arg("per-pixel colour tolerance (0: any change counts)", default=0.1, minimum=0, maximum=1)
    include_aa: bool = arg("count anti-aliased edge pixels as changes", default=False)
    max_diff_ratio: float = arg("share of pixels that may change and still match", default=0.0, minimum=0, maximum=1)
    update_baseline: bool = arg("store this capture as the baseline", default=False)


class Region(TypedDict):
    x: int
    y: int
    width: int
    height: int


class VisualDiff(TypedDict):
    match: bool
    similarity: float
    diff_pixels: int
    diff_path: str | None
    baseline_path: str
    name: str
    width: int
    height: int
    baseline_created: NotRequired[bool]
    baseline_updated: NotRequired[bool]
    aa_pixels: NotRequired[int]
    regions: NotRequired[list[Region]]
    note: NotRequired[str]
    _attachments: NotRequired[list[results.Attachment]]
    """The diff image when it is not a match (generate.ATTACHMENTS; not in the JSON)."""


MAX_REGIONS = 10
"""Regions listed in the answer (the diff image boxes them all)."""


async def _visual_diff(ctx: CommandContext, a: VisualDiffArgs) -> VisualDiff:
    tab_id = a.tab_id
    if a.frame is not None and not a.selector:
        raise TabpilotError("invalid_params", "'frame' says where 'selector' is: give a selector too.", param="frame")
    if a.name is not None and a.name.strip():
        name = _own_name(safe_stem(a.name.strip()))
    else:
        if tab_id is None:  # two requests below: both must reach the same tab
            tab_id = int((await ctx.browser_request("tabs.resolve", {}, timeout_s=5))["tab_id"])
        info = await ctx.browser_request("page.info", {"tab_id": tab_id}, timeout_s=10)
        url, viewport = str(info.get("url") or ""), info.get("viewport") or {}
        name = _own_name(auto_name(url, viewport, a.selector, a.full_page, a.frame))
    params = {"tab_id": tab_id, "format": "png", "full_page": a.full_page, "selector": a.selector, "frame": a.frame}
    shot = await ctx.browser_request("tab.screenshot", {k: v for k, v in params.items() if v is not None}, timeout_s=20)
    capture = base64.b64decode(str(shot["data"]))
    # Files and pixels off the event loop: tens of milliseconds of decoding, numpy and encoding.
    answer = await asyncio.to_thread(against_baseline, artifacts_folder(ctx), name, capture, a)
    if shot.get("note"):  # the capture was cut (a very tall page): compared as taken, and said
        answer["note"] = " ".join(filter(None, (str(shot["note"]), answer.get("note", ""))))
    if a.name is not None and a.name.strip() and name != a.name.strip():
        renamed = f"The name '{a.name.strip()}' is kept as '{name}' (a file name in baselines/, no folders)."
        answer["note"] = " ".join(filter(None, (renamed, answer.get("note", ""))))
    return answer


def against_baseline(artifacts: Path, name: str, capture: bytes, a: VisualDiffArgs) -> VisualDiff:
    """visual_diff's answer for `capture` (PNG) and the baseline `name` in the `artifacts` folder: the
    baseline stored (first time, or update_baseline), or the comparison with its diff image written."""
    baseline_file = artifacts.resolve() / BASELINES / f"{name}.png"
    diff_file = baseline_file.with_name(f"{name}{DIFF_SUFFIX}.png")
    current = imagediff.decode_png(capture)
    height, width = current.shape[:2]
    answer: VisualDiff = {
        "match": True,
        "similarity": 1.0,
        "diff_pixels": 0,
        "diff_path": None,
        "baseline_path": str(baseline_file),
        "name": name,
        "width": width,
        "height": height,
    }
    existed = baseline_file.is_file()
    if a.update_baseline or not existed:
        write_file(artifacts, f"{BASELINES}/{baseline_file.name}", capture, kind="baseline", suffix="png")
        diff_file.unlink(missing_ok=True)  # it showed changes from a baseline that is gone
        if existed:
            answer["baseline_updated"] = True
            answer["note"] = "The baseline is now this capture."
        else:
            answer["baseline_created"] = True
            answer["note"] = "No baseline had this name: this capture is it now."
        return answer
    try:
        baseline = imagediff.decode_png(read_regular(baseline_file, MAX_BASELINE_BYTES))
    except (OSError, ValueError) as exc:  # Pillow's "cannot identify image file" is an OSError
        raise TabpilotError(
            "invalid_params",
            f"The baseline {baseline_file} is not a picture Tabpilot can read ({exc.__class__.__name__}); "
            "update_baseline:true replaces it with this capture.",
            param="name",
        ) from exc
    diff = imagediff.compare(baseline, current, threshold=a.threshold, include_aa=a.include_aa)
    match = not diff.sizes_differ and diff.diff_pixels <= a.max_diff_ratio * diff.total_pixels
    answer["match"] = match
    answer["similarity"] = diff.similarity
    answer["diff_pixels"] = diff.diff_pixels
    answer["aa_pixels"] = diff.aa_pixels
    if diff.regions:
        answer["regions"] = [
            Region(x=box.x, y=box.y, width=box.width, height=box.height) for box in diff.regions[:MAX_REGIONS]
        ]
    if diff.sizes_differ:
        bh, bw = baseline.shape[:2]
        answer["note"] = (
            f"The capture is {width}x{height} pixels, the baseline {bw}x{bh}: not a match (another viewport, "
            "zoom, device scale or page length?). The shared area was compared; the rest counts as changed. "
            "update_baseline:true accepts the new size."
        )
    elif diff.diff_pixels and match:
        answer["note"] = f"{diff.diff_pixels} pixels changed, within max_diff_ratio {a.max_diff_ratio}."
    if diff.diff_pixels == 0 and diff.aa_pixels == 0:
        diff_file.unlink(missing_ok=True)  # an earlier run's picture of changes that are gone
        return answer
    drawn = imagediff.encode_png(imagediff.diff_image(current, diff))
    answer["diff_path"] = str(write_file(artifacts, f"{BASELINES}/{diff_file.name}", drawn, kind="diff", suffix="png"))
    if not match:  # the picture of what changed, for an agent that can look at it
        answer[ATTACHMENTS] = [{"mime_type": "image/png", "data": base64.b64encode(drawn).decode()}]
    return answer


def auto_name(
    url: str, viewport: dict[str, Any], selector: str | None, full_page: bool, frame: str | None = None
) -> str:
    """A baseline's name from what it shows: host and path, the viewport size, and the element (and the
    frame it is in) or the full page. A query string is kept only as a short hash: it may carry a token,
    never written out."""
    parts = urlsplit(url)
    where = f"{parts.netloc}{parts.path}" or url  # a file: URL has only a path
    stem = safe_stem(where.replace("/", "_"), limit=80)
    if parts.query:
        stem += "-q" + hashlib.sha256(parts.query.encode()).hexdigest()[:8]
    stem += f"-{int(viewport.get('width') or 0)}x{int(viewport.get('height') or 0)}"
    if full_page:
        stem += "-full"
    if frame:
        stem += "-in-" + safe_stem(frame, limit=30)
    if selector:
        stem += "-" + safe_stem(selector, limit=40)
    return stem


def _own_name(stem: str) -> str:
    """A baseline's file name that its diff image's cannot take: `x.diff` is kept apart as `x.diff_`."""
    return f"{stem}_" if stem.endswith(DIFF_SUFFIX) else stem


COMMANDS: list[Command[Any]] = [
    Command(
        "generate",
        "visual_diff",
        "read",
        "compare the page (or an element) with a stored baseline picture",
        _visual_diff,
        VisualDiffArgs,
        returns=VisualDiff,
        cli=Cli("visual-diff", verdict="match"),
        notes=(
            "The first call with a name stores the capture as the baseline (baseline_created:true, match "
            "true); later calls compare with it; update_baseline:true replaces it. Baselines live in the "
            "artifacts folder's baselines/ as <name>.png (no name: one made from the URL and viewport "
            "size); the diff image (the capture greyed, changed pixels red, anti-aliasing yellow, each "
            "changed region boxed in magenta) is written beside it as <name>.diff.png, and attached when "
            "it is not a match. threshold: how far a pixel's colour may move and still count as the same "
            "(pixelmatch's YIQ distance; 0 counts any change). include_aa:false ignores anti-aliasing at "
            "edges. match: diff_pixels <= max_diff_ratio x the pixels compared (default 0: any change "
            "fails), and the sizes agree. similarity: 1 - the changed share. regions (up to 10) and "
            "width/height are in the capture's pixels (device scale included). `frame` with `selector`: the "
            "element in that iframe."
        ),
        example={"name": "home", "threshold": 0.1},
        example_result={
            "match": False,
            "similarity": 0.987654,
            "diff_pixels": 11378,
            "diff_path": "/home/me/.local/share/tabpilot/artifacts/baselines/home.diff.png",
            "baseline_path": "/home/me/.local/share/tabpilot/artifacts/baselines/home.png",
            "name": "home",
            "width": 1280,
            "height": 720,
            "aa_pixels": 212,
            "regions": [{"x": 700, "y": 96, "width": 202, "height": 56}],
        },
        ops=("tabs.resolve", "page.info", "tab.screenshot"),
    ),
]
