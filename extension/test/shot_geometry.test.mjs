import assert from "node:assert/strict";
import { test } from "node:test";

import { MAX_PIXELS, beyondViewport, capNote, capped, imageSize, readClip, withinPage } from "../background/shot_geometry.js";

test("a clip is four numbers with a positive size; anything else says what is wrong", () => {
  assert.deepEqual(readClip({ x: 1, y: 2, width: 3, height: 4 }), { x: 1, y: 2, width: 3, height: 4 });
  assert.match(String(readClip([1, 2, 3, 4])), /must be an object/);
  assert.match(String(readClip({ x: 1, y: 2, width: "3", height: 4 })), /'clip.width' must be a number/);
  assert.match(String(readClip({ x: 1, y: 2, width: 0, height: 4 })), /more than 0/);
});

test("a clip is cut to the page; one wholly outside it leaves nothing", () => {
  const page = { width: 1000, height: 2000 };
  assert.deepEqual(withinPage({ x: -10, y: 1900, width: 100, height: 300 }, page), { x: 0, y: 1900, width: 90, height: 100 });
  assert.equal(withinPage({ x: 1200, y: 0, width: 10, height: 10 }, page), null);
});

test("an area past the viewport (document coordinates) needs a capture beyond it", () => {
  const view = { x: 0, y: 500, width: 800, height: 600 };
  assert.equal(beyondViewport({ x: 10, y: 600, width: 100, height: 100 }, view), false);
  assert.equal(beyondViewport({ x: 10, y: 1050, width: 100, height: 100 }, view), true);
  assert.equal(beyondViewport({ x: 10, y: 400, width: 100, height: 100 }, view), true);
  assert.equal(beyondViewport({ x: 0, y: 500.3, width: 800.2, height: 600 }, view), false); // sub-pixel edge
});

test("a picture taller than the cap is cut there, in its own pixels (device scale and scale included)", () => {
  const tall = { x: 0, y: 0, width: 1280, height: 60000 };
  assert.deepEqual(capped(tall, 1), { area: { x: 0, y: 0, width: 1280, height: MAX_PIXELS }, cut: true });
  assert.deepEqual(capped(tall, 2).area.height, MAX_PIXELS / 2);
  assert.deepEqual(capped({ x: 0, y: 0, width: 800, height: 600 }, 3), { area: { x: 0, y: 0, width: 800, height: 600 }, cut: false });
  const note = capNote(tall, capped(tall, 1).area);
  assert.match(note, /Capped at 16384 px/);
  assert.match(note, /clip \{x:0, y:16384, width:1280, height:16384\}/);
});

test("a PNG's and a JPEG's size come from their headers", () => {
  const png = Buffer.alloc(33);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(png, 0);
  png.writeUInt32BE(13, 8);
  png.write("IHDR", 12);
  png.writeUInt32BE(1125, 16);
  png.writeUInt32BE(2436, 20);
  assert.deepEqual(imageSize(png.toString("base64")), { width: 1125, height: 2436 });
  // SOI, an APP0 segment of 16 bytes, then SOF0 with height 600 and width 800
  const app0 = [0xff, 0xe0, 0x00, 0x10, ...new Array(14).fill(0)];
  const sof0 = [0xff, 0xc0, 0x00, 0x11, 0x08, 0x02, 0x58, 0x03, 0x20, 0x03, 0, 0, 0];
  const jpeg = Buffer.from([0xff, 0xd8, ...app0, ...sof0, 0, 0, 0, 0]);
  assert.deepEqual(imageSize(jpeg.toString("base64")), { width: 800, height: 600 });
  assert.equal(imageSize(Buffer.from("GIF89a and more bytes here").toString("base64")), null);
});
