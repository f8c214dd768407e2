"""Comparing two pictures of a page (visual_diff): which pixels changed, how much, and where.

The measure is pixelmatch's (github.com/mapbox/pixelmatch, the comparator Playwright's
`toHaveScreenshot` uses), done with numpy over whole arrays rather than a loop per pixel:

- Two pixels differ when their colour distance in YIQ space (alpha blended over white) is above
  `threshold` squared times the largest possible distance: `threshold` 0 counts any change, 0.1 (the default)
  ignores what the eye hardly sees, 1 counts nothing.
- A differing pixel counts as anti-aliasing (and not as changed, unless `include_aa`) when, in either
  picture, it lies between a darker and a brighter neighbour, has at most two neighbours of its own
  brightness, and that darkest or brightest neighbour sits in a flat area (three or more identical
  neighbours) in both pictures: the smoothing at the edge of text or a shape that moved by a fraction of
  a pixel, not a real change.

Only the pixels whose bytes differ are examined further, so a nearly identical pair costs little.
Pictures of different sizes are compared over the area they share; the rest of the larger one counts as
changed, and `sizes_differ` says so.
"""

from __future__ import annotations

import io
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from PIL import Image

Pixels = npt.NDArray[np.uint8]
"""A picture as an (height, width, 4) RGBA array."""

MAX_YIQ_DELTA = 35215.0
"""The YIQ distance between black and white: the scale `threshold` is a fraction of (squared)."""
# Float64 as pixelmatch's JavaScript numbers: the same pixels land on either side of the threshold.
_Y = np.array([0.29889531, 0.58662247, 0.11448223])
_I = np.array([0.59597799, -0.27417610, -0.32180189])
_Q = np.array([0.21147017, -0.52261711, 0.31114694])
# The eight neighbours in pixelmatch's order (x outer, y inner): its ties go to the first one met.
_NEIGHBOURS = np.array([(dx, dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1) if (dx, dy) != (0, 0)], dtype=np.intp)

CHANGED = (255, 0, 0)
"""Changed pixels in the diff image."""
ANTI_ALIASED = (255, 210, 0)
"""Pixels that differ only by anti-aliasing."""
BOX = (255, 0, 255)
"""The outline around each changed region."""
FADE_PERCENT = 30
"""How much of the current picture shows (greyed) under the marks: enough to tell where things are."""
CELL = 16
"""Changes closer than about this many pixels are boxed as one region."""
BOX_MARGIN = 2
"""The clear pixels between a region and its outline."""
BOX_WIDTH = 2


@dataclass(frozen=True)
class Box:
    x: int
    y: int
    width: int
    height: int


@dataclass(frozen=True)
class Diff:
    width: int
    height: int
    """The compared area: both pictures' (the larger of each when their sizes differ)."""
    diff_pixels: int
    aa_pixels: int
    """Pixels that differ only by anti-aliasing (not in diff_pixels unless include_aa)."""
    regions: tuple[Box, ...]
    """Changed areas, largest first, in the pictures' pixels."""
    sizes_differ: bool
    changed: npt.NDArray[np.bool_]
    anti_aliased: npt.NDArray[np.bool_]

    @property
    def total_pixels(self) -> int:
        return self.width * self.height

    @property
    def similarity(self) -> float:
        """1 minus the changed share, rounded down (so any change is below 1.0)."""
        if self.total_pixels == 0:
            return 1.0
        share = 1.0 - self.diff_pixels / self.total_pixels
        return float(np.floor(share * 1e6) / 1e6)


def rgba(picture: Image.Image) -> Pixels:
    return np.asarray(picture.convert("RGBA"), dtype=np.uint8)


def decode_png(data: bytes) -> Pixels:
    with Image.open(io.BytesIO(data)) as picture:
        return rgba(picture)


def encode_png(pixels: Pixels) -> bytes:
    out = io.BytesIO()
    # Diff images are mostly flat grey: the fastest compression is nearly as small and several times quicker.
    Image.fromarray(pixels, "RGBA").save(out, "PNG", compress_level=1)
    return out.getvalue()


