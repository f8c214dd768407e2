// @ts-check
// Dialogs never hang a tab. A page's alert, confirm, prompt or beforeunload stops its main thread until
// someone answers, and with it every script injection and CDP call into that tab. So the extension
// watches the tabs it works in through chrome.debugger (Page.enable: the browser then reports each
// dialog, Page.javascriptDialogOpening, and lets us answer it, Page.handleJavaScriptDialog), and:
//  - an operation on a tab that shows a dialog answers at once with `dialog_open`;
//  - an action that raises one answers with what it did and the dialog (`dialog: {type, message, …}`);
//  - `dialog.handle` answers the open dialog, or arms the answer for the tab's next one;
//  - the policy from the app (leave it for the agent, or dismiss it after N seconds) handles the rest.
//
// Found by experiment (Chromium 156): a dialog that opened before the debugger's Page domain was on in
// the tab is never reported to it — Page.enable itself then hangs until the dialog closes, and
// Page.handleJavaScriptDialog says "No dialog is showing". Hence the watch starts before the first
// operation on a tab (and on the tabs a watched tab opens), never after the fact; a tab whose Page.enable
// does not answer is reported as such, quickly, instead of hanging the operation.
import * as cdp from "./cdp.js";
import { aDialog, book, dialogOpen, shown } from "./dialog_book.js";
import * as ext from "./ext.js";
import { Codes, TPError } from "./protocol.js";
import { openHandoffs } from "./handoff.js";
import { isRestricted, rememberTarget, targetTab } from "./tabs.js";

const ENABLE_MS = 1500;

/** @type {Map<number, Promise<void>>} */
const watching = new Map();

book.answer = (tabId, accept, promptText) =>
  cdp.sendDirect(tabId, "Page.handleJavaScriptDialog", promptText === undefined ? { accept } : { accept, promptText });

