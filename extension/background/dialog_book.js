// @ts-check
// What the extension knows of the pages' JavaScript dialogs (alert, confirm, prompt, beforeunload): the
// one open in each tab, the answers armed for a tab's next one, the last few that were answered (and by
// whom), and the policy for dialogs nobody answers. Pure: the answer itself is given to the browser by
// the function dialogs.js installs (Page.handleJavaScriptDialog), so this is tested in node.
import { Codes, TPError } from "./protocol.js";

const KEEP_RECENT = 20;
const MAX_MESSAGE = 500;

/**
 * @typedef {{tab_id: number, type: string, message: string, default_prompt?: string, url: string, opened_at: number}} Dialog
 * @typedef {"agent" | "armed" | "policy" | "person"} Answerer
 * @typedef {Dialog & {accepted: boolean, by: Answerer, closed_at: number}} Answered
 * @typedef {{accept: boolean, promptText?: string, armed_at: number}} Armed
 * @typedef {(tabId: number, accept: boolean, promptText: string | undefined) => Promise<unknown>} AnswerFn
 */

const cut = (text) => (text.length <= MAX_MESSAGE ? text : `${text.slice(0, MAX_MESSAGE - 1)}…`);

/** What an agent is told of a dialog: no typed prompt text, ever. */
export function shown(dialog) {
  const view = { tab_id: dialog.tab_id, type: dialog.type, message: dialog.message, url: dialog.url };
  if (dialog.type === "prompt") view.default_prompt = dialog.default_prompt ?? "";
  if ("accepted" in dialog) Object.assign(view, { accepted: dialog.accepted, by: dialog.by });
  return view;
}

/** "an alert dialog", "a confirm dialog": the dialog's type with its article, for sentences. */
export const aDialog = (type) => `${/^[aeiou]/i.test(type) ? "an" : "a"} ${type} dialog`;

/** The error every operation on a tab with an open dialog answers with, at once. */
export function dialogOpen(dialog) {
  const what = dialog.message ? `: "${dialog.message.length > 120 ? `${dialog.message.slice(0, 119)}…` : dialog.message}"` : "";
  return new TPError(
    Codes.DIALOG_OPEN,
    `Tab ${dialog.tab_id} shows ${aDialog(dialog.type)}${what}. The page waits until it is answered: use interact ` +
      `{action:"handle_dialog", accept: true|false} (prompt_text for a prompt), then go on.`,
    // The envelope has its own `message` (the sentence above): the page's words are `dialog_message`.
    { tab_id: dialog.tab_id, type: dialog.type, dialog_message: dialog.message, default_prompt: dialog.default_prompt ?? "", url: dialog.url },
  );
}

export class DialogBook {
  /** @param {{answer?: AnswerFn, now?: () => number, setTimer?: typeof setTimeout, clearTimer?: typeof clearTimeout}} [deps] */
  constructor({
    answer = async () => {},
    now = () => Date.now(),
    // Wrapped: the browser's timer functions refuse to be called as methods of another object.
    setTimer = (fn, ms) => setTimeout(fn, ms),
    clearTimer = (timer) => clearTimeout(timer),
  } = {}) {
    this.answer = answer;
    this.now = now;
    this.setTimer = setTimer;
    this.clearTimer = clearTimer;
    /** @type {Map<number, Dialog>} */
    this.open = new Map();
    /** @type {Map<number, Armed>} */
    this.armed = new Map();
    /** @type {Answered[]} */
    this.recent = [];
    /** Dismiss a dialog nobody answered after this many ms; null: leave it for the agent. */
    this.dismissAfterMs = /** @type {number | null} */ (null);
    /** @type {Map<number, ReturnType<typeof setTimeout>>} */
    this.timers = new Map();
    /** @type {Map<number, Set<(d: Dialog) => void>>} */
    this.waiters = new Map();
    this.answeredCount = 0;
  }

  /** The browser says a dialog opened in `tabId` (Page.javascriptDialogOpening). */
  opened(tabId, { type, message = "", defaultPrompt = "", url = "" }) {
    /** @type {Dialog} */
    const dialog = { tab_id: tabId, type, message: cut(String(message)), url: String(url), opened_at: this.now() };
    if (type === "prompt") dialog.default_prompt = cut(String(defaultPrompt));
    const armed = this.armed.get(tabId);
    if (armed) {
      // An answer the agent set up before the action: given at once, the page never waits.
      this.armed.delete(tabId);
      this.remember(dialog, armed.accept, "armed");
      this.answer(tabId, armed.accept, armed.promptText).catch(() => {});
      return;
    }
    this.open.set(tabId, dialog);
    this.startTimer(tabId);
    const waiting = this.waiters.get(tabId);
    if (waiting) for (const wake of [...waiting]) wake(dialog);
  }

  /** The browser says the dialog closed (Page.javascriptDialogClosed): answered here, or by the person. */
  closed(tabId, { result = false } = {}) {
    const dialog = this.open.get(tabId);
    if (!dialog) return; // answered through this book already
    this.forget(tabId);
    this.remember(dialog, !!result, "person");
  }