def compare(baseline: Pixels, current: Pixels, *, threshold: float = 0.1, include_aa: bool = False) -> Diff:
    """Which pixels of `current` differ from `baseline` (see the module's doc)."""
    if not 0.0 <= threshold <= 1.0:
        raise ValueError("threshold is between 0 and 1")
    bh, bw = baseline.shape[:2]
    ch, cw = current.shape[:2]
    height, width = max(bh, ch), max(bw, cw)
    oh, ow = min(bh, ch), min(bw, cw)
    a = np.ascontiguousarray(baseline[:oh, :ow])
    b = np.ascontiguousarray(current[:oh, :ow])
    changed = np.ones((height, width), dtype=np.bool_)  # outside the shared area: changed
    anti_aliased = np.zeros((height, width), dtype=np.bool_)
    shared_changed, shared_aa = _compare_same_size(a, b, threshold, include_aa)
    changed[:oh, :ow] = shared_changed
    anti_aliased[:oh, :ow] = shared_aa
    diff_pixels = int(np.count_nonzero(changed))
    return Diff(
        width=width,
        height=height,
        diff_pixels=diff_pixels,
        aa_pixels=int(np.count_nonzero(anti_aliased)),
        regions=regions(changed) if diff_pixels else (),
        sizes_differ=(bh, bw) != (ch, cw),
        changed=changed,
        anti_aliased=anti_aliased,
    )


def _compare_same_size(
    a: Pixels, b: Pixels, threshold: float, include_aa: bool
) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.bool_]]:
    height, width = a.shape[:2]
    changed = np.zeros((height, width), dtype=np.bool_)
    anti_aliased = np.zeros((height, width), dtype=np.bool_)
    if a.size == 0:
        return changed, anti_aliased
    a32 = a.view(_RGBA32)[..., 0]
    b32 = b.view(_RGBA32)[..., 0]
    ys, xs = np.nonzero(a32 != b32)
    if ys.size == 0:
        return changed, anti_aliased
    over = _yiq_delta(a32[ys, xs], b32[ys, xs]) > MAX_YIQ_DELTA * threshold * threshold
    ys, xs = ys[over], xs[over]
    if not include_aa and ys.size:
        # Anti-aliasing looks two pixels around a changed one at most: only that window is examined.
        y0, x0 = max(int(ys.min()) - 2, 0), max(int(xs.min()) - 2, 0)
        y1, x1 = int(ys.max()) + 3, int(xs.max()) + 3
        frame = _Framed(a32[y0:y1, x0:x1], b32[y0:y1, x0:x1])
        at = frame.index(ys - y0, xs - x0)
        aa = frame.antialiased(frame.a, frame.b, at)
        rest = np.flatnonzero(~aa)
        aa[rest] = frame.antialiased(frame.b, frame.a, at[rest])
        anti_aliased[ys[aa], xs[aa]] = True
        ys, xs = ys[~aa], xs[~aa]
    changed[ys, xs] = True
    return changed, anti_aliased


_RGBA32 = np.dtype("<u4")
"""A pixel's four bytes R, G, B, A as one little-endian number: R in the low byte."""

Flat = npt.NDArray[np.uint32]
Index = npt.NDArray[np.intp]


def _rgb_over_white(v: Flat) -> tuple[npt.NDArray[np.float64], ...]:
    """R, G, B of packed pixels blended over white by their alpha, as pixelmatch sees a pixel."""
    alpha = (v >> 24).astype(np.float64) / 255.0
    return tuple(255.0 + (((v >> shift) & 0xFF).astype(np.float64) - 255.0) * alpha for shift in (0, 8, 16))


def _brightness(v: Flat) -> npt.NDArray[np.float64]:
    r, g, b = _rgb_over_white(v)
    return np.asarray(r * _Y[0] + g * _Y[1] + b * _Y[2], dtype=np.float64)


