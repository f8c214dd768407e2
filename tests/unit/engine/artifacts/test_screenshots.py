"""`generate screenshot` and `zoom_region` through the engine against a fake browser: what reaches the
extension (`tab.screenshot`'s params), the refusals of conflicting modes, files written under the artifacts
folder, refs drawn on the picture, and the three devices of a responsive call."""

from __future__ import annotations

import base64
import io
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from tabpilot.engine.artifacts.generate import ATTACHMENTS
from tabpilot.engine.artifacts.screenshots import RESPONSIVE
from tabpilot.engine.core import Engine, EngineConfig
from tabpilot.engine.errors import TabpilotError
from tests.unit.engine.conftest import EngineFactory
from tests.unit.fakes import FakeApprovals, FakeBrowser


def png(width: int, height: int, colour: tuple[int, int, int] = (255, 255, 255)) -> str:
    out = io.BytesIO()
    Image.new("RGB", (width, height), colour).save(out, format="PNG")
    return base64.b64encode(out.getvalue()).decode()


def reply(width: int = 100, height: int = 50, **more: Any) -> dict[str, Any]:
    return {"data": png(width, height), "width": width, "height": height, **more}


async def shoot(engine: Engine, **args: Any) -> dict[str, Any]:
    return await engine.call("generate", {"type": "screenshot", **args})


async def test_each_mode_sends_its_own_params(engine: Engine, browser: FakeBrowser) -> None:
    browser.replies["tab.screenshot"] = reply()
    await shoot(engine)
    await shoot(engine, selector="@e3", frame="#pay", scale=2, timeout_ms=500)
    await shoot(engine, clip={"x": 0, "y": 10.5, "width": 20, "height": 30})
    await shoot(engine, full_page=True, format="jpeg", quality=50, tab_id=4)
    assert [c.params for c in browser.calls] == [
        {"format": "png", "scale": 1.0},
        {"format": "png", "scale": 2, "selector": "@e3", "timeout_ms": 500, "frame": "#pay"},
        {"format": "png", "scale": 1.0, "clip": {"x": 0, "y": 10.5, "width": 20, "height": 30}},
        {"format": "jpeg", "scale": 1.0, "quality": 50, "full_page": True, "tab_id": 4},
    ]


@pytest.mark.parametrize(
    ("args", "words"),
    [
        ({"selector": "#a", "full_page": True}, "one of selector, clip or full_page"),
        ({"clip": {"x": 0, "y": 0, "width": 5, "height": 5}, "selector": "#a"}, "not selector and clip"),
        ({"clip": {"x": 0, "y": 0, "width": 0, "height": 5}}, "more than 0"),
        ({"clip": {"x": 0, "y": "1", "width": 5, "height": 5}}, "'clip.y' must be a number"),
        ({"clip": {"x": 0, "y": 0, "w": 5, "height": 5}}, "not w"),
        ({"frame": "#f"}, "give a selector too"),
        ({"responsive": True, "selector": "#a"}, "'responsive' takes the viewport"),
        ({"scale": 5}, "scale"),
    ],
)
async def test_conflicting_or_bad_params_are_refused_before_the_browser(
    engine: Engine, browser: FakeBrowser, args: dict[str, Any], words: str
) -> None:
    with pytest.raises(TabpilotError) as refused:
        await shoot(engine, **args)
    assert refused.value.code == "invalid_params" and words in refused.value.message
    assert browser.calls == []


async def test_inline_by_default_and_the_cap_note_passes_through(engine: Engine, browser: FakeBrowser) -> None:
    browser.replies["tab.screenshot"] = reply(note="Capped at 16384 px a side")
    answer = await shoot(engine, full_page=True)
    assert answer["width"] == 100 and answer["note"].startswith("Capped")
    (image,) = answer[ATTACHMENTS]
    assert image["mime_type"] == "image/png" and answer["size_bytes"] == len(base64.b64decode(image["data"]))


async def test_save_and_path_write_a_file_and_answer_its_path(
    make_engine: EngineFactory, browser: FakeBrowser, tmp_path: Path
) -> None:
    engine = make_engine(config=EngineConfig(artifacts_dir=tmp_path / "artifacts"))
    browser.replies["tab.screenshot"] = reply(40, 30)
    saved = await shoot(engine, save=True)
    assert ATTACHMENTS not in saved and Path(saved["path"]).parent == (tmp_path / "artifacts").resolve()
    with Image.open(saved["path"]) as image:
        assert image.size == (40, 30) == (saved["width"], saved["height"])
    named = await shoot(engine, path="home")
    assert named["path"] == str((tmp_path / "artifacts" / "home.png").resolve())
    with pytest.raises(TabpilotError) as refused:
        await shoot(engine, path="/tmp/elsewhere.png")
    assert refused.value.code == "invalid_params" and refused.value.details.get("param") == "path"


