// @ts-check
// Which tab a command works in: the one it names, else the tracked tab, else the active tab.
import * as ext from "./ext.js";
import { Codes, TPError } from "./protocol.js";

const RESTRICTED = /^(chrome|chrome-extension|devtools|edge|brave|about|view-source|chrome-search|chrome-untrusted):/i;

// The tracked tab lives in session storage (it survives the worker sleeping) and, once read, in memory:
// every command asks for it, and storage would cost a round trip each time.
/** @type {Promise<number | null> | null} */
let tracked = null;

/** @returns {Promise<number | null>} */
export function trackedTabId() {
  tracked ??= ext.storage.session
    .get("trackedTabId")
    .then(({ trackedTabId }) => (Number.isInteger(trackedTabId) ? /** @type {number} */ (trackedTabId) : null));
  return tracked;
}

/** @param {number | null} tabId */
export async function setTracked(tabId) {
  tracked = Promise.resolve(tabId);
  if (tabId === null) await ext.storage.session.remove("trackedTabId");
  else await ext.storage.session.set({ trackedTabId: tabId });
}

export async function getTab(tabId) {
  try {
    return await ext.tabs.get(tabId);
  } catch {
    throw new TPError(Codes.TAB_CLOSED, `Tab ${tabId} does not exist (it may have been closed).`, { tab_id: tabId });
  }
}

// Tabs as the browser last described them, for the look-up that nearly every command starts with (a
// tabs.get is about 0.4 ms of a 3 ms call). An entry comes from a tabs.get and is replaced by each
// onUpdated, which carries the whole tab (address, title, loading status); it is dropped the moment a
// navigation starts in the tab's top frame, when the tab is closed, replaced or moved to another window,
// and every entry goes when a tab is activated or a window focused or resized. The events reach the
// worker a moment after the change: an op that only needs the tab's id and whether it is a web page at
// all takes it from here; what is shown or acted on by address (approval prompts: tabs.resolve; the
// cookies of state.save; tabs.track's answer) asks getTab, which stays a fresh tabs.get (the waits poll
// it too). Width and height can lag (the debugging bar, docked DevTools): only the about:blank answer
// reads them.
/** @type {Map<number, chrome.tabs.Tab>} */
const described = new Map();

/** Keep `described` current; called once, as the worker starts. */
export function watchTabs() {
  const forget = (/** @type {number} */ tabId) => described.delete(tabId);
  const forgetAll = () => described.clear();
  ext.tabs.onUpdated.addListener((tabId, _change, tab) => {
    if (described.has(tabId)) described.set(tabId, tab);
  });
  ext.tabs.onRemoved.addListener(forget);
  ext.tabs.onDetached.addListener(forget);
  ext.tabs.onReplaced.addListener((_added, removed) => forget(removed));
  ext.webNavigation.onBeforeNavigate.addListener((d) => {
    if (d.frameId === 0) forget(d.tabId);
  });
  ext.tabs.onActivated.addListener(forgetAll); // two tabs' `active` changed
  ext.windows.onFocusChanged.addListener(forgetAll);
  ext.windows.onBoundsChanged.addListener(forgetAll); // the tabs' width and height
}

/** getTab through `described`. @param {number} tabId @returns {Promise<chrome.tabs.Tab>} */
async function describedTab(tabId) {
  const known = described.get(tabId);
  if (known) return { ...known };
  const tab = await getTab(tabId);
  described.set(tabId, tab);
  return { ...tab };
}

/** Tabs looked up for a request's params, handed once to the op that runs next (the dialog guard's look). */
const lookedUp = new WeakMap();

/** The op about to run with `params` may take `tab` as its target instead of looking it up again. */
export function rememberTarget(params, tab) {
  lookedUp.set(params, tab);
}

/**
 * The tab a command works in: the one it names, else the tracked tab, else the active tab. `fresh`: as
 * the browser says it is now (a tabs.get), for what is shown or acted on by its address; otherwise as
 * the browser's events last described it (`described`).
 * @param {Record<string, any>} params @param {{fresh?: boolean}} [how]
 */
export async function targetTab(params, { fresh = false } = {}) {
  const known = lookedUp.get(params);
  if (known) {
    lookedUp.delete(params);
    if (!fresh) return known;
  }
  const look = fresh ? getTab : describedTab;
  if (Number.isInteger(params.tab_id)) return firstPage(await look(params.tab_id));
  const tracked = await trackedTabId();
  if (tracked !== null) {
    try {
      return firstPage(await look(tracked));
    } catch {
      await setTracked(null);
    }
  }
  let [tab] = await ext.tabs.query({ active: true, lastFocusedWindow: true });
  if (!tab) [tab] = await ext.tabs.query({ active: true });
  if (!tab) throw new TPError(Codes.TAB_CLOSED, "The browser has no open tab to work in.");
  return firstPage(tab);
}