def _yiq_delta(p: Flat, q: Flat) -> npt.NDArray[np.float64]:
    """pixelmatch's squared YIQ distance between pixels p and q (0 to MAX_YIQ_DELTA)."""
    (r1, g1, b1), (r2, g2, b2) = _rgb_over_white(p), _rgb_over_white(q)
    y = (r1 * _Y[0] + g1 * _Y[1] + b1 * _Y[2]) - (r2 * _Y[0] + g2 * _Y[1] + b2 * _Y[2])
    i = (r1 * _I[0] + g1 * _I[1] + b1 * _I[2]) - (r2 * _I[0] + g2 * _I[1] + b2 * _I[2])
    q_ = (r1 * _Q[0] + g1 * _Q[1] + b1 * _Q[2]) - (r2 * _Q[0] + g2 * _Q[1] + b2 * _Q[2])
    return np.asarray(0.5053 * y * y + 0.299 * i * i + 0.1957 * q_ * q_, dtype=np.float64)


class _Framed:
    """Both pictures, flattened inside a one-pixel frame: a pixel's eight neighbours are its index plus
    fixed offsets (no bounds arithmetic per pixel); `inside` tells the frame from the picture."""

    def __init__(self, a32: npt.NDArray[np.uint32], b32: npt.NDArray[np.uint32]) -> None:
        height, width = a32.shape
        self.stride = width + 2
        self.a = self._framed(a32)
        self.b = self._framed(b32)
        inside = np.zeros((height + 2, width + 2), dtype=np.bool_)
        inside[1:-1, 1:-1] = True
        self.inside = inside.ravel()
        self.offsets = np.array([dy * self.stride + dx for dx, dy in _NEIGHBOURS], dtype=np.intp)

    def _framed(self, pixels: npt.NDArray[np.uint32]) -> Flat:
        framed = np.zeros((pixels.shape[0] + 2, pixels.shape[1] + 2), dtype=np.uint32)
        framed[1:-1, 1:-1] = pixels
        return framed.ravel()

    def index(self, ys: Index, xs: Index) -> Index:
        return np.asarray((ys + 1) * self.stride + (xs + 1), dtype=np.intp)

    def _around(self, at: Index) -> tuple[Index, npt.NDArray[np.bool_], Index]:
        """Each pixel's neighbours, which of them are in the picture, and 1 for a pixel on the picture's
        border (pixelmatch counts the border as one like neighbour)."""
        near = at[:, None] + self.offsets[None, :]
        inside = self.inside[near]
        return near, inside, (~inside.all(axis=1)).astype(np.intp)

    def antialiased(self, own: Flat, other: Flat, at: Index) -> npt.NDArray[np.bool_]:
        """pixelmatch's `antialiased()` for many pixels of `own` at once."""
        found = np.zeros(at.size, dtype=np.bool_)
        # Three identical neighbours already rule it out (a pixel inside a flat area, most of a changed
        # block): an integer comparison spares those the brightness arithmetic.
        open_ = np.flatnonzero(~self._many_siblings(own, at))
        near, inside, border = self._around(at[open_])
        delta = np.where(inside, _brightness(own[at[open_]])[:, None] - _brightness(own[near]), 0.0)
        # Neighbours of the same brightness (identical ones among them) are pixelmatch's "zeroes".
        zeroes = border + np.count_nonzero(inside & (delta == 0), axis=1)
        maybe = np.flatnonzero((zeroes <= 2) & (delta.min(axis=1, initial=0) < 0) & (delta.max(axis=1, initial=0) > 0))
        if maybe.size == 0:
            return found
        rows, delta, near, maybe = np.arange(maybe.size), delta[maybe], near[maybe], open_[maybe]
        darkest, brightest = near[rows, delta.argmin(axis=1)], near[rows, delta.argmax(axis=1)]
        flat_dark = self._many_siblings(own, darkest) & self._many_siblings(other, darkest)
        flat_bright = self._many_siblings(own, brightest) & self._many_siblings(other, brightest)
        found[maybe] = flat_dark | flat_bright
        return found

    def _many_siblings(self, picture: Flat, at: Index) -> npt.NDArray[np.bool_]:
        """More than two neighbours of exactly the pixel's colour (the border counting as one)."""
        near, inside, border = self._around(at)
        same = inside & (picture[near] == picture[at][:, None])
        return np.asarray(border + np.count_nonzero(same, axis=1) > 2, dtype=np.bool_)


