"""`generate screenshot` in every mode and `generate zoom_region`, through the real MCP client, app,
extension and Chromium: each picture's pixel size (device scale included) and its content, read as
pixel colours at known points of a fixture page of coloured blocks (tests/fixtures/site/shots.html)."""

from __future__ import annotations

import asyncio
import base64
import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

import tabpilot as tabpilot_package
from tabpilot.app import App
from tests.e2e.conftest import E2E, home_env
from tests.support.mcp_stdio import StdioMcp
from tests.support.site import FixtureSite
from tests.support.waiting import until

pytestmark = [pytest.mark.e2e, E2E]

RED = (255, 0, 0)
GREEN = (0, 200, 0)
BLUE = (0, 0, 255)
WHITE = (255, 255, 255)
TEAL = (0, 128, 128)
ORANGE = (255, 128, 0)
PURPLE = (200, 0, 200)


async def show(app: App, tab: Any, site: FixtureSite, path: str) -> None:
    url = site.url(path)
    await tab.goto(url)

    async def targeted() -> bool:
        return (await app.link.request("tabs.resolve", {}, timeout_s=5))["url"] == url

    await until(targeted, timeout=5, what=f"commands to go to the tab showing {path}")


def images(result: Any) -> list[Image.Image]:
    return [
        Image.open(io.BytesIO(base64.b64decode(c.data))).convert("RGB") for c in result.content if c.type == "image"
    ]


async def shot(mcp: StdioMcp, **args: Any) -> tuple[dict[str, Any], Image.Image]:
    result = await mcp.call("generate", {"type": "screenshot", **args})
    assert not result.is_error, result.structured_content
    (image,) = images(result)
    answer = result.structured_content
    assert answer is not None and (answer["width"], answer["height"]) == image.size
    return answer, image


def near(seen: tuple[int, ...], want: tuple[int, int, int], slack: int = 12) -> bool:
    return all(abs(a - b) <= slack for a, b in zip(seen[:3], want, strict=True))


def colour(image: Image.Image, x: float, y: float) -> tuple[int, ...]:
    value = image.getpixel((round(x), round(y)))
    assert isinstance(value, tuple)
    return value


async def page_metrics(tab: Any) -> dict[str, float]:
    return dict(await tab.evaluate("({w: innerWidth, h: innerHeight, dpr: devicePixelRatio, y: scrollY})"))


async def test_the_viewport_and_the_whole_page_show_the_blocks_where_they_are(
    mcp: StdioMcp, e2e_app: App, tab: Any, site: FixtureSite
) -> None:
    await show(e2e_app, tab, site, "/shots.html")
    m = await page_metrics(tab)
    dpr = m["dpr"]
    answer, image = await shot(mcp)
    assert image.size == (round(m["w"] * dpr), round(m["h"] * dpr))
    assert near(colour(image, 100 * dpr, 50 * dpr), RED)
    assert near(colour(image, 375 * dpr, 90 * dpr), GREEN)
    assert near(colour(image, 250 * dpr, 90 * dpr), WHITE)

    answer, image = await shot(mcp, full_page=True)
    assert image.size == (round(m["w"] * dpr), round(2400 * dpr))
    assert near(colour(image, 200 * dpr, 1560 * dpr), BLUE)  # below the fold: drawn beyond the viewport
    assert near(colour(image, 100 * dpr, 50 * dpr), RED)
    assert "note" not in answer
    assert await tab.evaluate("scrollY") == m["y"]  # a full-page shot does not scroll the page


