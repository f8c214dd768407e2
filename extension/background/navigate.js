// @ts-check
// tab.navigate: load a URL and wait for load | domcontentloaded | networkidle.
import * as ext from "./ext.js";
import { subscribe, topFrameFromNow } from "./hub.js";
import { Codes, TPError } from "./protocol.js";
import { toContent } from "./content.js";

const ALL_URLS = { urls: ["<all_urls>"] };

const NETWORK_IDLE_MS = 500;

function sameAddress(a, b) {
  try {
    const x = new URL(a);
    const y = new URL(b);
    return x.href === y.href || (x.origin === y.origin && x.pathname === y.pathname && x.search === y.search);
  } catch {
    return false;
  }
}

/** `before.pendingUrl`: a navigation still under way when this one began; its cancellation is not ours. */
function waitForNavigation(tabId, requested, waitUntil, timeoutMs, before) {
  return new Promise((resolve, reject) => {
    const inflight = new Set();
    let idleTimer = null;
    let loaded = false;
    /** @type {(() => void)[]} */
    let offs = [];
    const cleanup = () => {
      clearTimeout(deadline);
      clearTimeout(idleTimer);
      for (const off of offs) off();
    };
    const done = (value) => {
      cleanup();
      resolve(value);
    };
    const fail = (err) => {
      cleanup();
      reject(err);
    };
    const settleIdle = () => {
      clearTimeout(idleTimer);
      if (loaded && inflight.size === 0) idleTimer = setTimeout(() => done(), NETWORK_IDLE_MS);
    };
    const mine = topFrameFromNow(tabId); // not an event of the load before this one (hub.js)
    let committed = false;
    const onCommitted = (d) => {
      if (mine(d)) committed = true;
    };
    const onDom = (d) => {
      if (mine(d) && committed && waitUntil === "domcontentloaded") done();
    };
    const onCompleted = (d) => {
      if (!mine(d) || !committed) return;
      if (waitUntil === "networkidle") {
        loaded = true;
        settleIdle();
      } else done();
    };
    // Only the fragment changed (or pushState): the document stays and no load event will come.
    // Counts only while no cross-document load has started, and only for the address we went to.
    const onSameDocument = (d) => {
      if (mine(d) && !committed && sameAddress(d.url, requested)) done();
    };
    const onError = (d) => {
      if (!mine(d)) return;
      if (d.error !== "net::ERR_ABORTED") {
        // The address was fine; the network or the server was not (refused, unresolvable, reset): the
        // tab now shows the browser's error page, and stays usable (closed_pages.js reads it as empty).
        fail(
          new TPError(Codes.NAVIGATION_FAILED, `The page could not be loaded: ${d.error}. Check the address and that the site is up, then navigate again.`, {
            net_error: d.error,
            url: d.url,
          }),
        );
      } else if (!committed && !(before.pendingUrl && d.url === before.pendingUrl)) {
        // A download, a 204, or a navigation the page cancelled: no page will load.
        fail(
          new TPError(Codes.NAVIGATION_FAILED, `Opening ${d.url} did not load a page (a download, an empty response, or cancelled).`, {
            net_error: d.error,
            url: d.url,
          }),
        );
      }
    };
    const onRemoved = (id) => {
      if (id === tabId) fail(new TPError(Codes.TAB_CLOSED, `Tab ${tabId} was closed while loading.`, { tab_id: tabId }));
    };
    // webRequest's listener type allows a blocking answer; this one only watches.
    /** @param {chrome.webRequest.OnBeforeRequestDetails} d @returns {undefined} */
    const onRequest = (d) => {
      if (d.tabId !== tabId) return;
      inflight.add(d.requestId);
      clearTimeout(idleTimer);
    };
    const onRequestDone = (d) => {
      if (d.tabId !== tabId || !inflight.delete(d.requestId)) return;
      settleIdle();
    };
    const deadline = setTimeout(
      () => fail(new TPError(Codes.TIMEOUT, `The page did not reach '${waitUntil}' within ${timeoutMs} ms.`, { timeout_ms: timeoutMs })),
      timeoutMs,
    );
    // Through the worker's shared listeners (hub.js): adding and removing browser listeners per call is a
    // message to the browser each.
    offs = [
      subscribe(ext.webNavigation.onCommitted, onCommitted),
      subscribe(ext.webNavigation.onDOMContentLoaded, onDom),
      subscribe(ext.webNavigation.onCompleted, onCompleted),
      subscribe(ext.webNavigation.onErrorOccurred, onError),
      subscribe(ext.webNavigation.onReferenceFragmentUpdated, onSameDocument),
      subscribe(ext.webNavigation.onHistoryStateUpdated, onSameDocument),
      subscribe(ext.tabs.onRemoved, onRemoved),
    ];
    if (waitUntil === "networkidle") {
      offs.push(
        subscribe(ext.webRequest.onBeforeRequest, onRequest, ALL_URLS),
        subscribe(ext.webRequest.onCompleted, onRequestDone, ALL_URLS),
        subscribe(ext.webRequest.onErrorOccurred, onRequestDone, ALL_URLS),
      );
    }
  });
}

/** @param {chrome.tabs.Tab} tab @param {import("./operations.js").TabNavigateParams} param1 */
export async function navigate(tab, { url, wait_until: waitUntil = "load", timeout_ms: timeoutMs = 30_000 }) {
  const before = { pendingUrl: null };
  const waiting = waitForNavigation(tab.id, url, waitUntil, timeoutMs, before);
  try {
    const current = await ext.tabs.get(tab.id);
    before.pendingUrl = current.status === "loading" && current.pendingUrl ? current.pendingUrl : null;
    // An earlier navigate that timed out may still be loading this very address: Chrome refuses to
    // start it twice, so this call waits for that load instead.
    if (!(before.pendingUrl && sameAddress(before.pendingUrl, url))) await ext.tabs.update(tab.id, { url });
  } catch (err) {
    waiting.catch(() => {});
    throw new TPError(Codes.INVALID_PARAMS, `Cannot navigate to ${url}: ${err?.message ?? err}`);
  }
  await waiting;
  const now = await ext.tabs.get(tab.id);
  let title = now.title ?? "";
  let finalUrl = now.url ?? url;
  try {
    const brief = await toContent(now, "page.brief", {});
    title = brief.title;
    finalUrl = brief.url;
  } catch {
    // a page the content script cannot enter still has a tab title
  }
  return { status: "complete", url: finalUrl, title };
}
