// @ts-check
// Capture, page side (MAIN world, document_start, every frame) — 1/7: the hub.
// The capture files that follow (bodies, console, errors, network, websocket, link) register with
// this hub through a hidden global that exists only while they load: capture/link.js deletes it, and
// no page script runs in between (document_start). Everything here must never break a page: each
// hook is wrapped in try/catch and calls the page's function whatever happens.
(() => {
  const KEY = "__tabpilotCaptureHub";
  if (Reflect.apply(Object.prototype.hasOwnProperty, window, [KEY])) return;

  // The page may replace these later; capture keeps the originals.
  const apply = Reflect.apply;
  const ownDescriptor = Object.getOwnPropertyDescriptor;
  const define = Reflect.defineProperty;
  const NativeDate = Date;
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
    blobSize: typeof Blob === "function" ? Object.getOwnPropertyDescriptor(Blob.prototype, "size")?.get ?? null : null,
  };

  const MAX_QUEUE = 5000; // items waiting for the relay; beyond, new ones are counted as dropped
  const MAX_QUEUE_CHARS = 4_000_000; // and at most this many characters of text waiting (bodies are big)
  const FLUSH_MS = 50; // at most one hand-over per 50 ms under load; at once when quiet
  const FLUSH_ITEMS = 100; // a burst inside one task (a loop of console.log) is handed over as it goes
  const MAX_STRING = 500; // one string inside a serialized console argument
  const MAX_KEYS = 20; // keys or items shown per object or array
  const MAX_DEPTH = 3;
  const MAX_NODES = 200; // values visited per serialized argument

  const settings = { websockets: true, bodies: false }; // the defaults until the relay tells
  const settingsListeners = [];
  let queue = [];
  let queuedChars = 0;
  let dropped = 0;
  let sink = null; // (items, dropped) => void, set by capture/link.js
  let scheduled = false;
  let lastFlush = -Infinity;
  let onHold = null; // () => void, set by capture/link.js: told when items wait for a later hand-over
  let direct = null; // (message) => void, set by capture/link.js: a message to the isolated world now

  function flush() {
    scheduled = false;
    lastFlush = native.perfNow();
    if (!sink || (queue.length === 0 && dropped === 0)) return;
    const items = queue;
    queue = [];
    queuedChars = 0;
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
    else {
      native.setTimeout(flush, wait);
      try {
        onHold?.(); // the relay learns that items wait here (a flush asked meanwhile must not skip them)
      } catch {
        // a closed channel
      }
    }
  }

  const TEXT_FIELDS = ["text", "data", "stack", "message", "requestBody", "responseBody"];
  /** The characters an item holds (its text fields; everything else in an item is small). */
  function weight(item) {
    let n = 200;
    for (let i = 0; i < TEXT_FIELDS.length; i++) {
      const d = ownDescriptor(item, TEXT_FIELDS[i]);
      if (d && typeof d.value === "string") n += d.value.length;
    }
    return n;
  }

  function emit(item) {
    const chars = weight(item);
    if (queue.length >= MAX_QUEUE || queuedChars + chars > MAX_QUEUE_CHARS) {
      dropped += 1;
      return;
    }
    queuedChars += chars;
    define(queue, queue.length, { value: item, writable: true, enumerable: true, configurable: true });
    if (queue.length >= FLUSH_ITEMS && sink) flush();
    else schedule();
  }

  const isoNow = () => apply(native.toISOString, new NativeDate(native.dateNow()), []);
  const isoAt = (epochMs) => apply(native.toISOString, new NativeDate(epochMs), []);

  /** `[text, truncated]`: `text` cut to `max` characters. */
  function cut(text, max) {
    return text.length > max ? [apply(stringSlice, text, [0, max]), true] : [text, false];
  }

  // Serializing a console argument must not run page code: no getter is called, no method or global
  // the page may have replaced is used. Built-ins are saved now (document_start, before any page
  // script); a value's kind comes from its prototype chain and is confirmed by a saved native
  // accessor, which throws on an impostor without consulting it.
  // Limit: reading the keys or prototype of a Proxy still runs its traps; nothing in the page can see
  // that a value is a Proxy without asking it.
  const keysOf = Object.keys;
  const createObject = Object.create;
  const setPrototype = Object.setPrototypeOf;
  const prototypeOf = Object.getPrototypeOf;
  const isArray = Array.isArray;
  const stringSlice = String.prototype.slice;
  const stringSplit = String.prototype.split;
  const charCodeAt = String.prototype.charCodeAt;
  const stringTrim = String.prototype.trim;
  const arrayJoin = Array.prototype.join;
  const { has: setHas, add: setAdd, delete: setDelete } = Set.prototype;
  const accessor = (proto, name) => {
    try {
      return (proto && ownDescriptor(proto, name)?.get) || null;
    } catch {
      return null;
    }
  };
  const TypedArrayProto = prototypeOf(Uint8Array.prototype);
  const has = typeof Node === "function";
  const get = {
    nodeType: has ? accessor(Node.prototype, "nodeType") : null,
    nodeName: has ? accessor(Node.prototype, "nodeName") : null,
    localName: has ? accessor(Element.prototype, "localName") : null,
    id: has ? accessor(Element.prototype, "id") : null,
    className: has ? accessor(Element.prototype, "className") : null,
    data: has ? accessor(CharacterData.prototype, "data") : null,
    mapSize: accessor(Map.prototype, "size"),
    setSize: accessor(Set.prototype, "size"),
    bufferLength: accessor(ArrayBuffer.prototype, "byteLength"),
    viewLength: accessor(DataView.prototype, "byteLength"),
    typedName: accessor(TypedArrayProto, Symbol.toStringTag),
    typedLength: accessor(TypedArrayProto, "length"),
    regexSource: accessor(RegExp.prototype, "source"),
    regexFlags: accessor(RegExp.prototype, "flags"),
    description: accessor(Symbol.prototype, "description"),
  };
  const dateTime = Date.prototype.getTime;
  const ErrorProto = Error.prototype;
  const PromiseProto = Promise.prototype;
  const stackGetter = (() => {
    try {
      return ownDescriptor(new Error(), "stack")?.get ?? null; // V8 may keep `stack` as an own accessor
    } catch {
      return null;
    }
  })();
  const NOT = Symbol("not");

  /** A native accessor's value for `value`, or NOT when `value` is not of its kind. */
  function read(getter, value) {
    if (!getter) return NOT;
    try {
      return apply(getter, value, []);
    } catch {
      return NOT;
    }
  }

  const slice = (text, max) => (text.length > max ? apply(stringSlice, text, [0, max]) : text);

  /** The value of a data property (own, or on the first few prototypes); a getter gives `fallback`. */
  function dataValue(obj, key, fallback, own = false) {
    for (let o = obj, depth = 0; o && depth < 4; o = own ? null : prototypeOf(o), depth++) {
      const d = ownDescriptor(o, key);
      if (d) return "value" in d ? d.value : fallback;
    }
    return fallback;
  }

  function describeNode(node, type) {
    if (type === 1) {
      const id = read(get.id, node);
      const className = read(get.className, node);
      const classes = typeof className === "string" ? apply(stringSplit, apply(stringTrim, className, []), [/\s+/]) : [];
      const cls = classes.length && classes[0] ? `.${apply(arrayJoin, classes, ["."])}` : "";
      return `<${read(get.localName, node)}${id ? `#${id}` : ""}${cls}>`;
    }
    if (type === 3) return `#text "${slice(String(read(get.data, node)), 50)}"`;
    if (type === 9) return "#document";
    return String(read(get.nodeName, node));
  }

  function describeError(v) {
    const name = dataValue(v, "name", "Error");
    const ownMessage = ownDescriptor(v, "message");
    const message = !ownMessage ? "" : "value" in ownMessage ? (typeof ownMessage.value === "string" ? ownMessage.value : "") : null;
    let stack = ownDescriptor(v, "stack");
    stack = !stack ? "" : "value" in stack ? stack.value : stack.get === stackGetter ? read(stackGetter, v) : "";
    const out = createObject(null);
    put(out, "name", typeof name === "string" ? slice(name, 100) : "Error");
    put(out, "message", typeof message === "string" ? slice(message, MAX_STRING) : "[Getter]");
    put(out, "stack", typeof stack === "string" ? slice(stack, 2000) : "");
    return out;
  }

  const ObjectProto = Object.prototype;
  const ArrayProto = Array.prototype;
  const NodeProto = has ? Node.prototype : null;
  const { prototype: DateProto } = Date;
  const { prototype: RegExpProto } = RegExp;
  const { prototype: MapProto } = Map;
  const { prototype: SetProto } = Set;
  const { prototype: DataViewProto } = DataView;
  const { prototype: ArrayBufferProto } = ArrayBuffer;

  /**
   * What a non-plain object is, when it is one of the built-in kinds shown in short; else null. The
   * prototype chain says which kind to check, and the kind's native accessor confirms it (an accessor
   * throws on an impostor; throwing costs microseconds, so plain objects are never tried).
   */
  function special(v) {
    if (v === window) return "[Window]";
    for (let p = prototypeOf(v), depth = 0; p !== null && depth < 8; p = prototypeOf(p), depth++) {
      if (p === ObjectProto || p === ArrayProto) return null;
      if (p === NodeProto) {
        const nodeType = read(get.nodeType, v);
        return nodeType === NOT ? null : describeNode(v, nodeType);
      }
      if (p === DateProto) {
        const time = read(dateTime, v);
        if (time === NOT) return null;
        return Number.isNaN(time) ? "Invalid Date" : apply(native.toISOString, v, []);
      }
      if (p === RegExpProto) {
        const source = read(get.regexSource, v);
        return source === NOT ? null : `/${source}/${read(get.regexFlags, v)}`;
      }
      if (p === MapProto || p === SetProto) {
        const size = read(p === MapProto ? get.mapSize : get.setSize, v);
        return size === NOT ? null : `[${p === MapProto ? "Map" : "Set"}(${size})]`;
      }
      if (p === TypedArrayProto) {
        const typed = read(get.typedName, v);
        return typeof typed === "string" ? `[${typed}(${read(get.typedLength, v)})]` : null;
      }
      if (p === DataViewProto) {
        const bytes = read(get.viewLength, v);
        return bytes === NOT ? null : `[DataView(${bytes})]`;
      }
      if (p === ArrayBufferProto) {
        const bytes = read(get.bufferLength, v);
        return bytes === NOT ? null : `[ArrayBuffer(${bytes})]`;
      }
      if (p === ErrorProto) return describeError(v);
      if (p === PromiseProto) return "[Promise]";
    }
    return null;
  }

  /** Sets a key on an object made here, whatever setters the page put on Object.prototype. */
  const put = (obj, key, value) => define(obj, key, { value, writable: true, enumerable: true, configurable: true });

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
      if (typeof v === "string") return slice(v, MAX_STRING);
      if (typeof v === "undefined") return "undefined";
      if (typeof v === "bigint") return `${v}n`;
      if (typeof v === "symbol") return `Symbol(${read(get.description, v) ?? ""})`;
      if (typeof v === "function") {
        const name = dataValue(v, "name", "", true);
        return `[Function ${(typeof name === "string" && slice(name, 100)) || "anonymous"}]`;
      }
      if (apply(setHas, seen, [v])) return "[Circular]";
      const short = special(v);
      if (short !== null) return short;
      const list = isArray(v);
      if (depth >= MAX_DEPTH || budget <= 0) return list ? `[Array(${dataValue(v, "length", "?", true)})]` : "[Object]";
      apply(setAdd, seen, [v]);
      try {
        // Made without prototypes, so JSON.stringify finds no toJSON the page may have planted.
        if (list) {
          const out = setPrototype([], null);
          const length = dataValue(v, "length", 0, true);
          const n = Math.min(length, MAX_KEYS);
          for (let i = 0; i < n; i++) put(out, i, field(v, String(i), depth));
          if (length > n) put(out, n, `… ${length - n} more`);
          return out;
        }
        const out = createObject(null);
        const keys = keysOf(v);
        const n = Math.min(keys.length, MAX_KEYS);
        for (let i = 0; i < n; i++) put(out, keys[i], field(v, keys[i], depth));
        if (keys.length > n) put(out, "…", `${keys.length - n} more keys`);
        return out;
      } finally {
        apply(setDelete, seen, [v]);
      }
    };
    const field = (obj, key, depth) => {
      try {
        const d = ownDescriptor(obj, key);
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

  /** Bytes of `text` in UTF-8 (what a WebSocket frame carries), without building the bytes. */
  function utf8Length(text) {
    let n = text.length;
    for (let i = 0; i < text.length; i++) {
      const c = apply(charCodeAt, text, [i]);
      if (c < 0x80) continue;
      if (c < 0x800) n += 1;
      else if (c >= 0xd800 && c < 0xdc00 && i + 1 < text.length && (apply(charCodeAt, text, [i + 1]) & 0xfc00) === 0xdc00) {
        n += 2; // a surrogate pair: 2 UTF-16 units, 4 bytes
        i += 1;
      } else n += 2;
    }
    return n;
  }

  const hub = {
    native,
    apply,
    read,
    get,
    utf8Length,
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
    connect(fn, hold, now) {
      sink = fn;
      onHold = hold ?? null;
      direct = now ?? null;
      schedule();
    },
    /** A small message for the isolated world at once, outside the batched capture (capture/frames.js). */
    signal(message) {
      try {
        direct?.(message);
      } catch {
        // a closed channel: nobody is told, the page goes on
      }
    },
  };
  Object.defineProperty(window, KEY, { value: hub, configurable: true, enumerable: false, writable: false });
})();