  /**
   * Answer the open dialog of `tabId`; null when none is open there.
   * @param {number} tabId @param {boolean} accept @param {string | undefined} promptText @param {Answerer} by
   */
  async handle(tabId, accept, promptText, by) {
    const dialog = this.open.get(tabId);
    if (!dialog) return null;
    this.forget(tabId);
    try {
      await this.answer(tabId, accept, promptText);
    } catch (err) {
      // Closed meanwhile (the person answered it, the tab navigated): nothing is open any more.
      if (!/no dialog/i.test(String(err?.message ?? err))) {
        throw new TPError(Codes.INTERNAL, `The dialog could not be answered: ${err?.message ?? err}`, { tab_id: tabId });
      }
    }
    return this.remember(dialog, accept, by);
  }

  /** The answer for the next dialog in `tabId` (replacing one armed before). */
  arm(tabId, accept, promptText) {
    this.armed.set(tabId, { accept, promptText, armed_at: this.now() });
  }

  /** The tab closed, or the debugger left it: what was open there can no longer be answered here. */
  tabGone(tabId) {
    this.forget(tabId);
    this.armed.delete(tabId);
  }

  current(tabId) {
    return this.open.get(tabId);
  }

  /** `dialog_open` at once when `tabId` shows a dialog. */
  assertNone(tabId) {
    const dialog = this.open.get(tabId);
    if (dialog) throw dialogOpen(dialog);
  }

  /** A promise of the next dialog left open in `tabId` (armed answers do not count), and its cancel. */
  whenOpened(tabId) {
    let wake = (/** @type {Dialog} */ _d) => {};
    const promise = new Promise((resolve) => {
      wake = resolve;
    });
    const set = this.waiters.get(tabId) ?? new Set();
    this.waiters.set(tabId, set);
    set.add(wake);
    const cancel = () => {
      set.delete(wake);
      if (!set.size && this.waiters.get(tabId) === set) this.waiters.delete(tabId);
    };
    return { promise: /** @type {Promise<Dialog>} */ (promise), cancel };
  }

  /**
   * `work`, unless a dialog is open in `tabId` or opens before it settles: then dialog_open. For calls the
   * page answers only once the dialog is gone (CDP input, evaluation): they would hang until then.
   * @template T @param {number} tabId @param {Promise<T>} work @returns {Promise<T>}
   */
  race(tabId, work) {
    const open = this.open.get(tabId);
    if (open) {
      work.catch(() => {});
      return Promise.reject(dialogOpen(open));
    }
    const opened = this.whenOpened(tabId);
    const blocked = opened.promise.then((dialog) => {
      throw dialogOpen(dialog);
    });
    work.catch(() => {});
    return Promise.race([work, blocked]).finally(opened.cancel);
  }

  /** The answers given since `mark` (a value of answeredCount) in `tabId`, oldest first. */
  answeredSince(tabId, mark) {
    const count = this.answeredCount - mark;
    if (count <= 0) return [];
    return this.recent.slice(-count).filter((d) => d.tab_id === tabId);
  }

  /** @param {number | null} ms */
  setPolicy(ms) {
    this.dismissAfterMs = Number.isFinite(ms) && /** @type {number} */ (ms) > 0 ? ms : null;
    for (const tabId of this.open.keys()) this.startTimer(tabId);
  }

  /** For observe dialogs: what is open, armed, and was answered lately (newest first). */
  list(tabId = undefined) {
    const mine = (d) => tabId === undefined || d.tab_id === tabId;
    const now = this.now();
    return {
      open: [...this.open.values()].filter(mine).map((d) => ({ ...shown(d), open_ms: now - d.opened_at })),
      armed: [...this.armed.entries()]
        .filter(([id]) => tabId === undefined || id === tabId)
        .map(([id, a]) => ({ tab_id: id, accept: a.accept, prompt_text: a.promptText !== undefined })),
      recent: this.recent.filter(mine).reverse().map(shown),
      policy: this.dismissAfterMs === null ? { unanswered: "leave" } : { unanswered: "dismiss", after_ms: this.dismissAfterMs },
    };
  }

  // -- inside ------------------------------------------------------------------------------------

  startTimer(tabId) {
    const before = this.timers.get(tabId);
    if (before !== undefined) this.clearTimer(before);
    this.timers.delete(tabId);
    const dialog = this.open.get(tabId);
    if (!dialog || this.dismissAfterMs === null) return;
    const left = Math.max(0, dialog.opened_at + this.dismissAfterMs - this.now());
    this.timers.set(
      tabId,
      this.setTimer(() => {
        this.timers.delete(tabId);
        this.handle(tabId, false, undefined, "policy").catch(() => {});
      }, left),
    );
  }

  forget(tabId) {
    this.open.delete(tabId);
    const timer = this.timers.get(tabId);
    if (timer !== undefined) this.clearTimer(timer);
    this.timers.delete(tabId);
  }

  /** @param {Dialog} dialog @param {boolean} accepted @param {Answerer} by */
  remember(dialog, accepted, by) {
    /** @type {Answered} */
    const answered = { ...dialog, accepted, by, closed_at: this.now() };
    this.recent.push(answered);
    if (this.recent.length > KEEP_RECENT) this.recent.splice(0, this.recent.length - KEEP_RECENT);
    this.answeredCount += 1;
    return answered;
  }
}

/** The one book of this service worker. */
export const book = new DialogBook();
