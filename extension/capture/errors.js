// @ts-check
// Capture, page side (MAIN world) — 4/7: uncaught errors and unhandled promise rejections, with
// message, stack and source location. Listens in the capture phase and never cancels the event, so
// the page's own handlers and the browser's console report run as before.
(() => {
  const hub = window.__tabpilotCaptureHub;
  if (!hub || hub.errors) return;
  hub.errors = true;

  const MAX = 4096;
  const text = (v) => hub.cut(String(v ?? ""), MAX)[0];

  function stackOf(value) {
    try {
      return value instanceof Error || (value && typeof value === "object") ? text(value.stack) : "";
    } catch {
      return "";
    }
  }

  hub.native.addEventListener.call(
    window,
    "error",
    (event) => {
      try {
        if (!(event instanceof ErrorEvent)) return; // a resource that failed to load: see network
        hub.emit({
          kind: "error",
          ts: hub.isoNow(),
          type: "error",
          message: text(event.message),
          stack: stackOf(event.error),
          url: text(event.filename),
          line: event.lineno || null,
          column: event.colno || null,
        });
      } catch {
        // never in the page's way
      }
    },
    true,
  );

  hub.native.addEventListener.call(
    window,
    "unhandledrejection",
    (event) => {
      try {
        const reason = event.reason;
        let message;
        if (reason instanceof Error) message = `${reason.name}: ${reason.message}`;
        else if (typeof reason === "string") message = reason;
        else message = hub.preview(reason);
        const stack = stackOf(reason);
        const where = /\(?((?:https?|file|blob):[^\s)]*?):(\d+):(\d+)\)?/.exec(stack);
        hub.emit({
          kind: "error",
          ts: hub.isoNow(),
          type: "unhandledrejection",
          message: text(message),
          stack,
          url: where ? where[1] : "",
          line: where ? Number(where[2]) : null,
          column: where ? Number(where[3]) : null,
        });
      } catch {
        // never in the page's way
      }
    },
    true,
  );
})();