const FIRST_PAGE_MS = 5000;

/**
 * A tab opened a moment ago (by a link, `window.open`) has no address until its first page commits, only
 * a pending one: the tab is waited for until it has one, within FIRST_PAGE_MS, rather than being taken
 * for a page extensions cannot enter. Any other tab is returned as it is, at once.
 * @param {chrome.tabs.Tab} tab @returns {Promise<chrome.tabs.Tab>}
 */
function firstPage(tab) {
  if (tab.url || !tab.pendingUrl || isRestricted(tab.pendingUrl) || tab.id === undefined) return Promise.resolve(tab);
  const tabId = tab.id;
  return new Promise((resolve) => {
    let timer = 0;
    const done = (/** @type {chrome.tabs.Tab} */ now) => {
      clearTimeout(timer);
      ext.tabs.onUpdated.removeListener(updated);
      resolve(now);
    };
    const updated = (/** @type {number} */ id, /** @type {unknown} */ _change, /** @type {chrome.tabs.Tab} */ now) => {
      if (id === tabId && now.url) done(now);
    };
    ext.tabs.onUpdated.addListener(updated);
    timer = setTimeout(() => getTab(tabId).then(done, () => done(tab)), FIRST_PAGE_MS);
    getTab(tabId).then((now) => now.url && done(now), () => done(tab)); // it may have committed meanwhile
  });
}

export function isRestricted(url) {
  return !url || (RESTRICTED.test(url) && url !== "about:blank") || /^https:\/\/chrome\.google\.com\/webstore/.test(url);
}

export function assertReadable(tab) {
  if (!tab.url && tab.pendingUrl && !isRestricted(tab.pendingUrl)) {
    throw new TPError(
      Codes.TIMEOUT,
      `Tab ${tab.id} is still opening its first page (${tab.pendingUrl.split("?")[0]}); ask again once it has loaded.`,
      { tab_id: tab.id, url: tab.pendingUrl },
    );
  }
  if (isRestricted(tab.url || tab.pendingUrl || "")) {
    throw new TPError(
      Codes.NOT_SUPPORTED,
      `Tabpilot cannot work in ${(tab.url || "this page").split("?")[0]}: browsers keep extensions out of their own pages. Navigate the tab to a web page first.`,
      { tab_id: tab.id, url: tab.url },
    );
  }
}

export async function listTabs() {
  const tracked = await trackedTabId();
  const tabs = await ext.tabs.query({});
  return tabs.map((t) => ({ tab_id: t.id, url: t.url ?? "", title: t.title ?? "", active: !!t.active, tracked: t.id === tracked }));
}

/** Forget the tracked tab when it closes; called once, as the worker starts. */
export function watchTrackedTab() {
  ext.tabs.onRemoved.addListener(async (tabId) => {
    if ((await trackedTabId()) === tabId) await setTracked(null);
  });
}

/**
 * tabs.open: a new tab in front, in the last focused window, loading `url` (the agent's own tab).
 * @param {import("./operations.js").TabsOpenParams} params
 */
export async function openTab(params, load) {
  const tab = await ext.tabs.create({ url: "about:blank", active: true });
  if (tab.id === undefined) throw new TPError(Codes.INTERNAL, "The browser did not open a tab.");
  if (params.url === "about:blank") return { tab_id: tab.id, url: "about:blank", title: "" };
  // The new tab's own about:blank load must be over first, or its events would end the wait for ours.
  for (let waited = 0; (await getTab(tab.id)).status === "loading" && waited < 2000; waited += 10) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  try {
    const loaded = await load(tab, params);
    return { tab_id: tab.id, url: loaded.url, title: loaded.title };
  } catch (err) {
    // The tab stays (the agent owns it and may retry or close it); the error says which one it is.
    if (err instanceof TPError) err.details = { ...(err.details ?? {}), tab_id: tab.id };
    throw err;
  }
}

/**
 * tabs.activate: the tab in front of its window, and that window focused.
 * @param {import("./operations.js").TabsActivateParams} params
 */
export async function activateTab(params) {
  const tab = await getTab(params.tab_id);
  await ext.tabs.update(tab.id, { active: true });
  await ext.windows.update(tab.windowId, { focused: true }).catch(() => {});
  const now = await getTab(tab.id);
  return { tab_id: now.id, url: now.url ?? "", title: now.title ?? "" };
}

/**
 * tabs.close
 * @param {import("./operations.js").TabsCloseParams} params
 */
export async function closeTab(params) {
  const tab = await getTab(params.tab_id);
  await ext.tabs.remove(tab.id);
  return { tab_id: tab.id };
}
