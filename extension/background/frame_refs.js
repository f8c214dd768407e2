// @ts-check
// Selectors that name their frame, pure (tested in node). A ref from a frame's snapshot carries the
// frame (`@f12e5`); the `frame` parameter qualifies any selector the same way (`@f12 >> .pay`). The
// service worker sends the op to that frame with the frame taken out: the page sees `@e5` or `.pay`.

const FRAME_SELECTOR = /^@f(\d+)(?:(e\d+)|\s*>>\s*([\s\S]+))$/;
const FRAME_ONLY = /^@f(\d+)$/;

/**
 * The frame a selector names and the selector inside it: `@f12e5` → 12, `@e5`; `@f12 >> .x` → 12,
 * `.x`; anything else → 0 (the top frame), unchanged.
 * @param {unknown} selector
 * @returns {{frameId: number, selector: any}}
 */
export function splitFrame(selector) {
  if (typeof selector !== "string") return { frameId: 0, selector };
  const m = FRAME_SELECTOR.exec(selector.trim());
  if (!m) return { frameId: 0, selector };
  return { frameId: Number(m[1]), selector: m[2] ? `@${m[2]}` : m[3].trim() };
}

/** A frame's own ref (`@f12`): its id, else null. @param {string} text */
export function frameRef(text) {
  const m = FRAME_ONLY.exec(text.trim());
  return m ? Number(m[1]) : null;
}

/**
 * `selector` as seen from the top: qualified with `frameId` unless it names its frame already.
 * @param {number} frameId @param {string} selector
 */
export function qualify(frameId, selector) {
  const s = selector.trim();
  if (!frameId || s.startsWith("@f")) return s;
  if (/^@e\d+$/.test(s)) return `@f${frameId}${s.slice(1)}`;
  return `@f${frameId} >> ${s}`;
}

/**
 * Whether a frame's URL matches the `frame` parameter taken as a URL pattern: the URL contains it,
 * a star standing for any run of characters (`localhost:*` then `/checkout`).
 * Matched without backtracking: each part between stars is looked for after the previous one's
 * earliest match (the earliest leaves the most room for the rest, so it is the only one to try). A
 * RegExp `.*a.*a…Z` instead backtracked for hours on a URL with 40 a's and froze the service worker.
 * @param {string} url @param {string} pattern
 */
export function urlMatches(url, pattern) {
  const p = pattern.trim();
  if (!p) return false;
  let from = 0;
  for (const part of p.split("*")) {
    const at = url.indexOf(part, from);
    if (at < 0) return false;
    from = at + part.length;
  }
  return true;
}
