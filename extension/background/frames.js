// @ts-check
// Frames: which frame the `frame` parameter names, where a frame's viewport sits in the tab's (for
// trusted clicks, whose coordinates are the top frame's), and the dispatch step that qualifies an
// op's selector with its frame so that every element op reaches into frames the same way.
import { askPage, frameGone, unwrap } from "./content.js";
import * as ext from "./ext.js";
import { frameRef, qualify, splitFrame, urlMatches } from "./frame_refs.js";
import { Codes, TPError } from "./protocol.js";
import { targetTab } from "./tabs.js";

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
  const found = reply?.data?.frame_id;
  if (Number.isInteger(found)) return found;
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
    const reply = await askPage(tabId, "frame.offset", { frame_id: id }, info.parentFrameId);
    const at = reply ? unwrap(reply) : null;
    if (!at?.found) throw frameGone(frameId, `@f${frameId}`);
    x += at.x;
    y += at.y;
    id = info.parentFrameId;
  }
  return { x, y };
}

/**
 * Dispatch's step for the `frame` parameter: an op with a selector gets it qualified with the frame
 * (`@f12 >> .pay`), which every content op then follows; an op without one (dom.snapshot) reads
 * `frame` itself.
 */
export async function withFrame(params) {
  const frame = params.frame;
  if (typeof frame !== "string" || !frame.trim() || typeof params.selector !== "string") return params;
  const tab = await targetTab(params);
  const frameId = await locateFrame(tab.id, frame);
  const rest = { ...params, selector: qualify(frameId, params.selector) };
  delete rest.frame;
  return rest;
}
