// @ts-check
// chrome.debugger where only CDP can do the job: CSP-proof evaluation, killing runaway scripts, screenshots,
// trusted input. Attached at a tab's first such call and kept while calls keep coming; detached a linger
// after the last one (linger.js), unless the dialog watch still needs it (dialogs.js) or the tab has
// standing overrides (overrides.js: emulation, routes, headers), which a fresh attach sends again.
import { book } from "./dialog_book.js";
import * as ext from "./ext.js";
import { Linger } from "./linger.js";
import { Overrides } from "./overrides.js";
import { Codes, TPError } from "./protocol.js";
import * as trace from "./trace.js";

const attached = new Set();
/** @type {Map<number, Promise<void>>} attaches under way, so calls sent together attach once */
const attaching = new Map();
/** @type {Map<number, Promise<void>>} detaches under way: an attach waits for its tab's to finish */
const detaching = new Map();
/** @type {((tabId: number) => void)[]} */
const onReleased = [];
/** @type {((tabId: number) => boolean | Promise<boolean>)[]} */
const keptBy = [];

/** Each tab's standing CDP state (device emulation, routes, headers): see overrides.js. */
export const overrides = new Overrides((tabId, method, params) => sendDirect(tabId, method, params));

async function kept(tabId) {
  if (overrides.held(tabId)) return true;
  for (const keeps of keptBy) if (await keeps(tabId)) return true;
  return false;
}

const linger = new Linger({ detach: detachNow, held: kept });

/** Keep `attached` true to the browser; called once, as the worker starts. */
export function watchDetaches() {
  ext.devtools.onDetach.addListener((source, reason) => {
    if (source.tabId === undefined) return;
    attached.delete(source.tabId);
    linger.forget(source.tabId);
    // Cancel on the debugging bar: the person takes the tab back, emulation and routes included.
    if (reason === "canceled_by_user" || reason === "target_closed") overrides.forget(source.tabId);
  });
  ext.tabs.onRemoved.addListener((tabId) => {
    attached.delete(tabId);
    linger.forget(tabId);
    overrides.forget(tabId);
  });
}

/**
 * A say in the linger (linger.js), as the dialog watch has: `keeps(tabId)` true keeps the tab attached
 * past it, and `released(tabId)` is told when the linger detached a tab (the browser reports no detach we
 * asked for).
 * @param {(tabId: number) => boolean | Promise<boolean>} keeps @param {(tabId: number) => void} released
 */
export function lingerWith(keeps, released) {
  keptBy.push(keeps);
  onReleased.push(released);
}

/** Keep the tab attached until the returned function is called (an operation in progress there). */
export function hold(tabId) {
  return linger.hold(tabId);
}

async function detachNow(tabId) {
  if (!attached.has(tabId)) return;
  attached.delete(tabId);
  for (const released of onReleased) released(tabId);
  const done = ext.devtools
    .detach({ tabId })
    .catch(() => {}) // already gone: the tab closed, or the person detached it
    .finally(() => detaching.delete(tabId));
  detaching.set(tabId, done);
  await done;
}

export async function attach(tabId) {
  if (detaching.has(tabId)) await detaching.get(tabId);
  linger.touch(tabId);
  if (attached.has(tabId)) return;
  let pending = attaching.get(tabId);
  if (!pending) {
    pending = attachNow(tabId).finally(() => attaching.delete(tabId));
    attaching.set(tabId, pending);
  }
  await pending;
}

async function attachNow(tabId) {
  try {
    await ext.devtools.attach({ tabId }, "1.3");
  } catch (err) {
    if (!/already attached/i.test(String(err?.message))) {
      throw new TPError(Codes.NOT_SUPPORTED, `Cannot attach to tab ${tabId}: ${err?.message ?? err}`, { tab_id: tabId });
    }
  }
  attached.add(tabId);
  // A new session knows nothing of the tab's emulation or routes: send them before anything else runs.
  await overrides.reapply(tabId);
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
