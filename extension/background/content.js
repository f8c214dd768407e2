// @ts-check
// Running the content script's readers in a tab's frame (the top one unless a selector names another:
// background/frame_refs.js). executeScript into the extension's
// isolated world is quicker than a message round trip; where the content scripts are not running yet
// (tabs opened before the extension was installed or reloaded) they are injected first, all of them,
// in the manifest's order.
import { closedKind, closedPage } from "./closed_pages.js";
import * as ext from "./ext.js";
import { splitFrame } from "./frame_refs.js";
import { Codes, TPError } from "./protocol.js";
import { assertReadable } from "./tabs.js";
import * as trace from "./trace.js";

/** The content scripts, in the manifest's order. */
const contentFiles = () => ext.runtime.getManifest().content_scripts[0].js;

function call(op, params) {
  const agent = globalThis.__tabpilot;
  return agent?.ops?.[op] ? agent.run(op, params) : { missing: true };
}

async function inject(tabId, options, frameId = 0) {
  const [frame] = await ext.scripting.executeScript({
    target: { tabId, frameIds: [frameId] },
    injectImmediately: true,
    ...options,
  });
  return frame?.result;
}

/**
 * One call of a content op. Resolves with the agent's reply (`{data}` or `{error}`), or with
 * undefined when the document went away before it answered (a navigation); rejects when the frame
 * cannot be entered at all.
 * @param {number} tabId @param {import("./page_ops.js").PageOp} op @param {object} params @param {number} [frameId]
 */
export async function askPage(tabId, op, params, frameId = 0) {
  trace.mark(`page ${op}>`);
  let reply = await inject(tabId, { func: call, args: [op, params] }, frameId);
  trace.mark(`page ${op}<`);
  if (reply?.missing) {
    await inject(tabId, { files: contentFiles() }, frameId);
    reply = await inject(tabId, { func: call, args: [op, params] }, frameId);
    if (reply?.missing) return { error: { code: Codes.NOT_SUPPORTED, message: `The page agent has no '${op}'.` } };
  }
  return reply ?? undefined;
}

/** `func(...args)` in the frame's isolated world (no content script needed); rejects when it cannot enter. */
export function evalInFrame(tabId, frameId, func, args = []) {
  return inject(tabId, { func, args }, frameId);
}

/** The content agent in the tab's frame (top: 0), injected if it is not running there yet. */
export async function ensureAgent(tabId, frameId = 0) {
  if (!(await inject(tabId, { func: () => !!globalThis.__tabpilot?.lib }, frameId))) await inject(tabId, { files: contentFiles() }, frameId);
}

export function unwrap(reply) {
  if (reply.error) throw new TPError(reply.error.code, reply.error.message, reply.error.details);
  return reply.data;
}

/**
 * One content op, no waiting, in the frame its selector names (a ref such as `@f12e5`, or the top).
 * @param {chrome.tabs.Tab} tab @param {import("./page_ops.js").PageOp} op @param {Record<string, any>} params
 */
export async function toContent(tab, op, params) {
  assertReadable(tab);
  const { frameId, selector } = splitFrame(params.selector);
  let reply;
  try {
    reply = await askPage(tab.id, op, frameId ? { ...params, selector } : params, frameId);
  } catch (err) {
    if (frameId) throw frameGone(frameId, params.selector);
    const kind = closedKind(tab, err);
    if (kind) throw closedPage(tab, err, kind);
    throw new TPError(Codes.NOT_SUPPORTED, `Tabpilot cannot read this page: ${err?.message ?? err}`, { tab_id: tab.id });
  }
  if (!reply) throw new TPError(Codes.INTERNAL, "The page did not answer (it may be navigating).");
  return unwrap(reply);
}

/** The error for a selector whose frame cannot be entered (it went away, or never was). */
export function frameGone(frameId, selector) {
  return new TPError(
    Codes.STALE_REF,
    `The frame of '${selector}' (f${frameId}) is gone from the page; take a new snapshot (observe {what:'snapshot'}) and use its refs.`,
    { selector },
  );
}