async def test_an_element_below_the_fold_is_scrolled_to_and_cut_out(
    mcp: StdioMcp, e2e_app: App, tab: Any, site: FixtureSite
) -> None:
    await show(e2e_app, tab, site, "/shots.html")
    dpr = (await page_metrics(tab))["dpr"]
    _, image = await shot(mcp, selector="#blue")
    assert image.size == (round(200 * dpr), round(120 * dpr))
    for x, y in ((2, 2), (100, 60), (197, 117)):
        assert near(colour(image, x * dpr, y * dpr), BLUE), (x, y)
    assert await tab.evaluate("scrollY") > 0  # it was scrolled into view

    # By a snapshot's ref, and scaled: 120x40 CSS px at scale 2.
    snapshot = await mcp.ok("observe", {"what": "snapshot", "interactive_only": True})
    line = next(line for line in snapshot["snapshot"].splitlines() if 'button "Go"' in line)
    ref = next(word for word in line.split() if word.startswith("@"))
    _, image = await shot(mcp, selector=ref, scale=2)
    assert image.size == (round(120 * dpr * 2), round(40 * dpr * 2))

    # In a frame: the frame's own element, where it is inside the frame.
    _, image = await shot(mcp, selector="#inner", frame="#frame")
    assert image.size == (round(60 * dpr), round(50 * dpr))
    assert near(colour(image, 30 * dpr, 25 * dpr), PURPLE)


async def test_a_clip_and_a_scale_give_that_area_at_that_size(
    mcp: StdioMcp, e2e_app: App, tab: Any, site: FixtureSite
) -> None:
    await show(e2e_app, tab, site, "/shots.html")
    dpr = (await page_metrics(tab))["dpr"]
    _, image = await shot(mcp, clip={"x": 290, "y": 40, "width": 170, "height": 100})
    assert image.size == (round(170 * dpr), round(100 * dpr))
    assert near(colour(image, 5 * dpr, 5 * dpr), WHITE)  # the 10 px margin round the green block
    assert near(colour(image, 85 * dpr, 50 * dpr), GREEN)
    _, image = await shot(mcp, clip={"x": 100, "y": 1500, "width": 200, "height": 120}, scale=0.5)
    assert image.size == (round(100 * dpr), round(60 * dpr))
    assert near(colour(image, 50 * dpr, 30 * dpr), BLUE)  # page coordinates: below the fold too
    _, image = await shot(mcp, scale=0.5)
    m = await page_metrics(tab)
    # Half of an odd number of pixels: Chrome rounds either way.
    assert abs(image.size[0] - m["w"] * dpr / 2) <= 1 and abs(image.size[1] - m["h"] * dpr / 2) <= 1
    # A clip running past the page's end is cut there, and the answer says what it shows.
    height = await tab.evaluate("document.documentElement.scrollHeight")
    answer, image = await shot(mcp, clip={"x": 0, "y": height - 100, "width": 50, "height": 300})
    assert image.size == (round(50 * dpr), round(100 * dpr))
    assert "reached past the page" in answer["note"]


async def test_zoom_region_magnifies_part_of_the_viewport(
    mcp: StdioMcp, e2e_app: App, tab: Any, site: FixtureSite
) -> None:
    await show(e2e_app, tab, site, "/shots.html")
    await tab.evaluate("scrollTo(0, 1450)")
    dpr = (await page_metrics(tab))["dpr"]
    region = {"x": 90, "y": 40, "width": 40, "height": 30, "scale": 3}
    result = await mcp.call("generate", {"type": "zoom_region", **region})
    assert not result.is_error, result.structured_content
    (image,) = images(result)
    assert image.size == (round(40 * 3 * dpr), round(30 * 3 * dpr))
    # Viewport (90,40)-(130,70) is page (90,1490)-(130,1520): the blue block's top-left corner, white beside it.
    assert near(colour(image, 5, 5), WHITE)
    assert near(colour(image, 110 * dpr, 80 * dpr), BLUE)
    assert result.structured_content is not None and result.structured_content["scale"] == 3
    assert result.structured_content["region"] == {"x": 90, "y": 40, "width": 40, "height": 30}

    # A region reaching past the viewport's corner is cut to the viewport, and the answer says so.
    m = await page_metrics(tab)
    past = {"x": m["w"] - 30, "y": m["h"] - 20, "width": 500, "height": 500, "scale": 2}
    result = await mcp.call("generate", {"type": "zoom_region", **past})
    assert not result.is_error, result.structured_content
    (image,) = images(result)
    assert image.size == (round(30 * 2 * dpr), round(20 * 2 * dpr))
    answer = result.structured_content
    assert answer is not None and answer["region"] == {"x": m["w"] - 30, "y": m["h"] - 20, "width": 30, "height": 20}
    assert "reached past the viewport" in answer["note"]
    outside = await mcp.error("generate", {"type": "zoom_region", "x": m["w"] + 10, "y": 0, "width": 5, "height": 5})
    assert (
        outside["error"] == "invalid_params"
        and outside["param"] == "x"
        and "outside the viewport" in outside["message"]
    )


