// Capture, service-worker side: mirrors the app's capture toggles where pages can read them, and
// forwards the pages' capture batches to the app as `capture` event frames.
//
// Toggles: the app pushes `state.capabilities` (capture_websockets, capture_network_bodies);
// they are written to chrome.storage.session under `capture` = {websockets, bodies}, opened to
// content scripts (TRUSTED_AND_UNTRUSTED_CONTEXTS), where content/capture relays read and follow
// them. Session storage ends with the browser: a new session starts from the defaults (WebSockets
// on, bodies off) until the app says otherwise.

const DEFAULTS = { websockets: true, bodies: false };

function togglesOf(appState) {
  const caps = appState?.capabilities ?? {};
  return {
    websockets: typeof caps.capture_websockets === "boolean" ? caps.capture_websockets : DEFAULTS.websockets,
    bodies: typeof caps.capture_network_bodies === "boolean" ? caps.capture_network_bodies : DEFAULTS.bodies,
  };
}

export function startCapture(connection) {
  chrome.storage.session.setAccessLevel({ accessLevel: "TRUSTED_AND_UNTRUSTED_CONTEXTS" }).catch(() => {});
  let last = "";
  let current = DEFAULTS;
  const mirror = (snapshot) => {
    current = togglesOf(snapshot.appState);
    const key = JSON.stringify(current);
    if (key === last) return;
    last = key;
    chrome.storage.session.set({ capture: current }).catch(() => {});
  };
  connection.onChange(mirror);
  chrome.storage.session.get("capture").then(({ capture }) => {
    if (!last && capture) current = capture; // the worker woke up: keep what pages already follow
  }, () => {});

  chrome.runtime.onMessage.addListener((msg, sender, reply) => {
    if (sender.id !== chrome.runtime.id) return false;
    if (msg?.captureSettings) {
      reply(current);
      return false;
    }
    const batch = msg?.capture;
    if (!batch || !sender.tab || !Array.isArray(batch.items)) return false;
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
