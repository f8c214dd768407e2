// @ts-check
// tab.crop's arithmetic (crop.js): which part of the visible tab to cut out around an element, and
// where the element is in the picture. Boxes are viewport CSS pixels, as the page measured them.

const MARGIN = 48; // CSS pixels of context around the element
const MAX_SIDE = 900;

/** @typedef {{x: number, y: number, width: number, height: number, vw: number, vh: number, dpr: number}} ElementBox */
/** @typedef {{x: number, y: number, width: number, height: number}} Rect */

/** @param {ElementBox} box Whether some of the element is inside the viewport. */
export function isOnScreen(box) {
  return box.x + box.width > 0 && box.y + box.height > 0 && box.x < box.vw && box.y < box.vh;
}

/**
 * Within 1 px: the page did not scroll or move the element, nor resize, between two reads.
 * @param {ElementBox | null} a @param {ElementBox | null} b
 */
export function sameBox(a, b) {
  if (!a || !b || a.dpr !== b.dpr) return false;
  return ["x", "y", "width", "height", "vw", "vh"].every((k) => Math.abs(a[k] - b[k]) <= 1);
}

/**
 * The part of the viewport to keep: the element and MARGIN around it, inside the viewport, at most
 * MAX_SIDE a side, at least 1 px (CSS pixels).
 * @param {ElementBox} box @returns {Rect}
 */
export function cropArea(box) {
  const x = Math.max(0, Math.floor(box.x - MARGIN));
  const y = Math.max(0, Math.floor(box.y - MARGIN));
  const width = Math.max(1, Math.min(MAX_SIDE, Math.ceil(box.width + 2 * MARGIN), box.vw - x));
  const height = Math.max(1, Math.min(MAX_SIDE, Math.ceil(box.height + 2 * MARGIN), box.vh - y));
  return { x, y, width, height };
}

/**
 * Picture pixels per CSS pixel: from the capture's width when there is one (it is what Chrome
 * really gave), else the page's device pixel ratio.
 * @param {number} pictureWidth @param {ElementBox} box
 */
export function pictureScale(pictureWidth, box) {
  return pictureWidth / box.vw || box.dpr || 1;
}

/**
 * Where the element is inside the cut-out picture, in its pixels.
 * @param {ElementBox} box @param {Rect} area @param {number} scale @returns {Rect}
 */
export function boxInPicture(box, area, scale) {
  return {
    x: Math.round((box.x - area.x) * scale),
    y: Math.round((box.y - area.y) * scale),
    width: Math.round(box.width * scale),
    height: Math.round(box.height * scale),
  };
}
