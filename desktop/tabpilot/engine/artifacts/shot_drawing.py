"""Snapshot refs drawn on a screenshot (`generate screenshot annotate:true`): a box round each interactive
element and its ref (`e3`) in a tag beside it, drawn on the picture with Pillow — the page itself is
never touched. Boxes come in page CSS pixels; `clip` (the page area the picture shows) and `ratio`
(picture pixels per CSS pixel) place them in the picture."""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import Any, TypedDict

COLOUR = (255, 0, 170)
"""Magenta: rare on real pages, so a box reads as ours."""
TEXT = (255, 255, 255)
MAX_REFS = 300
"""Refs drawn at most (a page of a thousand links would be all boxes)."""


class Drawn(TypedDict):
    ref: str
    role: str
    name: str
    box: dict[str, int]
    """Where it is in the picture, in its pixels."""


@dataclass(frozen=True)
class Area:
    x: float
    y: float
    width: float
    height: float


def _in_picture(box: dict[str, Any], clip: Area, ratio: float, size: tuple[int, int]) -> dict[str, int] | None:
    """`box` (page CSS px) in the picture's pixels, cut to it; None when it is not in the picture."""
    left = (float(box["x"]) - clip.x) * ratio
    top = (float(box["y"]) - clip.y) * ratio
    right = left + float(box["width"]) * ratio
    bottom = top + float(box["height"]) * ratio
    left, top = max(0.0, left), max(0.0, top)
    right, bottom = min(float(size[0]), right), min(float(size[1]), bottom)
    if right - left < 2 or bottom - top < 2:
        return None
    return {"x": round(left), "y": round(top), "width": round(right - left), "height": round(bottom - top)}


def draw_refs(
    picture: bytes, boxes: list[dict[str, Any]], clip: Area, ratio: float, *, fmt: str, quality: int
) -> tuple[bytes, list[Drawn]]:
    """`picture` with each of `boxes` ({ref, role, name, x, y, width, height}) outlined and labelled;
    the new picture (same format) and the refs drawn."""
    from PIL import Image, ImageDraw, ImageFont

    image = Image.open(io.BytesIO(picture)).convert("RGB")
    draw = ImageDraw.Draw(image)
    line = max(2, round(2 * ratio))
    font = ImageFont.load_default(size=max(11, round(12 * ratio)))
    drawn: list[Drawn] = []
    for box in boxes:
        if len(drawn) >= MAX_REFS:
            break
        at = _in_picture(box, clip, ratio, image.size)
        if at is None:
            continue
        x0, y0 = at["x"], at["y"]
        x1, y1 = x0 + at["width"] - 1, y0 + at["height"] - 1
        draw.rectangle((x0, y0, x1, y1), outline=COLOUR, width=line)
        label = str(box["ref"]).lstrip("@")
        left, top, right, bottom = draw.textbbox((0, 0), label, font=font)
        tag_w, tag_h = right - left + 2 * line, bottom - top + 2 * line
        # Above the box when there is room (the element stays readable), else inside its top-left corner.
        tag_y = y0 - tag_h if y0 - tag_h >= 0 else y0
        draw.rectangle((x0, tag_y, x0 + tag_w, tag_y + tag_h), fill=COLOUR)
        draw.text((x0 + line - left, tag_y + line - top), label, fill=TEXT, font=font)
        drawn.append(
            {"ref": str(box["ref"]), "role": str(box.get("role", "")), "name": str(box.get("name", "")), "box": at}
        )
    out = io.BytesIO()
    if fmt == "jpeg":
        image.save(out, format="JPEG", quality=quality)
    else:
        image.save(out, format="PNG")
    return out.getvalue(), drawn
