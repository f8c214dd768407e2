// @ts-check
// Frames: which frame the `frame` parameter names, where a frame's viewport sits in the tab's (for
// trusted clicks, whose coordinates are the top frame's), and the dispatch step that qualifies an
// op's selector with its frame so that every element op reaches into frames the same way.
import { closedFrame, closedKind, closedPage, emptyRead } from "./closed_pages.js";
import { askPage, evalInFrame, frameGone, unwrap } from "./content.js";
import * as ext from "./ext.js";
import { frameRef, qualify, splitFrame, urlMatches } from "./frame_refs.js";
import { Codes, TPError } from "./protocol.js";
import { targetTab } from "./tabs.js";

/** In a child frame: its index among its parent's frames (`parent.frames`), -1 when it is the top. */
// Runs in the frame (executeScript): `self` is its window.
function ownIndex() {
  const parent = self.parent;
  if (parent === self) return -1;
  for (let i = 0; i < parent.frames.length; i++) if (parent.frames[i] === self) return i;
  return -1;
}

/** The child frames of frame `parentId` by their index in its `window.frames` (content/locate.js's frameIndexOf). */
export async function childFrames(tabId, parentId) {
  const frames = (await ext.webNavigation.getAllFrames({ tabId })) ?? [];
  const kids = frames.filter((f) => f.parentFrameId === parentId);
  const pairs = await Promise.all(
    kids.map(async (f) => {
      try {
        return [await evalInFrame(tabId, f.frameId, ownIndex), f.frameId];
      } catch {
        return [-1, f.frameId]; // a frame the extension may not enter
      }
    }),
  );
  /** @type {Map<number, number>} */
  const byIndex = new Map();
  for (const [index, frameId] of pairs) if (Number.isInteger(index) && index >= 0) byIndex.set(index, frameId);
  return byIndex;
}

/**
 * The frame `target` names: a frame ref (`@f12`), a selector or ref of an <iframe> (`#pay`, `@e7`,
 * `@f3e2` for an iframe inside frame 3), a frame's name or id, or a URL pattern (`stripe.com`,
 * `https://pay.example/*`), tried in that order.
 * @param {number} tabId @param {string} target
 */
export async function locateFrame(tabId, target) {
  const text = String(target).trim();
  const direct = frameRef(text);
  if (direct !== null) return direct;
  const { frameId: holder, selector } = splitFrame(text);
  let reply;
  try {
    reply = await askPage(tabId, "frame.locate", { target: selector }, holder);
  } catch {
    if (holder) throw frameGone(holder, text);
    reply = undefined;
  }
  if (reply?.error) unwrap(reply);
  const index = reply?.data?.index;
  if (Number.isInteger(index)) {
    const frameId = (await childFrames(tabId, holder)).get(index);
    if (frameId !== undefined) return frameId;
  }
  const frames = (await ext.webNavigation.getAllFrames({ tabId })) ?? [];
  const match = frames.find((f) => f.frameId !== 0 && urlMatches(f.url, text));
  if (match) return match.frameId;
  throw new TPError(
    Codes.ELEMENT_NOT_FOUND,
    `No frame matches '${text}' (tried as a selector or ref of an <iframe>, a frame's name, and a URL pattern).`,
    { frame: text },
  );
}

/**
 * Where the viewport of frame `frameId` starts in the tab's viewport (CSS pixels): the sum of the
 * iframe elements' content boxes up the chain of parents.
 * @param {number} tabId @param {number} frameId
 */
export async function frameOrigin(tabId, frameId) {
  let x = 0;
  let y = 0;
  for (let id = frameId; id > 0; ) {
    const info = await ext.webNavigation.getFrame({ tabId, frameId: id });
    if (!info) throw frameGone(frameId, `@f${frameId}`);
    let index;
    try {
      index = await evalInFrame(tabId, id, ownIndex);
    } catch {
      throw frameGone(frameId, `@f${frameId}`);
    }
    const reply = await askPage(tabId, "frame.offset", { index }, info.parentFrameId);
    const at = reply ? unwrap(reply) : null;
    if (!at?.found) throw frameGone(frameId, `@f${frameId}`);
    x += at.x;
    y += at.y;
    id = info.parentFrameId;
  }
  return { x, y };
}

/** The parameters that hold a selector: all of an op's are in the one frame `frame` names (a drag's drop
 * target is in its source's frame, a next-page control in its rows'). */
const SELECTOR_KEYS = ["selector", "target", "next_selector", "rows_selector"];

/**
 * Dispatch's step for the `frame` parameter: an op with a selector gets it qualified with the frame
 * (`@f12 >> .pay`), which every content op then follows; an op without one (dom.snapshot) reads
 * `frame` itself.
 */
export async function withFrame(params) {
  const frame = params.frame;
  const keys = SELECTOR_KEYS.filter((key) => typeof params[key] === "string");
  if (typeof frame !== "string" || !frame.trim() || !keys.length) return params;
  const tab = await targetTab(params);
  const frameId = await locateFrame(tab.id, frame);
  const rest = { ...params };
  for (const key of keys) rest[key] = qualify(frameId, params[key]);
  delete rest.frame;
  return rest;
}

/** The address of frame `frameId` of the tab (a relative URL given with `frame` is relative to it). */
export async function frameUrl(tabId, frameId) {
  const info = await ext.webNavigation.getFrame({ tabId, frameId });
  if (!info) throw frameGone(frameId, `@f${frameId}`);
  return info.url;
}

/**
 * A whole-frame read (page.read) in the frame its params name: `frame` (a selector, ref, name or URL
 * pattern) or a selector withFrame qualified (`@f12 >> main`); the top frame otherwise.
 * @param {chrome.tabs.Tab} tab @param {import("./page_ops.js").PageOp} op @param {Record<string, any>} params
 */
export async function readInFrame(tab, op, params) {
  const tabId = /** @type {number} */ (tab.id);
  let frameId = 0;
  const rest = { ...params };
  if (typeof params.frame === "string" && params.frame.trim()) {
    frameId = await locateFrame(tabId, params.frame);
    delete rest.frame;
  } else if (typeof params.selector === "string") {
    const named = splitFrame(params.selector);
    if (named.frameId) {
      frameId = named.frameId;
      rest.selector = named.selector || undefined;
    }
  }
  let reply;
  try {
    reply = await askPage(tabId, op, rest, frameId);
  } catch (err) {
    // A frame that cannot be entered: one that went away, or one the browser keeps closed (its
    // refusal says so). The top of a blank tab or of an error page reads as the empty page it is.
    const kind = closedKind(tab, err);
    if (frameId) throw kind ? closedFrame(frameId, err) : frameGone(frameId, `@f${frameId}`);
    if (!kind) throw err;
    const empty = emptyRead(tab, op, params, kind);
    if (empty) return empty;
    throw closedPage(tab, err, kind);
  }
  if (!reply) throw new TPError(Codes.INTERNAL, "The frame did not answer (it may be navigating).");
  return unwrap(reply);
}