async def test_a_very_tall_page_is_capped_with_a_note_and_the_rest_is_a_clip_away(
    mcp: StdioMcp, e2e_app: App, tab: Any, site: FixtureSite
) -> None:
    await show(e2e_app, tab, site, "/shots-tall.html")
    m = await page_metrics(tab)
    dpr = m["dpr"]
    answer, image = await shot(mcp, full_page=True)
    assert image.size == (round(m["w"] * dpr), 16384)
    assert "Capped at 16384 px" in answer["note"] and "clip {x:0, y:" in answer["note"]
    assert near(colour(image, 10, 10), RED)
    _, image = await shot(mcp, clip={"x": 0, "y": 19900, "width": 100, "height": 400})
    assert near(colour(image, 50 * dpr, 50 * dpr), WHITE) and near(colour(image, 50 * dpr, 200 * dpr), GREEN)


async def test_save_and_path_write_under_the_artifacts_folder_only(
    mcp: StdioMcp, e2e_app: App, e2e_home: Path, tab: Any, site: FixtureSite
) -> None:
    await show(e2e_app, tab, site, "/shots.html")
    dpr = (await page_metrics(tab))["dpr"]
    result = await mcp.call("generate", {"type": "screenshot", "selector": "#green", "save": True})
    assert not result.is_error and not images(result)  # the path, not the picture
    saved = result.structured_content
    assert saved is not None
    path = Path(saved["path"])
    artifacts = e2e_app.paths.artifacts_dir.resolve()
    assert path.is_file() and path.is_relative_to(artifacts) and path.suffix == ".png"
    with Image.open(path) as written:
        assert written.size == (saved["width"], saved["height"]) == (round(150 * dpr), round(80 * dpr))
        assert near(written.convert("RGB").getpixel((10, 10)), GREEN)  # type: ignore[arg-type]
    assert saved["size_bytes"] == path.stat().st_size

    named = await mcp.ok("generate", {"type": "screenshot", "path": "shots/home.jpg", "format": "jpeg"})
    assert Path(named["path"]) == artifacts / "shots" / "home.jpg"
    with Image.open(named["path"]) as written:
        assert written.format == "JPEG" and written.size == (named["width"], named["height"])
    # A .jpg name with no format given is a JPEG too, not PNG bytes under a .jpg name.
    implied = await mcp.ok("generate", {"type": "screenshot", "path": "shots/implied.jpeg"})
    assert implied["format"] == "jpeg"
    with Image.open(implied["path"]) as written:
        assert written.format == "JPEG"

    refused = await mcp.error("generate", {"type": "screenshot", "path": "../outside.png"})
    assert refused["error"] == "invalid_params" and "artifacts folder" in refused["message"]
    assert not (artifacts.parent / "outside.png").exists()


async def test_a_hard_link_in_artifacts_is_replaced_and_the_file_outside_kept(
    mcp: StdioMcp, e2e_app: App, tab: Any, site: FixtureSite, tmp_path: Path
) -> None:
    """Issue 18: `generate screenshot path:"hard.png"` wrote through a hard link planted in artifacts/."""
    await show(e2e_app, tab, site, "/shots.html")
    artifacts = e2e_app.paths.artifacts_dir.resolve()
    artifacts.mkdir(parents=True, exist_ok=True)
    outside = tmp_path / "precious.txt"
    outside.write_bytes(b"the person's own file")
    link = artifacts / "hard.png"
    link.unlink(missing_ok=True)
    os.link(outside, link)
    shot = await mcp.ok("generate", {"type": "screenshot", "path": "hard.png"})
    assert Path(shot["path"]) == link
    assert outside.read_bytes() == b"the person's own file"
    with Image.open(link) as written:
        assert written.format == "PNG"


