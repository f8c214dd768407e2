// @ts-check
// Capture, page side (MAIN world) — 2/7: request and response bodies, only while the user has
// "network bodies" on. Bodies are read from clones (fetch) or from what the page already has (XHR),
// so the page's own reads are untouched. Sensitive headers are dropped before anything leaves.
(() => {
  const hub = window.__tabpilotCaptureHub;
  if (!hub || hub.bodies) return;

  const MAX_REQUEST = 8 * 1024; // characters of a request body
  const MAX_RESPONSE = 16 * 1024; // characters of a response body
  const READ_TIMEOUT_MS = 10_000; // a response body still streaming after this is cut
  const SENSITIVE = /^(authorization|proxy-authorization|cookie|set-cookie|x-api-key)$|token|secret|key|password/i;
  const TEXTUAL = /^text\/|[/+](json|xml|javascript|ecmascript|x-www-form-urlencoded|graphql|x-ndjson|csv)\b/i;
  const STREAMING = /^text\/event-stream/i;

  const isSensitive = (name) => SENSITIVE.test(name);

  /** Headers (Headers, [[k, v]], {k: v}) as a plain object without the sensitive ones. */
  function safeHeaders(headers) {
    const out = {};
    if (!headers) return out;
    const add = (k, v) => {
      const name = String(k).toLowerCase();
      if (!isSensitive(name)) out[name] = hub.cut(String(v), 1000)[0];
    };
    try {
      if (typeof headers.forEach === "function" && !Array.isArray(headers)) headers.forEach((v, k) => add(k, v));
      else if (Array.isArray(headers)) for (const [k, v] of headers) add(k, v);
      else for (const k of Object.keys(headers)) add(k, headers[k]);
    } catch {
      // unreadable headers: none
    }
    return out;
  }

  /** Raw `getAllResponseHeaders()` text as a safe object. */
  function parseRawHeaders(raw) {
    const pairs = [];
    for (const line of String(raw || "").split(/\r?\n/)) {
      const i = line.indexOf(":");
      if (i > 0) pairs.push([line.slice(0, i).trim(), line.slice(i + 1).trim()]);
    }
    return safeHeaders(pairs);
  }

  const binary = (size, type) => `[Binary: ${size ?? "unknown size"}${size == null ? "" : " bytes"}, ${type || "unknown type"}]`;

  const isTextual = (type) => !type || TEXTUAL.test(type);

  /** A request body the page handed to fetch or XHR: `{body, truncated}` (body may be null). */
  function describeRequestBody(body, type) {
    if (body == null) return { body: null, truncated: false };
    let text;
    if (typeof body === "string") text = body;
    else if (body instanceof URLSearchParams) text = body.toString();
    else if (body instanceof Blob) return { body: binary(body.size, body.type || type), truncated: false };
    else if (body instanceof ArrayBuffer || ArrayBuffer.isView(body)) {
      if (!isTextual(type)) return { body: binary(body.byteLength, type), truncated: false };
      try {
        text = new TextDecoder().decode(body);
      } catch {
        return { body: binary(body.byteLength, type), truncated: false };
      }
    } else if (body instanceof FormData) {
      const parts = [];
      for (const [k, v] of body.entries()) parts.push(`${k}=${typeof v === "string" ? v : binary(v.size, v.type)}`);
      text = `[FormData] ${parts.join("&")}`;
    } else if (typeof ReadableStream !== "undefined" && body instanceof ReadableStream) text = "[Stream]";
    else if (typeof Document !== "undefined" && body instanceof Document) text = "[Document]";
    else text = String(body);
    const [cutText, truncated] = hub.cut(text, MAX_REQUEST);
    return { body: cutText, truncated };
  }

  async function readRequest(request) {
    const type = request.headers.get("content-type") || "";
    if (!isTextual(type)) {
      const buf = await request.arrayBuffer();
      return { body: binary(buf.byteLength, type), truncated: false };
    }
    return describeRequestBody(await request.text(), type);
  }

  /** Reads a cloned Response: text up to the limit, binary as its size; never more than needed. */
  async function readResponse(clone) {
    const type = clone.headers.get("content-type") || "";
    const length = clone.headers.get("content-length");
    if (STREAMING.test(type)) {
      clone.body?.cancel().catch(() => {});
      return { body: `[Stream: ${type}]`, truncated: false };
    }
    // Binary is never read: its size comes from Content-Length or stays unknown. Reading it would pull
    // the whole download ahead of the page, which may never read it or read it slowly.
    let textual = isTextual(type);
    if (!textual) {
      clone.body?.cancel().catch(() => {});
      return { body: binary(length == null ? null : Number(length), type), truncated: false };
    }
    if (!clone.body) return { body: "", truncated: false };
    const reader = clone.body.getReader();
    const decoder = new TextDecoder();
    let text = "";
    let bytes = 0;
    let truncated = false;
    let sniff = !type; // no content type: text unless the first bytes hold a NUL
    const timer = hub.native.setTimeout(() => {
      truncated = true;
      reader.cancel().catch(() => {});
    }, READ_TIMEOUT_MS);
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        bytes += value.byteLength;
        if (sniff) {
          sniff = false;
          textual = !value.subarray(0, 512).includes(0);
          if (!textual) {
            reader.cancel().catch(() => {});
            break;
          }
        }
        text += decoder.decode(value, { stream: true });
        if (text.length > MAX_RESPONSE) {
          truncated = true;
          reader.cancel().catch(() => {});
          break;
        }
      }
    } catch {
      truncated = truncated || bytes > 0;
    } finally {
      hub.native.clearTimeout(timer);
    }
    if (!textual) return { body: binary(length == null ? null : Number(length), type), truncated: false };
    text += decoder.decode();
    const [body, cutHere] = hub.cut(text, MAX_RESPONSE);
    return { body, truncated: truncated || cutHere };
  }

  /** An XHR's response as the page already has it (nothing is read twice from the network). */
  function describeXhrResponse(xhr) {
    const type = xhr.getResponseHeader("content-type") || "";
    const kind = xhr.responseType;
    if (kind === "" || kind === "text") {
      if (!isTextual(type)) return { body: binary(xhr.responseText.length, type), truncated: false };
      const [body, truncated] = hub.cut(xhr.responseText, MAX_RESPONSE);
      return { body, truncated };
    }
    if (kind === "arraybuffer") return { body: binary(xhr.response?.byteLength ?? 0, type), truncated: false };
    if (kind === "blob") return { body: binary(xhr.response?.size ?? 0, type), truncated: false };
    if (kind === "json") {
      const [body, truncated] = hub.cut(hub.native.stringify(xhr.response) ?? "null", MAX_RESPONSE);
      return { body, truncated };
    }
    return { body: `[${kind}]`, truncated: false };
  }

  hub.bodies = { safeHeaders, parseRawHeaders, describeRequestBody, readRequest, readResponse, describeXhrResponse, isSensitive };
})();
