// @ts-check
// After an action: wait until it has settled, on evidence, and say in one line what it changed.
// Evidence is the navigation it started (the page's Navigation API says so at once; webNavigation and
// the tab's status otherwise), the DOM going quiet (a short window with no mutation, counted from the
// last one), and the requests it started finishing (webRequest, this tab). A click on a static page
// costs one executeScript and the quiet window; nothing waits for a fixed time beyond that.
import { askPage } from "./content.js";
import * as ext from "./ext.js";
import { subscribe } from "./hub.js";
import { navigationNote, watchNavigation } from "./follow.js";

export const QUIET_MS = 8;
// When the action changed nothing at all (no mutation since the watch began, no navigation, no request),
// a shorter wait ends it: the tasks it queued have run by then (content/acts.js), and the request or
// navigation a handler starts is seen by the browser within it.
export const IDLE_MS = 2;
const MAX_QUIET_MS = 1000; // a page that never stops changing (a clock, an animation) is not waited out
const NETWORK_MS = 3000; // how long requests the action started may keep the answer waiting
const ALL_URLS = { urls: ["<all_urls>"] };

/** Every tab's requests in flight (besides its main document), kept from the worker's start. */
const inflightByTab = new Map();

/** Called once, as the worker starts: wait_for network_idle then knows requests begun before it was asked. */
export function watchRequests() {
  const filter = { urls: ["<all_urls>"] };
  /** @param {chrome.webRequest.OnBeforeRequestDetails} d @returns {undefined} */
  const onRequest = (d) => {
    if (d.tabId < 0 || d.type === "main_frame") return;
    if (!inflightByTab.has(d.tabId)) inflightByTab.set(d.tabId, new Set());
    inflightByTab.get(d.tabId).add(d.requestId);
  };
  const onDone = (d) => {
    const set = inflightByTab.get(d.tabId);
    set?.delete(d.requestId);
    if (set && set.size === 0) inflightByTab.delete(d.tabId);
  };
  ext.webRequest.onBeforeRequest.addListener(onRequest, filter);
  ext.webRequest.onCompleted.addListener(onDone, filter);
  ext.webRequest.onErrorOccurred.addListener(onDone, filter);
  ext.tabs.onRemoved.addListener((tabId) => inflightByTab.delete(tabId));
}

/** How many requests of `tabId` are in flight now (0 when the worker started after they did). */
export function inflightNow(tabId) {
  return inflightByTab.get(tabId)?.size ?? 0;
}

/** Requests of `tabId` from now on: how many are in flight, and a wait until none is. */
export function trackRequests(tabId) {
  const inflight = new Set();
  let started = 0;
  let wake = () => {};
  /** @param {chrome.webRequest.OnBeforeRequestDetails} d */
  const onRequest = (d) => {
    // The main document's own request is a navigation, which settle waits for on its own.
    if (d.tabId === tabId && d.type !== "main_frame") {
      inflight.add(d.requestId);
      started += 1;
    }
  };
  const onDone = (d) => {
    if (d.tabId !== tabId || !inflight.delete(d.requestId)) return;
    if (inflight.size === 0) wake();
  };
  const offs = [
    subscribe(ext.webRequest.onBeforeRequest, onRequest, ALL_URLS),
    subscribe(ext.webRequest.onCompleted, onDone, ALL_URLS),
    subscribe(ext.webRequest.onErrorOccurred, onDone, ALL_URLS),
  ];
  return {
    get count() {
      return inflight.size;
    },
    /** How many requests began since tracking did. */
    get started() {
      return started;
    },
    /** Resolves true once nothing is in flight, false after `ms`. */
    idle(ms) {
      if (inflight.size === 0) return Promise.resolve(true);
      return new Promise((resolve) => {
        const timer = setTimeout(() => resolve(inflight.size === 0), ms);
        wake = () => {
          clearTimeout(timer);
          resolve(true);
        };
      });
    },
    stop() {
      for (const off of offs) off();
    },
  };
}

async function settleInPage(tabId, params, frameId = 0) {
  try {
    const reply = await askPage(tabId, "page.settle", params, frameId);
    return reply?.data ?? null; // no answer: the document went away (a navigation)
  } catch {
    return null;
  }
}

/** Tabs `tabId`'s page opens from now on (a target=_blank link, window.open). */
function openedTabs(tabId) {
  /** @type {chrome.tabs.Tab[]} */
  const tabs = [];
  /** @param {chrome.tabs.Tab} tab */
  const onCreated = (tab) => {
    if (tab.openerTabId === tabId) tabs.push(tab);
  };
  return { tabs, stop: subscribe(ext.tabs.onCreated, onCreated) };
}

/**
 * The action's answer, saying so when it opened a tab: `new_tab:{tab_id, url}` (the first one), and
 * `changed` starting with it. The app gives that tab to whoever owns this one (the `tab_opened` event).
 * @param {chrome.tabs.Tab[]} tabs @param {{changed: string} & Record<string, unknown>} answer
 */
function withOpened(tabs, answer) {
  const [tab] = tabs;
  if (!tab || tab.id === undefined) return answer;
  const url = tab.pendingUrl || tab.url || "";
  const line = `opened a new tab ${tab.id}${url ? ` ${url}` : ""}`;
  const changed = answer.changed === "no visible change" ? line : `${line}; ${answer.changed}`;
  return { ...answer, new_tab: { tab_id: tab.id, url }, changed };
}

function navigationLine(followed) {
  if (followed.pending) return `navigating to ${followed.url} (still loading)`;
  if (followed.error) return `navigation to ${followed.url} failed (${followed.error})`;
  return `navigated to ${followed.url}${followed.title ? ` '${followed.title}'` : ""}`;
}

/**
 * Watch an action in `tabId` (call before it: the page's own watch starts with the action, see
 * content/acts.js), then `done(deadline, {hit})` after it: `{changed, navigation?, hit?}`.
 */
export function watchAction(tabId) {
  const followed = watchNavigation(tabId);
  const requests = trackRequests(tabId);
  const opened = openedTabs(tabId);
  return {
    /** The action failed: stop watching. */
    async abandon() {
      requests.stop();
      opened.stop();
      await followed(0, 0);
    },
    /** `frameId`: the frame the action was in (its page watch and click guard are there). */
    async done(deadline, { hit = false, noText = false, frameId = 0 } = {}) {
      try {
        const left = () => Math.max(0, deadline.left());
        const base = { quiet_ms: QUIET_MS, idle_ms: IDLE_MS, max_ms: MAX_QUIET_MS, no_text: noText };
        // Whether the tab is loading after the action is asked meanwhile (a navigation the page did not see).
        const tabNow = ext.tabs.get(tabId).catch(() => null);
        let page = await settleInPage(tabId, { ...base, hit, timeout_ms: left() }, frameId);
        const nav = await followed(left(), page && !page.navigating ? 0 : undefined, page && !page.navigating ? tabNow : undefined);
        const verdict = hit ? { hit: page?.hit } : {};
        if (nav) return withOpened(opened.tabs, { ...navigationNote(nav), changed: navigationLine(nav), ...verdict });
        if (requests.count > 0 && left() > 0) {
          await requests.idle(Math.min(NETWORK_MS, left()));
          page = (await settleInPage(tabId, { ...base, timeout_ms: left() }, frameId)) ?? page;
        }
        return withOpened(opened.tabs, { changed: page?.changed || "no visible change", ...verdict });
      } finally {
        requests.stop();
        opened.stop();
      }
    },
  };
}
