// @ts-check
// An action that starts a navigation (a submit button, a link, Enter in a form) answers once the new
// page has loaded, so the agent's next read sees it. Settled on evidence, not on a fixed wait: a
// main-frame navigation of the tab seen by webNavigation (watched from before the action) or the tab
// already loading right after it. An action that starts none costs only a short grace period.
import * as ext from "./ext.js";
import { subscribe, topFrameFromNow } from "./hub.js";
const GRACE_MS = 30;

/** Start watching `tabId` for a navigation; call the result after the action to learn where it went. */
export function watchNavigation(tabId) {
  const isMine = topFrameFromNow(tabId); // not an event of an earlier load (hub.js)
  let started = null;
  let finished = null;
  let wake = () => {};
  const onBefore = (d) => {
    if (!isMine(d)) return;
    started = d.url;
    wake();
  };
  const onEnd = (d) => {
    if (!isMine(d) || !started) return;
    finished = { url: d.url, error: d.error };
    wake();
  };
  const onSameDocument = (d) => {
    if (!isMine(d)) return;
    started = started ?? d.url;
    finished = { url: d.url, sameDocument: true };
    wake();
  };
  const offs = [
    subscribe(ext.webNavigation.onBeforeNavigate, onBefore),
    subscribe(ext.webNavigation.onCompleted, onEnd),
    subscribe(ext.webNavigation.onErrorOccurred, onEnd),
    subscribe(ext.webNavigation.onHistoryStateUpdated, onSameDocument),
  ];
  const stop = () => {
    for (const off of offs) off();
  };
  const until = (condition, ms) =>
    new Promise((resolve) => {
      if (condition()) return resolve(true);
      const timer = setTimeout(() => resolve(condition()), ms);
      wake = () => {
        if (condition()) {
          clearTimeout(timer);
          resolve(true);
        }
      };
    });

  /**
   * After the action: null (no navigation), or {url, title} once loaded, or {url, pending: true}.
   * `graceMs`: how long a navigation may take to show up; 0 when the page already said it started none.
   * `tabNow`: the tab as looked up after the action, when the caller already asked for it.
   * @param {number} limitMs @param {number} [graceMs] @param {Promise<chrome.tabs.Tab | null>} [tabNow]
   */
  return async function followed(limitMs, graceMs = GRACE_MS, tabNow = undefined) {
    try {
      if (!started) {
        const tab = await (tabNow ?? ext.tabs.get(tabId).catch(() => null));
        if (tab?.status === "loading" && tab.pendingUrl) started = tab.pendingUrl;
      }
      if (!started && !(await until(() => started !== null, graceMs))) return null;
      const ended = await until(() => finished !== null, Math.max(0, limitMs));
      if (!ended) return { url: started, pending: true };
      if (finished.error) return { url: finished.url, error: finished.error };
      const tab = await ext.tabs.get(tabId).catch(() => null);
      return { url: tab?.url ?? finished.url, title: tab?.title ?? "" };
    } finally {
      stop();
    }
  };
}

/** What an action's answer says about the navigation it started (nothing when it started none). */
export function navigationNote(followed) {
  if (!followed) return {};
  if (followed.pending) return { navigation: { url: followed.url, status: "loading" } };
  if (followed.error) return { navigation: { url: followed.url, status: "failed", error: followed.error } };
  return { navigation: { url: followed.url, title: followed.title, status: "complete" } };
}
