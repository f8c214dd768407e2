// Capture, page side (MAIN world, document_start, every frame) — 1/7: the hub.
// The capture files that follow (bodies, console, errors, network, websocket, link) register with
// this hub through a hidden global that exists only while they load: capture/link.js deletes it, and
// no page script runs in between (document_start). Everything here must never break a page: each
// hook is wrapped in try/catch and calls the page's function whatever happens.
(() => {
  const KEY = "__tabpilotCaptureHub";
  if (Object.prototype.hasOwnProperty.call(window, KEY)) return;

  // The page may replace these later; capture keeps the originals.
  const native = {
    setTimeout: window.setTimeout.bind(window),
    clearTimeout: window.clearTimeout.bind(window),
    queueMicrotask: window.queueMicrotask.bind(window),
    dateNow: Date.now,
    perfNow: performance.now.bind(performance),
    toISOString: Date.prototype.toISOString,
    stringify: JSON.stringify,
    addEventListener: EventTarget.prototype.addEventListener,
    removeEventListener: EventTarget.prototype.removeEventListener,
  };

  const MAX_QUEUE = 5000; // items waiting for the relay; beyond, new ones are counted as dropped
  const FLUSH_MS = 50; // at most one hand-over per 50 ms under load; at once when quiet
  const FLUSH_ITEMS = 100; // a burst inside one task (a loop of console.log) is handed over as it goes
  const MAX_STRING = 500; // one string inside a serialized console argument
  const MAX_KEYS = 20; // keys or items shown per object or array
  const MAX_DEPTH = 3;
  const MAX_NODES = 200; // values visited per serialized argument

  const settings = { websockets: true, bodies: false }; // the defaults until the relay tells
  const settingsListeners = [];
  const queue = [];
  let dropped = 0;
  let sink = null; // (items, dropped) => void, set by capture/link.js
  let scheduled = false;
  let lastFlush = -Infinity;

  function flush() {
    scheduled = false;
    lastFlush = native.perfNow();
    if (!sink || (queue.length === 0 && dropped === 0)) return;
    const items = queue.splice(0, queue.length);
    const lost = dropped;
    dropped = 0;
    try {
      sink(items, lost);
    } catch {
      // a closed channel: capture goes quiet, the page goes on
    }
  }

  function schedule() {
    if (scheduled || !sink) return;
    scheduled = true;
    const wait = FLUSH_MS - (native.perfNow() - lastFlush);
    if (wait <= 0) native.queueMicrotask(flush);
    else native.setTimeout(flush, wait);
  }

  function emit(item) {
    if (queue.length >= MAX_QUEUE) {
      dropped += 1;
      return;
    }
    queue.push(item);
    if (queue.length >= FLUSH_ITEMS && sink) flush();
    else schedule();
  }

  const isoNow = () => native.toISOString.call(new Date(native.dateNow()));
  const isoAt = (epochMs) => native.toISOString.call(new Date(epochMs));

  /** `[text, truncated]`: `text` cut to `max` characters. */
  function cut(text, max) {
    return text.length > max ? [text.slice(0, max), true] : [text, false];
  }

  function describeNode(node) {
    if (node.nodeType === 1) {
      const id = node.id ? `#${node.id}` : "";
      const cls = typeof node.className === "string" && node.className.trim() ? `.${node.className.trim().split(/\s+/).join(".")}` : "";
      return `<${node.localName}${id}${cls}>`;
    }
    if (node.nodeType === 3) return `#text "${cut(node.data, 50)[0]}"`;
    if (node.nodeType === 9) return "#document";
    return node.nodeName;
  }

  /**
   * A console argument as plain, bounded JSON data. Own data properties only: getters are shown as
   * "[Getter]", never called, so serializing cannot run page code or change the page.
   */
  function serialize(value) {
    let budget = MAX_NODES;
    const seen = new Set();
    const walk = (v, depth) => {
      budget -= 1;
      if (v === null || typeof v === "boolean") return v;
      if (typeof v === "number") return Number.isFinite(v) ? v : String(v);
      if (typeof v === "string") return cut(v, MAX_STRING)[0];
      if (typeof v === "undefined") return "undefined";
      if (typeof v === "bigint") return `${v}n`;
      if (typeof v === "symbol") return v.toString();
      if (typeof v === "function") return `[Function ${v.name || "anonymous"}]`;
      if (seen.has(v)) return "[Circular]";
      if (v instanceof Error) return { name: v.name, message: cut(String(v.message), MAX_STRING)[0], stack: cut(String(v.stack || ""), 2000)[0] };
      if (typeof Node !== "undefined" && v instanceof Node) return describeNode(v);
      if (v === window) return "[Window]";
      if (v instanceof Date) return Number.isNaN(v.getTime()) ? "Invalid Date" : native.toISOString.call(v);
      if (v instanceof RegExp) return String(v);
      if (v instanceof Map) return `[Map(${v.size})]`;
      if (v instanceof Set) return `[Set(${v.size})]`;
      if (ArrayBuffer.isView(v)) return `[${v.constructor.name}(${v.length ?? v.byteLength})]`;
      if (v instanceof ArrayBuffer) return `[ArrayBuffer(${v.byteLength})]`;
      if (v instanceof Promise) return "[Promise]";
      if (depth >= MAX_DEPTH || budget <= 0) return Array.isArray(v) ? `[Array(${v.length})]` : "[Object]";
      seen.add(v);
      try {
        if (Array.isArray(v)) {
          const out = [];
          const n = Math.min(v.length, MAX_KEYS);
          for (let i = 0; i < n; i++) out.push(field(v, String(i), depth));
          if (v.length > n) out.push(`… ${v.length - n} more`);
          return out;
        }
        const out = {};
        const keys = Object.keys(v);
        const n = Math.min(keys.length, MAX_KEYS);
        for (let i = 0; i < n; i++) out[keys[i]] = field(v, keys[i], depth);
        if (keys.length > n) out["…"] = `${keys.length - n} more keys`;
        return out;
      } finally {
        seen.delete(v);
      }
    };
    const field = (obj, key, depth) => {
      try {
        const d = Object.getOwnPropertyDescriptor(obj, key);
        if (!d) return "undefined";
        if (!("value" in d)) return "[Getter]";
        return walk(d.value, depth + 1);
      } catch {
        return "[Unreadable]";
      }
    };
    try {
      return walk(value, 0);
    } catch {
      return "[Unreadable]";
    }
  }

  /** A short text for a console argument (what the DevTools console line shows). */
  function preview(value) {
    if (typeof value === "string") return value;
    try {
      const data = serialize(value);
      return typeof data === "string" ? data : native.stringify(data);
    } catch {
      return "[Unreadable]";
    }
  }

  // This script's own URL, to drop capture's frames from stacks.
  let ownPrefix = "";
  try {
    const m = /(chrome-extension:\/\/[^/]+\/)/.exec(new Error().stack || "");
    ownPrefix = m ? m[1] : "";
  } catch {
    ownPrefix = "";
  }

  /**
   * The stack of the page code that called `hook` (one of capture's wrappers), `frames` deep: captured
   * from above the hook, so capture's own frames cost nothing; only the frames needed are captured
   * (a full stack costs ~30 µs per console call).
   */
  const captureStackTrace = Error.captureStackTrace;
  function callerStack(frames, hook) {
    const limit = Error.stackTraceLimit;
    const holder = {};
    try {
      Error.stackTraceLimit = frames;
      captureStackTrace(holder, hook);
    } catch {
      return [];
    } finally {
      Error.stackTraceLimit = limit;
    }
    const lines = String(holder.stack || "").split("\n").slice(1);
    return ownPrefix ? lines.filter((l) => !l.includes(ownPrefix)) : lines;
  }

  /** "url:line:col" of a stack line ("    at f (https://x/app.js:1:2)"). */
  function sourceOf(line) {
    if (!line) return "";
    const m = /\(?((?:https?|file|blob|data|chrome-extension):[^\s)]*?):(\d+):(\d+)\)?\s*$/.exec(line);
    return m ? `${m[1]}:${m[2]}:${m[3]}` : line.trim().replace(/^at\s+/, "");
  }

  function onSettings(fn) {
    settingsListeners.push(fn);
  }

  function applySettings(next) {
    const before = { ...settings };
    settings.websockets = next?.websockets !== false;
    settings.bodies = next?.bodies === true;
    for (const fn of settingsListeners) {
      try {
        fn(settings, before);
      } catch {
        // one module failing leaves the others
      }
    }
  }

  const hub = {
    native,
    settings,
    emit,
    flush,
    cut,
    serialize,
    preview,
    callerStack,
    sourceOf,
    isoNow,
    isoAt,
    onSettings,
    applySettings,
    connect(fn) {
      sink = fn;
      schedule();
    },
  };
  Object.defineProperty(window, KEY, { value: hub, configurable: true, enumerable: false, writable: false });
})();
