// @ts-check
// dom.snapshot: the page's accessibility tree as text (content/snapshot.js), with every frame's own
// snapshot put in under its <iframe> line, same- and cross-origin alike: the content script runs in
// each frame (injected there on demand) and its refs carry the frame (`@f12e3`).
// dom.highlight: an outline and label over one element (content/snapshot.js), bounds in the tab's viewport.
import { askPage } from "./content.js";
import { childFrames, frameOrigin, locateFrame } from "./frames.js";
import { splitFrame } from "./frame_refs.js";
import { budget, inPageAt, requireString } from "./waiting.js";

const FRAME_MARK = "\u0000frame";
const FRAME_MS = 3000; // one frame's snapshot; a frame that is busy longer is noted and skipped
const MAX_FRAMES = 40;

function within(promise, ms) {
  let timer = 0;
  const late = new Promise((resolve) => {
    timer = setTimeout(() => resolve({ late: true }), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/**
 * `text` (of frame `parentId`) with each frame placeholder (`\0frame <index> <indent> <depth left>`,
 * the index of an iframe among the frame's `window.frames`) replaced by that frame's snapshot,
 * recursively. `count` tracks the frames and refs seen.
 */
async function stitch(tabId, parentId, text, options, deadline, count) {
  if (!text.includes(FRAME_MARK)) return text;
  const children = await childFrames(tabId, parentId);
  const lines = text.split("\n");
  const parts = await Promise.all(
    lines.map(async (line) => {
      if (!line.startsWith(FRAME_MARK)) return line;
      const [, index, indentText, leftText] = line.split(" ");
      const frameId = children.get(Number(index));
      const indent = Number(indentText);
      const pad = "  ".repeat(indent);
      if (frameId === undefined) return `${pad}- (a frame Tabpilot cannot enter)`;
      if (++count.frames > MAX_FRAMES) return `${pad}- (frame f${frameId} left out: more than ${MAX_FRAMES} frames)`;
      let reply;
      try {
        reply = await within(
          askPage(tabId, "dom.snapshot", { ...options, prefix: `f${frameId}`, indent, max_depth: Number(leftText) }, frameId),
          Math.max(0, Math.min(FRAME_MS, deadline.left())),
        );
      } catch (err) {
        return `${pad}- (frame f${frameId} not readable: ${String(err?.message ?? err).split("\n")[0]})`;
      }
      if (!reply) return `${pad}- (frame f${frameId} is loading)`;
      if (reply.late) return `${pad}- (frame f${frameId} did not answer in time)`;
      if (reply.error) return `${pad}- (frame f${frameId}: ${reply.error.message})`;
      count.refs += reply.data.refs;
      if (reply.data.boxes) count.boxes.push({ frameId, boxes: reply.data.boxes });
      const inner = await stitch(tabId, frameId, reply.data.text, options, deadline, count);
      return inner || `${pad}- (empty frame f${frameId})`;
    }),
  );
  return parts.join("\n");
}

/** @param {import("./operations.js").DomSnapshotParams} params */
export async function snapshot(tab, params, frameMs) {
  const deadline = budget(params, frameMs);
  let frameId = typeof params.frame === "string" && params.frame.trim() ? await locateFrame(tab.id, params.frame) : 0;
  let scope = typeof params.scope === "string" && params.scope.trim() ? params.scope : undefined;
  if (scope) {
    const named = splitFrame(scope);
    if (named.frameId) {
      frameId = named.frameId;
      scope = named.selector;
    }
  }
  // `boxes`: the refs' boxes too, for an annotated screenshot; only for the whole tab (the top frame).
  const boxes = !!params.boxes && !frameId;
  const options = { interactive_only: !!params.interactive_only, redact: params.redact, boxes };
  const { data } = await inPageAt(
    tab.id,
    "dom.snapshot",
    { ...options, scope, max_depth: params.max_depth, prefix: frameId ? `f${frameId}` : "" },
    deadline,
    frameId,
  );
  const count = { frames: 0, refs: data.refs, boxes: data.boxes ? [{ frameId: 0, boxes: data.boxes }] : [] };
  const text = await stitch(tab.id, frameId, data.text, options, deadline, count);
  const placed = boxes && data.scroll ? await toPage(tab.id, count.boxes, data.scroll) : null;
  const out = { tab_id: tab.id, url: data.url, title: data.title, document: data.document, text, refs: count.refs, frames: count.frames, took_ms: data.took_ms, ...(placed ? { boxes: placed } : {}) };
  return frameId ? { ...out, frame: `@f${frameId}` } : out;
}

/**
 * Each frame's boxes (its viewport's CSS px) moved to the page's top-left: by the frame's place in the
 * tab's viewport and the top page's scroll. A frame that went away meanwhile loses its boxes.
 * @param {number} tabId @param {{frameId: number, boxes: {x: number, y: number}[]}[]} found @param {{x: number, y: number}} scroll
 */
async function toPage(tabId, found, scroll) {
  const placed = await Promise.all(
    found.map(async ({ frameId, boxes }) => {
      const origin = frameId ? await frameOrigin(tabId, frameId).catch(() => null) : { x: 0, y: 0 };
      if (!origin) return [];
      return boxes.map((b) => ({ ...b, x: b.x + origin.x + scroll.x, y: b.y + origin.y + scroll.y }));
    }),
  );
  return placed.flat();
}

/** @param {import("./operations.js").DomHighlightParams} params */
export async function highlight(tab, params, frameMs) {
  const deadline = budget(params, frameMs);
  const selector = requireString(params, "selector");
  const { data, frameId } = await inPageAt(tab.id, "dom.highlight", { selector, duration_ms: params.duration_ms }, deadline);
  if (!frameId) return data;
  const origin = await frameOrigin(tab.id, frameId);
  const b = data.bounds;
  return { ...data, selector, frame: `@f${frameId}`, bounds: { ...b, x: Math.round(b.x + origin.x), y: Math.round(b.y + origin.y) } };
}


