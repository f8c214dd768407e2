// @ts-check
// Capture, service-worker side: mirrors the app's capture toggles where pages can read them, and
// forwards the pages' capture batches to the app as `capture` event frames.
//
// Toggles: the app pushes `state.capabilities` (capture_websockets, capture_network_bodies);
// they are written to chrome.storage.local under `capture` = {websockets, bodies}, where the
// content/capture relays read and follow them (content scripts can read storage.local; session
// storage stays closed to them, as it holds the link state). The last toggles the app gave are kept
// across browser restarts; before the app ever spoke, the capabilities' defaults hold (capabilities.js:
// WebSockets on, bodies off).
import { CAPABILITIES } from "./capabilities.js";
import * as ext from "./ext.js";
import { markCaptured } from "./routes.js";

const FLUSH_BOUND_MS = 500; // capture.flush waits this long at most: a hung page cannot stall a read

/** Frames that told us they hold capture items not sent yet, per tab (relay.js `captureOpen`). */
const holding = new Map();

/** @param {number} tabId @param {number} frameId @param {boolean} on */
function setHolding(tabId, frameId, on) {
  const frames = holding.get(tabId);
  if (on) {
    if (frames) frames.add(frameId);
    else holding.set(tabId, new Set([frameId]));
  } else if (frames) {
    frames.delete(frameId);
    if (frames.size === 0) holding.delete(tabId);
  }
}

/**
 * capture.flush, before the app reads captured data: the frames of the tab that hold capture items send
 * them now, and this answers only once their batches went to the app — on the same connection, before
 * this answer, so the app has filed them when the answer comes.
 *
 * The top frame is always asked. Its `captureOpen` travels by runtime messaging, which can arrive after
 * an answer that came by the debugger: `execute_js` that awaits a fetch returns through CDP while the
 * relay's note that it holds the request is still on its way, and a read asked at once would miss it.
 * Asking the relay orders the two (its flush request and the page side's items share one port).
 */
export async function flushCapture(tab) {
  if (tab.id === undefined) return { flushed: 0, frames: 0 };
  const tabId = tab.id;
  const answer = await flushFrames(tabId);
  return { ...answer, tab_id: tabId }; // the app reads this tab when it named none
}

/** @param {number} tabId */
async function flushFrames(tabId) {
  const frames = new Set(holding.get(tabId) ?? []).add(0);
  holding.delete(tabId); // the batches that answer say again whether anything is still held
  const asked = [...frames].map((frameId) =>
    ext.tabs.sendMessage(tabId, { captureFlush: true }, frameId).then(
      (sent) => (typeof sent === "number" ? sent : 0),
      () => 0, // no relay there (the frame went away, or capture does not run in it): nothing held
    ),
  );
  let timer = 0;
  const bound = new Promise((resolve) => {
    timer = setTimeout(() => resolve(null), FLUSH_BOUND_MS);
  });
  const counts = await Promise.race([Promise.all(asked), bound]);
  clearTimeout(timer);
  if (counts === null) return { flushed: 0, frames: frames.size, timed_out: true };
  return { flushed: /** @type {number[]} */ (counts).reduce((a, b) => a + b, 0), frames: frames.size };
}

const DEFAULTS = {
  websockets: CAPABILITIES.capture_websockets.default,
  bodies: CAPABILITIES.capture_network_bodies.default,
};

function togglesOf(appState) {
  const caps = appState?.capabilities ?? {};
  return {
    websockets: typeof caps.capture_websockets === "boolean" ? caps.capture_websockets : DEFAULTS.websockets,
    bodies: typeof caps.capture_network_bodies === "boolean" ? caps.capture_network_bodies : DEFAULTS.bodies,
  };
}

export function startCapture(connection) {
  // Earlier versions opened session storage to content scripts; close it again.
  ext.storage.session.setAccessLevel({ accessLevel: "TRUSTED_CONTEXTS" }).catch(() => {});
  let last = "";
  let current = DEFAULTS;
  const mirror = (snapshot) => {
    if (!snapshot.appState) return; // not connected: the last toggles the app gave stay
    current = togglesOf(snapshot.appState);
    const key = JSON.stringify(current);
    if (key === last) return;
    last = key;
    ext.storage.local.set({ capture: current }).catch(() => {});
  };
  connection.onChange(mirror);
  ext.storage.local.get("capture").then(({ capture }) => {
    if (!last && capture) current = /** @type {typeof DEFAULTS} */ (capture); // the worker woke up: keep what pages already follow
  }, () => {});

  ext.runtime.onMessage.addListener((msg, sender, reply) => {
    if (sender.id !== ext.runtime.id) return false;
    if (msg?.captureSettings) {
      reply(current);
      return false;
    }
    if (msg?.captureOpen && sender.tab?.id !== undefined) {
      setHolding(sender.tab.id, sender.frameId ?? 0, true);
      return false;
    }
    const batch = msg?.capture;
    if (!batch || !sender.tab || !Array.isArray(batch.items)) return false;
    if (sender.tab.id !== undefined) setHolding(sender.tab.id, sender.frameId ?? 0, batch.open === true);
    if (sender.tab.id !== undefined) markCaptured(sender.tab.id, batch.items); // answered by a mock or block route
    const data = {
      tab_id: sender.tab.id,
      frame_id: sender.frameId ?? 0,
      url: sender.url ?? sender.tab.url ?? "",
      items: batch.items,
    };
    if (batch.dropped > 0) data.dropped = batch.dropped;
    if (batch.settings) data.settings = batch.settings;
    connection.send({ type: "event", name: "capture", data });
    if (batch.flush) reply({ forwarded: true }); // capture.flush waits for this: the batch is on its way
    return false;
  });
  ext.tabs.onRemoved.addListener((tabId) => holding.delete(tabId));
}