async def test_annotate_draws_the_refs_on_the_picture_and_leaves_the_page_alone(
    mcp: StdioMcp, e2e_app: App, tab: Any, site: FixtureSite
) -> None:
    await show(e2e_app, tab, site, "/shots.html")
    dpr = (await page_metrics(tab))["dpr"]
    before = await tab.evaluate("document.documentElement.outerHTML")
    _, plain = await shot(mcp)
    answer, drawn = await shot(mcp, annotate=True)
    assert await tab.evaluate("document.documentElement.outerHTML") == before
    refs = {r["name"]: r for r in answer["refs"]}
    assert {"Go", "More"} <= set(refs)
    snapshot = await mcp.ok("observe", {"what": "snapshot", "interactive_only": True})
    assert f'button "Go" {refs["Go"]["ref"]}' in snapshot["snapshot"]
    go = refs["Go"]["box"]
    assert abs(go["x"] - 40 * dpr) <= 2 and abs(go["y"] - 320 * dpr) <= 2 and abs(go["width"] - 120 * dpr) <= 2
    # The button is white on white: every pixel its box's edge changed was drawn by annotate.
    edge = [(go["x"] + 1, go["y"] + go["height"] // 2), (go["x"] + go["width"] // 2, go["y"] + go["height"] - 2)]
    for point in edge:
        assert near(plain.getpixel(point), WHITE) and not near(drawn.getpixel(point), WHITE), point  # type: ignore[arg-type]
    # A frame's elements too, where the frame shows them (the iframe is at 500,400; the button 30,80 in it).
    inner = refs["In"]
    assert inner["ref"].startswith("@f")
    assert abs(inner["box"]["x"] - 530 * dpr) <= 3 and abs(inner["box"]["y"] - 480 * dpr) <= 3
    # Far from any element nothing is drawn.
    assert drawn.getpixel((round(700 * dpr), round(150 * dpr))) == plain.getpixel((round(700 * dpr), round(150 * dpr)))


async def test_a_responsive_screenshot_is_an_emulation_the_pilot_must_allow(
    mcp: StdioMcp, e2e_app: App, tab: Any, site: FixtureSite
) -> None:
    """Each device's size is a resize the page sees (6 resize events for three devices): with the pilot
    off, a responsive screenshot is refused as an emulation is, and the page sees nothing happen."""
    await show(e2e_app, tab, site, "/resize-count.html")
    refused = await mcp.error("generate", {"type": "screenshot", "responsive": True})
    assert refused["error"] == "ai_web_pilot_disabled", refused
    plain = await mcp.call("generate", {"type": "screenshot"})  # a plain screenshot stays a read
    assert not plain.is_error, plain.structured_content
    # The page's own count, read after both calls answered (a resize would have been counted by now:
    # the responsive shot waits for each device's frame to be drawn before it answers).
    assert await tab.evaluate("window.resizes") == 0


async def test_responsive_takes_three_devices_and_restores_the_tab(
    mcp: StdioMcp, e2e_app: App, tab: Any, site: FixtureSite, pilot_on: None
) -> None:
    await show(e2e_app, tab, site, "/shots.html")
    m = await page_metrics(tab)
    result = await mcp.call("generate", {"type": "screenshot", "responsive": True})
    assert not result.is_error, result.structured_content
    answer = result.structured_content
    assert answer is not None
    mobile, tablet, desktop = images(result)
    assert [s["device"] for s in answer["shots"]] == ["mobile", "tablet", "desktop"]
    assert mobile.size == (750, 1624) and tablet.size == (1536, 2048) and desktop.size == (1280, 800)
    assert [(s["width"], s["height"]) for s in answer["shots"]] == [mobile.size, tablet.size, desktop.size]
    # The page laid out for each: the phone's narrow media query, the wide one elsewhere.
    assert near(colour(mobile, 50 * 2, 230 * 2), ORANGE)
    assert near(colour(tablet, 50 * 2, 230 * 2), TEAL)
    assert near(colour(desktop, 50, 230), TEAL)
    after = await page_metrics(tab)
    assert (after["w"], after["h"], after["dpr"]) == (m["w"], m["h"], m["dpr"])

    # A page without a viewport meta tag: a phone lays it out 980 px wide and shows it shrunk to its
    # screen; the picture is the screen (375x812 CSS px), here at scale 0.5 of 2x.
    await show(e2e_app, tab, site, "/shots-tall.html")
    result = await mcp.call("generate", {"type": "screenshot", "responsive": True, "scale": 0.5})
    assert not result.is_error, result.structured_content
    mobile, tablet, desktop = images(result)
    assert abs(mobile.size[0] - 375) <= 1 and abs(mobile.size[1] - 812) <= 1
    assert desktop.size == (640, 400)
    assert near(colour(mobile, 370, 5), RED)  # the red band spans the whole (shrunk) width


async def test_conflicting_modes_are_refused_clearly(mcp: StdioMcp, e2e_app: App, tab: Any, site: FixtureSite) -> None:
    await show(e2e_app, tab, site, "/shots.html")
    both = await mcp.error("generate", {"type": "screenshot", "selector": "#red", "full_page": True})
    assert both["error"] == "invalid_params" and "one of selector, clip or full_page" in both["message"]
    bad = await mcp.error("generate", {"type": "screenshot", "clip": {"x": 0, "y": 0, "width": 0, "height": 5}})
    assert bad["error"] == "invalid_params" and "clip" in bad["message"]
    outside = await mcp.error("generate", {"type": "screenshot", "clip": {"x": 0, "y": 9000, "width": 5, "height": 5}})
    assert outside["error"] == "invalid_params" and "outside the page" in outside["message"]
    missing = await mcp.error("generate", {"type": "screenshot", "selector": "#nothing", "timeout_ms": 200})
    assert missing["error"] == "element_not_found"


async def tabpilot(home: Path, cwd: Path, *args: str) -> str:
    def run() -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "tabpilot", *args],
            # Run elsewhere than the repository: this checkout's tabpilot still, wherever PYTHONPATH pointed.
            env={**home_env(home), "PYTHONPATH": str(Path(tabpilot_package.__file__).resolve().parents[1])},
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )

    done = await asyncio.to_thread(run)
    assert done.returncode == 0, f"tabpilot {' '.join(args)}: {done.returncode}\n{done.stderr}"
    return done.stdout


