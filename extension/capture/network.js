// @ts-check
// Capture, page side (MAIN world) — 5/7: fetch, XMLHttpRequest and resource timing.
// Every request gives a `network` entry (method, URL, status, timing, sizes); with the user's
// "network bodies" on, also a `body` entry (bodies and headers, sensitive headers removed). fetch
// answers the page with the same response object (bodies are read from a clone) and rejects with
// the same error; XHR listeners are added after the page's own, which all still fire.
(() => {
  const hub = window.__tabpilotCaptureHub;
  if (!hub || hub.network) return;
  hub.network = true;
  const bodies = hub.bodies;
  const now = hub.native.perfNow;
  const MAX_URL = 2048;

  function absolute(url) {
    try {
      return hub.cut(new URL(String(url), location.href).href, MAX_URL)[0];
    } catch {
      return hub.cut(String(url), MAX_URL)[0];
    }
  }

  const sizeOf = (value) => {
    const n = value == null ? NaN : Number(value);
    return Number.isFinite(n) ? n : null;
  };

  function requestSize(body) {
    if (body == null) return null;
    if (typeof body === "string") return body.length;
    if (body instanceof Blob) return body.size;
    if (body instanceof ArrayBuffer || ArrayBuffer.isView(body)) return body.byteLength;
    if (body instanceof URLSearchParams) return body.toString().length;
    return null;
  }

  function networkItem(rec, status, extra) {
    return {
      kind: "network",
      ts: hub.isoAt(rec.epoch),
      source: rec.source,
      method: rec.method,
      url: rec.url,
      status,
      duration_ms: Math.round((now() - rec.start) * 10) / 10,
      request_size: rec.requestSize,
      ...extra,
    };
  }

  // Field names as in seed 003's network_body entries (requestBody, responseBody, contentType, ...).
  function bodyItem(rec, status, contentType, request, response, responseHeaders) {
    const item = {
      kind: "body",
      ts: hub.isoAt(rec.epoch),
      source: rec.source,
      method: rec.method,
      url: rec.url,
      status,
      contentType,
      duration: Math.round((now() - rec.start) * 10) / 10,
      requestHeaders: rec.headers,
      responseHeaders,
      requestBody: request.body,
      responseBody: response.body,
    };
    if (request.truncated) item.requestTruncated = true;
    if (response.truncated) item.responseTruncated = true;
    if (request.truncated || response.truncated) item.truncated = true;
    hub.emit(item);
  }

  // -- fetch ------------------------------------------------------------------------------------

  const nativeFetch = window.fetch;
  if (typeof nativeFetch === "function") {
    function begin(input, init) {
      const isRequest = typeof Request !== "undefined" && input instanceof Request;
      const rec = {
        source: "fetch",
        epoch: hub.native.dateNow(),
        start: now(),
        method: String(init?.method || (isRequest ? input.method : "GET")).toUpperCase(),
        url: absolute(isRequest ? input.url : input),
        requestSize: requestSize(init?.body),
        bodies: hub.settings.bodies,
      };
      if (rec.bodies) {
        rec.headers = bodies.safeHeaders(init?.headers ?? (isRequest ? input.headers : null));
        if (init && "body" in init) {
          const type = new Headers(init.headers || (isRequest ? input.headers : undefined)).get("content-type") || "";
          rec.request = Promise.resolve(bodies.describeRequestBody(init.body, type));
        } else if (isRequest && input.body) {
          rec.request = bodies.readRequest(input.clone()).catch(() => ({ body: "[Unreadable]", truncated: false }));
        } else rec.request = Promise.resolve({ body: null, truncated: false });
      }
      return rec;
    }

    function answered(rec, response) {
      const type = response.headers.get("content-type") || "";
      hub.emit(
        networkItem(rec, response.status, {
          ok: response.ok,
          content_type: type,
          response_size: sizeOf(response.headers.get("content-length")),
        }),
      );
      if (!rec.bodies) return;
      const clone = response.clone();
      const headers = bodies.safeHeaders(response.headers);
      Promise.all([rec.request, bodies.readResponse(clone)])
        .then(([request, read]) => bodyItem(rec, response.status, type, request, read, headers))
        .catch(() => {});
    }

    function failed(rec, error) {
      hub.emit(networkItem(rec, 0, { ok: false, error: hub.cut(String(error?.message ?? error), 500)[0] }));
    }

    const wrapped = {
      fetch(input, init) {
        let rec = null;
        try {
          rec = begin(input, init);
        } catch {
          rec = null;
        }
        const promise = Reflect.apply(nativeFetch, this, arguments);
        if (!rec) return promise;
        // A new promise settling like the page's own; unhandled rejections stay unhandled.
        return promise.then(
          (response) => {
            try {
              answered(rec, response);
            } catch {
              // the page gets its response whatever happens here
            }
            return response;
          },
          (error) => {
            try {
              failed(rec, error);
            } catch {
              // idem
            }
            throw error;
          },
        );
      },
    }.fetch;
    Object.defineProperty(wrapped, "length", { value: nativeFetch.length });
    window.fetch = wrapped;
  }

  // -- XMLHttpRequest --------------------------------------------------------------------------

  const XHR = window.XMLHttpRequest;
  if (typeof XHR === "function") {
    const proto = XHR.prototype;
    const native = { open: proto.open, send: proto.send, setRequestHeader: proto.setRequestHeader };
    const state = new WeakMap(); // xhr -> the request it is making now
    const listening = new WeakSet();

    function finished(xhr) {
      try {
        const rec = state.get(xhr);
        if (!rec || rec.reported || rec.start === undefined) return;
        rec.reported = true;
        const status = xhr.status;
        const type = xhr.getResponseHeader("content-type") || "";
        let size = sizeOf(xhr.getResponseHeader("content-length"));
        if (size === null && (xhr.responseType === "" || xhr.responseType === "text")) size = xhr.responseText.length;
        else if (size === null && xhr.responseType === "arraybuffer") size = xhr.response?.byteLength ?? null;
        else if (size === null && xhr.responseType === "blob") size = xhr.response?.size ?? null;
        const extra = { ok: status >= 200 && status < 300, content_type: type, response_size: size };
        if (rec.failure) extra.error = rec.failure;
        hub.emit(networkItem(rec, status, extra));
        if (rec.bodies && !rec.failure) {
          const headers = bodies.parseRawHeaders(xhr.getAllResponseHeaders());
          rec.headers = bodies.safeHeaders(rec.headers);
          bodyItem(rec, status, type, rec.request, bodies.describeXhrResponse(xhr), headers);
        }
      } catch {
        // never in the page's way
      }
    }

    function listen(xhr) {
      if (listening.has(xhr)) return;
      listening.add(xhr);
      const on = (type, fn) => hub.apply(hub.native.addEventListener, xhr, [type, fn]);
      const fail = (why) => () => {
        const rec = state.get(xhr);
        if (rec) rec.failure = why;
      };
      on("error", fail("network error"));
      on("abort", fail("aborted"));
      on("timeout", fail("timeout"));
      on("loadend", () => finished(xhr));
    }

    const hooks = {
      open(method, url) {
        try {
          state.set(this, { source: "xhr", method: String(method || "GET").toUpperCase(), url: absolute(url), headers: [] });
        } catch {
          // never in the page's way
        }
        return Reflect.apply(native.open, this, arguments);
      },
      setRequestHeader(name, value) {
        const result = Reflect.apply(native.setRequestHeader, this, arguments);
        try {
          if (hub.settings.bodies) state.get(this)?.headers.push([name, value]);
        } catch {
          // idem
        }
        return result;
      },
      send(body) {
        try {
          const rec = state.get(this);
          if (rec) {
            rec.epoch = hub.native.dateNow();
            rec.start = now();
            rec.requestSize = requestSize(body);
            rec.bodies = hub.settings.bodies;
            if (rec.bodies) {
              const type = rec.headers.find(([k]) => String(k).toLowerCase() === "content-type")?.[1] || "";
              rec.request = bodies.describeRequestBody(body, type);
            }
            listen(this);
          }
        } catch {
          // idem
        }
        return Reflect.apply(native.send, this, arguments);
      },
    };
    for (const name of Object.keys(hooks)) {
      Object.defineProperty(hooks[name], "length", { value: native[name].length });
      proto[name] = hooks[name];
    }
  }

  // -- everything else the page loads (scripts, styles, images, ...) ---------------------------

  try {
    const SKIP = new Set(["fetch", "xmlhttprequest"]); // reported by the wrappers above
    new PerformanceObserver((list) => {
      try {
        for (const e of /** @type {PerformanceResourceTiming[]} */ (list.getEntries())) {
          if (SKIP.has(e.initiatorType)) continue;
          hub.emit({
            kind: "network",
            ts: hub.isoAt(performance.timeOrigin + e.startTime),
            source: "resource",
            initiator: e.initiatorType,
            method: e.initiatorType === "beacon" ? "POST" : "GET", // sendBeacon always posts
            url: hub.cut(e.name, MAX_URL)[0],
            status: e.responseStatus || null,
            duration_ms: Math.round(e.duration * 10) / 10,
            transfer_size: e.transferSize,
            response_size: e.decodedBodySize,
          });
        }
      } catch {
        // idem
      }
    }).observe({ type: "resource", buffered: true });
  } catch {
    // no resource timing here
  }
})();
