// @ts-check
// Standing CDP state of a tab: what a command set for the tab and that must last beyond the call —
// device emulation, a user agent, extra headers, mocked and blocked routes. CDP keeps such state only
// as long as chrome.debugger stays attached, so a tab with any override is kept attached past the
// linger (linger.js), and when the tab is attached again (the browser detached it: a crash, a
// DevTools window taking over) every override is sent again before the next command runs. The person
// pressing Cancel on Chrome's debugging bar takes the tab back: its overrides are dropped then. Switching
// AI Web Pilot off undoes every tab's (service_worker.js): no mocked backend or borrowed device outlasts it.
//
// Each override is kept under a key (`emulation`, `user_agent`, `headers`, `routes`, …) as the CDP
// commands that set it and those that undo it; setting a key again replaces it.

/** @typedef {[method: string, params?: Record<string, unknown>]} CdpCall */
/** @typedef {{ apply: CdpCall[], undo: CdpCall[], info?: unknown }} Override */

export class Overrides {
  /** @param {(tabId: number, method: string, params?: Record<string, unknown>) => Promise<unknown>} send */
  constructor(send) {
    this.send = send;
    /** @type {Map<number, Map<string, Override>>} */
    this.tabs = new Map();
  }

  /**
   * Set the tab's override `key` (sends its `apply` calls now, in order), replacing an earlier one
   * under that key. `info` is kept for whoever lists the overrides (routes, the device's name).
   * @param {number} tabId @param {string} key @param {Override} override
   */
  async set(tabId, key, override) {
    for (const [method, params] of override.apply) await this.send(tabId, method, params);
    let keys = this.tabs.get(tabId);
    if (!keys) this.tabs.set(tabId, (keys = new Map()));
    keys.set(key, override);
  }

  /** Undo the tab's override `key` (sends its `undo` calls); false when it had none. */
  async clear(tabId, key) {
    const override = this.tabs.get(tabId)?.get(key);
    if (!override) return false;
    this.drop(tabId, key);
    for (const [method, params] of override.undo) await this.send(tabId, method, params);
    return true;
  }

  /** @param {number} tabId @param {string} key @returns {Override | undefined} */
  get(tabId, key) {
    return this.tabs.get(tabId)?.get(key);
  }

  /** Whether the tab has anything standing: it then stays attached. */
  held(tabId) {
    return (this.tabs.get(tabId)?.size ?? 0) > 0;
  }

  /** The tab was attached afresh: send every override again (CDP forgot them with the old session). */
  async reapply(tabId) {
    const keys = this.tabs.get(tabId);
    if (!keys) return;
    for (const override of [...keys.values()]) {
      for (const [method, params] of override.apply) await this.send(tabId, method, params);
    }
  }

  /** Undo every override of every tab (the person switched AI Web Pilot off); the tabs undone. */
  async clearAll() {
    const tabs = [...this.tabs.keys()];
    for (const tabId of tabs) {
      for (const key of [...(this.tabs.get(tabId)?.keys() ?? [])]) {
        try {
          await this.clear(tabId, key);
        } catch {
          this.drop(tabId, key); // the tab cannot be reached any more: nothing of it stands
        }
      }
    }
    return tabs;
  }

  /** The tab is gone, or its person took it back: forget its overrides without sending anything. */
  forget(tabId) {
    this.tabs.delete(tabId);
  }

  /** @param {number} tabId @param {string} key */
  drop(tabId, key) {
    const keys = this.tabs.get(tabId);
    keys?.delete(key);
    if (keys && keys.size === 0) this.tabs.delete(tabId);
  }
}