async def test_the_cli_writes_the_pictures_to_files_and_prints_their_paths(
    e2e_app: App, e2e_home: Path, tab: Any, site: FixtureSite, tmp_path: Path, pilot_on: None
) -> None:
    await show(e2e_app, tab, site, "/shots.html")
    dpr = (await page_metrics(tab))["dpr"]
    printed = await tabpilot(e2e_home, tmp_path, "screenshot", "--selector", "#green")
    path = Path(printed.split(" (")[0])
    assert path.parent == tmp_path and path.name.startswith("screenshot-") and path.suffix == ".png"
    with Image.open(path) as image:
        assert image.size == (round(150 * dpr), round(80 * dpr))
        assert near(image.convert("RGB").getpixel((5, 5)), GREEN)  # type: ignore[arg-type]
    named = tmp_path / "green.png"
    printed = await tabpilot(e2e_home, tmp_path, "screenshot", "--selector", "#green", str(named))
    assert printed.startswith(str(named)) and named.is_file()

    # `tabpilot call` writes an answer's images too (into -o), and names the files in the JSON it prints.
    out = tmp_path / "out"
    answer = json.loads(
        await tabpilot(
            e2e_home, tmp_path, "call", "generate", '{"type":"screenshot","selector":"#red"}', "-o", str(out)
        )
    )
    (written,) = answer["files"]
    assert Path(written).parent == out and answer["width"] == round(200 * dpr)
    with Image.open(written) as image:
        assert image.size == (answer["width"], answer["height"])
    answer = json.loads(
        await tabpilot(
            e2e_home, tmp_path, "call", "generate", '{"type":"zoom_region","x":0,"y":0,"width":20,"height":10}'
        )
    )
    assert Path(answer["files"][0]).parent == tmp_path

    # Responsive: three files, one per device.
    printed = await tabpilot(e2e_home, tmp_path, "screenshot", "--responsive", "--scale", "0.5")
    lines = printed.splitlines()
    assert len(lines) == 3 and all(Path(line.split(" (")[0]).is_file() for line in lines)
    assert [line.split(" (")[0].rsplit("-", 1)[1] for line in lines] == ["mobile.png", "tablet.png", "desktop.png"]
