// @ts-check
// Requests a route answered lately, per tab, to mark the page's capture of them (routes.js, capture.js).
// The page's own capture (capture/network.js) cannot tell a mocked answer from a real one; the worker
// can, when it answers the paused request. Each answered request marks one capture item of each kind
// (`network`, `body`), the oldest unmarked first, so a later real request to the same URL (after
// clear_routes) stays unmarked; a hit not seen within a minute is forgotten. Pure, for node tests.

/** @typedef {{ url: string, action: "mock" | "block", route: string, at: number, marked: Set<string> }} Hit */

export const HIT_TTL_MS = 60_000;
const MAX_HITS = 200;
const KINDS = new Set(["network", "body"]);

export class RouteHits {
  constructor(now = () => Date.now()) {
    this.now = now;
    /** @type {Map<number, Hit[]>} */
    this.tabs = new Map();
  }

  /** A route answered a request of the tab. @param {number} tabId @param {string} url @param {"mock" | "block"} action @param {string} route */
  remember(tabId, url, action, route) {
    const at = this.now();
    const list = (this.tabs.get(tabId) ?? []).filter((h) => at - h.at < HIT_TTL_MS).slice(-(MAX_HITS - 1));
    list.push({ url, action, route, at, marked: new Set() });
    this.tabs.set(tabId, list);
  }

  /**
   * Mark the tab's capture items a route answered: `mocked: true` or `blocked: true`, and `route` (its pattern).
   * @param {number} tabId @param {any[]} items
   */
  mark(tabId, items) {
    const list = this.tabs.get(tabId);
    if (!list?.length) return;
    const now = this.now();
    for (const item of items) {
      if (!KINDS.has(item?.kind) || typeof item.url !== "string") continue;
      const url = item.url.split("#")[0];
      const hit = list.find((h) => h.url === url && !h.marked.has(item.kind) && now - h.at < HIT_TTL_MS);
      if (!hit) continue;
      hit.marked.add(item.kind);
      item[hit.action === "mock" ? "mocked" : "blocked"] = true;
      item.route = hit.route;
    }
  }

  /** @param {number} tabId */
  forget(tabId) {
    this.tabs.delete(tabId);
  }
}
