// Talking to the content script in a tab's top frame, injecting it where it is not yet running
// (tabs that were open before the extension was installed or reloaded).
import { Codes, TPError } from "./protocol.js";
import { assertReadable } from "./tabs.js";

async function ask(tabId, message) {
  return chrome.tabs.sendMessage(tabId, message, { frameId: 0 });
}

export async function toContent(tab, op, params) {
  assertReadable(tab);
  const message = { tabpilot: true, op, params };
  let reply;
  try {
    reply = await ask(tab.id, message);
  } catch (err) {
    if (!/Receiving end does not exist|Could not establish connection/i.test(String(err?.message))) throw err;
    try {
      await chrome.scripting.executeScript({ target: { tabId: tab.id, frameIds: [0] }, files: ["content/agent.js"] });
    } catch (injectErr) {
      throw new TPError(Codes.NOT_SUPPORTED, `Tabpilot cannot run in this page: ${injectErr?.message ?? injectErr}`, {
        tab_id: tab.id,
      });
    }
    reply = await ask(tab.id, message);
  }
  if (!reply) throw new TPError(Codes.INTERNAL, "The page did not answer (it may be navigating).");
  if (reply.error) throw new TPError(reply.error.code, reply.error.message, reply.error.details);
  return reply.data;
}
