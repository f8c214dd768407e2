"""generate visual_diff in real Chromium with the real extension, through the real MCP client: a page
compared with its stored baseline, a changed element found and boxed where it is on the screen."""

from __future__ import annotations

import base64
import io
import uuid
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image

from tests.e2e.conftest import E2E
from tests.support.mcp_stdio import StdioMcp
from tests.support.site import FixtureSite

pytestmark = [pytest.mark.e2e, E2E]

RED = (255, 0, 0)
BOUNDS = (
    "const r = document.querySelector(%r).getBoundingClientRect(), d = devicePixelRatio;"
    "return {left: r.left * d, top: r.top * d, right: r.right * d, bottom: r.bottom * d};"
)


async def open_visual(mcp: StdioMcp, site: FixtureSite) -> str:
    url = site.url("/visual.html")
    assert (await mcp.ok("interact", {"action": "navigate", "url": url}))["status"] == "complete"
    return url


async def js(mcp: StdioMcp, script: str) -> Any:
    answer = await mcp.ok("interact", {"action": "execute_js", "script": script})
    assert answer["success"] is True, answer
    return answer["result"]


async def visual_diff(mcp: StdioMcp, **params: Any) -> dict[str, Any]:
    return await mcp.ok("generate", {"type": "visual_diff", **params})


def red_box(path: Path) -> tuple[int, int, int, int]:
    """(left, top, right, bottom) of the diff image's red (changed) pixels; right and bottom exclusive."""
    pixels = np.asarray(Image.open(path).convert("RGB"))
    ys, xs = np.nonzero(np.all(pixels == RED, axis=-1))
    assert ys.size, f"no changed pixels drawn in {path}"
    return int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1


async def test_identical_then_one_changed_element_boxed_where_it_is(
    mcp: StdioMcp, tab: Any, pilot_on: None, site: FixtureSite
) -> None:
    await open_visual(mcp, site)
    name = f"shop-{uuid.uuid4().hex[:6]}"
    first = await visual_diff(mcp, name=name)
    assert first["baseline_created"] is True and first["match"] is True
    baseline = Path(first["baseline_path"])
    assert baseline.name == f"{name}.png" and baseline.parent.name == "baselines"
    scale = await js(mcp, "devicePixelRatio")
    width, height = await js(mcp, "[innerWidth, innerHeight]")
    assert Image.open(baseline).size == (first["width"], first["height"]) == (width * scale, height * scale)

    same = await visual_diff(mcp, name=name)
    assert (same["match"], same["similarity"], same["diff_pixels"], same["diff_path"]) == (True, 1.0, 0, None)

    await js(mcp, "document.querySelector('#price').style.background = '#c62828'")
    changed = await mcp.call("generate", {"type": "visual_diff", "name": name})
    assert not changed.is_error
    answer = changed.structured_content
    assert answer is not None
    assert answer["match"] is False and 0 < answer["similarity"] < 1.0 and answer["diff_pixels"] > 0
    element = await js(mcp, BOUNDS % "#price")
    left, top, right, bottom = red_box(Path(answer["diff_path"]))
    # The red pixels cover the element (its rounded, blended edge pixels aside) and nothing far beyond.
    assert left <= element["left"] + 2 and top <= element["top"] + 2
    assert right >= element["right"] - 2 and bottom >= element["bottom"] - 2
    assert left >= element["left"] - 2 and top >= element["top"] - 2
    assert right <= element["right"] + 2 and bottom <= element["bottom"] + 2
    area = (element["right"] - element["left"]) * (element["bottom"] - element["top"])
    assert 0.8 * area <= answer["diff_pixels"] <= area + 4 * (element["right"] - element["left"] + 2)
    (region,) = answer["regions"]
    assert (region["x"], region["y"]) == (left, top)
    # The agent sees the diff image too.
    (image,) = [c for c in changed.content if c.type == "image"]
    assert image.mime_type == "image/png"
    assert Image.open(io.BytesIO(base64.b64decode(image.data))).size == (answer["width"], answer["height"])


async def test_update_baseline_accepts_the_change(mcp: StdioMcp, tab: Any, pilot_on: None, site: FixtureSite) -> None:
    await open_visual(mcp, site)
    name = f"accept-{uuid.uuid4().hex[:6]}"
    await visual_diff(mcp, name=name)
    await js(mcp, "document.querySelector('#mugs h2').textContent = 'Mugs (sold out)'")
    assert (await visual_diff(mcp, name=name))["match"] is False
    updated = await visual_diff(mcp, name=name, update_baseline=True)
    assert updated["baseline_updated"] is True and updated["match"] is True
    again = await visual_diff(mcp, name=name)
    assert again["match"] is True and again["diff_pixels"] == 0 and again["diff_path"] is None


async def test_a_baseline_without_a_name_is_named_by_address_and_viewport(
    mcp: StdioMcp, tab: Any, pilot_on: None, site: FixtureSite
) -> None:
    url = await open_visual(mcp, site)
    width, height = await js(mcp, "[innerWidth, innerHeight]")
    first = await visual_diff(mcp)
    host = url.split("//", 1)[1].split("/", 1)[0].replace(":", "_")
    assert first["name"] == f"{host}_visual.html-{width}x{height}"
    again = await visual_diff(mcp)
    assert again["name"] == first["name"] and again["match"] is True and again["similarity"] == 1.0


async def test_an_element_is_compared_on_its_own(mcp: StdioMcp, tab: Any, pilot_on: None, site: FixtureSite) -> None:
    await open_visual(mcp, site)
    name = f"card-{uuid.uuid4().hex[:6]}"
    first = await visual_diff(mcp, name=name, selector="#mugs")
    element = await js(mcp, BOUNDS % "#mugs")
    assert abs(first["width"] - (element["right"] - element["left"])) <= 1
    assert abs(first["height"] - (element["bottom"] - element["top"])) <= 1
    await js(mcp, "document.querySelector('#price').style.background = '#c62828'")  # another element
    assert (await visual_diff(mcp, name=name, selector="#mugs"))["match"] is True
    await js(mcp, "document.querySelector('#mugs p').textContent = 'A set of six, porcelain.'")
    changed = await visual_diff(mcp, name=name, selector="#mugs")
    assert changed["match"] is False and changed["diff_pixels"] > 0
    # The change is where the paragraph is within the card's picture.
    text = await js(mcp, BOUNDS % "#mugs p")
    left, top, right, bottom = red_box(Path(changed["diff_path"]))
    assert left >= text["left"] - element["left"] - 2 and right <= text["right"] - element["left"] + 2
    assert top >= text["top"] - element["top"] - 2 and bottom <= text["bottom"] - element["top"] + 2


async def test_a_page_that_grew_is_not_a_match_and_says_why(
    mcp: StdioMcp, tab: Any, pilot_on: None, site: FixtureSite
) -> None:
    await open_visual(mcp, site)
    name = f"whole-{uuid.uuid4().hex[:6]}"
    first = await visual_diff(mcp, name=name, full_page=True)
    await js(mcp, "document.querySelector('main').style.paddingBottom = '2000px'")
    grown = await visual_diff(mcp, name=name, full_page=True)
    assert grown["match"] is False and grown["height"] > first["height"]
    assert f"the baseline {first['width']}x{first['height']}" in grown["note"]
    # What both pictures show is the same: only the new part of the page counts as changed.
    assert grown["diff_pixels"] == grown["width"] * (grown["height"] - first["height"])