def regions(changed: npt.NDArray[np.bool_]) -> tuple[Box, ...]:
    """The changed areas: changes within about CELL pixels of each other form one box, the box hugging
    its changed pixels. Grouping works on a grid of CELL-by-CELL cells (a few thousand), not on pixels."""
    height, width = changed.shape
    rows, cols = -(-height // CELL), -(-width // CELL)
    padded = np.zeros((rows * CELL, cols * CELL), dtype=np.bool_)
    padded[:height, :width] = changed
    cells = np.asarray(padded.reshape(rows, CELL, cols, CELL).any(axis=(1, 3)), dtype=np.bool_)
    boxes = []
    for group in _groups(cells):
        r0, c0, r1, c1 = group
        area = changed[r0 * CELL : (r1 + 1) * CELL, c0 * CELL : (c1 + 1) * CELL]
        ys = np.flatnonzero(area.any(axis=1))
        xs = np.flatnonzero(area.any(axis=0))
        x, y = c0 * CELL + int(xs[0]), r0 * CELL + int(ys[0])
        boxes.append(Box(x, y, int(xs[-1] - xs[0]) + 1, int(ys[-1] - ys[0]) + 1))
    return tuple(sorted(boxes, key=lambda box: (-box.width * box.height, box.y, box.x)))


def _groups(cells: npt.NDArray[np.bool_]) -> list[tuple[int, int, int, int]]:
    """(first row, first col, last row, last col) of each 8-connected group of marked cells."""
    todo = {(int(r), int(c)) for r, c in zip(*np.nonzero(cells), strict=True)}
    found = []
    while todo:
        start = todo.pop()
        stack = [start]
        r0 = r1 = start[0]
        c0 = c1 = start[1]
        while stack:
            r, c = stack.pop()
            r0, r1, c0, c1 = min(r0, r), max(r1, r), min(c0, c), max(c1, c)
            for dr in (-1, 0, 1):
                for dc in (-1, 0, 1):
                    near = (r + dr, c + dc)
                    if near in todo:
                        todo.remove(near)
                        stack.append(near)
        found.append((r0, c0, r1, c1))
    return found


def diff_image(current: Pixels, diff: Diff) -> Pixels:
    """The current picture greyed and faded, changed pixels in red, anti-aliasing in yellow, and a
    magenta box around each changed region."""
    canvas = np.full((diff.height, diff.width, 4), 255, dtype=np.uint8)
    h, w = current.shape[:2]
    grey = Image.fromarray(current, "RGBA").convert("L").point(_FADED)
    canvas[:h, :w, :3] = np.asarray(grey, dtype=np.uint8)[..., None]
    canvas[diff.anti_aliased, :3] = ANTI_ALIASED
    canvas[diff.changed, :3] = CHANGED
    for box in diff.regions:
        _outline(canvas, box)
    return canvas


_FADED = [255 - (255 - level) * FADE_PERCENT // 100 for level in range(256)]
"""Grey levels faded toward white (a lookup table: Pillow applies it in C)."""


def _outline(canvas: Pixels, box: Box) -> None:
    """A BOX_WIDTH outline BOX_MARGIN pixels clear of `box` (cut where the picture ends)."""
    height, width = canvas.shape[:2]
    gap = BOX_MARGIN + BOX_WIDTH
    left, top = box.x - gap, box.y - gap
    right, bottom = box.x + box.width + gap, box.y + box.height + gap  # exclusive
    x0, x1 = max(left, 0), min(right, width)
    y0, y1 = max(top, 0), min(bottom, height)
    for ys, xs in (
        (slice(max(top, 0), max(top + BOX_WIDTH, 0)), slice(x0, x1)),
        (slice(min(bottom - BOX_WIDTH, height), min(bottom, height)), slice(x0, x1)),
        (slice(y0, y1), slice(max(left, 0), max(left + BOX_WIDTH, 0))),
        (slice(y0, y1), slice(min(right - BOX_WIDTH, width), min(right, width))),
    ):
        canvas[ys, xs, :3] = BOX