async def test_annotate_draws_the_snapshot_boxes_where_the_picture_shows_them(
    engine: Engine, browser: FakeBrowser
) -> None:
    # A picture of page area (100,200)-(300,300) at 2 pixels per CSS px: 400x200 pixels.
    browser.replies["tab.screenshot"] = reply(400, 200, clip={"x": 100, "y": 200, "width": 200, "height": 100}, ratio=2)
    browser.replies["dom.snapshot"] = {
        "text": "",
        "refs": 2,
        "boxes": [
            {"ref": "@e1", "role": "button", "name": "Go", "x": 150, "y": 250, "width": 50, "height": 20},
            {"ref": "@e2", "role": "link", "name": "Far", "x": 900, "y": 900, "width": 50, "height": 20},
        ],
    }
    answer = await shoot(engine, annotate=True)
    assert browser.calls[1].params == {"interactive_only": True, "boxes": True}
    assert answer["refs"] == [
        {"ref": "@e1", "role": "button", "name": "Go", "box": {"x": 100, "y": 100, "width": 100, "height": 40}}
    ]
    image = Image.open(io.BytesIO(base64.b64decode(answer[ATTACHMENTS][0]["data"]))).convert("RGB")
    assert image.getpixel((100, 120)) != (255, 255, 255)  # the box's left edge
    assert image.getpixel((150, 120)) == (255, 255, 255)  # inside it, the element is left as it was
    assert image.getpixel((350, 20)) == (255, 255, 255)


async def test_responsive_takes_each_device_in_turn(
    engine: Engine, browser: FakeBrowser, approvals: FakeApprovals
) -> None:
    approvals.script = ["allow"]
    browser.queued["tab.screenshot"] = [reply(750, 1624), reply(1536, 2048), reply(1280, 800)]
    answer = await shoot(engine, responsive=True)
    devices = [c.params["device"] for c in browser.calls if c.op == "tab.screenshot"]
    assert devices == [d.wire() for d in RESPONSIVE]
    assert devices[0] == {"width": 375, "height": 812, "device_scale_factor": 2, "mobile": True}
    assert [(s["device"], s["width"]) for s in answer["shots"]] == [
        ("mobile", 750),
        ("tablet", 1536),
        ("desktop", 1280),
    ]
    assert len(answer[ATTACHMENTS]) == 3


async def test_a_responsive_screenshot_is_gated_and_approved_as_an_emulation(
    make_engine: EngineFactory, browser: FakeBrowser, approvals: FakeApprovals
) -> None:
    """It resizes the person's tab (the page sees each device's size): the pilot must be on, and a person
    (or a standing emulation rule) says yes, as for configure emulate_device. A plain screenshot asks nobody."""
    off = make_engine(pilot_on=False)
    with pytest.raises(TabpilotError) as caught:
        await shoot(off, responsive=True)
    assert caught.value.code == "ai_web_pilot_disabled"
    browser.replies["tab.screenshot"] = reply()
    await shoot(off)  # a read, with the pilot off too
    assert approvals.requests == []

    on = make_engine()
    approvals.script = ["deny"]
    with pytest.raises(TabpilotError) as caught:
        await shoot(on, responsive=True)
    assert caught.value.code == "approval_denied"
    (asked,) = approvals.requests
    assert asked.action_class == "emulation" and asked.steps[0]["responsive"] is True
    assert all("device" not in c.params for c in browser.calls if c.op == "tab.screenshot")


async def test_zoom_region_asks_for_a_viewport_clip_magnified(engine: Engine, browser: FakeBrowser) -> None:
    # As the extension answers: the page area shown (document coordinates) and the picture's pixels.
    browser.replies["tab.screenshot"] = reply(300, 150, clip={"x": 10, "y": 820, "width": 100, "height": 50}, ratio=3)
    answer = await engine.call("generate", {"type": "zoom_region", "x": 10, "y": 20, "width": 100, "height": 50})
    assert browser.calls[0].params == {
        "format": "png",
        "clip": {"x": 10, "y": 20, "width": 100, "height": 50},
        "clip_origin": "viewport",
        "scale": 2.0,
    }
    assert answer["scale"] == 2.0 and answer["region"]["width"] == 100 and len(answer[ATTACHMENTS]) == 1
    with pytest.raises(TabpilotError):
        await engine.call("generate", {"type": "zoom_region", "x": 0, "y": 0, "width": 10, "height": 10, "scale": 4})


async def test_responsive_saved_writes_a_file_per_device(
    make_engine: EngineFactory, browser: FakeBrowser, approvals: FakeApprovals, tmp_path: Path
) -> None:
    engine = make_engine(config=EngineConfig(artifacts_dir=tmp_path / "artifacts"))
    approvals.script = ["allow", "allow"]
    browser.queued["tab.screenshot"] = [reply(750, 1624), reply(1536, 2048), reply(1280, 800)]
    named = await shoot(engine, responsive=True, path="site/home.png")
    assert ATTACHMENTS not in named
    folder = (tmp_path / "artifacts" / "site").resolve()
    assert [s["path"] for s in named["shots"]] == [str(folder / f"home-{d.name}.png") for d in RESPONSIVE]
    browser.queued["tab.screenshot"] = [reply(750, 1624), reply(1536, 2048), reply(1280, 800)]
    unnamed = await shoot(engine, responsive=True, save=True)
    paths = [Path(s["path"]) for s in unnamed["shots"]]
    assert [p.name.split("-")[1] for p in paths] == ["mobile", "tablet", "desktop"]
    for path, shot in zip(paths, unnamed["shots"], strict=True):
        with Image.open(path) as image:
            assert image.size == (shot["width"], shot["height"])
