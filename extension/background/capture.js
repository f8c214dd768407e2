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
    const batch = msg?.capture;
    if (!batch || !sender.tab || !Array.isArray(batch.items)) return false;
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
    return false;
  });
}
