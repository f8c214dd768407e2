// @ts-check
// Capture, page side (MAIN world) — 3/7: console messages. Each console method keeps doing what it
// did (it is called with the same arguments and `this`); capture records level, text, arguments
// (bounded, getters never called), the calling source and, for warnings and errors, the stack.
(() => {
  const hub = window.__tabpilotCaptureHub;
  if (!hub || hub.console) return;
  hub.console = true;

  const MAX_TEXT = 4096;
  const MAX_ARGS = 10;
  const LEVELS = { log: "log", info: "info", warn: "warn", error: "error", debug: "debug", trace: "debug", assert: "error" };
  const WITH_STACK = new Set(["warn", "error", "trace", "assert"]);

  /** The console line's text: printf-style %s %d %i %f %o %O %c in a leading string, then the rest. */
  function format(args) {
    if (args.length === 0) return "";
    const parts = [];
    let rest = args;
    if (typeof args[0] === "string" && args[0].includes("%")) {
      let i = 1;
      const text = args[0].replace(/%([sdifoOc%])/g, (whole, f) => {
        if (f === "%") return "%";
        if (i >= args.length) return whole;
        const v = args[i++];
        if (f === "c") return "";
        if (f === "d" || f === "i") return String(typeof v === "number" ? Math.trunc(v) : parseInt(v, 10));
        if (f === "f") return String(typeof v === "number" ? v : parseFloat(v));
        return hub.preview(v);
      });
      parts.push(text);
      rest = args.slice(i);
    } else {
      parts.push(hub.preview(args[0]));
      rest = args.slice(1);
    }
    for (const v of rest) parts.push(hub.preview(v));
    return parts.join(" ");
  }

  function record(method, level, args, hook) {
    if (method === "assert") {
      if (args[0]) return;
      args = ["Assertion failed:", ...args.slice(1)];
    }
    const [text, truncated] = hub.cut(format(args), MAX_TEXT);
    const withStack = WITH_STACK.has(method);
    const stack = hub.callerStack(withStack ? 20 : 1, hook);
    const item = {
      kind: "log",
      ts: hub.isoNow(),
      level,
      text,
      args: args.slice(0, MAX_ARGS).map(hub.serialize),
      source: hub.sourceOf(stack[0]),
    };
    if (method !== level) item.method = method;
    if (withStack) item.stack = hub.cut(stack.join("\n"), MAX_TEXT)[0];
    if (truncated) item.truncated = true;
    hub.emit(item);
  }

  for (const [method, level] of Object.entries(LEVELS)) {
    const original = console[method];
    if (typeof original !== "function") continue;
    const wrapped = {
      [method](...args) {
        try {
          record(method, level, args, wrapped);
        } catch {
          // capture never stands between the page and its console
        }
        return Reflect.apply(original, this, args);
      },
    }[method];
    try {
      Object.defineProperty(wrapped, "length", { value: original.length });
      console[method] = wrapped;
    } catch {
      // a frozen console: leave it
    }
  }
})();
