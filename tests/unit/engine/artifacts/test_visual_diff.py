"""generate visual_diff through the engine: baselines stored, compared, replaced and named (a scripted
browser answers the captures)."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tabpilot.engine.artifacts.generate import ATTACHMENTS
from tabpilot.engine.artifacts.imagediff import Pixels, decode_png, encode_png
from tabpilot.engine.artifacts.visual_diff import auto_name
from tabpilot.engine.core import Engine, EngineConfig
from tabpilot.engine.errors import TabpilotError
from tests.unit.engine.conftest import EngineFactory
from tests.unit.fakes import FakeBrowser, page_info


def picture(width: int = 64, height: int = 48, *, mark: tuple[int, int, int, int] | None = None) -> Pixels:
    pixels = np.full((height, width, 4), 255, np.uint8)
    pixels[10:20, 10:30] = (30, 90, 200, 255)
    if mark is not None:
        x, y, w, h = mark
        pixels[y : y + h, x : x + w] = (220, 20, 20, 255)
    return pixels


def shows(browser: FakeBrowser, pixels: Pixels, **extra: Any) -> None:
    """The next captures are `pixels` (the extension's answer has `extra` too)."""
    data = base64.b64encode(encode_png(pixels)).decode()
    height, width = pixels.shape[:2]
    browser.replies["tab.screenshot"] = {"data": data, "width": width, "height": height, **extra}


@pytest.fixture
def artifacts(tmp_path: Path) -> Path:
    return tmp_path / "artifacts"


@pytest.fixture
def engine(make_engine: EngineFactory, artifacts: Path) -> Engine:
    return make_engine(config=EngineConfig(artifacts_dir=artifacts))


async def diff(engine: Engine, **params: Any) -> dict[str, Any]:
    return await engine.call("generate", {"type": "visual_diff", **params})


async def test_the_first_call_stores_the_baseline_and_says_so(
    engine: Engine, browser: FakeBrowser, artifacts: Path
) -> None:
    shows(browser, picture())
    first = await diff(engine, name="home")
    baseline = artifacts.resolve() / "baselines" / "home.png"
    assert first == {
        "match": True,
        "similarity": 1.0,
        "diff_pixels": 0,
        "diff_path": None,
        "baseline_path": str(baseline),
        "name": "home",
        "width": 64,
        "height": 48,
        "baseline_created": True,
        "note": "No baseline had this name: this capture is it now.",
    }
    assert np.array_equal(decode_png(baseline.read_bytes()), picture())
    assert baseline.stat().st_mode & 0o777 == 0o600
    assert browser.calls[0].params == {"format": "png", "full_page": False}


async def test_the_same_picture_again_is_a_full_match_without_a_diff_image(
    engine: Engine, browser: FakeBrowser, artifacts: Path
) -> None:
    shows(browser, picture())
    await diff(engine, name="home")
    again = await diff(engine, name="home")
    assert again["match"] is True and again["similarity"] == 1.0 and again["diff_pixels"] == 0
    assert again["diff_path"] is None and "baseline_created" not in again and ATTACHMENTS not in again
    assert sorted(p.name for p in (artifacts / "baselines").iterdir()) == ["home.png"]


async def test_a_changed_element_is_counted_located_and_drawn(
    engine: Engine, browser: FakeBrowser, artifacts: Path
) -> None:
    shows(browser, picture())
    await diff(engine, name="home")
    shows(browser, picture(mark=(40, 30, 8, 6)))
    changed = await diff(engine, name="home")
    assert changed["match"] is False
    assert changed["diff_pixels"] == 48
    assert changed["similarity"] == pytest.approx(1 - 48 / (64 * 48), abs=1e-6)
    assert changed["regions"] == [{"x": 40, "y": 30, "width": 8, "height": 6}]
    drawn = Path(changed["diff_path"])
    assert drawn == artifacts.resolve() / "baselines" / "home.diff.png"
    red = np.all(decode_png(drawn.read_bytes())[..., :3] == (255, 0, 0), axis=-1)
    ys, xs = np.nonzero(red)
    assert (xs.min(), xs.max(), ys.min(), ys.max()) == (40, 47, 30, 35)
    (attached,) = changed[ATTACHMENTS]
    assert attached["mime_type"] == "image/png" and base64.b64decode(attached["data"]) == drawn.read_bytes()
    # The baseline is kept: the same change differs again, and going back matches and drops the old picture.
    assert (await diff(engine, name="home"))["diff_pixels"] == 48
    shows(browser, picture())
    assert (await diff(engine, name="home"))["match"] is True
    assert not drawn.exists()


async def test_max_diff_ratio_lets_a_small_change_match(engine: Engine, browser: FakeBrowser) -> None:
    shows(browser, picture())
    await diff(engine, name="home")
    shows(browser, picture(mark=(40, 30, 8, 6)))  # 48 of 3072 pixels: 1.6 %
    assert (await diff(engine, name="home", max_diff_ratio=0.01))["match"] is False
    within = await diff(engine, name="home", max_diff_ratio=0.02)
    assert within["match"] is True and within["diff_pixels"] == 48 and ATTACHMENTS not in within
    assert "within max_diff_ratio" in within["note"]


async def test_threshold_and_anti_aliasing_reach_the_comparison(engine: Engine, browser: FakeBrowser) -> None:
    shows(browser, picture())
    await diff(engine, name="faint")
    faint = picture()
    faint[0:4, 0:4, :3] = 245
    shows(browser, faint)
    assert (await diff(engine, name="faint"))["diff_pixels"] == 0
    assert (await diff(engine, name="faint", threshold=0))["diff_pixels"] == 16
    with pytest.raises(TabpilotError) as bad:
        await diff(engine, name="faint", threshold=2)
    assert bad.value.code == "invalid_params"


async def test_update_baseline_replaces_it(engine: Engine, browser: FakeBrowser, artifacts: Path) -> None:
    shows(browser, picture())
    await diff(engine, name="home")
    shows(browser, picture(mark=(40, 30, 8, 6)))
    assert (await diff(engine, name="home"))["match"] is False
    updated = await diff(engine, name="home", update_baseline=True)
    assert updated["baseline_updated"] is True and updated["match"] is True and updated["diff_path"] is None
    assert not (artifacts / "baselines" / "home.diff.png").exists()
    assert (await diff(engine, name="home"))["diff_pixels"] == 0


async def test_another_size_is_not_a_match_and_says_why(engine: Engine, browser: FakeBrowser) -> None:
    shows(browser, picture(64, 48))
    await diff(engine, name="home")
    shows(browser, picture(64, 60))
    taller = await diff(engine, name="home")
    assert taller["match"] is False and taller["diff_pixels"] == 64 * 12
    assert (taller["width"], taller["height"]) == (64, 60)
    assert "the baseline 64x48" in taller["note"] and "update_baseline" in taller["note"]


async def test_without_a_name_the_baseline_is_named_by_address_and_viewport(
    engine: Engine, browser: FakeBrowser, artifacts: Path
) -> None:
    browser.replies["tabs.resolve"] = {"tab_id": 7, "url": "https://shop.test/cart?session=SECRET", "title": ""}
    browser.replies["page.info"] = page_info(
        url="https://shop.test/cart?session=SECRET", viewport={"width": 1280, "height": 720}
    )
    shows(browser, picture())
    first = await diff(engine)
    assert first["name"].startswith("shop.test_cart-q") and first["name"].endswith("-1280x720")
    assert "SECRET" not in first["name"]
    assert (artifacts / "baselines" / f"{first['name']}.png").is_file()
    # Both reads went to the one tab the first resolved.
    assert [(c.op, c.params.get("tab_id")) for c in browser.calls] == [
        ("tabs.resolve", None),
        ("page.info", 7),
        ("tab.screenshot", 7),
    ]
    assert (await diff(engine))["name"] == first["name"]
    assert (await diff(engine, full_page=True))["name"] == first["name"] + "-full"


def test_auto_names_tell_pages_sizes_and_elements_apart() -> None:
    size = {"width": 800, "height": 600}
    assert auto_name("https://a.test/", size, None, False) == "a.test-800x600"
    assert auto_name("https://a.test/x/y", size, None, False) == "a.test_x_y-800x600"
    assert auto_name("https://a.test/x/y", {"width": 390, "height": 844}, None, False) == "a.test_x_y-390x844"
    assert auto_name("https://a.test/", size, "#main .card", False) == "a.test-800x600-main .card"
    queried = auto_name("https://a.test/?q=1", size, None, False)
    assert queried != auto_name("https://a.test/?q=2", size, None, False)
    assert auto_name("file:///tmp/page.html", size, None, False) == "tmp_page.html-800x600"


async def test_names_stay_inside_the_baselines_folder(engine: Engine, browser: FakeBrowser, artifacts: Path) -> None:
    shows(browser, picture())
    stored = await diff(engine, name="../../etc/passwd")
    assert Path(stored["baseline_path"]).parent == artifacts.resolve() / "baselines"
    assert f"is kept as '{stored['name']}'" in stored["note"]  # said, not silently renamed
    plain = await diff(engine, name="home")
    assert "kept as" not in plain["note"]
    own = await diff(engine, name="x.diff")  # never the name of another baseline's diff image
    assert own["name"] == "x.diff_"


async def test_without_an_artifacts_folder_it_says_it_cannot(make_engine: EngineFactory, browser: FakeBrowser) -> None:
    shows(browser, picture())
    with pytest.raises(TabpilotError) as info:
        await diff(make_engine(), name="home")
    assert info.value.code == "not_supported"


async def test_an_element_capture_is_asked_for_and_named_apart(engine: Engine, browser: FakeBrowser) -> None:
    browser.replies["page.info"] = page_info(url="https://a.test/", viewport={"width": 800, "height": 600})
    shows(browser, picture(20, 10))
    card = await diff(engine, selector="#card", full_page=False)
    assert card["name"] == "a.test-800x600-card" and (card["width"], card["height"]) == (20, 10)
    shot = browser.calls[-1]
    assert shot.op == "tab.screenshot"
    assert shot.params == {"tab_id": 1, "format": "png", "full_page": False, "selector": "#card"}
    named = await diff(engine, name="card", selector="#card")
    assert named["name"] == "card" and browser.calls[-1].params["selector"] == "#card"


async def test_an_element_in_a_frame_is_captured_there_and_named_apart(engine: Engine, browser: FakeBrowser) -> None:
    browser.replies["page.info"] = page_info(url="https://a.test/", viewport={"width": 800, "height": 600})
    shows(browser, picture(20, 10))
    framed = await diff(engine, selector="#card", frame="pay")
    assert framed["name"] == "a.test-800x600-in-pay-card"
    assert browser.calls[-1].params["frame"] == "pay" and browser.calls[-1].params["selector"] == "#card"
    assert auto_name("https://a.test/", {"width": 8, "height": 6}, "#card", False) == "a.test-8x6-card"
    with pytest.raises(TabpilotError) as info:
        await diff(engine, frame="pay")
    assert info.value.code == "invalid_params" and info.value.details["param"] == "frame"


async def test_a_capture_cut_short_says_so(engine: Engine, browser: FakeBrowser) -> None:
    shows(browser, picture(), note="Cut at 16384 px.")
    first = await diff(engine, name="tall", full_page=True)
    assert first["note"].startswith("Cut at 16384 px. No baseline had this name")
    assert (await diff(engine, name="tall", full_page=True))["note"] == "Cut at 16384 px."


async def test_a_damaged_baseline_is_refused_and_can_be_replaced(
    engine: Engine, browser: FakeBrowser, artifacts: Path
) -> None:
    shows(browser, picture())
    await diff(engine, name="home")
    (artifacts / "baselines" / "home.png").write_bytes(b"not a png")
    with pytest.raises(TabpilotError) as info:
        await diff(engine, name="home")
    assert info.value.code == "invalid_params" and "update_baseline:true" in info.value.message
    assert (await diff(engine, name="home", update_baseline=True))["baseline_updated"] is True
    assert (await diff(engine, name="home"))["match"] is True
