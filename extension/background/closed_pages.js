// @ts-check
// Pages the browser keeps closed to extensions although their address does not say so (tabs.js refuses
// the ones it does, chrome://… and the like, before trying): a fresh tab's about:blank, the browser's own
// error page after a load that failed, a data: page, a PDF viewer, the Web Store. Chrome refuses the
// script with a sentence of its own ("Cannot access contents of url …", "Frame with ID 0 is showing
// error page", "The extensions gallery cannot be scripted"); a read answers what the page is instead —
// empty, where an extension sees nothing because there is nothing (about:blank) or nothing it may read
// (an error page: its address and title are known) — or not_supported saying why and what to do.
import { Codes, TPError, refusedEntry } from "./protocol.js";

/** @typedef {"blank" | "error_page" | "browser"} Closed */

/**
 * Which kind of closed page refused `err`, or null when `err` is not such a refusal.
 * @param {chrome.tabs.Tab} tab @param {unknown} err @returns {Closed | null}
 */
export function closedKind(tab, err) {
  if (err instanceof TPError) return err.details?.closed ?? null;
  const message = String(/** @type {any} */ (err)?.message ?? err);
  if (!refusedEntry(message)) return null;
  if (/showing error page/i.test(message)) return "error_page";
  if (tab.url === "about:blank" || /"about:blank"/.test(message)) return "blank";
  return "browser";
}

/**
 * The not_supported a refusal answers: why, and what to do.
 * @param {chrome.tabs.Tab} tab @param {unknown} err @param {Closed} kind
 */
export function closedPage(tab, err, kind) {
  const where = (tab.url || tab.pendingUrl || "this page").split("?")[0];
  const details = { tab_id: tab.id, url: tab.url ?? "", closed: kind };
  if (kind === "error_page") {
    return new TPError(
      Codes.NOT_SUPPORTED,
      `Tab ${tab.id} shows the browser's error page: ${where} did not load, and the browser keeps extensions out of its error pages. Navigate the tab again, or to another page.`,
      details,
    );
  }
  if (kind === "blank") {
    return new TPError(
      Codes.NOT_SUPPORTED,
      `Tab ${tab.id} is blank (about:blank): there is nothing in it, and the browser keeps extensions out of it. Navigate the tab to a web page first.`,
      details,
    );
  }
  const reason = String(/** @type {any} */ (err)?.message ?? err);
  return new TPError(
    Codes.NOT_SUPPORTED,
    `Tabpilot cannot work in ${where}: the browser keeps extensions out of this page (${reason}). Navigate the tab to a web page first.`,
    details,
  );
}

/**
 * The not_supported of a frame (not the top) the browser keeps closed: a data: or error page in an iframe.
 * @param {number} frameId @param {unknown} err
 */
export function closedFrame(frameId, err) {
  const reason = String(/** @type {any} */ (err)?.message ?? err);
  return new TPError(
    Codes.NOT_SUPPORTED,
    `The frame @f${frameId} is a page the browser keeps extensions out of (${reason}). Read the top page, or another frame.`,
    { frame: `@f${frameId}`, closed: "browser" },
  );
}

/** What an error page says of itself to a read (the text of it is the browser's, out of reach). */
const errorNote = (tab) =>
  `The tab shows the browser's error page: ${(tab.url || "the page").split("?")[0]} did not load. Navigate the tab again, or to another page.`;

/**
 * The answer of a whole-page read (page.read, page.injection_scan) on a blank tab or an error page:
 * the page as an extension sees it, empty. Null when there is no honest empty answer: a read of one
 * element or frame (there is no element to name), or a page the browser keeps closed for other reasons.
 * @param {chrome.tabs.Tab} tab @param {string} op @param {Record<string, any>} params @param {Closed} kind
 * @returns {Record<string, unknown> | null}
 */
export function emptyRead(tab, op, params, kind) {
  if (kind !== "blank" && kind !== "error_page") return null;
  if ((typeof params.selector === "string" && params.selector) || (typeof params.frame === "string" && params.frame.trim())) return null;
  const head = { url: tab.url ?? "", title: tab.title ?? "", ...(kind === "error_page" ? { note: errorNote(tab) } : {}) };
  if (op === "page.injection_scan") return { url: head.url, title: head.title, segments: [] };
  if (op !== "page.read") return null;
  switch (params.what) {
    case "text":
      return { ...head, text: "" };
    case "html":
      return { ...head, html: "" };
    case "links":
      return { ...head, links: [], count: 0 };
    case "forms":
      return { ...head, forms: [], count: 0 };
    case "markdown":
      return { ...head, source: "body", markdown: "" };
    case "media":
      return { ...head, images: [], video: [], audio: [], count: 0 };
    case "structured_data":
      return { ...head, lang: "", json_ld: [], open_graph: {}, twitter: {}, meta: {}, links: {} };
    default:
      return null;
  }
}

/**
 * observe snapshot of a blank tab or an error page: an empty tree (no refs). Null as emptyRead.
 * @param {chrome.tabs.Tab} tab @param {Record<string, any>} params @param {Closed} kind
 */
export function emptySnapshot(tab, params, kind) {
  if (kind !== "blank" && kind !== "error_page") return null;
  if ((typeof params.frame === "string" && params.frame.trim()) || (typeof params.scope === "string" && params.scope.trim())) return null;
  // `document` names the document for a later diff: a new one once the tab loads a page.
  return { tab_id: tab.id, url: tab.url ?? "", title: tab.title ?? "", document: `closed:${tab.id}:${tab.url}`, text: "", refs: 0, frames: 0, took_ms: 0 };
}
