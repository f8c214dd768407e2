// @ts-check
// Running the content script's readers in a tab's top frame. executeScript into the extension's
// isolated world is quicker than a message round trip; where the content scripts are not running yet
// (tabs opened before the extension was installed or reloaded) they are injected first, all of them,
// in the manifest's order.
import * as ext from "./ext.js";
import { Codes, TPError } from "./protocol.js";
import { assertReadable } from "./tabs.js";
import * as trace from "./trace.js";

/** The content scripts, in the manifest's order. */
const contentFiles = () => ext.runtime.getManifest().content_scripts[0].js;

function call(op, params) {
  const agent = globalThis.__tabpilot;
  return agent?.ops?.[op] ? agent.run(op, params) : { missing: true };
}

async function inject(tabId, options) {
  const [frame] = await ext.scripting.executeScript({
    target: { tabId, frameIds: [0] },
    injectImmediately: true,
    ...options,
  });
  return frame?.result;
}

/**
 * One call of a content op. Resolves with the agent's reply (`{data}` or `{error}`), or with
 * undefined when the document went away before it answered (a navigation); rejects when the frame
 * cannot be entered at all.
 */
export async function askPage(tabId, op, params) {
  trace.mark(`page ${op}>`);
  let reply = await inject(tabId, { func: call, args: [op, params] });
  trace.mark(`page ${op}<`);
  if (reply?.missing) {
    await inject(tabId, { files: contentFiles() });
    reply = await inject(tabId, { func: call, args: [op, params] });
    if (reply?.missing) return { error: { code: Codes.NOT_SUPPORTED, message: `The page agent has no '${op}'.` } };
  }
  return reply ?? undefined;
}

/** The content agent in the tab's top frame, injected if it is not running there yet. */
export async function ensureAgent(tabId) {
  if (!(await inject(tabId, { func: () => !!globalThis.__tabpilot?.lib }))) await inject(tabId, { files: contentFiles() });
}

export function unwrap(reply) {
  if (reply.error) throw new TPError(reply.error.code, reply.error.message, reply.error.details);
  return reply.data;
}

export async function toContent(tab, op, params) {
  assertReadable(tab);
  let reply;
  try {
    reply = await askPage(tab.id, op, params);
  } catch (err) {
    throw new TPError(Codes.NOT_SUPPORTED, `Tabpilot cannot read this page: ${err?.message ?? err}`, { tab_id: tab.id });
  }
  if (!reply) throw new TPError(Codes.INTERNAL, "The page did not answer (it may be navigating).");
  return unwrap(reply);
}
