// @ts-check
// Capture, page side (MAIN world) — 6/7: WebSocket lifecycle and messages.
// `WebSocket` becomes a Proxy of the browser's constructor: `new WebSocket(...)` builds the real
// socket, so `instanceof WebSocket`, the prototype, the static constants (OPEN, ...) and subclassing
// are unchanged. `send` is hooked once on the prototype; incoming messages are seen by a listener
// added first, which never stops the event, so the page's own onmessage and listeners still fire.
// Text is cut at 4 KB (`truncated: true`); binary is `[Binary: N bytes]`. At most 20 connections
// are followed: a 21st evicts the oldest. With "capture WebSockets" off nothing is followed.
(() => {
  const hub = window.__tabpilotCaptureHub;
  if (!hub || hub.websocket) return;
  hub.websocket = true;

  const Native = window.WebSocket;
  if (typeof Native !== "function") return;

  const MAX_DATA = 4096;
  const MAX_CONNECTIONS = 20;
  const tracked = new Map(); // socket -> {id, url, listeners}; insertion order = age
  const prefix = (() => {
    try {
      const bytes = crypto.getRandomValues(new Uint8Array(4));
      return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
    } catch {
      return Math.random().toString(16).slice(2, 10);
    }
  })();
  let counter = 0;
  const { addEventListener: on, removeEventListener: off } = hub.native;

  function emit(conn, event, extra) {
    // `id` as in seed 003's entries; `connection_id` as the filter of the same name.
    hub.emit({ kind: "ws", ts: hub.isoNow(), event, id: conn.id, connection_id: conn.id, url: conn.url, ...extra });
  }

  const blobSize = hub.native.blobSize;
  const NOT = hub.read(null, null);
  const typedBytes = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(Uint8Array.prototype), "byteLength")?.get ?? null;

  /** Bytes of a binary frame, read with the browser's own accessors (never a getter of the page's). */
  function binarySize(data) {
    const getters = [blobSize, hub.get.bufferLength, hub.get.viewLength];
    for (let i = 0; i < getters.length; i++) {
      const n = hub.read(getters[i], data);
      if (n !== NOT) return n;
    }
    const typed = hub.read(hub.get.typedName, data);
    return typeof typed === "string" ? hub.read(typedBytes, data) : 0;
  }

  // `size` is in bytes, as on the wire: UTF-8 for text.
  function payload(data) {
    if (typeof data === "string") {
      const [text, truncated] = hub.cut(data, MAX_DATA);
      const size = hub.utf8Length(data);
      return truncated ? { data: text, size, truncated: true } : { data: text, size };
    }
    const size = binarySize(data);
    return { data: `[Binary: ${size} bytes]`, size, binary: true };
  }

  function untrack(ws, conn) {
    tracked.delete(ws);
    for (const [type, fn] of conn.listeners) hub.apply(off, ws, [type, fn]);
  }

  function track(ws) {
    const conn = { id: `ws-${prefix}-${++counter}`, url: String(ws.url), listeners: [] };
    const listen = (type, fn) => {
      conn.listeners.push([type, fn]);
      hub.apply(on, ws, [type, fn]);
    };
    listen("open", () => emit(conn, "open", { protocol: ws.protocol || undefined }));
    listen("message", (e) => {
      try {
        if (e.isTrusted) emit(conn, "message", { direction: "incoming", ...payload(e.data) });
      } catch {
        // never in the page's way
      }
    });
    listen("error", () => emit(conn, "error", {}));
    listen("close", (e) => {
      emit(conn, "close", { code: e.code, reason: hub.cut(String(e.reason || ""), 500)[0], was_clean: e.wasClean });
      untrack(ws, conn);
    });
    tracked.set(ws, conn);
    emit(conn, "connecting", {});
    if (tracked.size > MAX_CONNECTIONS) {
      const [oldest, old] = tracked.entries().next().value;
      untrack(oldest, old);
      emit(old, "evicted", {});
    }
  }

  window.WebSocket = new Proxy(Native, {
    construct(target, args, newTarget) {
      const ws = Reflect.construct(target, args, newTarget);
      try {
        if (hub.settings.websockets) track(ws);
      } catch {
        // the page gets its socket whatever happens here
      }
      return ws;
    },
  });
  try {
    Object.defineProperty(Native.prototype, "constructor", { value: window.WebSocket, writable: true, configurable: true });
  } catch {
    // ws.constructor stays the browser's function
  }

  const nativeSend = Native.prototype.send;
  const hooks = {
    send(data) {
      const result = Reflect.apply(nativeSend, this, arguments);
      const conn = tracked.get(this);
      if (conn !== undefined) {
        try {
          emit(conn, "message", { direction: "outgoing", ...payload(data) });
        } catch {
          // idem
        }
      }
      return result;
    },
  };
  Object.defineProperty(hooks.send, "length", { value: nativeSend.length });
  Native.prototype.send = hooks.send;

  // Switched off: stop following every connection at once.
  hub.onSettings((now, before) => {
    if (before.websockets && !now.websockets) for (const [ws, conn] of [...tracked]) untrack(ws, conn);
  });
})();
