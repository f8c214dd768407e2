// @ts-check
// How long chrome.debugger stays attached to a tab: while calls keep coming, and LINGER_MS after the last
// one; then it is detached, so the person's own Chrome does not show its "started debugging" bar for good.
// Attaching again costs the next call a few ms, never a call in a busy session. Some things keep the tab
// attached past the linger: an operation still running there, and whatever the dialog watch is in the
// middle of (a dialog open, an answer armed for the next one, a hand-off to the person: see dialogs.js).

export const LINGER_MS = 20_000;

export class Linger {
  /**
   * @param {{
   *   detach: (tabId: number) => Promise<void>,
   *   held: (tabId: number) => boolean | Promise<boolean>,
   *   ms?: number,
   *   setTimer?: (fn: () => void, ms: number) => any,
   *   clearTimer?: (timer: any) => void,
   * }} deps
   */
  constructor({ detach, held, ms = LINGER_MS, setTimer = (fn, ms) => setTimeout(fn, ms), clearTimer = (t) => clearTimeout(t) }) {
    this.detach = detach;
    this.held = held;
    this.ms = ms;
    this.setTimer = setTimer;
    this.clearTimer = clearTimer;
    /** @type {Map<number, any>} */
    this.timers = new Map();
    /** @type {Map<number, number>} operations in progress per tab */
    this.busy = new Map();
  }

  /** The tab's debugger was used: it stays attached `ms` from now. */
  touch(tabId) {
    this.clearTimer(this.timers.get(tabId));
    this.timers.set(
      tabId,
      this.setTimer(() => this.expire(tabId), this.ms),
    );
  }

  /** Keep the tab attached until the returned function is called (an operation in progress). */
  hold(tabId) {
    this.busy.set(tabId, (this.busy.get(tabId) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.busy.get(tabId) ?? 1) - 1;
      if (left > 0) this.busy.set(tabId, left);
      else this.busy.delete(tabId);
      this.touch(tabId);
    };
  }

  /** The tab is detached or gone: nothing to time any more. */
  forget(tabId) {
    this.clearTimer(this.timers.get(tabId));
    this.timers.delete(tabId);
    this.busy.delete(tabId);
  }

  /** @param {number} tabId */
  async expire(tabId) {
    const timer = this.timers.get(tabId);
    if (this.busy.has(tabId) || (await this.held(tabId))) {
      if (this.timers.get(tabId) === timer) this.touch(tabId); // look again a linger later
      return;
    }
    if (this.timers.get(tabId) !== timer) return; // used again while we asked
    this.timers.delete(tabId);
    await this.detach(tabId);
  }
}
