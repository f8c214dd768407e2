import assert from "node:assert/strict";
import { test } from "node:test";

import { boxInPicture, cropArea, isOnScreen, pictureScale, sameBox } from "../background/crop_geometry.js";

const VIEW = { vw: 1280, vh: 720, dpr: 1 };
const box = (x, y, width, height, more = {}) => ({ x, y, width, height, ...VIEW, ...more });

test("the area is the element with 48 px around it", () => {
  assert.deepEqual(cropArea(box(200, 100, 120, 40.5)), { x: 152, y: 52, width: 216, height: 137 });
});

test("the area stays inside the viewport", () => {
  assert.deepEqual(cropArea(box(10, 20, 100, 30)), { x: 0, y: 0, width: 196, height: 126 });
  assert.deepEqual(cropArea(box(1250, 700, 100, 100)), { x: 1202, y: 652, width: 78, height: 68 });
});

test("a large element is cut to 900 px a side, a degenerate one kept at 1 px", () => {
  assert.deepEqual(cropArea(box(100, 100, 2000, 2000, { vw: 4000, vh: 4000 })), { x: 52, y: 52, width: 900, height: 900 });
  assert.deepEqual(cropArea(box(1400, 800, 10, 10)), { x: 1352, y: 752, width: 1, height: 1 });
});

test("on screen means some of it is inside the viewport", () => {
  assert.equal(isOnScreen(box(0, 0, 10, 10)), true);
  assert.equal(isOnScreen(box(-5, -5, 10, 10)), true);
  assert.equal(isOnScreen(box(-10, 0, 10, 10)), false);
  assert.equal(isOnScreen(box(0, 720, 10, 10)), false);
  assert.equal(isOnScreen(box(1279, 719, 10, 10)), true);
});

test("the same box means within 1 px everywhere and the same pixel ratio", () => {
  assert.equal(sameBox(box(10, 10, 50, 50), box(10.9, 9.2, 50, 51)), true);
  assert.equal(sameBox(box(10, 10, 50, 50), box(12, 10, 50, 50)), false);
  assert.equal(sameBox(box(10, 10, 50, 50), box(10, 10, 50, 50, { vh: 700 })), false);
  assert.equal(sameBox(box(10, 10, 50, 50), box(10, 10, 50, 50, { dpr: 2 })), false);
  assert.equal(sameBox(null, box(10, 10, 50, 50)), false);
});

test("the scale comes from the picture, else the pixel ratio", () => {
  assert.equal(pictureScale(2560, box(0, 0, 1, 1)), 2);
  assert.equal(pictureScale(0, box(0, 0, 1, 1, { dpr: 1.5 })), 1.5);
});

test("the element's place in the picture is in picture pixels", () => {
  const element = box(200, 100, 120, 40);
  assert.deepEqual(boxInPicture(element, cropArea(element), 2), { x: 96, y: 96, width: 240, height: 80 });
  const atEdge = box(10, 20, 100, 30);
  assert.deepEqual(boxInPicture(atEdge, cropArea(atEdge), 1), { x: 10, y: 20, width: 100, height: 30 });
});
