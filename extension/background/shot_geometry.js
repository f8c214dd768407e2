// @ts-check
// tab.screenshot's arithmetic (screenshot.js): which part of the page to capture, whether it reaches
// past the viewport, how far it must be cut so Chrome can draw it, and the picture's pixel size as
// its own header says. Areas are CSS pixels from the page's top-left (document coordinates).

/**
 * The tallest (and widest) picture taken, in its own pixels. Chrome draws a capture as one GPU
 * texture, and textures stop at 16384 px a side on most GPUs: past that a capture comes back blank or
 * torn, or fails. A taller page is cut here and the answer says how to get the rest (a clip).
 */
export const MAX_PIXELS = 16384;

/** @typedef {{x: number, y: number, width: number, height: number}} Rect */

/**
 * A clip as given (an agent's object): the rectangle, or an error message.
 * @param {unknown} clip @returns {Rect | string}
 */
export function readClip(clip) {
  if (!clip || typeof clip !== "object" || Array.isArray(clip)) return "'clip' must be an object {x, y, width, height} in CSS pixels.";
  const c = /** @type {Record<string, unknown>} */ (clip);
  for (const key of ["x", "y", "width", "height"]) {
    if (typeof c[key] !== "number" || !Number.isFinite(c[key])) return `'clip.${key}' must be a number (CSS pixels).`;
  }
  const rect = { x: Number(c.x), y: Number(c.y), width: Number(c.width), height: Number(c.height) };
  if (rect.width <= 0 || rect.height <= 0) return "'clip.width' and 'clip.height' must be more than 0.";
  return rect;
}

/**
 * `area` cut to the page (`page`: its content size, from 0,0): what is left, or null when nothing is.
 * @param {Rect} area @param {{width: number, height: number}} page @returns {Rect | null}
 */
export function withinPage(area, page) {
  const x = Math.max(0, area.x);
  const y = Math.max(0, area.y);
  const right = Math.min(page.width, area.x + area.width);
  const bottom = Math.min(page.height, area.y + area.height);
  if (right - x < 1 || bottom - y < 1) return null;
  return { x, y, width: right - x, height: bottom - y };
}

/**
 * Whether `area` reaches outside the visible viewport `view` (both document coordinates): then the
 * capture must draw beyond it (captureBeyondViewport).
 * @param {Rect} area @param {Rect} view
 */
export function beyondViewport(area, view) {
  const slack = 0.5; // sub-pixel boxes at the viewport's edge are inside it
  return (
    area.x < view.x - slack ||
    area.y < view.y - slack ||
    area.x + area.width > view.x + view.width + slack ||
    area.y + area.height > view.y + view.height + slack
  );
}

/**
 * `area` cut so that its picture (CSS px × `ratio` image pixels per CSS px) stays within MAX_PIXELS a
 * side; `cut` says whether it was.
 * @param {Rect} area @param {number} ratio @returns {{area: Rect, cut: boolean}}
 */
export function capped(area, ratio, max = MAX_PIXELS) {
  const most = Math.floor(max / ratio);
  const width = Math.min(area.width, most);
  const height = Math.min(area.height, most);
  return { area: { ...area, width, height }, cut: width < area.width || height < area.height };
}

/**
 * The note for a capture cut at MAX_PIXELS: how much was left out, and the clip that shows the next part.
 * @param {Rect} wanted @param {Rect} taken
 */
export function capNote(wanted, taken) {
  const next = Math.round(taken.y + taken.height);
  const rest = Math.round(wanted.y + wanted.height - next);
  const parts = [
    `Capped at ${MAX_PIXELS} px a side (Chrome cannot draw a taller picture in one piece): this shows CSS px ` +
      `${Math.round(taken.x)},${Math.round(taken.y)} to ${Math.round(taken.x + taken.width)},${next} of ` +
      `${Math.round(wanted.width)}x${Math.round(wanted.height)}.`,
  ];
  if (rest > 0) {
    parts.push(
      `For the rest take clip {x:${Math.round(taken.x)}, y:${next}, width:${Math.round(taken.width)}, height:${Math.min(rest, Math.round(taken.height))}}` +
        " (and so on down), or a smaller scale.",
    );
  } else {
    parts.push("For the rest take a clip further right, or a smaller scale.");
  }
  return parts.join(" ");
}

/**
 * The first bytes of a base64 text, decoded.
 * @param {string} data @param {number} bytes
 */
function head(data, bytes) {
  const chars = Math.min(data.length, Math.ceil(bytes / 3) * 4);
  const text = atob(data.slice(0, chars - (chars % 4)));
  return Uint8Array.from(text, (c) => c.charCodeAt(0));
}

/**
 * A PNG's or JPEG's pixel size, read from its header (base64), or null when it is neither.
 * @param {string} data @returns {{width: number, height: number} | null}
 */
export function imageSize(data) {
  const png = head(data, 24);
  if (png.length >= 24 && png[0] === 0x89 && png[1] === 0x50 && png[2] === 0x4e && png[3] === 0x47) {
    const view = new DataView(png.buffer);
    return { width: view.getUint32(16), height: view.getUint32(20) };
  }
  if (png[0] !== 0xff || png[1] !== 0xd8) return null;
  // A JPEG: walk its segments to the frame header (SOF0-SOF15, except DHT, JPG and DAC), which has the size.
  const jpeg = head(data, 256 * 1024);
  for (let at = 2; at + 9 < jpeg.length; ) {
    if (jpeg[at] !== 0xff) return null;
    const marker = jpeg[at + 1];
    if (marker === 0xff) {
      at++;
      continue;
    }
    const length = (jpeg[at + 2] << 8) | jpeg[at + 3];
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return { height: (jpeg[at + 5] << 8) | jpeg[at + 6], width: (jpeg[at + 7] << 8) | jpeg[at + 8] };
    }
    at += 2 + length;
  }
  return null;
}
