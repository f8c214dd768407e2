// @ts-check
// chrome.debugger where only CDP can do the job: CSP-proof evaluation, killing runaway scripts, screenshots.
import * as ext from "./ext.js";
import { Codes, TPError } from "./protocol.js";
import * as trace from "./trace.js";

const attached = new Set();

/** Keep `attached` true to the browser; called once, as the worker starts. */
export function watchDetaches() {
  ext.devtools.onDetach.addListener((source) => attached.delete(source.tabId));
  ext.tabs.onRemoved.addListener((tabId) => attached.delete(tabId));
}

export async function attach(tabId) {
  if (attached.has(tabId)) return;
  try {
    await ext.devtools.attach({ tabId }, "1.3");
  } catch (err) {
    if (!/already attached/i.test(String(err?.message))) {
      throw new TPError(Codes.NOT_SUPPORTED, `Cannot attach to tab ${tabId}: ${err?.message ?? err}`, { tab_id: tabId });
    }
  }
  attached.add(tabId);
}

export async function send(tabId, method, params = {}) {
  trace.mark(`cdp ${method}>`);
  await attach(tabId);
  try {
    const answer = await ext.devtools.sendCommand({ tabId }, method, params);
    trace.mark(`cdp ${method}<`);
    return answer;
  } catch (err) {
    const message = String(err?.message ?? err);
    if (/not attached|detached/i.test(message)) {
      attached.delete(tabId);
      await attach(tabId);
      return ext.devtools.sendCommand({ tabId }, method, params);
    }
    throw err;
  }
}
