// @ts-check
// chrome.debugger where only CDP can do the job: CSP-proof evaluation, killing runaway scripts, screenshots.
import { book } from "./dialog_book.js";
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

/**
 * A CDP command to the tab. While the tab shows a JavaScript dialog its page answers nothing, so this
 * fails at once with dialog_open then — and as soon as one opens while the command waits (dialogs.js).
 */
export function send(tabId, method, params = {}) {
  return book.race(tabId, sendDirect(tabId, method, params));
}

/** A CDP command that the browser answers itself, dialog or not (the dialog's own commands). */
export async function sendDirect(tabId, method, params = {}) {
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
