// Running the content script's readers in a tab's top frame. executeScript into the extension's
// isolated world is quicker than a message round trip; where the content script is not running yet
// (tabs opened before the extension was installed or reloaded) it is injected first.
import { Codes, TPError } from "./protocol.js";
import { assertReadable } from "./tabs.js";

function call(op, params) {
  const agent = globalThis.__tabpilot;
  return agent ? agent.run(op, params) : { missing: true };
}

async function inject(tabId, options) {
  const [frame] = await chrome.scripting.executeScript({
    target: { tabId, frameIds: [0] },
    injectImmediately: true,
    ...options,
  });
  return frame?.result;
}

export async function toContent(tab, op, params) {
  assertReadable(tab);
  let reply;
  try {
    reply = await inject(tab.id, { func: call, args: [op, params] });
    if (reply?.missing) {
      await inject(tab.id, { files: ["content/agent.js"] });
      reply = await inject(tab.id, { func: call, args: [op, params] });
    }
  } catch (err) {
    throw new TPError(Codes.NOT_SUPPORTED, `Tabpilot cannot read this page: ${err?.message ?? err}`, { tab_id: tab.id });
  }
  if (!reply) throw new TPError(Codes.INTERNAL, "The page did not answer (it may be navigating).");
  if (reply.error) throw new TPError(reply.error.code, reply.error.message, reply.error.details);
  return reply.data;
}