function within(promise, ms) {
  let timer = 0;
  const late = new Promise((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  return Promise.race([promise.then(() => true), late]).finally(() => clearTimeout(timer));
}

async function enable(tabId) {
  await cdp.attach(tabId);
  if (!(await within(cdp.sendDirect(tabId, "Page.enable"), ENABLE_MS))) {
    throw new TPError(
      Codes.TIMEOUT,
      `Tab ${tabId} does not answer: a dialog may have opened there before Tabpilot was watching the tab (the ` +
        "person can answer it in the browser window), or the page's scripts are busy.",
      { tab_id: tabId },
    );
  }
}

/** Watch `tabId` for dialogs (once per debugger session). */
export function watch(tabId) {
  let watched = watching.get(tabId);
  if (!watched) {
    watched = enable(tabId);
    watching.set(tabId, watched);
    watched.catch(() => watching.delete(tabId));
  }
  return watched;
}

/** Called once, as the worker starts: the browser's dialog events, and the tabs that come and go. */
export function watchDialogs() {
  ext.devtools.onEvent.addListener((source, method, params) => {
    const tabId = source.tabId;
    if (tabId === undefined) return;
    const p = /** @type {any} */ (params) ?? {};
    if (method === "Page.javascriptDialogOpening") {
      book.opened(tabId, { type: p.type, message: p.message, defaultPrompt: p.defaultPrompt, url: p.url });
    } else if (method === "Page.javascriptDialogClosed") {
      book.closed(tabId, { result: p.result });
    }
  });
  // The debugger lingers a while after a tab's last call (cdp.js). A tab is kept attached while the watch
  // has business there: a dialog open (the agent or the policy may answer it), an answer armed for the
  // next one, a hand-off to the person (a dialog may come up meanwhile). Detached, the tab is watched
  // again before its next operation, as at first.
  cdp.lingerWith(
    async (tabId) => book.open.has(tabId) || book.armed.has(tabId) || (await openHandoffs()).some((h) => h.tab_id === tabId),
    (tabId) => watching.delete(tabId),
  );
  ext.devtools.onDetach.addListener((source) => {
    if (source.tabId === undefined) return;
    watching.delete(source.tabId);
    book.tabGone(source.tabId);
  });
  ext.tabs.onRemoved.addListener((tabId) => {
    watching.delete(tabId);
    book.tabGone(tabId);
  });
  // A tab opened by a watched one (a link with target=_blank, window.open) may greet with a dialog.
  ext.tabs.onCreated.addListener((tab) => {
    if (tab.id !== undefined && tab.openerTabId !== undefined && watching.has(tab.openerTabId)) watch(tab.id).catch(() => {});
  });
}

/** What a page-changing operation answers when its action left a dialog open (fields of its usual answer). */
const RAISED = {
  "dom.click": () => ({ clicked: true }),
  "dom.press": (p) => ({ pressed: p.key }),
  "dom.fill": () => ({ filled: true }),
  "js.execute": (_p, d) => ({
    success: false,
    error: `The script opened ${aDialog(d.type)} and is paused until it is answered (interact handle_dialog); its result is not known.`,
  }),
  "tab.navigate": (p) => ({ status: "dialog_open", url: p.url }),
};

/**
 * Run operation `op` on its tab with the dialog guard: the tab watched first, `dialog_open` at once if it
 * shows a dialog, and a dialog that opens meanwhile ends the wait — reported in the answer of a
 * page-changing operation (which raised it), as `dialog_open` by a read.
 * @param {string} op @param {object} params @param {boolean} pageChanging @param {() => Promise<any>} run
 */
export async function guarded(op, params, pageChanging, run) {
  const tab = await targetTab(params);
  rememberTarget(params, tab); // the op looks for the same tab: it need not ask the browser again
  if (tab.id === undefined || isRestricted(tab.url ?? tab.pendingUrl ?? "")) return run(); // the op says why not
  // A read starts no watch of its own: the debugger (and, in the person's own Chrome, its "started
  // debugging" bar) comes with the first action on a tab, not with a look at it. On a tab already
  // watched, a read with a dialog up still fails fast.
  if (!pageChanging && !watching.has(tab.id)) return run();
  const release = cdp.hold(tab.id); // the debugger stays while the op runs, however long it waits
  try {
    return await watchedRun(op, params, pageChanging, tab, run);
  } finally {
    release();
  }
}

/** guarded's part once the tab is known: watched, then the op raced against a dialog. */
async function watchedRun(op, params, pageChanging, tab, run) {
  try {
    await watch(tab.id);
  } catch (err) {
    if (err?.code === Codes.TIMEOUT) throw err;
    // No debugger here (another tool holds the tab, a policy forbids it): the op runs unguarded as before.
  }
  book.assertNone(tab.id);
  const mark = book.answeredCount;
  const opened = book.whenOpened(tab.id);
  const work = run();
  work.catch(() => {}); // a dialog may win the race; the op's late failure is nobody's business then
  let dialog;
  try {
    const first = await Promise.race([work.then((value) => ({ value })), opened.promise.then((d) => ({ dialog: d }))]);
    if ("value" in first) return withAnswered(first.value, book.answeredSince(tab.id, mark));
    dialog = first.dialog;
  } catch (err) {
    dialog = err?.code === Codes.DIALOG_OPEN ? book.current(tab.id) : undefined;
    if (!dialog) throw err;
  } finally {
    opened.cancel();
  }
  if (!pageChanging) throw dialogOpen(dialog);
  const usual = RAISED[op]?.(params, dialog) ?? {};
  return { ...usual, changed: `${aDialog(dialog.type)} opened`, dialog: { ...shown(dialog), open: true } };
}

/** An answer given during the op (an armed one, the policy's) is told in its result. */
function withAnswered(value, answered) {
  if (!answered.length || !value || typeof value !== "object" || Array.isArray(value)) return value;
  return { ...value, dialog: shown(answered[answered.length - 1]) };
}

/**
 * dialog.handle: answer the open dialog of the tab, or arm the answer for its next one.
 * @param {import("./operations.js").DialogHandleParams} params
 */
export async function handleDialog(params) {
  const tab = await targetTab(params);
  if (tab.id === undefined) throw new TPError(Codes.TAB_CLOSED, "The tab is gone.");
  const accept = params.accept;
  const promptText = typeof params.prompt_text === "string" ? params.prompt_text : undefined;
  const answered = await book.handle(tab.id, accept, promptText, "agent");
  if (answered) return { handled: true, dialog: shown(answered), tab_id: tab.id };
  await watch(tab.id).catch(() => {});
  book.arm(tab.id, accept, promptText);
  return {
    handled: false,
    armed: true,
    accept,
    tab_id: tab.id,
    note: `No dialog is open in tab ${tab.id}: its next one will be ${accept ? "accepted" : "dismissed"} at once.`,
  };
}

/**
 * dialogs.list: what observe dialogs shows.
 * @param {import("./operations.js").DialogsListParams} params
 */
export function listDialogs(params) {
  return book.list(Number.isInteger(params.tab_id) ? params.tab_id : undefined);
}

/** The app's policy for dialogs nobody answers (its `state` message). */
export function applyPolicy(state) {
  const ms = state?.dialogs?.dismiss_after_ms;
  book.setPolicy(typeof ms === "number" ? ms : null);
}
