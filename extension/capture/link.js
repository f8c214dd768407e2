// @ts-check
// Capture, page side (MAIN world) — 7/7: hands the page's events to the isolated world.
// The channel is a MessageChannel whose port is handed over in a synchronous DOM event at
// document_start, before any page script exists to listen: both worlds announce themselves
// (whichever runs second completes the hand-over) and stop listening after their first task. The
// port is then known only to capture/relay.js, so the page can neither read the stream nor write
// into it. Limits: a page can still produce real console lines, requests and errors of its own, and
// events emitted in the last instant before a document unloads may be lost.
(() => {
  const KEY = "__tabpilotCaptureHub";
  const hub = window[KEY];
  try {
    delete window[KEY]; // no page script has run yet: it never sees the hub
  } catch {
    // not configurable: cannot happen (defined configurable by hub.js)
  }
  if (!hub) return;

  const HELLO = "tabpilot-capture-hello";
  const READY = "tabpilot-capture-ready";
  const channel = new MessageChannel();
  const port = channel.port1;
  const post = MessagePort.prototype.postMessage;
  const dispatch = EventTarget.prototype.dispatchEvent;
  const { addEventListener: on, removeEventListener: off } = hub.native;

  const offer = () => {
    try {
      dispatch.call(window, new MessageEvent(HELLO, { ports: [channel.port2] }));
    } catch {
      // no relay in this frame: capture stays local and is dropped
    }
  };
  const onReady = () => {
    off.call(window, READY, onReady);
    offer();
  };
  on.call(window, READY, onReady);
  hub.native.setTimeout(() => off.call(window, READY, onReady), 0);

  port.onmessage = (event) => {
    const msg = event.data;
    if (msg && typeof msg === "object" && msg.settings) {
      hub.applySettings(msg.settings);
      hub.apply(post, port, [{ ack: { websockets: hub.settings.websockets, bodies: hub.settings.bodies } }]);
    }
    // A read of captured data is coming (capture.flush): everything queued now, then word that it is all.
    if (msg && typeof msg === "object" && Number.isInteger(msg.flush)) {
      hub.flush();
      hub.apply(post, port, [{ flushed: msg.flush }]);
    }
  };
  hub.connect(
    (items, dropped) => hub.apply(post, port, [{ items, dropped }]),
    () => hub.apply(post, port, [{ hold: true }]),
    (message) => hub.apply(post, port, [message]),
  );
  offer();
})();
