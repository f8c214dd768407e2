// @ts-check
// The versioned bridge protocol, extension side. Its twin is desktop/tabpilot/bridge/protocol.py.
export const PROTOCOL_VERSION = 2;
export const DEFAULT_PORT = 47615;

// Error codes of the contract that the extension may report.
export const Codes = Object.freeze({
  AI_WEB_PILOT_DISABLED: "ai_web_pilot_disabled",
  INVALID_PARAMS: "invalid_params",
  TIMEOUT: "timeout",
  ELEMENT_NOT_FOUND: "element_not_found",
  STALE_REF: "stale_ref",
  TAB_CLOSED: "tab_closed",
  NAVIGATION_FAILED: "navigation_failed",
  DIALOG_OPEN: "dialog_open",
  NOT_SUPPORTED: "not_supported",
  INTERNAL: "internal",
});

/**
 * JSON text that goes into a frame as it is, not as a string: what a page already sent as one JSON text
 * (scrape.extract's rows) is not parsed and written again in the worker.
 */
export class RawJson {
  /** @param {string} text valid JSON */
  constructor(text) {
    this.text = text;
  }
}

/**
 * A frame as text: JSON.stringify, with each RawJson put in verbatim. Its place is held by a string
 * no page can guess (a fresh random mark per frame), replaced once the rest is written.
 * @param {unknown} frame
 */
export function encodeFrame(frame) {
  /** @type {string[]} */
  const raws = [];
  const nonce = crypto.getRandomValues(new Uint32Array(2)).join("-");
  const text = JSON.stringify(frame, (_key, value) => (value instanceof RawJson ? `\u0000raw${nonce}:${raws.push(value.text) - 1}` : value));
  if (!raws.length) return text;
  // JSON.stringify wrote each mark as the string "\u0000raw<nonce>:<n>" (the NUL escaped as six characters).
  return text.replace(new RegExp(`"\\\\u0000raw${nonce}:(\\d+)"`, "g"), (_all, n) => raws[Number(n)]);
}

export class TPError extends Error {
  constructor(code, message, details = undefined) {
    super(message);
    this.code = code;
    this.details = details;
  }
}

export function resultOk(id, data) {
  return { type: "result", id, ok: true, data: data ?? {} };
}

/**
 * Chrome's refusals to run a script in a page it keeps from extensions: a page of its own, the Web Store,
 * an error page, a data: or PDF page, a blank tab (background/closed_pages.js says which).
 */
const REFUSED_ENTRY = /^Cannot access (contents of|a chrome|a chrome-extension|the contents)|cannot be scripted|is showing error page|^Cannot script /i;

/** @param {string} message */
export const refusedEntry = (message) => REFUSED_ENTRY.test(message);

export function resultErr(id, error) {
  const known = error instanceof TPError;
  const text = error?.message ?? String(error);
  // A refusal that reached here without its page (closed_pages.js words it with the tab) is still no
  // fault of ours: not_supported, with what to do, rather than `internal`.
  const refused = !known && refusedEntry(text);
  const wire = {
    code: known ? error.code : refused ? Codes.NOT_SUPPORTED : Codes.INTERNAL,
    message: known
      ? error.message
      : refused
        ? `The browser keeps extensions out of this page (${text}). Navigate the tab to a web page first.`
        : `Extension error: ${text}`,
  };
  if (known && error.details) wire.details = error.details;
  return { type: "result", id, ok: false, error: wire };
}

/** Parse a frame from the app; null when it is not one we understand. */
export function parseFrame(text) {
  let msg;
  try {
    msg = JSON.parse(text);
  } catch {
    return null;
  }
  if (!msg || typeof msg !== "object" || typeof msg.type !== "string") return null;
  switch (msg.type) {
    case "command":
      return typeof msg.id === "string" && typeof msg.op === "string" && msg.params && typeof msg.params === "object"
        ? msg
        : null;
    case "challenge":
      return typeof msg.server_nonce === "string" && Array.isArray(msg.app_proofs) ? msg : null;
    case "welcome":
    case "refused":
    case "state":
    case "pong":
      return msg;
    default:
      return null;
  }
}
