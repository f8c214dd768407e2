import assert from "node:assert/strict";
import { test } from "node:test";

import { assertReadable, targetTab, watchTabs } from "../background/tabs.js";

/** A chrome.* event: listeners kept, fired by the test. */
function event() {
  const listeners = [];
  return {
    addListener: (fn) => listeners.push(fn),
    removeListener: (fn) => listeners.splice(listeners.indexOf(fn) >>> 0, 1),
    fire: (...args) => [...listeners].forEach((fn) => fn(...args)),
    get count() {
      return listeners.length;
    },
  };
}

// A browser with one tab whose state the test changes, counting how often the extension asks for it.
const browser = { tab: { id: 7, url: "https://shop.example/cart", status: "complete", active: true }, asked: 0, closed: false };
globalThis.chrome = {
  tabs: {
    get: async (tabId) => {
      browser.asked += 1;
      if (browser.closed || tabId !== 7) throw new Error(`No tab with id: ${tabId}.`);
      return { ...browser.tab };
    },
    onUpdated: event(),
    onRemoved: event(),
    onDetached: event(),
    onReplaced: event(),
    onActivated: event(),
  },
  windows: { onFocusChanged: event(), onBoundsChanged: event() },
  webNavigation: { onBeforeNavigate: event() },
};
const on = globalThis.chrome;
watchTabs();

test("a tab is asked for once, then kept as the browser's events describe it, and dropped when it moves", async () => {
  assert.equal((await targetTab({ tab_id: 7 })).url, "https://shop.example/cart");
  const first = await targetTab({ tab_id: 7 });
  assert.equal(browser.asked, 1, "the second look-up comes from what the browser said");
  first.url = "changed by an op"; // each look-up gets its own copy
  assert.equal((await targetTab({ tab_id: 7 })).url, "https://shop.example/cart");

  // The address and status change: onUpdated carries the whole tab.
  browser.tab = { ...browser.tab, url: "https://shop.example/pay", status: "loading" };
  on.tabs.onUpdated.fire(7, { url: browser.tab.url, status: "loading" }, { ...browser.tab });
  assert.deepEqual(await targetTab({ tab_id: 7 }), browser.tab);
  assert.equal(browser.asked, 1);

  // A navigation in a frame of the page is not the tab's; one in its top frame is asked about again.
  on.webNavigation.onBeforeNavigate.fire({ tabId: 7, frameId: 3, url: "https://ads.example/" });
  await targetTab({ tab_id: 7 });
  assert.equal(browser.asked, 1);
  on.webNavigation.onBeforeNavigate.fire({ tabId: 7, frameId: 0, url: "https://shop.example/done" });
  await targetTab({ tab_id: 7 });
  assert.equal(browser.asked, 2);

  // Activation, focus and size change several tabs at once: everything is asked about again.
  for (const [fire, times] of [
    [() => on.tabs.onActivated.fire({ tabId: 9, windowId: 1 }), 3],
    [() => on.windows.onFocusChanged.fire(1), 4],
    [() => on.windows.onBoundsChanged.fire({ id: 1 }), 5],
  ]) {
    fire();
    await targetTab({ tab_id: 7 });
    assert.equal(browser.asked, times);
  }

  // Moved to another window, or replaced by another tab (a prerendered page taking its place).
  for (const [fire, times] of [
    [() => on.tabs.onDetached.fire(7, { oldWindowId: 1, oldPosition: 0 }), 6],
    [() => on.tabs.onReplaced.fire(8, 7), 7],
  ]) {
    fire();
    await targetTab({ tab_id: 7 });
    assert.equal(browser.asked, times);
  }

  // Closed: the browser says so, and so does the answer.
  browser.closed = true;
  on.tabs.onRemoved.fire(7, { windowId: 1, isWindowClosing: false });
  await assert.rejects(targetTab({ tab_id: 7 }), { code: "tab_closed" });
});

test("a tab still opening its first page (a link's new tab) is waited for until it has an address", async () => {
  browser.closed = false;
  browser.tab = { id: 7, url: "", pendingUrl: "https://shop.example/new", status: "loading", active: true };
  on.webNavigation.onBeforeNavigate.fire({ tabId: 7, frameId: 0, url: browser.tab.pendingUrl });
  const listening = on.tabs.onUpdated.count;
  let settled = false;
  const looking = targetTab({ tab_id: 7 }).then((tab) => {
    settled = true;
    return tab;
  });
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(settled, false, "not answered while the tab has no address");
  browser.tab = { id: 7, url: "https://shop.example/new", status: "loading", active: true };
  on.tabs.onUpdated.fire(7, { url: browser.tab.url }, { ...browser.tab });
  assert.equal((await looking).url, "https://shop.example/new");
  assert.equal(on.tabs.onUpdated.count, listening, "the wait stopped listening");

  // Opening a browser page: nothing to wait for, it will not be one Tabpilot can enter.
  browser.tab = { id: 7, url: "", pendingUrl: "chrome://settings/", status: "loading", active: true };
  on.webNavigation.onBeforeNavigate.fire({ tabId: 7, frameId: 0, url: browser.tab.pendingUrl });
  assert.equal((await targetTab({ tab_id: 7 })).pendingUrl, "chrome://settings/");
  assert.equal(on.tabs.onUpdated.count, listening);
});

test("a tab with only a pending address is a page still loading, not one extensions cannot enter", () => {
  const opening = { id: 7, url: "", pendingUrl: "https://shop.example/new?x=1" };
  assert.throws(() => assertReadable(opening), { code: "timeout", message: /still opening its first page \(https:\/\/shop.example\/new\)/ });
  assert.throws(() => assertReadable({ id: 7, url: "", pendingUrl: "chrome://settings/" }), { code: "not_supported" });
  assert.doesNotThrow(() => assertReadable({ id: 7, url: "https://shop.example/", pendingUrl: "chrome://settings/" }));
});
