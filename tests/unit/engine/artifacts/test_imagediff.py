"""The visual_diff comparison (engine/artifacts/imagediff.py): what counts as changed, where, and the diff image."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFont
from pixelmatch import pixelmatch

from tabpilot.engine.artifacts import imagediff
from tabpilot.engine.artifacts.imagediff import Box, Pixels, compare, decode_png, diff_image, encode_png

WHITE = (255, 255, 255, 255)


def page(
    width: int = 320, height: int = 200, *, text_x: float = 10.0, button: tuple[int, ...] = (30, 90, 200)
) -> Pixels:
    """A small page-like picture: anti-aliased text (drawn 4x larger and scaled down, so that `text_x`
    can move it by a fraction of a pixel, as a browser's text moves) and a flat button."""
    big = Image.new("RGBA", (width * 4, height * 4), WHITE)
    draw = ImageDraw.Draw(big)
    font = ImageFont.load_default(size=56)
    for line in range(4):
        draw.text((round(text_x * 4), 40 + line * 80), f"Quick brown fox {line} jumps", fill=(20, 20, 20), font=font)
    picture = big.resize((width, height), Image.Resampling.BOX)
    ImageDraw.Draw(picture).rectangle((200, 120, 279, 159), fill=button)
    return imagediff.rgba(picture)


def test_identical_pictures_are_a_full_match() -> None:
    diff = compare(page(), page())
    assert (diff.diff_pixels, diff.aa_pixels, diff.similarity, diff.regions) == (0, 0, 1.0, ())
    assert not diff.sizes_differ and diff.total_pixels == 320 * 200


def test_a_changed_rectangle_is_exactly_the_changed_pixels_and_its_region() -> None:
    diff = compare(page(), page(button=(200, 40, 40)))
    ys, xs = np.nonzero(diff.changed)
    assert diff.diff_pixels == 80 * 40 == ys.size
    assert (xs.min(), xs.max(), ys.min(), ys.max()) == (200, 279, 120, 159)
    assert diff.regions == (Box(200, 120, 80, 40),)
    assert diff.similarity == pytest.approx(1 - 3200 / 64000, abs=1e-6)
    assert diff.similarity < 1.0


def test_changes_far_apart_are_separate_regions_largest_first() -> None:
    before = page()
    after = before.copy()
    after[150:160, 10:20] = (0, 200, 0, 255)
    after[20:60, 250:300] = (0, 0, 0, 255)
    diff = compare(before, after)
    assert diff.regions == (Box(250, 20, 50, 40), Box(10, 150, 10, 10))


def test_threshold_is_the_colour_distance_a_pixel_may_move_unnoticed() -> None:
    before = np.full((10, 10, 4), 255, dtype=np.uint8)
    after = before.copy()
    after[2:4, 2:4, :3] = 245  # a faint grey on white
    assert compare(before, after, threshold=0).diff_pixels == 4
    assert compare(before, after, threshold=0.1).diff_pixels == 0  # pixelmatch's default ignores it
    after[2:4, 2:4, :3] = 0
    assert compare(before, after, threshold=0.9).diff_pixels == 4
    assert compare(before, after, threshold=1).diff_pixels == 0
    with pytest.raises(ValueError, match="threshold"):
        compare(before, after, threshold=1.5)


def test_anti_aliasing_of_text_moved_by_a_fraction_of_a_pixel_is_told_apart() -> None:
    before, after = page(), page(text_x=10.25)
    tolerant = compare(before, after)
    strict = compare(before, after, include_aa=True)
    assert tolerant.aa_pixels > 0
    assert strict.aa_pixels == 0
    assert tolerant.diff_pixels + tolerant.aa_pixels == strict.diff_pixels
    assert tolerant.diff_pixels < strict.diff_pixels / 2


def _pixelmatch(before: Pixels, after: Pixels, threshold: float, include_aa: bool) -> int:
    height, width = before.shape[:2]
    flat_before, flat_after = before.ravel().tolist(), after.ravel().tolist()
    return int(pixelmatch(flat_before, flat_after, width, height, threshold=threshold, includeAA=include_aa))


@pytest.mark.parametrize("include_aa", [False, True])
@pytest.mark.parametrize("threshold", [0.0, 0.1, 0.3])
def test_counts_as_pixelmatch_counts(threshold: float, include_aa: bool) -> None:
    """The numpy version gives pixelmatch's own answer (its Python port, a loop per pixel, as reference)
    on anti-aliased text, on few-colour noise full of edge cases, and on translucent pixels."""
    rng = np.random.default_rng(12)
    text = (page(120, 40), page(120, 40, text_x=10.6))
    palette = np.array([[255, 255, 255, 255], [0, 0, 0, 255], [128, 128, 128, 255], [200, 30, 30, 128]], np.uint8)
    noise = (palette[rng.integers(0, 4, (30, 30))], palette[rng.integers(0, 4, (30, 30))])
    patched = noise[0].copy()  # changes in the middle only: anti-aliasing looks at their surroundings
    patched[10:20, 12:22] = noise[1][10:20, 12:22]
    for before, after in (text, noise, (noise[0], patched)):
        mine = compare(before, after, threshold=threshold, include_aa=include_aa)
        assert mine.diff_pixels == _pixelmatch(before, after, threshold, include_aa)


def test_pictures_of_different_sizes_compare_what_they_share_and_say_so() -> None:
    before = page(320, 200)
    taller = np.concatenate([before, np.full((40, 320, 4), 255, np.uint8)])
    diff = compare(before, taller)
    assert diff.sizes_differ
    assert (diff.width, diff.height) == (320, 240)
    assert diff.diff_pixels == 320 * 40  # the part only one picture has
    assert diff.regions == (Box(0, 200, 320, 40),)
    narrower = compare(before, before[:, :300])
    assert narrower.sizes_differ and narrower.diff_pixels == 20 * 200


def test_the_diff_image_marks_changes_red_over_the_greyed_page_with_a_box() -> None:
    current = page(button=(200, 40, 40))
    diff = compare(page(), current)
    drawn = diff_image(current, diff)
    assert drawn.shape == (200, 320, 4)
    red = np.all(drawn[..., :3] == imagediff.CHANGED, axis=-1)
    assert np.array_equal(red, diff.changed)
    boxed = np.all(drawn[..., :3] == imagediff.BOX, axis=-1)
    ys, xs = np.nonzero(boxed)
    assert (xs.min(), xs.max(), ys.min(), ys.max()) == (196, 283, 116, 163)  # 2 px clear of the change
    rest = drawn[~(red | boxed)]
    assert np.all(rest[:, 0] == rest[:, 1]) and np.all(rest[:, 1] == rest[:, 2])  # grey
    assert rest[:, 0].min() >= 255 - 255 * imagediff.FADE_PERCENT // 100  # faded: the marks stand out
    assert np.array_equal(decode_png(encode_png(drawn)), drawn)


def test_a_large_capture_diffs_in_well_under_the_budget() -> None:
    """1280x720 with one element changed (bench/bench_visual_diff.py measures it properly)."""
    import time

    before = np.full((720, 1280, 4), 255, np.uint8)
    after = before.copy()
    after[100:300, 700:900] = (200, 30, 30, 255)
    started = time.perf_counter()
    diff = compare(before, after)
    diff_image(after, diff)
    assert diff.diff_pixels == 200 * 200
    assert time.perf_counter() - started < 1.0  # a generous ceiling on a busy machine
