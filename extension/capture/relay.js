// @ts-check
// Capture, isolated world (every frame, document_start): takes the page's capture events from the
// MAIN-world scripts (capture/link.js explains the private channel), batches them and sends them to
// the service worker, which forwards them to the app. It also tells the page side which capture
// toggles the user has on (chrome.storage.local, mirrored by the service worker; defaults until
// known: WebSockets on, bodies off) and drops what a toggle forbids.
//
// A read of captured data must not miss what a page did a moment ago: the worker's `capture.flush`
// sends `{captureFlush: true}` here (tabs.sendMessage to this frame), which has the page side hand over
// its queue, sends the batch at once and answers only once the worker forwarded it to the app. To keep
// that cheap the worker asks the top frame and only those subframes that told it they hold something
// (`captureOpen`, sent once per batch window; each batch says whether more is held).
(() => {
  if (globalThis.__tabpilotRelay) return;
  globalThis.__tabpilotRelay = true;

  const HELLO = "tabpilot-capture-hello";
  const READY = "tabpilot-capture-ready";
  const SEND_MS = 100; // a batch leaves 100 ms after its first item (or at 500 items, or when the page hides)
  const SEND_ITEMS = 500; // items per message at most
  const MAX_PENDING = 5000; // beyond this the oldest are dropped (and counted)
  const MAX_PENDING_CHARS = 4_000_000; // idem for the characters they hold (bodies are big)

  let port = null;
  let settings = null; // the user's toggles once known
  let pageSettings = null; // what the page side confirmed it applies
  let ackPending = false;
  let pending = [];
  let pendingChars = 0;
  const TEXT_FIELDS = ["text", "data", "stack", "message", "requestBody", "responseBody"];
  const weight = (item) => TEXT_FIELDS.reduce((n, k) => n + (typeof item[k] === "string" ? item[k].length : 0), 200);
  let dropped = 0;
  let timer = 0;
  let alive = true;
  let holding = false; // the page side holds items for a later hand-over (it hands over at most every 50 ms)
  let reported = false; // the worker was told this frame holds something
  const HUB_WAIT_MS = 250; // a flush waits this long at most for the page side (a busy page cannot stall a read)
  let flushes = 0;
  const flushing = new Map(); // flush id → its finish

  const allowed = (item) => (item.kind === "ws" ? settings.websockets : item.kind === "body" ? settings.bodies : true);

  /** Sends what is pending; resolves with the items sent once the worker has them (at once when none). */
  function send(flush = false) {
    clearTimeout(timer);
    timer = 0;
    if (!alive || !settings) return Promise.resolve(0);
    let items = pending.filter(allowed);
    pending = [];
    pendingChars = 0;
    const total = items.length;
    while (items.length > SEND_ITEMS) {
      post({ items: items.slice(0, SEND_ITEMS), dropped: 0, open: true });
      items = items.slice(SEND_ITEMS);
    }
    if (items.length === 0 && dropped === 0 && !ackPending && !reported) return Promise.resolve(0);
    const msg = { items, dropped };
    if (ackPending) msg.settings = pageSettings;
    if (holding) msg.open = true; // more is on its way from the page side
    if (flush) msg.flush = true; // the worker answers once it forwarded this batch
    ackPending = false;
    dropped = 0;
    reported = holding;
    return post(msg).then(() => total);
  }

  function post(capture) {
    try {
      return chrome.runtime.sendMessage({ capture }).catch(() => {});
    } catch {
      alive = false; // the extension was reloaded: this copy of the relay is orphaned
      port?.close();
      return Promise.resolve();
    }
  }

  /** Tells the worker, once per batch window, that this frame holds something (see the header). */
  function report() {
    if (reported || !alive || (pending.length === 0 && !holding)) return;
    reported = true;
    try {
      chrome.runtime.sendMessage({ captureOpen: true }).catch(() => {});
    } catch {
      alive = false;
    }
  }

  /** capture.flush: everything the page side and this relay hold, sent now; resolves once the worker has it. */
  function flushNow() {
    return new Promise((resolve) => {
      const id = ++flushes;
      const finish = () => {
        if (!flushing.delete(id)) return;
        send(true).then(resolve, () => resolve(0));
      };
      flushing.set(id, finish);
      if (!port || !alive) {
        finish();
        return;
      }
      port.postMessage({ flush: id });
      setTimeout(finish, HUB_WAIT_MS);
    });
  }
  try {
    chrome.runtime.onMessage.addListener((msg, sender, reply) => {
      if (msg?.captureFlush !== true || sender.id !== chrome.runtime.id) return false;
      flushNow().then(reply, () => reply(0));
      return true; // answers once the worker has the batch
    });
  } catch {
    // the extension was reloaded: this copy is orphaned and has nothing to hand over
  }

  function schedule() {
    if (!settings) return;
    if (pending.length >= SEND_ITEMS) {
      clearTimeout(timer);
      send();
      return;
    }
    if (!timer) timer = setTimeout(send, SEND_MS);
  }

  function fromPage(event) {
    const msg = event.data;
    if (!msg || typeof msg !== "object") return;
    if (msg.hold === true) holding = true;
    if (Number.isInteger(msg.frames)) globalThis.__tabpilotFrames = { waiting: msg.frames }; // for content/acts.js
    if (Array.isArray(msg.items)) {
      holding = false; // the page side handed over what it held
      for (const item of msg.items) {
        if (!item || typeof item !== "object") continue;
        pending.push(item);
        pendingChars += weight(item);
      }
      dropped += Number.isInteger(msg.dropped) ? msg.dropped : 0;
      let oldest = 0;
      while (pending.length - oldest > MAX_PENDING || (pendingChars > MAX_PENDING_CHARS && pending.length - oldest > 1)) {
        pendingChars -= weight(pending[oldest]);
        oldest += 1;
      }
      if (oldest > 0) {
        dropped += oldest;
        pending = pending.slice(oldest);
      }
    }
    if (msg.ack && typeof msg.ack === "object") {
      pageSettings = { websockets: msg.ack.websockets === true, bodies: msg.ack.bodies === true };
      ackPending = true;
    }
    if (Number.isInteger(msg.flushed)) {
      holding = false; // the page side's queue is empty now
      flushing.get(msg.flushed)?.();
      return;
    }
    report();
    schedule();
  }

  function onHello(event) {
    const offered = event.ports?.[0];
    if (port || !offered) return;
    port = offered;
    removeEventListener(HELLO, onHello);
    port.onmessage = fromPage;
    if (settings) port.postMessage({ settings });
  }
  addEventListener(HELLO, onHello);
  dispatchEvent(new Event(READY));
  setTimeout(() => removeEventListener(HELLO, onHello), 0); // only during document_start

  function apply(value) {
    settings = { websockets: value?.websockets !== false, bodies: value?.bodies === true };
    port?.postMessage({ settings });
    schedule();
  }

  chrome.storage.local
    .get("capture")
    .then(({ capture }) => capture ?? chrome.runtime.sendMessage({ captureSettings: true }))
    .then(apply, () => apply(undefined));
  try {
    chrome.storage.onChanged.addListener((changes, area) => {
      if (area === "local" && changes.capture) apply(changes.capture.newValue);
    });
  } catch {
    // no storage events: the first settings stay
  }
  addEventListener("pagehide", () => send(), true);
})();
